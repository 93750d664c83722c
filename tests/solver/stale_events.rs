//! The events list is the run shown: after going to an earlier event, or seeking back, and
//! going on from there differently, the events of the future left behind are gone (they come
//! back only if the new run reaches them again).

use singulab::lesson::Way;
use singulab::lesson::choices::leave_direction;
use singulab::live::LiveSession;

use crate::common::scene;

fn times(session: &LiveSession) -> Vec<f64> {
    session.events().iter().map(|e| e.t).collect()
}

/// Every listed event is at or before the state shown.
fn assert_none_ahead(session: &LiveSession, when: &str) {
    let t = session.time();
    let ahead: Vec<f64> = times(session)
        .into_iter()
        .filter(|&e| e > t + 1e-12)
        .collect();
    assert!(
        ahead.is_empty(),
        "{when}: events {ahead:?} listed after t = {t}"
    );
}

fn leave(session: &mut LiveSession, branch: usize) {
    let direction = leave_direction(session, branch, Way::Forward).unwrap();
    session.leave_along(&direction, None).unwrap();
}

#[test]
fn going_on_from_an_earlier_event_drops_the_events_of_the_branch_left_behind() {
    // A02 (the README's steps 4 and 5): to the first flat pose, out on branch 1 to the next
    // event (about 1.16 s), back to the first, out on branch 2 to its next event.
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(100_000);
    let first = session.time();
    leave(&mut session, 1);
    session.run_until_paused(100_000);
    let branch_1_event = session.time();
    assert!(branch_1_event > first + 0.3, "test bug: {branch_1_event}");
    session.goto_event(0).unwrap();
    assert_eq!(session.time(), first);
    // Still there, the later event can be gone to again.
    assert_eq!(times(&session), vec![first, branch_1_event]);
    leave(&mut session, 2);
    assert_none_ahead(&session, "just after leaving on branch 2");
    session.run_until_paused(100_000);
    let listed = times(&session);
    assert!(
        !listed.contains(&branch_1_event),
        "branch 1's event at {branch_1_event} s listed on branch 2: {listed:?}"
    );
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_none_ahead(&session, "at branch 2's next event");
}

#[test]
fn going_on_after_a_seek_back_drops_the_later_events_until_they_come_again() {
    // A02 run through its events to 1.5 s, seeked back to 0.9 s, then pushed: the events
    // after 0.9 s belonged to the run without the push.
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(1.5));
    session.run_until_paused(100_000);
    let before = times(&session);
    assert!(before.iter().any(|&t| t > 0.9), "test bug: {before:?}");
    session.seek(0.9).unwrap();
    let basis = session
        .simulation()
        .basis(singulab::solver::BasisMode::Continued);
    let column = basis.columns().column(0).into_owned();
    session.push_along(&column, 0.5, 0.01).unwrap();
    assert_none_ahead(&session, "just after the push");
    session.set_stop_time(Some(1.0));
    session.run_until_paused(100_000);
    assert_none_ahead(&session, "at 1.0 s after the push");
}

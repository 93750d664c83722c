//! The events list is the run shown: after going to an earlier event, or seeking back, and
//! going on from there differently, the events of the future left behind are gone (they come
//! back only if the new run reaches them again).

use singulab::lesson::Way;
use singulab::lesson::choices::leave_direction;
use singulab::live::{LiveSession, TracePoint};

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

#[test]
fn a_replayed_lessons_csvs_hold_each_segment_in_time_order() {
    // The shipped A02 lesson: the continuation to the first flat pose, branch 1 to 1.7 s, then
    // back to the first flat pose and branch 2 to its end at 6 s. Each segment's rows go
    // forward in time, and each event lies within the segment it is listed under (branch 1's
    // event near 1.16 s under branch 1 only).
    let dir = crate::common::scratch("replay-segments");
    let (out, events) = (dir.join("t.csv"), dir.join("e.csv"));
    let lesson =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/lessons/a02_branches.ron");
    let output = crate::common::singulab(&[
        "run",
        "--script",
        lesson.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let rows = |path: &std::path::Path| -> Vec<(f64, u32)> {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(header[..2], ["t", "segment"]);
        lines
            .map(|l| {
                let mut cells = l.split(',');
                let t = cells.next().unwrap().parse().unwrap();
                (t, cells.next().unwrap().parse().unwrap())
            })
            .collect()
    };
    let trajectory = rows(&out);
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for pair in trajectory.windows(2) {
        let ((t0, s0), (t1, s1)) = (pair[0], pair[1]);
        match s1 {
            _ if s1 == s0 => assert!(t1 > t0, "segment {s0}: t {t0} then {t1}"),
            _ => assert_eq!(s1, s0 + 1, "segment {s0} then {s1}"),
        }
    }
    for &(t, s) in &trajectory {
        let index = s as usize - 1;
        if index == spans.len() {
            spans.push((t, t));
        }
        spans[index].1 = t;
    }
    println!("segments: {spans:?}");
    assert_eq!(spans.len(), 3, "{spans:?}");
    let first_event = spans[0].1;
    assert!((spans[1].0 - first_event).abs() < 3e-3 && (spans[2].0 - first_event).abs() < 3e-3);
    assert_eq!(spans[2].1, 6.0);
    let listed = rows(&events);
    for &(t, s) in &listed {
        let (start, end) = spans[s as usize - 1];
        assert!(
            t >= start - 3e-3 && t <= end,
            "event at {t} s under segment {s} ({start}..{end})"
        );
    }
    let branch_1: Vec<u32> = listed
        .iter()
        .filter(|(t, _)| (t - 1.156).abs() < 1e-3)
        .map(|&(_, s)| s)
        .collect();
    assert!(
        !branch_1.is_empty() && branch_1.iter().all(|&s| s == 2),
        "{branch_1:?}"
    );
}

#[test]
fn a_trace_seeked_back_ends_at_the_state_shown() {
    // A02 run to 1.5 s with coupler 1's centre traced, then seeked back to 0.9 s: the trace
    // shown ends where that point is at 0.9 s (within the trace's spacing, 1e-3 of the
    // view's width), not where the run went on to.
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    let mechanism = session.scene().mechanism.clone();
    let coupler = mechanism
        .bodies()
        .iter()
        .position(|b| b.name == "coupler1")
        .unwrap();
    session.set_trace_point(Some(TracePoint::centre(coupler)));
    session.auto_pause = false;
    session.set_stop_time(Some(1.5));
    session.run_until_paused(100_000);
    let whole = session.shown_traces().next().unwrap().count();
    session.seek(0.9).unwrap();
    let shown: Vec<[f64; 3]> = session.shown_traces().next().unwrap().copied().collect();
    assert!(
        shown.len() < whole,
        "{} points shown of {whole}",
        shown.len()
    );
    let here = TracePoint::centre(coupler).position(&mechanism, session.simulation().positions());
    let last = shown.last().unwrap();
    let gap = ((last[0] - here[0]).powi(2) + (last[1] - here[1]).powi(2)).sqrt();
    let spacing = 1e-3 * session.scene().view.width.unwrap_or(1.0);
    assert!(
        gap <= spacing + 1e-12,
        "the trace ends {gap} m from the point"
    );
}

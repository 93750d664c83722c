//! The session's timeline: seeking shows the state the run had, bit for bit (checked against
//! the run itself, recorded step by step, and against the solver stepped directly); undo
//! restores the state before a push or leave exactly; the checkpoints keep to their memory
//! budget; resuming from an earlier instant discards the later part.

use nalgebra::DVector;
use singulab::live::history::ChannelKind;
use singulab::live::{LiveSession, MarkKind, MotionRole, PauseReason, TracePoint, motions};
use singulab::model::BodyKind;
use singulab::solver::{BasisMode, Simulation};

use crate::common::{scene, stopping_four_bar};

/// Everything a state shows, as bits: time, positions, velocities, both bases (columns,
/// `q`, `qd`).
fn bits(sim: &Simulation) -> Vec<u64> {
    let mut out = vec![sim.time().to_bits()];
    out.extend(sim.positions().iter().map(|v| v.to_bits()));
    out.extend(sim.velocities().iter().map(|v| v.to_bits()));
    for mode in [BasisMode::Continued, BasisMode::Traditional] {
        let basis = sim.basis(mode);
        out.push(basis.dim() as u64);
        out.extend(basis.columns().iter().map(|v| v.to_bits()));
        out.extend(basis.q().iter().map(|v| v.to_bits()));
        out.extend(basis.qd().iter().map(|v| v.to_bits()));
    }
    out
}

/// The last recorded state at or before `t`, in run order.
fn state_at(run: &[(f64, Vec<u64>)], t: f64) -> &Vec<u64> {
    &run.iter()
        .rev()
        .find(|(time, _)| *time <= t)
        .expect("t in the run")
        .1
}

#[test]
fn seeking_shows_the_state_the_uninterrupted_run_had() {
    // A02 through its events without pausing, against the solver stepped directly.
    let s = scene("double_four_bar");
    let mut session = LiveSession::new(s.clone()).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(2.0));
    session.run_until_paused(1_000_000);
    assert!(
        session.events().len() >= 2,
        "{} events",
        session.events().len()
    );
    let head = bits(session.simulation());
    let mut sim = s.simulation_with(s.settings.clone()).unwrap();
    let mut run = vec![(sim.time(), bits(&sim))];
    while sim.time() < 2.0 {
        sim.step_until(2.0).unwrap();
        run.push((sim.time(), bits(&sim)));
    }
    for t in [0.7144, 0.05, 1.9999, 0.0, 1.234_567, 0.5, 0.71] {
        session.seek(t).unwrap();
        assert!(session.is_scrubbing());
        assert!(session.is_paused());
        assert_eq!(&bits(session.simulation()), state_at(&run, t), "at {t}");
    }
    // Back to the end: the run's latest state.
    session.seek(10.0).unwrap();
    assert!(!session.is_scrubbing());
    assert_eq!(bits(session.simulation()), head);
}

#[test]
fn seeking_across_pauses_at_events_shows_each_state_of_the_run() {
    // The four-bar pausing at each event (the state placed at the located minimum, the run
    // going on from there): recorded after every step the session took.
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    let mut run = vec![(session.time(), bits(session.simulation()))];
    let mut pauses = Vec::new();
    for _ in 0..1500 {
        session.single_step();
        run.push((session.time(), bits(session.simulation())));
        if session.current_event().is_some() {
            pauses.push((session.time(), bits(session.simulation())));
        }
    }
    assert!(pauses.len() >= 2, "{} pauses at events", pauses.len());
    let marks = session.marks().iter().filter(|m| m.kind == MarkKind::Event);
    assert_eq!(marks.count(), pauses.len());
    for (t, state) in &pauses {
        session.seek(*t).unwrap();
        assert_eq!(&bits(session.simulation()), state, "event at {t}");
        assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
        assert_eq!(session.current_event().map(|e| e.t), Some(*t));
        for dt in [-0.0123, 0.0007, 0.1] {
            session.seek(t + dt).unwrap();
            assert_eq!(
                &bits(session.simulation()),
                state_at(&run, t + dt),
                "at {}",
                t + dt
            );
        }
    }
}

#[test]
fn going_to_an_event_is_a_jump_on_the_timeline() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let first = bits(session.simulation());
    session.run_until_paused(1_000_000);
    session.run_until_paused(1_000_000);
    let end = session.time();
    session.goto_event(0).unwrap();
    assert_eq!(bits(session.simulation()), first);
    assert!(
        session.is_scrubbing(),
        "the later part is kept until the run goes on"
    );
    assert_eq!(session.timeline_span().1, end);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    assert!(!session.branches().is_empty());
}

#[test]
fn undo_restores_the_state_before_a_push_exactly() {
    let mut session = LiveSession::new(stopping_four_bar()).unwrap();
    session.run_until_paused(1_000_000);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    let before = bits(session.simulation());
    let t_event = session.time();
    let event = session.current_event().unwrap().clone();
    let new = motions::event_motions(&event, BasisMode::Continued)
        .into_iter()
        .find(|m| m.role == MotionRole::New)
        .expect("a new motion at the flat pose");
    session.push_along(&new.column, 1.0, 0.05).unwrap();
    session.set_stop_time(Some(t_event + 0.3));
    session.run_until_paused(1_000_000);
    assert!(session.marks().iter().any(|m| m.kind == MarkKind::Push));
    assert_ne!(bits(session.simulation()), before);
    assert!(session.undo().unwrap());
    assert_eq!(bits(session.simulation()), before);
    assert_eq!(session.time(), t_event);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    assert!(!session.is_pushing());
    assert!(!session.marks().iter().any(|m| m.kind == MarkKind::Push));
    assert_eq!(session.history().last_time(), Some(t_event));
    assert!(!session.undo().unwrap(), "nothing more to undo");
}

#[test]
fn undo_restores_the_state_before_a_leave_and_replays_the_same_way() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let before = bits(session.simulation());
    let branch: DVector<f64> = session.branches()[0].direction.clone();
    session.leave_along(&branch, None).unwrap();
    session.set_stop_time(Some(session.time() + 0.2));
    session.run_until_paused(1_000_000);
    let after_leave = bits(session.simulation());
    assert!(session.marks().iter().any(|m| m.kind == MarkKind::Leave));
    assert!(session.undo().unwrap());
    assert_eq!(bits(session.simulation()), before);
    assert!(session.marks().iter().all(|m| m.kind == MarkKind::Event));
    // The same leave again takes the same path, bit for bit.
    session.leave_along(&branch, None).unwrap();
    session.set_stop_time(Some(f64::from_bits(after_leave[0])));
    session.run_until_paused(1_000_000);
    assert_eq!(bits(session.simulation()), after_leave);
}

#[test]
fn the_checkpoints_keep_to_their_memory_budget_on_a_long_run() {
    let s = scene("double_four_bar");
    let mut session = LiveSession::new(s.clone()).unwrap();
    session.auto_pause = false;
    let budget = 3 << 20;
    session.set_timeline_budget(budget);
    session.set_stop_time(Some(20.0));
    let mut most = 0;
    loop {
        session.run_until_paused(500);
        most = most.max(session.timeline().bytes());
        assert!(session.timeline().bytes() <= budget);
        if session.pause_reason() == Some(&PauseReason::TimeReached) {
            break;
        }
    }
    assert!(most > budget / 2, "the budget was never used: {most} bytes");
    let (start, end) = session.timeline_span();
    assert_eq!(end, 20.0);
    // Thinning keeps the oldest checkpoints: the whole run can still be shown exactly.
    assert_eq!(start, 0.0, "the timeline starts at {start}");
    let mut sim = s.simulation_with(s.settings.clone()).unwrap();
    let mut run = vec![(sim.time(), bits(&sim))];
    while sim.time() < 3.0 {
        sim.step().unwrap();
        run.push((sim.time(), bits(&sim)));
    }
    for t in [0.3, 2.9] {
        session.seek(t).unwrap();
        assert_eq!(&bits(session.simulation()), state_at(&run, t), "at {t}");
    }
}

#[test]
fn resuming_from_an_earlier_instant_discards_the_later_part() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(2.0));
    session.run_until_paused(1_000_000);
    let marks = session.marks().len();
    assert!(marks >= 2, "{marks} marks");
    let t = session.marks()[0].t + 0.01;
    session.seek(t).unwrap();
    assert_eq!(session.marks().len(), marks, "kept while scrubbing");
    let shown = session.time();
    session.set_stop_time(None);
    session.play();
    assert!(!session.is_scrubbing());
    assert_eq!(session.marks().len(), 1);
    assert!(session.marks().iter().all(|m| m.t <= shown));
    assert_eq!(session.timeline_span().1, shown);
    assert_eq!(session.history().last_time(), Some(shown));
}

#[test]
fn seeking_into_a_running_drag_replays_its_spring() {
    // The four-bar pulled by the spring of a running drag whose target moves every 20 steps:
    // the replay applies the same spring targets at the same steps.
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.play();
    let (point, _) = session.pick([0.5, 1.0, 0.0]).unwrap();
    session.begin_drag(point).unwrap();
    let mut run = vec![(session.time(), bits(session.simulation()))];
    for k in 0..400 {
        if k % 20 == 0 {
            let a = 0.01 * k as f64;
            session
                .drag_to([1.0 + a.cos(), 0.5 + a.sin(), 0.0])
                .unwrap();
        }
        session.single_step();
        run.push((session.time(), bits(session.simulation())));
    }
    session.end_drag();
    for _ in 0..100 {
        session.single_step();
        run.push((session.time(), bits(session.simulation())));
    }
    assert!(session.marks().iter().any(|m| m.kind == MarkKind::Drag));
    for t in [0.0371, 0.2, 0.3999, 0.45] {
        session.seek(t).unwrap();
        assert_eq!(&bits(session.simulation()), state_at(&run, t), "at {t}");
    }
    // Going on from the middle of the drag: the spring has let go.
    session.seek(0.2).unwrap();
    assert!(!session.simulation().extra_loads().is_empty());
    session.play();
    assert!(session.simulation().extra_loads().is_empty());
    assert!(session.drag().is_none());
}

#[test]
fn playing_on_from_an_event_gone_back_to_repeats_the_run() {
    // The four-bar pausing at each event up to 1.5 s; back to the first event through the
    // timeline, and on again: the same run, bit for bit (playing on from an event goes on
    // from the step that located it).
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    session.set_stop_time(Some(1.5));
    let run_to_the_end = |session: &mut LiveSession| {
        let mut pauses = 0;
        while session.pause_reason() != Some(&PauseReason::TimeReached) {
            session.run_until_paused(1_000_000);
            pauses += 1;
        }
        pauses
    };
    let pauses = run_to_the_end(&mut session);
    assert!(pauses >= 3, "{pauses} pauses");
    let end = bits(session.simulation());
    session.goto_event(0).unwrap();
    assert!(session.is_scrubbing());
    session.set_stop_time(Some(1.5));
    assert_eq!(run_to_the_end(&mut session), pauses);
    assert_eq!(bits(session.simulation()), end);
}

#[test]
fn thinning_keeps_the_states_paused_at_events() {
    // A02 pausing at each of its events over 12 s within 20 MB: its 240 plain checkpoints
    // (139 kB each) would need 33 MB, so they are thinned; the ones taken at the events
    // (two per event, one keeping the interrupted run too) stay, and going back to the first
    // event through the timeline shows its paused state exactly.
    let budget = 20 << 20;
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.set_timeline_budget(budget);
    session.run_until_paused(1_000_000);
    let first = bits(session.simulation());
    session.set_stop_time(Some(12.0));
    let mut pauses = 1;
    while session.pause_reason() != Some(&PauseReason::TimeReached) {
        session.run_until_paused(1_000_000);
        pauses += 1;
        assert!(session.timeline().bytes() <= budget);
    }
    assert!(pauses > 10, "{pauses} pauses");
    let kept = session.timeline().checkpoints();
    assert!(kept < 240, "{kept} checkpoints: nothing thinned");
    assert_eq!(session.timeline_span().0, 0.0);
    session.goto_event(0).unwrap();
    assert!(session.is_scrubbing(), "went back through the timeline");
    assert_eq!(bits(session.simulation()), first);
}

#[test]
fn a_drag_that_ends_a_push_replays_exactly() {
    // The four-bar at rest at its flat pose, pushed along its new motion; 10 steps into the
    // push a running drag takes over (the push ends: its loads and raised rank tolerance
    // go), then lets go. Every instant replays as the run had it.
    let mut session = LiveSession::new(stopping_four_bar()).unwrap();
    session.run_until_paused(1_000_000);
    let event = session.current_event().unwrap().clone();
    let new = motions::event_motions(&event, BasisMode::Continued)
        .into_iter()
        .find(|m| m.role == MotionRole::New)
        .expect("a new motion at the flat pose");
    session.push_along(&new.column, 1.0, 0.05).unwrap();
    let mut run = vec![(session.time(), bits(session.simulation()))];
    let mut step = |session: &mut LiveSession| {
        session.single_step();
        run.push((session.time(), bits(session.simulation())));
    };
    for _ in 0..10 {
        step(&mut session);
    }
    assert!(session.is_pushing());
    session.play();
    let (point, _) = session.pick([0.5, 0.0, 0.0]).unwrap();
    session.begin_drag(point).unwrap();
    assert!(!session.is_pushing());
    session.drag_to([0.5, 0.5, 0.0]).unwrap();
    for _ in 0..100 {
        step(&mut session);
    }
    session.end_drag();
    for _ in 0..50 {
        step(&mut session);
    }
    let t0 = event.t;
    for t in [t0 + 0.005, t0 + 0.0101, t0 + 0.05, t0 + 0.1105, t0 + 0.13] {
        session.seek(t).unwrap();
        assert_eq!(&bits(session.simulation()), state_at(&run, t), "at {t}");
    }
}

/// The events of an undone run go with it: after leaving on branch 1 to the next flat pose
/// and undoing, the list holds the first event only, and the session is paused at it.
#[test]
fn undo_forgets_the_events_of_the_run_it_undoes() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let first = session.current_event().unwrap().t;
    let branch: DVector<f64> = session.branches()[0].direction.clone();
    session.leave_along(&branch, None).unwrap();
    session.run_until_paused(1_000_000);
    assert_eq!(session.events().len(), 2, "paused at the next flat pose");
    assert!(session.undo().unwrap());
    let times: Vec<f64> = session.events().iter().map(|e| e.t).collect();
    assert_eq!(times, [first]);
    assert_eq!(session.current_event().map(|e| e.t), Some(first));
}

/// The events reached count the run's events up to the state shown: a seek before the
/// first event shows none reached, one between the first two shows one, an undo of the
/// leave that reached the second shows one again, and the next event reached on another
/// branch is the only one reported after it.
#[test]
fn seek_and_undo_bring_the_events_reached_back() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let first = session.current_event().unwrap().t;
    assert_eq!(session.events_reached(), 1);
    let branches: Vec<DVector<f64>> = session
        .branches()
        .iter()
        .map(|b| b.direction.clone())
        .collect();
    session.leave_along(&branches[0], None).unwrap();
    session.run_until_paused(1_000_000);
    let second = session.current_event().unwrap().t;
    assert_eq!(session.events_reached(), 2);
    session.seek(0.5 * first).unwrap();
    assert_eq!(session.events_reached(), 0, "before the first event");
    session.seek(0.5 * (first + second)).unwrap();
    assert_eq!(session.events_reached(), 1, "between the first two");
    session.seek(second + 1.0).unwrap();
    assert_eq!(
        session.events_reached(),
        2,
        "back at the run's latest state"
    );
    assert!(session.undo().unwrap());
    assert_eq!(session.events_reached(), 1, "the leave undone");
    session.leave_along(&branches[1], None).unwrap();
    session.run_until_paused(1_000_000);
    assert_eq!(session.events_reached(), 2);
    let reported: Vec<f64> = session.events_reached_since(1).map(|e| e.t).collect();
    assert_eq!(reported, [session.current_event().unwrap().t]);
    assert_ne!(
        reported[0], second,
        "the undone run's event is not reported"
    );
}

/// A leave the session refuses (no direction; a speed that is not positive) leaves
/// nothing to undo, no mark and the state paused at the event as it was.
#[test]
fn a_leave_that_fails_leaves_nothing_to_undo() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let before = bits(session.simulation());
    let marks = session.marks().to_vec();
    let branch: DVector<f64> = session.branches()[0].direction.clone();
    let n = branch.len();
    assert!(session.leave_along(&DVector::zeros(n), None).is_err());
    assert!(session.leave_along(&branch, Some(-1.0)).is_err());
    assert!(
        !session.can_undo(),
        "an undo entry for a leave that did not happen"
    );
    assert_eq!(session.marks(), &marks[..]);
    assert_eq!(bits(session.simulation()), before);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    assert!(!session.branches().is_empty());
    session.leave_along(&branch, None).unwrap();
    assert!(session.can_undo());
}

/// Posing the paused four-bar by hand: the plots' sample at that instant becomes the posed
/// state (one sample, not one per move) and the trace follows the dragged coupler centre to
/// the flat pose (at `(l1 + l2 / 2, 0)` from the scene's lengths: every bar on the x axis);
/// undoing the drag takes both back.
#[test]
fn a_pose_by_hand_extends_the_trace_and_resamples_the_plots() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    assert_eq!(
        session.trace_point(),
        Some(TracePoint::centre(1)),
        "the coupler's"
    );
    let energy = |s: &LiveSession| {
        let channel = s
            .history()
            .channels()
            .iter()
            .find(|c| c.kind == ChannelKind::Energy);
        *channel.unwrap().values().back().unwrap()
    };
    let (samples, energy_before) = (session.history().len(), energy(&session));
    let trace_before = session.trace().len();
    let mechanism = session.scene().mechanism.clone();
    let length = |body: usize| match mechanism.bodies()[body].kind {
        BodyKind::Bar { length } => length,
        _ => panic!("body {body} is not a bar"),
    };
    let target = [length(0) + 0.5 * length(1), 0.0, 0.0];
    let (point, _) = session.pick([0.5, 1.0, 0.0]).unwrap();
    session.begin_drag(point).unwrap();
    for _ in 0..40 {
        session.drag_to(target).unwrap();
    }
    session.end_drag();
    assert_eq!(
        session.history().len(),
        samples,
        "one sample at the instant"
    );
    assert_eq!(energy(&session), session.simulation().energy());
    assert_ne!(
        energy(&session),
        energy_before,
        "the coupler was lowered 1 m"
    );
    assert!(
        session.trace().len() > trace_before,
        "the trace did not follow"
    );
    let last = session.trace().back().unwrap();
    assert!(
        (last[0] - target[0]).abs() < 1e-8 && last[1].abs() < 1e-8,
        "{last:?}"
    );
    assert!(session.undo().unwrap());
    assert_eq!(session.trace().len(), trace_before);
    assert_eq!(session.history().len(), samples);
    assert_eq!(energy(&session).to_bits(), energy_before.to_bits());
}

/// The jump epoch (what the plots' time axis is set up again on) changes exactly when the
/// state shown jumps: a seek, going to an event, an undo; never while the run goes on, and
/// each session (a reset is one) has its own.
#[test]
fn the_jump_epoch_changes_when_the_state_shown_jumps_and_only_then() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    let start = session.jump_epoch();
    session.run_until_paused(100_000);
    assert_eq!(
        session.jump_epoch(),
        start,
        "running to the first event is no jump"
    );
    session.play();
    session.set_stop_time(Some(1.0));
    session.auto_pause = false;
    session.run_until_paused(100_000);
    assert_eq!(session.jump_epoch(), start, "passing events is no jump");
    let mut seen = vec![start];
    let mut jumped = |session: &LiveSession, what: &str| {
        let epoch = session.jump_epoch();
        assert!(!seen.contains(&epoch), "{what}: epoch {epoch} seen before");
        seen.push(epoch);
    };
    session.seek(0.5).unwrap();
    jumped(&session, "seek");
    session.goto_event(0).unwrap();
    jumped(&session, "go to an event");
    let column = session
        .simulation()
        .basis(BasisMode::Continued)
        .columns()
        .column(0)
        .into_owned();
    let before_push = session.jump_epoch();
    session.push_along(&column, 0.5, 0.01).unwrap();
    assert_eq!(session.jump_epoch(), before_push, "a push is no jump");
    session.undo().unwrap();
    jumped(&session, "undo");
    session.reset().unwrap();
    jumped(&session, "reset");
    jumped(
        &LiveSession::new(scene("double_four_bar")).unwrap(),
        "another session",
    );
}

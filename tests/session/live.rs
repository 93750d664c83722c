//! The real-time session the visualizer wraps: pacing, auto-pause at events, interpolation,
//! pushes and failures, checked against the solver stepped directly.

use std::time::{Duration, Instant};

use approx::{abs_diff_eq, assert_abs_diff_eq};
use nalgebra::DVector;
use singulab::live::{LiveSession, MotionRole, PauseReason, TracePoint, motions};
use singulab::solver::{BasisMode, Settings};

use crate::common::{scene, stopping_four_bar};

fn far() -> Instant {
    Instant::now() + Duration::from_secs(600)
}

#[test]
fn advancing_in_real_time_matches_stepping_the_solver() {
    let s = scene("planar_pendulum");
    let mut session = LiveSession::new(s.clone()).unwrap();
    session.play();
    let mut steps = 0;
    for _ in 0..50 {
        steps += session.advance(0.01, far()).steps;
    }
    assert!(session.time() >= 0.5 - 1e-12, "t = {}", session.time());
    assert!(!session.is_behind());
    let mut direct = s.simulation().unwrap();
    for _ in 0..steps {
        direct.step().unwrap();
    }
    assert_eq!(session.time(), direct.time());
    assert_eq!(session.simulation().positions(), direct.positions());
    assert_eq!(session.simulation().velocities(), direct.velocities());
}

#[test]
fn auto_pause_places_the_state_at_the_first_event() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    let out = session.run_until_paused(1_000_000);
    assert!(out.event);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    let event = session.current_event().expect("paused at an event").clone();
    assert_eq!(session.time(), event.t);
    // Masarati et al. 2023, sect. 3.2: at the flat pose the double four-bar loses two ranks and
    // admits three motions, one continuing the motion before and two new.
    assert_eq!(event.deficiency, 2);
    let shown = motions::event_motions(&event, BasisMode::Continued);
    assert_eq!(shown.len(), 3);
    assert_eq!(
        shown.iter().filter(|m| m.role == MotionRole::New).count(),
        2
    );
    // The history ends at the event, not at the step that overshot it.
    assert_eq!(session.history().last_time(), Some(event.t));
}

#[test]
fn passing_events_without_pausing_keeps_the_solver_trajectory() {
    let s = scene("double_four_bar");
    let mut session = LiveSession::new(s.clone()).unwrap();
    session.auto_pause = false;
    session.set_speed(64.0);
    session.play();
    let mut steps = 0;
    while session.time() < 3.0 {
        steps += session.advance(1.0 / 60.0, far()).steps;
    }
    assert!(!session.events().is_empty(), "no event recorded in 3 s");
    let mut direct = s.simulation().unwrap();
    for _ in 0..steps {
        direct.step().unwrap();
    }
    assert_eq!(session.simulation().positions(), direct.positions());
}

#[test]
fn a_spent_budget_drops_the_lag_and_reports_behind() {
    let mut session = LiveSession::new(scene("planar_pendulum")).unwrap();
    session.play();
    let out = session.advance(0.5, Instant::now());
    assert!(out.behind && session.is_behind());
    assert_eq!(out.steps, 0);
    // The half second that could not be simulated is dropped, not owed: the next frame
    // aims one frame ahead of the state, so the window stays responsive.
    let out = session.advance(0.01, far());
    assert!(!out.behind);
    assert!(session.time() < 0.02, "t = {}", session.time());
}

/// When the solver falls behind, the plots still get a few samples per frame of what the
/// frame achieved, also when the frame's later fixed updates find the budget spent and take no
/// step (the app runs several per frame at a low frame rate). The frames' budgets are counted
/// in steps, so the session falls behind by the same amount on any machine.
#[test]
fn falling_behind_keeps_a_few_samples_per_frame() {
    // A frame at 64x asks for 64 / 60 s of A02, about a thousand steps of 1e-3 s.
    const STEPS_PER_FRAME: usize = 20;
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.auto_pause = false;
    session.set_speed(64.0);
    session.play();
    let (mut steps, mut frames) = (0, 0);
    let samples_before = session.history().len();
    let t_before = session.time();
    for _ in 0..30 {
        let out = session.advance_steps(1.0 / 60.0, STEPS_PER_FRAME);
        assert!(out.behind, "64x of A02 within {STEPS_PER_FRAME} steps");
        assert_eq!(out.steps, STEPS_PER_FRAME);
        steps += out.steps;
        for _ in 0..3 {
            // A deadline already past: the budget is spent before the first step.
            let spent = session.advance(1.0 / 60.0, Instant::now());
            assert!(spent.behind);
            assert_eq!(spent.steps, 0);
        }
        frames += 1;
    }
    let samples = session.history().len() - samples_before;
    let simulated = session.time() - t_before;
    // At most one sample per step; otherwise at least two per frame (four are aimed at).
    let wanted = (2 * frames).min(steps);
    assert!(
        samples >= wanted,
        "{samples} samples over {frames} frames, {steps} steps, {simulated:.3} s simulated"
    );
}

#[test]
fn slow_motion_interpolates_between_steps() {
    let mut session = LiveSession::new(scene("planar_pendulum")).unwrap();
    session.set_speed(1.0 / 64.0);
    session.play();
    // Ten frames at 60 Hz simulate 2.6 ms at 1/64x: a few 1 ms steps.
    for _ in 0..10 {
        session.advance(1.0 / 60.0, far());
    }
    let mut before = DVector::zeros(0);
    let mut middle = DVector::zeros(0);
    let mut after = DVector::zeros(0);
    session.display_positions(0.0, &mut before);
    session.display_positions(0.5, &mut middle);
    session.display_positions(1.0, &mut after);
    let t0 = session.display_time(0.0);
    let t1 = session.display_time(1.0);
    assert!(t1 > t0, "display time must move within a frame");
    assert!(t1 <= session.time());
    // The bob's height falls monotonically here (released from horizontal): the middle
    // display lies strictly between the two ends.
    assert!(
        before[1] > middle[1] && middle[1] > after[1],
        "{before} {middle} {after}"
    );
}

#[test]
fn a_push_at_the_flat_pose_leaves_the_parallelogram_branch() {
    // Without a push the four-bar that stops flat falls back as a parallelogram.
    let mut still = LiveSession::new(stopping_four_bar()).unwrap();
    still.run_until_paused(1_000_000);
    assert_eq!(still.pause_reason(), Some(&PauseReason::Event));
    let t_event = still.time();
    still.set_stop_time(Some(t_event + 0.3));
    still.run_until_paused(1_000_000);
    let x = still.simulation().positions();
    assert!(
        abs_diff_eq!(x[2], x[8], epsilon = 1e-6),
        "cranks not parallel without a push"
    );

    let mut pushed = LiveSession::new(stopping_four_bar()).unwrap();
    pushed.run_until_paused(1_000_000);
    let event = pushed.current_event().unwrap().clone();
    let new = motions::event_motions(&event, BasisMode::Continued)
        .into_iter()
        .find(|m| m.role == MotionRole::New)
        .expect("a new motion at the flat pose");
    let usual_rank_tolerance = pushed.settings().rank_tolerance;
    // A unit change of the velocity along the (Euclidean unit) column: `delta` is measured in
    // the mass metric.
    let delta = mass_norm(&pushed, &new.column);
    pushed.push_along(&new.column, delta, 0.05).unwrap();
    assert!(pushed.is_pushing());
    pushed.set_stop_time(Some(t_event + 0.3));
    pushed.run_until_paused(1_000_000);
    assert!(!pushed.is_pushing(), "the push must end after its duration");
    assert_eq!(
        pushed.simulation().settings().rank_tolerance,
        usual_rank_tolerance
    );
    let x = pushed.simulation().positions();
    assert!(
        (x[2] - x[8]).abs() > 0.05,
        "still parallel after the push: {} vs {}",
        x[2],
        x[8]
    );
}

/// Whether `message` starts `PATH.ron:LINE:COLUMN: `.
fn regex_like_location(message: &str) -> bool {
    let Some((_, rest)) = message.split_once(".ron:") else {
        return false;
    };
    let mut parts = rest.splitn(3, ':');
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric(parts.next()) && numeric(parts.next())
}

#[test]
fn a_solver_failure_pauses_with_a_message_and_keeps_the_last_state() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    // One Newton iteration with a huge step cannot bring the fast four-bar back onto its
    // constraints.
    session
        .set_settings(Settings {
            dt: 0.3,
            newton_max_iterations: 1,
            ..session.settings().clone()
        })
        .unwrap();
    session.set_speed(64.0);
    session.play();
    let mut failed = false;
    for _ in 0..20 {
        failed |= session.advance(0.1, far()).failed;
        if failed {
            break;
        }
    }
    assert!(failed, "expected a solver failure");
    let Some(PauseReason::Failed(message)) = session.pause_reason().cloned() else {
        panic!("not paused on failure: {:?}", session.pause_reason());
    };
    // Newton fails at a joint: the message points at it in the scene file.
    let located = regex_like_location(&message);
    assert!(
        located && message.contains(": joint \""),
        "not located at a joint: {message}"
    );
    let t = session.time();
    assert!(
        t.is_finite()
            && session
                .simulation()
                .positions()
                .iter()
                .all(|v| v.is_finite())
    );
    // Play does not resume a failed session; reset does.
    session.play();
    assert!(session.is_paused());
    session.reset().unwrap();
    assert_eq!(session.time(), 0.0);
    assert!(!matches!(
        session.pause_reason(),
        Some(PauseReason::Failed(_))
    ));
    assert_eq!(session.history().len(), 1);
}

/// The trace follows any point along a bar. The four-bar's crank1 turns about its ground pin
/// at the origin (scenes/four_bar.ron: pin O1 at (0, 0), unit cranks), so its end traces the
/// unit circle, its centre the circle of radius 0.5, and its start stays at the pin.
#[test]
fn the_trace_follows_the_chosen_point_of_a_bar() {
    let s = scene("four_bar");
    let crank = s.mechanism.body_index("crank1").unwrap();
    for (along, radius) in [(1.0, 1.0), (0.5, 0.5), (0.0, 0.0)] {
        let mut session = LiveSession::new(s.clone()).unwrap();
        session.auto_pause = false;
        session.set_trace_point(Some(TracePoint { body: crank, along }));
        session.set_stop_time(Some(1.0));
        session.play();
        session.run_until_paused(1_000_000);
        let trace = session.trace();
        assert!(trace.len() > 100, "{} trace points", trace.len());
        let first = trace.front().unwrap();
        let last = trace.back().unwrap();
        let moved = (last[0] - first[0]).hypot(last[1] - first[1]);
        assert!(
            radius == 0.0 || moved > 0.1 * radius,
            "the point hardly moved: {moved}"
        );
        for p in trace {
            let r = p[0].hypot(p[1]);
            assert!(
                abs_diff_eq!(r, radius, epsilon = 1e-9),
                "along {along}: trace point at radius {r}, expected {radius}"
            );
        }
    }
}

/// At 64x the plotted history is sampled every 64/240 s of simulated time, in which the
/// four-bar's crank tip (4 rad/s and more on a unit crank, scenes/four_bar.ron) moves more
/// than a metre; the trace must still be a smooth curve: consecutive points no farther apart
/// than one solver step's motion (at most about 9 mm at dt 1e-3: the tip's speed stays
/// below 9 m/s with E0 = 32.95 J) or the trace spacing (1e-3 of the 4.5 m view).
#[test]
fn the_trace_stays_smooth_at_high_speed() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.auto_pause = false;
    session.set_speed(64.0);
    session.set_stop_time(Some(1.0));
    session.play();
    session.run_until_paused(1_000_000);
    let trace: Vec<[f64; 3]> = session.trace().iter().copied().collect();
    assert!(trace.len() > 200, "{} trace points", trace.len());
    let widest = trace
        .windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .fold(0.0, f64::max);
    assert!(widest < 1e-2, "trace points up to {widest} m apart");
}

#[test]
fn plotted_history_covers_every_step_between_its_samples() {
    // The traditional basis of A02 flips sign for single steps (0.206 s, 0.241 s, ... at
    // dt 1e-3); the history samples about every fourth step at 1x, so its sampled values
    // alone would miss those flips. Every per-step value of the solver stepped directly must
    // lie in the range the history keeps for the sample that closes its interval.
    let s = scene("double_four_bar");
    let mut session = LiveSession::new(s.clone()).unwrap();
    session.set_stop_time(Some(0.6));
    session.run_until_paused(1_000_000);
    let history = session.history();
    let times: Vec<f64> = history.times().iter().copied().collect();
    let channel = history
        .channels()
        .iter()
        .find(|c| c.name == "qd1_traditional")
        .expect("traditional qd channel");
    let series = channel.series();
    assert!(times.len() < 300, "sampled every step: {}", times.len());

    let mut direct = s.simulation().unwrap();
    let (mut steps, mut flips_missed_by_values) = (0, 0);
    let mut sample = 1;
    while direct.time() < 0.6 - 1e-12 {
        direct.step_until(0.6).unwrap();
        steps += 1;
        let (t, qd) = (direct.time(), direct.basis(BasisMode::Traditional).qd()[0]);
        while times[sample] < t - 1e-12 {
            sample += 1;
        }
        let (low, high) = (series.low[sample], series.high[sample]);
        assert!(
            low <= qd && qd <= high,
            "t = {t}: qd1 = {qd} outside [{low}, {high}] of the sample at {}",
            times[sample]
        );
        if qd.signum() != series.values[sample].signum()
            && qd.signum() != series.values[sample - 1].signum()
        {
            flips_missed_by_values += 1;
        }
    }
    assert!(
        steps > 2 * times.len(),
        "{steps} steps, {} samples",
        times.len()
    );
    assert!(
        flips_missed_by_values > 0,
        "no single-step flip between samples: the test would not show the envelope matters"
    );
}

#[test]
fn leaving_along_a_branch_from_the_paused_event_plays_on_that_branch() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let event = session.current_event().unwrap().clone();
    let energy = session.simulation().energy();
    // The flat four-bar has one branch besides the parallelogram (the
    // fold with crank2 still, tests/solver/branches.rs).
    assert_eq!(session.branches().len(), 1);
    let fold = session.branches()[0].direction.clone();
    session.leave_along(&fold, None).unwrap();
    assert!(!session.is_paused());
    assert!(session.current_event().is_none() && session.branches().is_empty());
    assert!(session.time() > event.t);
    assert_eq!(session.history().last_time(), Some(session.time()));
    session.set_stop_time(Some(event.t + 0.2));
    session.run_until_paused(1_000_000);
    let x = session.simulation().positions();
    assert!(
        abs_diff_eq!(x[8].sin(), 0.0, epsilon = 1e-6),
        "crank2 left its fold: {}",
        x[8]
    );
    assert_abs_diff_eq!(
        session.simulation().energy(),
        energy,
        epsilon = 1e-6 * energy
    );
    // Leaving needs an event to leave from.
    assert!(session.leave_along(&fold, None).is_err());
}

#[test]
fn going_back_to_an_event_and_replaying_lists_each_event_once() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(1.0));
    session.run_until_paused(1_000_000);
    let times: Vec<f64> = session.events().iter().map(|e| e.t).collect();
    assert!(times.len() >= 2, "{times:?}");
    session.goto_event(0).unwrap();
    assert_eq!(session.time(), times[0]);
    let kept: Vec<f64> = session.events().iter().map(|e| e.t).collect();
    assert_eq!(kept, times, "the later events are kept after going back");
    // The plotted history ends at the event gone back to.
    assert_eq!(session.history().last_time(), Some(times[0]));
    session.set_stop_time(Some(1.0));
    session.run_until_paused(1_000_000);
    let replayed: Vec<f64> = session.events().iter().map(|e| e.t).collect();
    assert_eq!(replayed.len(), times.len(), "{times:?} then {replayed:?}");
    // The replay steps from the event time, not on the first run's grid, so later events
    // are located again to within the locator's accuracy (2.7e-7 s here), not bit for bit.
    assert!(
        abs_diff_eq!(times[..], replayed[..], epsilon = 1e-5),
        "{times:?} then {replayed:?}"
    );
}

#[test]
fn going_back_to_an_event_cuts_the_trace_there_and_keeps_what_came_before() {
    // A02 traces its coupler's centre (the scene's `trace`). Run past two events, go back to
    // the second: the trace ends where the coupler was at that event, and keeps its path up
    // to it.
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(2.0));
    session.run_until_paused(1_000_000);
    assert!(session.events().len() >= 2);
    let before = session.trace().len();
    session.goto_event(1).unwrap();
    let point = session.trace_point().expect("A02 traces a body");
    let at_event = point.position(
        session.scene().mechanism.as_ref(),
        session.simulation().positions(),
    );
    let trace = session.trace();
    assert!(
        trace.len() > before / 3,
        "{} of {before} points kept",
        trace.len()
    );
    assert!(trace.len() < before, "nothing cut: {} points", trace.len());
    let last = trace.back().unwrap();
    for k in 0..2 {
        assert_abs_diff_eq!(last[k], at_event[k], epsilon = 1e-12);
    }
}

#[test]
fn going_to_a_later_event_and_back_again() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.auto_pause = false;
    session.set_stop_time(Some(1.0));
    session.run_until_paused(1_000_000);
    let events = session.events().to_vec();
    assert!(events.len() >= 2);
    session.goto_event(0).unwrap();
    // Forward to the last event: its state exactly, the plots broken over the time skipped.
    let last = events.len() - 1;
    session.goto_event(last).unwrap();
    assert_eq!(session.time(), events[last].t);
    assert_eq!(session.simulation().positions(), &events[last].x);
    assert_eq!(session.current_event().map(|e| e.t), Some(events[last].t));
    let times = session.history().times();
    let qd = session
        .history()
        .channels()
        .iter()
        .find(|c| c.name == "qd1_continued")
        .expect("qd1_continued plotted");
    let gap = times
        .iter()
        .zip(qd.values())
        .any(|(&t, v)| v.is_nan() && t > events[0].t && t <= events[last].t);
    assert!(gap, "no break in the plotted qd1 before the later event");
    // And back: nothing forgotten.
    session.goto_event(0).unwrap();
    assert_eq!(session.events().len(), events.len());
    assert_eq!(session.simulation().positions(), &events[0].x);
}

#[test]
fn a_push_along_the_continued_motion_at_speed_does_the_work_of_its_force() {
    // Energy balance: the push is the constant generalized force f = M u a (a = 1 / 0.05),
    // so the energy it adds is the integral of f . xd over its duration (trapezoidal over
    // the solver's steps), whatever the mechanism does meanwhile.
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let event = session.current_event().unwrap().clone();
    let continued = motions::event_motions(&event, BasisMode::Continued)
        .into_iter()
        .find(|m| m.role == MotionRole::Continued)
        .unwrap();
    let mass = session
        .simulation()
        .mechanism()
        .mass_matrix()
        .diagonal()
        .clone();
    // The push acts along the motion oriented and of unit length in the mass metric.
    let sim = session.simulation();
    let unit = motions::push_direction(
        sim.mechanism(),
        sim.positions(),
        sim.velocities(),
        &continued.column,
    )
    .unwrap();
    let force: DVector<f64> = mass.component_mul(&unit) * (1.0 / 0.05);
    let e0 = session.simulation().energy();
    session.push_along(&continued.column, 1.0, 0.05).unwrap();
    let (mut work, mut power, mut t) = (
        0.0,
        force.dot(session.simulation().velocities()),
        session.time(),
    );
    while session.is_pushing() {
        session.single_step();
        let next = force.dot(session.simulation().velocities());
        work += 0.5 * (session.time() - t) * (power + next);
        (power, t) = (next, session.time());
    }
    let gained = session.simulation().energy() - e0;
    assert!(gained.abs() > 1.0, "the push added only {gained} J");
    // The force switches off at the end of the window, which RK4's last stage of the last
    // step already sees (about h P / 6 = 0.02 J here, P = 120 W): 1 %, not round-off.
    assert!(
        abs_diff_eq!(gained, work, epsilon = 1e-2 * work.abs()),
        "energy gained {gained} J, work of the push {work} J"
    );
}

#[test]
fn after_leaving_along_a_branch_the_next_event_continues_the_motion_followed() {
    // four_bar_stopping pushed onto its fold at rest reaches a flat pose again; the column
    // it follows appeared at the first event, but at the second it is the continuation.
    let mut session = LiveSession::new(stopping_four_bar()).unwrap();
    session.run_until_paused(1_000_000);
    let first = session.current_event().unwrap().t;
    let fold = session.branches()[0].direction.clone();
    session.leave_along(&fold, Some(1.0)).unwrap();
    session.run_until_paused(1_000_000);
    let event = session
        .current_event()
        .expect("paused at a second event")
        .clone();
    assert!(event.t > first + 0.1, "{} after {first}", event.t);
    assert_eq!(
        event.continued().ncols(),
        1,
        "continued motions at t = {}",
        event.t
    );
    assert_eq!(event.new_motions().ncols(), 1);
    // The fold being followed is the continuation, not another branch: the branch listed
    // must differ from the velocity's direction.
    let xd = session.simulation().velocities().normalize();
    for branch in session.branches() {
        assert!(
            branch.direction.dot(&xd).abs() < 0.99,
            "the followed fold listed as a branch"
        );
    }
}

/// A replay from the first event passes the later ones again on another step grid and
/// locates them a little elsewhere (up to 4e-3 s for the four-bar resting at its flat pose,
/// 4e-4 in position for the 2x2 at dt 5e-3): still one entry each.
#[test]
fn a_replay_on_another_grid_lists_each_event_once() {
    for (name, dt) in [("four_bar_stopping", 1e-3), ("modified_2x2", 5e-3)] {
        let s = scene(name);
        let settings = Settings {
            dt,
            ..s.settings.clone()
        };
        let mut session = LiveSession::with_settings(s, settings).unwrap();
        session.auto_pause = false;
        session.set_stop_time(Some(4.0));
        session.run_until_paused(10_000_000);
        let first: Vec<f64> = session.events().iter().map(|e| e.t).collect();
        assert!(first.len() >= 3, "{name}: {first:?}");
        session.goto_event(0).unwrap();
        session.set_stop_time(Some(4.0));
        session.run_until_paused(10_000_000);
        let replayed: Vec<f64> = session.events().iter().map(|e| e.t).collect();
        assert_eq!(
            first.len(),
            replayed.len(),
            "{name}: {first:?} then {replayed:?}"
        );
    }
}

/// `|column|_M`, the speed in the mass metric of a unit velocity along `column`.
fn mass_norm(session: &LiveSession, column: &DVector<f64>) -> f64 {
    let sim = session.simulation();
    (2.0 * sim.mechanism().kinetic_energy(sim.positions(), column)).sqrt()
}

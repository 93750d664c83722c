//! Motion along a branch that stays singular: A02 left at its first flat pose on the branch
//! where the first loop stays flat and the second folds (`crank3` and `coupler2` turn together
//! about crank2's tip, which sits on crank3's pivot). Every flat pose of the second loop is a
//! further rank drop, reported as an event, and the energy stays within 1e-6 of E0.
//!
//! Reference, derived here: with the first loop still, the folded pair is two uniform 1 m,
//! 1 kg bars turning about the same pivot with one angle `phi` (crank3's), moment of inertia
//! `2/3` and potential `g sin(phi)` (each centre 0.5 m out), so
//! `phi'^2 / 3 + g sin(phi) = C`; the second loop is flat where `sin(phi) = 0`, and the time
//! from one flat pose to the next is `integral dphi / sqrt(3 (C - g sin(phi)))` over a half turn.

use approx::assert_abs_diff_eq;
use singulab::live::{LiveSession, PauseReason};
use singulab::solver::{PERSISTENT_DISTANCE, Simulation};

use crate::common::scene;

const G: f64 = 9.81;
/// Coordinates of `theta` of crank1, coupler1, crank2, coupler2 and crank3 in A02's `x`.
const THETA: [usize; 5] = [2, 5, 8, 11, 14];

/// A02 paused at its first event and sent along branch 2 (the second loop's fold), passing
/// events without pausing.
fn a02_on_the_second_fold(dt: f64) -> LiveSession {
    let a02 = scene("double_four_bar");
    let mut settings = a02.settings.clone();
    settings.dt = dt;
    let mut session = LiveSession::with_settings(a02, settings).unwrap();
    session.run_until_paused(1_000_000);
    let fold = session.branches()[1].direction.clone();
    // The second loop's fold: coupler2 and crank3 only.
    for (body, &i) in THETA.iter().enumerate() {
        let moves = fold[i].abs() > 0.1;
        assert_eq!(moves, body >= 3, "branch 2 rates {fold:?}");
    }
    session.leave_along(&fold, None).unwrap();
    session.auto_pause = false;
    session
}

/// Time for the folded pair to turn from `phi0` to `phi1` (radians, either sense) with
/// `C = phi'^2 / 3 + g sin(phi)`: Simpson's rule on 20,000 intervals.
fn half_turn_time(c: f64, phi0: f64, phi1: f64) -> f64 {
    let n = 20_000;
    let h = (phi1 - phi0) / n as f64;
    let f = |phi: f64| 1.0 / (3.0 * (c - G * phi.sin())).sqrt();
    let mut sum = f(phi0) + f(phi1);
    for k in 1..n {
        sum += f(phi0 + k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 };
    }
    (sum * h / 3.0).abs()
}

#[test]
fn on_a_branch_that_stays_singular_every_flat_pose_is_an_event() {
    let mut session = a02_on_the_second_fold(1e-3);
    let e0 = session.simulation().energy();
    let first = session.events()[0].clone();
    // The pair's energy: all of the event's kinetic energy, with phi = 0 there.
    let phi_rate = session.simulation().velocities()[THETA[4]];
    let c = phi_rate * phi_rate / 3.0 + G * session.simulation().positions()[THETA[4]].sin();
    let mut worst = 0.0f64;
    while session.time() < 6.0 {
        session.single_step();
        assert!(!matches!(
            session.pause_reason(),
            Some(PauseReason::Failed(_))
        ));
        worst = worst.max((session.simulation().energy() - e0).abs());
        let x = session.simulation().positions();
        for &i in &THETA[..3] {
            assert!(
                x[i].sin().abs() < 1e-6,
                "the first loop left its flat pose: {}",
                x[i]
            );
        }
    }
    println!("largest |E - E0| over 6 s: {worst:.3e} J (E0 {e0:.4} J)");
    assert!(worst <= 1e-6 * e0, "energy drift {worst:e} J");

    let sense = phi_rate.signum();
    let mut expected = first.t;
    let events = &session.events()[1..];
    assert!(events.len() >= 15, "{} further events", events.len());
    for (k, event) in events.iter().enumerate() {
        let phi0 = sense * k as f64 * std::f64::consts::PI;
        expected += half_turn_time(c, phi0, phi0 + sense * std::f64::consts::PI);
        println!(
            "event {}: t {:.6} s, reference {expected:.6} s",
            k + 2,
            event.t
        );
        assert_abs_diff_eq!(event.t, expected, epsilon = 1e-4);
        assert_eq!((event.rank, event.deficiency), (12, 2));
        assert!(
            event.x[THETA[4]].sin().abs() < 1e-3,
            "crank3 at {}",
            event.x[THETA[4]]
        );
    }
}

#[test]
fn the_energy_stays_on_the_singular_branch_at_other_step_sizes() {
    // The step-size scan of `solver::projection`, 3 s on the branch: grid points fall at every
    // distance from the flat poses. The drift printed is the largest of the run.
    for dt in [5e-4, 7.9e-4, 9.7e-4, 1.13e-3, 1.37e-3] {
        let mut session = a02_on_the_second_fold(dt);
        let e0 = session.simulation().energy();
        let mut worst = 0.0f64;
        while session.time() < 3.0 {
            session.single_step();
            worst = worst.max((session.simulation().energy() - e0).abs());
        }
        println!(
            "dt {dt:e}: largest |E - E0| {worst:.3e} J, {} events",
            session.events().len()
        );
        assert!(worst <= 1e-6 * e0, "dt {dt}: energy drift {worst:e} J");
        assert!(
            session.events().len() >= 8,
            "dt {dt}: {} events",
            session.events().len()
        );
    }
}

/// How far a scene's default run moves (largest coordinate change) while `rho` is below the
/// detection tolerance, at the widest crossing: far less than the distance after which the
/// indicator takes the branch as singular and watches another entry.
#[test]
fn crossings_are_far_shorter_than_a_singular_branch() {
    let mut widest = 0.0f64;
    for name in [
        "four_bar",
        "four_bar_stopping",
        "double_four_bar",
        "modified_double_four_bar",
        "modified_triple_four_bar",
        "modified_2x2",
        "modified_2x3",
    ] {
        let s = scene(name);
        let tolerance = s.settings.detection_tolerance;
        let t_end = s.t_end;
        let mut sim: Simulation = s.simulation().unwrap();
        let mut anchor = sim.positions().clone();
        let mut scene_widest = 0.0f64;
        while sim.time() < t_end {
            sim.step().unwrap();
            if sim.rho() >= tolerance {
                anchor.copy_from(sim.positions());
            } else {
                scene_widest = scene_widest.max((sim.positions() - &anchor).amax());
            }
        }
        println!("{name}: widest crossing {scene_widest:.3e} (m or rad)");
        widest = widest.max(scene_widest);
    }
    assert!(
        widest < 0.5 * PERSISTENT_DISTANCE,
        "widest crossing {widest}"
    );
}

/// As a lecturer meets it: the session pauses at every event of the branch (the app's
/// default) and plays on from each. Pausing shows the located event state but never changes
/// the run: it is bit for bit the run that passes the events without pausing.
#[test]
fn pausing_at_each_event_of_the_singular_branch_leaves_the_run_as_it_was() {
    let mut passing = a02_on_the_second_fold(1e-3);
    let mut pausing = a02_on_the_second_fold(1e-3);
    pausing.auto_pause = true;
    let e0 = pausing.simulation().energy();
    let mut pauses = 0;
    while pausing.time() < 6.0 {
        pausing.single_step();
        if pausing.pause_reason() == Some(&PauseReason::Event) {
            pauses += 1;
            let event = pausing.current_event().unwrap();
            assert_eq!(pausing.time(), event.t);
            assert!((pausing.simulation().energy() - e0).abs() <= 1e-6 * e0);
            pausing.play();
        }
        assert!(!matches!(
            pausing.pause_reason(),
            Some(PauseReason::Failed(_))
        ));
    }
    while passing.time() < pausing.time() {
        passing.single_step();
    }
    println!(
        "{pauses} pauses; at t {} s, E - E0 {:.3e} J",
        pausing.time(),
        pausing.simulation().energy() - e0
    );
    assert_eq!(pauses, passing.events().len() - 1);
    assert_eq!(pausing.time(), passing.time());
    assert_eq!(
        pausing.simulation().positions(),
        passing.simulation().positions()
    );
    assert_eq!(
        pausing.simulation().velocities(),
        passing.simulation().velocities()
    );
    let times = |s: &LiveSession| s.events().iter().map(|e| e.t).collect::<Vec<_>>();
    assert_eq!(times(&pausing), times(&passing));
}

/// Steps `session` to `t_end`, playing on from every event it pauses at.
fn play_through_events(session: &mut LiveSession, t_end: f64) {
    while session.time() < t_end {
        session.single_step();
        if session.pause_reason() == Some(&PauseReason::Event) {
            session.play();
        }
    }
}

/// Going back to one of the branch's events and playing goes on as the run did from there:
/// bit for bit the run that never went back (a step started at the located state itself lost
/// up to 3.5 J and left the branch).
#[test]
fn going_back_to_an_event_of_the_singular_branch_and_playing_goes_on_as_before() {
    let mut passing = a02_on_the_second_fold(1e-3);
    let mut session = a02_on_the_second_fold(1e-3);
    session.auto_pause = true;
    play_through_events(&mut session, 3.0);
    for k in [3, 1, 2] {
        session.goto_event(k).unwrap();
        assert_eq!(session.time(), session.events()[k].t);
        session.play();
        play_through_events(&mut session, 3.5);
    }
    while passing.time() < session.time() {
        passing.single_step();
    }
    assert_eq!(session.time(), passing.time());
    assert_eq!(
        session.simulation().positions(),
        passing.simulation().positions()
    );
    assert_eq!(
        session.simulation().velocities(),
        passing.simulation().velocities()
    );
}

//! The ghost preview: what a push or a leave would do, run on a copy of the session.

use nalgebra::Vector3;
use singulab::live::{LiveSession, Preview, preview_poses};
use singulab::solver::GrabPoint;

use crate::common::{scene, stopping_four_bar};

/// `four_bar_stopping` comes to rest at its flat pose; the new motion there moves crank 2's
/// tip (its arrows say so) but a push along it swings crank 1 and the coupler onto the fold
/// while crank 2 stays still (Quro 2023, sect. 5.2.2: the push with -20 N m on the coupler).
/// The preview shows that, leaves the session as it was, and ends where the push does.
#[test]
fn the_preview_of_a_push_shows_what_the_push_does() {
    let stopping = stopping_four_bar();
    let mech = stopping.mechanism.clone();
    let angle = |name: &str| mech.bodies()[mech.body_index(name).unwrap()].offset + 2;
    let mut session = LiveSession::new(stopping).unwrap();
    session.run_until_paused(1_000_000);
    let event = session
        .current_event()
        .expect("at rest at the flat pose")
        .clone();
    let column = event.new_motions().column(0).into_owned();
    let (t0, x0) = (session.time(), session.simulation().positions().clone());
    let push = Preview::Push {
        column: column.clone(),
        delta: 1.0,
        duration: 0.05,
    };
    let poses = preview_poses(&session, &push, 0.5, 10).unwrap();
    assert_eq!(poses.len(), 11);
    assert_eq!(session.time(), t0);
    assert_eq!(session.simulation().positions(), &x0);
    let (crank1, crank2) = (angle("crank1"), angle("crank2"));
    for pose in &poses {
        assert!(
            (pose[crank2] - x0[crank2]).abs() < 1e-6,
            "crank 2 at {}",
            pose[crank2]
        );
    }
    let swing = (poses[10][crank1] - x0[crank1]).abs();
    println!("crank 1 swings {swing:.3} rad in 0.5 s; crank 2 stays");
    assert!(swing > 0.1, "crank 1 swung {swing} rad");

    session.auto_pause = false;
    session.push_along(&column, 1.0, 0.05).unwrap();
    session.set_stop_time(Some(t0 + 0.5));
    session.run_until_paused(1_000_000);
    // The preview stops at each pose's time, which shortens a step there: the same motion
    // on a slightly different grid.
    let apart = (session.simulation().positions() - &poses[10]).amax();
    assert!(apart < 1e-9, "the push went {apart} elsewhere");
}

/// Leaving A02's first flat pose on branch 2, previewed: the first loop stays flat.
#[test]
fn the_preview_of_a_leave_follows_the_branch() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.run_until_paused(1_000_000);
    let branch = session.branches()[1].direction.clone();
    let leave = Preview::Leave {
        direction: branch,
        speed: None,
    };
    let poses = preview_poses(&session, &leave, 0.5, 5).unwrap();
    assert_eq!(poses.len(), 6);
    for pose in &poses {
        for theta in [2, 5, 8] {
            assert!(
                pose[theta].sin().abs() < 1e-6,
                "the first loop moved: {}",
                pose[theta]
            );
        }
    }
    assert!((poses[5][14] - poses[0][14]).abs() > 1.0);
}

/// A new motion completes the continued one to the admissible motions; it is not a branch.
/// On the four-bar posed flat by hand (cranks along the ground line, the parallelogram's
/// motion the continued one), a push along `new 1` mixes the fold and the parallelogram, and
/// the mechanism goes down the parallelogram: both cranks turn alike, the coupler stays
/// level (the parallelogram's geometry), where on `four_bar_stopping` the same push folds.
#[test]
fn on_the_four_bar_posed_flat_a_push_along_the_new_motion_takes_the_parallelogram() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    let mech = session.scene().mechanism.clone();
    let angle = |name: &str| mech.bodies()[mech.body_index(name).unwrap()].offset + 2;
    let coupler_centre = GrabPoint {
        body: mech.body_index("coupler").unwrap(),
        local: Vector3::zeros(),
    };
    session.begin_drag(coupler_centre).unwrap();
    for _ in 0..100 {
        if session.drag_to([1.5, 0.0, 0.0]).unwrap().unwrap().moves == 0 {
            break;
        }
    }
    session.end_drag();
    let event = session
        .current_event()
        .expect("posed flat: an event")
        .clone();
    let column = event.new_motions().column(0).into_owned();
    // A unit change of the velocity along the (Euclidean unit) column: `delta` is measured in
    // the mass metric.
    let delta = (2.0 * mech.kinetic_energy(session.simulation().positions(), &column)).sqrt();
    let push = Preview::Push {
        column,
        delta,
        duration: 0.05,
    };
    let poses = preview_poses(&session, &push, 0.5, 10).unwrap();
    let end = &poses[10];
    let (crank1, crank2, coupler) = (
        end[angle("crank1")],
        end[angle("crank2")],
        end[angle("coupler")],
    );
    println!("after 0.5 s: crank1 {crank1:.4}, crank2 {crank2:.4}, coupler {coupler:.2e} rad");
    assert!(crank1.abs() > 0.1, "crank 1 did not turn: {crank1}");
    assert!(
        (crank1 - crank2).abs() < 1e-6,
        "not a parallelogram: {crank1} vs {crank2}"
    );
    assert!(coupler.abs() < 1e-6, "the coupler turned: {coupler}");
}

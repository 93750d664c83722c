//! Which way a motion is shown: a column of `T` has no sign of its own, so every motion the
//! window lists, the events CSV writes and a push or "leave on" takes points the way the
//! mechanism moves along it (positive `column^T M xd`), and from rest downhill. The references
//! are the mechanism's own velocity (the trajectory CSV's rates, the session's `xd`) and its
//! potential energy, not the code that orients.

use nalgebra::{DVector, Vector3};
use singulab::lesson::Way;
use singulab::lesson::choices::{leave_direction, listed_motions};
use singulab::live::LiveSession;
use singulab::solver::{BasisMode, GrabPoint};

use crate::common::{scene, scene_path, scratch, singulab, stopping_four_bar};

/// A CSV file as its header and rows of numbers (text cells as NaN).
fn read_csv(path: &std::path::Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn the_events_csv_writes_each_continued_motion_along_the_velocity_before_the_event() {
    // A02 to 1.5 s: at each event the continued row, dotted with the coordinate rates of the
    // last trajectory row before it, is positive (crank 1 turns at about -4.9 rad/s into the
    // first flat pose: the row's crank1.dtheta is negative too).
    let dir = scratch("orientation-events");
    let (out, events) = (dir.join("t.csv"), dir.join("e.csv"));
    let a02 = scene_path("double_four_bar");
    let output = singulab(&[
        "run",
        a02.to_str().unwrap(),
        "--t-end",
        "1.5",
        "--out",
        out.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let (t_header, trajectory) = read_csv(&out);
    let (e_header, event_rows) = read_csv(&events);
    // Event column `B.dq` is coordinate `B.q`'s motion; the trajectory writes a body's rates
    // after its coordinates, in the same order.
    let rate_column = |name: &str| {
        let (body, coordinate) = name.split_once(".d").unwrap();
        let own = |h: &&String| h.starts_with(&format!("{body}."));
        let count = t_header.iter().filter(own).count() / 2;
        let at = t_header
            .iter()
            .position(|h| *h == format!("{body}.{coordinate}"))
            .unwrap();
        at + count
    };
    let rates: Vec<(usize, usize)> = e_header
        .iter()
        .enumerate()
        .skip(6)
        .map(|(k, name)| (k, rate_column(name)))
        .collect();
    let kind = e_header.iter().position(|h| h == "kind").unwrap();
    let crank1 = e_header.iter().position(|h| h == "crank1.dtheta").unwrap();
    let text = std::fs::read_to_string(&events).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(kind).unwrap())
        .collect();
    let mut checked = 0;
    for (row, kind) in event_rows.iter().zip(&kinds) {
        if *kind != "continued" {
            continue;
        }
        let before = trajectory
            .iter()
            .rev()
            .find(|r| r[0] < row[0] - 1e-9)
            .unwrap();
        let along: f64 = rates.iter().map(|&(e, t)| row[e] * before[t]).sum();
        println!("event at {} s: continued . xd = {along:.4}", row[0]);
        assert!(
            along > 0.0,
            "event at {} s: continued . xd = {along}",
            row[0]
        );
        if checked == 0 {
            let rate = rate_column("crank1.dtheta");
            assert!(
                before[rate] < -1.0,
                "test bug: crank 1 at {} rad/s",
                before[rate]
            );
            assert!(row[crank1] < 0.0, "crank1.dtheta {}", row[crank1]);
        }
        checked += 1;
    }
    assert!(checked >= 2, "test bug: {checked} events checked");
}

#[test]
fn every_listed_motion_points_along_the_velocity_and_a_positive_push_speeds_it_up() {
    // The four-bar at 0.51 s (moving, no event): in both bases each listed column has a
    // positive projection on xd, and a push by +0.5 along it raises the energy (the push does
    // positive work s delta + delta^2 / 2 on a mechanism moving at speed s along it).
    for basis in [BasisMode::Continued, BasisMode::Traditional] {
        let mut session = LiveSession::new(scene("four_bar")).unwrap();
        // Past the flat pose at 0.33 s without stopping there.
        session.auto_pause = false;
        session.set_stop_time(Some(0.51));
        session.run_until_paused(100_000);
        assert!((session.time() - 0.51).abs() < 1e-9, "t {}", session.time());
        let motions = listed_motions(&session, basis);
        assert!(!motions.is_empty());
        let xd = session.simulation().velocities().clone();
        for motion in &motions {
            let along = motion.column.dot(&xd);
            assert!(
                along > 0.0,
                "{basis:?} {}: column . xd = {along}",
                motion.label
            );
        }
        let e0 = session.simulation().energy();
        session.set_stop_time(None);
        session.push_along(&motions[0].column, 0.5, 1e-3).unwrap();
        session.set_stop_time(Some(0.52));
        session.run_until_paused(100_000);
        let e1 = session.simulation().energy();
        assert!(e1 > e0 + 0.1, "{basis:?}: energy {e0} -> {e1}");
    }
}

/// The four-bar dragged flat (cranks along the ground line to the right) and left at rest.
fn four_bar_dragged_flat() -> LiveSession {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    let coupler_centre = GrabPoint {
        body: 1,
        local: Vector3::zeros(),
    };
    session.begin_drag(coupler_centre).unwrap();
    for _ in 0..100 {
        let report = session.drag_to([1.5, 0.0, 0.0]).unwrap().unwrap();
        if report.moves == 0 {
            break;
        }
    }
    session.end_drag();
    assert!(
        session.current_event().is_some(),
        "no event at the flat pose"
    );
    session
}

fn potential(session: &LiveSession) -> f64 {
    let sim = session.simulation();
    sim.energy()
        - session
            .scene()
            .mechanism
            .kinetic_energy(sim.positions(), sim.velocities())
}

/// At rest "leave on" is downhill: along each branch of `flat`'s event, with the window's
/// default speed (1), the mechanism falls away from the pose instead of hopping up a few
/// hundredths of a radian and back onto it.
fn leaves_downhill_and_away(flat: &LiveSession) {
    let x0: DVector<f64> = flat.simulation().positions().clone();
    let branches = flat.branches().len();
    assert!(branches >= 1, "test bug: no branch at the flat pose");
    for k in 1..=branches {
        // Pausing at the next event, as the window does: a hop back stops on the same pose.
        let mut session = flat.clone();
        session.auto_pause = true;
        let v0 = potential(&session);
        let direction = leave_direction(&session, k, Way::Forward).unwrap();
        session.leave_along(&direction, Some(1.0)).unwrap();
        let t0 = session.time();
        session.set_stop_time(Some(t0 + 0.3));
        session.run_until_paused(100_000);
        let x = session.simulation().positions();
        let turned = (0..3)
            .map(|b| (x[3 * b + 2] - x0[3 * b + 2]).abs())
            .fold(0.0, f64::max);
        let fell = v0 - potential(&session);
        let span = session.time() - t0;
        println!("branch {k}: turned {turned:.3} rad, potential down {fell:.3} J in {span:.3} s");
        assert!(turned > 0.2, "branch {k}: turned {turned} rad in {span} s");
        assert!(fell > 0.5, "branch {k}: potential down {fell} J");
    }
}

#[test]
fn leaving_a_pose_set_by_hand_at_rest_goes_downhill_and_away() {
    leaves_downhill_and_away(&four_bar_dragged_flat());
}

#[test]
fn leaving_where_the_mechanism_came_to_rest_goes_downhill_and_away() {
    // The four-bar launched with just the energy to reach its flat pose (cranks to the left)
    // arrives there at a few 1e-9 rad/s: the motions point the way it would fall, and "leave
    // on" falls away.
    let scene = stopping_four_bar();

    let mut session = LiveSession::new(scene).unwrap();
    session.run_until_paused(100_000);
    assert!(session.current_event().is_some(), "test bug: no event");
    let sim = session.simulation();
    let creep = sim.velocities().amax();
    assert!(creep < 1e-3, "test bug: arrives at {creep}");
    let gravity_work = |column: &DVector<f64>| -> f64 {
        let g = session.scene().mechanism.gravity();
        session
            .scene()
            .mechanism
            .bodies()
            .iter()
            .map(|b| b.mass * (g[0] * column[b.offset] + g[1] * column[b.offset + 1]))
            .sum()
    };
    for motion in listed_motions(&session, BasisMode::Continued) {
        let work = gravity_work(&motion.column);
        println!("{}: gravity's work along it {work:.4}", motion.label);
        assert!(work >= 0.0, "{}: uphill ({work})", motion.label);
    }
    leaves_downhill_and_away(&session);
}

//! Dragging points of bodies: posing the paused four-bar at its flat configuration and away
//! from it (the reference pose from the scene's lengths, collinear bars), the constraints
//! after every drag, undo of a drag, and the running spring's work.

use nalgebra::{DVector, Vector3};
use singulab::live::{LiveSession, MarkKind, PauseReason};
use singulab::model::{BodyKind, Mechanism};
use singulab::solver::{GrabPoint, Simulation};

use crate::common::scene;

/// `|c|_inf` at the session's positions.
fn residual(sim: &Simulation) -> f64 {
    let mechanism = sim.mechanism();
    let mut c = DVector::zeros(mechanism.m());
    mechanism.residual(sim.time(), sim.positions(), &mut c);
    c.amax()
}

fn bar_length(mechanism: &Mechanism, body: usize) -> f64 {
    match mechanism.bodies()[body].kind {
        BodyKind::Bar { length } => length,
        _ => panic!("body {body} is not a bar"),
    }
}

/// The angle `a` brought to (-pi, pi].
fn wrapped(a: f64) -> f64 {
    a.sin().atan2(a.cos())
}

#[test]
fn a_drag_poses_the_four_bar_flat_and_the_rank_drops_there() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    let mechanism = session.scene().mechanism.clone();
    let generic = session.simulation().generic_rank();
    // The coupler's centre, picked where it starts: (0.5, 1).
    let (point, distance) = session.pick([0.5, 1.02, 0.0]).unwrap();
    assert_eq!(point.body, 1);
    assert!((distance - 0.02).abs() < 1e-12, "{distance}");
    session.begin_drag(point).unwrap();
    // Ground pins at (0, 0) and (1, 0) (the scene's), cranks of length l1 and l3, coupler
    // l2 = the ground length: with both cranks at angle 0 every bar lies on the x axis,
    // crank 1 from (0, 0) to (l1, 0), the coupler from (l1, 0) to (l1 + l2, 0), crank 2
    // from (1, 0) to (1 + l3, 0). The coupler's centre is then at (l1 + l2 / 2, 0).
    let (l1, l2, l3) = (
        bar_length(&mechanism, 0),
        bar_length(&mechanism, 1),
        bar_length(&mechanism, 2),
    );
    let target = [l1 + 0.5 * l2, 0.0, 0.0];
    let mut last = f64::INFINITY;
    for _ in 0..40 {
        let report = session.drag_to(target).unwrap().unwrap();
        assert!(residual(session.simulation()) < 1e-10, "constraints broken");
        assert!(
            report.distance <= last,
            "moved away: {} then {}",
            last,
            report.distance
        );
        last = report.distance;
        if report.distance < 1e-12 {
            break;
        }
    }
    assert!(last < 1e-9, "the flat pose not reached: {last} m off");
    let x = session.simulation().positions().clone();
    let flat = [
        (0.5 * l1, 0.0, 0.0),
        (l1 + 0.5 * l2, 0.0, 0.0),
        (1.0 + 0.5 * l3, 0.0, 0.0),
    ];
    for (body, (cx, cy, angle)) in flat.iter().enumerate() {
        let o = mechanism.bodies()[body].offset;
        assert!((x[o] - cx).abs() < 1e-8, "body {body} x {}", x[o]);
        assert!((x[o + 1] - cy).abs() < 1e-8, "body {body} y {}", x[o + 1]);
        assert!(
            wrapped(x[o + 2] - angle).abs() < 1e-8,
            "body {body} angle {}",
            x[o + 2]
        );
    }
    assert!(
        session.simulation().velocities().amax() == 0.0,
        "not at rest"
    );
    // The session reports the rank drop at the flat pose, as a singular event with its
    // branches, which the mechanism can leave along from rest.
    assert_eq!(session.rank_at_detection(), generic - 1);
    assert!(session.simulation().rho() < session.settings().detection_tolerance);
    let event = session
        .current_event()
        .expect("the flat pose is an event")
        .clone();
    assert_eq!(event.deficiency, 1);
    assert_eq!(event.x, x);
    assert_eq!(session.pause_reason(), Some(&PauseReason::Event));
    assert!(!session.branches().is_empty());
    let mut leaving = session.clone();
    let branch = leaving.branches()[0].direction.clone();
    assert!(
        leaving.leave_along(&branch, None).is_err(),
        "at rest: a speed is needed"
    );
    leaving.leave_along(&branch, Some(3.0)).unwrap();
    leaving.set_stop_time(Some(leaving.time() + 0.2));
    leaving.run_until_paused(1_000_000);
    assert!(residual(leaving.simulation()) < 1e-10);
    let moved = leaving.simulation().positions() - &x;
    assert!(moved.amax() > 0.05, "{moved}");
    assert!(moved.dot(&branch) > 0.0, "not along the branch: {moved}");

    // And away from it again: the coupler's centre up to (1.3, 0.6), on the parallelogram
    // branch (crank angle asin 0.6) or near it on the fold; regular there.
    let away = [l1 * 0.8 + 0.5 * l2, 0.6, 0.0];
    let mut report = None;
    for _ in 0..60 {
        report = session.drag_to(away).unwrap();
        assert!(residual(session.simulation()) < 1e-10, "constraints broken");
    }
    let reached = report.unwrap().distance;
    assert!(
        reached < 0.6 * 0.5,
        "stuck at the flat pose: {reached} m off"
    );
    assert_eq!(session.rank_at_detection(), generic);
    assert!(
        session.current_event().is_none(),
        "no event away from the flat pose"
    );
    session.end_drag();
    assert_eq!(
        session
            .marks()
            .iter()
            .filter(|m| m.kind == MarkKind::Drag)
            .count(),
        1
    );
}

#[test]
fn undo_puts_back_the_pose_before_a_drag() {
    let mut session = LiveSession::new(scene("double_four_bar")).unwrap();
    session.set_stop_time(Some(0.3));
    session.run_until_paused(1_000_000);
    let before: Vec<u64> = session
        .simulation()
        .positions()
        .iter()
        .chain(session.simulation().velocities().iter())
        .map(|v| v.to_bits())
        .collect();
    let (point, _) = session.pick([1.0, 0.5, 0.0]).unwrap();
    session.begin_drag(point).unwrap();
    let p = point.position(&session.scene().mechanism, session.simulation().positions());
    session.drag_to([p.x + 0.2, p.y - 0.1, 0.0]).unwrap();
    session.end_drag();
    assert!(session.undo().unwrap());
    let after: Vec<u64> = session
        .simulation()
        .positions()
        .iter()
        .chain(session.simulation().velocities().iter())
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(after, before);
}

/// What a running drag's spring did over some steps.
struct Pull {
    /// The spring's (elastic) work and the spring-damper's: the loads are constant over a
    /// step, from the state it starts at.
    elastic: f64,
    work: f64,
    /// The mechanical energy gained (gravity's included).
    gained: f64,
    /// The point's distance to the target before and after.
    gaps: (f64, f64),
}

/// Poses the session at rest with `point` at `rest` (a paused drag), then plays and pulls
/// `point` towards `target` with a running drag for 0.2 s.
fn pull(session: &mut LiveSession, point: GrabPoint, rest: [f64; 3], target: [f64; 3]) -> Pull {
    drag_until_still(session, point, rest);
    assert_eq!(session.simulation().velocities().amax(), 0.0);
    session.play();
    session.begin_drag(point).unwrap();
    session.drag_to(target).unwrap();
    let mechanism = session.scene().mechanism.clone();
    let spring = session.drag().unwrap().spring();
    let gap = |p: Vector3<f64>| (Vector3::from(target) - p).norm();
    let start = point.position(&mechanism, session.simulation().positions());
    let energy0 = session.simulation().energy();
    let (mut elastic, mut work) = (0.0, 0.0);
    let steps = (0.2 / session.settings().dt).round() as usize;
    for _ in 0..steps {
        let sim = session.simulation();
        let force = spring.force(&mechanism, sim.positions(), sim.velocities());
        let p0 = point.position(&mechanism, sim.positions());
        let stretch = (Vector3::from(target) - p0) * spring.stiffness;
        session.single_step();
        let p1 = point.position(&mechanism, session.simulation().positions());
        work += force.dot(&(p1 - p0));
        elastic += stretch.dot(&(p1 - p0));
    }
    let end = point.position(&mechanism, session.simulation().positions());
    let (from, to) = session.drag_line().unwrap();
    assert_eq!(to, target);
    assert_eq!(from, [end.x, end.y, end.z]);
    session.end_drag();
    assert!(session.simulation().extra_loads().is_empty());
    Pull {
        elastic,
        work,
        gained: session.simulation().energy() - energy0,
        gaps: (gap(start), gap(end)),
    }
}

#[test]
fn the_running_spring_does_positive_work_towards_its_target() {
    // The four-bar at rest with its cranks vertical, pulled to the right at the coupler's
    // centre; the spatial pendulum's bob at rest on the horizontal, pulled sideways. The
    // spring does positive work as the point nears the target; the spring-damper's work
    // (negative here: its damping takes what gravity gives) is the mechanical energy gained,
    // as the loads are constant over each step.
    let four_bar = scene("four_bar");
    let spatial = scene("spatial_pendulum");
    for (scene, rest, target) in [
        (four_bar, [0.5, 1.0 - 1e-3, 0.0], [1.0, 0.9, 0.0]),
        (spatial, [0.08, 0.0, 1e-3], [0.0, 0.1, 0.0]),
    ] {
        let name = scene.title.clone();
        let mut session = LiveSession::new(scene).unwrap();
        let (point, _) = session.pick(rest).unwrap();
        let pulled = pull(&mut session, point, rest, target);
        let Pull {
            elastic,
            work,
            gained,
            gaps,
        } = pulled;
        assert!(elastic > 0.0, "{name}: elastic work {elastic}");
        assert!(gaps.1 < 0.9 * gaps.0, "{name}: {gaps:?}");
        // Measured: 2.2e-9 J of 1.2 J on the four-bar, 3e-14 J of 0.26 J on the pendulum.
        assert!(
            (gained - work).abs() < 1e-6,
            "{name}: gained {gained} J, work {work} J, elastic {elastic} J"
        );
    }
}

#[test]
fn a_point_moves_as_its_position_changes() {
    // J_p v against the finite difference of the position along v, on a bar and on the
    // spatial pendulum's rigid body.
    for name in ["four_bar", "spatial_pendulum", "spin_top"] {
        let s = scene(name);
        let mechanism = s.mechanism.clone();
        let sim = s.simulation_with(s.settings.clone()).unwrap();
        let x = sim.positions();
        let n = mechanism.n();
        let v = DVector::from_fn(n, |i, _| ((i * 7 + 3) % 5) as f64 - 2.0);
        for body in 0..mechanism.bodies().len() {
            let point = GrabPoint {
                body,
                local: Vector3::new(0.3, -0.2, 0.1),
            };
            let h = 1e-6;
            let ahead = point.position(&mechanism, &(x + &v * h));
            let behind = point.position(&mechanism, &(x - &v * h));
            let numeric = (ahead - behind) / (2.0 * h);
            let analytic = point.velocity(&mechanism, x, &v);
            assert!(
                (numeric - analytic).amax() < 1e-7,
                "{name} body {body}: {numeric} vs {analytic}"
            );
        }
    }
}

/// Drags `point` of the session's mechanism towards `target` until it stops moving; the
/// distance left.
fn drag_until_still(session: &mut LiveSession, point: GrabPoint, target: [f64; 3]) -> f64 {
    session.begin_drag(point).unwrap();
    let mut distance = f64::INFINITY;
    for _ in 0..100 {
        let report = session.drag_to(target).unwrap().unwrap();
        assert!(residual(session.simulation()) < 1e-10, "constraints broken");
        distance = report.distance;
        if report.moves == 0 {
            break;
        }
    }
    session.end_drag();
    distance
}

#[test]
fn from_the_flat_pose_the_point_grabbed_chooses_the_branch() {
    // At the four-bar's flat pose (cranks along the ground line to the right) two branches
    // cross: the parallelogram (both cranks turn alike) and the fold (crank 1 stays on the
    // ground line, the coupler lies folded on crank 2 and turns with it about (1, 0)).
    // Lifting crank 2's tip to (1.8, 0.6), on its circle of radius l3 about its pin (1, 0),
    // takes the fold: crank 2 and the coupler at atan2(0.6, 0.8), crank 1 at 0. Lifting
    // crank 1's tip to (0.8, 0.6) takes the parallelogram: both cranks at atan2(0.6, 0.8),
    // the coupler at 0.
    let mut flat = LiveSession::new(scene("four_bar")).unwrap();
    let coupler_centre = GrabPoint {
        body: 1,
        local: Vector3::zeros(),
    };
    assert!(drag_until_still(&mut flat, coupler_centre, [1.5, 0.0, 0.0]) < 1e-9);
    let generic = flat.simulation().generic_rank();
    assert_eq!(flat.rank_at_detection(), generic - 1);
    let angle = 0.6_f64.atan2(0.8);
    let tip = |body| GrabPoint {
        body,
        local: Vector3::new(0.5, 0.0, 0.0),
    };
    for (body, target, expected) in [
        (2, [1.8, 0.6, 0.0], [0.0, angle, angle]),
        (0, [0.8, 0.6, 0.0], [angle, 0.0, angle]),
    ] {
        let mut session = flat.clone();
        let left = drag_until_still(&mut session, tip(body), target);
        assert!(left < 1e-9, "crank {body}'s tip {left} m off");
        let mechanism = session.scene().mechanism.clone();
        let x = session.simulation().positions();
        for (b, want) in expected.iter().enumerate() {
            let got = x[mechanism.bodies()[b].offset + 2];
            assert!(
                wrapped(got - want).abs() < 1e-8,
                "lifting crank {body}: bar {b} at {got}"
            );
        }
        assert_eq!(session.rank_at_detection(), generic);
    }
}

#[test]
fn spatial_drags_keep_to_the_sphere_and_the_top_turns_by_hand() {
    // The spatial pendulum's bob (a point on a 0.08 m link from the origin) dragged towards
    // (0, 0.2, 0.1): it ends on the sphere where the ray to the target crosses it,
    // 0.08 (0, 2, 1) / sqrt(5).
    let mut session = LiveSession::new(scene("spatial_pendulum")).unwrap();
    let (bob, _) = session.pick([0.08, 0.0, 0.0]).unwrap();
    let left = drag_until_still(&mut session, bob, [0.0, 0.2, 0.1]);
    let x = session.simulation().positions();
    let expected = Vector3::new(0.0, 2.0, 1.0) * (0.08 / 5.0_f64.sqrt());
    // The distance is stationary at the nearest point, so the drag places it to the square
    // root of the round-off (a minimiser cannot tell closer poses apart), not to it.
    for k in 0..3 {
        assert!((x[k] - expected[k]).abs() < 1e-7, "bob at {x}");
    }
    let gap: f64 = Vector3::new(0.0, 0.2, 0.1).norm() - 0.08;
    assert!((left - gap).abs() < 1e-9, "{left} m left");
    // The spin top (a rigid body on a spherical joint): a point on its axis, pulled
    // sideways, leans the top; the constraints hold after every move.
    let mut top = LiveSession::new(scene("spin_top")).unwrap();
    let mechanism = top.scene().mechanism.clone();
    let point = GrabPoint {
        body: 0,
        local: Vector3::new(0.0, 0.0, 0.1),
    };
    let start = point.position(&mechanism, top.simulation().positions());
    let target = [start.x + 0.05, start.y, start.z];
    let before = (Vector3::from(target) - start).norm();
    let left = drag_until_still(&mut top, point, target);
    assert!(left < 0.5 * before, "{before} m then {left} m");
}

#[test]
fn the_four_bar_dragged_flat_and_pushed_along_new_1_folds_as_a_compound_pendulum() {
    // The README's first lesson, step 6: `four_bar` dragged flat (cranks along the ground line
    // to the right, crank 1 from (0, 0) to (1, 0), crank 2 and the coupler from (1, 0) to
    // (2, 0)), then pushed along `new 1` with Δ velocity 1 over 0.05 s. It folds: crank 1
    // stays, crank 2 and the coupler turn together about (1, 0) as one compound pendulum
    // (two unit bars pinned at an end, I = 2/3, m d = 1, angle phi from +x), released from
    // phi = 0 downhill. The push is the constant generalized force M u a, a = Δv / duration,
    // u the motion's column scaled to unit mass norm and turned downhill along itself (the
    // README's Push row); on phi it is a <t(phi), u>_M, with t(phi) the fold's velocity per unit
    // phi_dot: (-sin(phi) / 2, cos(phi) / 2, 1) for both crank 2 and the coupler, whose centres
    // are at (1 + cos(phi) / 2, sin(phi) / 2) (m = 1, J = 1 / 12).
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    let coupler_centre = GrabPoint {
        body: 1,
        local: Vector3::zeros(),
    };
    assert!(drag_until_still(&mut session, coupler_centre, [1.5, 0.0, 0.0]) < 1e-9);
    let event = session
        .current_event()
        .cloned()
        .expect("an event at the flat pose");
    let shown =
        singulab::live::motions::event_motions(&event, singulab::solver::BasisMode::Continued);
    let new_1 = shown
        .iter()
        .find(|m| m.label == "new 1")
        .expect("a new motion");
    let x0 = session.simulation().positions().clone();
    let (delta, duration, span) = (1.0, 0.05, 0.5);
    let t0 = session.time();
    session.push_along(&new_1.column, delta, duration).unwrap();
    for _ in 0..100 {
        if session.time() >= t0 + span - 1e-12 {
            break;
        }
        session.play();
        session.advance_to(t0 + span, 1_000_000);
    }
    assert!(
        (session.time() - t0 - span).abs() < 1e-9,
        "t {}",
        session.time()
    );
    let x = session.simulation().positions();
    let turned = |body: usize| x[3 * body + 2] - x0[3 * body + 2];

    // The reduction, by RK4 at 1e-5 s (its own error far below the tolerance).
    let (inertia, g) = (2.0 / 3.0, 9.81);
    let a = delta / duration;
    let metric = [1.0, 1.0, 1.0 / 12.0];
    let u = &new_1.column;
    let mass_norm = (0..9)
        .map(|i| metric[i % 3] * u[i] * u[i])
        .sum::<f64>()
        .sqrt();
    let on_fold = |phi: f64| {
        let t = [-0.5 * phi.sin(), 0.5 * phi.cos(), 1.0];
        [1, 2]
            .iter()
            .flat_map(|&body| (0..3).map(move |k| (body, k)))
            .map(|(body, k)| metric[k] * t[k] * u[3 * body + k])
            .sum::<f64>()
            / mass_norm
    };
    // Turned downhill along the column itself: gravity (-y, every body 1 kg) does positive
    // work along it.
    let sign = -(0..3).map(|body| u[3 * body + 1]).sum::<f64>().signum();
    let force = |t: f64, phi: f64| {
        let push = if t < duration {
            sign * a * on_fold(phi)
        } else {
            0.0
        };
        (push - g * phi.cos()) / inertia
    };
    let (mut phi, mut omega, h) = (0.0_f64, 0.0_f64, 1e-5);
    for k in 0..(span / h).round() as usize {
        let t = k as f64 * h;
        let (k1p, k1w) = (omega, force(t, phi));
        let (k2p, k2w) = (
            omega + 0.5 * h * k1w,
            force(t + 0.5 * h, phi + 0.5 * h * k1p),
        );
        let (k3p, k3w) = (
            omega + 0.5 * h * k2w,
            force(t + 0.5 * h, phi + 0.5 * h * k2p),
        );
        let (k4p, k4w) = (omega + h * k3w, force(t + h, phi + h * k3p));
        phi += h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
        omega += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    }
    assert!(turned(0).abs() < 1e-8, "crank 1 turned {}", turned(0));
    assert!(
        (turned(2) - turned(1)).abs() < 1e-8,
        "{} {}",
        turned(1),
        turned(2)
    );
    // The push acts with the detection tolerance as rank tolerance, so next to the flat pose a
    // part of it also goes along the parallelogram, which the constraints take back as the
    // mechanism leaves; the reduction has no such part, and the simulation lands short of it by
    // a few milliradians whatever dt.
    assert!(
        (turned(2) - phi).abs() < 3e-3,
        "crank 2 {} reduction {phi}",
        turned(2)
    );
}

/// A point of the atlas chosen in its plot poses the mechanism there, at rest and paused; on
/// the fold branch of the four-bar (crank 1 on the ground line, crank 2 at 1 rad: the closed
/// form `a = 0`, any `b`). Undo puts back the pose the run had before it.
#[test]
fn posing_at_an_atlas_point_is_at_rest_on_that_branch_and_undone_as_a_drag() {
    let mut session = LiveSession::new(scene("four_bar")).unwrap();
    session.set_stop_time(Some(0.1));
    session.run_until_paused(1_000_000);
    session.play();
    let before: Vec<u64> = session
        .simulation()
        .positions()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let mechanism = session.scene().mechanism.clone();
    let theta = |name: &str| mechanism.bodies()[mechanism.body_index(name).unwrap()].offset + 2;
    // The fold at crank 2 = 1 rad: crank 1 flat, its tip on crank 2's pivot (1, 0); the
    // coupler from there to crank 2's tip.
    let b = 1.0f64;
    let tip = [1.0 + b.cos(), b.sin()];
    let mut x = DVector::zeros(mechanism.n());
    let put = |x: &mut DVector<f64>, name: &str, c: [f64; 2], angle: f64| {
        let o = theta(name) - 2;
        (x[o], x[o + 1], x[o + 2]) = (c[0], c[1], angle);
    };
    put(&mut x, "crank1", [0.5, 0.0], 0.0);
    put(&mut x, "crank2", [1.0 + 0.5 * b.cos(), 0.5 * b.sin()], b);
    let coupler = (tip[1] - 0.0).atan2(tip[0] - 1.0);
    put(
        &mut x,
        "coupler",
        [0.5 * (1.0 + tip[0]), 0.5 * tip[1]],
        coupler,
    );
    session.pose_at(&x).unwrap();
    let sim = session.simulation();
    assert!(session.is_paused());
    assert!(residual(sim) <= 1e-12);
    assert!(sim.velocities().amax() == 0.0, "at rest");
    assert!((sim.positions() - &x).amax() < 1e-9, "posed where asked");
    assert!(session.undo().unwrap());
    let after: Vec<u64> = session
        .simulation()
        .positions()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(after, before);
}

/// A02 paused at its first flat pose (t = 0.7144 s), then posed by hand (as a click on the
/// configuration-space plot does) at another singular configuration the atlas traced: the
/// pose is an event at the same instant. Going to the run's event afterwards gives the
/// run's pose and motion, not the one set by hand at the same time (trial 8 got the posed
/// configuration, at rest).
#[test]
fn going_to_an_event_after_a_pose_at_its_instant_gives_the_events_state() {
    let scene = scene("double_four_bar");
    let mut session = LiveSession::new(scene.clone()).unwrap();
    session.run_until_paused(100_000);
    let met = session
        .current_event()
        .expect("the first flat pose")
        .clone();
    let speed = session.simulation().velocities().amax();
    assert!(speed > 1.0, "A02 passes its flat pose moving");
    let atlas = crate::common::atlas_of(&scene, Vec::new());
    let other = atlas
        .singular
        .iter()
        .map(|point| &point.x)
        .find(|x| (*x - &met.x).amax() > 0.5)
        .expect("a singular configuration other than the one met");
    session.pose_at(other).unwrap();
    assert_eq!(session.events().len(), 2, "the pose is an event");
    assert_eq!(session.events()[1].t, met.t, "at the same instant");
    session.goto_event(0).unwrap();
    let sim = session.simulation();
    assert!((sim.positions() - &met.x).amax() < 1e-9, "the run's pose");
    assert!(
        (sim.velocities().amax() - speed).abs() < 1e-9,
        "and its motion"
    );
}

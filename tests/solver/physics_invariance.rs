//! The physics never depends on the display choice: the accelerations are
//! the same whichever orthonormal basis of the tangent space stands for `T` (the traditional,
//! the continued, or any rotation of them), the CLI's basis option changes only the basis
//! columns, and the two predictors give bit-identical trajectories. Also: a clone
//! replays bit for bit, the CLI's CSV has the promised shape, and a push at a singular
//! configuration (thesis sect. 5.2.2) takes the four-bar off the parallelogram branch without
//! creating energy.

use std::path::PathBuf;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use singulab::cli::run::{RunSummary, run_scene};
use singulab::model::{Load, LoadKind};
use singulab::solver::{BasisMode, Predictor, Settings};

use crate::common::{SCENES, scene, stopping_four_bar};
use crate::test_rng::Rng;

fn run_csv(name: &str, basis: BasisMode, t_end: f64, every: usize) -> (String, RunSummary) {
    let scene = scene(name);
    let args = singulab::cli::args::RunArgs {
        scene: Some(PathBuf::from(name)),
        t_end: Some(t_end),
        dt: None,
        basis,
        predictor: None,
        integrator: None,
        every,
        out: None,
        events: None,
        reactions: None,
        script: None,
    };
    let mut out = Vec::new();
    let summary = run_scene(&scene, &args, &mut out, None, None, false).expect("run");
    (String::from_utf8(out).expect("utf-8"), summary)
}

/// Columns of a CSV that describe the physical state (everything but the basis columns).
fn physical_columns(csv: &str) -> Vec<Vec<String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let keep: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| !(h.starts_with("qd") || **h == "basis_jump"))
        .map(|(i, _)| i)
        .collect();
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            keep.iter().map(|&i| fields[i].to_string()).collect()
        })
        .collect()
}

/// The simulation tracks both bases every step and the CLI's `--basis` only chooses which
/// one is written: runs `name` over its whole default run (through every singular
/// configuration of it) with each and compares the physical columns of every 10th row and
/// the last, as text in shortest round-trip form, so bit for bit.
fn cli_basis_option_changes_only_basis_columns(name: &str) {
    let t_end = scene(name).t_end;
    let (traditional, _) = run_csv(name, BasisMode::Traditional, t_end, 10);
    let (continued, _) = run_csv(name, BasisMode::Continued, t_end, 10);
    let (a, b) = (physical_columns(&traditional), physical_columns(&continued));
    assert_eq!(a.len(), b.len(), "{name}: row counts differ");
    assert!(a.len() > 100, "{name}: only {} rows", a.len());
    if let Some(row) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("{name}: physical columns differ between bases from row {row}");
    }
    // The basis columns themselves are written and finite.
    assert!(traditional.lines().nth(1).unwrap().split(',').count() > a[0].len());
}

#[test]
fn cli_basis_option_changes_only_basis_columns_double_four_bar() {
    cli_basis_option_changes_only_basis_columns("double_four_bar");
}

#[test]
fn cli_basis_option_changes_only_basis_columns_modified_2x3() {
    cli_basis_option_changes_only_basis_columns("modified_2x3");
}

/// Why the basis shown cannot change the motion: the MCS accelerations (Masarati et al. 2023, eq.
/// 11, `xdd = T qdd + beta''` with `(T^T M T) qdd = T^T (f - M beta'')`) are the same with any
/// orthonormal basis of the tangent space, `T -> T U`. Along every scene's whole default run (every
/// 20th step and every step that passes a singular configuration) the accelerations the steps use
/// (the factorisation's own `T`) are recomputed with the traditional basis, the continued basis
/// (which also checks that it spans the tangent space) and the factorisation's `T` times a random
/// orthogonal `U`; they agree to 1e-12 relative to the largest acceleration (largest difference
/// seen: 1.6e-15).
#[test]
fn accelerations_do_not_depend_on_the_basis() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut worst: f64 = 0.0;
    for name in SCENES {
        let scene = scene(name);
        let mut sim = scene.simulation().unwrap();
        let (mut checked, mut at_events) = (0, 0);
        let mut step = 0usize;
        while sim.time() < scene.t_end {
            let report = sim.step().unwrap();
            step += 1;
            if !step.is_multiple_of(20) && report.events == 0 {
                continue;
            }
            let own = sim.accelerations_with_tangent(None).unwrap();
            let rank = sim.rank();
            let n = own.len();
            let t_hat = sim.factorization().q().columns(rank, n - rank).into_owned();
            let dof = t_hat.ncols();
            let u = rng.matrix(dof, dof).qr().q();
            let rotated = &t_hat * u;
            let scale = own.amax().max(1.0);
            for (what, tangent) in [
                ("traditional", sim.basis(BasisMode::Traditional).columns()),
                ("continued", sim.basis(BasisMode::Continued).columns()),
                ("T U", rotated.columns(0, dof)),
            ] {
                let xdd = sim.accelerations_with_tangent(Some(tangent)).unwrap();
                let difference = (&xdd - &own).amax() / scale;
                worst = worst.max(difference);
                assert!(
                    difference < 1e-12,
                    "{name}, t = {}: accelerations with the {what} basis differ by {difference:e}",
                    sim.time()
                );
            }
            checked += 1;
            at_events += report.events;
        }
        assert!(checked > 20, "{name}: only {checked} states checked");
        // The pendulums, the spatial rigid-body scenes and the mobile robot pass no singular
        // configuration.
        if !name.contains("pendulum")
            && !scene.mechanism.has_rigid_bodies()
            && name != "mobile_robot"
        {
            assert!(at_events > 0, "{name}: no singular configuration passed");
        }
    }
    eprintln!("largest relative difference of accelerations between bases: {worst:e}");
}

#[test]
fn predictor_choice_does_not_change_physics() {
    for name in ["double_four_bar", "modified_2x2"] {
        let scene = scene(name);
        let mut omega = scene
            .simulation_with(Settings {
                predictor: Predictor::Omega,
                ..scene.settings.clone()
            })
            .unwrap();
        let mut zeroth = scene
            .simulation_with(Settings {
                predictor: Predictor::Zeroth,
                ..scene.settings.clone()
            })
            .unwrap();
        for _ in 0..2000 {
            omega.step().unwrap();
            zeroth.step().unwrap();
        }
        assert_eq!(omega.positions(), zeroth.positions(), "{name}");
        assert_eq!(omega.velocities(), zeroth.velocities(), "{name}");
        // ... while the continued bases are computed differently when there is a choice: with
        // one column the Procrustes corrector only keeps the sign, so both predictors agree.
        let (a, b) = (
            omega.basis(BasisMode::Continued).columns(),
            zeroth.basis(BasisMode::Continued).columns(),
        );
        if a.ncols() > 1 {
            assert_ne!(a, b, "{name}");
        } else {
            assert_eq!(a, b, "{name}");
        }
    }
}

#[test]
fn a_clone_replays_bit_for_bit() {
    let scene = scene("modified_2x3");
    let mut original = scene.simulation().unwrap();
    for _ in 0..500 {
        original.step().unwrap();
    }
    let mut copy = original.clone();
    let mut events = 0;
    for _ in 0..1500 {
        let a = original.step().unwrap();
        let b = copy.step().unwrap();
        events += a.events;
        assert_eq!(a, b);
    }
    assert!(
        events > 0,
        "the replay should cross a singular configuration"
    );
    assert_eq!(original.positions(), copy.positions());
    assert_eq!(original.velocities(), copy.velocities());
    for mode in [BasisMode::Traditional, BasisMode::Continued] {
        assert_eq!(original.basis(mode), copy.basis(mode));
    }
}

#[test]
fn csv_starts_at_zero_and_ends_exactly_at_t_end() {
    let (csv, summary) = run_csv("double_four_bar", BasisMode::Continued, 0.2555, 7);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("t,energy,residual,rank,dof,basis_jump,crank1.x,crank1.y,crank1.theta,crank1.vx,crank1.vy,crank1.omega,coupler1.x"));
    assert!(lines[0].ends_with("crank3.omega,qd1"));
    assert_eq!(lines[1].split(',').next(), Some("0.0"));
    let last_t: f64 = lines
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(last_t, 0.2555);
    // 256 steps (the last one shortened), rows every 7th step plus t = 0 and the last one.
    assert_eq!(summary.steps, 256);
    assert_eq!(summary.rows as usize, lines.len() - 1);
    assert_eq!(summary.rows, 1 + 256 / 7 + 1);
    // Shortest round-trip numbers: every field of every row reads back to the bits of the
    // simulation state it was written from. The same scene is stepped here alongside
    // (deterministic, so the same states), and its row is built from the README's column
    // list, not from the writer's code.
    let mut sim = scene("double_four_bar").simulation().unwrap();
    let mut report = None;
    for (row, line) in lines[1..].iter().enumerate() {
        if row > 0 {
            let target = if row == lines.len() - 2 { 256 } else { 7 * row };
            while sim.counters().steps < target as u64 {
                report = Some(sim.step_until(0.2555).unwrap());
            }
        }
        let (residual, rank, jump) = match &report {
            Some(r) => (r.residual, r.rank, r.continued.jump),
            // Row 0 is t = 0, before any step: the residual of the initial positions.
            None => {
                let mut c = nalgebra::DVector::zeros(sim.mechanism().m());
                sim.mechanism()
                    .residual(sim.time(), sim.positions(), &mut c);
                (c.amax(), sim.rank(), 0.0)
            }
        };
        let mut expected = vec![sim.time(), sim.energy(), residual];
        let n = sim.mechanism().n();
        let integers = [rank as f64, (n - rank) as f64];
        expected.extend(integers);
        expected.push(jump);
        for body in sim.mechanism().bodies() {
            let span = body.offset..body.offset + body.dim();
            expected.extend(sim.positions().as_slice()[span.clone()].iter());
            expected.extend(sim.velocities().as_slice()[span].iter());
        }
        expected.extend(sim.basis(BasisMode::Continued).qd());
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), expected.len(), "row {row}: {line}");
        for (k, (field, value)) in fields.iter().zip(&expected).enumerate() {
            let read: f64 = field
                .parse()
                .unwrap_or_else(|_| panic!("row {row} column {k}: {field:?} is no number"));
            assert_eq!(
                read.to_bits(),
                value.to_bits(),
                "row {row} column {k}: {field} read back as {read:e}, the state holds {value:e}"
            );
        }
    }
    assert_eq!(sim.time(), 0.2555);
}

#[test]
fn a_torque_at_the_singularity_leaves_the_parallelogram_branch() {
    let scene = stopping_four_bar();
    let mut sim = scene.simulation().unwrap();
    let event = loop {
        sim.step().unwrap();
        if let Some(event) = sim.step_events().first() {
            break event.clone();
        }
        assert!(sim.time() < 3.0, "the four-bar never reached the flat pose");
    };
    assert_eq!(event.deficiency, 1);
    assert_eq!(event.motion_count(), 2);
    // At the event the mechanism is (nearly) at rest and flat: cranks near theta = pi.
    let theta1 = event.x[2];
    assert_abs_diff_eq!(theta1, std::f64::consts::PI, epsilon = 1e-2);

    // Push: the dynamics take the detection tolerance as rank tolerance so they see both
    // motions, for as long as the pulse lasts; then the usual tolerance comes back.
    let usual = sim.settings().clone();
    sim.set_push_settings(&usual).unwrap();
    sim.set_event_state(&event).unwrap();
    assert_eq!(sim.rank(), 7, "the dynamics must see the rank drop");
    assert_eq!(sim.basis(BasisMode::Continued).dim(), 2);
    let t0 = sim.time();
    let pulse = 0.05;
    sim.add_load(Load {
        body: 1,
        kind: LoadKind::Torque(-20.0),
        window: Some((t0, t0 + pulse)),
    })
    .unwrap();
    let e0 = sim.energy();
    let mut work = 0.0;
    let mut omega_before = sim.velocities()[5];
    while sim.time() < t0 + pulse - 1e-12 {
        let report = sim.step_until(t0 + pulse).unwrap();
        let omega_after = sim.velocities()[5];
        // Trapezoidal work of the torque on the coupler.
        work += -20.0 * 0.5 * (omega_before + omega_after) * report.h;
        omega_before = omega_after;
        // Rows whose R diagonal is below the (now large) rank tolerance are not corrected by
        // Newton while the mechanism is that close to the flat pose: the new motion violates
        // them at second order (measured: 1.4e-6 when rho reaches the tolerance).
        assert!(report.residual < 1e-5, "residual {}", report.residual);
    }
    // Work-energy theorem with workless ideal joints: the torque does positive work, the
    // energy rises, and never by more than that work (up to the trapezoidal quadrature of
    // the work and the step's error, 1e-3 relative). It may rise by less: the velocity the
    // push gives lies in the two-dimensional admissible space of the flat pose, and leaving
    // it the part no branch admits is removed like an impulsive reaction (seen here: 0.347 J
    // kept of 0.437 J; not asserted, it depends on where the branch goes).
    let gained = sim.energy() - e0;
    assert!(work > 0.0);
    assert!(
        gained > 0.0 && gained <= work * (1.0 + 1e-3),
        "energy gained {gained} J vs work {work} J"
    );
    sim.set_settings(usual).unwrap();
    let e1 = sim.energy();
    while sim.time() < t0 + 0.3 {
        let report = sim.step().unwrap();
        assert!(report.residual < 1e-9, "residual {}", report.residual);
        assert_abs_diff_eq!(report.energy, e1, epsilon = 1e-3 * e1.abs().max(1.0));
    }
    let (theta1, theta3) = (sim.positions()[2], sim.positions()[8]);
    assert!(
        (theta1 - theta3).abs() > 0.05,
        "still parallel after the push: {theta1} vs {theta3}"
    );
}

/// The state an event hands back (the app pauses there and resumes from it) is on the
/// trajectory: energy is conserved (E0 = 35.835 J on A02) to within what the steps around it
/// keep. Integrating a partial step onto the singular configuration gave 1.2e-3 J here.
#[test]
fn event_states_conserve_energy() {
    // Energy is conserved on every scene without a moving driver (no loads): an event state,
    // placed between two accepted steps, must be as close to the initial energy as the steps
    // around it (plus round-off), whatever the interpolation and projection did to it. A
    // driver (the mobile robot's) does work.
    for name in SCENES {
        let scene = scene(name);
        if scene.mechanism.is_rheonomic() {
            continue;
        }
        let mut sim = scene.simulation().unwrap();
        let e0 = sim.energy();
        let mut before = 0.0f64;
        while sim.time() < 3.0 {
            sim.step().unwrap();
            let after = (sim.energy() - e0).abs();
            for event in sim.step_events() {
                let mut at_event = sim.clone();
                at_event.set_event_state(event).unwrap();
                let error = (at_event.energy() - e0).abs();
                assert!(
                    error <= before.max(after) + 1e-8,
                    "{name}, event at t = {}: energy off by {error:e} J, steps around it {before:e} and {after:e}",
                    event.t
                );
            }
            before = after;
        }
    }
}

#[test]
fn events_csv_lists_the_motions_and_branches_of_each_event() {
    // A02 to 1 s passes its first flat pose (t = 0.714 s): Masarati et al. 2023, sect. 3.2 gives
    // rank 12, deficiency 2, one continued and two new motions; the small-angle geometry of
    // tests/solver/branches.rs gives two branches besides the continuation.
    let scene = scene("double_four_bar");
    let args = singulab::cli::args::RunArgs {
        scene: Some(PathBuf::from("double_four_bar")),
        t_end: Some(1.0),
        dt: None,
        basis: BasisMode::Continued,
        predictor: None,
        integrator: None,
        every: 1000,
        out: None,
        events: None,
        reactions: None,
        script: None,
    };
    let (mut out, mut events) = (Vec::new(), Vec::new());
    run_scene(&scene, &args, &mut out, Some(&mut events), None, false).expect("run");
    let header = singulab::cli::run::events_header(&scene);
    let columns: Vec<&str> = header.split(',').collect();
    assert_eq!(
        columns[..6],
        ["t", "rank", "deficiency", "rho_min", "motion", "kind"]
    );
    assert_eq!(columns.len(), 6 + scene.mechanism.n());
    let text = String::from_utf8(events).unwrap();
    assert_eq!(text.lines().next(), Some(header.as_str()));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r[5]).collect();
    assert_eq!(kinds, ["continued", "new", "new", "branch", "branch"]);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), columns.len());
        assert!(
            abs_diff_eq!(row[0].parse::<f64>().unwrap(), 0.7144, epsilon = 1e-3),
            "{row:?}"
        );
        assert_eq!(
            (row[1], row[2], row[4]),
            ("12", "2", (k + 1).to_string().as_str())
        );
        let norm: f64 = row[6..]
            .iter()
            .map(|v| v.parse::<f64>().unwrap().powi(2))
            .sum();
        assert!(
            abs_diff_eq!(norm, 1.0, epsilon = 1e-9),
            "motion {} has norm^2 {norm}",
            k + 1
        );
    }

    // Under --basis traditional the same event lists the traditional QR's three columns
    // (they span the same space, mixing the motions), then the same branches.
    let traditional = singulab::cli::args::RunArgs {
        basis: BasisMode::Traditional,
        ..args
    };
    let (mut out, mut events) = (Vec::new(), Vec::new());
    run_scene(
        &scene,
        &traditional,
        &mut out,
        Some(&mut events),
        None,
        false,
    )
    .expect("run");
    let text = String::from_utf8(events).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "traditional",
            "traditional",
            "traditional",
            "branch",
            "branch"
        ]
    );
}

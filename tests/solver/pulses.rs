//! Time-windowed loads (the thesis' push, sect. 5.2.2): a pulse must be integrated as the
//! piecewise-constant force it is, whatever the step grid.
//!
//! Reference: the shipped four-bar (cranks `l = 1 m`, `m = 1 kg`, coupler `m_c = 1 kg`
//! translating) with a torque `tau` on crank1 reduces to one coordinate, the crank angle:
//! `I theta'' = -c g cos(theta) + tau(t)` with `I = 2 m l^2 / 3 + m_c l^2` (two cranks about
//! their pivots, the coupler moving with the crank tips) and `c = m l + m_c l` (the cranks'
//! centres at `l/2 sin(theta)`, the coupler's at `l sin(theta)`). It is integrated here with
//! RK4 sub-steps of at most 2e-5 s, split at the pulse's edges.

use std::f64::consts::PI;

use approx::abs_diff_eq;
use singulab::scene::parse_scene;
use singulab::solver::{Integrator, Settings};

const G: f64 = 9.81;
const INERTIA: f64 = 2.0 / 3.0 + 1.0;
const POTENTIAL: f64 = 2.0;

/// The pulse: 20 N m on crank1 for 0.05 s.
const TORQUE: f64 = 20.0;
const DURATION: f64 = 0.05;

/// Its starts: on a 1e-3 grid, and off it.
const STARTS: [f64; 2] = [0.1, 0.1003];

fn scene_with_pulse(start: f64) -> singulab::scene::Scene {
    let path = crate::common::scene_path("four_bar");
    let source = std::fs::read_to_string(&path).unwrap();
    let loads = format!(
        "loads: [Torque(name: \"push\", body: \"crank1\", torque: {TORQUE:?}, start: {start:?}, duration: {DURATION:?})],\n    solver:"
    );
    let source = source.replacen("solver:", &loads, 1);
    parse_scene("four_bar_pulse.ron", &source).unwrap_or_else(|e| panic!("{e}"))
}

fn reduction_rhs(start: f64, t: f64, theta: f64, omega: f64) -> (f64, f64) {
    let tau = if (start..start + DURATION).contains(&t) {
        TORQUE
    } else {
        0.0
    };
    (omega, (-POTENTIAL * G * theta.cos() + tau) / INERTIA)
}

/// `(theta, omega)` of the reduction at `t_end` from the scene's start (vertical, 4 rad/s).
fn reduction_at(start: f64, t_end: f64) -> (f64, f64) {
    let (mut t, mut th, mut om) = (0.0, 0.5 * PI, 4.0);
    for edge in [start, start + DURATION, t_end] {
        let span = edge.min(t_end) - t;
        if span <= 0.0 {
            continue;
        }
        let count = (span / 2e-5).ceil() as usize;
        let h = span / count as f64;
        // Inside a piece the torque is constant: evaluate it at the piece's middle.
        let mid = t + 0.5 * span;
        let f = |th: f64, om: f64| reduction_rhs(start, mid, th, om);
        for _ in 0..count {
            let k1 = f(th, om);
            let k2 = f(th + 0.5 * h * k1.0, om + 0.5 * h * k1.1);
            let k3 = f(th + 0.5 * h * k2.0, om + 0.5 * h * k2.1);
            let k4 = f(th + h * k3.0, om + h * k3.1);
            th += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            om += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
        }
        t = edge.min(t_end);
    }
    (th, om)
}

fn crank_angle_error(start: f64, settings: Settings, t_end: f64) -> f64 {
    let scene = scene_with_pulse(start);
    let body = scene.mechanism.body_index("crank1").unwrap();
    let theta = scene.mechanism.bodies()[body].offset + 2;
    let mut sim = scene.simulation_with(settings).unwrap();
    while sim.time() < t_end {
        sim.step_until(t_end).unwrap();
    }
    assert_eq!(sim.time(), t_end);
    let (reference, _) = reduction_at(start, t_end);
    (sim.positions()[theta] - reference).abs()
}

/// Without the pulse the shipped four-bar follows the reduction to 6.6e-11 rad over 2 s; with
/// it, 5.5e-11 (RK4, dt 1e-3) and 9e-13 (Dopri5), because a step lands on each edge and takes
/// the load at its middle. A step that ended on an edge would see the half-open pulse as off
/// at its last stage and on at the next step's first (4.7e-3 rad off); one across an edge
/// would average the jump (3.5e-5).
#[test]
fn a_pulse_is_integrated_as_the_piecewise_constant_torque_it_is() {
    for start in STARTS {
        let scene = scene_with_pulse(start);
        for integrator in [Integrator::Rk4, Integrator::Dopri5] {
            for dt in [1e-3, 7e-4] {
                let settings = Settings {
                    dt,
                    integrator,
                    ..scene.settings.clone()
                };
                let error = crank_angle_error(start, settings, 2.0);
                assert!(
                    error < 1e-9,
                    "pulse from {start} s, {integrator:?} dt {dt:e}: crank1 angle {error:e} rad \
                     off the reduction at 2 s"
                );
            }
        }
    }
}

/// The reduction itself: the pulse's work goes into the energy, `tau` times the angle turned
/// while it acts (a check of the reference, independent of the simulation).
#[test]
fn the_reference_gains_the_pulse_work() {
    let energy = |(th, om): (f64, f64)| 0.5 * INERTIA * om * om + POTENTIAL * G * th.sin();
    let start = STARTS[0];
    let before = reduction_at(start, start);
    let after = reduction_at(start, start + DURATION);
    let work = TORQUE * (after.0 - before.0);
    let gained = energy(after) - energy(before);
    assert!(
        abs_diff_eq!(gained, work, epsilon = 1e-9 * work.abs()),
        "{gained} J gained, {work} J of work"
    );
}

/// Dopri5 lands on a pulse edge with a step as short as the edge is from its grid (2e-9 s
/// here); the steps after it keep their size rather than grow back from that one.
#[test]
fn dopri5_keeps_its_step_size_across_a_short_landing() {
    let steps = |start: f64| {
        let scene = scene_with_pulse(start);
        let settings = Settings {
            integrator: Integrator::Dopri5,
            ..scene.settings.clone()
        };
        let mut sim = scene.simulation_with(settings).unwrap();
        let mut count = 0;
        while sim.time() < 0.3 {
            sim.step_until(0.3).unwrap();
            count += 1;
        }
        count
    };
    let (on_grid, just_off) = (steps(0.1), steps(0.1 + 2e-9));
    assert!(
        just_off <= on_grid + 3,
        "{just_off} steps with the pulse 2e-9 s off the grid, {on_grid} on it"
    );
}

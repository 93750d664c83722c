//! Admissible motions as arrows on the mechanism: for one column `t` of the tangent basis,
//! the velocity that motion gives each body's ends and centre (`v_p = v_c + omega perp(R p)`
//! for a bar, the translation for a point mass, `v_p = rd + omega x (p - r)` at the centre and
//! chosen points of a spatial rigid body), and the motions to show: the basis columns in
//! normal running, or, at a singular event, the continued columns and the new ones.

use nalgebra::{DMatrixView, DVector, Vector3};

use crate::model::{Mechanism, rigid};
use crate::solver::{BasisMode, SingularEvent, TangentBasis};

/// One arrow: where it starts and the velocity it shows (world units per unit of `qd`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionArrow {
    pub body: usize,
    pub origin: [f64; 3],
    pub velocity: [f64; 3],
}

/// Where an admissible motion comes from, for colour and legend.
#[derive(Clone, Debug, PartialEq)]
pub enum MotionRole {
    /// A column of the running basis (traditional or continued).
    Basis(BasisMode),
    /// At an event: continues a column that existed before it.
    Continued,
    /// At an event: a direction admissible only at the singular configuration.
    New,
    /// At an event: a branch through the singular configuration other than the
    /// continuation, along which the mechanism can leave (second order).
    Branch,
}

/// A column of `T` with its name and role.
#[derive(Clone, Debug)]
pub struct Motion {
    pub label: String,
    pub role: MotionRole,
    pub column: DVector<f64>,
}

/// Two arrows closer than this (in origin and in velocity, relative to the mechanism's
/// largest arrow and extent) are one: a hinge shared by two bars.
const SAME_ARROW: f64 = 1e-6;

/// The arrows of one motion: each body's centre, and a bar's two ends. A point shared by
/// several bodies (a hinge) gets one arrow, from the first body that reaches it.
pub fn arrows(mechanism: &Mechanism, x: &DVector<f64>, column: &DVector<f64>) -> Vec<MotionArrow> {
    arrows_at(mechanism, x, column, &[])
}

/// As [`arrows`], with arrows also at `rigid_points`: points of spatial rigid bodies (body
/// index, point in body axes from the centre of mass), such as the ends of their solids.
pub fn arrows_at(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    column: &DVector<f64>,
    rigid_points: &[(usize, Vector3<f64>)],
) -> Vec<MotionArrow> {
    let mut all = body_arrows(mechanism, x, column);
    all.extend(rigid_point_arrows(mechanism, x, column, rigid_points));
    let extent = all.iter().fold(0.0_f64, |s, a| s.max(max_abs(a.origin)));
    let speed = all.iter().fold(0.0_f64, |s, a| s.max(max_abs(a.velocity)));
    let mut kept: Vec<MotionArrow> = Vec::with_capacity(all.len());
    for arrow in all {
        let duplicate = kept.iter().any(|k| {
            max_abs(difference(k.origin, arrow.origin)) <= SAME_ARROW * extent.max(1.0)
                && max_abs(difference(k.velocity, arrow.velocity)) <= SAME_ARROW * speed.max(1e-12)
        });
        if !duplicate {
            kept.push(arrow);
        }
    }
    kept
}

fn max_abs(v: [f64; 3]) -> f64 {
    v.iter().fold(0.0_f64, |s, c| s.max(c.abs()))
}

fn difference(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Every body's arrows, shared points repeated.
fn body_arrows(mechanism: &Mechanism, x: &DVector<f64>, column: &DVector<f64>) -> Vec<MotionArrow> {
    let mut out = Vec::new();
    for index in 0..mechanism.bodies().len() {
        for local in mechanism.marked_points(index) {
            out.push(MotionArrow {
                body: index,
                origin: mechanism.point_of_body(index, &local, x).into(),
                velocity: mechanism.point_velocity(index, &local, x, column).into(),
            });
        }
    }
    out
}

/// The arrows at points of rigid bodies: `v_p = rd + omega x (p - r)`, with the angular
/// velocity `omega = 2 E(e) ed` of the column's `ed` (global axes).
fn rigid_point_arrows<'a>(
    mechanism: &'a Mechanism,
    x: &'a DVector<f64>,
    column: &'a DVector<f64>,
    points: &'a [(usize, Vector3<f64>)],
) -> impl Iterator<Item = MotionArrow> + 'a {
    points.iter().filter_map(move |&(body, local)| {
        let b = mechanism.bodies().get(body)?;
        if !b.is_rigid() {
            return None;
        }
        let o = b.offset;
        let (centre, rotation) = mechanism.rigid_pose(body, x);
        let omega = rigid::global_angular_velocity(
            &mechanism.euler_parameters(body, x),
            &mechanism.euler_parameters(body, column),
        );
        let arm = rotation * local;
        let p = centre + arm;
        let v = Vector3::new(column[o], column[o + 1], column[o + 2]) + omega.cross(&arm);
        Some(MotionArrow {
            body,
            origin: [p.x, p.y, p.z],
            velocity: [v.x, v.y, v.z],
        })
    })
}

/// The columns of a running basis, labelled `T1`, `T2`, ...
pub fn basis_motions(basis: &TangentBasis, mode: BasisMode) -> Vec<Motion> {
    let columns = basis.columns();
    (0..columns.ncols())
        .map(|k| Motion {
            label: format!("T{}", k + 1),
            role: MotionRole::Basis(mode),
            column: columns.column(k).into_owned(),
        })
        .collect()
}

/// The admissible motions at an event as the chosen basis shows them. Continued QR: the
/// continued columns first (`T1 continued`, ... as the running basis numbers them), then the
/// new ones.
/// Traditional QR: the columns of `Q` at the detection tolerance as the factorisation
/// returns them, `T1`, `T2`, ..., which mix the motion before with the new ones.
pub fn event_motions(event: &SingularEvent, mode: BasisMode) -> Vec<Motion> {
    let mut out = Vec::new();
    if mode == BasisMode::Traditional {
        push_columns(&mut out, &event.traditional(), |k| {
            (format!("T{}", k + 1), MotionRole::Basis(mode))
        });
        return out;
    }
    // Named by position, as the running basis' columns and the plots' qd1, qd2, ... are (a
    // column's lifelong id differs after a push has added one and another has gone).
    push_columns(&mut out, &event.continued(), |k| {
        (format!("T{} continued", k + 1), MotionRole::Continued)
    });
    push_columns(&mut out, &event.new_motions(), |k| {
        (format!("new {}", k + 1), MotionRole::New)
    });
    out
}

/// The branches through an event's configuration, labelled `branch 1`, `branch 2`, ...
pub fn branch_motions(branches: &[crate::solver::Branch]) -> Vec<Motion> {
    branches
        .iter()
        .enumerate()
        .map(|(k, branch)| Motion {
            label: format!("branch {}", k + 1),
            role: MotionRole::Branch,
            column: branch.direction.clone(),
        })
        .collect()
}

/// `u^T M(x) v` from the kinetic energy, so that Euler parameters count as the rotation
/// they describe (`omega = 2 G e_dot`), not as four lengths.
fn mass_inner(mechanism: &Mechanism, x: &DVector<f64>, u: &DVector<f64>, v: &DVector<f64>) -> f64 {
    mechanism.kinetic_energy(x, &(u + v))
        - mechanism.kinetic_energy(x, u)
        - mechanism.kinetic_energy(x, v)
}

/// The orientation of an admissible motion: positive along the velocity it describes
/// (`column^T M xd > 0`, so that `T1 qd1` with `qd1 >= 0` is the mechanism's motion along
/// it); at rest ([`AT_REST`]) or moving across it, downhill (along gravity's generalized
/// force); with neither, as given. A mechanism posed by hand, or arriving at a pose where it
/// stops, keeps a residue of speed whose sense is chance: from there "the motion" is the way
/// it would fall.
pub fn orient_motion(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    xd: &DVector<f64>,
    column: &DVector<f64>,
) -> DVector<f64> {
    let along = mass_inner(mechanism, x, column, xd);
    let norm = (2.0 * mechanism.kinetic_energy(x, column)).sqrt();
    let moving = xd.amax() >= AT_REST;
    let sign = if moving && along.abs() > ACROSS * norm {
        along.signum()
    } else {
        let gravity = mechanism.gravity();
        let downhill: f64 = mechanism
            .bodies()
            .iter()
            .flat_map(|body| (0..body.translational_dim()).map(move |k| (body, k)))
            .map(|(body, k)| body.mass * gravity[k] * column[body.offset + k])
            .sum();
        if downhill < 0.0 { -1.0 } else { 1.0 }
    };
    column * sign
}

/// Largest coordinate rate (m/s, rad/s) below which the mechanism is at rest: a leave then
/// needs a speed, and motions point downhill (four_bar_stopping arrives at its flat pose with
/// about 1e-5 m/s left).
pub const AT_REST: f64 = 1e-3;

/// Below this speed along a motion (in the mass metric, sqrt(J), per unit of the motion's
/// norm) a moving mechanism moves across the motion, and its velocity does not orient it.
const ACROSS: f64 = 1e-6;

/// The mechanism's speed in the mass metric, sqrt(2 T) (sqrt(J)): what a push's `delta` is
/// measured in ([`push_direction`]), so the two compare.
pub fn mass_speed(mechanism: &Mechanism, x: &DVector<f64>, xd: &DVector<f64>) -> f64 {
    (2.0 * mechanism.kinetic_energy(x, xd)).sqrt()
}

/// A motion as a push takes it: oriented by [`orient_motion`] and of unit length in the mass
/// metric (`column^T M column = 1`), so that a push by `delta` changes the velocity along the
/// motion by `delta` in units of sqrt(J) (from rest along a free motion: kinetic energy
/// `delta^2 / 2` J), the same physical quantity whether the bodies turn by an angle or by
/// Euler parameters. `None` for a motion that moves no mass.
pub fn push_direction(
    mechanism: &Mechanism,
    x: &DVector<f64>,
    xd: &DVector<f64>,
    column: &DVector<f64>,
) -> Option<DVector<f64>> {
    let norm = (2.0 * mechanism.kinetic_energy(x, column)).sqrt();
    (norm.is_finite() && norm > 0.0).then(|| orient_motion(mechanism, x, xd, column) / norm)
}

fn push_columns(
    out: &mut Vec<Motion>,
    columns: &DMatrixView<f64>,
    name: impl Fn(usize) -> (String, MotionRole),
) {
    for k in 0..columns.ncols() {
        let (label, role) = name(k);
        out.push(Motion {
            label,
            role,
            column: columns.column(k).into_owned(),
        });
    }
}

/// A push along the motion `label`, as the banner names it for a class or a video (the
/// window's push and a lesson's).
pub fn push_said(label: &str, delta: f64, duration: f64, t: f64) -> String {
    format!("Pushed along {label}: Δv {delta:+.2} over {duration} s, at t = {t:.4} s.")
}

/// A leave along the branch `label` (`how`: " at speed 0.50 (from rest)", " (back)", or
/// nothing), as the banner names it.
pub fn leave_said(label: &str, how: &str, t: f64) -> String {
    format!("Left along {label}{how} at t = {t:.4} s.")
}

/// A jump on the timeline from `from` to `to` (`what`: "t =", "the singular event at t ="), as
/// the banner names it: a video shows the run going back.
pub fn jump_said(from: f64, to: f64, what: &str) -> String {
    let way = if to < from { "Back" } else { "On" };
    format!("{way} to {what} {to:.4} s (from t = {from:.4} s).")
}

#[cfg(test)]
mod tests {
    use approx::assert_abs_diff_eq;

    use super::*;
    use crate::model::BodyKind;
    use crate::scene::parse_scene;

    const ROTATING_BAR: &str = r#"Scene(
        title: "bar", gravity: [0.0, 0.0],
        bodies: [Bar(name: "bar", length: 2.0, mass: 1.0, start: (0.0, 0.0), angle: 0.0)],
        joints: [Pin(name: "pin", body: "bar", at: Start, ground: (0.0, 0.0))],
    )"#;

    /// A horizontal bar on a pin under gravity: its one motion (turning about the pin,
    /// column (0, 1, 1)) points along the velocity when it turns, downhill (clockwise, the
    /// centre going down) when it is at rest or creeps at under `AT_REST`, whichever way.
    #[test]
    fn a_motion_points_along_the_velocity_and_downhill_at_rest() {
        let text = ROTATING_BAR.replace("gravity: [0.0, 0.0]", "gravity: [0.0, -9.81]");
        let scene = parse_scene("bar.ron", &text).unwrap();
        let mech = &scene.mechanism;
        let up = DVector::from_vec(vec![0.0, 1.0, 1.0]);
        let sense = |omega: f64| {
            let xd = &up * omega;
            orient_motion(mech, &scene.x0, &xd, &up)[2].signum()
        };
        assert_eq!(sense(1.0), 1.0);
        assert_eq!(sense(-1.0), -1.0);
        for creep in [0.0, 1e-4, -1e-4, 9e-4] {
            assert_eq!(sense(creep), -1.0, "creeping at {creep} rad/s");
        }
    }

    #[test]
    fn bar_end_velocity_is_omega_cross_r() {
        let scene = parse_scene("bar.ron", ROTATING_BAR).unwrap();
        let mech = &scene.mechanism;
        // A pure rotation about the pin at the origin with omega = 1: the centre (1, 0) moves
        // at (0, 1), the far end (2, 0) at (0, 2), the pinned end stays.
        let column = DVector::from_vec(vec![0.0, 1.0, 1.0]);
        let a = arrows(mech, &scene.x0, &column);
        assert_eq!(a.len(), 3);
        let expected = [
            ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
            ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
            ([2.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
        ];
        for (arrow, (origin, velocity)) in a.iter().zip(expected) {
            assert_abs_diff_eq!(arrow.origin.as_slice(), origin.as_slice(), epsilon = 1e-12);
            assert_abs_diff_eq!(
                arrow.velocity.as_slice(),
                velocity.as_slice(),
                epsilon = 1e-12
            );
        }
    }

    /// The velocity of a point of a rigid body, `rd + omega x (p - r)`, is the rate of its
    /// position along the column (central differences).
    #[test]
    fn rigid_point_velocity_is_the_rate_of_its_position() {
        use crate::model::{Attachment, Body, Mechanism};
        let body = Body {
            name: "block".into(),
            kind: BodyKind::Rigid {
                inertia: nalgebra::Matrix3::identity(),
            },
            mass: 1.0,
            offset: 0,
        };
        let mech = Mechanism::new(vec![body], Vec::new(), Vec::new(), [0.0, 0.0, -9.81]);
        let e = nalgebra::Vector4::new(0.8, 0.1, -0.4, 0.2).normalize();
        let x = DVector::from_vec(vec![0.3, -0.2, 0.5, e[0], e[1], e[2], e[3]]);
        // An Euler-parameter rate perpendicular to e (as every column of T has).
        let raw = nalgebra::Vector4::new(0.3, -0.7, 0.2, 0.5);
        let ed: nalgebra::Vector4<f64> = raw - e * raw.dot(&e);
        let column = DVector::from_vec(vec![0.4, 0.1, -0.3, ed[0], ed[1], ed[2], ed[3]]);
        let local = Vector3::new(0.2, -0.1, 0.35);
        let arrows: Vec<MotionArrow> = arrows_at(&mech, &x, &column, &[(0, local)]);
        let arrow = arrows.last().expect("an arrow at the point");
        let at = Attachment {
            body: Some(0),
            local,
        };
        let h = 1e-6;
        let position = |s: f64| mech.spatial_point(&at, &(&x + &column * s));
        let rate = (position(h) - position(-h)) / (2.0 * h);
        assert_abs_diff_eq!(arrow.velocity.as_slice(), rate.as_slice(), epsilon = 1e-6);
    }

    /// The four-bar has three bars (nine arrow points) and two moving hinges shared by two
    /// bars: seven arrows, one per distinct point.
    #[test]
    fn shared_hinges_get_one_arrow() {
        let scene = crate::scene::load_scene(std::path::Path::new("scenes/four_bar.ron")).unwrap();
        let sim = scene.simulation().unwrap();
        let basis = sim.basis(BasisMode::Continued);
        let column = DVector::from_column_slice(basis.columns().column(0).as_slice());
        let a = arrows(&scene.mechanism, sim.positions(), &column);
        assert_eq!(
            body_arrows(&scene.mechanism, sim.positions(), &column).len(),
            9
        );
        assert_eq!(a.len(), 7);
    }
}

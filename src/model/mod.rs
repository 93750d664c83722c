//! The mechanism model: bodies, joints and loads, and everything computed from them at a given
//! state (constraint residuals, Jacobian, its time derivative, `gamma`, forces, energy).
//!
//! Coordinates: a bar owns `(x, y, theta)` of its centre of mass, a
//! point mass `(x, y)` or `(x, y, z)`, a spatial rigid body `(x, y, z, e0, e1, e2, e3)` (see
//! `rigid`); gravity is a vector of the scene's dimension and the potential energy datum is
//! the origin.
//!
//! Where each part is: `body` and `mass` (bodies, the mass matrix), `joint` (the joint
//! kinds and their levels: position, velocity, time), `constraint` (the one interface every
//! joint's rows go through: a joint kind is a list of constraints), `planar` (the projected
//! offset and knife-edge rows), `driver` (the law `d(t)`), `spatial` and `rigid` (the spatial
//! primitives, Euler parameters), `reaction` (joint reactions from multipliers), `load`.
//!
//! A new joint kind goes into `JointKind` (with its rows in `Joint::rows`), builds its list
//! of constraints in `Constraint::of_joint` (a new kind of row is a new `Constraint` with its
//! residual, Jacobian and rate, `gamma` and scale), gets its reaction site in `reaction`, and
//! is read from scene files in `scene::build` (`build/joints.rs`). The canvas draws it through
//! the accessors the model offers for drawing: a planar joint through `Joint::hinge`,
//! `held_point`, `wheel`, `slide`, `ground_anchor` and `distance_link`, a spatial one through
//! its [`SpatialGlyph`]; a body through [`Body::shape`]. A new kind that looks like an
//! existing one (a hinge, a slide, a ball...) answers those and the drawing needs no change.

mod angle;
pub mod body;
mod constraint;
pub mod driver;
pub mod joint;
mod kinematics;
pub mod load;
pub mod mass;
mod planar;
pub mod reaction;
pub mod rigid;
pub mod spatial;

pub use body::{Body, BodyKind, BodyShape};
pub use driver::{DriverLaw, SmoothStep};
pub use joint::{Joint, JointKind, LocalPoint};
pub use load::{Load, LoadKind};
pub use mass::MassMatrix;
pub use spatial::{Attachment, Primitive, SpatialGlyph, SpatialJoint, SpatialKind};

use constraint::Constraint;
use joint::PlanarFrame;
use nalgebra::{DMatrix, DVector, Matrix3, Vector2, Vector3, Vector4};
use spatial::Frames;
use std::ops::Range;

/// A constrained mechanism: the static description the solver integrates.
#[derive(Clone, Debug)]
pub struct Mechanism {
    bodies: Vec<Body>,
    joints: Vec<Joint>,
    loads: Vec<Load>,
    gravity: [f64; 3],
    n: usize,
    m: usize,
    mass: MassMatrix,
    motion_weights: DVector<f64>,
    /// For each constraint row, the joint it belongs to.
    row_owner: Vec<usize>,
    /// Every joint's constraints in row order, and each joint's range of them.
    constraints: Vec<Placed>,
    joint_constraints: Vec<Range<usize>>,
    /// Whether any joint's rows are velocity-level.
    velocity_rows: bool,
    /// Whether a driver's law moves (`A xd = b` with `b` not zero).
    rheonomic: bool,
}

impl Mechanism {
    /// Builds the mechanism, assigning coordinate offsets and constraint rows in order, and
    /// appending one normalisation row per rigid body (joint `BODY.|e|`) after the joints.
    /// Indices inside joints and loads must refer to `bodies` (the scene loader checks names).
    pub fn new(
        mut bodies: Vec<Body>,
        mut joints: Vec<Joint>,
        loads: Vec<Load>,
        gravity: [f64; 3],
    ) -> Self {
        let mut n = 0;
        for body in &mut bodies {
            body.offset = n;
            n += body.dim();
        }
        for (index, body) in bodies.iter().enumerate() {
            if body.is_rigid() {
                joints.push(Joint {
                    name: format!("{}.|e|", body.name),
                    kind: JointKind::Normalization { body: index },
                    row: 0,
                });
            }
        }
        let mut m = 0;
        let mut row_owner = Vec::new();
        for (index, joint) in joints.iter_mut().enumerate() {
            joint.row = m;
            m += joint.rows();
            row_owner.extend(std::iter::repeat_n(index, joint.rows()));
        }
        let (mass, motion_weights) = mass_matrix(&bodies, n);
        let (constraints, joint_constraints) = place_constraints(&joints, &bodies);
        let velocity_rows = constraints.iter().any(|p| p.constraint.is_velocity_level());
        let rheonomic = constraints
            .iter()
            .any(|p| p.constraint.law().is_some_and(DriverLaw::moves));
        Self {
            constraints,
            joint_constraints,
            velocity_rows,
            rheonomic,
            bodies,
            joints,
            loads,
            gravity,
            n,
            m,
            mass,
            motion_weights,
            row_owner,
        }
    }

    /// Number of unconstrained coordinates.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of scalar constraint equations.
    pub fn m(&self) -> usize {
        self.m
    }

    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    pub fn loads(&self) -> &[Load] {
        &self.loads
    }

    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// The mass matrix, with its rotational blocks not yet evaluated (`MassMatrix::update`).
    pub fn mass_matrix(&self) -> &MassMatrix {
        &self.mass
    }

    /// A constant kinetic energy per unit speed along each coordinate (times two), which
    /// orders new admissible motions: the mass diagonal (`m, m, J` per bar, `m` per
    /// translation), and for Euler parameters `4 tr(J') / 3`, the mean of `4 G^T J' G` over
    /// the directions perpendicular to `e`.
    pub fn motion_weights(&self) -> &DVector<f64> {
        &self.motion_weights
    }

    /// Joint owning constraint row `row`.
    pub fn joint_of_row(&self, row: usize) -> &Joint {
        &self.joints[self.row_owner[row]]
    }

    /// Index of a body by name.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// The body owning coordinate `index`.
    pub fn body_of_coordinate(&self, index: usize) -> Option<&Body> {
        self.bodies
            .iter()
            .find(|b| (b.offset..b.offset + b.dim()).contains(&index))
    }

    /// The name of the first body with a NaN or infinite entry in `v` (a vector over the
    /// coordinates), if any.
    pub fn non_finite_body(&self, v: &DVector<f64>) -> Option<String> {
        let index = v.iter().position(|value| !value.is_finite())?;
        self.body_of_coordinate(index).map(|b| b.name.clone())
    }

    /// Whether the scene lives in 3D (point masses with three coordinates, rigid bodies).
    pub fn is_spatial(&self) -> bool {
        self.bodies.iter().any(Body::is_spatial)
    }

    /// Whether any body is a spatial rigid body.
    pub fn has_rigid_bodies(&self) -> bool {
        self.bodies.iter().any(Body::is_rigid)
    }

    fn frames(&self) -> Frames<'_> {
        Frames {
            bodies: &self.bodies,
        }
    }

    fn frame(&self, body: usize) -> PlanarFrame {
        let b = &self.bodies[body];
        PlanarFrame {
            offset: b.offset,
            rotates: b.has_angle(),
        }
    }

    /// Whether some rows are velocity-level (knife edges).
    pub fn has_velocity_rows(&self) -> bool {
        self.velocity_rows
    }

    /// Zeroes the velocity-level rows of a Jacobian, leaving the position-level ones that
    /// Newton's correction and assembly use.
    pub fn clear_velocity_rows(&self, a: &mut DMatrix<f64>) {
        if !self.velocity_rows {
            return;
        }
        for placed in self
            .constraints
            .iter()
            .filter(|p| p.constraint.is_velocity_level())
        {
            a.rows_mut(placed.row, placed.constraint.rows()).fill(0.0);
        }
    }

    /// The rows that define the configuration set `{x : c(x) = 0}`: the position-level rows
    /// that do not depend on time (not a knife edge's velocity-level rows, not a driver's).
    pub fn configuration_rows(&self) -> Vec<usize> {
        self.constraints
            .iter()
            .filter(|p| !p.constraint.is_velocity_level() && p.constraint.law().is_none())
            .flat_map(|p| p.row..p.row + p.constraint.rows())
            .collect()
    }

    /// Whether some constraint depends on time (a driver whose law moves).
    pub fn is_rheonomic(&self) -> bool {
        self.rheonomic
    }

    /// The velocity-level right-hand side `b` with `A xd = b` (length m): `d'(t)` on driver
    /// rows, zero elsewhere.
    pub fn velocity_rhs(&self, t: f64, b: &mut DVector<f64>) {
        b.fill(0.0);
        for placed in &self.constraints {
            if let Some(law) = placed.constraint.law() {
                b[placed.row] = law.at(t)[1];
            }
        }
    }

    /// The power the drivers put into the mechanism at time `t` with multipliers `lambda`
    /// (`M xdd + A^T lambda = f`): the constraint forces' power is `-lambda . (A xd)`, and
    /// `A xd` is `d'(t)` on driver rows and zero on all others.
    pub fn driver_power(&self, t: f64, lambda: &DVector<f64>) -> f64 {
        self.constraints
            .iter()
            .filter_map(|p| Some(-lambda[p.row] * p.constraint.law()?.at(t)[1]))
            .sum()
    }

    /// Constraint residuals `c(x, t)` into `c` (length m); zero on velocity-level rows.
    pub fn residual(&self, t: f64, x: &DVector<f64>, c: &mut DVector<f64>) {
        let frames = self.frames();
        for placed in &self.constraints {
            placed.constraint.residual(&frames, t, x, placed.row, c);
        }
    }

    /// Constraint Jacobian `A = dc/dx` into `a` (m x n; overwritten).
    pub fn jacobian(&self, x: &DVector<f64>, a: &mut DMatrix<f64>) {
        self.jacobian_or_rate(x, None, a);
    }

    /// Time derivative of the Jacobian along `xd`, `dA/dt`, into `adot` (m x n; overwritten).
    pub fn jacobian_dot(&self, x: &DVector<f64>, xd: &DVector<f64>, adot: &mut DMatrix<f64>) {
        self.jacobian_or_rate(x, Some(xd), adot);
    }

    fn jacobian_or_rate(
        &self,
        x: &DVector<f64>,
        rate: Option<&DVector<f64>>,
        a: &mut DMatrix<f64>,
    ) {
        // A slice fill is one memset; the matrix's own fill goes entry by entry.
        a.as_mut_slice().fill(0.0);
        let frames = self.frames();
        for placed in &self.constraints {
            placed.constraint.jacobian(&frames, x, rate, placed.row, a);
        }
    }

    /// Acceleration-level right-hand side `gamma = -(dA/dt) xd` (plus `d''(t)` on driver rows)
    /// into `gamma` (length m), so that `A xdd = gamma` on the constraint manifold.
    pub fn gamma(&self, t: f64, x: &DVector<f64>, xd: &DVector<f64>, gamma: &mut DVector<f64>) {
        let frames = self.frames();
        for placed in &self.constraints {
            placed
                .constraint
                .gamma(&frames, t, x, xd, placed.row, gamma);
        }
    }

    /// Generalized forces at time `t` and state `(x, xd)` into `f` (length n; overwritten):
    /// gravity, the scene's active loads plus `extra` loads, and the rigid bodies' quadratic
    /// velocity forces.
    pub fn forces(
        &self,
        t: f64,
        x: &DVector<f64>,
        xd: &DVector<f64>,
        extra: &[Load],
        f: &mut DVector<f64>,
    ) {
        f.fill(0.0);
        for body in &self.bodies {
            if let BodyKind::Rigid { inertia } = &body.kind {
                let o = body.offset + 3;
                let (e, ed) = (
                    self.euler_parameters_at(o, x),
                    self.euler_parameters_at(o, xd),
                );
                let force = rigid::quadratic_velocity_force(&e, &ed, inertia);
                f.fixed_rows_mut::<4>(o).copy_from(&force);
            }
        }
        for body in &self.bodies {
            for k in 0..body.translational_dim() {
                f[body.offset + k] += body.mass * self.gravity[k];
            }
        }
        for load in self.loads.iter().chain(extra) {
            if !load.active(t) {
                continue;
            }
            let body = &self.bodies[load.body];
            match load.kind {
                LoadKind::Force(force) => {
                    for (k, component) in force.iter().enumerate().take(body.translational_dim()) {
                        f[body.offset + k] += component;
                    }
                }
                LoadKind::Torque(torque) => {
                    if body.has_angle() {
                        f[body.offset + 2] += torque;
                    }
                }
                LoadKind::SpatialTorque(torque) => {
                    if body.is_rigid() {
                        // Virtual work tau . (2 E de): the generalised force is 2 E^T tau.
                        let o = body.offset + 3;
                        let e = self.euler_parameters_at(o, x);
                        let q = rigid::e_matrix(&e).transpose() * Vector3::from(torque) * 2.0;
                        let mut target = f.fixed_rows_mut::<4>(o);
                        target += q;
                    }
                }
            }
        }
    }

    /// The size of the numbers the constraint residuals are computed from at `x`: per joint,
    /// its bodies' positions, its points' offsets (times one plus the bar's angle, whose
    /// round-off moves the point by `|angle| |offset| eps`) and its ground point; for a
    /// distance row (in m^2, `|r - anchor|^2 - length^2`), the largest of position, anchor and
    /// length times the length (the difference `r - anchor` carries the round-off of the
    /// larger, and is squared at about the length). Round-off in `c(x)` is a few
    /// `f64::EPSILON` times this, so Newton cannot bring a residual much below it
    /// (`Settings::validate` bounds the tolerances by it). 0 without joints.
    pub fn residual_scale(&self, x: &DVector<f64>) -> f64 {
        (0..self.joints.len())
            .map(|joint| self.joint_residual_scale(joint, x))
            .fold(0.0, f64::max)
    }

    /// The joint whose residual is computed from the largest numbers at `x` (see
    /// [`residual_scale`](Self::residual_scale)).
    pub fn largest_residual_joint(&self, x: &DVector<f64>) -> Option<usize> {
        let scales = (0..self.joints.len()).map(|j| self.joint_residual_scale(j, x));
        scales
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(index, _)| index)
    }

    fn joint_residual_scale(&self, joint: usize, x: &DVector<f64>) -> f64 {
        let frames = self.frames();
        self.constraints[self.joint_constraints[joint].clone()]
            .iter()
            .map(|placed| placed.constraint.residual_scale(&frames, x))
            .fold(0.0, f64::max)
    }

    /// Kinetic energy `xd^T M(x) xd / 2`, in J.
    pub fn kinetic_energy(&self, x: &DVector<f64>, xd: &DVector<f64>) -> f64 {
        let diagonal = self.mass.diagonal();
        let translational: f64 = (0..self.n).map(|i| 0.5 * diagonal[i] * xd[i] * xd[i]).sum();
        if self.mass.is_diagonal() {
            return translational;
        }
        let rotational: f64 = self
            .bodies
            .iter()
            .filter_map(|body| match &body.kind {
                BodyKind::Rigid { inertia } => {
                    let o = body.offset + 3;
                    let (e, ed) = (
                        self.euler_parameters_at(o, x),
                        self.euler_parameters_at(o, xd),
                    );
                    Some(rigid::rotational_energy(&e, &ed, inertia))
                }
                _ => None,
            })
            .sum();
        translational + rotational
    }

    /// Kinetic energy plus gravitational potential energy (datum at the origin), in J.
    pub fn energy(&self, x: &DVector<f64>, xd: &DVector<f64>) -> f64 {
        let kinetic = self.kinetic_energy(x, xd);
        let mut potential = 0.0;
        for body in &self.bodies {
            for k in 0..body.translational_dim() {
                potential -= body.mass * self.gravity[k] * x[body.offset + k];
            }
        }
        kinetic + potential
    }

    /// World position of a point on a planar body (bars and 2D points).
    pub fn planar_point(&self, body: usize, point: &LocalPoint, x: &DVector<f64>) -> Vector2<f64> {
        self.frame(body).point(x, point)
    }

    /// The torque (global axes) that gives rigid body `body` the angular acceleration of
    /// `acceleration` times the motion `column` at `x`: `A J' (2 G column_e) acceleration`, whose
    /// generalised force is `M_e column_e acceleration`. `None` for other bodies.
    pub fn push_torque(
        &self,
        body: usize,
        x: &DVector<f64>,
        column: &DVector<f64>,
        acceleration: f64,
    ) -> Option<[f64; 3]> {
        let BodyKind::Rigid { inertia } = &self.bodies[body].kind else {
            return None;
        };
        let e = self.euler_parameters(body, x);
        let rate = rigid::body_angular_velocity(&e, &self.euler_parameters(body, column));
        let torque = rigid::rotation_matrix(&e) * (inertia * rate) * acceleration;
        Some([torque.x, torque.y, torque.z])
    }

    /// The Euler parameters of rigid body `body` in `v` (positions, or their rates in `xd`).
    pub fn euler_parameters(&self, body: usize, v: &DVector<f64>) -> Vector4<f64> {
        self.euler_parameters_at(self.bodies[body].offset + 3, v)
    }

    fn euler_parameters_at(&self, offset: usize, v: &DVector<f64>) -> Vector4<f64> {
        Vector4::new(v[offset], v[offset + 1], v[offset + 2], v[offset + 3])
    }

    /// Centre of mass and rotation matrix (body axes as columns) of rigid body `body` at `x`.
    pub fn rigid_pose(&self, body: usize, x: &DVector<f64>) -> (Vector3<f64>, Matrix3<f64>) {
        let o = self.bodies[body].offset;
        let r = Vector3::new(x[o], x[o + 1], x[o + 2]);
        (r, rigid::rotation_matrix(&self.euler_parameters(body, x)))
    }

    /// Global position of a point fixed in any body or the ground, in its body axes from its
    /// centre of mass (a planar body's in its plane, `z` ignored; z = 0 in the result).
    pub fn spatial_point(&self, at: &Attachment, x: &DVector<f64>) -> Vector3<f64> {
        match at.body {
            // The spatial kernels read three translational coordinates: a planar body's
            // point goes through its own frame instead.
            Some(body) if !self.bodies[body].is_spatial() => {
                let p = self.planar_point(body, &at.local.xy(), x);
                Vector3::new(p.x, p.y, 0.0)
            }
            _ => self.frames().position(at, true, x),
        }
    }

    /// Global position of a point fixed in body `body` (see [`spatial_point`](Self::spatial_point)).
    pub fn point_of_body(
        &self,
        body: usize,
        local: &Vector3<f64>,
        x: &DVector<f64>,
    ) -> Vector3<f64> {
        let at = Attachment {
            body: Some(body),
            local: *local,
        };
        self.spatial_point(&at, x)
    }

    /// Global direction of a vector fixed in a rigid body or the ground.
    pub fn spatial_vector(&self, at: &Attachment, x: &DVector<f64>) -> Vector3<f64> {
        self.frames().position(at, false, x)
    }

    /// The body's velocity components as the CSV columns name them (`velocity_names`): the
    /// coordinate rates, except a rigid body's angular velocity in global axes for `ed`.
    pub fn body_velocity(&self, body: usize, x: &DVector<f64>, xd: &DVector<f64>, out: &mut [f64]) {
        let b = &self.bodies[body];
        if b.is_rigid() {
            let o = b.offset;
            let omega = rigid::global_angular_velocity(
                &self.euler_parameters(body, x),
                &self.euler_parameters(body, xd),
            );
            out[..3].copy_from_slice(&[xd[o], xd[o + 1], xd[o + 2]]);
            out[3..6].copy_from_slice(omega.as_slice());
        } else {
            out[..b.dim()].copy_from_slice(&xd.as_slice()[b.offset..b.offset + b.dim()]);
        }
    }

    /// Velocity coordinates in which stated velocities are completed: `xd` itself, except a
    /// rigid body's `ed` is written `(lambda, omega)` with `ed = lambda e + E(e)^T omega / 2`
    /// (`omega` the angular velocity in global axes; `lambda` 0 on the manifold). Columns of
    /// `a` (a Jacobian at `x`) are brought to these coordinates: `a <- a W`.
    pub fn jacobian_in_velocity_coordinates(&self, x: &DVector<f64>, a: &mut DMatrix<f64>) {
        for (index, body) in self.bodies.iter().enumerate().filter(|(_, b)| b.is_rigid()) {
            let w = velocity_coordinates(&self.euler_parameters(index, x));
            let o = body.offset + 3;
            let block = a.columns(o, 4) * w;
            a.columns_mut(o, 4).copy_from(&block);
        }
    }

    /// `xd <- W v`: velocities from the velocity coordinates of
    /// [`jacobian_in_velocity_coordinates`](Self::jacobian_in_velocity_coordinates).
    pub fn from_velocity_coordinates(&self, x: &DVector<f64>, v: &mut DVector<f64>) {
        for (index, body) in self.bodies.iter().enumerate().filter(|(_, b)| b.is_rigid()) {
            let w = velocity_coordinates(&self.euler_parameters(index, x));
            let o = body.offset + 3;
            let ed = w * v.fixed_rows::<4>(o);
            v.fixed_rows_mut::<4>(o).copy_from(&ed);
        }
    }
}

/// `W = [e, E(e)^T / 2]` at unit `e` (normalised here): `ed = W (lambda, omega)`.
/// A constraint and its first row.
#[derive(Clone, Debug)]
struct Placed {
    row: usize,
    constraint: Constraint,
}

/// Every joint's constraints with their rows (from the joint's first row on), and the range
/// of them each joint owns.
fn place_constraints(joints: &[Joint], bodies: &[Body]) -> (Vec<Placed>, Vec<Range<usize>>) {
    let mut placed = Vec::new();
    let mut ranges = Vec::with_capacity(joints.len());
    for joint in joints {
        let start = placed.len();
        let mut row = joint.row;
        for constraint in Constraint::of_joint(&joint.kind, bodies) {
            let rows = constraint.rows();
            placed.push(Placed { row, constraint });
            row += rows;
        }
        debug_assert_eq!(row, joint.row + joint.rows(), "joint {}", joint.name);
        ranges.push(start..placed.len());
    }
    (placed, ranges)
}

fn velocity_coordinates(e: &Vector4<f64>) -> nalgebra::Matrix4<f64> {
    let unit = e.normalize();
    let mut w = nalgebra::Matrix4::zeros();
    w.set_column(0, &unit);
    w.fixed_columns_mut::<3>(1)
        .copy_from(&(rigid::e_matrix(&unit).transpose() * 0.5));
    w
}

/// The mass matrix of `bodies` (n coordinates) and the motion weights (see
/// `Mechanism::motion_weights`).
fn mass_matrix(bodies: &[Body], n: usize) -> (MassMatrix, DVector<f64>) {
    let mut diagonal = DVector::zeros(n);
    let mut weights = DVector::zeros(n);
    let mut rotations = Vec::new();
    for body in bodies {
        for k in 0..body.dim() {
            diagonal[body.offset + k] = body.mass;
        }
        if body.has_angle() {
            diagonal[body.offset + 2] = body.inertia();
        }
        weights
            .rows_mut(body.offset, body.dim())
            .copy_from(&diagonal.rows(body.offset, body.dim()));
        if let BodyKind::Rigid { inertia } = &body.kind {
            let o = body.offset + 3;
            diagonal.rows_mut(o, 4).fill(0.0);
            weights.rows_mut(o, 4).fill(4.0 * inertia.trace() / 3.0);
            rotations.push((o, *inertia));
        }
    }
    let mut mass = MassMatrix::diagonal_only(diagonal);
    for (offset, inertia) in rotations {
        mass.add_rotation(offset, inertia);
    }
    (mass, weights)
}

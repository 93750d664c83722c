//! The mechanism model: bodies, joints and loads, and everything computed from them at a given
//! state (constraint residuals, Jacobian, its time derivative, `gamma`, forces, energy).
//!
//! Coordinates: a bar owns `(x, y, theta)` of its centre of mass, a
//! point mass `(x, y)` or `(x, y, z)`; gravity is a vector of the scene's dimension and the
//! potential energy datum is the origin.

pub mod body;
pub mod joint;
pub mod load;

pub use body::{Body, BodyKind};
pub use joint::{Joint, JointKind, LocalPoint};
pub use load::{Load, LoadKind};

use joint::PlanarFrame;
use nalgebra::{DMatrix, DVector, Vector2};

/// A constrained mechanism: the static description the solver integrates.
#[derive(Clone, Debug)]
pub struct Mechanism {
    bodies: Vec<Body>,
    joints: Vec<Joint>,
    loads: Vec<Load>,
    gravity: [f64; 3],
    n: usize,
    m: usize,
    mass_diagonal: DVector<f64>,
    /// For each constraint row, the joint it belongs to.
    row_owner: Vec<usize>,
}

impl Mechanism {
    /// Builds the mechanism, assigning coordinate offsets and constraint rows in order.
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
        let mut m = 0;
        let mut row_owner = Vec::new();
        for (index, joint) in joints.iter_mut().enumerate() {
            joint.row = m;
            m += joint.rows();
            row_owner.extend(std::iter::repeat_n(index, joint.rows()));
        }
        let mut mass_diagonal = DVector::zeros(n);
        for body in &bodies {
            for k in 0..body.dim() {
                mass_diagonal[body.offset + k] = body.mass;
            }
            if body.is_bar() {
                mass_diagonal[body.offset + 2] = body.inertia();
            }
        }
        Self {
            bodies,
            joints,
            loads,
            gravity,
            n,
            m,
            mass_diagonal,
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

    /// Diagonal of the mass matrix `M` (`m, m, J` per bar, `m` per point component).
    pub fn mass_diagonal(&self) -> &DVector<f64> {
        &self.mass_diagonal
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

    /// Whether the scene lives in 3D (point masses with three coordinates).
    pub fn is_spatial(&self) -> bool {
        self.bodies
            .iter()
            .any(|b| matches!(b.kind, BodyKind::Point3))
    }

    fn frame(&self, body: usize) -> PlanarFrame {
        let b = &self.bodies[body];
        PlanarFrame {
            offset: b.offset,
            rotates: b.is_bar(),
        }
    }

    /// Constraint residuals `c(x)` into `c` (length m).
    pub fn residual(&self, x: &DVector<f64>, c: &mut DVector<f64>) {
        for joint in &self.joints {
            let row = joint.row;
            match &joint.kind {
                JointKind::Revolute {
                    a,
                    point_a,
                    b,
                    point_b,
                } => {
                    let d = self.frame(*a).point(x, point_a) - self.frame(*b).point(x, point_b);
                    c[row] = d.x;
                    c[row + 1] = d.y;
                }
                JointKind::Pin {
                    body,
                    point,
                    ground,
                } => {
                    let d = self.frame(*body).point(x, point) - ground;
                    c[row] = d.x;
                    c[row + 1] = d.y;
                }
                JointKind::Distance {
                    body,
                    anchor,
                    length,
                } => {
                    let b = &self.bodies[*body];
                    let mut sq = 0.0;
                    for k in 0..b.dim() {
                        let d = x[b.offset + k] - anchor[k];
                        sq += d * d;
                    }
                    c[row] = sq - length * length;
                }
            }
        }
    }

    /// Constraint Jacobian `A = dc/dx` into `a` (m x n; overwritten).
    pub fn jacobian(&self, x: &DVector<f64>, a: &mut DMatrix<f64>) {
        a.fill(0.0);
        for joint in &self.joints {
            let row = joint.row;
            match &joint.kind {
                JointKind::Revolute {
                    a: body_a,
                    point_a,
                    b: body_b,
                    point_b,
                } => {
                    self.frame(*body_a).add_jacobian(x, point_a, 1.0, row, a);
                    self.frame(*body_b).add_jacobian(x, point_b, -1.0, row, a);
                }
                JointKind::Pin { body, point, .. } => {
                    self.frame(*body).add_jacobian(x, point, 1.0, row, a);
                }
                JointKind::Distance { body, anchor, .. } => {
                    let b = &self.bodies[*body];
                    for k in 0..b.dim() {
                        a[(row, b.offset + k)] = 2.0 * (x[b.offset + k] - anchor[k]);
                    }
                }
            }
        }
    }

    /// Time derivative of the Jacobian along `xd`, `dA/dt`, into `adot` (m x n; overwritten).
    pub fn jacobian_dot(&self, x: &DVector<f64>, xd: &DVector<f64>, adot: &mut DMatrix<f64>) {
        adot.fill(0.0);
        for joint in &self.joints {
            let row = joint.row;
            match &joint.kind {
                JointKind::Revolute {
                    a,
                    point_a,
                    b,
                    point_b,
                } => {
                    self.frame(*a)
                        .add_jacobian_dot(x, xd, point_a, 1.0, row, adot);
                    self.frame(*b)
                        .add_jacobian_dot(x, xd, point_b, -1.0, row, adot);
                }
                JointKind::Pin { body, point, .. } => {
                    self.frame(*body)
                        .add_jacobian_dot(x, xd, point, 1.0, row, adot);
                }
                JointKind::Distance { body, .. } => {
                    let b = &self.bodies[*body];
                    for k in 0..b.dim() {
                        adot[(row, b.offset + k)] = 2.0 * xd[b.offset + k];
                    }
                }
            }
        }
    }

    /// Acceleration-level right-hand side `gamma = -(dA/dt) xd` into `gamma` (length m), so that
    /// `A xdd = gamma` on the constraint manifold.
    pub fn gamma(&self, x: &DVector<f64>, xd: &DVector<f64>, gamma: &mut DVector<f64>) {
        for joint in &self.joints {
            let row = joint.row;
            match &joint.kind {
                JointKind::Revolute {
                    a,
                    point_a,
                    b,
                    point_b,
                } => {
                    let g = self.frame(*a).centripetal(x, xd, point_a)
                        - self.frame(*b).centripetal(x, xd, point_b);
                    gamma[row] = g.x;
                    gamma[row + 1] = g.y;
                }
                JointKind::Pin { body, point, .. } => {
                    let g = self.frame(*body).centripetal(x, xd, point);
                    gamma[row] = g.x;
                    gamma[row + 1] = g.y;
                }
                JointKind::Distance { body, .. } => {
                    let b = &self.bodies[*body];
                    let mut sq = 0.0;
                    for k in 0..b.dim() {
                        sq += xd[b.offset + k] * xd[b.offset + k];
                    }
                    gamma[row] = -2.0 * sq;
                }
            }
        }
    }

    /// Generalized applied forces at time `t` (gravity and the scene's active loads, plus
    /// `extra` loads) into `f` (length n; overwritten).
    pub fn forces(&self, t: f64, extra: &[Load], f: &mut DVector<f64>) {
        f.fill(0.0);
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
                    if body.is_bar() {
                        f[body.offset + 2] += torque;
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
        self.joints
            .iter()
            .map(|joint| self.joint_residual_scale(joint, x))
            .fold(0.0, f64::max)
    }

    /// The joint whose residual is computed from the largest numbers at `x` (see
    /// [`residual_scale`](Self::residual_scale)).
    pub fn largest_residual_joint(&self, x: &DVector<f64>) -> Option<usize> {
        let scales = self.joints.iter().map(|j| self.joint_residual_scale(j, x));
        scales
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(index, _)| index)
    }

    fn joint_residual_scale(&self, joint: &Joint, x: &DVector<f64>) -> f64 {
        let point_scale = |body: usize, point: &LocalPoint| {
            let b = &self.bodies[body];
            let position = x[b.offset].abs().max(x[b.offset + 1].abs());
            let angle = if b.is_bar() {
                x[b.offset + 2].abs()
            } else {
                0.0
            };
            position.max(point.amax() * (1.0 + angle))
        };
        match &joint.kind {
            JointKind::Revolute {
                a,
                point_a,
                b,
                point_b,
            } => point_scale(*a, point_a).max(point_scale(*b, point_b)),
            JointKind::Pin {
                body,
                point,
                ground,
            } => point_scale(*body, point).max(ground.amax()),
            JointKind::Distance {
                body,
                anchor,
                length,
            } => {
                let b = &self.bodies[*body];
                let reach = (0..b.dim())
                    .map(|k| x[b.offset + k].abs().max(anchor[k].abs()))
                    .fold(length.abs(), f64::max);
                reach * length.abs()
            }
        }
    }

    /// Kinetic energy `xd^T M xd / 2`, in J.
    pub fn kinetic_energy(&self, xd: &DVector<f64>) -> f64 {
        (0..self.n)
            .map(|i| 0.5 * self.mass_diagonal[i] * xd[i] * xd[i])
            .sum()
    }

    /// Kinetic energy plus gravitational potential energy (datum at the origin), in J.
    pub fn energy(&self, x: &DVector<f64>, xd: &DVector<f64>) -> f64 {
        let kinetic = self.kinetic_energy(xd);
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
}

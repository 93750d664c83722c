//! The planar joints beyond the revolute ones (Wojtyra and Frączek 2013, eqs. 30-31 and
//! 42-47), written with two kinds of row:
//! - the projected offset `g = (Q - P) . (R_b u)`: the distance from point `P` (fixed in body
//!   `a`) to point `Q` (fixed in body `b`) measured along direction `u` fixed in `b`. A
//!   prismatic joint keeps it zero across the axis and the relative angle constant; a driver
//!   prescribes it along the axis, `g - d(t) = 0`;
//! - a point on a fixed line (a slider on a ground guide), `g = (P - O) . n` with `O` on the
//!   line and `n` across it: `dg/dr = n`, `dg/dtheta = n . perp(rho)`, and the rate of the
//!   angle entry `-n . rho theta'` (`perp(perp(v)) = -v`), so `gamma = n . rho theta'^2`;
//! - the knife edge, a velocity-level (Pfaffian) row: the velocity of a body point across the
//!   edge's direction is zero, `(R n) . (r' + perp(R s) theta') = 0`.
//!
//! Each row gives its Jacobian entries (at most six: `x, y, theta` of two bodies) and their
//! rate along the velocity, from which `gamma = -(dA/dt) xd` follows; with
//! `rho = R s`, `w = R u`, `delta = Q - P` and `perp(v) = (-v_y, v_x)`:
//! `dg/dr_a = -w`, `dg/dtheta_a = -w . perp(rho_a)`, `dg/dr_b = w`,
//! `dg/dtheta_b = w . perp(rho_b) + delta . perp(w)`.

use nalgebra::{DVector, Vector2};

use super::joint::{LocalPoint, PlanarFrame, perp, rotate};

/// Jacobian entries of one row: `(coordinate, value)`, `len` of them used.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowEntries {
    pub entries: [(usize, f64); 6],
    pub len: usize,
}

impl RowEntries {
    fn new() -> Self {
        Self {
            entries: [(0, 0.0); 6],
            len: 0,
        }
    }

    fn push(&mut self, column: usize, value: f64) {
        self.entries[self.len] = (column, value);
        self.len += 1;
    }

    pub fn iter(&self) -> impl Iterator<Item = &(usize, f64)> {
        self.entries[..self.len].iter()
    }

    /// `sum value * v[column]`.
    pub fn dot(&self, v: &DVector<f64>) -> f64 {
        self.iter().map(|&(column, value)| value * v[column]).sum()
    }
}

/// A point fixed in a planar body with an angle (`offset` its first coordinate).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyPoint {
    pub offset: usize,
    pub local: LocalPoint,
}

impl BodyPoint {
    fn angle(&self, v: &DVector<f64>) -> f64 {
        v[self.offset + 2]
    }

    fn origin(&self, v: &DVector<f64>) -> Vector2<f64> {
        Vector2::new(v[self.offset], v[self.offset + 1])
    }

    /// The rotated offset `R s` at `x`.
    fn arm(&self, x: &DVector<f64>) -> Vector2<f64> {
        rotate(self.angle(x), &self.local)
    }

    /// The largest magnitude the point's position is computed from (`PlanarFrame::point_scale`).
    pub fn scale(&self, x: &DVector<f64>) -> f64 {
        let frame = PlanarFrame {
            offset: self.offset,
            rotates: true,
        };
        frame.point_scale(x, &self.local)
    }

    pub fn position(&self, x: &DVector<f64>) -> Vector2<f64> {
        self.origin(x) + self.arm(x)
    }

    fn velocity(&self, x: &DVector<f64>, xd: &DVector<f64>) -> Vector2<f64> {
        self.origin(xd) + perp(&self.arm(x)) * self.angle(xd)
    }
}

/// `g = (Q - P) . (R_b u)`, with `P` on body `a`, `Q` and `u` on body `b`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ProjectedOffset {
    pub p: BodyPoint,
    pub q: BodyPoint,
    pub direction: Vector2<f64>,
}

impl ProjectedOffset {
    pub fn value(&self, x: &DVector<f64>) -> f64 {
        let w = rotate(self.q.angle(x), &self.direction);
        (self.q.position(x) - self.p.position(x)).dot(&w)
    }

    /// The Jacobian entries at `x`, or their rate along `xd` when given.
    pub fn entries(&self, x: &DVector<f64>, rate: Option<&DVector<f64>>) -> RowEntries {
        let (a, b) = (self.p.offset, self.q.offset);
        let w = rotate(self.q.angle(x), &self.direction);
        let (rho_a, rho_b) = (self.p.arm(x), self.q.arm(x));
        let delta = self.q.position(x) - self.p.position(x);
        let mut row = RowEntries::new();
        let (r_a, angle_a, r_b, angle_b) = match rate {
            None => (
                -w,
                -w.dot(&perp(&rho_a)),
                w,
                w.dot(&perp(&rho_b)) + delta.dot(&perp(&w)),
            ),
            Some(xd) => {
                let (omega_a, omega_b) = (self.p.angle(xd), self.q.angle(xd));
                let w_rate = perp(&w) * omega_b;
                let delta_rate = self.q.velocity(x, xd) - self.p.velocity(x, xd);
                (
                    -w_rate,
                    -(w_rate.dot(&perp(&rho_a)) - w.dot(&rho_a) * omega_a),
                    w_rate,
                    w_rate.dot(&perp(&rho_b)) - w.dot(&rho_b) * omega_b + delta_rate.dot(&perp(&w))
                        - delta.dot(&w) * omega_b,
                )
            }
        };
        row.push(a, r_a.x);
        row.push(a + 1, r_a.y);
        row.push(a + 2, angle_a);
        row.push(b, r_b.x);
        row.push(b + 1, r_b.y);
        row.push(b + 2, angle_b);
        row
    }
}

/// `g = (P - O) . n`: point `P` of a body stays on the fixed line through `O` across `n`
/// (a unit vector in the world).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroundLineRow {
    pub point: BodyPoint,
    pub origin: Vector2<f64>,
    pub normal: Vector2<f64>,
}

impl GroundLineRow {
    pub fn value(&self, x: &DVector<f64>) -> f64 {
        (self.point.position(x) - self.origin).dot(&self.normal)
    }

    /// The row `[n^T, n . perp(rho)]` at `x`, or its rate `[0, 0, -n . rho theta']`.
    pub fn entries(&self, x: &DVector<f64>, rate: Option<&DVector<f64>>) -> RowEntries {
        let o = self.point.offset;
        let rho = self.point.arm(x);
        let mut row = RowEntries::new();
        match rate {
            None => {
                row.push(o, self.normal.x);
                row.push(o + 1, self.normal.y);
                row.push(o + 2, self.normal.dot(&perp(&rho)));
            }
            Some(xd) => row.push(o + 2, -self.normal.dot(&rho) * self.point.angle(xd)),
        }
        row
    }
}

/// `theta_a - theta_b - angle`: the Jacobian is constant, so `gamma` is zero.
pub(crate) fn relative_angle_entries(a: usize, b: usize) -> RowEntries {
    let mut row = RowEntries::new();
    row.push(a + 2, 1.0);
    row.push(b + 2, -1.0);
    row
}

/// The knife edge's velocity-level row `(R n) . (r' + perp(R s) theta') = 0` at a body point
/// (Wojtyra and Frączek 2013, eq. 30), `normal` in body axes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KnifeEdgeRow {
    pub point: BodyPoint,
    pub normal: Vector2<f64>,
}

impl KnifeEdgeRow {
    /// The row `[(R n)^T, n . perp(s)]` at `x`, or its rate `[(perp(R n) theta')^T, 0]`.
    pub fn entries(&self, x: &DVector<f64>, rate: Option<&DVector<f64>>) -> RowEntries {
        let o = self.point.offset;
        let w = rotate(self.point.angle(x), &self.normal);
        let mut row = RowEntries::new();
        match rate {
            None => {
                row.push(o, w.x);
                row.push(o + 1, w.y);
                row.push(o + 2, self.normal.dot(&perp(&self.point.local)));
            }
            Some(xd) => {
                let w_rate = perp(&w) * self.point.angle(xd);
                row.push(o, w_rate.x);
                row.push(o + 1, w_rate.y);
            }
        }
        row
    }
}

//! Singulab: minimal-coordinate-set dynamics of constrained mechanisms (planar linkages,
//! pendulums, spatial rigid bodies, knife edges and drivers), with QR projection continuation
//! of the tangent basis and singular-configuration events.
//!
//! # Modules
//!
//! The library is Bevy-free:
//! - [`linalg`]: dense kernels over nalgebra storage that run in preallocated workspaces: the
//!   pivoted QR everything is built on ([`linalg::pivoted_qr`]), a Jacobi eigen-decomposition
//!   and a Cholesky solve;
//! - [`model`]: bodies, joints and loads, and what is computed from them at a state
//!   (constraints `c(x)`, Jacobian `A`, `dA/dt`, `gamma`, forces, energy, where a body's
//!   points are and how fast they move). Every joint is a list of constraints behind one
//!   interface; a new joint kind goes where the [`model`] docs say;
//! - [`scene`]: RON scene files, their located errors, the assembly of the initial state;
//! - [`solver`]: the [`Simulation`](solver::Simulation) value and its step;
//! - [`live`]: the simulation run in real time, the plotted history, motion arrows and cameras
//!   that the visualizer wraps, tested without a window;
//! - [`lesson`]: lesson scripts (RON): loading them with located errors, playing them on a
//!   live session deterministically, recording a session as one;
//! - [`cli`]: `singulab run`, `singulab bench` ([`cli::bench`] also lists the shipped scenes
//!   and their measurements) and the arguments of `singulab view`.
//!
//! The visualizer (module `app`: Bevy, bevy_egui, egui_plot) is built with the default `app`
//! feature; `--no-default-features` leaves it out, also from `cargo doc` and `cargo test`.
//!
//! The integration tests are grouped by what they exercise: `tests/solver` (the physics
//! against independent references), `tests/session` (the interactive session, lessons,
//! the timeline), `tests/cli` (the command line as a user runs it), `tests/app` (the window,
//! every view toggle on every scene), `tests/alloc` (no allocation per step) and `tests/fuzz`
//! (malformed scene files).
//!
//! # How it works
//!
//! A mechanism has `n` coordinates `x` (per bar or plate the centre of mass and the angle, per
//! point mass its position, per rigid body its centre of mass and Euler parameters) and `m`
//! constraint rows with Jacobian `A`: holonomic `c(x, t) = 0` with `A = dc/dx` (a driver's
//! depends on time), or velocity-level `A(x) xd = 0` (a knife edge's). Each
//! [`step`](solver::Simulation::step):
//!
//! 1. integrates `(x, xd)` with RK4 (fixed step, the default) or Dopri5 (Dormand and Prince
//!    1980), projecting every stage onto the constraint manifold before its accelerations are
//!    evaluated. The accelerations come from the pivoted QR `A^T P = Q R` (column-norm
//!    pivoting, Businger and Golub 1965): `Q = [Q1 T]` splits into constraint normals and a
//!    tangent basis `T`, and `xdd = T qdd + Q1 R1^{-T} gamma_piv` with the reduced mass matrix
//!    `T^T M T` (Masarati et al. 2023). Which orthonormal `T` is used does not change `xdd`;
//! 2. projects the new state: Newton on positions along the normals, then the velocities onto
//!    the tangent space. Near a singular configuration normals whose `R` entry is below
//!    `normal_truncation` are left out, so nothing divides by a vanishing entry;
//! 3. updates two tangent bases from the one factorisation at the new positions:
//!    *traditional*, the QR's own columns, which flip sign and change when the pivot order
//!    does, and *continued* (the projection continuation of Zhou et al. 2023, extended by
//!    Masarati et al. 2023 to redundant constraints and singular configurations), predicted with
//!    `exp(h Omega)` and corrected to the nearest orthonormal basis of the new tangent space,
//!    smooth through singular configurations, where the new admissible motions are added. They
//!    only decide what is shown and the generalized velocities `qd = T^T xd`;
//! 4. watches `rho = |R[r_g-1, r_g-1]| / |R[0, 0]|` (`r_g` the generic rank), which falls to
//!    zero at a singular configuration: a minimum of `rho` is searched for on the interpolated
//!    trajectory, and one below `detection_tolerance` becomes a
//!    [`SingularEvent`](solver::SingularEvent) with the rank there, the admissible motions
//!    (continuation and new ones) and an event state to resume from. The branches through the
//!    configuration, the ways out, follow from second-order conditions
//!    ([`solver::branches()`]).
//!
//! After warm-up a step allocates nothing. The details, the decisions and the measurements
//! behind them are in the module docs listed in [`solver`]; most live in private modules, so
//! read them with `cargo doc --no-default-features --document-private-items --open` (or in
//! the source files named there).
//!
//! # References
//!
//! - Masarati, Quro and Zanoni 2023 (Masarati et al. 2023): projection continuation of the
//!   tangent basis for redundant constraints, and the detection of singular configurations.
//! - Zhou et al. 2023: the original projection continuation (the Newton projection of eqs.
//!   16-19), and the pendulums of sect. 3.
//! - Quro 2023 (MSc thesis): the four-bar variants (table 5.1) and the push at a singular
//!   configuration (sect. 5.2.2).
//! - Dormand and Prince 1980, "A family of embedded Runge-Kutta formulae": the Dopri5 pair.
//! - Businger and Golub 1965, "Linear least squares solutions by Householder
//!   transformations": column-norm pivoting.

#[cfg(feature = "app")]
pub mod app;
pub mod atlas;
pub mod cli;
pub mod lesson;
pub mod linalg;
pub mod live;
pub mod model;
mod number_text;
pub mod scene;
pub mod sketch;
pub mod solver;
pub mod source;

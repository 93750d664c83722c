//! The minimal-coordinate-set solver: dynamics projected on the tangent space of the
//! constraints (QR with column pivoting of `A^T`), constraint stabilisation, the two tangent
//! bases (traditional and continued), singular-configuration events and the
//! [`Simulation`] value that ties them together. Nothing here depends on Bevy.
//!
//! How it works, and what it decides, is documented with the code, one topic per file:
//!
//! | file | topic |
//! |---|---|
//! | [`pivoted_qr`](crate::linalg::pivoted_qr) (`src/linalg/pivoted_qr.rs`) | the factorisation every step is built on: column-norm pivoting, why not nalgebra's `ColPivQR`, the round-off floor, cost |
//! | `dynamics.rs` | the accelerations; one factorisation, two bases: why the basis shown never changes the motion; the truncated curvature term |
//! | `integrator.rs` | RK4 and Dopri5, which stages are projected; Dopri5's forced steps across singular configurations, with its energy table |
//! | `range_space.rs` | the stages away from singular configurations: accelerations from `A M^-1 A^T` (RK4's unprojected), the same physics for less work |
//! | `projection.rs`, `velocity.rs` | Newton and velocity projection after each step (mass-orthogonal); `normal_truncation` and the step-size scans behind its default |
//! | `basis.rs`, `predictor.rs` | the traditional and the continued basis: sign flips, `exp(h Omega)` predictor, polar corrector, changes of dimension |
//! | `events.rs`, `indicator.rs`, `simulation/locate.rs` | the indicator `rho` and the entry it watches on branches that stay singular, detection, telling configurations apart, the search, the event state |
//! | `branches.rs` | the branches through a singular configuration (second-order conditions) |
//! | `simulation.rs` | one step; pulses landing on their edges; leaving along a branch; no allocation per step |
//! | `drag.rs`, `simulation/pose.rs` | points of bodies under the pointer, and posing the mechanism at rest by dragging one (least squares in the tangent space, then Newton) |
//! | `simulation/checkpoint.rs` | checkpoints of the complete state, for the timeline's exact replay |
//! | `reactions.rs` | Lagrange multipliers (minimum norm), self-stress modes, which joint reactions are unique |
//! | `settings.rs`, `initial.rs`, `error.rs` | settings and their ranges, initial conditions, typed failures |
//!
//! These modules are private (their items are re-exported here), so `cargo doc` shows their
//! documentation only with `--document-private-items`:
//! `cargo doc --no-default-features --document-private-items --open`.

mod basis;
mod branches;
mod drag;
mod dynamics;
mod error;
mod events;
mod indicator;
mod initial;
mod integrator;
mod predictor;
mod projection;
mod range_space;
mod reactions;
mod settings;
mod simulation;
mod velocity;

pub use basis::{BasisStats, ColumnLabel, ColumnOrigin, TangentBasis};
pub use branches::{Branch, BranchSearch, branches};
pub(crate) use branches::{common_zero_lines, second_order_forms};
pub use drag::{GrabPoint, pick};
pub use error::SolverError;
pub use events::{EventDetector, LocatedMinimum, SingularEvent, parabola_minimum};
pub use indicator::PERSISTENT_DISTANCE;
pub use initial::{AssemblyReport, assemble_positions, complete_velocities};
pub use projection::ProjectionOutcome;
pub use reactions::{
    ComponentSolvability, JointSolvability, Reactions, SOLVABILITY_TOLERANCE, solvability,
};
pub use settings::{
    BasisMode, DETECTION_TOLERANCE_MAX, DOPRI_MIN_STEP_MIN, DOPRI_RTOL_MAX, Integrator,
    NEWTON_MAX_ITERATIONS_MAX, NEWTON_TOLERANCE_MAX, NEWTON_TOLERANCE_ROUND_OFF,
    NORMAL_TRUNCATION_MAX, OMEGA_STEP_LIMIT_MAX, Predictor, RANK_TOLERANCE_MAX, Setting, Settings,
    SettingsError,
};
pub use simulation::{Checkpoint, DragReport, Simulation, StepReport, WorkCounters};

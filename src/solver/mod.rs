//! The minimal-coordinate-set solver: dynamics projected on the tangent space of the
//! constraints (QR with column pivoting of `A^T`), constraint stabilisation, the two tangent
//! bases (traditional and continued), singular-configuration events and the `Simulation`
//! value that ties them together. Nothing here depends on Bevy.

mod basis;
mod branches;
mod dynamics;
mod error;
mod events;
mod initial;
mod integrator;
mod predictor;
mod projection;
mod settings;
mod simulation;

pub use basis::{BasisStats, ColumnLabel, ColumnOrigin, TangentBasis};
pub use branches::{Branch, BranchSearch, branches};
pub use error::SolverError;
pub use events::{EventDetector, LocatedMinimum, SingularEvent, parabola_minimum};
pub use initial::{AssemblyReport, assemble_positions, complete_velocities};
pub use projection::ProjectionOutcome;
pub use settings::{BasisMode, Integrator, Predictor, Settings, SettingsError};
pub use simulation::{Simulation, StepReport, WorkCounters};

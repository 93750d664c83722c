//! The Bevy-free core of the visualizer: the real-time session around a `Simulation`
//! ([`session`]), the plotted history and its decimation ([`history`]), the admissible motions
//! drawn as arrows ([`motions`]) and what an action along one would do ([`preview`]), the
//! joint reactions and self-stress modes ([`reactions`]), the frame times and file names of
//! recordings ([`recording`]), the view cameras as plain math ([`view`]), the timeline of
//! checkpoints, marks and undo ([`timeline`]) and dragging points of bodies ([`drag`]). The
//! Bevy app only wraps these; everything here is tested without a window.

pub mod drag;
pub mod framing;
pub mod history;
pub mod motions;
pub mod pause;
pub mod preview;
pub mod reactions;
pub mod recording;
pub mod session;
pub mod timeline;
pub mod view;

pub use drag::{Drag, DragMode};
pub use history::{Channel, ChannelKind, History};
pub use motions::{Motion, MotionArrow, MotionRole};
pub use preview::{Preview, preview_poses};
pub use reactions::{ReactionArrow, ReactionDisplay};
pub use session::{Advance, LiveSession, PauseReason, SPEEDS, TracePoint};
pub use timeline::{Mark, MarkKind, Spring, Timeline};
pub use view::{OrbitCamera, PlanarView, Projected};

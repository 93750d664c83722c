//! Singulab: minimal-coordinate-set dynamics of constrained planar mechanisms and pendulums,
//! with QR projection continuation and singular-configuration events.
//!
//! The library is Bevy-free: [`linalg`] (dense kernels over nalgebra storage), [`model`]
//! (bodies, constraints, loads, Jacobians), [`scene`] (RON scene files), [`solver`] (the
//! `Simulation` value and its step), [`live`] (the real-time session, history and cameras the
//! visualizer wraps) and [`cli`] (the command line).

#[cfg(feature = "app")]
pub mod app;
pub mod cli;
pub mod linalg;
pub mod live;
pub mod model;
mod number_text;
pub mod scene;
pub mod solver;

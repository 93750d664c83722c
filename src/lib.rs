//! Singulab: minimal-coordinate-set dynamics of constrained planar mechanisms and pendulums,
//! with QR projection continuation and singular-configuration events.
//!
//! The library is Bevy-free: [`linalg`] (dense kernels over nalgebra storage), [`model`]
//! (bodies, constraints, loads, Jacobians), [`scene`] (RON scene files), [`solver`] (the
//! `Simulation` value and its step) and [`cli`] (the headless command line).

pub mod cli;
pub mod linalg;
pub mod model;
pub mod scene;
pub mod solver;

//! Integration tests of the Bevy-free solver and model: the physics against independent
//! references, grouped in one binary (one link step). The interactive session's tests are
//! `tests/session`, the command line's `tests/cli`.
//! Reference values come from independent derivations, each cited where it is used.

#[allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses part of the shared helpers"
)]
#[path = "../common/mod.rs"]
mod common;

mod atlas;
mod branches;
mod close_events;
mod continuation;
mod driver_reach;
mod driver_work;
mod faults_numbers;
mod flat_pose_reactions;
mod ground_name;
mod jacobians;
mod large_start;
mod long_turns;
mod mobile_robot;
mod pendulums;
mod physics_invariance;
mod planar_joints;
mod point_mass_reactions;
mod pulses;
mod push_residual;
mod ranks;
mod reactions;
mod readme;
mod reference;
mod rigid_dynamics;
mod rigid_kinematics;
mod rigid_scenes;
mod scene_errors;
mod singular_branches;
mod slider;
mod written_orientations;
// The unit tests' generator, shared by file rather than exported by the library.
#[expect(dead_code, reason = "these tests use neither `vector` nor `symmetric`")]
#[path = "../../src/linalg/test_rng.rs"]
mod test_rng;

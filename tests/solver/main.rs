//! Integration tests of the Bevy-free solver, grouped in one binary (one link step).
//! Reference values come from independent derivations, each cited where it is used.

mod branches;
mod cli_lessons_and_limits;
mod close_events;
mod command_line;
mod common;
mod continuation;
mod drag;
mod driver_reach;
mod driver_work;
mod faults_io;
mod faults_numbers;
mod flat_pose_reactions;
mod ground_name;
mod jacobians;
mod jam_advice;
mod large_start;
mod lessons;
mod live;
mod long_turns;
mod matrix;
mod mobile_robot;
mod motion_orientation;
mod pendulums;
mod physics_invariance;
mod planar_joints;
mod point_mass_reactions;
mod preview;
mod pulses;
mod push_meaning;
mod push_residual;
mod ranks;
mod reaction_cli;
mod reactions;
mod readme;
mod recording;
mod reference;
mod rigid_dynamics;
mod rigid_kinematics;
mod rigid_scenes;
mod scene_errors;
mod singular_branches;
mod stale_events;
mod timeline;
mod written_orientations;
// The unit tests' generator, shared by file rather than exported by the library.
#[expect(dead_code, reason = "these tests use neither `vector` nor `symmetric`")]
#[path = "../../src/linalg/test_rng.rs"]
mod test_rng;

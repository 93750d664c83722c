//! Integration tests of the command line, run as a user runs it (the built `singulab`
//! binary): every command on every shipped scene and lesson, located errors, exit codes
//! and the files written.

#[allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses part of the shared helpers"
)]
#[path = "../common/mod.rs"]
mod common;

mod cli_lessons_and_limits;
mod command_line;
mod faults_io;
mod jam_advice;
mod matrix;
mod reaction_cli;

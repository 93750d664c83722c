//! The `singulab` binary: the command line of `singulab::cli`.

fn main() {
    std::process::exit(singulab::cli::main(std::env::args_os()));
}

//! The `singulab` binary: the command line of `singulab::cli`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(singulab::cli::main(&args));
}

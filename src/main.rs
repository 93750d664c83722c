//! The `singulab` binary: the command line of `singulab::cli`.

fn main() {
    let mut args = Vec::new();
    for arg in std::env::args_os().skip(1) {
        match arg.into_string() {
            Ok(arg) => args.push(arg),
            Err(arg) => {
                eprintln!("singulab: argument {arg:?} is not valid UTF-8");
                std::process::exit(2);
            }
        }
    }
    std::process::exit(singulab::cli::main(&args));
}

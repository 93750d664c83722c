//! The `singulab` binary: the command line of `singulab::cli`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(singulab::cli::main(std::env::args_os()));
}

/// In a browser: the window on what the page's address asks for (`app::web`).
#[cfg(target_arch = "wasm32")]
fn main() {
    singulab::app::web::run_page();
}

//! The `formatscope` binary: a thin command line over the core library.

mod cli;

fn main() {
    std::process::exit(cli::run());
}

//! The reprobench binary: parse the command line and dispatch.

use clap::Parser;

use reprobench::cli::{Cli, Command};
use reprobench::commands;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    reprobench::analysis::Timer::mark_start();
    let mut cli = Cli::parse();
    reprobench::output::set_quiet(cli.quiet);
    reprobench::output::set_color(cli.color);
    if let (true, Command::Analyze(args)) = (cli.verbose, &mut cli.command) {
        args.detail = true;
    }
    let result = match &cli.command {
        Command::Analyze(args) => commands::analyze::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Bundle(args) => commands::bundle::run(args),
        Command::Dataset(cmd) => commands::dataset::run(cmd),
        Command::Spdk(cmd) => commands::spdk::run(cmd),
        Command::Collect(cmd) => commands::collect::run(cmd),
        Command::Suites => commands::suites::run(),
        Command::ShellFiles(args) => commands::shell_files::run(args),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            reprobench::errln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}

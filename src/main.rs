//! The reprobench binary: parse the command line and dispatch.

use reprobench::cli::Command;
use reprobench::commands;
use reprobench::commands::command_line::{self, Asked};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    reprobench::analysis::Timer::mark_start();
    let mut cli = match command_line::parse(reprobench::suites::SUITES, std::env::args_os()) {
        Ok(Asked::Cli(cli)) => cli,
        Ok(Asked::Collect {
            collector,
            args,
            quiet,
            color,
        }) => {
            reprobench::output::set_quiet(quiet);
            reprobench::output::set_color(color);
            exit(collector.run(&args, &commands::collect::context()))
        }
        Err(e) => e.exit(),
    };
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
        Command::Spdk(cmd) => reprobench::suites::spdk_raid::command::run(cmd),
        Command::Collect(cmd) => commands::collect::run(cmd),
        Command::Suites => commands::suites::run(),
        Command::ShellFiles(args) => commands::shell_files::run(args),
    };
    exit(result)
}

fn exit(result: anyhow::Result<i32>) -> ! {
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            reprobench::errln!("error: {e:#}");
            std::process::exit(2);
        }
    }
}

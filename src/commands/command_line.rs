//! The command line as the registry makes it: the built-in commands, and under `collect`
//! each registered suite's own collection (its subcommand, see `collect::plugin`).

use clap::{CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::collect::plugin::{self, Collector};
use crate::suites::Suite;

/// What the command line asked for.
pub enum Asked {
    /// A built-in command.
    Cli(Box<Cli>),
    /// A suite's own collection, with its arguments and the global options.
    Collect {
        collector: &'static dyn Collector,
        args: clap::ArgMatches,
        quiet: bool,
        color: crate::output::ColorWhen,
    },
}

/// Collections that belong to no one suite: the KV procedure's three tests in order.
const PROCEDURES: &[&dyn Collector] = &[&super::collect_kv::COLLECTOR];

/// The suites' own collections, then the procedures', whose names no built-in `collect`
/// subcommand of `builtin` has, each with its subcommand. Each is built once: their
/// arguments are most of what building the command line costs, and every run builds it.
fn collectors(
    builtin: &clap::Command,
    registry: &[&dyn Suite],
) -> Vec<(&'static dyn Collector, clap::Command)> {
    let taken: Vec<&str> = builtin
        .find_subcommand("collect")
        .map(|c| c.get_subcommands().map(|s| s.get_name()).collect())
        .unwrap_or_default();
    let mut out: Vec<(&'static dyn Collector, clap::Command)> = Vec::new();
    let suites = registry.iter().filter_map(|s| s.collector());
    for c in suites.chain(PROCEDURES.iter().copied()) {
        let cmd = plugin::command(c);
        let name = cmd.get_name();
        if !taken.contains(&name) && !out.iter().any(|(_, o)| o.get_name() == name) {
            out.push((c, cmd));
        }
    }
    out
}

/// The whole command line: what `--help`, the completions and the man pages show.
pub fn command(registry: &[&dyn Suite]) -> clap::Command {
    with_collectors(registry).0
}

/// [`command`], and the collections it holds under `collect`.
fn with_collectors(
    registry: &[&dyn Suite],
) -> (clap::Command, Vec<(&'static dyn Collector, String)>) {
    let builtin = Cli::command();
    let own = collectors(&builtin, registry);
    let names = own
        .iter()
        .map(|(c, cmd)| (*c, cmd.get_name().to_string()))
        .collect();
    let cmd = builtin.mut_subcommand("collect", |collect| {
        // The collections first, in the registry's order; then the built-in ones
        // (sysinfo, replay).
        let collect = collect.mut_subcommands(|c| {
            let after = own.len() + c.get_display_order();
            c.display_order(after)
        });
        own.into_iter()
            .enumerate()
            .fold(collect, |c, (i, (_, sub))| {
                c.subcommand(sub.display_order(i))
            })
    });
    (cmd, names)
}

/// Parses `args` (the program's name first) against [`command`].
pub fn parse<I, T>(registry: &[&dyn Suite], args: I) -> Result<Asked, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let (mut cmd, own) = with_collectors(registry);
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    if let Some(("collect", sub)) = matches.subcommand() {
        if let Some((name, args)) = sub.subcommand() {
            if let Some((collector, _)) = own.into_iter().find(|(_, n)| n == name) {
                return Ok(Asked::Collect {
                    collector,
                    args: args.clone(),
                    quiet: matches.get_flag("quiet"),
                    color: matches
                        .get_one::<crate::output::ColorWhen>("color")
                        .copied()
                        .unwrap_or(crate::output::ColorWhen::Auto),
                });
            }
        }
    }
    Cli::from_arg_matches_mut(&mut matches)
        .map(|c| Asked::Cli(Box::new(c)))
        .map_err(|e| e.format(&mut cmd))
}

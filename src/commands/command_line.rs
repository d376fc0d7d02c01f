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
    with_collectors_from(Cli::command(), registry)
}

/// [`with_collectors`] from the built-in commands already made.
fn with_collectors_from(
    builtin: clap::Command,
    registry: &[&dyn Suite],
) -> (clap::Command, Vec<(&'static dyn Collector, String)>) {
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
///
/// A command line that starts with a built-in command other than `collect` (`analyze`,
/// `report`, ...) is parsed against the built-in commands alone: the collections are
/// only under `collect`, so they cannot change what it means, and no such run needs
/// their subcommands built.
pub fn parse<I, T>(registry: &[&dyn Suite], args: I) -> Result<Asked, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let builtin = Cli::command();
    if built_in_only(&builtin, &args) {
        parse_builtin(builtin, args)
    } else {
        parse_with_collectors(builtin, registry, args)
    }
}

/// Whether `args` start with a built-in command other than `collect`.
fn built_in_only(builtin: &clap::Command, args: &[std::ffi::OsString]) -> bool {
    args.get(1)
        .and_then(|a| a.to_str())
        .and_then(|a| builtin.find_subcommand(a))
        .is_some_and(|sub| sub.get_name() != "collect")
}

/// [`parse`] against the built-in commands alone.
fn parse_builtin(
    mut cmd: clap::Command,
    args: Vec<std::ffi::OsString>,
) -> Result<Asked, clap::Error> {
    let mut matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches_mut(&mut matches)
        .map(|c| Asked::Cli(Box::new(c)))
        .map_err(|e| e.format(&mut cmd))
}

/// [`parse`] against the whole command line, the collections included.
fn parse_with_collectors(
    builtin: clap::Command,
    registry: &[&dyn Suite],
    args: Vec<std::ffi::OsString>,
) -> Result<Asked, clap::Error> {
    let (mut cmd, own) = with_collectors_from(builtin, registry);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(r: Result<Asked, clap::Error>) -> String {
        match r {
            Ok(Asked::Cli(c)) => format!("{c:?}"),
            Ok(Asked::Collect { .. }) => "a collection".into(),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    fn args(line: &[&str]) -> Vec<std::ffi::OsString> {
        std::iter::once("reprobench")
            .chain(line.iter().copied())
            .map(Into::into)
            .collect()
    }

    #[test]
    fn a_built_in_command_means_the_same_without_the_collections() {
        let registry = crate::suites::SUITES;
        let lines: &[&[&str]] = &[
            &["analyze", "samples/x"],
            &["analyze", "samples/x", "--format", "json", "--detail"],
            &["analyze", "--bogus", "x"],
            &["analyze"],
            &["analyze", "--help"],
            &["analyze", "-q", "x"],
            &["analyze", "-q", "-v", "x"],
            &["analyze", "x", "--color", "bogus"],
            &["analyze", "x", "--color", "never"],
            &["report", "x", "-o", "out", "--no-pdf"],
            &["report", "x", "-o"],
            &["compare", "a", "b"],
            &["bundle", "x", "-o", "y.tar.gz"],
            &["dataset", "add", "d", "x"],
            &["dataset", "nonsense"],
            &["dataset", "help", "add"],
            &["spdk", "config", "--raid", "raid5f"],
            &["spdk", "jobs", "--bogus"],
            &["spdk"],
            &["suites"],
            &["suites", "extra"],
            &["shell-files", "--help"],
            &["shell-files"],
        ];
        let builtin = Cli::command();
        for line in lines {
            let args = args(line);
            assert!(
                built_in_only(&builtin, &args),
                "{line:?} takes the short way"
            );
            let whole = parse_with_collectors(Cli::command(), registry, args.clone());
            assert_eq!(outcome(parse(registry, args)), outcome(whole), "{line:?}");
        }
        // Every built-in command but collect is among the lines above.
        for sub in builtin.get_subcommands() {
            let name = sub.get_name();
            assert!(
                name == "collect" || lines.iter().any(|l| l[0] == name),
                "{name} is not tested"
            );
        }
    }

    #[test]
    fn collect_and_the_top_level_are_parsed_with_the_collections() {
        let registry = crate::suites::SUITES;
        let builtin = Cli::command();
        for first in ["collect", "help", "--help", "-q", "nonsense"] {
            assert!(!built_in_only(&builtin, &args(&[first, "x"])), "{first}");
        }
        assert!(!built_in_only(&builtin, &args(&[])));
        // A collection is found under `collect`: the short way would not know it.
        let name = with_collectors(registry).1[0].1.clone();
        let r = parse(registry, ["reprobench", "collect", name.as_str(), "--help"]);
        let help = outcome(r);
        assert!(help.contains(&name), "{help}");
    }
}

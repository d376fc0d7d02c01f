//! A suite's own collection, as a plug-in: a `collect` subcommand that the command line
//! builds from the suites' registry, the suite's collector scripts, and the steps one
//! collection runs. What every collection takes and does is added here, not by the
//! suite: `--out`, `--dry-run` and `--fresh`; the preflight; the device guard before
//! every step that writes to a device; a manifest that records each step and each
//! script's checksum; a dry run that prints every command expanded and writes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};

use super::plan::{expand_home, index_manifest, Collection};
use super::scripts::Scripts;
use super::steps::{Session, Step};
use crate::cli::Running;
use crate::process::Runner;

/// One suite's collection.
pub trait Collector: Sync {
    /// The subcommand: its name, what it does and writes (`about`), its own arguments.
    fn command(&self) -> clap::Command;
    /// The section of the procedure the collection follows (the manifest's `procedure`).
    fn procedure(&self) -> &'static str {
        ""
    }
    /// Its collector scripts (`collectors/<procedure>/`): name and text, written beside
    /// `lib.sh`. Each must source `lib.sh` before it does anything (refused otherwise)
    /// and run every command through its `run`, so that a dry run prints it: a dry run
    /// runs the script with `DRY_RUN=1`. A step that writes to a device names it in
    /// `Step::writes`, where the guard looks before the step runs.
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// What keeps the collection from running at all (a missing program, a folder that
    /// is not there): each problem refuses it before any step runs.
    fn preflight(&self, _args: &ArgMatches, _out: &Path) -> Vec<String> {
        Vec::new()
    }
    /// The steps of one collection into `out`, with the subcommand's arguments.
    fn steps(&self, _args: &ArgMatches, _out: &Path, _scripts: &Scripts) -> Vec<Step> {
        Vec::new()
    }
    /// Runs one collection with the arguments clap matched for [`command`]: by default
    /// the [`Collector::steps`] as every collection runs them ([`run_steps`]); a
    /// procedure's own collection (rounds, servers brought up and down) runs itself, on
    /// the same steps, guard and manifest.
    fn run(&self, args: &ArgMatches, cx: &Context) -> anyhow::Result<i32> {
        run_steps(self, args, cx.runner)
    }
}

/// What a collection is handed by the command that runs it.
pub struct Context<'a> {
    /// Runs the commands (the system's processes; a test's stand-in).
    pub runner: &'a dyn Runner,
    /// The verdicts `analyze` gives a results folder, or why it gives none (for
    /// collections that judge as they go: `--until-settled`). Handed in: the analysis
    /// sits above the suites.
    pub judge: Judge,
}

/// See [`Context::judge`].
pub type Judge = fn(&Path) -> Result<Vec<crate::model::verdict::Verdict>, String>;

/// The subcommand of `collector`, with what every collection takes (`-o/--out`,
/// `--confirm-device`, `--dry-run`, `--fresh`). A collector whose own arguments already hold `Running`
/// (`--dry-run`: a procedure's collection, which says itself where it writes) is taken
/// as it is.
pub fn command(collector: &dyn Collector) -> clap::Command {
    let cmd = collector.command();
    let has = |id: &str| cmd.get_arguments().any(|a| a.get_id() == id);
    if has("dry_run") {
        return cmd;
    }
    let mut add = Vec::new();
    if !has("out") {
        add.push(
            Arg::new("out")
                .short('o')
                .long("out")
                .value_name("DIR")
                .default_value("results")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The results folder; the manifest goes to OUT/manifests/<collection>.json"),
        );
    }
    if !has("confirm_device") {
        add.push(
            Arg::new("confirm_device")
                .long("confirm-device")
                .value_name("DEV")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(PathBuf))
                .help("Write to a device although it looks used (a filesystem, RAID or LVM signature, a partition table): name exactly that device (repeatable). A device in use is refused whatever this says"),
        );
    }
    // `Running`'s own arguments, without the about text its derive would also set.
    add.extend(
        Running::augment_args(clap::Command::new("running"))
            .get_arguments()
            .filter(|a| !has(a.get_id().as_str()))
            .cloned(),
    );
    add.into_iter().fold(cmd, |cmd, arg| cmd.arg(arg))
}

/// Runs one collection of `collector`'s steps with the arguments clap matched for
/// [`command`]: the exit status `collect` documents (0 every step ran, 1 a step failed,
/// 2 the preflight or the device guard refused, 128+N a signal).
pub fn run_steps<C: Collector + ?Sized>(
    collector: &C,
    args: &ArgMatches,
    runner: &dyn Runner,
) -> anyhow::Result<i32> {
    let running = Running::from_arg_matches(args)?;
    let out = expand_home(
        args.try_get_one::<PathBuf>("out")
            .ok()
            .flatten()
            .map_or(Path::new("results"), |p| p.as_path()),
    );
    let confirmed: Vec<PathBuf> = args
        .try_get_many::<PathBuf>("confirm_device")
        .ok()
        .flatten()
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let name = collector.command().get_name().to_string();
    let scripts = Scripts::write_with(collector.scripts())?;
    let manifest = out.join("manifests").join(format!("{name}.json"));
    let mut session = Session::new(
        manifest.clone(),
        collector.procedure(),
        &name,
        parameters(&collector.command(), args),
        confirmed,
    );
    session.resume = !running.fresh;
    let code = Collection {
        session,
        steps: collector.steps(args, &out, &scripts),
        scripts: &scripts,
        preflight: collector.preflight(args, &out),
        checks: Vec::new(),
        dry_run: running.dry_run,
    }
    .run(runner)?;
    if !running.dry_run {
        index_manifest(&out, &name, &manifest, &[])?;
    }
    Ok(code)
}

/// The subcommand's own arguments as given (or defaulted), for the manifest: a flag as
/// a boolean, one value as a string, several as a list.
fn parameters(cmd: &clap::Command, args: &ArgMatches) -> serde_json::Value {
    let mut out = BTreeMap::new();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        let value = match arg.get_action() {
            ArgAction::SetTrue | ArgAction::SetFalse => serde_json::Value::Bool(args.get_flag(id)),
            _ => {
                let raw: Vec<String> = args
                    .get_raw(id)
                    .into_iter()
                    .flatten()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect();
                match raw.as_slice() {
                    [] => serde_json::Value::Null,
                    [one] if !matches!(arg.get_action(), ArgAction::Append) => one.clone().into(),
                    many => many.to_vec().into(),
                }
            }
        };
        out.insert(id.to_string(), value);
    }
    serde_json::to_value(out).unwrap_or_default()
}

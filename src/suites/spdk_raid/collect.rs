//! `collect spdk-raid`: the SPDK RAID article end to end. For each drive count and array
//! (the raw drives first, then each array): the SPDK config (`spdk config`), the fio job
//! files (`spdk jobs`), fio with SPDK's bdev plugin for every job, and for arrays the
//! degraded runs: bdevperf waiting on RPC, `bdev_raid_get_bdevs` before and after
//! removal of one member (`bdev_nvme_detach_controller` of its controller, as the article
//! does, or `bdev_raid_remove_base_bdev` with `--degraded-method remove-base-bdev`), then the random-read and full-stripe jobs
//! with the member gone. Writes the `spdk/<array>-<drives>/` layout `analyze` reads.

mod degraded;

use std::path::PathBuf;

use crate::process::{Invocation, Runner};
use crate::suites::spdk_raid::inputs::jobs::{article_suite, Job, Target};
use crate::suites::spdk_raid::inputs::Raid;

use crate::collect::plan::{self, Collection};
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Session, Step, Write};

use degraded::degraded;

/// The article's collector scripts (`collectors/spdk-raid/`): fio through SPDK's plugin,
/// and the degraded runs (bdevperf with a member removed).
pub const SCRIPTS: &[(&str, &str)] = &[
    (
        "spdk-fio.sh",
        include_str!("../../../collectors/spdk-raid/spdk-fio.sh"),
    ),
    (
        "spdk-degraded.sh",
        include_str!("../../../collectors/spdk-raid/spdk-degraded.sh"),
    ),
];

pub struct Plan {
    pub out: PathBuf,
    pub spdk_dir: PathBuf,
    pub fio: PathBuf,
    pub plugin: PathBuf,
    pub pcie: Vec<String>,
    pub counts: Vec<u32>,
    pub arrays: Vec<String>,
    pub strip_kb: u32,
    pub runtime_s: u32,
    pub seq_runtime_s: u32,
    pub degraded: bool,
    pub degraded_runtime_s: u32,
    /// `detach-controller` (the article's) or `remove-base-bdev`.
    pub degraded_method: String,
    pub dry_run: bool,
    pub fresh: bool,
    pub confirmed: Vec<PathBuf>,
}

/// `raw` / `raid5f` / `xinnor` -> the generator's array kind.
fn raid_of(array: &str) -> Result<Raid, String> {
    match array {
        "raw" => Ok(Raid::None),
        "xinnor" => Ok(Raid::Xinnor(5)),
        other => Raid::parse(other),
    }
}

fn me() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("reprobench"))
}

fn steps(p: &Plan, s: &Scripts) -> Result<Vec<Step>, String> {
    let mut out = Vec::new();
    // The raw drives first: every array's theoretical maximum is built on them.
    let mut arrays = p.arrays.clone();
    arrays.sort_by_key(|a| a != "raw");
    for &n in &p.counts {
        let addrs: Vec<String> = p.pcie.iter().take(n as usize).cloned().collect();
        if addrs.len() < n as usize {
            return Err(format!(
                "{n} drives asked for, {} PCIe addresses given (--pcie)",
                addrs.len()
            ));
        }
        let writes: Vec<Write> = addrs
            .iter()
            .map(|a| Write::to(&PathBuf::from(format!("pci:{a}"))))
            .collect();
        for array in &arrays {
            let raid = raid_of(array)?;
            let at = Where::new(p, array, n);
            out.extend(input_steps(p, &at, &addrs, &raid));
            out.extend(run_steps(p, s, &at, &raid, &writes));
            if p.degraded && raid != Raid::None {
                out.extend(degraded(p, s, &raid, n, &at.dir, &at.conf, &writes));
            }
        }
    }
    Ok(out)
}

/// Where one array of `n` drives is written: its results, its config, its job files.
struct Where {
    /// `<array>-<n>`, the steps' prefix.
    name: String,
    n: u32,
    dir: PathBuf,
    jobs_dir: PathBuf,
    conf: PathBuf,
}

impl Where {
    fn new(p: &Plan, array: &str, n: u32) -> Where {
        let name = format!("{array}-{n}");
        let dir = p.out.join("spdk").join(&name);
        Where {
            jobs_dir: p.out.join("spdk-jobs").join(&name),
            conf: dir.join("config.json"),
            dir,
            name,
            n,
        }
    }
}

/// The array's `--raid` argument to `spdk config` and `spdk jobs`.
fn raid_arg(raid: &Raid) -> String {
    match raid {
        Raid::None => "none".to_string(),
        Raid::Spdk(l) => l.clone(),
        Raid::Xinnor(l) => format!("xinnor:{l}"),
    }
}

/// The SPDK config for these drives and the array, then one fio job file per run.
fn input_steps(p: &Plan, at: &Where, addrs: &[String], raid: &Raid) -> [Step; 2] {
    let (name, n, conf) = (&at.name, at.n, &at.conf);
    let raid_arg = raid_arg(raid);
    [
        Step::new(
            format!("{name}: spdk config"),
            Origin::tool("writes the SPDK config for these drives' PCIe addresses and the array (the article shows its own for its drives: `reprobench spdk config` writes the same for 16)"),
            Invocation::new(me())
                .arg("spdk")
                .arg("config")
                .arg("--pcie")
                .arg(addrs.join(","))
                .arg("--raid")
                .arg(&raid_arg)
                .arg("--strip-kb")
                .arg(p.strip_kb.to_string())
                .arg("-o")
                .arg(conf.as_os_str()),
            Check::Exit,
        )
        .required(),
        Step::new(
            format!("{name}: spdk jobs"),
            Origin::tool("writes one fio job file per run from the article's two job files, which list several values per option (numjobs=[1, 16, 32, 64]) where fio takes one"),
            Invocation::new(me())
                .arg("spdk")
                .arg("jobs")
                .arg("--drives")
                .arg(n.to_string())
                .arg("--raid")
                .arg(&raid_arg)
                .arg("--strip-kb")
                .arg(p.strip_kb.to_string())
                .arg("--spdk-conf")
                .arg(conf.as_os_str())
                .arg("--runtime")
                .arg(p.runtime_s.to_string())
                .arg("--seq-runtime")
                .arg(p.seq_runtime_s.to_string())
                .arg("-o")
                .arg(at.jobs_dir.as_os_str()),
            Check::Exit,
        )
        .required(),
    ]
}

/// One fio run per job of the article's suite, through SPDK's plugin, each holding the
/// array's drives.
fn run_steps(p: &Plan, s: &Scripts, at: &Where, raid: &Raid, writes: &[Write]) -> Vec<Step> {
    let n = at.n;
    let filename = match raid {
        Raid::None => (0..n)
            .map(|i| format!("nvme{i}n1"))
            .collect::<Vec<_>>()
            .join(":"),
        _ => "raid5".to_string(),
    };
    let target = Target {
        raid: raid.clone(),
        drives: n,
        strip_kb: p.strip_kb,
        spdk_conf: at.conf.display().to_string(),
        filename,
    };
    let (jobs, _refused) = article_suite(&target, p.runtime_s, p.seq_runtime_s);
    jobs.iter()
        .map(|j| {
            let json = at.dir.join(format!("{}.json", j.name()));
            let (origin, differs) = job_origin(j, p);
            let step = Step::new(
                format!("{}: {}", at.name, j.name()),
                origin,
                s.call("spdk-fio.sh")
                    .arg(p.fio.as_os_str())
                    .arg(p.plugin.as_os_str())
                    .arg(at.jobs_dir.join(format!("{}.fio", j.name())).as_os_str())
                    .arg(json.as_os_str()),
                Check::Fio(json),
            )
            .differs(differs)
            .estimate(u64::from(j.runtime_s) + 5);
            writes.iter().fold(step, |step, w| step.writes(w.clone()))
        })
        .collect()
}

/// The article's line a job comes from, and how the job differs from it.
fn job_origin(j: &Job, p: &Plan) -> (Origin, Vec<String>) {
    let mut differs = Vec::new();
    if j.iodepth == 1 {
        differs.push("the article publishes this row without its job file: reprobench runs it with the small-IO job file's options at 1 job and depth 1".to_string());
        if j.runtime_s != 900 {
            differs.push(format!(
                "runtime={} instead of the small-IO job file's runtime=900: a shorter run may not reach the steady state the article's numbers come from",
                j.runtime_s
            ));
        }
        return (
            Origin::procedure(lines::SPDK_TABLES, lines::QD1_ROW),
            differs,
        );
    }
    let (section, line, runtime) = if j.rw.starts_with("rand") {
        (lines::SPDK_SMALL, lines::SMALL_IO, 900)
    } else {
        (lines::SPDK_FULL, lines::FULL_STRIPE, 60)
    };
    if j.runtime_s != runtime {
        differs.push(format!(
            "runtime={} instead of runtime={runtime}: a shorter run may not reach the steady state the article's numbers come from",
            j.runtime_s
        ));
    }
    if !j.rw.starts_with("rand") && p.strip_kb != 64 {
        differs.push(format!(
            "a {} KiB strip: the full-stripe block size follows it, where the article's strip is 64 KiB",
            p.strip_kb
        ));
    }
    (Origin::procedure(section, line), differs)
}

pub fn collect(p: &Plan, runner: &dyn Runner) -> anyhow::Result<i32> {
    let scripts = Scripts::write_with(SCRIPTS)?;
    let list = match steps(p, &scripts) {
        Ok(l) => l,
        Err(why) => {
            crate::errln!("error: {why}");
            return Ok(2);
        }
    };
    let bdevperf_py = p.spdk_dir.join("examples/bdev/bdevperf/bdevperf.py");
    let rpc = p.spdk_dir.join("scripts/rpc.py");
    let bdevperf_bin = p.spdk_dir.join("build/examples/bdevperf");
    let fio = p.fio.display().to_string();
    let mut needed: Vec<String> = vec![fio, "python3".into()];
    if p.degraded {
        for x in [&rpc, &bdevperf_bin, &bdevperf_py] {
            needed.push(x.display().to_string());
        }
    }
    let needed_ref: Vec<&str> = needed.iter().map(String::as_str).collect();
    let mut preflight = plan::missing_programs(&needed_ref);
    if !p.plugin.is_file() {
        preflight.push(format!(
            "no fio plugin at `{}` (--fio-plugin: <spdk>/build/fio/spdk_bdev)",
            p.plugin.display()
        ));
    }
    for a in &p.pcie {
        if let Err(why) = crate::suites::spdk_raid::inputs::config::check_pcie(a) {
            preflight.push(why);
        }
    }
    preflight.extend(plan::space_problem(&p.out, 64 << 20, runner));
    let params = serde_json::json!({
        "pcie": p.pcie, "counts": p.counts, "arrays": p.arrays, "strip_kb": p.strip_kb,
        "runtime_s": p.runtime_s, "seq_runtime_s": p.seq_runtime_s, "degraded": p.degraded,
        "degraded_method": p.degraded_method,
    });
    let manifest = p
        .out
        .join("manifests")
        .join(format!("{}.json", crate::suites::spdk_raid::NAME));
    let mut session = Session::new(
        manifest.clone(),
        "SPDK raid5f vs Xinnor SPDK RAID",
        crate::suites::spdk_raid::NAME,
        params,
        p.confirmed.clone(),
    );
    session.resume = !p.fresh;
    let code = Collection {
        session,
        steps: list,
        scripts: &scripts,
        preflight,
        checks: vec![
            format!("programs: {}", needed.join(", ")),
            format!("the fio plugin `{}`", p.plugin.display()),
            "each PCIe drive: bound to vfio/uio for SPDK, or its kernel namespaces not mounted, not swap, not held by md/dm/LVM".into(),
        ],
        dry_run: p.dry_run,
    }
    .run(runner)?;
    if !p.dry_run && code != 2 {
        plan::index_manifest(
            &p.out,
            crate::suites::spdk_raid::NAME,
            &manifest,
            &[("procedure", "SPDK raid5f vs Xinnor SPDK RAID".to_string())],
        )?;
    }
    Ok(code)
}

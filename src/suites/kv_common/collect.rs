//! What the KV-cache collectors share: the server steps (`docker compose` in a variant's
//! folder, `ready`), the procedure's shell helpers (`new_prompt`, `ask`, the prefix-cache
//! reset), test 1's sequence and one ladder level, each one step through
//! `collectors/kv/kv-server.sh` and `collectors/kv/kv-ladder.sh`; and the preflight checks of a
//! variant's compose file against the model's row of the procedure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::parse::{ask, mt_records};
use crate::suites::kv_common::reference::{KvReference, ModelRef};

use crate::collect::outcome::Outcome;
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Step};

/// The KV procedure's collector scripts (`collectors/kv/`): one server step (compose up,
/// ready, ask, restart, down) and one ladder level.
pub const SCRIPTS: &[(&str, &str)] = &[
    (
        "kv-server.sh",
        include_str!("../../../collectors/kv/kv-server.sh"),
    ),
    (
        "kv-ladder.sh",
        include_str!("../../../collectors/kv/kv-ladder.sh"),
    ),
];

pub const PLAIN: &str = "gpu-only";
pub const ADP: &str = "adp";
pub const LMCACHE: &str = "lmcache";

/// Where the KV tests run and what they send.
#[derive(Debug, Clone)]
pub struct Kv {
    /// The folder holding one compose folder per variant (the procedure's `~/bench`).
    pub bench: PathBuf,
    /// The load folder with agents.json and results/ (the procedure's `~/bench/load`),
    /// which also receives restore/, dram/, logs/, compose/ and system/.
    pub out: PathBuf,
    pub url: String,
    /// The served model name requests carry.
    pub served: String,
    /// The weights the ladder client tokenizes with (`--model`).
    pub weights: String,
    /// The `ask` helper's LINES.
    pub lines: u64,
    pub ready_timeout_s: u64,
    /// Where the prompt, request and response files live (outside the results).
    pub work: PathBuf,
    /// Seconds between ladder levels (the procedure: 15).
    pub pause_s: u32,
}

impl Kv {
    pub fn dir(&self, variant: &str) -> PathBuf {
        self.bench.join(variant)
    }

    fn server(&self, s: &Scripts, step: &str) -> crate::process::Invocation {
        s.call("kv-server.sh").arg(step)
    }

    fn once(name: String, origin: Origin, inv: crate::process::Invocation) -> Step {
        let mut st = Step::new(name, origin, inv, Check::Exit);
        st.resumable = false;
        st
    }

    pub fn up(&self, s: &Scripts, variant: &str) -> Step {
        let line = if variant == PLAIN {
            lines::UP_PLAIN
        } else {
            lines::UP_ADP
        };
        let differs = (variant != PLAIN && variant != ADP).then(|| {
            format!("in the {variant} variant's folder: test 3 runs test 1 and the ladder on it as on the ADP variant")
        });
        Kv::once(
            format!("{variant}: docker compose up -d"),
            Origin::procedure(lines::KV_TEST1, line),
            self.server(s, "up").arg(self.dir(variant).as_os_str()),
        )
        .differs(differs)
        .estimate(60)
        .required()
    }

    pub fn ready(&self, s: &Scripts, variant: &str) -> Step {
        Kv::once(
            format!("{variant}: ready"),
            Origin::procedure(lines::KV_TEST1, lines::READY),
            self.server(s, "ready")
                .arg(&self.url)
                .arg(&self.served)
                .arg(self.ready_timeout_s.to_string()),
        )
        .differs([format!(
            "--ready-timeout {}: gives up when the server is not ready by then, where the procedure's waits without end",
            self.ready_timeout_s
        )])
        .estimate(120)
        .required()
    }

    pub fn restart(&self, s: &Scripts, variant: &str, i: usize) -> Step {
        Kv::once(
            format!("{variant}: docker compose restart vllm ({i})"),
            Origin::procedure(lines::KV_TEST1, lines::RESTART),
            self.server(s, "restart").arg(self.dir(variant).as_os_str()),
        )
        .estimate(60)
        .required()
    }

    pub fn down(&self, s: &Scripts, variant: &str) -> Step {
        Kv::once(
            format!("{variant}: docker compose down"),
            Origin::procedure(lines::KV_TEST1, lines::DOWN),
            self.server(s, "down").arg(self.dir(variant).as_os_str()),
        )
        .estimate(20)
        .cleanup()
    }

    pub fn logs(&self, s: &Scripts, variant: &str, service: &str, file: &str) -> Step {
        Kv::once(
            format!("{variant}: docker compose logs {service}"),
            Origin::procedure(lines::KV_REPORT, lines::KV_LOGS),
            self.server(s, "logs")
                .arg(self.dir(variant).as_os_str())
                .arg(service)
                .arg(self.out.join(file).as_os_str()),
        )
        .differs(["the whole log is kept: the analysis finds those lines in it".to_string()])
    }

    /// The variant's compose file, copied into `compose/<variant>/` for support.
    pub fn save_compose(&self, s: &Scripts, variant: &str) -> Step {
        let from = compose_file(&self.dir(variant));
        Kv::once(
            format!("{variant}: compose file"),
            Origin::procedure(lines::KV_REPORT, lines::KV_COMPOSE),
            s.call("capture.sh")
                .arg(
                    self.out
                        .join("compose")
                        .join(variant)
                        .join("compose.yaml")
                        .as_os_str(),
                )
                .arg("cat")
                .arg(from.as_os_str()),
        )
    }

    pub fn new_prompt(&self, s: &Scripts, variant: &str) -> Step {
        Kv::once(
            format!("{variant}: new_prompt"),
            Origin::procedure(lines::KV_TEST1, lines::NEW_PROMPT),
            self.server(s, "new-prompt")
                .arg(self.work.join(variant).as_os_str())
                .arg(self.lines.to_string())
                .arg(&self.served),
        )
        .differs(["prompt.txt and request.json go to a work folder per variant: the variants' prompts do not overwrite each other".to_string()])
        .required()
    }

    /// `ask`, appending its line to `transcript` (relative to the results folder); the
    /// step fails when the line is not a measurement (a failed request).
    /// `k` is the ask's line in the transcript (from 1): its `/metrics` snapshots are
    /// `<transcript>.ask<k>.pre.prom` and `.post.prom`.
    pub fn ask(&self, s: &Scripts, variant: &str, transcript: &str, label: &str, k: usize) -> Step {
        let path = self.out.join(transcript);
        let snapshots = self.out.join(snapshot_base(transcript, k));
        let check = Check::Custom(Arc::new(move |exit| {
            if let Err(e) = exit {
                return Outcome::Failed(e.to_string());
            }
            match ask::parse_path(&path) {
                Ok(a) => match a.last() {
                    Some(last) => match &last.failed {
                        Some(why) => Outcome::Failed(format!(
                            "the request failed ({why}); if the prompt is longer than --max-model-len, lower --lines"
                        )),
                        None => Outcome::Ok,
                    },
                    None => Outcome::Failed("no ask line was written".into()),
                },
                Err(e) => Outcome::Failed(e.to_string()),
            }
        }));
        let mut st = Step::new(
            format!("{variant}: ask ({label})"),
            Origin::procedure(lines::KV_TEST1, lines::ASK),
            self.server(s, "ask")
                .arg(&self.url)
                .arg(self.work.join(variant).as_os_str())
                .arg(path_os(&self.out.join(transcript)))
                .arg(snapshots.as_os_str()),
            check,
        )
        .differs([format!(
            "its line is appended to {transcript}: the procedure's prints it, the analysis reads the file"
        ), format!(
            "/metrics is read right before and after the request into {}.pre.prom and .post.prom: reprobench's addition, the server's counters around the request (the analysis judges the connector's restores by them)",
            snapshot_base(transcript, k)
        )])
        .estimate(50);
        st.resumable = false;
        st
    }

    pub fn reset(&self, s: &Scripts, variant: &str, i: usize) -> Step {
        Kv::once(
            format!("{variant}: reset_prefix_cache ({i})"),
            Origin::procedure(lines::KV_TEST3, lines::RESET),
            self.server(s, "reset").arg(&self.url),
        )
        .required()
    }

    /// A fresh transcript: test 1's lines come from one uninterrupted sequence.
    pub fn start_transcript(&self, variant: &str, transcript: &str) -> Step {
        let mut step = self.remove(variant, transcript);
        // Every ask a transcript can hold: the cold one, the timed ones and the repeat of
        // a slow first; a leftover snapshot would be read as this run's.
        for k in 1..=crate::suites::kv_common::restore::TIMED_RUNS + 2 {
            for part in ["pre", "post"] {
                let snap = format!("{}.{part}.prom", snapshot_base(transcript, k));
                step.invocation = step.invocation.clone().arg(self.out.join(snap).as_os_str());
            }
        }
        step
    }

    fn remove(&self, variant: &str, file: &str) -> Step {
        Kv::once(
            format!("{variant}: start {file} afresh"),
            Origin::tool(
                "a rerun appends to this file: lines of an earlier run would be read as this run's",
            ),
            crate::process::Invocation::new("rm")
                .arg("-f")
                .arg(self.out.join(file).as_os_str()),
        )
    }

    /// Test 1 as the procedure writes it. Plain vLLM: three recomputes, each followed by
    /// a restart; with a connector: one cold request, then three restarts each followed
    /// by a restore. Logs and the compose file are kept; the variant is brought down.
    /// The server logs are appended (one log per variant over every phase); `fresh_logs`
    /// starts them afresh, as the first phase of a collection does.
    pub fn test1(
        &self,
        s: &Scripts,
        variant: &str,
        transcript: &str,
        gateway: bool,
        fresh_logs: bool,
    ) -> Vec<Step> {
        let mut out = vec![self.start_transcript(variant, transcript)];
        if fresh_logs {
            out.push(self.remove(variant, &format!("logs/{variant}-vllm.log")));
            if gateway {
                out.push(self.remove(variant, &format!("logs/{variant}-gateway.log")));
            }
        }
        out.extend([
            self.up(s, variant),
            self.ready(s, variant),
            self.new_prompt(s, variant),
        ]);
        if variant == PLAIN {
            for i in 1..=3 {
                let mut a = self.ask(s, variant, transcript, &format!("recompute {i}"), i);
                if i == 1 {
                    a = a.required();
                }
                out.push(a);
                out.push(self.restart(s, variant, i));
                out.push(self.ready(s, variant));
            }
            // The server was just started afresh: the repeat is one more recompute.
            out.push(self.repeat_slow_first(
                self.ask(s, variant, transcript, "recompute 1 repeated", 4),
                transcript,
                0,
            ));
        } else {
            out.push(self.ask(s, variant, transcript, "cold", 1).required());
            for i in 1..=3 {
                out.push(self.restart(s, variant, i));
                out.push(self.ready(s, variant));
                out.push(self.ask(s, variant, transcript, &format!("restore {i}"), i + 1));
            }
            // A restore after a fresh start, as restore 1 was.
            let mut ready = self.ready(s, variant);
            ready.name = format!("{variant}: ready (for the repeat)");
            for step in [
                self.restart(s, variant, 4),
                ready,
                self.ask(s, variant, transcript, "restore 1 repeated", 5),
            ] {
                out.push(self.repeat_slow_first(step, transcript, 1));
            }
        }
        out.push(self.logs(s, variant, "vllm", &format!("logs/{variant}-vllm.log")));
        if gateway {
            out.push(self.logs(
                s,
                variant,
                "gateway",
                &format!("logs/{variant}-gateway.log"),
            ));
        }
        out.push(self.save_compose(s, variant));
        out.push(self.down(s, variant));
        out
    }

    /// `step`, run only for the procedure's repeat of a slow first timed run: when the
    /// transcript's first timed request (after `skip` untimed ones) was more than 10%
    /// slower than the next (the rule the analysis judges by) and is not repeated yet.
    /// The analysis then uses the repeat in its place.
    fn repeat_slow_first(&self, step: Step, transcript: &str, skip: usize) -> Step {
        use crate::suites::kv_common::restore::{slow_first, timed, TIMED_RUNS};
        let path = self.out.join(transcript);
        let mut step = step
            .only_if(
                format!("the first timed request in {transcript} was more than 10% slower than the next (then it is repeated once, and the analysis uses the repeat)"),
                move || {
                    let attempts = ask::parse_path(&path)
                        .map_err(|e| format!("the transcript cannot be read: {e}"))?;
                    if attempts.len().saturating_sub(skip) > TIMED_RUNS {
                        return Err("the first timed request is repeated already".into());
                    }
                    let t = timed(&attempts, skip);
                    match t.as_slice() {
                        _ if slow_first(&t) => Ok(()),
                        [first, next, ..] => Err(format!(
                            "the first timed request ({first:.2} s) was not more than 10% slower than the next ({next:.2} s)"
                        )),
                        _ => Err("fewer than two timed requests were answered".into()),
                    }
                },
            );
        // A restart or ready that fails stops the rest (as elsewhere): an ask that did
        // not follow a fresh start is no repeat.
        step.origin = Origin::procedure(lines::KV_TEST1, lines::REPEAT_SLOW_FIRST);
        step
    }

    /// A ladder run on a freshly started server: up, ready, the levels, the server's log
    /// (appended), down.
    pub fn ladder_run(&self, s: &Scripts, variant: &str, run: u32, levels: &[u32]) -> Vec<Step> {
        let mut out = vec![self.up(s, variant), self.ready(s, variant)];
        for &n in levels {
            out.push(self.level(s, variant, run, n));
        }
        out.push(self.logs(s, variant, "vllm", &format!("logs/{variant}-vllm.log")));
        out.push(self.down(s, variant));
        out
    }

    /// One ladder level: the procedure's ladder() body for `clients`, then its pause.
    pub fn level(&self, s: &Scripts, variant: &str, run: u32, clients: u32) -> Step {
        let base = self
            .out
            .join("results")
            .join(format!("{variant}-{run}-L{clients}"));
        let check = Check::Custom(Arc::new(move |exit| level_done(exit, &base)));
        let inv = s
            .call("kv-ladder.sh")
            .arg(&self.url)
            .arg(&self.weights)
            .arg(&self.served)
            .arg(variant)
            .arg(run.to_string())
            .arg(clients.to_string())
            .arg(self.pause_s.to_string())
            .dir(&self.out);
        let mut differs = vec![
            "one level per step, the body of the procedure's loop for this client count: a stopped collection resumes at the level it stopped at".to_string(),
            format!("/metrics every 5 s (SCRAPE_S) into results/{variant}-{run}-L{clients}.series.prom, and nvidia-smi once a second into .gpu.csv where it exists, while the clients run: reprobench's additions for the level's timeline; both only read"),
            "`2>&1 | tee` where the procedure has `| tee`: the client prints its failure counts on standard error, so with the literal command the .log would not hold them and the failures criterion could not be judged".to_string(),
        ];
        if self.pause_s != 15 {
            differs.push(format!(
                "--pause {}: that long after the level, where the procedure's sleeps 15 s",
                self.pause_s
            ));
        }
        Step::new(
            format!("{variant}-{run}-L{clients}"),
            Origin::procedure(lines::KV_TEST2, lines::LADDER),
            inv,
            check,
        )
        .differs(differs)
        .estimate(120 + 10 * u64::from(clients) + u64::from(self.pause_s))
    }
}

/// Where the `/metrics` snapshots around a transcript's `k`-th ask go:
/// `restore/adp.txt`, 2 -> `restore/adp.ask2`.
pub fn snapshot_base(transcript: &str, k: usize) -> String {
    let stem = transcript.strip_suffix(".txt").unwrap_or(transcript);
    format!("{stem}.ask{k}")
}

fn path_os(p: &Path) -> std::ffi::OsString {
    p.as_os_str().to_owned()
}

/// A level counts when its records parse (at least one), both snapshots exist and the
/// client's log says every client finished.
fn level_done(
    exit: &Result<crate::process::Output, crate::process::ProcessError>,
    base: &Path,
) -> Outcome {
    let file = |ext: &str| PathBuf::from(format!("{}.{ext}", base.display()));
    match mt_records::parse_path(&file("json")) {
        Ok(r) if r.is_empty() => return Outcome::Failed("the client wrote no records".into()),
        Ok(_) => {}
        Err(e) => {
            let log = std::fs::read_to_string(file("log")).unwrap_or_default();
            let last = log
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Outcome::Failed(if last.is_empty() {
                e.to_string()
            } else {
                format!("{}; the client's last line: {last}", e.reason)
            });
        }
    }
    for ext in ["pre.prom", "post.prom", "log"] {
        if !file(ext).is_file() {
            return Outcome::Failed(format!("no `{}`", file(ext).display()));
        }
    }
    match exit {
        Err(e) => Outcome::Failed(e.to_string()),
        Ok(_) => Outcome::Ok,
    }
}

/// The compose file of a variant's folder (`compose.yaml` and its other names).
pub fn compose_file(dir: &Path) -> PathBuf {
    for n in [
        "compose.yaml",
        "compose.yml",
        "docker-compose.yaml",
        "docker-compose.yml",
    ] {
        if dir.join(n).is_file() {
            return dir.join(n);
        }
    }
    dir.join("compose.yaml")
}

/// What the model's row of the procedure asks of a variant's compose file, and whether
/// the prompt fits its context. Empty when all is well.
pub fn compose_problems(dir: &Path, m: &ModelRef, connector: bool) -> Vec<String> {
    let file = compose_file(dir);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return vec![format!(
            "no compose file in `{}`: create it as the procedure's \"Build it\" step 5 says",
            dir.display()
        )];
    };
    let mut out = Vec::new();
    let mut want = vec![
        m.image.clone(),
        format!("--max-model-len={}", m.max_model_len),
    ];
    want.extend(m.extra.iter().cloned());
    if connector {
        if let Some(c) = m.chunk_size {
            want.push(format!("\"chunk_size\":{c}"));
        }
    }
    for w in want {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let w_compact: String = w.chars().filter(|c| !c.is_whitespace()).collect();
        if !compact.contains(&w_compact) {
            out.push(format!(
                "`{}` does not have `{w}`, which the procedure's row for {} asks for",
                file.display(),
                m.title
            ));
        }
    }
    out
}

/// What test 2's workload folder lacks, each with how the procedure makes it ("Prepare
/// the workload directory"): the folder, the books, `agents.json`.
pub fn workload_problems(dir: &Path) -> Vec<String> {
    let shown = dir.display();
    if !dir.is_dir() {
        return vec![format!(
            "no `{shown}`: make it as the procedure's \"Prepare the workload directory\" does: `mkdir -p {shown} && cd {shown}`, the books (`curl -fLo pg$book.txt https://www.gutenberg.org/ebooks/$book.txt.utf-8` for 1184, 2600 and 135), `agents.json`, and the client image (`docker build -t adp-bench-client -`)"
        )];
    }
    let mut out = Vec::new();
    let books: Vec<String> = ["pg1184.txt", "pg2600.txt", "pg135.txt"]
        .into_iter()
        .filter(|b| !dir.join(b).is_file())
        .map(String::from)
        .collect();
    if !books.is_empty() {
        out.push(format!(
            "no {} in `{shown}`: fetch the books as the procedure's \"Prepare the workload directory\" does (`curl -fLo pg$book.txt https://www.gutenberg.org/ebooks/$book.txt.utf-8`)",
            books.join(", ")
        ));
    }
    if !dir.join("agents.json").is_file() {
        out.push(format!(
            "no `{}`: create the workload file as the procedure's \"Prepare the workload directory\" says",
            dir.join("agents.json").display()
        ));
    }
    out
}

/// What a variant's compose file lacks for test 3: the LMCache variant runs its own image
/// (vLLM 0.28.0 with LMCache 0.5.5, provided on request), so instead of the product image
/// its connector and `LMC_*` settings are checked; every variant whose prefix cache is
/// reset needs `VLLM_SERVER_DEV_MODE=1` (`/reset_prefix_cache` answers 404 without it).
pub fn dram_compose_problems(dir: &Path, m: &ModelRef, variant: &str) -> Vec<String> {
    let file = compose_file(dir);
    let Ok(text) = std::fs::read_to_string(&file) else {
        return vec![format!(
            "no compose file in `{}`: create it as the procedure's test 3 says",
            dir.display()
        )];
    };
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    if variant == "lmcache" {
        for w in [
            "LMCacheMPConnector",
            "LMC_L1_GB=400",
            "LMC_XKV_HOST=gateway",
            "LMC_XKV_FRAG=131072",
            &format!("--max-model-len={}", m.max_model_len),
        ] {
            // `KEY=value` as a list item, or `KEY: value` as a mapping.
            let alt = w.replacen('=', ":", 1);
            if !compact.contains(w) && !compact.contains(&alt) {
                out.push(format!(
                    "`{}` does not have `{w}`, which the procedure's test 3 lists for the LMCache variant",
                    file.display()
                ));
            }
        }
    } else {
        out.extend(compose_problems(dir, m, variant == ADP));
    }
    let dev_mode = [
        "VLLM_SERVER_DEV_MODE=1",
        "VLLM_SERVER_DEV_MODE:1",
        "VLLM_SERVER_DEV_MODE:\"1\"",
        "VLLM_SERVER_DEV_MODE:'1'",
    ];
    if !dev_mode.iter().any(|d| compact.contains(d)) {
        out.push(format!(
            "`{}` does not set VLLM_SERVER_DEV_MODE=1: the warm restores reset the prefix cache (POST /reset_prefix_cache), which answers 404 without it",
            file.display()
        ));
    }
    out
}

/// Whether the prompt of `lines` lines fits the model's context, by the procedure's own
/// measure of tokens per line.
pub fn prompt_problem(lines: u64, m: &ModelRef, r: &KvReference) -> Option<String> {
    let tokens = (lines as f64 * r.restore.tokens_per_line).round() as u64;
    (tokens >= m.max_model_len).then(|| {
        format!(
            "--lines {lines} makes about {tokens} tokens, not below {}'s --max-model-len {}: lower --lines",
            m.title, m.max_model_len
        )
    })
}

/// What every KV collector is given.
pub struct KvPlan {
    pub kv: Kv,
    /// The model's row of the procedure, when the model is one it publishes.
    pub model: Option<ModelRef>,
    pub reference: KvReference,
    pub dry_run: bool,
    pub fresh: bool,
}

impl KvPlan {
    /// The model from `--model` (an id like `glm-5.3`, or a weights path), its row, and
    /// what the requests carry.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        bench: &Path,
        workdir: &Path,
        url: &str,
        model: &str,
        served: Option<&str>,
        lines: Option<u64>,
        ready_timeout_s: u64,
        pause_s: u32,
        dry_run: bool,
        fresh: bool,
    ) -> anyhow::Result<KvPlan> {
        let reference = KvReference::load()?;
        let row = reference.model(model).cloned();
        let weights = if model.contains('/') {
            model.to_string()
        } else {
            row.as_ref()
                .map_or(model.to_string(), |m| m.weights.clone())
        };
        let served = served
            .map(str::to_string)
            .or_else(|| row.as_ref().map(|m| m.id.clone()))
            .unwrap_or_else(|| model.to_string());
        let lines = lines.or(row.as_ref().map(|m| m.lines)).unwrap_or(14580);
        let work = std::env::temp_dir().join(format!("reprobench-kv-{}", std::process::id()));
        Ok(KvPlan {
            kv: Kv {
                bench: crate::collect::plan::expand_home(bench),
                out: crate::collect::plan::expand_home(workdir),
                url: url.trim_end_matches('/').to_string(),
                served,
                weights,
                lines,
                ready_timeout_s,
                work,
                pause_s,
            },
            model: row,
            reference,
            dry_run,
            fresh,
        })
    }

    /// Preflight for collectors that start the variants themselves.
    pub fn server_preflight(
        &self,
        variants: &[&str],
        runner: &dyn crate::process::Runner,
    ) -> Vec<String> {
        self.preflight_with(variants, runner, |dir, m, v| {
            compose_problems(dir, m, v == ADP)
        })
    }

    /// Test 3's preflight: the LMCache variant by its connector and settings, not the
    /// product image; every reset variant with VLLM_SERVER_DEV_MODE=1.
    pub fn dram_preflight(&self, runner: &dyn crate::process::Runner) -> Vec<String> {
        self.preflight_with(&[ADP, "lmcache"], runner, dram_compose_problems)
    }

    /// Programs, each variant's compose file (by `compose` when the model has a row),
    /// the prompt's fit and free space.
    fn preflight_with(
        &self,
        variants: &[&str],
        runner: &dyn crate::process::Runner,
        compose: impl Fn(&Path, &ModelRef, &str) -> Vec<String>,
    ) -> Vec<String> {
        let mut out = crate::collect::plan::missing_programs(&["docker", "curl", "jq", "python3"]);
        for v in variants {
            let dir = self.kv.dir(v);
            match &self.model {
                Some(m) => out.extend(compose(&dir, m, v)),
                None if !compose_file(&dir).is_file() => {
                    out.push(format!("no compose file in `{}`", dir.display()))
                }
                None => {}
            }
        }
        if let Some(m) = &self.model {
            out.extend(prompt_problem(self.kv.lines, m, &self.reference));
        }
        out.extend(crate::collect::plan::space_problem(
            &self.kv.out,
            16 << 20,
            runner,
        ));
        out
    }

    /// The checks the dry run lists.
    pub fn server_checks(&self, variants: &[&str]) -> Vec<String> {
        let mut c = vec!["programs: docker, curl, jq, python3".to_string()];
        for v in variants {
            c.push(format!(
                "`{}` holds the {v} compose file{}",
                compose_file(&self.kv.dir(v)).display(),
                self.model.as_ref().map_or(String::new(), |m| format!(
                    " with {}'s image {}, --max-model-len={}{}",
                    m.title,
                    m.image,
                    m.max_model_len,
                    if m.extra.is_empty() {
                        String::new()
                    } else {
                        format!(" and {}", m.extra.join(", "))
                    }
                ))
            ));
        }
        if let Some(m) = &self.model {
            c.push(format!(
                "the prompt ({} lines, about {} tokens) fits --max-model-len {}",
                self.kv.lines,
                (self.kv.lines as f64 * self.reference.restore.tokens_per_line).round(),
                m.max_model_len
            ));
        }
        c
    }

    /// The session of a KV collection, its manifest under `manifests/`.
    pub fn session(&self, collection: &str, procedure: &str) -> crate::collect::steps::Session {
        let params = serde_json::json!({
            "url": self.kv.url,
            "model": self.kv.served,
            "weights": self.kv.weights,
            "lines": self.kv.lines,
            "bench": self.kv.bench,
        });
        let mut s = crate::collect::steps::Session::new(
            self.kv
                .out
                .join("manifests")
                .join(format!("{collection}.json")),
            procedure,
            collection,
            params,
            Vec::new(),
        );
        s.resume = !self.fresh;
        s
    }

    /// After a collection: the index manifest names the model, which picks the
    /// published numbers the analysis shows.
    pub fn index(&self, collection: &str, session_path: &Path) -> anyhow::Result<()> {
        crate::collect::plan::index_manifest(
            &self.kv.out,
            collection,
            session_path,
            &[
                ("procedure", "AI Key-Value Caching".to_string()),
                ("model", self.kv.served.clone()),
            ],
        )
    }
}

/// Whether a variant's test 1 transcript is complete: every expected line a measurement.
/// Whether a transcript of `lines` requests is complete: every one answered, and, where
/// the collection repeats a slow first timed request (`repeats`: after restarts, not the
/// warm restores of test 3), that repeat made when it was slow.
pub fn transcript_done(path: &Path, lines: usize, repeats: bool) -> bool {
    use crate::suites::kv_common::restore::{slow_first, timed, TIMED_RUNS};
    // The timed requests follow the untimed one (the connector's cold request).
    let skip = lines.saturating_sub(TIMED_RUNS);
    ask::parse_path(path).is_ok_and(|a| {
        a.len() >= lines
            && a.iter().all(|x| x.failed.is_none())
            // A slow first timed request is done only with its repeat.
            && (!repeats || !slow_first(&timed(&a, skip)) || a.len() > lines)
    })
}

#[cfg(test)]
mod tests {
    use super::transcript_done;

    /// A transcript whose slow first timed request has no repeat is not complete where
    /// the collection repeats it (a rerun makes the repeat), and is where it does not.
    #[test]
    fn a_slow_first_without_its_repeat_is_not_a_complete_transcript() {
        let tmp = tempfile::tempdir().expect("tmp");
        let write = |name: &str, times: &[f64]| {
            let mut text = String::from("time 47.93 s  {\"prompt_tokens\":196531,\"cached\":0}\n");
            for t in times {
                text.push_str(&format!(
                    "time {t} s  {{\"prompt_tokens\":196531,\"cached\":196480}}\n"
                ));
            }
            let p = tmp.path().join(name);
            std::fs::write(&p, text).expect("write");
            p
        };
        let even = write("even.txt", &[2.1, 2.1, 2.2]);
        let slow = write("slow.txt", &[11.3, 2.1, 2.2]);
        let repeated = write("repeated.txt", &[11.3, 2.1, 2.2, 2.1]);
        assert!(transcript_done(&even, 4, true));
        assert!(!transcript_done(&slow, 4, true));
        assert!(transcript_done(&slow, 4, false), "no repeat step: complete");
        assert!(transcript_done(&repeated, 4, true));
        assert!(!transcript_done(&write("short.txt", &[2.1, 2.1]), 4, true));
    }
}

//! What the KV-cache collectors share: the server steps (`docker compose` in a variant's
//! folder, `ready`), the procedure's shell helpers (`new_prompt`, `ask`, the prefix-cache
//! reset), test 1's sequence and one ladder level, each one step through
//! `collectors/kv/kv-server.sh` and `collectors/kv/kv-ladder.sh`; and the preflight checks of a
//! variant's compose file against the model's row of the procedure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::parse::ask;

use crate::collect::outcome::Outcome;
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Step};

mod kv_plan;
mod ladder;
mod preflight;

pub use kv_plan::{transcript_done, KvPlan};
pub use preflight::{
    compose_file, compose_problems, dram_compose_problems, prompt_problem, workload_problems,
};

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
                        [first, next, ..] => Err(crate::phrase!(
                            "the first timed request ({} s) was not more than 10% slower than the next ({} s)",
                            crate::model::phrase::fixed(*first, 2),
                            crate::model::phrase::fixed(*next, 2)
                        )
                        .to_string()),
                        _ => Err("fewer than two timed requests were answered".into()),
                    }
                },
            );
        // A restart or ready that fails stops the rest (as elsewhere): an ask that did
        // not follow a fresh start is no repeat.
        step.origin = Origin::procedure(lines::KV_TEST1, lines::REPEAT_SLOW_FIRST);
        step
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

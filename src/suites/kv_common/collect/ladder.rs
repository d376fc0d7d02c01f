//! The ladder's steps: a ladder run on a freshly started server, and one level through
//! `collectors/kv/kv-ladder.sh` with the check that it counts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::parse::mt_records;

use crate::collect::outcome::Outcome;
use crate::collect::scripts::Scripts;
use crate::collect::steps::origin::lines;
use crate::collect::steps::{Check, Origin, Step};

use super::Kv;

impl Kv {
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

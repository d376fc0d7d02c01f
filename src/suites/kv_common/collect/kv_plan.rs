//! What every KV collector is given (`KvPlan`): the model's row, the preflight, the dry
//! run's checks, the session and the index manifest; and whether a transcript is complete.

use std::path::Path;

use crate::parse::ask;
use crate::suites::kv_common::reference::{KvReference, ModelRef};

use super::{compose_file, compose_problems, dram_compose_problems, prompt_problem, Kv, ADP};

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

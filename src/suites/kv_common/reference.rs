//! The published numbers and thresholds of `reports/kv-cache.toml`, embedded in the binary.

use serde::Deserialize;

pub const KV_TOML: &str = include_str!("../../../reports/kv-cache.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct KvReference {
    pub restore: RestoreRef,
    pub model: Vec<ModelRef>,
    pub ladder: LadderRef,
    pub dram: DramRef,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RestoreRef {
    pub min_cached_share: f64,
    pub restore_vs_recompute: f64,
    pub restore_floor_s: f64,
    pub default_model: String,
    pub max_prompt_gap: f64,
    pub tokens_per_line: f64,
    pub source: String,
    pub tp_source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelRef {
    pub id: String,
    pub aliases: Vec<String>,
    pub title: String,
    pub prompt_tokens: u64,
    pub restore_s: f64,
    pub recompute_s: f64,
    /// The connector's chunk_size for this model, when the procedure fixes one.
    pub chunk_size: Option<u64>,
    /// Or the multiple it must be of.
    pub chunk_multiple: Option<u64>,
    pub max_model_len: u64,
    pub tensor_parallel_size: u64,
    /// The vLLM image tag of the "Other models" table.
    pub image: String,
    /// The `ask` helper's LINES for about the published prompt.
    pub lines: u64,
    /// The row's "Additional changes" a compose file must carry.
    #[serde(default)]
    pub extra: Vec<String>,
    /// Warm up before measuring (kernels compile on first use).
    #[serde(default)]
    pub warm_up: bool,
    /// Where the procedure puts the weights.
    pub weights: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LadderRef {
    pub small_levels: Vec<u32>,
    pub small_min_ratio: f64,
    pub fill_level: u32,
    pub large_levels: Vec<u32>,
    pub sla_gen_tok_s: f64,
    pub max_spread: f64,
    pub min_runs: usize,
    pub source: String,
    pub procedure: LadderProcedure,
    pub param: Vec<ParamRef>,
    pub regime: RegimeRef,
}

/// The regime each level is meant to run in: its active histories as a multiple of the
/// KV cache, as the procedure states it for the reference setup.
#[derive(Debug, Clone, Deserialize)]
pub struct RegimeRef {
    pub levels: Vec<u32>,
    pub multiples: Vec<f64>,
    /// Under this share of its stated multiple a level ran a milder regime.
    pub min_share: f64,
    pub reference_cache_tokens: u64,
    pub source: String,
}

impl RegimeRef {
    /// The multiple the procedure states for `clients`, if it states one.
    pub fn multiple(&self, clients: u32) -> Option<f64> {
        let i = self.levels.iter().position(|l| *l == clients)?;
        self.multiples.get(i).copied()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LadderProcedure {
    pub levels: Vec<u32>,
    pub source: String,
    pub level_source: String,
    pub level_effect: String,
}

/// One argument the procedure fixes, and what another value does to the comparison.
#[derive(Debug, Clone, Deserialize)]
pub struct ParamRef {
    pub name: String,
    pub value: String,
    pub changes: bool,
    pub effect: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DramRef {
    pub levels: Vec<u32>,
    pub max_gen_gap: f64,
    pub warm_adp_s: f64,
    pub warm_lmcache_s: f64,
    pub restart_adp_s: f64,
    pub restart_lmcache_s: f64,
    pub source: String,
}

impl KvReference {
    pub fn load() -> Result<KvReference, toml::de::Error> {
        crate::parse::embedded_toml::read(KV_TOML)
    }

    /// The reference, or a note in `report` saying why it could not be read (a build
    /// defect: the file is embedded and tested).
    pub fn load_or_note(report: &mut crate::suites::SuiteReport) -> Option<KvReference> {
        match KvReference::load() {
            Ok(r) => Some(r),
            Err(e) => {
                report.notes.push(format!(
                    "failed to read the embedded reports/kv-cache.toml: {e}"
                ));
                None
            }
        }
    }

    /// The published model a name refers to (`glm-5.3`, `/models/GLM-5.3-FP8`, ...).
    pub fn model(&self, name: &str) -> Option<&ModelRef> {
        let n = name.trim().to_ascii_lowercase();
        let base = n.rsplit('/').next().unwrap_or(&n).to_string();
        self.model.iter().find(|m| {
            m.aliases
                .iter()
                .any(|a| a == &n || a == &base || base.starts_with(a.as_str()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_finds_models_by_any_name() {
        let r = KvReference::load().expect("reports/kv-cache.toml parses");
        assert_eq!(r.model.len(), 4);
        assert_eq!(r.model("glm-5.3").map(|m| m.restore_s), Some(2.12));
        assert_eq!(
            r.model("/models/GLM-5.3-FP8").map(|m| m.id.as_str()),
            Some("glm-5.3")
        );
        assert_eq!(
            r.model("Kimi-Linear-48B-A3B").map(|m| m.recompute_s),
            Some(3.28)
        );
        assert!(r.model("llama").is_none());
    }
}

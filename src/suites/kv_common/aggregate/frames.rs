//! The `ladder_levels` and `ladder_medians` frames, for export: their tables and how
//! they are built from the levels and the aggregate.

use super::feeding::{left_out, GEN, GPU_HIT, MEDIANS, OUTPUT, TTFT};
use super::Aggregate;
use crate::frames::{Frame, FrameBuilder};
use crate::schema::frames::INPUT;
use crate::schema::{c, Table, Type};
use crate::suites::kv_common::ladder::Level;

/// The `ladder_levels` frame: its rows and columns, as `--export` checks and describes
/// them.
pub static LEVELS: Table = Table {
    name: "ladder_levels",
    rows: "level of a ladder run, with the procedure script's arithmetic (kv-ladder)",
    parts: &[&[
        INPUT,
        c("variant", Type::Str, "", "from the file name"),
        c("run", Type::Str, "", "from the file name"),
        c("clients", Type::I64, "", "the level"),
        c(
            "prefix",
            Type::Str,
            "",
            "path before -L: the script's sort key",
        ),
        c("requests", Type::F64, "requests", "records in the .json"),
        c(
            "output_tok_s",
            Type::F64,
            "tok/s",
            "output tokens over the level's span",
        ),
        c("ttft_p50_s", Type::F64, "s", "median time to first token"),
        c("gen_tok_s", Type::F64, "tok/s", "1000 / median tpot_ms"),
        c(
            "gpu_hit_pct",
            Type::F64,
            "%",
            "GPU prefix-cache hit rate between the snapshots",
        ),
        c(
            "card_hit_pct",
            Type::F64,
            "%",
            "external (card) prefix-cache hit rate",
        ),
        c(
            "card_hits",
            Type::F64,
            "tokens",
            "card hits during the level",
        ),
        c(
            "failures",
            Type::F64,
            "requests",
            "num_failures summed over the clients (.log)",
        ),
        c("runtime_s", Type::F64, "s", "the client's runtime"),
        c(
            "stopped_early",
            Type::Bool,
            "",
            "the client stopped all clients when the first finished",
        ),
        c(
            "died",
            Type::Str,
            "",
            "the client's last traceback line, empty when it did not die",
        ),
    ]],
};

/// The `ladder_medians` frame.
pub static MEDIANS_TABLE: Table = Table {
    name: "ladder_medians",
    rows: "variant and level: the medians over runs and their spread (computed with Polars)",
    parts: &[&[
        INPUT,
        c("variant", Type::Str, "", "variant"),
        c("clients", Type::I64, "", "the level"),
        c("runs", Type::I64, "", "runs of the level"),
        c(
            "runs_in_median",
            Type::I64,
            "",
            "runs that feed the medians: neither failing, stopped early nor without records",
        ),
        c("output_tok_s", Type::F64, "tok/s", "median over runs"),
        c(
            "output_tok_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("gen_tok_s", Type::F64, "tok/s", "median over runs"),
        c(
            "gen_tok_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("ttft_p50_s", Type::F64, "s", "median over runs"),
        c(
            "ttft_p50_s_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
        c("gpu_hit_pct", Type::F64, "%", "median over runs"),
        c(
            "gpu_hit_pct_spread",
            Type::F64,
            "fraction",
            "largest over smallest minus one",
        ),
    ]],
};

/// One row per level: the `ladder_levels` frame.
pub fn levels_frame(levels: &[Level]) -> anyhow::Result<Frame> {
    FrameBuilder::of(&LEVELS)
        .str("variant", levels.iter().map(|l| l.variant.as_str()))
        .str("run", levels.iter().map(|l| l.run.as_str()))
        .count("clients", levels.iter().map(|l| u64::from(l.clients)))
        .str("prefix", levels.iter().map(|l| l.prefix.as_str()))
        .f64(
            "requests",
            levels.iter().map(|l| l.requests.map(|n| n as f64)),
        )
        .f64(OUTPUT, levels.iter().map(|l| l.output_tok_s))
        .f64(TTFT, levels.iter().map(|l| l.ttft_p50_s))
        .f64(GEN, levels.iter().map(|l| l.gen_tok_s))
        .f64(GPU_HIT, levels.iter().map(|l| l.gpu_hit_pct))
        .f64("card_hit_pct", levels.iter().map(|l| l.card_hit_pct))
        .f64("card_hits", levels.iter().map(|l| l.card_hits))
        .f64(
            "failures",
            levels.iter().map(|l| l.failures.map(|n| n as f64)),
        )
        .f64("runtime_s", levels.iter().map(|l| l.runtime_sec))
        .bool("stopped_early", levels.iter().map(|l| l.stopped_early))
        .str(
            "died",
            levels.iter().map(|l| l.died.as_deref().unwrap_or("")),
        )
        .build()
}

impl Aggregate<'_> {
    /// `ladder_medians`: one row per variant and client count.
    fn medians_frame(&self) -> anyhow::Result<Frame> {
        let keys: Vec<&(String, u32)> = self.by.keys().collect();
        let mut b = FrameBuilder::of(&MEDIANS_TABLE)
            .str("variant", keys.iter().map(|k| k.0.as_str()))
            .count("clients", keys.iter().map(|k| u64::from(k.1)))
            .count("runs", self.by.values().map(|r| r.len() as u64))
            .count(
                "runs_in_median",
                self.by
                    .values()
                    .map(|r| r.iter().filter(|l| left_out(l).is_none()).count() as u64),
            );
        for m in MEDIANS {
            let of = |k: &&(String, u32)| self.metric(&k.0, k.1, m);
            b = b
                .f64(m, keys.iter().map(|k| of(k).0))
                .f64(&format!("{m}_spread"), keys.iter().map(|k| of(k).1));
        }
        b.build()
    }

    /// The frames, for export; a frame that cannot be built is a note.
    pub fn frames(&self) -> (Vec<Frame>, Vec<String>) {
        let mut frames = Vec::new();
        let mut problems = Vec::new();
        for built in [levels_frame(self.levels), self.medians_frame()] {
            match built {
                Ok(f) => frames.push(f),
                Err(e) => problems.push(format!("ladder frames: {e:#}")),
            }
        }
        (frames, problems)
    }
}

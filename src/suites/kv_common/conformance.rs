//! The KV suites' reference-setup table (in `reports/kv-cache.toml`) checked against what
//! the files show: one table for the three KV tests.

use std::sync::OnceLock;

use crate::suites::kv_common::reference::KV_TOML as TOML;
use crate::why::conformance::{
    contains, row_with, unknown, Conformance, ConformanceRow, ReferenceSetup, Row,
};
use crate::why::setup::{Read, Setup};

/// The table beside what `setup` shows; none when the TOML's table does not parse (the
/// suites' tests parse it).
pub fn conformance(setup: &Setup) -> Option<Conformance> {
    static TABLE: OnceLock<Option<ReferenceSetup>> = OnceLock::new();
    TABLE
        .get_or_init(|| ReferenceSetup::parse(TOML).ok())
        .as_ref()
        .map(|t| t.judge(setup, check))
}

/// One row checked against the files; none for a row this suite has no check for (its
/// test checks every row of the TOML has one).
fn check(row: &Row, s: &Setup) -> Option<ConformanceRow> {
    let get = |k: &str| s.get(k);
    let num_is = |r: &Read, want: f64| r.number.is_some_and(|n| (n - want).abs() < 1e-9);
    Some(match row.id.as_str() {
        "gpu-model" => get("gpu-model").map_or_else(|| unknown(row), |r| row_with(row, r, contains(r, "H200"), None)),
        "gpu-count" => get("gpu-count").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 8.0), None)),
        "nvlink" => match (get("nvlink"), get("nvlink-sizes")) {
            (Some(r), Some(sizes)) => row_with(row, r, sizes.value == "4,4", None),
            _ => unknown(row),
        },
        "driver" => get("driver").map_or_else(|| unknown(row), |r| row_with(row, r, r.number.is_some_and(|m| m >= 580.0), None)),
        "vllm-version" => get("vllm-version").map_or_else(
            || unknown(row),
            |r| row_with(row, r, ["0.28.0", "0.29.0"].iter().any(|v| r.value.trim_start_matches('v') == *v), None),
        ),
        "connector-release" => get("connector-release").map_or_else(|| unknown(row), |r| row_with(row, r, r.value == "6.1.1", None)),
        "model" => get("model").map_or_else(
            || unknown(row),
            |r| row_with(row, r, contains(r, "glm-5.3") && !contains(r, "bf16"), None),
        ),
        "tensor-parallel" => get("tensor-parallel").map_or_else(
            || unknown(row),
            |r| {
                let extra = r.number.filter(|n| *n > 0.0 && *n < 8.0).map(|n| {
                    crate::phrase!("With {} GPUs holding the KV cache instead of 8, expect about {}% of the reference's GPU KV cache, so GPU memory overflows at fewer clients.", crate::model::phrase::plain(n), crate::model::phrase::fixed(100.0 * n / 8.0, 0)).to_string()
                });
                row_with(row, r, num_is(r, 8.0), extra)
            },
        ),
        "mtp" => get("mtp").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 1.0) && !r.value.contains("num_speculative_tokens\": 2") && !r.value.contains("'num_speculative_tokens': 2"), None)),
        "max-model-len" => get("max-model-len").map_or_else(|| unknown(row), |r| row_with(row, r, num_is(r, 256_000.0), None)),
        "kv-cache-tokens" => get("kv-cache-tokens").map_or_else(
            || unknown(row),
            |r| {
                let ok = r.number.is_some_and(|n| (n / 545_536.0 - 1.0).abs() <= 0.02);
                let extra = r.number.map(|n| crate::phrase!("Yours holds {}% of the reference's tokens.", crate::model::phrase::fixed(100.0 * n / 545_536.0, 0)).to_string());
                row_with(row, r, ok, extra)
            },
        ),
        "link-gbit" => get("link-gbit").map_or_else(
            || unknown(row),
            |r| {
                // ib_read_bw reaches ~90-97% of a link's signalling rate.
                let ok = r.number.is_some_and(|g| (85.0..=110.0).contains(&g));
                let extra = r.number.filter(|g| *g > 0.0).map(|g| {
                    if g < 85.0 {
                        crate::phrase!("At {} Gb/s against about 97 Gb/s on a 100 Gb/s port, the link-bound restore floor is about {}x the reference's.", crate::model::phrase::fixed(g, 1), crate::model::phrase::fixed(97.0 / g, 1)).to_string()
                    } else {
                        crate::phrase!("At {} Gb/s the link is faster than the reference's: restores may then be bounded by the card's SSDs, and may beat the published times.", crate::model::phrase::fixed(g, 1)).to_string()
                    }
                });
                row_with(row, r, ok, extra)
            },
        ),
        "transport" => get("transport").map_or_else(|| unknown(row), |r| row_with(row, r, r.value.split(", ").any(|t| t == "rdma"), None)),
        "cache-tier" => cache_tier(row, s),
        _ => return None,
    })
}

/// The size of `node` in `nvme list`, in TB, from the `nvme-devices` fact.
fn namespace_tb(s: &Setup, node: &str) -> Option<(f64, String)> {
    let devs = s.get("nvme-devices")?;
    devs.value.split(';').find_map(|d| {
        let mut p = d.splitn(3, '=');
        let (n, _model, size) = (p.next()?, p.next()?, p.next()?);
        if n != node {
            return None;
        }
        let mut w = size.split_whitespace();
        let (v, unit) = (w.next()?.parse::<f64>().ok()?, w.next()?);
        let tb = match unit {
            "TB" => v,
            "GB" => v / 1000.0,
            "PB" => v * 1000.0,
            _ => return None,
        };
        Some((tb, devs.source.clone()))
    })
}

fn cache_tier(row: &Row, s: &Setup) -> ConformanceRow {
    let Some(dev) = s.get("cache-device") else {
        return unknown(row);
    };
    let Some((tb, list)) = namespace_tb(s, dev.value.split(',').next().unwrap_or("")) else {
        let mut r = unknown(row);
        r.predicts = format!(
            "the gateway uses {} ({}) but no `nvme list` gives its size: system/nvme-list.txt would",
            dev.value, dev.source
        );
        return r;
    };
    let read = Read {
        value: crate::phrase!(
            "{} of {} TB (the gateway's namespace)",
            crate::model::phrase::name(dev.value.as_str()),
            crate::model::phrase::fixed(tb, 2)
        )
        .to_string(),
        number: Some(tb),
        source: format!("{}, {list}", dev.source),
    };
    // Two 3.84 TB drives in RAID 0: 7.68 TB.
    let ok = (7.0..=8.0).contains(&tb);
    let extra = Some(
        crate::phrase!(
            "{} TB is about {} drive(s) of 3.84 TB in RAID 0.",
            crate::model::phrase::fixed(tb, 2),
            crate::model::phrase::fixed(tb / 3.84, 1)
        )
        .to_string(),
    );
    row_with(row, &read, ok, extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_of_the_table_has_a_check() {
        let table = ReferenceSetup::parse(TOML).expect("the reference_setup table parses");
        assert!(!table.rows.is_empty());
        for row in &table.rows {
            assert!(
                check(row, &Setup::default()).is_some(),
                "no check for row `{}`",
                row.id
            );
        }
    }
}

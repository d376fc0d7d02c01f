//! Tests of the hit sources: the counters between two snapshots, and which snapshot
//! names are an ask's.

use super::*;
use crate::parse::prom::Snapshot;

fn snap(local: f64, external: f64) -> Snapshot {
    let text = format!(
        "vllm:prefix_cache_hits_total{{engine=\"0\"}} {local}\nvllm:external_prefix_cache_hits_total{{engine=\"0\"}} {external}\n"
    );
    crate::parse::prom::parse_bytes(text.as_bytes()).expect("prom")
}

#[test]
fn the_counters_between_the_snapshots_say_where_the_hits_came_from() {
    let pre = snap(0.0, 0.0);
    assert_eq!(
        source(&pre, &snap(0.0, 5888.0), 5888),
        Source::Card { external: 5888.0 }
    );
    assert_eq!(
        source(&pre, &snap(5888.0, 0.0), 5888),
        Source::Gpu {
            local: 5888.0,
            external: 0.0
        }
    );
    assert!(matches!(
        source(&pre, &snap(0.0, 1024.0), 5888),
        Source::Unaccounted(_)
    ));
    // A miss: nothing cached, nothing hit. Not a restore from the card.
    assert_eq!(source(&pre, &snap(0.0, 0.0), 0), Source::Nothing);
    // No GPU counter: whether the GPU served it is unknown, not "nothing".
    let only_connector =
        crate::parse::prom::parse_bytes(b"vllm:external_prefix_cache_hits_total 5888\n")
            .expect("prom");
    let zero = crate::parse::prom::parse_bytes(b"vllm:external_prefix_cache_hits_total 0\n")
        .expect("prom");
    assert!(matches!(
        source(&zero, &only_connector, 5888),
        Source::Unaccounted(_)
    ));
    assert!(matches!(
        source(&snap(0.0, 6000.0), &snap(0.0, 5888.0), 5888),
        Source::Unaccounted(_)
    ));
    let no_connector =
        crate::parse::prom::parse_bytes(b"vllm:prefix_cache_hits_total 0\n").expect("prom");
    assert!(matches!(
        source(&no_connector, &no_connector, 5888),
        Source::Unaccounted(_)
    ));
}

#[test]
fn only_numbered_ask_snapshots_beside_a_transcript_are_read() {
    assert!(is_ask_snapshot("restore/adp.ask2.pre.prom"));
    assert!(is_ask_snapshot("run1/dram/lmcache-restart.ask4.post.prom"));
    assert!(!is_ask_snapshot("results/adp-1-L8.pre.prom"));
    assert!(!is_ask_snapshot("restore/adp.askme.pre.prom"));
    assert!(!is_ask_snapshot("restore/adp.ask.pre.prom"));
    assert!(!is_ask_snapshot("restore/adp.ask02.pre.prom"));
}

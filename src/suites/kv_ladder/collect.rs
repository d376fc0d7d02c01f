//! `collect kv-ladder`: KV test 2's ladder for one variant and run against the running
//! server, one step per level through `collectors/kv/kv-ladder.sh` (the procedure's
//! `ladder()`, with `2>&1 | tee` so the clients' failure counts reach the `.log`), into
//! `results/<variant>-<run>-L<clients>.*`. A level whose records, snapshots and log are
//! all there is not run again.

use crate::process::Runner;

use crate::collect::plan::{self, Collection};
use crate::collect::scripts::Scripts;
use crate::suites::kv_common::collect::KvPlan;

pub fn collect(
    p: &KvPlan,
    s: &Scripts,
    variant: &str,
    run: u32,
    levels: &[u32],
    runner: &dyn Runner,
) -> anyhow::Result<i32> {
    let name_ok = !variant.is_empty()
        && variant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let mut preflight = Vec::new();
    if !name_ok {
        preflight.push(format!(
            "variant `{variant}`: use letters, digits and dashes (adp, gpu-only, lmcache)"
        ));
    }
    if levels.is_empty() {
        preflight.push("no levels".into());
    }
    preflight.extend(crate::suites::kv_common::collect::workload_problems(
        &p.kv.out,
    ));
    preflight.extend(plan::missing_programs(&["docker", "curl", "jq", "tee"]));
    if !p.dry_run && preflight.is_empty() {
        preflight.extend(plan::server_problem(&p.kv.url, runner));
    }
    let steps = levels
        .iter()
        .map(|&n| p.kv.level(s, variant, run, n))
        .collect();
    let collection = format!("{}-{variant}-{run}", crate::suites::kv_ladder::NAME);
    let session = p.session(
        &collection,
        "Reproducing the benchmarks: AI Key-Value Caching, test 2",
    );
    let path = session.path.clone();
    let code = Collection {
        session,
        steps,
        scripts: s,
        preflight,
        checks: vec![
            format!(
                "`{}` exists (the workload)",
                p.kv.out.join("agents.json").display()
            ),
            "programs: docker, curl, jq, tee".into(),
            format!("the server answers {}/health", p.kv.url),
        ],
        dry_run: p.dry_run,
    }
    .run(runner)?;
    if !p.dry_run && code != 2 {
        p.index(&collection, &path)?;
    }
    Ok(code)
}

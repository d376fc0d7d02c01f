//! `reprobench bundle`: a support bundle the vendor can act on.

use crate::bundle::pack::{self, build, BundleOptions};
use crate::checklist;
use crate::cli::BundleArgs;
use crate::process::System;
use crate::render::report::PdfChoice;

use super::{options, UNUSABLE};

pub fn run(args: &BundleArgs) -> anyhow::Result<i32> {
    if !args.input.is_dir() {
        crate::errln!("error: `{}` is not a results folder", args.input.display());
        return Ok(UNUSABLE);
    }
    if let Err(why) = super::outside_input(&args.input, &args.output) {
        crate::errln!("error: {why}");
        return Ok(UNUSABLE);
    }
    let allow_unredacted = match allowed(&args.input, &args.allow_unredacted) {
        Ok(a) => a,
        Err(why) => {
            crate::errln!("error: {why}");
            return Ok(UNUSABLE);
        }
    };
    let opts = BundleOptions {
        redact: !args.no_redact,
        pseudonymize: args.pseudonymize,
        hosts: args.hosts.clone(),
        includes: args.includes.clone(),
        excludes: args.excludes.clone(),
        allow_unredacted,
        pdf: PdfChoice {
            skip: args.pdf.no_pdf,
            typst: args.pdf.typst.as_deref(),
        },
        judging: options(&args.judging),
    };
    if args.dry_run {
        return dry_run(args, &opts);
    }
    let built = match build(&args.input, &args.output, &opts, &System) {
        Ok(b) => b,
        Err(e) => {
            crate::errln!("error: {e:#}");
            return Ok(UNUSABLE);
        }
    };
    crate::out!("{}", checklist::markdown(&built.checklist));
    let missing = built.checklist.iter().filter(|i| !i.present).count();
    crate::outln!(
        "\nwrote {} ({} files; {} secrets redacted{}; {} files left out, listed in manifest.json); {missing} of {} requested items missing",
        args.output.display(),
        built.files,
        built.plan.redactions,
        if args.no_redact {
            ", redaction OFF"
        } else {
            ""
        },
        built.plan.left_out.len(),
        built.checklist.len()
    );
    pseudonym_lines(&built.plan, built.mapping.as_deref(), args.pseudonymize);
    crate::outln!("{}", built.analysis.summary.line());
    Ok(0)
}

/// `--allow-unredacted` paths as the user typed them: from the current folder (or
/// absolute), else from the results folder; each must name a file of the folder, and
/// which it named is said. A path that names nothing is an error, not a silent no-op.
fn allowed(input: &std::path::Path, given: &[String]) -> Result<Vec<String>, String> {
    let root = std::fs::canonicalize(input)
        .map_err(|e| format!("cannot read `{}`: {e}", input.display()))?;
    let mut out = Vec::new();
    for g in given {
        let typed = std::path::Path::new(g);
        let from_here = std::fs::canonicalize(typed)
            .ok()
            .filter(|p| p.is_file())
            .and_then(|p| p.strip_prefix(&root).ok().map(std::path::Path::to_path_buf));
        let from_folder = || {
            let p = root.join(typed);
            std::fs::canonicalize(&p)
                .ok()
                .filter(|c| c.is_file() && c.starts_with(&root))
                .map(|_| {
                    typed
                        .components()
                        .filter(|c| matches!(c, std::path::Component::Normal(_)))
                        .collect::<std::path::PathBuf>()
                })
        };
        let Some(rel) = from_here.or_else(from_folder) else {
            return Err(format!(
                "--allow-unredacted `{g}` names no file of `{}` (a path from the current folder, or from the results folder)",
                input.display()
            ));
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel != *g {
            crate::errln!("note: --allow-unredacted `{g}` is `{rel}` of the results folder");
        }
        out.push(rel);
    }
    Ok(out)
}

fn dry_run(args: &BundleArgs, opts: &BundleOptions) -> anyhow::Result<i32> {
    let plan = match pack::survey(&args.input, opts).and_then(|(f, a)| pack::plan(&f, &a, opts)) {
        Ok(p) => p,
        Err(e) => {
            crate::errln!("error: {e:#}");
            return Ok(UNUSABLE);
        }
    };
    crate::outln!(
        "# dry run: nothing is written; `{}` would hold:",
        args.output.display()
    );
    crate::out!("{}", pack::describe(&plan));
    crate::outln!(
        "{} values would be redacted{}",
        plan.redactions,
        if args.no_redact {
            " (redaction OFF)"
        } else {
            ""
        }
    );
    pseudonym_lines(&plan, None, args.pseudonymize);
    if !plan.unredacted.is_empty() {
        crate::errln!("error: {}", pack::unredacted_message(&plan));
        return Ok(UNUSABLE);
    }
    Ok(0)
}

fn pseudonym_lines(plan: &pack::Plan, mapping: Option<&std::path::Path>, asked: bool) {
    if !asked {
        return;
    }
    match (&plan.pseudonyms, mapping) {
        (Some(p), _) if p.map.is_empty() => crate::outln!(
            "pseudonyms: found no host name or IPv4 address to replace (name hosts with --host)"
        ),
        (Some(p), Some(m)) => crate::outln!(
            "pseudonyms: {} values replaced; mapping: {} (keep it; it is not in the bundle)",
            p.map.len(),
            m.display()
        ),
        (Some(p), None) => crate::outln!("pseudonyms: {} values would be replaced", p.map.len()),
        (None, _) => {}
    }
}

//! `reprobench bundle`: a support bundle the vendor can act on.

use crate::bundle::pack::{self, build, BundleOptions};
use crate::checklist;
use crate::cli::BundleArgs;
use crate::process::System;
use crate::render::report::PdfChoice;

use super::{options, UNUSABLE};

pub fn run(args: &BundleArgs) -> anyhow::Result<i32> {
    if !args.input.is_dir() {
        eprintln!("error: `{}` is not a results folder", args.input.display());
        return Ok(UNUSABLE);
    }
    if let Err(why) = super::outside_input(&args.input, &args.output) {
        eprintln!("error: {why}");
        return Ok(UNUSABLE);
    }
    let opts = BundleOptions {
        redact: !args.no_redact,
        pseudonymize: args.pseudonymize,
        hosts: args.hosts.clone(),
        includes: args.includes.clone(),
        excludes: args.excludes.clone(),
        allow_unredacted: args.allow_unredacted.clone(),
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
            eprintln!("error: {e:#}");
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

fn dry_run(args: &BundleArgs, opts: &BundleOptions) -> anyhow::Result<i32> {
    let plan = match pack::survey(&args.input, opts).and_then(|(f, a)| pack::plan(&f, &a, opts)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e:#}");
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
        eprintln!("error: {}", pack::unredacted_message(&plan));
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

//! `reprobench bundle`: a support bundle the vendor can act on.

use crate::bundle::checklist;
use crate::bundle::pack::{build, BundleOptions};
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
        pdf: PdfChoice {
            skip: args.pdf.no_pdf,
            typst: args.pdf.typst.as_deref(),
        },
        judging: options(&args.judging),
    };
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
        "\nwrote {} ({} files; {} secrets redacted{}); {missing} of {} requested items missing",
        args.output.display(),
        built.files,
        built.redactions,
        if args.no_redact {
            ", redaction OFF"
        } else {
            ""
        },
        built.checklist.len()
    );
    if let Some(m) = &built.mapping {
        crate::outln!(
            "pseudonym mapping: {} (keep it; it is not in the bundle)",
            m.display()
        );
    }
    let s = &built.analysis.summary;
    crate::outln!("{}", s.line());
    Ok(0)
}

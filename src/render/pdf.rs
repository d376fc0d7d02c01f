//! `report.pdf`: the Typst source rendered from `templates/report.typ.j2`, compiled by
//! the pinned typst CLI ([`crate::typst`]) run as a process.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::process::{Invocation, Runner};

/// Compiles `dir/report.typ` into `dir/report.pdf` with a fixed creation time, so the
/// same report gives the same bytes.
pub fn compile(runner: &dyn Runner, typst: &Path, dir: &Path) -> anyhow::Result<PathBuf> {
    compile_named(runner, typst, dir, "report")
}

/// Compiles `dir/<stem>.typ` into `dir/<stem>.pdf`.
pub fn compile_named(
    runner: &dyn Runner,
    typst: &Path,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<PathBuf> {
    let (typ, pdf) = (format!("{stem}.typ"), format!("{stem}.pdf"));
    runner
        .run(
            &Invocation::new(typst)
                .arg("compile")
                .arg("--creation-timestamp")
                .arg("0")
                .arg(&typ)
                .arg(&pdf)
                .dir(dir),
        )
        .with_context(|| format!("failed to compile {typ} into {pdf}"))?;
    Ok(dir.join(pdf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::Fake;

    #[test]
    fn compile_runs_typst_in_the_report_folder() {
        let fake = Fake::default();
        let dir = Path::new("/tmp/r");
        let pdf = compile(&fake, Path::new("/bin/typst"), dir).expect("fake succeeds");
        assert_eq!(pdf, dir.join("report.pdf"));
        let calls = fake.calls.lock().map(|c| c.clone()).unwrap_or_default();
        assert_eq!(
            calls,
            ["/bin/typst compile --creation-timestamp 0 report.typ report.pdf"]
        );
    }
}

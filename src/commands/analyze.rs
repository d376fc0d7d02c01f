//! `reprobench analyze`: verdicts and tables in the terminal, or JSON; optional exports.

use std::path::Path;

use anyhow::Context;

use crate::analysis::Analysis;
use crate::cli::{AnalyzeArgs, Format};
use crate::frames;
use crate::render::terminal;

use super::{options, UNUSABLE};

/// What `analyze --format json` prints: one shape whatever the number of inputs, the
/// failures among them, or `--trend` (docs/analyze.schema.json is its JSON Schema).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Output {
    /// The version of this shape and of the analysis model inside it
    /// ([`crate::analysis::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Every input, in the order given: its analysis, or why there is none.
    pub inputs: Vec<InputResult>,
    /// With `--trend` and two inputs or more: every criterion's number across them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trend: Option<crate::compare::trend::Trend>,
}

/// One input of [`Output`].
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct InputResult {
    /// The path as given.
    pub input: String,
    /// The analysis; absent when the input could not be used (then `error` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// Why the input gave no analysis (the run's exit status is then 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A dataset given to `--trend`: the campaigns it added to the trend.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub campaigns: Vec<String>,
}

impl InputResult {
    fn failed(input: &Path, error: String) -> InputResult {
        InputResult {
            input: input.display().to_string(),
            analysis: None,
            error: Some(error),
            campaigns: Vec::new(),
        }
    }
}

/// The JSON Schema of [`Output`], as docs/analyze.schema.json holds it.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Output);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

pub fn run(args: &AnalyzeArgs) -> anyhow::Result<i32> {
    if let Some(dir) = &args.export {
        for input in &args.inputs {
            if let Err(why) = super::outside_input(input, dir) {
                crate::errln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    }
    let mut opts = options(&args.judging);
    opts.frames = args.export.is_some();
    let inputs = if args.campaigns {
        match campaigns(&args.inputs) {
            Ok(i) => i,
            Err(why) => {
                crate::errln!("error: {why}");
                return Ok(UNUSABLE);
            }
        }
    } else {
        args.inputs.clone()
    };
    let mut g = Gathered::default();
    for input in &inputs {
        if let Some((root, sel)) = crate::dataset::read::parse(input) {
            g.dataset(input, &root, &sel, args.trend);
        } else {
            g.folder(input, &opts, args);
        }
    }
    let trend = if args.trend {
        if g.campaigns.len() < 2 {
            crate::errln!("note: a trend needs two inputs or more; none shown");
            None
        } else {
            Some(crate::compare::trend::trend(&g.campaigns, args.by_time))
        }
    } else {
        None
    };
    if let Some(dir) = &args.export {
        for r in &mut g.runs {
            r.with_record_frames();
        }
        export(&g.runs, trend.as_ref(), dir)?;
    }
    if let Some(file) = &args.html {
        write_trend_html(trend.as_ref(), file)?;
    }
    let worst = g.worst;
    match args.format {
        Format::Json => print_json(g, trend)?,
        Format::Text => {
            let t = crate::analysis::Timer::start();
            let view = terminal::View {
                detail: args.detail,
                width: crate::output::width(),
            };
            for a in &g.results {
                crate::output::write_styled(&terminal::render_view(a, view));
            }
            if let Some(t) = &trend {
                crate::out!("{}", trend_text(t));
            }
            t.lap("render");
            // The process ends here: the OS takes the memory back faster than freeing
            // every parsed record one by one would.
            std::mem::forget(g);
        }
    }
    Ok(worst)
}

/// What the inputs gave, in the order given.
#[derive(Default)]
struct Gathered {
    /// The worst exit code so far.
    worst: i32,
    results: Vec<Analysis>,
    /// Every input's place in the JSON output: an analysis (an index into `results`), a
    /// dataset's campaigns, or an error.
    listed: Vec<InputResult>,
    /// The catalogs and frames beside the models, kept only to export them.
    runs: Vec<crate::analysis::Run>,
    /// With --trend, campaigns of a dataset are inputs too, in the order given.
    campaigns: Vec<crate::compare::Campaign>,
}

impl Gathered {
    fn failed(&mut self, input: &std::path::Path, why: String) {
        crate::errln!("error: {why}");
        self.listed.push(InputResult::failed(input, why));
        self.worst = UNUSABLE;
    }

    /// A dataset given as an input: its campaigns with --trend, else an error.
    fn dataset(
        &mut self,
        input: &std::path::Path,
        root: &std::path::Path,
        sel: &crate::dataset::read::Selector,
        trend: bool,
    ) {
        if !trend {
            let why = format!(
                "`{}` is a dataset: it holds campaigns' results, not files to judge; read it with --trend, compare, or SQL (docs/compare-and-datasets.md, Datasets)",
                input.display()
            );
            return self.failed(input, why);
        }
        match crate::dataset::read::campaigns(root, sel) {
            Ok(mut c) => {
                self.worst = self
                    .worst
                    .max(c.iter().map(|c| c.exit_code()).max().unwrap_or(0));
                self.listed.push(InputResult {
                    input: input.display().to_string(),
                    analysis: None,
                    error: None,
                    campaigns: c.iter().map(|c| c.input.clone()).collect(),
                });
                self.campaigns.append(&mut c);
            }
            Err(e) => self.failed(input, format!("{e:#}")),
        }
    }

    /// A results folder or archive, analyzed.
    fn folder(
        &mut self,
        input: &std::path::Path,
        opts: &crate::suites::Options,
        args: &AnalyzeArgs,
    ) {
        let r = match crate::analysis::run_input(input, opts) {
            Ok(r) => r,
            Err(e) => return self.failed(input, format!("{e:#}")),
        };
        // The model is copied only when its run is kept for the export.
        let a = if args.export.is_some() {
            let a = r.analysis.clone();
            self.runs.push(r);
            a
        } else {
            // As for the results: the OS takes the parsed records back faster than
            // freeing them one by one would.
            let crate::analysis::Run {
                analysis, catalog, ..
            } = r;
            std::mem::forget(catalog);
            analysis
        };
        if let Some(why) = a.nothing_judged() {
            crate::errln!("error: {why}");
        }
        self.worst = self.worst.max(a.exit_code());
        if args.trend {
            self.campaigns.push(crate::compare::Campaign::from(&a));
        }
        self.listed.push(InputResult {
            input: input.display().to_string(),
            analysis: None,
            error: None,
            campaigns: Vec::new(),
        });
        self.results.push(a);
    }
}

/// `--html` with `--trend`: the trend's page, or a warning that there is none.
fn write_trend_html(
    trend: Option<&crate::compare::trend::Trend>,
    file: &std::path::Path,
) -> anyhow::Result<()> {
    match trend {
        Some(t) => {
            let page = crate::compare::render::trend_html(t)?;
            std::fs::write(file, page)
                .with_context(|| format!("failed to write `{}`", file.display()))?;
            crate::errln!("wrote {}", file.display());
        }
        None => crate::errln!("warning: no trend, so `{}` is not written", file.display()),
    }
    Ok(())
}

/// `--format json`: the analyses back in their inputs' places, in the order given.
fn print_json(mut g: Gathered, trend: Option<crate::compare::trend::Trend>) -> anyhow::Result<()> {
    let mut analyses = std::mem::take(&mut g.results).into_iter();
    for l in &mut g.listed {
        if l.error.is_none() && l.campaigns.is_empty() {
            l.analysis = analyses.next();
        }
    }
    let output = Output {
        schema_version: crate::analysis::SCHEMA_VERSION,
        inputs: std::mem::take(&mut g.listed),
        trend,
    };
    let value =
        serde_json::to_string_pretty(&output).context("failed to write the analysis as JSON")?;
    crate::outln!("{value}");
    std::mem::forget(output);
    std::mem::forget(g);
    Ok(())
}

/// `--campaigns`: each input folder's subfolders, in name order, are the inputs.
fn campaigns(folders: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for f in folders {
        let entries =
            std::fs::read_dir(f).map_err(|e| format!("cannot read `{}`: {e}", f.display()))?;
        let mut subs: Vec<std::path::PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        if subs.is_empty() {
            return Err(format!("`{}` holds no campaign folders", f.display()));
        }
        subs.sort();
        out.extend(subs);
    }
    Ok(out)
}

/// The trend as a table: one row per criterion, one column per input, and a sparkline.
fn trend_text(t: &crate::compare::trend::Trend) -> String {
    use std::fmt::Write;
    let mut out = format!(
        "\n== Trend across {} inputs ({}) ==\n",
        t.inputs.len(),
        t.order
    );
    for (i, input) in t.inputs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  #{}: {}{}",
            i + 1,
            input.input,
            input
                .started
                .as_ref()
                .map(|s| format!(" (started {s})"))
                .unwrap_or_default()
        );
    }
    let mut columns = vec!["criterion".to_string(), "unit".to_string()];
    columns.extend((1..=t.inputs.len()).map(|i| format!("#{i}")));
    columns.push("trend".into());
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![r.id.clone(), r.unit.clone()];
            row.extend(r.values.iter().zip(&r.statuses).map(|(v, s)| match v {
                Some(v) => format!("{} ({s})", crate::compare::render::num(*v)),
                None => format!("- ({s})"),
            }));
            row.push(r.sparkline.clone());
            row
        })
        .collect();
    out.push_str(&terminal::aligned(&columns, &rows));
    out
}

/// Writes every frame of every input, joined by name with an `input` column, and
/// `schema.md`.
fn export(
    results: &[crate::analysis::Run],
    trend: Option<&crate::compare::trend::Trend>,
    dir: &Path,
) -> anyhow::Result<()> {
    for r in results {
        for p in &r.frame_problems {
            crate::errln!("warning: {}: {p}", r.analysis.input);
        }
    }
    let inputs: Vec<(String, Vec<frames::Frame>)> = results
        .iter()
        .map(|r| (r.analysis.input.clone(), r.frames.clone()))
        .collect();
    let mut joined = frames::join_inputs(&inputs)?;
    if let Some(t) = trend {
        joined.push(t.frame()?);
    }
    for w in frames::export(&mut joined, dir)? {
        crate::errln!("wrote {w}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// docs/analyze.schema.json is what the types say; `REPROBENCH_BLESS=1 cargo test
    /// --lib published_schema` writes it again after a change to the model.
    #[test]
    fn the_published_schema_is_the_one_the_types_give() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/analyze.schema.json");
        let generated = super::json_schema();
        if std::env::var_os("REPROBENCH_BLESS").is_some() {
            std::fs::write(&path, &generated).expect("write the schema");
        }
        let published = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            published == generated,
            "{} is not the schema the types give: run REPROBENCH_BLESS=1 cargo test --lib published_schema",
            path.display()
        );
    }
}

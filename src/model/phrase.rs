//! What a verdict, limit, observation or deviation shows: words and typed numbers,
//! formatted only when rendered. A phrase keeps each number with how it is shown (its
//! decimals, its unit) instead of the formatted text, so the model holds values and the
//! renderers decide the text; `numbers()` gives the values back to any consumer.
//!
//! Words come from three places only: string literals in the template, `name`s (a
//! variant, a drive, a file: text from the files, not a formatted number) and prose the
//! procedures' data files hold (`Phrase::text`). Nothing converts a `String` into a
//! phrase implicitly, so a `format!` result cannot slip in as one.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::model::measurement::Unit;
use crate::model::units::grouped;

mod unit_of;
pub use unit_of::UnitOf;

/// One value in a phrase.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A number with a fixed count of decimals, and its unit when the phrase shows one
    /// right after it.
    Num {
        value: f64,
        decimals: u8,
        unit: Option<Unit>,
    },
    /// A number with its sign always shown: `+1.3`.
    Signed { value: f64, decimals: u8 },
    /// A number with a fixed count of decimals and no thousands separators, where the
    /// procedure it reproduces prints its numbers so (the SPDK article's `1031k`, `3359`),
    /// where a figure is quoted from one line of the files as the line has it (`line 3:
    /// 5888 tokens from the GPU prefix cache`), or where the text is data a reader parses
    /// (a chart's axis labels).
    Printed { value: f64, decimals: u8 },
    /// A number as Rust writes it by default, shortest form that reads back: `70`, `0.5`
    /// (a published figure as its data file has it).
    Plain(f64),
    /// A whole number: a count, a token total, a size as the files give it.
    Count(i64),
    /// A size in bytes, in fio's notation: `8k`, `1m`, `4096`.
    Size(u64),
    /// A decimal MB/s figure derived from iostat, shown with its MiB/s beside it:
    /// `18 MB/s (17 MiB/s)`; the conversion is [`crate::model::units`]'.
    Bandwidth(crate::model::units::MBps),
    /// Text from the files or the procedures: a variant, a device, a job, a value.
    Name(String),
    /// A phrase inside a phrase.
    Phrase(Phrase),
}

/// Words with typed numbers in them: `{}` in the template takes the next argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase {
    template: Cow<'static, str>,
    args: Vec<Arg>,
}

/// Builds a [`Phrase`] from a template and its arguments:
/// `phrase!("{}x ({} vs {} MB/s)", fixed(r, 2), fixed(a, 0), fixed(b, 0))`.
#[macro_export]
macro_rules! phrase {
    ($template:literal $(, $arg:expr)* $(,)?) => {
        $crate::model::phrase::Phrase::new($template, vec![$($crate::model::phrase::Arg::from($arg)),*])
    };
}

impl Phrase {
    /// A template with one `{}` per argument. A template whose holes do not match its
    /// arguments renders what it has: missing arguments as `?`, extra ones dropped; the
    /// unit tests and `debug_assert` catch both.
    pub fn new(template: &'static str, args: Vec<Arg>) -> Phrase {
        debug_assert_eq!(
            template.matches("{}").count(),
            args.len(),
            "phrase `{template}`"
        );
        Phrase {
            template: Cow::Borrowed(template),
            args,
        }
    }

    /// Prose as the procedures' data files hold it (a published figure's wording), or
    /// text read from the results files. Not for formatted numbers: build those with
    /// [`phrase!`].
    pub fn text(text: impl Into<String>) -> Phrase {
        Phrase {
            template: Cow::Borrowed("{}"),
            args: vec![Arg::Name(text.into())],
        }
    }

    /// Words a suite put together from names (files, jobs, variants, options as the
    /// files give them) and whole numbers (counts, line numbers, client levels): a note
    /// with no measured decimal in it. A number with decimals goes in with [`phrase!`];
    /// a test keeps decimal formats (`{:.2}`) out of the suites.
    pub fn words(text: String) -> Phrase {
        Phrase::text(text)
    }

    /// Phrases joined by a separator, the empty ones left out: a note made of reasons.
    pub fn joined(parts: impl IntoIterator<Item = Phrase>, separator: &'static str) -> Phrase {
        let parts: Vec<Phrase> = parts.into_iter().filter(|p| !p.is_empty()).collect();
        match parts.len() {
            0 => Phrase::default(),
            1 => parts.into_iter().next().unwrap_or_default(),
            _ => Phrase::join(parts, separator),
        }
    }

    /// Whether the rendered text holds `text`.
    pub fn contains(&self, text: &str) -> bool {
        self.to_string().contains(text)
    }

    /// One number with `decimals` decimals: a table cell.
    pub fn num(value: f64, decimals: u8) -> Phrase {
        Phrase::new("{}", vec![fixed(value, decimals)])
    }

    /// One number, or `-` when there is none.
    pub fn opt(value: Option<f64>, decimals: u8) -> Phrase {
        value.map_or(Phrase::dash(), |v| Phrase::num(v, decimals))
    }

    /// One whole number.
    pub fn count(n: impl TryInto<i64>) -> Phrase {
        Phrase::new("{}", vec![count(n)])
    }

    /// `-`: nothing to show.
    pub fn dash() -> Phrase {
        Phrase::from("-")
    }

    /// Phrases joined by a separator: `adp: ... · gpu-only: ...`.
    pub fn join(parts: impl IntoIterator<Item = Phrase>, separator: &'static str) -> Phrase {
        let args: Vec<Arg> = parts.into_iter().map(Arg::Phrase).collect();
        let holes = vec!["{}"; args.len()].join(separator);
        Phrase {
            template: Cow::Owned(holes),
            args,
        }
    }

    /// The numbers the phrase shows, in order, nested phrases included.
    pub fn numbers(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for a in &self.args {
            match a {
                Arg::Num { value, .. }
                | Arg::Signed { value, .. }
                | Arg::Printed { value, .. }
                | Arg::Plain(value) => out.push(*value),
                Arg::Bandwidth(b) => out.push(b.0),
                Arg::Count(n) => out.push(*n as f64),
                Arg::Size(b) => out.push(*b as f64),
                Arg::Phrase(p) => out.extend(p.numbers()),
                Arg::Name(_) => {}
            }
        }
        out
    }

    /// Whether the phrase renders as exactly `text`.
    pub fn is(&self, text: &str) -> bool {
        self.to_string() == text
    }

    pub fn is_empty(&self) -> bool {
        self.to_string().is_empty()
    }
}

impl From<&'static str> for Phrase {
    /// A literal: words only.
    fn from(text: &'static str) -> Phrase {
        Phrase {
            template: Cow::Borrowed(text),
            args: Vec::new(),
        }
    }
}

impl Default for Phrase {
    fn default() -> Phrase {
        Phrase::from("")
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Num {
                value,
                decimals,
                unit,
            } => {
                let d = *decimals as usize;
                let n = grouped(&format!("{value:.d$}"));
                match unit {
                    None => f.write_str(&n),
                    Some(u @ (Unit::Percent | Unit::Ratio)) => write!(f, "{n}{}", u.symbol()),
                    Some(u) => write!(f, "{n} {}", u.symbol()),
                }
            }
            Arg::Signed { value, decimals } => {
                let d = *decimals as usize;
                f.write_str(&grouped(&format!("{value:+.d$}")))
            }
            Arg::Printed { value, decimals } => {
                let d = *decimals as usize;
                write!(f, "{value:.d$}")
            }
            Arg::Plain(v) => write!(f, "{v}"),
            Arg::Count(n) => f.write_str(&grouped(&n.to_string())),
            Arg::Size(b) => f.write_str(&crate::model::units::format_size(*b)),
            Arg::Bandwidth(crate::model::units::MBps(mb_s)) => {
                write!(
                    f,
                    "{} MB/s ({} MiB/s)",
                    grouped(&format!("{mb_s:.0}")),
                    grouped(&format!("{:.0}", crate::model::units::mb_to_mib(*mb_s)))
                )
            }
            Arg::Name(s) => f.write_str(s),
            Arg::Phrase(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for Phrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut args = self.args.iter();
        let mut pieces = self.template.split("{}");
        if let Some(first) = pieces.next() {
            f.write_str(first)?;
        }
        for piece in pieces {
            match args.next() {
                Some(a) => write!(f, "{a}")?,
                None => f.write_str("?")?,
            }
            f.write_str(piece)?;
        }
        Ok(())
    }
}

impl Serialize for Phrase {
    /// A phrase leaves the model as the text it renders to; its numbers travel beside it
    /// in the typed fields (`measured_value`, `measurements`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl From<Phrase> for Arg {
    fn from(p: Phrase) -> Arg {
        Arg::Phrase(p)
    }
}

impl From<&'static str> for Arg {
    fn from(s: &'static str) -> Arg {
        Arg::Name(s.to_string())
    }
}

/// A number with `decimals` decimals: `{:.2}`.
pub fn fixed(value: f64, decimals: u8) -> Arg {
    Arg::Num {
        value,
        decimals,
        unit: None,
    }
}

/// A number with `decimals` decimals and no thousands separators, as a procedure that
/// prints its numbers so has them (`3359`, not `3,359`).
pub fn printed(value: f64, decimals: u8) -> Arg {
    Arg::Printed { value, decimals }
}

/// A number with its unit after it: `2.12 s`, `28.6 GB/s`, `0.96x`, `100.0%`.
pub fn qty(value: f64, decimals: u8, unit: Unit) -> Arg {
    Arg::Num {
        value,
        decimals,
        unit: Some(unit),
    }
}

/// The ratios a bound of an interval is shown as a number between: beyond, a bound says
/// only that it is beyond (repeats that far apart disagree,
/// [`crate::stats::ratio::apart`]). The JSON keeps the number.
pub const RATIO_SHOWN: (f64, f64) = (0.01, 100.0);

/// A bound of a ratio's interval as shown: two decimals within [`RATIO_SHOWN`]; beyond,
/// only that it is (`below 0.01x`, `above 100x`).
pub fn ratio_bound(x: f64) -> Phrase {
    let (low, high) = RATIO_SHOWN;
    if x < low {
        crate::phrase!("below {}", qty(low, 2, Unit::Ratio))
    } else if x > high {
        crate::phrase!("above {}", qty(high, 0, Unit::Ratio))
    } else {
        crate::phrase!("{}", qty(x, 2, Unit::Ratio))
    }
}

/// A change in percent as an interval bound is shown: signed, one decimal, within
/// [`RATIO_SHOWN`] as a change (-99% to +9900%); beyond, only that it is (`<-99.0`,
/// `>+9900.0`), as [`ratio_bound`] does.
pub fn pct_bound(p: f64) -> String {
    let (low, high) = (100.0 * (RATIO_SHOWN.0 - 1.0), 100.0 * (RATIO_SHOWN.1 - 1.0));
    if p < low {
        format!("<{low:.1}")
    } else if p > high {
        format!(">+{high:.1}")
    } else {
        format!("{p:+.1}")
    }
}

/// How many times one value is another, as the notes say it
/// ([`crate::stats::ratio::fold_shown`]): `10.01-fold`, `17,500-fold`, `over a
/// million-fold`, `infinitely` (against 0).
pub fn fold(fold: f64) -> Phrase {
    match crate::stats::ratio::fold_shown(fold) {
        Some((shown, decimals)) => crate::phrase!("{}-fold", fixed(shown, decimals)),
        None if fold.is_finite() => Phrase::from("over a million-fold"),
        None => Phrase::from("infinitely"),
    }
}

/// A number as its data file has it: `{}`.
pub fn plain(value: f64) -> Arg {
    Arg::Plain(value)
}

/// A number with its sign: `{:+.1}`.
pub fn signed(value: f64, decimals: u8) -> Arg {
    Arg::Signed { value, decimals }
}

/// A whole number.
pub fn count(n: impl TryInto<i64>) -> Arg {
    Arg::Count(n.try_into().unwrap_or(i64::MAX))
}

/// A size in bytes, as fio writes it: `8k`.
pub fn size(bytes: u64) -> Arg {
    Arg::Size(bytes)
}

/// An iostat-derived bandwidth in decimal MB/s, shown with its MiB/s.
pub fn bandwidth(mb_s: crate::model::units::MBps) -> Arg {
    Arg::Bandwidth(mb_s)
}

/// Text from the files: a variant, a drive, a job name, an option's value.
pub fn name(text: impl Into<String>) -> Arg {
    Arg::Name(text.into())
}

/// A phrase and a unit are written as the text they read as.
impl schemars::JsonSchema for Phrase {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Phrase".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Words with the numbers in them, as the report shows them."
        })
    }
}

/// A list shown in one cell or line: the first three, then how many more.
pub fn few(v: &[String]) -> String {
    match v.len() {
        0 => "-".into(),
        1..=3 => v.join(", "),
        n => format!("{} and {} more", v[..3].join(", "), n - 3),
    }
}

#[cfg(test)]
mod tests;

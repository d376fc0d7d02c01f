//! The line the procedure's ladder script prints for a level, reproduced byte for byte:
//! its own column widths and decimals (`{:12.1}`, `f'{100 * h / q:.0f} %'`). The one
//! place in the ladder where a decimal is chosen outside the renderers, because the
//! script chose it.

use super::Level;

/// The script's row: `f"{name:<16} {clients:>7} {n:>8} {tok_s:12.1} {ttft:10.2} {gen:9.1} {gpu:>8} {card:>8}"`.
pub(super) fn line(level: &Level, clients: u32, hits: &(String, String)) -> String {
    format!(
        "{:<16} {:>7} {:>8} {:12.1} {:10.2} {:9.1} {:>8} {:>8}",
        level.prefix.rsplit('/').next().unwrap_or(&level.prefix),
        clients,
        level.requests.unwrap_or(0),
        level.output_tok_s.unwrap_or(0.0),
        level.ttft_p50_s.unwrap_or(0.0),
        level.gen_tok_s.unwrap_or(0.0),
        hits.0,
        hits.1
    )
}

/// `f'{100 * h / q:.0f} %' if q else '-'`, from the rate in percent where there is one.
pub(super) fn rate(percent: Option<f64>) -> String {
    match percent {
        Some(p) => format!("{p:.0} %"),
        None => "-".into(),
    }
}

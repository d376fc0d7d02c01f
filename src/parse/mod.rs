//! One parser per input format. Parsers return typed records and know nothing of Polars.

pub mod ask;
pub mod bdevperf;
pub mod client_log;
mod decimal;
pub mod embedded_toml;
pub mod fio;
pub mod fio_log;
pub mod fio_record;
pub mod fio_typed;
pub mod gateway_log;
pub mod gpu_csv;
pub mod host;
pub mod iostat;
pub mod iostat_json;
pub mod iostat_record;
mod iostat_row;
pub mod mt_records;
pub mod prom;
pub mod prom_series;
pub mod pyrepr;
pub mod text;
pub mod vllm_log;

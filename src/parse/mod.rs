//! One parser per input format. Parsers return typed records and know nothing of Polars.

pub mod fio;
pub mod iostat;
pub mod text;

//! The end-to-end tests, in one binary (each extra `tests/*.rs` would link the whole
//! crate again). One module per area; helpers in `common`.

mod common;

mod build;
mod bundle;
mod collect;
mod collectors;
mod compare;
mod contract;
mod criteria;
mod dataset;
mod dataset_compact;
mod differential;
mod engine;
mod evidence;
mod extension;
mod fio_oracle;
mod fio_reader;
mod formats;
mod frames;
mod fuzz;
mod guard;
mod help;
mod honest;
mod html;
mod kv;
mod no_panic;
mod origins;
mod provenance;
mod redaction;
mod regime;
mod report;
mod rounds;
mod safety;
mod secret_classes;
mod signals;
mod spdk;
mod statistics;
mod storage;
mod why;

//! Secrets in text of any syntax: a setting's name followed by its value (`KEY=VALUE`,
//! `KEY: VALUE`, `"KEY": "VALUE"`, `\"KEY\": \"VALUE\"`, `'KEY': ['VALUE']`,
//! `--KEY VALUE`, `--KEY=VALUE`, `["--KEY", "VALUE"]`, a YAML `- --KEY` item followed by
//! its value, a YAML block `KEY: >-`, a line continuation after `--KEY \`, colour codes
//! in between), URL credentials, `.netrc` lines, the data of a Kubernetes Secret, the
//! token shapes of the rule set, and long random tokens near a secret's name. Each finds
//! the value's own extent in its syntax, so what replaces it leaves the quotes, brackets
//! and indentation where they were.

mod credential_files;
mod detect;
mod gitleaks_findings;
mod key_value;
mod near_names;
mod no_context;
mod records;
mod span;
mod stems;
mod token_rules;
mod url_credentials;

pub use super::keys::{entropy, random_token};
pub use credential_files::{colon_fields, netrc};
pub use detect::spans_of_file;
pub use gitleaks_findings::gitleaks;

// What the parts call as `super::keys`, `super::shell`, `super::gitleaks`,
// `super::spans_at` and `super::first_stem`, and what `key_value` takes with `super::*`.
use super::keys::{is_secret, looks_secret};
use super::Span;
use super::{gitleaks, keys, shell};
use detect::spans_at;
use span::span;
use stems::{first_stem, name_byte, stems};

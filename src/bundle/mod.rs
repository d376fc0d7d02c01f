//! Support bundles: what the vendor's support team asks for, redacted and checksummed, and
//! bundles read back as input.

pub mod container;
pub mod encoding;
pub mod pack;
pub mod pseudonym;
pub mod redact;
pub mod scan;
pub mod unpack;

pub use unpack::{is_bundle, unpack};

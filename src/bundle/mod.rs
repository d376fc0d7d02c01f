//! Support bundles: what the vendor's support team asks for, redacted and checksummed, and
//! bundles read back as input ([`crate::ingest::unpack`]).

pub mod container;
pub mod encoding;
pub mod pack;
pub mod pseudonym;
pub mod redact;
pub mod scan;

//! Secrets with no name beside them, found by what they are: long random tokens (by
//! their shape and entropy, with the random-looking things that are not secrets named:
//! public keys after their type, fingerprints after their hash's name, inline data,
//! hex digests and UUIDs, which have no upper case), base64 blocks judged by what they
//! decode to (a credential file inside is redacted whole; an image or a certificate is
//! kept whole, and nothing inside it is taken for a token), a password typed at the
//! shell prompt (`-bash: …: command not found`), and what an expect script answered to
//! a password prompt.

mod base64_blocks;
mod prompt_answers;
mod random_tokens;

// What the parts call as `super::entropy` and `super::spans_at`.
use super::{entropy, spans_at};

pub(super) use base64_blocks::base64_blocks;
pub(super) use prompt_answers::{expect_answers, typed_at_prompt};
pub(super) use random_tokens::{public_by_prefix, random_tokens};

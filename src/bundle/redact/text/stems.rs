//! The stems of secrets' names: the bytes a name is made of, where the first stem stands
//! in a line, and whether the word holding it names a secret.

/// Bytes that may be part of a setting's name.
pub(super) fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The stems a secret's name holds one of: a cheap test before the word split.
pub(super) const STEMS: &[&str] = &[
    "secret",
    "pass",
    "pwd",
    "token",
    "key",
    "auth",
    "cred",
    "session",
    "cookie",
    "sig",
    "psk",
    "dsn",
    "webhook",
    "dockercfg",
    "dockerconfig",
    "pat",
    "salt",
    "hmac",
];

/// [`STEMS`] found in one pass (ASCII case-insensitive).
pub(super) fn stems() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        #[allow(clippy::expect_used)]
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(STEMS)
            .expect("the stems compile")
    })
}

/// Where the first stem that names a secret on its own stands in `line` (`pat` and
/// `sig` are too short to stand for one).
pub(super) fn first_stem(line: &str) -> Option<usize> {
    stems()
        .find_overlapping_iter(line)
        .find(|m| !matches!(STEMS[m.pattern().as_usize()], "pat" | "sig"))
        .map(|m| m.start())
}

/// Whether the word holding the stem at `at` can name a secret: not a public key, a
/// certificate authority or a fingerprint, and a name, not a long token.
pub(super) fn names_a_secret(line: &str, at: usize) -> bool {
    let b = line.as_bytes();
    let mut s = at;
    while s > 0 && name_byte(b[s - 1]) {
        s -= 1;
    }
    let mut e = at;
    while e < b.len() && name_byte(b[e]) {
        e += 1;
    }
    let word = &line[s..e];
    word.len() <= 64 && super::keys::strength(word) != super::keys::Strength::No
}

//! Whether a setting's name names a secret, and whether its value is one: `HF_TOKEN`,
//! `dhchap_key`, `xApiKey` and `--password` do; `prompt_tokens`, `secretName`,
//! `PasswordAuthentication`, `max_token` and `--password-stdin` do not; `auth: CHAP` is a
//! method, not a secret.

use super::rules::rules;

/// The fields of a record that give a setting's name (a JSON object's `"name"`, a YAML
/// item's `key:`, an XML element's `Name=` attribute, a `Format-List` block's `Name :`),
/// and those that give its value. Compared in any case.
pub const RECORD_NAMES: &[&str] = &[
    "name",
    "key",
    "variable",
    "param",
    "parameter",
    "attribute",
    "field",
];
pub const RECORD_VALUES: &[&str] = &[
    "value",
    "string_value",
    "stringValue",
    "secret_value",
    "secretValue",
    "val",
];

/// Whether `field` is one of `list`, in any case.
pub fn field_is(field: &str, list: &[&str]) -> bool {
    list.iter().any(|x| x.eq_ignore_ascii_case(field))
}

/// How sure a key's name makes us that its value is a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    No,
    /// A word that often names a secret but not always (`auth`, `session`, `key`): the
    /// value must look like one.
    Weak,
    Strong,
}

/// `HF_TOKEN` -> [hf, token]; `xApiKey` -> [x, api, key]; `Proxy-Authorization` ->
/// [proxy, authorization]; `--api-key` -> [api, key].
pub fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// What a key's name says about its value.
pub fn strength(key: &str) -> Strength {
    let k = &rules().keys;
    let w = words(key);
    let Some(last) = w.last() else {
        return Strength::No;
    };
    let has = |list: &[String], x: &str| list.iter().any(|l| l == x);
    if w.len() > 1 && has(&k.settings, last) {
        return Strength::No;
    }
    if w.iter().any(|x| has(&k.strong, x)) {
        return Strength::Strong;
    }
    if w.windows(2)
        .any(|p| k.pairs.iter().any(|s| s[0] == p[0] && s[1] == p[1]))
    {
        return Strength::Strong;
    }
    if has(&k.last, last) {
        if w.len() == 1 {
            return Strength::Weak;
        }
        let before = &w[w.len() - 2];
        return if has(&k.not_before_last, before) {
            Strength::No
        } else {
            Strength::Strong
        };
    }
    if w.iter().any(|x| has(&k.weak, x)) {
        return Strength::Weak;
    }
    Strength::No
}

/// Values that hold no secret: empty, `None`, `null`, booleans, `${VAR}`, `$VAR`,
/// `<placeholder>`, `{{ template }}`, `****`, and what was already redacted.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    let v = v
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
        .unwrap_or(v)
        .trim();
    let lower = v.to_ascii_lowercase();
    v.is_empty()
        || rules().placeholders.contains(&lower)
        || v.starts_with("[REDACTED")
        || (v.starts_with("${") && v.ends_with('}'))
        || (v.starts_with("{{") && v.ends_with("}}"))
        || (v.starts_with('$')
            && v[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'))
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('%') && v.ends_with('%') && v.len() > 2)
        // Make's and Azure Pipelines' `$(VAR)`.
        || (v.starts_with("$(")
            && v.ends_with(')')
            && v[2..v.len() - 1]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        // An Ansible vault: ciphertext, kept whole.
        || v.starts_with("!vault")
        || v.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
}

/// A path to a file (`/root/.smbcred`, `~/.aws/credentials`, `results/run-3/fio.json`):
/// where a secret is kept, or an object's key, never the secret itself.
pub fn is_reference(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    let v = v.strip_prefix("file://").unwrap_or(v);
    let chars_ok = v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '~' | '-' | '@' | '+'));
    if !chars_ok || !v.contains('/') || v.contains("//") {
        return false;
    }
    let segments_plain = v
        .split('/')
        .all(|seg| !random_token(seg) && seg.len() <= 64);
    let rooted =
        v.starts_with('/') || v.starts_with("~/") || v.starts_with("./") || v.starts_with("../");
    let file_name = v
        .rsplit('/')
        .next()
        .and_then(|f| f.rsplit_once('.'))
        .is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
    segments_plain && (rooted || file_name)
}

/// A name or a choice written as one (`hf_token`, `accept-new`, `service.name`,
/// `EXECUTION_ENV_PATH`): lower case words joined by `.`, `_` or `-` (no digits), or
/// upper snake case. What compose's `secrets:` list, a record's `key:` and an option's
/// setting hold.
fn is_identifier(v: &str) -> bool {
    let lower = v
        .chars()
        .all(|c| c.is_ascii_lowercase() || matches!(c, '.' | '_' | '-'));
    let upper_snake = v
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && v.contains('_');
    v.contains(['.', '_', '-'])
        && v.starts_with(|c: char| c.is_ascii_alphabetic())
        && (lower || upper_snake)
}

/// Whether a value looks like a credential rather than a word, a name or a count: for
/// weak keys.
pub fn looks_secret(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    !is_identifier(v) && mixes_classes(v)
}

/// Whether a value mixes kinds of character as credentials do (a rule's `mixed`).
pub fn mixes_classes(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    let n = v.chars().count();
    if n < 6
        || v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
    {
        return false;
    }
    let lower = v.chars().any(|c| c.is_lowercase());
    let upper = v.chars().any(|c| c.is_uppercase());
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let symbol = v.chars().any(|c| !c.is_alphanumeric());
    let classes = [lower, upper, digit, symbol].iter().filter(|x| **x).count();
    n >= 16 || classes >= 2 && (digit || symbol || (lower && upper))
}

/// Whether a key and its value make a secret.
pub fn is_secret(key: &str, value: &str) -> bool {
    if is_placeholder(value) || is_reference(value) {
        return false;
    }
    match strength(key) {
        Strength::Strong => true,
        Strength::Weak => looks_secret(value),
        Strength::No => false,
    }
}

/// Shannon entropy of a string, in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for &c in s.as_bytes() {
        counts[c as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Long, mixed upper, lower and digits, high entropy, not a path.
pub fn random_token(tok: &str) -> bool {
    let t = tok.trim_end_matches('=');
    if t.len() < 20 || t.contains("REDACTED") {
        return false;
    }
    let upper = t.bytes().any(|c| c.is_ascii_uppercase());
    let lower = t.bytes().any(|c| c.is_ascii_lowercase());
    let digit = t.bytes().any(|c| c.is_ascii_digit());
    let pathlike = t.matches('/').count() >= 2 && !t.contains('+');
    upper && lower && digit && !pathlike && entropy(t) >= 3.7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_in_every_case_and_their_neighbours_that_are_not() {
        for k in [
            "HF_TOKEN",
            "api_key",
            "ApiKey",
            "x-api-key",
            "DB_PASSWORD",
            "accessToken",
            "AccountKey",
            "client_secret",
            "identitytoken",
            "client-key-data",
            ".dockerconfigjson",
            "dhchap_key",
            "dhchap_ctrl_key",
            "psk",
            "license-key",
            "STRIPE_KEY",
            "http_s3_key",
            "http_pass",
            "SENTRY_DSN",
            "SLACK_WEBHOOK_URL",
            "Authorization",
            "_authToken",
            "db_password",
        ] {
            assert_eq!(strength(k), Strength::Strong, "{k}");
        }
        for k in [
            "prompt_tokens",
            "max_tokens",
            "token_count",
            "cached_tokens",
            "author",
            "bypass",
            "compass",
            "auth_type",
            "session_timeout",
            "model",
            "secretName",
            "secretKeyRef",
            "PasswordAuthentication",
            "password-stdin",
            "password_file",
            "max_token",
            "eos_token",
            "bos_token_id",
            "sort_key",
            "public_key",
            "max-num-batched-tokens",
            "key_id",
        ] {
            assert_eq!(strength(k), Strength::No, "{k}");
        }
        for k in ["auth", "session", "key", "token", "pass"] {
            assert_eq!(strength(k), Strength::Weak, "{k}");
        }
    }

    #[test]
    fn weak_keys_need_a_value_that_looks_secret() {
        assert!(!is_secret("auth", "CHAP"));
        assert!(!is_secret("session", "1"));
        assert!(!is_secret("key", "app"));
        assert!(is_secret("token", "hunter2x"));
        assert!(is_secret("key", "a8f5f167f44f4964e6c998dee827110c"));
        assert!(is_secret("password", "hunter"), "strong keys: any value");
        for p in [
            "None",
            "null",
            "${DB_PASSWORD}",
            "$KEY",
            "<password>",
            "***",
            "no",
            "{{ .Values.pw }}",
        ] {
            assert!(!is_secret("password", p), "{p}");
        }
    }
}

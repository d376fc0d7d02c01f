//! JSON, redacted by its structure: a string under a secret's key has its content
//! replaced (it stays a quoted string, the file stays valid JSON); a number or literal
//! under one becomes the string `"[REDACTED]"`; every other string is read as text
//! (decoded first, so JSON inside a string, `\"db_password\": \"…\"`, and PEM blocks with
//! `\n` escapes are found) and written back escaped. Anything that is not one JSON
//! document is left to the text detectors.

use super::keys::is_secret;
use super::{Edit, MARK};

/// Deeper nesting than this is read as text instead (no recursion without bound).
const MAX_DEPTH: usize = 128;

use super::keys::{RECORD_NAMES as NAMES, RECORD_VALUES as VALUES};

/// One member of an object: its name and where its value is.
struct Member {
    name: String,
    start: usize,
    end: usize,
}

/// What the structure's reading gives: the edits that redact the text, and the content
/// range of every string (keys too), in order.
pub struct Read {
    pub edits: Vec<Edit>,
    pub strings: Vec<(usize, usize)>,
}

/// The edits that redact `text`, when it is one JSON document.
pub fn edits(text: &str) -> Option<Read> {
    let mut p = Parser {
        b: text.as_bytes(),
        text,
        at: 0,
        out: Vec::new(),
        strings: Vec::new(),
    };
    p.ws();
    p.value(None, 0)?;
    p.ws();
    (p.at == p.b.len()).then_some(Read {
        edits: p.out,
        strings: p.strings,
    })
}

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    at: usize,
    out: Vec<Edit>,
    strings: Vec<(usize, usize)>,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.at < self.b.len() && matches!(self.b[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    fn value(&mut self, key: Option<&str>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.at)? {
            b'{' => self.object(depth),
            b'[' => self.array(key, depth),
            b'"' => {
                let (s, e, escaped) = self.string()?;
                let value = decoded(&self.text[s..e], escaped);
                if key.is_some_and(|k| is_secret(k, &value)) {
                    self.out.push(Edit::mark(s, e, "json-key"));
                } else {
                    self.text_in_string(s, e, &value, escaped);
                }
                Some(())
            }
            _ => self.literal(key),
        }
    }

    /// An object: each member's value under its name, then the object as a record.
    fn object(&mut self, depth: usize) -> Option<()> {
        self.at += 1;
        self.ws();
        if self.b.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Some(());
        }
        let mut members: Vec<Member> = Vec::new();
        loop {
            self.ws();
            let (s, e, escaped) = self.string()?;
            let name = decoded(&self.text[s..e], escaped);
            self.text_in_string(s, e, &name, escaped);
            self.eat(b':')?;
            self.ws();
            let start = self.at;
            self.value(Some(&name), depth + 1)?;
            members.push(Member {
                name,
                start,
                end: self.at,
            });
            self.ws();
            match *self.b.get(self.at)? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    self.record(&members);
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array: its elements are under the array's key (`"api_key": ["x"]`).
    fn array(&mut self, key: Option<&str>, depth: usize) -> Option<()> {
        self.at += 1;
        self.ws();
        if self.b.get(self.at) == Some(&b']') {
            self.at += 1;
            return Some(());
        }
        loop {
            self.value(key, depth + 1)?;
            self.ws();
            match *self.b.get(self.at)? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A number, `true`, `false` or `null` (anything else is not JSON); masked, quoted,
    /// under a secret's key.
    fn literal(&mut self, key: Option<&str>) -> Option<()> {
        let s = self.at;
        while self.at < self.b.len()
            && !matches!(
                self.b[self.at],
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
            )
        {
            self.at += 1;
        }
        let token = &self.text[s..self.at];
        let literal = matches!(token, "true" | "false" | "null")
            || token.parse::<f64>().is_ok_and(|_| {
                token
                    .bytes()
                    .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
            });
        if !literal {
            return None;
        }
        if key.is_some_and(|k| is_secret(k, token)) {
            self.out.push(Edit {
                start: s,
                end: self.at,
                replacement: Some(format!("\"{MARK}\"")),
                rule: "json-key".into(),
                count: 1,
            });
        }
        Some(())
    }

    /// An object that is a record of a setting: one member gives its name (`"name":
    /// "VLLM_API_KEY"`), another its value (`"value": "…"`), as Kubernetes env lists,
    /// Triton parameters and many APIs write them. When the name names a secret, the
    /// value is redacted whole, whatever the value member is called among [`VALUES`].
    fn record(&mut self, members: &[Member]) {
        let string_at = |m: &Member| {
            let raw = &self.text[m.start..m.end];
            (raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"'))
                .then(|| decoded(&raw[1..raw.len() - 1], raw.contains('\\')))
        };
        let is = |m: &Member, names: &[&str]| names.iter().any(|n| m.name.eq_ignore_ascii_case(n));
        // A value that is an object or a list is a structure of its own, read as one.
        let Some(value) = members
            .iter()
            .find(|m| is(m, VALUES) && !matches!(self.b.get(m.start), Some(b'{' | b'[')))
        else {
            return;
        };
        let shown =
            string_at(value).unwrap_or_else(|| self.text[value.start..value.end].to_string());
        let named = members
            .iter()
            .filter(|m| is(m, NAMES))
            .filter_map(&string_at)
            .any(|n| is_secret(&n, &shown));
        if !named || shown.trim_matches('"').is_empty() {
            return;
        }
        let (s, e, replacement) = match string_at(value) {
            Some(_) => (value.start + 1, value.end - 1, None),
            None => (value.start, value.end, Some(format!("\"{MARK}\""))),
        };
        // Whatever was found inside the value before gives way to the whole of it.
        self.out.retain(|x| x.end <= s || x.start >= e);
        self.out.push(Edit {
            start: s,
            end: e,
            replacement,
            rule: "json-record".into(),
            count: 1,
        });
    }

    /// A string at `at`: the span of its content and whether it holds escapes.
    fn string(&mut self) -> Option<(usize, usize, bool)> {
        if self.b.get(self.at) != Some(&b'"') {
            return None;
        }
        let s = self.at + 1;
        let mut i = s;
        let mut escaped = false;
        while i < self.b.len() {
            match self.b[i] {
                b'"' => {
                    self.at = i + 1;
                    self.strings.push((s, i));
                    return Some((s, i, escaped));
                }
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                b'\n' => return None,
                _ => i += 1,
            }
        }
        None
    }

    /// A string's content read as text: its secrets, in place (or the whole content
    /// written again, escaped, when it held escapes).
    fn text_in_string(&mut self, s: usize, e: usize, value: &str, escaped: bool) {
        // gitleaks' token shapes too: a token our rules miss in a string that is written
        // again would otherwise go out with it.
        let spans = super::merge(super::text::spans_of_file("", value));
        if spans.is_empty() {
            return;
        }
        if !escaped {
            self.out.extend(
                spans
                    .into_iter()
                    .map(|x| Edit::mark(s + x.start, s + x.end, &x.rule)),
            );
            return;
        }
        let count = spans.len();
        let redacted = super::apply_spans(value, &spans);
        let quoted = serde_json::to_string(&redacted).unwrap_or_else(|_| format!("\"{MARK}\""));
        self.out.push(Edit {
            start: s,
            end: e,
            replacement: Some(quoted[1..quoted.len() - 1].to_string()),
            rule: spans[0].rule.clone(),
            count,
        });
    }
}

/// A string's content decoded (`\"`, `\\`, `\n`, `\u00e9`, surrogate pairs).
fn decoded(raw: &str, escaped: bool) -> String {
    if !escaped {
        return raw.to_string();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::redact;

    #[test]
    fn values_stay_valid_json_of_the_same_shape() {
        let text = r#"{"http_pass": "s3cr3t", "global options": {"http_s3_key": "AbC/123+xyz", "rw": "randread", "pin": 123456, "password": 42}, "api_key": ["a1b2c3d4e5"], "note": "{\"db_password\": \"hunter2\"}", "prompt_tokens": 196531, "max_tokens": 1}"#;
        let (out, n) = redact(text);
        let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(v["http_pass"], "[REDACTED]");
        assert_eq!(v["global options"]["http_s3_key"], "[REDACTED]");
        assert_eq!(v["global options"]["rw"], "randread");
        assert_eq!(v["global options"]["password"], "[REDACTED]");
        assert_eq!(
            v["global options"]["pin"], 123456,
            "pin is not a secret's name"
        );
        assert_eq!(v["api_key"][0], "[REDACTED]");
        assert!(!out.contains("hunter2"), "{out}");
        assert_eq!(v["prompt_tokens"], 196531);
        assert_eq!(v["max_tokens"], 1);
        assert_eq!(n, 5, "{out}");
    }

    #[test]
    fn a_pem_key_in_a_json_string_goes_whole() {
        let text = "{\"type\": \"service_account\", \"key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkq\\n-----END PRIVATE KEY-----\\n\"}";
        let (out, _) = redact(text);
        assert!(!out.contains("MIIE"), "{out}");
        serde_json::from_str::<serde_json::Value>(&out).expect("still JSON");
    }
}

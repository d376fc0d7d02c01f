//! Python's printed forms, as tools log their arguments: `Namespace(a=1, b='x')`,
//! `GenConvArgs(n=16, ...)` and dicts `{'model': '/m', 'tensor_parallel_size': 8}`.
//! Values come back as text: strings unquoted, everything else as printed.

/// Splits `s` at top-level `sep` characters, outside quotes and brackets.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A value as text: quotes removed from strings, a one-element list of a string unwrapped
/// (`['glm-5.3']` -> `glm-5.3`).
pub fn value(v: &str) -> String {
    let v = v.trim();
    let unquote = |s: &str| -> Option<String> {
        let first = s.chars().next()?;
        ((first == '\'' || first == '"') && s.len() >= 2 && s.ends_with(first))
            .then(|| s[1..s.len() - 1].replace("\\'", "'").replace("\\\"", "\""))
    };
    if let Some(s) = unquote(v) {
        return s;
    }
    if let Some(inner) = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let items = split_top(inner, ',');
        if items.len() == 1 {
            if let Some(s) = unquote(items[0].trim()) {
                return s;
            }
        }
    }
    v.to_string()
}

/// `Name(k=v, k2=v2)` -> the pairs, when `line` holds `Name(` ... `)`.
pub fn call_fields(line: &str, name: &str) -> Option<Vec<(String, String)>> {
    let at = line
        .match_indices(name)
        .map(|(i, _)| i + name.len())
        .find(|&end| line[end..].starts_with('('))?
        + 1;
    let body = line[at..].trim_end();
    let inner = body.strip_suffix(')')?;
    Some(
        split_top(inner, ',')
            .into_iter()
            .filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                let k = k.trim();
                (!k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    .then(|| (k.to_string(), value(v)))
            })
            .collect(),
    )
}

/// The dict after `key` on a line (`non-default args: {...}`) -> its pairs.
pub fn dict_after(line: &str, key: &str) -> Option<Vec<(String, String)>> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].trim_start();
    let inner = rest.strip_prefix('{')?;
    // The dict ends at its matching brace.
    let mut depth = 1i32;
    let mut quote: Option<char> = None;
    let mut end = None;
    for (i, c) in inner.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = &inner[..end?];
    Some(
        split_top(inner, ',')
            .into_iter()
            .filter_map(|kv| {
                let parts = split_top(kv, ':');
                if parts.len() < 2 {
                    return None;
                }
                let k = value(parts[0]);
                let v = kv[parts[0].len() + 1..].to_string();
                (!k.is_empty()).then(|| (k, value(&v)))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_namespace_line() {
        let line = "30-11-2026 00:28:01 [INFO] - Namespace(input_file='gen_conv.json', seed=0, served_model_name='demo', num_clients=1, no_early_stop=True, conversation_sampling=<ConversationSampling.ROUND_ROBIN: 'round_robin'>, header=None, text=['a, b'])";
        let f = call_fields(line, "Namespace").expect("fields");
        let get = |k: &str| f.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("input_file"), Some("gen_conv.json"));
        assert_eq!(get("no_early_stop"), Some("True"));
        assert_eq!(get("num_clients"), Some("1"));
        assert_eq!(get("text"), Some("a, b"));
        assert_eq!(get("header"), Some("None"));
        assert_eq!(
            get("conversation_sampling"),
            Some("<ConversationSampling.ROUND_ROBIN: 'round_robin'>")
        );
    }

    #[test]
    fn reads_vllms_non_default_args() {
        let line = "INFO [utils.py:326] non-default args: {'model': '/models/GLM-5.3-FP8', 'served_model_name': ['glm-5.3'], 'tensor_parallel_size': 8, 'kv_transfer_config': KVTransferConfig(kv_connector='FusIOnXConnector', kv_connector_extra_config={'chunk_size': 128}), 'max_model_len': 256000}";
        let d = dict_after(line, "non-default args:").expect("dict");
        let get = |k: &str| d.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("model"), Some("/models/GLM-5.3-FP8"));
        assert_eq!(get("served_model_name"), Some("glm-5.3"));
        assert_eq!(get("tensor_parallel_size"), Some("8"));
        assert_eq!(get("max_model_len"), Some("256000"));
        assert!(get("kv_transfer_config").is_some_and(|v| v.contains("'chunk_size': 128")));
        assert!(dict_after("no dict here", "non-default args:").is_none());
        assert!(dict_after("non-default args: {'a': 1", "non-default args:").is_none());
    }
}

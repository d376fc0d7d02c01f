//! docker compose files as the procedure writes them: per service, the image and the
//! server's `--flag=value` arguments (a YAML list under `command:`). Only those lines are
//! read; anchors, merges and other YAML are not interpreted.

use std::collections::BTreeMap;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Compose {
    pub services: Vec<Service>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Service {
    pub name: String,
    pub image: Option<String>,
    /// `--tensor-parallel-size=8` -> `tensor-parallel-size: 8`; a flag alone -> `true`.
    pub args: BTreeMap<String, String>,
    /// `KEY=value` environment entries.
    pub environment: BTreeMap<String, String>,
}

pub fn looks_like(name: &str, head: &str) -> bool {
    let yaml = name.ends_with(".yaml") || name.ends_with(".yml");
    yaml && head.lines().any(|l| l.trim_end() == "services:")
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

/// The line without a trailing ` # comment` outside quotes.
fn strip_comment(l: &str) -> &str {
    let mut quote = None;
    let b = l.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match (quote, c) {
            (None, b'\'' | b'"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, b'#') if i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t' => return &l[..i],
            _ => {}
        }
    }
    l
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

pub fn parse(text: &str) -> Compose {
    let mut out = Compose::default();
    let mut in_services = false;
    let mut service_indent = None;
    let mut pending_flag: Option<String> = None;
    for raw in text.lines() {
        let l = strip_comment(raw).trim_end();
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if indent(l) == 0 {
            in_services = t == "services:";
            service_indent = None;
            continue;
        }
        if !in_services {
            continue;
        }
        let ind = indent(l);
        if service_indent.is_none_or(|si| ind <= si) && t.ends_with(':') && !t.starts_with('-') {
            service_indent = Some(ind);
            out.services.push(Service {
                name: t.trim_end_matches(':').to_string(),
                ..Service::default()
            });
            pending_flag = None;
            continue;
        }
        let Some(svc) = out.services.last_mut() else {
            continue;
        };
        if let Some(v) = t.strip_prefix("image:") {
            svc.image = Some(unquote(v).to_string());
            continue;
        }
        let Some(item) = t.strip_prefix("- ") else {
            // `environment:` as a mapping: `PYTHONHASHSEED: "0"`.
            if let Some((k, v)) = t.split_once(": ") {
                if is_env_name(k) {
                    svc.environment
                        .insert(k.to_string(), unquote(v).to_string());
                }
            }
            continue;
        };
        let item = unquote(item);
        if let Some(flag) = item.strip_prefix("--") {
            let (k, v) = match flag.split_once('=') {
                Some((k, v)) => (k, v),
                None => (flag, "true"),
            };
            svc.args.insert(k.to_string(), unquote(v).to_string());
            pending_flag = (!flag.contains('=')).then(|| k.to_string());
        } else if let Some(k) = pending_flag.take() {
            // `- --tensor-parallel-size` then `- "8"` on the next item.
            svc.args.insert(k, item.to_string());
        } else if let Some((k, v)) = item.split_once('=') {
            if is_env_name(k) {
                svc.environment.insert(k.to_string(), v.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_images_flags_and_environment() {
        let t = "services:\n  vllm:\n    image: awidelabs/vllm:v0.28.0-6.1.1\n    environment:\n      - VLLM_USE_V2_MODEL_RUNNER=0\n    command:\n      - --model=/models/GLM-5.3-FP8\n      - --tensor-parallel-size=8\n      - --enable-prefix-caching   # comment\n      - '--default-chat-template-kwargs={\"enable_thinking\":false}'   # test 2\n      - '--speculative-config={\"method\":\"mtp\",\"num_speculative_tokens\":1}'\n      - --max-model-len\n      - \"256000\"\n  gateway:\n    image: awidelabs/xkv-gateway:6.1.1\n";
        assert!(looks_like("compose.yaml", t));
        let c = parse(t);
        assert_eq!(c.services.len(), 2);
        let v = &c.services[0];
        assert_eq!(v.image.as_deref(), Some("awidelabs/vllm:v0.28.0-6.1.1"));
        assert_eq!(v.args["tensor-parallel-size"], "8");
        assert_eq!(v.args["enable-prefix-caching"], "true");
        assert_eq!(v.args["max-model-len"], "256000");
        assert!(v.args["speculative-config"].contains("mtp"));
        assert_eq!(v.environment["VLLM_USE_V2_MODEL_RUNNER"], "0");
        assert_eq!(
            v.args["default-chat-template-kwargs"],
            "{\"enable_thinking\":false}"
        );
        assert_eq!(c.services[1].name, "gateway");
    }
}

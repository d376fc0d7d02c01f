//! Secrets on shell command lines, by the flags of the tools that take them (the rule
//! set's `[[tool]]` tables): each logical line (continued with `\`) is split into words
//! as a shell would (quotes, escapes, `|`, `&&`, `;`), and a flag's value is the next word,
//! the part after `=`, or what is attached to a short flag (`mysql -pPW`); `user:password`
//! keeps the user; `wandb login KEY` has it as an argument; `echo PW | sudo -S` and
//! `echo PW | docker login --password-stdin` pipe it in.

use super::rules::{rules, Tool};
use super::Span;

/// One word of a command line: its unquoted text and the span of its content.
struct Word {
    start: usize,
    end: usize,
    text: String,
    op: bool,
}

pub fn spans(text: &str, out: &mut Vec<Span>) {
    let r = rules();
    let lower = text.to_ascii_lowercase();
    let names: Vec<&str> = r
        .tools
        .iter()
        .flat_map(|t| t.names.iter().map(String::as_str))
        .filter(|n| lower.contains(&n.to_ascii_lowercase()))
        .collect();
    if names.is_empty() {
        return;
    }
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let end = logical_end(b, at);
        let line = &lower[at..end];
        if names.iter().any(|n| line.contains(&n.to_ascii_lowercase())) {
            let words = tokenize(text, at, end);
            commands(&words, out);
        }
        at = end + 1;
    }
}

/// The end of the logical line starting at `at`: lines ending in `\` continue.
fn logical_end(b: &[u8], mut at: usize) -> usize {
    loop {
        let e = b[at..]
            .iter()
            .position(|&c| c == b'\n' || c == 0)
            .map_or(b.len(), |i| at + i);
        let body = b[at..e].strip_suffix(b"\r").unwrap_or(&b[at..e]);
        if body.ends_with(b"\\") && e < b.len() {
            at = e + 1;
            continue;
        }
        return e;
    }
}

fn tokenize(text: &str, from: usize, to: usize) -> Vec<Word> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let c = b[i];
        if c == b'\\' && i + 1 < to && (b[i + 1] == b'\n' || b[i + 1] == b'\r') {
            i += 2;
            continue;
        }
        if c.is_ascii_whitespace() || c == 0 {
            i += 1;
            continue;
        }
        if matches!(c, b'|' | b'&' | b';') {
            let n = if i + 1 < to && b[i + 1] == c { 2 } else { 1 };
            out.push(Word {
                start: i,
                end: i + n,
                text: text[i..i + n].to_string(),
                op: true,
            });
            i += n;
            continue;
        }
        let mut word = String::new();
        let (mut start, mut end) = (None::<usize>, i);
        while i < to && !b[i].is_ascii_whitespace() && !matches!(b[i], b'|' | b'&' | b';' | 0) {
            match b[i] {
                q @ (b'\'' | b'"') => {
                    let s = i + 1;
                    let mut j = s;
                    while j < to && b[j] != q {
                        if q == b'"' && b[j] == b'\\' {
                            j += 1;
                        }
                        j += 1;
                    }
                    let j = j.min(to);
                    word.push_str(&text[s..j]);
                    start.get_or_insert(s);
                    end = j;
                    i = (j + 1).min(to);
                }
                b'\\' if i + 1 < to => {
                    start.get_or_insert(i + 1);
                    let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    word.push_str(&text[i + 1..i + 1 + ch]);
                    end = i + 1 + ch;
                    i += 1 + ch;
                }
                _ => {
                    let ch = text[i..].chars().next().map_or(1, char::len_utf8);
                    start.get_or_insert(i);
                    word.push_str(&text[i..i + ch]);
                    i += ch;
                    end = i;
                }
            }
        }
        if let Some(s) = start {
            out.push(Word {
                start: s,
                end,
                text: word,
                op: false,
            });
        }
    }
    out
}

fn commands(words: &[Word], out: &mut Vec<Span>) {
    let r = rules();
    let cmds: Vec<&[Word]> = words.split(|w| w.op).collect();
    for (ci, cmd) in cmds.iter().enumerate() {
        // A tool's arguments run to the next tool named in the same command (`sudo -S
        // docker login -p PW`: `-S` is sudo's, `-p` docker's): each word is read once,
        // however many tools a long line names.
        let tools: Vec<(usize, &Tool)> = cmd
            .iter()
            .enumerate()
            .filter_map(|(k, w)| r.tool(&w.text).map(|t| (k, t)))
            .collect();
        for (n, &(k, tool)) in tools.iter().enumerate() {
            let until = tools.get(n + 1).map_or(cmd.len(), |(next, _)| *next);
            let args = &cmd[k + 1..until];
            let in_context = tool.context.is_empty()
                || words.iter().any(|w| {
                    let l = w.text.to_ascii_lowercase();
                    tool.context.iter().any(|c| l.contains(c.as_str()))
                });
            if !in_context {
                continue;
            }
            if !tool.sub.is_empty() && !args.iter().any(|a| tool.sub.contains(&a.text)) {
                continue;
            }
            flags(tool, args, out);
            let reads_stdin = tool.stdin.iter().any(|f| {
                f.is_empty()
                    || args
                        .iter()
                        .any(|a| a.text == *f || a.text.starts_with(&format!("{f}=")))
            });
            if reads_stdin && ci > 0 {
                // `echo PW | tool`, or a group piped in: `(echo PW; echo PW) | tool`.
                let mut k = ci - 1;
                let closes = |c: &[Word]| c.last().is_some_and(|w| w.text.ends_with(')'));
                if closes(cmds[k]) {
                    while k > 0 && !cmds[k].first().is_some_and(|w| w.text.starts_with('(')) {
                        k -= 1;
                    }
                }
                for c in &cmds[k..ci] {
                    piped_in(c, out);
                }
            }
        }
    }
}

/// The first `end` bytes of an unquoted word as a piped secret.
fn push_part(w: &Word, end: usize, out: &mut Vec<Span>) {
    if end < w.text.len() && w.end - w.start == w.text.len() {
        if !super::keys::is_placeholder(&w.text[..end]) && end > 0 {
            out.push(Span {
                start: w.start,
                end: w.start + end,
                rule: "piped-secret".to_string(),
            });
        }
    } else {
        push(w, 0, out, "piped-secret");
    }
}

fn push(w: &Word, from: usize, out: &mut Vec<Span>, rule: &str) {
    let s = (w.start + from).min(w.end);
    if w.end > s && !super::keys::is_placeholder(&w.text[from.min(w.text.len())..]) {
        out.push(Span {
            start: s,
            end: w.end,
            rule: rule.to_string(),
        });
    }
}

/// The byte offset in the word's span of its text's byte `i` (quotes make them differ;
/// the common unquoted word maps one to one).
fn offset(w: &Word, i: usize) -> usize {
    if w.end - w.start == w.text.len() {
        i
    } else {
        0
    }
}

/// A flag's value among `args`: (word index, byte offset of the value in that word).
fn value_after(args: &[Word], i: usize, flag: &str, attached_ok: bool) -> Option<(usize, usize)> {
    let a = &args[i].text;
    if a == flag || (flag.starts_with('-') && a.eq_ignore_ascii_case(flag) && flag.len() > 2) {
        return (i + 1 < args.len()).then_some((i + 1, 0));
    }
    if flag.starts_with("--") || flag.len() > 2 {
        return a
            .strip_prefix(flag)
            .and_then(|r| r.strip_prefix('='))
            .map(|_| (i, flag.len() + 1));
    }
    (attached_ok && a.starts_with(flag) && a.len() > flag.len() && !a.starts_with("--"))
        .then_some((i, flag.len()))
}

fn flags(tool: &Tool, args: &[Word], out: &mut Vec<Span>) {
    let attached_ok = !tool.single_dash_words;
    for i in 0..args.len() {
        for f in &tool.value {
            if let Some((j, off)) = value_after(args, i, f, attached_ok) {
                push(&args[j], offset(&args[j], off), out, "tool-flag");
            }
        }
        for f in &tool.attached {
            let a = &args[i].text;
            if a.starts_with(f.as_str()) && a.len() > f.len() && !a.starts_with("--") {
                push(&args[i], offset(&args[i], f.len()), out, "tool-flag");
            }
        }
        for f in &tool.userpass {
            if let Some((j, off)) = value_after(args, i, f, attached_ok) {
                let v = &args[j].text[off.min(args[j].text.len())..];
                if let Some(p) = v.find([':', '%']) {
                    push(
                        &args[j],
                        offset(&args[j], off + p + 1),
                        out,
                        "tool-userpass",
                    );
                }
            }
        }
    }
    for [name_flag, value_flag] in &tool.named {
        let named = (0..args.len()).find_map(|i| value_after(args, i, name_flag, false));
        let value = (0..args.len()).find_map(|i| value_after(args, i, value_flag, false));
        if let (Some((n, off)), Some((v, voff))) = (named, value) {
            let name = &args[n].text[off.min(args[n].text.len())..];
            let val = &args[v].text[voff.min(args[v].text.len())..];
            if super::keys::is_secret(name, val) {
                push(&args[v], offset(&args[v], voff), out, "tool-named-value");
            }
        }
    }
    for p in &tool.positional {
        positional(tool, args, &p[0], &p[1], out);
    }
}

/// `positional = [[SUB, N]]`: after the subcommand words SUB (any case for a `nocase`
/// tool; none: right after the tool), the N-th word that is not an option, or the last
/// one (`N = "last"`: `AUTH [user] password`).
fn positional(tool: &Tool, args: &[Word], sub: &str, n: &str, out: &mut Vec<Span>) {
    let sub: Vec<&str> = sub.split_whitespace().collect();
    let same = |a: &str, b: &str| {
        a == b || (tool.nocase || b.starts_with('-')) && a.eq_ignore_ascii_case(b)
    };
    let plain: Vec<&Word> = args
        .iter()
        .filter(|a| !a.text.starts_with('-') || sub.iter().any(|s| same(&a.text, s)))
        .collect();
    let at = if sub.is_empty() {
        Some(0)
    } else {
        plain
            .windows(sub.len())
            .position(|w| w.iter().zip(&sub).all(|(a, s)| same(&a.text, s)))
    };
    let Some(at) = at else {
        return;
    };
    let after = &plain[(at + sub.len()).min(plain.len())..];
    let word = if n == "last" {
        after.last()
    } else {
        n.parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| after.get(i))
    };
    if let Some(w) = word {
        push(w, 0, out, "tool-argument");
    }
}

/// `echo PW |` and `printf '%s\n' PW |` before a command that reads a secret from
/// standard input: the piped words.
fn piped_in(cmd: &[Word], out: &mut Vec<Span>) {
    let Some(first) = cmd.first() else {
        return;
    };
    let command = first.text.trim_start_matches('(');
    let name = command.rsplit('/').next().unwrap_or(command);
    let args: Vec<&Word> = cmd[1..]
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .collect();
    match name {
        "echo" => args.iter().for_each(|w| {
            // A group's closing parenthesis is not part of the word.
            let end = w.text.len() - usize::from(w.text.ends_with(')'));
            push_part(w, end, out)
        }),
        "printf" => {
            let skip =
                usize::from(args.first().is_some_and(|f| f.text.contains('%')) && args.len() > 1);
            args[skip..]
                .iter()
                .for_each(|w| push(w, 0, out, "piped-secret"));
        }
        _ => {}
    }
}

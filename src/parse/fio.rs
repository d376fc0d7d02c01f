//! fio's JSON output (`--output-format=json`, `json+`, `normal,json`), as it arrives in
//! the field: text before or after the JSON, several documents from `--status-interval`
//! (the last is final), duplicate keys in `global options` (the last wins, as in fio).
//! This module finds the documents; [`super::fio_typed`] is the one reader of a document.

use std::path::Path;

use serde_json::Value;

pub use super::fio_record::{DirStats, DiskUtil, FioJob, FioOutput, Latency};
use crate::error::{ParseError, Problem};
use crate::parse::text::{line_starts, read_capped, TextCheck};

pub fn parse_path(path: &Path) -> Result<FioOutput, ParseError> {
    let bytes = read_capped(path)?;
    parse_bytes(&bytes).map_err(|p| p.in_file(path))
}

/// Finds the fio documents in `bytes` and reads the last one.
/// How the reason for a file holding an SPDK RPC error begins: a job whose output is one
/// failed (`bdevperf.py perform_tests` prints it when the job fails).
pub const RPC_ERROR: &str = "an SPDK RPC error, what bdevperf returns for a job that failed:";

/// `code -32603: `message`` of a JSON-RPC error object (`{"error": {"code": ..,
/// "message": ..}}`).
pub fn rpc_error(v: &Value) -> Option<String> {
    let e = v.get("error")?;
    let code = e.get("code")?.as_i64()?;
    let message = e.get("message").and_then(Value::as_str).unwrap_or("");
    Some(format!("code {code}: `{message}`"))
}

pub fn parse_bytes(bytes: &[u8]) -> Result<FioOutput, Problem> {
    TextCheck::of(bytes)?;
    if let Some(out) = super::fio_typed::read(bytes) {
        return Ok(out);
    }
    read_documents(bytes)
}

/// Finds the documents in a file (text around them, several of them, a broken one) and
/// reads the final one with the one typed reader, [`super::fio_typed::read_document`];
/// a problem is named by its line.
pub fn read_documents(bytes: &[u8]) -> Result<FioOutput, Problem> {
    let found = find_documents(bytes)?;
    super::fio_typed::read_document(&bytes[found.from..found.to], found.line)
        .map(|out| found.onto(out))
}

/// Where a file's final fio document is, and what surrounds it: what [`find_documents`]
/// finds before any field of the document is read.
#[derive(Debug)]
pub struct Documents {
    /// The line the final document starts on, and its bytes (`from..to`).
    pub line: usize,
    pub from: usize,
    pub to: usize,
    pub broken_tail: Option<String>,
    pub signal: Option<String>,
    pub separate_runs: Vec<(usize, String)>,
    pub documents: usize,
    pub text_before: Vec<String>,
    pub text_after: bool,
}

impl Documents {
    /// The final document's reading, with what surrounds it.
    pub fn onto(self, mut out: FioOutput) -> FioOutput {
        out.broken_tail = self.broken_tail;
        out.signal = self.signal;
        out.separate_runs = self.separate_runs;
        out.documents = self.documents;
        out.text_before = self.text_before;
        out.text_after = self.text_after;
        out
    }
}

/// Finds the fio documents in a file and the final one; a problem is named by its line.
pub fn find_documents(bytes: &[u8]) -> Result<Documents, Problem> {
    // (line, the document, where its bytes start and end)
    let mut docs: Vec<(usize, Value, usize, usize)> = Vec::new();
    let mut text_before = Vec::new();
    let mut text_after = false;
    let mut first_error: Option<Problem> = None;
    let mut resume_at = 0usize;
    let mut signal: Option<String> = None;
    for (idx, start) in line_starts(bytes).into_iter().enumerate() {
        if start < resume_at {
            continue;
        }
        let line_no = idx + 1;
        let rest = &bytes[start..];
        let line = first_line(rest);
        if line.trim_start().starts_with('{') {
            let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
            match stream.next() {
                Some(Ok(value)) => {
                    resume_at = start + stream.byte_offset();
                    docs.push((line_no, value, start, resume_at));
                    text_after = false;
                    continue;
                }
                Some(Err(e)) if first_error.is_none() => {
                    let at = line_no + e.line().saturating_sub(1);
                    first_error = Some(Problem::at(at, super::text::json_problem(&e, "document")));
                }
                Some(Err(_)) => {}
                None => {}
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        if signal.is_none() && line.trim().starts_with("fio: terminating on signal") {
            signal = Some(line.trim().to_string());
        }
        if docs.is_empty() {
            text_before.push(line.trim_end().to_string());
        } else {
            text_after = true;
        }
    }
    let fio_docs: Vec<&(usize, Value, usize, usize)> =
        docs.iter().filter(|(_, v, _, _)| is_fio(v)).collect();
    let Some((line, doc, from, to)) = fio_docs.last() else {
        if let Some(err) = first_error {
            return Err(err);
        }
        if let Some((line, v, _, _)) = docs.first() {
            if let Some(e) = rpc_error(v) {
                return Err(Problem::at(*line, format!("{RPC_ERROR} {e}")));
            }
            return Err(Problem::at(
                *line,
                "valid JSON, but not fio output (no `jobs` array)",
            ));
        }
        return Err(match text_before.first() {
            Some(first) => Problem::at(
                1,
                format!(
                    "no fio JSON in this file; it starts with: {}",
                    clip(first, 120)
                ),
            ),
            None => Problem::whole("empty file"),
        });
    };
    // A broken document after the last complete one: fio was stopped while writing
    // (a cut-off `--status-interval` dump). The complete one is kept and the cut said.
    let broken_tail = first_error
        .filter(|e| e.line.is_some_and(|l| l > *line))
        .map(|e| format!("line {}: {}", e.line.unwrap_or(0), e.reason));
    let separate_runs = fio_docs[..fio_docs.len() - 1]
        .iter()
        .filter_map(|(l, earlier, _, _)| separate_run(earlier, doc).map(|why| (*l, why)))
        .collect();
    Ok(Documents {
        line: *line,
        from: *from,
        to: *to,
        broken_tail,
        signal,
        separate_runs,
        documents: fio_docs.len(),
        text_before,
        text_after,
    })
}

/// Why `earlier` is not a status report of the run `last` ends (`--status-interval`
/// writes the same jobs with the same options and a rising runtime), or None when it is.
fn separate_run(earlier: &Value, last: &Value) -> Option<String> {
    let jobs = |d: &Value| -> Vec<(String, String)> {
        let list = d
            .get("jobs")
            .or_else(|| d.get("client_stats"))
            .and_then(Value::as_array);
        list.map(|l| {
            l.iter()
                .map(|j| {
                    let name = j
                        .get("jobname")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    let opts = j
                        .get("job options")
                        .map(Value::to_string)
                        .unwrap_or_default();
                    (name, opts)
                })
                .collect()
        })
        .unwrap_or_default()
    };
    let (a, b) = (jobs(earlier), jobs(last));
    if a.iter().map(|x| &x.0).ne(b.iter().map(|x| &x.0)) {
        return Some("other job names".into());
    }
    if a != b || earlier.get("global options") != last.get("global options") {
        return Some("other options".into());
    }
    let runtime = |d: &Value| -> u64 {
        d.get("jobs")
            .or_else(|| d.get("client_stats"))
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .map(|j| {
                        ["read", "write", "trim"]
                            .iter()
                            .filter_map(|k| j.get(*k)?.get("runtime")?.as_u64())
                            .max()
                            .unwrap_or(0)
                            .max(j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0))
                    })
                    .sum()
            })
            .unwrap_or(0)
    };
    let (ra, rb) = (runtime(earlier), runtime(last));
    (ra > rb).then(|| format!("its runtime ({ra} ms) is above the final document's ({rb} ms)"))
}

fn is_fio(v: &Value) -> bool {
    v.get("jobs").is_some_and(Value::is_array) || v.get("client_stats").is_some_and(Value::is_array)
}

fn first_line(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    crate::parse::text::lossy(&bytes[..end]).into_owned()
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{
  "fio version" : "fio-3.33",
  "global options" : { "bs" : "4k", "bs" : "8k" },
  "jobs" : [ { "jobname" : "a", "groupid" : 0, "error" : 0,
    "read" : { "io_bytes" : 8192, "bw_bytes" : 8192, "iops" : 1.0, "runtime" : 1000, "total_ios" : 1,
      "clat_ns" : { "N" : 1, "mean" : 5.0, "percentile" : { "99.000000" : 7 } } } } ]
}
"#;

    #[test]
    fn reads_a_plain_document() {
        let out = parse_bytes(DOC.as_bytes()).expect("parses");
        assert_eq!(out.fio_version.as_deref(), Some("fio-3.33"));
        assert_eq!(out.jobs[0].read.clat.percentile(99.0), Some(7.0));
        assert_eq!(out.global_options["bs"], "8k", "the last duplicate wins");
        assert_eq!(out.line, 1);
        assert!(out.text_before.is_empty());
    }

    #[test]
    fn skips_text_before_and_after() {
        let text = format!("note: something\nfio: warn {{ odd\n{DOC}\nRun status group 0\n");
        let out = parse_bytes(text.as_bytes()).expect("parses");
        assert_eq!(out.line, 3);
        assert_eq!(out.text_before, vec!["note: something", "fio: warn { odd"]);
        assert!(out.text_after);
    }

    #[test]
    fn takes_the_last_of_several_documents() {
        let second = DOC.replace("\"iops\" : 1.0", "\"iops\" : 2.0");
        let text = format!("{DOC}{second}");
        let out = parse_bytes(text.as_bytes()).expect("parses");
        assert_eq!(out.documents, 2);
        assert_eq!(out.jobs[0].read.iops, 2.0);
    }

    #[test]
    fn names_the_line_of_a_truncated_document() {
        let cut = &DOC[..DOC.len() - 30];
        let err = parse_bytes(format!("hello\n{cut}").as_bytes()).expect_err("truncated");
        assert!(err.reason.contains("truncated"), "{err:?}");
        assert!(err.line.is_some_and(|l| l >= 2));
    }

    #[test]
    fn refuses_json_that_is_not_fio() {
        let err = parse_bytes(b"[{\"ttft_ms\": 1}]\n").expect_err("a list");
        assert!(err.reason.contains("no fio JSON"), "{err:?}");
        let err = parse_bytes(b"{\"a\": 1}\n").expect_err("no jobs");
        assert!(err.reason.contains("not fio output"), "{err:?}");
    }

    #[test]
    fn refuses_empty_and_binary_files() {
        assert_eq!(parse_bytes(b"").expect_err("empty").reason, "empty file");
        assert_eq!(
            parse_bytes(b"  \n\n").expect_err("blank").reason,
            "empty file"
        );
        let err = parse_bytes(&[0x7f, b'E', b'L', b'F', 0, 0, 1, 2]).expect_err("binary");
        assert!(err.reason.contains("binary"), "{err:?}");
    }

    #[test]
    fn names_a_field_of_the_wrong_type() {
        let text = DOC.replace("\"iops\" : 1.0", "\"iops\" : \"fast\"");
        let err = parse_bytes(text.as_bytes()).expect_err("type");
        assert!(err.reason.contains("jobs[0].read.iops"), "{err:?}");
    }
}

//! The allowlists, global and per rule: regexes against the secret, the match or the
//! line, stopwords and paths, combined with `AND` or `OR` as gitleaks combines them.

use aho_corasick::AhoCorasick;
use regex::Regex;

use super::pattern::compile;
use super::AllowData;

#[derive(Clone, Copy, PartialEq)]
enum Target {
    Secret,
    Match,
    Line,
}

pub(super) struct Allow {
    regexes: Vec<Regex>,
    target: Target,
    stopwords: Option<AhoCorasick>,
    pub(super) paths: Vec<Regex>,
    all: bool,
}

pub(super) fn allow(data: &AllowData) -> Allow {
    let stopwords: Vec<String> = data.stopwords.iter().map(|w| w.to_lowercase()).collect();
    Allow {
        regexes: data.regexes.iter().filter_map(|r| compile(r)).collect(),
        target: match data.regex_target.as_str() {
            "match" => Target::Match,
            "line" => Target::Line,
            _ => Target::Secret,
        },
        stopwords: (!stopwords.is_empty())
            .then(|| AhoCorasick::new(&stopwords).ok())
            .flatten(),
        paths: data.paths.iter().filter_map(|r| compile(r)).collect(),
        all: data.condition.eq_ignore_ascii_case("and"),
    }
}

impl Allow {
    /// Whether the finding is allowed (not a secret), as gitleaks' `checkFindingAllowed`.
    pub(super) fn allows(&self, path: &str, secret: &str, whole: &str, line: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let regex = !target.is_empty() && self.regexes.iter().any(|r| r.is_match(target));
        let stop = self
            .stopwords
            .as_ref()
            .is_some_and(|s| s.is_match(&secret.to_lowercase()));
        if self.all {
            let mut checks = Vec::new();
            if !self.paths.is_empty() {
                checks.push(!path.is_empty() && self.paths.iter().any(|r| r.is_match(path)));
            }
            if !self.regexes.is_empty() {
                checks.push(regex);
            }
            if self.stopwords.is_some() {
                checks.push(stop);
            }
            checks.iter().all(|&c| c)
        } else {
            regex || stop
        }
    }

    /// An `OR` allowlist whose paths match leaves the whole file to the rule.
    pub(super) fn allows_file(&self, path: &str) -> bool {
        !self.all && !path.is_empty() && self.paths.iter().any(|r| r.is_match(path))
    }
}

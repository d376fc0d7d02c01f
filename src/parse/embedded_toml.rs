//! The TOML documents built into the binary (each suite's published numbers, reference
//! setup and check-next rules, in `reports/*.toml`): each is parsed once per process and
//! read from its table from then on. One document is read by several parts (a suite's
//! reference, its conformance table, its rules, and the same file by three KV suites),
//! and parsing TOML is slow: re-parsing the same two documents took a tenth of the CPU
//! time of analyzing a small archive.

use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;

/// Parsed documents, by their text (a `const` text may sit at several addresses: one per
/// place that names it, so the text is compared, not only its address).
type Parsed = Vec<(&'static str, Arc<toml::Table>)>;

static PARSED: Mutex<Parsed> = Mutex::new(Vec::new());

/// `text` read as a `T`: from its JSON twin when it has one (`reports/*.toml`, read into
/// JSON when the program was built: parsing TOML was 4% of analyzing an archive), else
/// from the TOML, parsed the first time only. A twin that does not give a `T` is passed
/// over, and the TOML's own reading says why.
pub fn read<T: DeserializeOwned>(text: &'static str) -> Result<T, toml::de::Error> {
    if let Some(t) = twin(text).and_then(|json| serde_json::from_str(json).ok()) {
        return Ok(t);
    }
    toml::Value::Table(table(text)?.as_ref().clone()).try_into()
}

mod built {
    include!(concat!(env!("OUT_DIR"), "/twins.rs"));
}

/// The JSON twin of a built-in document.
fn twin(text: &str) -> Option<&'static str> {
    built::TWINS
        .iter()
        .find(|(t, _)| t.len() == text.len() && (t.as_ptr() == text.as_ptr() || *t == text))
        .map(|(_, json)| *json)
}

/// The parsed table of `text`. Parsed outside the lock: two threads asking for two
/// documents parse them side by side (one asked twice at once is parsed twice, once).
pub fn table(text: &'static str) -> Result<Arc<toml::Table>, toml::de::Error> {
    let same = |k: &&str| k.len() == text.len() && (k.as_ptr() == text.as_ptr() || *k == text);
    let cached = |p: &Parsed| p.iter().find(|(k, _)| same(k)).map(|(_, t)| t.clone());
    if let Some(t) = cached(&PARSED.lock().unwrap_or_else(|e| e.into_inner())) {
        return Ok(t);
    }
    let parsed = Arc::new(text.parse::<toml::Table>()?);
    let mut all = PARSED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = cached(&all) {
        return Ok(t);
    }
    all.push((text, parsed.clone()));
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Doc {
        a: i64,
        b: Vec<String>,
    }

    const DOC: &str = "a = 3\nb = [\"x\", \"y\"]\n";
    const OTHER: &str = "a = 4\nb = []\n";

    #[test]
    fn a_document_is_parsed_once_and_read_as_often_as_asked() {
        let first = table(DOC).expect("parses");
        let again = table(DOC).expect("cached");
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second read parses nothing"
        );
        let doc: Doc = read(DOC).expect("typed");
        assert_eq!(
            doc,
            Doc {
                a: 3,
                b: vec!["x".into(), "y".into()]
            }
        );
        // Another text is another document, whatever it holds.
        assert_eq!(read::<Doc>(OTHER).expect("typed").a, 4);
    }

    /// Every built-in document has a twin, and the twin holds what the TOML holds.
    #[test]
    fn each_reference_document_has_a_json_twin_equal_to_it() {
        let reports = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("reports");
        let mut n = 0;
        for e in std::fs::read_dir(reports).expect("reports/").flatten() {
            if e.path().extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(e.path()).expect("readable");
            let json = twin(&text).expect("a twin for every reports/*.toml");
            let from_toml: toml::Value = text.parse::<toml::Table>().expect("parses").into();
            let from_json: toml::Value = serde_json::from_str(json).expect("the twin is JSON");
            assert_eq!(from_json, from_toml, "{}", e.path().display());
            n += 1;
        }
        assert!(n >= 4, "{n} documents");
        // A text that is no built-in document has none.
        assert!(twin(DOC).is_none());
    }

    #[test]
    fn an_error_is_the_parser_s_and_nothing_is_kept() {
        const BAD: &str = "a = [";
        assert!(table(BAD).is_err());
        assert!(read::<Doc>(BAD).is_err());
        const WRONG: &str = "a = \"three\"\nb = []\n";
        let e = read::<Doc>(WRONG).expect_err("a string for a number");
        assert!(e.to_string().contains("a"), "{e}");
    }
}

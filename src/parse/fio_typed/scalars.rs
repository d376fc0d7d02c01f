//! The scalar leaves, checked one by one: a number, a whole number, an errno; a value of
//! the wrong type is named by its field and by what was found.

use serde_json::Value;

/// A count or a rate fio writes (bandwidth, IOPS): a number of 0 or more; a negative one
/// is no measurement fio makes.
pub(super) fn amount(v: Option<&Value>, at: &str, key: &str) -> Result<Option<f64>, String> {
    match number(v, at, key)? {
        Some(x) if x < 0.0 => Err(format!(
            "{at}.{key}: {}, a negative amount: fio writes none",
            v.map(Value::to_string).unwrap_or_default()
        )),
        other => Ok(other),
    }
}

pub(super) fn number(v: Option<&Value>, at: &str, key: &str) -> Result<Option<f64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{at}.{key}: expected a number, found {}", kind(x))),
    }
}

/// An errno: a whole number (`0.5` is not one, and not success either).
pub(super) fn errno(v: Option<&Value>, at: &str, key: &str) -> Result<Option<i64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match (x.as_i64(), x.as_f64()) {
            (Some(n), _) => Ok(Some(n)),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(Some(f as i64)),
            _ => Err(format!(
                "{at}.{key}: expected a whole number, found {}",
                if x.is_number() {
                    x.to_string()
                } else {
                    kind(x).to_string()
                }
            )),
        },
    }
}

pub(super) fn whole(v: Option<&Value>, at: &str, key: &str) -> Result<Option<u64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match (x.as_u64(), x.as_f64()) {
            (Some(n), _) => Ok(Some(n)),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(Some(f as u64)),
            _ => Err(format!(
                "{at}.{key}: expected a whole number of 0 or more, found {}",
                if x.is_number() {
                    x.to_string()
                } else {
                    kind(x).to_string()
                }
            )),
        },
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

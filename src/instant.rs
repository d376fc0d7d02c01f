//! Instants written as text (a collector's `started`, a selector's `since=`): read with a
//! date library, compared as instants whatever offset each was written with, and written
//! back in UTC.

/// An instant as microseconds since the epoch (UTC), from a date (midnight UTC) or an
/// RFC 3339 date and time with its offset; why not, in words, for anything else.
pub fn instant(text: &str) -> Result<i64, String> {
    let t = text.trim();
    if let Ok(d) = chrono::DateTime::parse_from_rfc3339(t) {
        return Ok(d.timestamp_micros());
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        if let Some(m) = d.and_hms_opt(0, 0, 0) {
            return Ok(m.and_utc().timestamp_micros());
        }
    }
    let local = ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"]
        .iter()
        .any(|f| chrono::NaiveDateTime::parse_from_str(t, f).is_ok());
    Err(if local {
        format!("`{text}` has no offset: say whose clock it is on (`{t}Z` for UTC, or `+02:00`)")
    } else {
        format!("`{text}` is not a date (`2026-07-18`) or a date and time with its offset (`2026-07-18T12:00:00Z`)")
    })
}

/// The instant `text` names, written in UTC (`2026-07-18T11:00:00Z`, fractional seconds
/// kept), or `None` when it is not one.
pub fn utc(text: &str) -> Option<String> {
    let micros = instant(text).ok()?;
    let t = chrono::DateTime::from_timestamp_micros(micros)?;
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_read_as_the_instants_they_are() {
        assert_eq!(
            instant("2026-07-18T13:00:00+02:00"),
            instant("2026-07-18T11:00:00Z")
        );
        assert_eq!(
            utc("2026-07-18T13:00:00+02:00").as_deref(),
            Some("2026-07-18T11:00:00Z")
        );
        assert_eq!(
            utc("2026-07-18T13:00:00.250Z").as_deref(),
            Some("2026-07-18T13:00:00.250Z")
        );
        assert_eq!(utc("2026-07-18").as_deref(), Some("2026-07-18T00:00:00Z"));
        assert!(instant("July").is_err());
        assert!(instant("2026-07-18T12:00:00").is_err_and(|e| e.contains("no offset")));
    }
}

//! [`UnitOf`]: the unit of a verdict's or limit's numbers and what they count, written
//! as the text it reads as.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::model::measurement::Unit;

/// The unit of a verdict's or limit's numbers, and what they count: `x (the lower of
/// output and gen)`, `% of theoretical`, `result files` (a count has no [`Unit`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UnitOf {
    pub unit: Option<Unit>,
    /// What the number is of, after the unit; empty when the unit says it all.
    pub of: Cow<'static, str>,
}

impl UnitOf {
    pub fn new(unit: Unit, of: &'static str) -> UnitOf {
        UnitOf {
            unit: Some(unit),
            of: Cow::Borrowed(of),
        }
    }

    pub fn of(unit: Unit) -> UnitOf {
        UnitOf {
            unit: Some(unit),
            of: Cow::Borrowed(""),
        }
    }

    /// A count of things: `result files`, `levels with failures`.
    pub fn count(of: impl Into<Cow<'static, str>>) -> UnitOf {
        UnitOf {
            unit: None,
            of: of.into(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.unit.is_none() && self.of.is_empty()
    }
}

impl fmt::Display for UnitOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.unit, self.of.is_empty()) {
            (Some(u), true) => f.write_str(u.symbol()),
            (Some(u), false) => write!(f, "{} {}", u.symbol(), self.of),
            (None, _) => f.write_str(&self.of),
        }
    }
}

impl schemars::JsonSchema for UnitOf {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "UnitOf".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "The unit of a verdict's numbers and what they count: `x (the lower of output and gen)`, `result files`."
        })
    }
}

impl Serialize for UnitOf {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

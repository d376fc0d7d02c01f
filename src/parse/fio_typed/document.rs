//! A fio document's structure as serde reads it: the objects reprobench uses as typed
//! records, every other field skipped, the scalar leaves kept as JSON values to be
//! checked one by one, and json+ bin counts read without building a value.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A JSON object's entries in file order (keys borrowed where the file allows).
pub(super) struct Pairs<'a, V>(pub(super) Vec<(Cow<'a, str>, V)>);

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Pairs<'a, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<'a, V>(PhantomData<(&'a (), V)>);
        impl<'de: 'a, 'a, V: Deserialize<'de>> Visitor<'de> for V2<'a, V> {
            type Value = Pairs<'a, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(8));
                while let Some((k, v)) = m.next_entry::<Cow<'a, str>, V>()? {
                    out.push((k, v));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

impl<'a, V> Pairs<'a, V> {
    /// The entries with a key given twice collapsed as a JSON object does: the first
    /// one's place, the last one's value. Linear: a json+ block has thousands of bins,
    /// and a search of the entries so far for each one made a file's read quadratic.
    pub(super) fn collapsed(self) -> Vec<(Cow<'a, str>, V)> {
        let mut out: Vec<(Cow<'a, str>, V)> = Vec::with_capacity(self.0.len());
        let mut place: HashMap<Cow<'a, str>, usize> = HashMap::with_capacity(self.0.len());
        for (k, v) in self.0 {
            match place.entry(k) {
                Entry::Occupied(at) => out[*at.get()].1 = v,
                Entry::Vacant(slot) => {
                    out.push((slot.key().clone(), v));
                    slot.insert(out.len() - 1);
                }
            }
        }
        out
    }
}

/// Whether a key is there at all (a `null` counts).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
pub(super) struct Doc<'a> {
    #[serde(rename = "fio version")]
    pub(super) version: Option<Value>,
    pub(super) timestamp: Option<Value>,
    #[serde(rename = "global options")]
    pub(super) global: Option<Value>,
    #[serde(borrow)]
    pub(super) jobs: Option<Vec<Job<'a>>>,
    #[serde(borrow)]
    pub(super) client_stats: Option<Vec<Job<'a>>>,
    pub(super) disk_util: Option<Value>,
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
pub(super) struct Job<'a> {
    pub(super) jobname: Option<Value>,
    pub(super) groupid: Option<Value>,
    pub(super) error: Option<Value>,
    /// The I/O errors fio counted and went on past (`continue_on_error`).
    pub(super) total_err: Option<Value>,
    #[serde(rename = "job options")]
    pub(super) options: Option<Value>,
    #[serde(borrow)]
    pub(super) read: Option<Dir<'a>>,
    #[serde(borrow)]
    pub(super) write: Option<Dir<'a>>,
    #[serde(borrow)]
    pub(super) trim: Option<Dir<'a>>,
    pub(super) usr_cpu: Option<Value>,
    pub(super) sys_cpu: Option<Value>,
    pub(super) job_runtime: Option<Value>,
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
pub(super) struct Dir<'a> {
    pub(super) io_bytes: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(super) io_kbytes: bool,
    pub(super) bw_bytes: Option<Value>,
    pub(super) bw: Option<Value>,
    pub(super) bw_mean: Option<Value>,
    pub(super) bw_dev: Option<Value>,
    pub(super) bw_samples: Option<Value>,
    pub(super) iops: Option<Value>,
    pub(super) runtime: Option<Value>,
    pub(super) total_ios: Option<Value>,
    #[serde(borrow)]
    pub(super) slat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    pub(super) clat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    pub(super) lat_ns: Option<Lat<'a>>,
    #[serde(borrow)]
    pub(super) slat: Option<Lat<'a>>,
    #[serde(borrow)]
    pub(super) clat: Option<Lat<'a>>,
    #[serde(borrow)]
    pub(super) lat: Option<Lat<'a>>,
}

#[derive(Deserialize)]
#[serde(expecting = "an object")]
pub(super) struct Lat<'a> {
    #[serde(rename = "N")]
    pub(super) n: Option<Value>,
    pub(super) mean: Option<Value>,
    pub(super) max: Option<Value>,
    #[serde(borrow)]
    pub(super) percentile: Option<Pairs<'a, Value>>,
    #[serde(borrow)]
    pub(super) bins: Option<Pairs<'a, Count>>,
}

/// A json+ bin's count: a whole number, or None for anything else (read and dropped
/// without building a value: a block has thousands of bins).
pub(super) struct Count(pub(super) Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct C;
        impl<'de> Visitor<'de> for C {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Count, E> {
                Ok(Count(Some(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Count, E> {
                Ok(Count(u64::try_from(v).ok()))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_unit<E>(self) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Count, M::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
        }
        d.deserialize_any(C)
    }
}

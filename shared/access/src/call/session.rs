//! What call rules see of the session so far (SPEC section 19): `session.calls`,
//! `session.callsOf['<function>']`, `session.total['<function>.<argument>']` (sums
//! before this call) and `session.age`, all as the state *before* this call.

use crate::context::prepared::Boxed;
use cel::common::types::{CelDouble, CelDuration, CelInt, CelMap, CelMapKey};
use std::collections::{BTreeMap, HashMap};

/// The session state a call is decided on.
#[derive(Debug, Clone, Copy, Default)]
pub struct SessionView<'a> {
    /// Calls admitted so far in the session.
    pub calls: u64,
    /// Calls admitted so far, per function.
    pub calls_of: Option<&'a BTreeMap<String, u64>>,
    /// Running totals of numeric arguments, by `<function>.<argument>`.
    pub totals: Option<&'a BTreeMap<String, f64>>,
    /// Time since the session's first call, in milliseconds (0 before it).
    pub age_ms: i64,
}

fn int(n: u64) -> Boxed {
    Box::new(CelInt::from(count(n)))
}

/// A count as CEL's `int` reads it (saturating).
fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The keys `session.callsOf` and `session.total` always hold (0 until counted): the
/// tool's functions and the totals its rules read.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SessionKeys<'a> {
    pub functions: &'a [String],
    pub totals: &'a [String],
}

impl SessionView<'_> {
    /// `session.calls`.
    pub(crate) fn calls_int(&self) -> i64 {
        count(self.calls)
    }

    /// `session.<field>` (or the whole `session` for `None`), as the interpreter reads it.
    pub(crate) fn value(&self, field: Option<&str>, keys: SessionKeys<'_>) -> Option<Boxed> {
        let calls_of = || -> Boxed {
            let counted = self.calls_of.into_iter().flatten();
            let zeros = keys.functions.iter().map(|f| (f, &0u64));
            let map: HashMap<CelMapKey<'static>, Boxed> =
                zeros.chain(counted).map(|(k, v)| (CelMapKey::from(k.clone()), int(*v))).collect();
            Box::new(CelMap::from(map))
        };
        let totals = || -> Boxed {
            let summed = self.totals.into_iter().flatten();
            let zeros = keys.totals.iter().map(|k| (k, &0f64));
            let map: HashMap<CelMapKey<'static>, Boxed> = zeros
                .chain(summed)
                .map(|(k, v)| (CelMapKey::from(k.clone()), Box::new(CelDouble::from(*v)) as Boxed))
                .collect();
            Box::new(CelMap::from(map))
        };
        let age = || -> Boxed {
            Box::new(CelDuration::from(chrono::Duration::milliseconds(self.age_ms)))
        };
        match field {
            Some("calls") => Some(int(self.calls)),
            Some("callsOf") => Some(calls_of()),
            Some("total") => Some(totals()),
            Some("age") => Some(age()),
            Some(_) => None,
            None => {
                let map: HashMap<CelMapKey<'static>, Boxed> = [
                    ("calls", int(self.calls)),
                    ("callsOf", calls_of()),
                    ("total", totals()),
                    ("age", age()),
                ]
                .into_iter()
                .map(|(k, v)| (CelMapKey::from(k.to_string()), v))
                .collect();
                Some(Box::new(CelMap::from(map)))
            }
        }
    }
}

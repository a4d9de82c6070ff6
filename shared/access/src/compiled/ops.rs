//! The operators of the compiled form on the context's values, each giving what the
//! `cel` crate's (0.15) gives, or [`Fail::Unknown`] where that is not certain here:
//!
//! - `==` is the interpreter's `equals`: same-typed scalars compare (doubles as IEEE:
//!   `NaN` equals nothing, `-0.0` equals `0.0`), scalars of different kinds are
//!   unequal; mixed numbers, lists, maps and timestamps are left to the interpreter;
//! - ordering is its `compare`: strings by bytes, `false < true`, numbers of one type
//!   (a `NaN` is an error); scalars of different kinds are an error;
//! - `in` compares each element of a list as `==` does; `has()` looks a key up in a map.

use crate::context::value::Value;
use std::cmp::Ordering;

/// Why the compiled form gives no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// The interpreter gives an error here (which one is the interpreter's to say).
    Error,
    /// Not certain here: the interpreter decides the whole condition.
    Unknown,
}

pub(crate) type Res<T> = Result<T, Fail>;

fn scalar(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::Double(_)
            | Value::Str(_)
    )
}

fn number(v: &Value<'_>) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_) | Value::Double(_))
}

/// `a == b`.
pub(crate) fn equals(a: &Value<'_>, b: &Value<'_>) -> Res<bool> {
    Ok(match (a, b) {
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Null, Value::Null) => true,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::UInt(a), Value::UInt(b)) => a == b,
        (Value::Double(a), Value::Double(b)) => a.partial_cmp(b) == Some(Ordering::Equal),
        (a, b) if number(a) && number(b) => return Err(Fail::Unknown),
        (a, b) if scalar(a) && scalar(b) => false,
        _ => return Err(Fail::Unknown),
    })
}

/// How `a` orders against `b`.
pub(crate) fn compare(a: &Value<'_>, b: &Value<'_>) -> Res<Ordering> {
    match (a, b) {
        (Value::Str(a), Value::Str(b)) => Ok(a.as_ref().cmp(b.as_ref())),
        (Value::Bool(a), Value::Bool(b)) => Ok(a.cmp(b)),
        (Value::Int(a), Value::Int(b)) => Ok(a.cmp(b)),
        (Value::UInt(a), Value::UInt(b)) => Ok(a.cmp(b)),
        (Value::Double(a), Value::Double(b)) => a.partial_cmp(b).ok_or(Fail::Error),
        (a, b) if number(a) && number(b) => Err(Fail::Unknown),
        (a, b) if scalar(a) && scalar(b) => Err(Fail::Error),
        _ => Err(Fail::Unknown),
    }
}

/// `item in list`.
pub(crate) fn within(item: &Value<'_>, list: &Value<'_>) -> Res<bool> {
    let Value::List(items) = list else {
        return Err(Fail::Unknown);
    };
    for element in items {
        if equals(element, item)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `has(map.field)`.
pub(crate) fn has(map: &Value<'_>, field: &str) -> Res<bool> {
    match map {
        Value::Map(entries) => Ok(entries.iter().any(|(key, _)| key == field)),
        _ => Err(Fail::Unknown),
    }
}

/// `map[key]`.
pub(crate) fn index<'m, 'v>(map: &'m Value<'v>, key: &Value<'_>) -> Res<&'m Value<'v>> {
    match (map, key) {
        (Value::Map(_), Value::Str(key)) => map.get(key).ok_or(Fail::Error),
        _ => Err(Fail::Unknown),
    }
}

/// `size(value)` and, for a string, the bytes it scans; an error for a value without a
/// size.
pub(crate) fn size(value: &Value<'_>) -> Res<(i64, Option<usize>)> {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    match value {
        Value::Str(s) => Ok((count(s.chars().count()), Some(s.len()))),
        Value::List(items) => Ok((count(items.len()), None)),
        Value::Map(entries) => Ok((count(entries.len()), None)),
        v if scalar(v) => Err(Fail::Error),
        _ => Err(Fail::Unknown),
    }
}

/// A string scan: `contains`, `startsWith`, `endsWith`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scan {
    Contains,
    StartsWith,
    EndsWith,
}

impl Scan {
    /// Whether `haystack` passes the scan for `needle`.
    pub(crate) fn test(self, haystack: &str, needle: &str) -> bool {
        match self {
            Scan::Contains => haystack.contains(needle),
            Scan::StartsWith => haystack.starts_with(needle),
            Scan::EndsWith => haystack.ends_with(needle),
        }
    }
}

/// An ordering comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Order {
    /// Whether `ordering` satisfies the comparison.
    pub(crate) fn holds(self, ordering: Ordering) -> bool {
        match self {
            Order::Less => ordering == Ordering::Less,
            Order::LessOrEqual => ordering != Ordering::Greater,
            Order::Greater => ordering == Ordering::Greater,
            Order::GreaterOrEqual => ordering != Ordering::Less,
        }
    }
}

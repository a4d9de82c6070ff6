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
use std::borrow::Cow;
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

/// A value as the operators read it (a copy of a scalar, or a borrow).
#[derive(Debug, Clone, Copy)]
pub(crate) enum View<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(&'a str),
    List(&'a [Value<'a>]),
    Map(&'a [(Cow<'a, str>, Value<'a>)]),
    Time,
}

impl<'a> View<'a> {
    /// The view of `value`.
    #[inline(always)]
    pub(crate) fn of(value: &'a Value<'a>) -> Self {
        match value {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Int(i) => View::Int(*i),
            Value::UInt(u) => View::UInt(*u),
            Value::Double(d) => View::Double(*d),
            Value::Str(s) => View::Str(s),
            Value::List(items) => View::List(items),
            Value::Map(entries) => View::Map(entries),
            Value::Time(_) => View::Time,
        }
    }

    fn scalar(self) -> bool {
        !matches!(self, View::List(_) | View::Map(_) | View::Time)
    }

    fn number(self) -> bool {
        matches!(self, View::Int(_) | View::UInt(_) | View::Double(_))
    }
}

/// `a == b`.
#[inline(always)]
pub(crate) fn equals(a: View<'_>, b: View<'_>) -> Res<bool> {
    Ok(match (a, b) {
        (View::Str(a), View::Str(b)) => a == b,
        (View::Bool(a), View::Bool(b)) => a == b,
        (View::Null, View::Null) => true,
        (View::Int(a), View::Int(b)) => a == b,
        (View::UInt(a), View::UInt(b)) => a == b,
        (View::Double(a), View::Double(b)) => a.partial_cmp(&b) == Some(Ordering::Equal),
        (a, b) if a.number() && b.number() => return Err(Fail::Unknown),
        (a, b) if a.scalar() && b.scalar() => false,
        _ => return Err(Fail::Unknown),
    })
}

/// How `a` orders against `b`.
#[inline(always)]
pub(crate) fn compare(a: View<'_>, b: View<'_>) -> Res<Ordering> {
    match (a, b) {
        (View::Str(a), View::Str(b)) => Ok(a.cmp(b)),
        (View::Bool(a), View::Bool(b)) => Ok(a.cmp(&b)),
        (View::Int(a), View::Int(b)) => Ok(a.cmp(&b)),
        (View::UInt(a), View::UInt(b)) => Ok(a.cmp(&b)),
        (View::Double(a), View::Double(b)) => a.partial_cmp(&b).ok_or(Fail::Error),
        (a, b) if a.number() && b.number() => Err(Fail::Unknown),
        (a, b) if a.scalar() && b.scalar() => Err(Fail::Error),
        _ => Err(Fail::Unknown),
    }
}

/// `item in list`.
pub(crate) fn within(item: View<'_>, list: View<'_>) -> Res<bool> {
    let View::List(items) = list else {
        return Err(Fail::Unknown);
    };
    for element in items {
        if equals(View::of(element), item)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `has(map.field)`.
pub(crate) fn has(map: View<'_>, field: &str) -> Res<bool> {
    match map {
        View::Map(entries) => Ok(entries.iter().any(|(key, _)| key == field)),
        _ => Err(Fail::Unknown),
    }
}

/// `map[key]`.
pub(crate) fn index<'m, 'v>(map: &'m Value<'v>, key: View<'_>) -> Res<&'m Value<'v>> {
    match (map, key) {
        (Value::Map(_), View::Str(key)) => map.get(key).ok_or(Fail::Error),
        _ => Err(Fail::Unknown),
    }
}

/// `size(value)` and, for a string, the bytes it scans; an error for a value without a
/// size.
pub(crate) fn size(value: View<'_>) -> Res<(i64, Option<usize>)> {
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    match value {
        View::Str(s) => Ok((count(s.chars().count()), Some(s.len()))),
        View::List(items) => Ok((count(items.len()), None)),
        View::Map(entries) => Ok((count(entries.len()), None)),
        View::Time => Err(Fail::Unknown),
        _ => Err(Fail::Error),
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

//! Evaluation of a lowered condition ([`Node`]) against a [`PreparedContext`],
//! without the `cel` interpreter and without allocating.
//!
//! It follows the interpreter step for step, so that it evaluates the same
//! sub-expressions in the same order (which matters for the step budget): operands
//! left to right, arguments of a method call before its target, `&&` / `||` with
//! CEL's commutative error handling (`false && error` is `false`, `true || error` is
//! `true`, anything else with an error is an error), `exists` / `all` deferring an
//! element's error until an element decides. Context values are the prepared
//! [`Value`]s and literals the `cel` values lowering built, both borrowed; strings,
//! ints and bools are compared here as `cel` compares them, and every other
//! operation is `cel`'s own (`Val::equals`, `Comparer::compare`,
//! `Container::contains`) on the `cel` form of the value.
//!
//! Two ways to fail: [`Fail::Error`] where the interpreter certainly fails, and
//! [`Fail::Bail`] where this evaluator does not follow (a value shape it does not
//! handle). Either way the caller re-runs the condition on the interpreter with the
//! budget as it was, which gives the exact error message; only `Error` takes part in
//! `&&`, `||` and loops, `Bail` always goes straight up.
//!
//! Values are thin references (`&Box<dyn Val>`, `&Value`, `&String`), so that a
//! result fits in two registers: recursion returning a 32-byte value through memory
//! cost more than the rest of an evaluation.

// `&Box<dyn Val>` is a thin pointer, `&dyn Val` a fat one: see above
#![allow(clippy::borrowed_box)]

use crate::lower::MAX_VARS;
use crate::node::{CmpOp, Loop, Node, Path, RequestField, StrFn};
use crate::prepared::{Boxed, PreparedContext};
use crate::value::{Value, same, same_bytes};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelTimestamp,
    CelUInt,
};
use cel::common::value::Val;
use std::borrow::Cow;
use std::cmp::Ordering;

/// Why the fast path gave no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fail {
    /// The interpreter fails here too.
    Error,
    /// Not followed here: ask the interpreter.
    Bail,
}

/// A value during evaluation: a borrowed `cel` value, or a scalar. A full-width tag
/// keeps every payload at one offset, so results move as two machine words.
#[derive(Debug, Clone, Copy)]
#[repr(u64)]
pub(crate) enum V<'a> {
    /// A literal (or list literal) built at compile time.
    Ref(&'a Boxed),
    /// A value of the prepared context.
    Val(&'a Value<'a>),
    /// A `bool` result.
    Bool(Flag),
    /// An `int` (literal or `size`).
    Int(i64),
    /// A string literal.
    Str(&'a String),
    /// A map key, when a loop iterates over a map.
    Key(&'a Cow<'a, str>),
}

/// A `bool` stored in a full word: a byte-wide payload, copied on as a word, stalls
/// the load that reads it back (store forwarding fails).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flag(u64);

impl Flag {
    fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for Flag {
    fn from(b: bool) -> Self {
        Flag(u64::from(b))
    }
}

type R<'a> = Result<V<'a>, Fail>;
type T = Result<bool, Fail>;

/// Calls `f` with `v` as a `cel` value (scalars are built on the stack).
/// Context lists and maps are converted (rare: only where `cel`'s own equality or
/// membership is asked of them).
pub(crate) fn with_val<T>(v: V<'_>, f: impl FnOnce(&dyn Val) -> T) -> T {
    match v {
        V::Ref(r) => f(r.as_ref()),
        V::Bool(b) => f(&CelBool::from(b.get())),
        V::Int(i) => f(&CelInt::from(i)),
        V::Str(s) => f(&CelString::from(s.as_str())),
        V::Key(k) => f(&CelString::from(k.as_ref())),
        V::Val(v) => match v {
            Value::Null => f(&CelNull),
            Value::Bool(b) => f(&CelBool::from(*b)),
            Value::Int(i) => f(&CelInt::from(*i)),
            Value::UInt(u) => f(&CelUInt::from(*u)),
            Value::Double(d) => f(&CelDouble::from(*d)),
            Value::Str(s) => f(&CelString::from(s.as_ref())),
            Value::Time(t) => f(&CelTimestamp::from(*t)),
            Value::List(_) | Value::Map(_) => f(v.to_cel().as_ref()),
        },
    }
}

/// `Some` when `v` is a `bool`.
fn as_bool(v: V<'_>) -> Option<bool> {
    match v {
        V::Bool(b) => Some(b.get()),
        V::Ref(r) => r.downcast_ref::<CelBool>().map(|b| *b.inner()),
        V::Val(Value::Bool(b)) => Some(*b),
        V::Val(_) | V::Int(_) | V::Str(_) | V::Key(_) => None,
    }
}

/// `Some` when `v` is a string.
fn as_str(v: V<'_>) -> Option<&str> {
    match v {
        V::Str(s) => Some(s),
        V::Val(Value::Str(s)) => Some(s),
        V::Key(k) => Some(k),
        V::Ref(r) => r.downcast_ref::<CelString>().map(CelString::inner),
        V::Val(_) | V::Bool(_) | V::Int(_) => None,
    }
}

/// `Some` when `v` is an `int`.
fn as_int(v: V<'_>) -> Option<i64> {
    match v {
        V::Int(i) => Some(i),
        V::Val(Value::Int(i)) => Some(*i),
        V::Ref(r) => r.downcast_ref::<CelInt>().map(|i| *i.inner()),
        V::Val(_) | V::Bool(_) | V::Str(_) | V::Key(_) => None,
    }
}

/// The string of a field name.
fn key_str<'k>(key: &'k CelMapKey<'static>) -> Option<&'k str> {
    match key {
        CelMapKey::String(s) => Some(s.inner()),
        _ => None,
    }
}

/// What `v.field` / `v[key]` with a string key finds: `Ok(None)` when `v` is a map
/// without it (the interpreter's "no such key"), [`Fail::Error`] when `v` cannot be
/// indexed by a string (every value of the subset that is not a map).
fn field<'a>(v: V<'a>, key: &CelMapKey<'static>) -> Result<Option<V<'a>>, Fail> {
    match v {
        V::Val(map @ Value::Map(_)) => {
            let Some(key) = key_str(key) else { return Err(Fail::Bail) };
            Ok(map.get(key).map(V::Val))
        }
        V::Val(_) => Err(Fail::Error),
        V::Ref(r) if r.downcast_ref::<CelList>().is_some() || r.as_indexer().is_none() => {
            Err(Fail::Error)
        }
        // some other indexable value: not followed
        V::Ref(_) => Err(Fail::Bail),
        V::Bool(_) | V::Int(_) | V::Str(_) | V::Key(_) => Err(Fail::Error),
    }
}

/// One evaluation: the context, the budget left and the comprehension variables.
pub(crate) struct Eval<'a> {
    ctx: &'a PreparedContext<'a>,
    /// Steps left in the decision's budget.
    pub steps: u64,
    vars: [V<'a>; MAX_VARS],
}

impl<'a> Eval<'a> {
    /// An evaluation against `ctx` with `steps` left in the budget.
    pub(crate) fn new(ctx: &'a PreparedContext<'a>, steps: u64) -> Self {
        Self { ctx, steps, vars: [V::Int(0); MAX_VARS] }
    }

    /// The condition's value as a rule result: a `bool`; a value of another type is
    /// an error (the interpreter, re-run, names the type in its message).
    pub(crate) fn condition(&mut self, node: &'a Node) -> T {
        self.truth(node)
    }

    /// `node` as a `bool`: a value of another type is [`Fail::Error`], as every place
    /// that wants a `bool` (`&&`, `||`, `!`, `? :`, a loop body) fails on it. Boolean
    /// nodes answer directly, in a register, rather than through a [`V`].
    fn truth(&mut self, node: &'a Node) -> T {
        match node {
            Node::Has(operand, field) => self.has(operand, field),
            Node::HasRequest(field) => Ok(self.has_request(field)),
            Node::Not(operand) => self.truth(operand).map(|b| !b),
            Node::And(left, right) => self.logic(left, right, false),
            Node::Or(left, right) => self.logic(left, right, true),
            Node::Cmp(op, left, right) => self.compare(*op, left, right),
            Node::InStrings(needle, set) => self.in_strings(needle, set),
            Node::InList(needle, elements) => self.in_list(needle, elements),
            Node::In(needle, haystack) => self.in_value(needle, haystack),
            Node::StrFn(f, target, arg) => self.string_fn(*f, target, arg),
            Node::Loop(l) => self.comprehension(l),
            Node::CmpCtxStr(op, path, s) => compare_str(*op, self.path(path)?, s),
            Node::CmpVarStr(op, at, s) => compare_str(*op, self.var(*at)?, s),
            Node::CmpCtxSize(op, path, n) => {
                let v = self.path(path)?;
                compare_int(*op, self.size_of(v)?, *n)
            }
            // the argument is a literal (nothing to evaluate, nothing to charge): reading
            // only the target keeps the method call's order
            Node::StrFnCtx(f, path, arg) => {
                let target = self.path(path)?;
                self.string_fn_of(*f, target, V::Str(arg))
            }
            _ => as_bool(self.eval(node)?).ok_or(Fail::Error),
        }
    }

    /// The value of `node`. Every non-trivial case is a method of its own, which keeps
    /// this recursive function's stack frame small in debug builds.
    pub(crate) fn eval(&mut self, node: &'a Node) -> R<'a> {
        match node {
            Node::Const(c) => Ok(V::Ref(c)),
            Node::Str(s) => Ok(V::Str(s)),
            Node::Int(i) => Ok(V::Int(*i)),
            Node::Ctx(path) => self.path(path),
            Node::Var(at) => self.var(*at),
            Node::Select(operand, field) => self.select(operand, field),
            Node::Index(operand, index) => self.index(operand, index),
            Node::Cond(cond, then, otherwise) => self.cond(cond, then, otherwise),
            Node::Size(operand) => self.size(operand),
            Node::Add(left, right) => self.add(left, right),
            Node::Has(..)
            | Node::HasRequest(_)
            | Node::Not(_)
            | Node::And(..)
            | Node::Or(..)
            | Node::Cmp(..)
            | Node::InStrings(..)
            | Node::InList(..)
            | Node::In(..)
            | Node::StrFn(..)
            | Node::Loop(_)
            | Node::CmpCtxStr(..)
            | Node::CmpVarStr(..)
            | Node::CmpCtxSize(..)
            | Node::StrFnCtx(..) => self.truth(node).map(|b| V::Bool(Flag::from(b))),
        }
    }

    /// The comprehension variable at `at`.
    fn var(&self, at: usize) -> R<'a> {
        self.vars.get(at).copied().ok_or(Fail::Bail)
    }

    fn select(&mut self, operand: &'a Node, key: &CelMapKey<'static>) -> R<'a> {
        let v = self.eval(operand)?;
        field(v, key)?.ok_or(Fail::Error)
    }

    fn has(&mut self, operand: &'a Node, key: &CelMapKey<'static>) -> T {
        let v = self.eval(operand)?;
        Ok(field(v, key)?.is_some())
    }

    fn has_request(&self, field: &RequestField) -> bool {
        match field {
            RequestField::ToolId => self.ctx.tool_id().is_some(),
            RequestField::AgentId => self.ctx.agent_id().is_some(),
            RequestField::Other(key) => {
                key_str(key).is_some_and(|key| self.ctx.request_field(key).is_some())
            }
        }
    }

    /// `operand[index]`: string keys of maps and int indexes of lists here; the
    /// interpreter's numeric key conversions are not followed.
    fn index(&mut self, operand: &'a Node, index: &'a Node) -> R<'a> {
        let v = self.eval(operand)?;
        let i = self.eval(index)?;
        match v {
            V::Val(Value::List(items)) => {
                if let Some(at) = as_int(i) {
                    let at = usize::try_from(at).map_err(|_| Fail::Error)?;
                    return items.get(at).map(V::Val).ok_or(Fail::Error);
                }
                return Err(if as_str(i).is_some() || as_bool(i).is_some() {
                    Fail::Error
                } else {
                    Fail::Bail
                });
            }
            V::Val(map @ Value::Map(_)) => {
                let Some(s) = as_str(i) else { return Err(Fail::Bail) };
                return map.get(s).map(V::Val).ok_or(Fail::Error);
            }
            V::Ref(_) => {}
            _ => return Err(Fail::Error),
        }
        let V::Ref(r) = v else { return Err(Fail::Error) };
        if let Some(list) = r.downcast_ref::<CelList>() {
            if let Some(at) = as_int(i) {
                let at = usize::try_from(at).map_err(|_| Fail::Error)?;
                return list.inner().get(at).map(V::Ref).ok_or(Fail::Error);
            }
            // a uint or double index converts; anything else is an error
            return Err(if as_str(i).is_some() || as_bool(i).is_some() {
                Fail::Error
            } else {
                Fail::Bail
            });
        }
        if let Some(map) = r.downcast_ref::<CelMap>() {
            let Some(s) = as_str(i) else { return Err(Fail::Bail) };
            // a scan (context maps hold at most 64 entries) rather than building a key
            let found = map.inner().iter().find_map(|(k, v)| match k {
                CelMapKey::String(k) if k.inner() == s => Some(v),
                _ => None,
            });
            return found.map(V::Ref).ok_or(Fail::Error);
        }
        Err(if r.as_indexer().is_none() { Fail::Error } else { Fail::Bail })
    }

    fn cond(&mut self, cond: &'a Node, then: &'a Node, otherwise: &'a Node) -> R<'a> {
        match self.truth(cond)? {
            true => self.eval(then),
            false => self.eval(otherwise),
        }
    }

    fn compare(&mut self, op: CmpOp, left: &'a Node, right: &'a Node) -> T {
        let l = self.eval(left)?;
        let r = self.eval(right)?;
        compare(op, l, r)
    }

    fn in_strings(&mut self, needle: &'a Node, set: &[String]) -> T {
        let v = self.eval(needle)?;
        // a list of strings only ever equals a string
        Ok(as_str(v).is_some_and(|s| set.binary_search_by(|e| e.as_str().cmp(s)).is_ok()))
    }

    fn in_list(&mut self, needle: &'a Node, elements: &'a [Node]) -> T {
        let v = self.eval(needle)?;
        let mut found = false;
        // the interpreter builds the whole list first: every element is evaluated
        for e in elements {
            let e = self.eval(e)?;
            found = found || with_val(e, |e| with_val(v, |v| e.equals(v)));
        }
        Ok(found)
    }

    fn in_value(&mut self, needle: &'a Node, haystack: &'a Node) -> T {
        let v = self.eval(needle)?;
        let h = self.eval(haystack)?;
        match (h, as_str(v)) {
            // a string in a list of strings, or a string key of a map
            (V::Val(Value::List(items)), Some(s))
                if items.iter().all(|i| matches!(i, Value::Str(_))) =>
            {
                return Ok(items.iter().any(|i| matches!(i, Value::Str(e) if same(e, s))));
            }
            (V::Val(Value::Map(entries)), Some(s)) => {
                return Ok(entries.iter().any(|(k, _)| same(k, s)));
            }
            (V::Val(Value::List(_) | Value::Map(_)), _) => {
                return with_val(h, |h| {
                    let container = h.as_container().ok_or(Fail::Error)?;
                    with_val(v, |v| container.contains(v)).map_err(|_| Fail::Error)
                });
            }
            (V::Ref(_), _) => {}
            _ => return Err(Fail::Error),
        }
        let V::Ref(h) = h else { return Err(Fail::Error) };
        let container = h.as_container().ok_or(Fail::Error)?;
        with_val(v, |v| container.contains(v)).map_err(|_| Fail::Error)
    }

    /// `int + int`, an error on overflow or with a right operand of another type, as
    /// `cel`'s `Int` adder; other left operands (strings, lists, doubles) are not
    /// followed.
    fn add(&mut self, left: &'a Node, right: &'a Node) -> R<'a> {
        let l = self.eval(left)?;
        let r = self.eval(right)?;
        let Some(l) = as_int(l) else { return Err(Fail::Bail) };
        let r = as_int(r).ok_or(Fail::Error)?;
        l.checked_add(r).map(V::Int).ok_or(Fail::Error)
    }

    fn size(&mut self, operand: &'a Node) -> R<'a> {
        let v = self.eval(operand)?;
        self.size_of(v)
    }

    /// `size` of a value, charging the budget for a string's scan.
    fn size_of(&mut self, v: V<'a>) -> R<'a> {
        if let Some(s) = as_str(v) {
            self.charge(crate::charged::scan_steps(s.len()))?;
        }
        size(v)
    }

    /// Takes `steps` from the budget, as the interpreter's charged functions do.
    fn charge(&mut self, steps: u64) -> Result<(), Fail> {
        if steps > self.steps {
            self.steps = 0;
            return Err(Fail::Error);
        }
        self.steps -= steps;
        Ok(())
    }

    fn string_fn(&mut self, f: StrFn, target: &'a Node, arg: &'a Node) -> T {
        // a method call evaluates its arguments before its target
        let a = self.eval(arg)?;
        let t = self.eval(target)?;
        self.string_fn_of(f, t, a)
    }

    /// `t.startsWith(a)` (or the other functions) once both are evaluated.
    fn string_fn_of(&mut self, f: StrFn, t: V<'a>, a: V<'a>) -> T {
        let (Some(t), Some(a)) = (as_str(t), as_str(a)) else {
            return Err(Fail::Error);
        };
        self.charge(crate::charged::scan_steps(t.len() + a.len()))?;
        let (bytes, affix) = (t.as_bytes(), a.as_bytes());
        Ok(match f {
            StrFn::StartsWith => bytes.get(..affix.len()).is_some_and(|p| same_bytes(p, affix)),
            StrFn::EndsWith => bytes
                .len()
                .checked_sub(affix.len())
                .and_then(|at| bytes.get(at..))
                .is_some_and(|s| same_bytes(s, affix)),
            StrFn::Contains => t.contains(a),
        })
    }

    fn path(&self, path: &Path) -> R<'a> {
        let ctx = self.ctx;
        match path {
            Path::Slot(at) => ctx.slot(*at).map(V::Val).ok_or(Fail::Error),
            Path::ToolId => ctx.tool_id().map(V::Val).ok_or(Fail::Error),
            Path::AgentId => ctx.agent_id().map(V::Val).ok_or(Fail::Error),
            Path::Root(root) => Ok(V::Val(ctx.root(*root))),
            Path::Walk(root, keys) => {
                // the resolver fails on anything but a map holding the key, as here
                let mut current = ctx.root(*root);
                for key in keys.iter() {
                    let key = key_str(key).ok_or(Fail::Error)?;
                    current = current.get(key).ok_or(Fail::Error)?;
                }
                Ok(V::Val(current))
            }
        }
    }

    /// `left && right` (`or` false) or `left || right` (`or` true): the absorbing
    /// value (`false` for `&&`, `true` for `||`) on either side wins over an error.
    fn logic(&mut self, left: &'a Node, right: &'a Node, or: bool) -> T {
        let l = match self.truth(left) {
            Ok(b) => Some(b),
            // an error or a value of another type
            Err(Fail::Error) => None,
            Err(Fail::Bail) => return Err(Fail::Bail),
        };
        if l == Some(or) {
            return Ok(or);
        }
        // an error on the right, or a value of another type, fails either way
        let r = self.truth(right)?;
        match l {
            Some(_) => Ok(r),
            None if r == or => Ok(or),
            None => Err(Fail::Error),
        }
    }

    /// `exists` / `all`: charge the budget, then iterate until an element decides.
    fn comprehension(&mut self, l: &'a Loop) -> T {
        let range = self.eval(&l.range)?;
        // the guard's charge, inline: size x weight (size 0 for a value without one),
        // at least 1, before iterating
        let size = match range {
            V::Ref(r) => r.as_sizer().map_or(0, |s| *s.size().inner()),
            V::Str(s) => i64::try_from(s.chars().count()).unwrap_or(i64::MAX),
            V::Key(s) | V::Val(Value::Str(s)) => {
                i64::try_from(s.chars().count()).unwrap_or(i64::MAX)
            }
            V::Val(Value::List(items)) => i64::try_from(items.len()).unwrap_or(i64::MAX),
            V::Val(Value::Map(entries)) => i64::try_from(entries.len()).unwrap_or(i64::MAX),
            V::Val(_) | V::Bool(_) | V::Int(_) => 0,
        };
        let cost = u64::try_from(size).unwrap_or(0).saturating_mul(l.weight).max(1);
        if cost > self.steps {
            self.steps = 0;
            return Err(Fail::Error);
        }
        self.steps -= cost;
        match range {
            V::Val(Value::List(items)) => return self.iterate(l, items.iter().map(V::Val)),
            // a map iterates over its keys
            V::Val(Value::Map(entries)) => {
                return self.iterate(l, entries.iter().map(|(k, _)| V::Key(k)));
            }
            _ => {}
        }
        let V::Ref(range) = range else {
            // strings, bools and ints are not iterable
            return Err(Fail::Error);
        };
        if let Some(list) = range.downcast_ref::<CelList>() {
            self.iterate(l, list.inner().iter().map(V::Ref))
        } else if range.as_iterable().is_none() {
            Err(Fail::Error)
        } else {
            Err(Fail::Bail)
        }
    }

    /// The loop of `exists` / `all` over `items`: an element's error waits for an
    /// element that decides (`true` for `exists`, `false` for `all`).
    fn iterate(&mut self, l: &'a Loop, items: impl Iterator<Item = V<'a>>) -> T {
        if l.var >= MAX_VARS {
            return Err(Fail::Bail);
        }
        let decisive = !l.all;
        let mut pending = false;
        for item in items {
            self.vars[l.var] = item;
            match self.truth(&l.body) {
                Ok(b) if b == decisive => return Ok(decisive),
                Ok(_) => {}
                // an error, or a value of another type, until an element decides
                Err(Fail::Error) => pending = true,
                Err(Fail::Bail) => return Err(Fail::Bail),
            }
        }
        if pending { Err(Fail::Error) } else { Ok(!decisive) }
    }
}

/// [`compare`] with a string literal on the right: two strings compare here, inline.
#[inline(always)]
fn compare_str(op: CmpOp, l: V<'_>, r: &String) -> Result<bool, Fail> {
    match (op, as_str(l)) {
        (CmpOp::Eq, Some(a)) => Ok(same(a, r)),
        (CmpOp::Ne, Some(a)) => Ok(!same(a, r)),
        _ => compare(op, l, V::Str(r)),
    }
}

/// [`compare`] with an int on the right (a `size` against a literal): two ints compare
/// here, inline.
#[inline(always)]
fn compare_int(op: CmpOp, l: V<'_>, r: i64) -> Result<bool, Fail> {
    match l {
        V::Int(a) => Ok(ordered(op, a.cmp(&r))),
        _ => compare(op, l, V::Int(r)),
    }
}

/// `==`, `!=` (`cel`'s equality, never an error) or an ordering (an error when the
/// values do not compare). Two strings, two ints and two bools compare here directly,
/// as `cel` compares them; anything else goes through `cel`'s `Val::equals` and
/// `Comparer::compare`.
fn compare(op: CmpOp, l: V<'_>, r: V<'_>) -> Result<bool, Fail> {
    let ordering = if let (Some(a), Some(b)) = (as_str(l), as_str(r)) {
        match op {
            CmpOp::Eq => return Ok(same(a, b)),
            CmpOp::Ne => return Ok(!same(a, b)),
            _ => a.cmp(b),
        }
    } else if let (Some(a), Some(b)) = (as_int(l), as_int(r)) {
        a.cmp(&b)
    } else if let (V::Bool(a), V::Bool(b)) = (l, r) {
        a.get().cmp(&b.get())
    } else if matches!(op, CmpOp::Eq | CmpOp::Ne) {
        let equal = with_val(l, |a| with_val(r, |b| a.equals(b)));
        return Ok(equal == (op == CmpOp::Eq));
    } else {
        with_val(l, |a| {
            let comparer = a.as_comparer().ok_or(Fail::Error)?;
            with_val(r, |b| comparer.compare(b)).map_err(|_| Fail::Error)
        })?
    };
    Ok(ordered(op, ordering))
}

/// Whether `ordering` satisfies `op`.
#[inline(always)]
fn ordered(op: CmpOp, ordering: Ordering) -> bool {
    match op {
        CmpOp::Eq => ordering == Ordering::Equal,
        CmpOp::Ne => ordering != Ordering::Equal,
        CmpOp::Lt => ordering == Ordering::Less,
        CmpOp::Le => ordering != Ordering::Greater,
        CmpOp::Gt => ordering == Ordering::Greater,
        CmpOp::Ge => ordering != Ordering::Less,
    }
}

/// `size`: strings in code points, lists and maps in entries; no other value of the
/// subset has a size.
fn size(v: V<'_>) -> R<'_> {
    let n = match v {
        V::Str(s) => s.chars().count(),
        V::Key(s) | V::Val(Value::Str(s)) => s.chars().count(),
        V::Val(Value::List(items)) => items.len(),
        V::Val(Value::Map(entries)) => entries.len(),
        V::Val(_) => return Err(Fail::Error),
        V::Ref(r) => {
            if let Some(s) = r.downcast_ref::<CelString>() {
                s.inner().chars().count()
            } else if let Some(l) = r.downcast_ref::<CelList>() {
                l.inner().len()
            } else if let Some(m) = r.downcast_ref::<CelMap>() {
                m.inner().len()
            } else if r.downcast_ref::<CelInt>().is_some()
                || r.downcast_ref::<CelUInt>().is_some()
                || r.downcast_ref::<CelDouble>().is_some()
                || r.downcast_ref::<CelBool>().is_some()
                || r.downcast_ref::<CelNull>().is_some()
                || r.downcast_ref::<CelTimestamp>().is_some()
            {
                // `size` has no overload for these
                return Err(Fail::Error);
            } else {
                // bytes have a size too; let the interpreter answer for anything else
                return Err(Fail::Bail);
            }
        }
        V::Bool(_) | V::Int(_) => return Err(Fail::Error),
    };
    i64::try_from(n).map(V::Int).map_err(|_| Fail::Bail)
}

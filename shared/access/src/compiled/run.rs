//! Running a compiled condition: each node evaluates its operands in the order the
//! interpreter does and takes the steps its charged twin takes (docs/limits.md), so
//! that what it answers, and the budget left after it, are the interpreter's.

use crate::compiled::ops::{self, Fail, Order, Res, Scan, View};
use crate::compiled::source::{Path, Source, Val};
use crate::context::value::Value;
use crate::evaluate::charged::scan_steps;

/// A node of a compiled condition.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// A literal: a scalar, or a list of scalars.
    Const(Value<'static>),
    /// A variable or field path of the context.
    Path(Path),
    /// The variable of the enclosing `exists` or `all`.
    Local,
    /// `!x`
    Not(Box<Node>),
    /// `a && b`
    And(Box<[Node; 2]>),
    /// `a || b`
    Or(Box<[Node; 2]>),
    /// `c ? a : b`
    Cond(Box<[Node; 3]>),
    /// `a == b`, or `a != b` when negated.
    Eq(Box<[Node; 2]>, bool),
    /// `a < b`, ...
    Cmp(Box<[Node; 2]>, Order),
    /// `a in b`
    In(Box<[Node; 2]>),
    /// `has(x.field)`
    Has(Box<Node>, Box<str>),
    /// `m[k]`
    Index(Box<[Node; 2]>),
    /// A string scan of `[haystack, needle]`, its operands evaluated in reverse when
    /// `needle_first` (the member form `s.startsWith(t)` evaluates `t` first).
    Scan(Box<[Node; 2]>, Scan, bool),
    /// `size(x)`
    Size(Box<Node>),
    /// `range.exists(x, pred)` (`every`: `all`), charged `weight` steps per element.
    Loop { range: Box<Node>, weight: u64, every: bool, pred: Box<Node> },
}

/// One run of a compiled condition: the source it reads and the steps left.
struct Eval<'s> {
    source: &'s dyn Source,
    steps: u64,
}

/// The condition `root` on `source`: see [`crate::compiled::Program::run`].
pub(crate) fn run(root: &Node, source: &dyn Source, steps: &mut u64) -> Option<bool> {
    let mut eval = Eval { source, steps: *steps };
    let matched = eval.boolean(root, None).ok()?;
    *steps = eval.steps;
    Some(matched)
}

impl<'s> Eval<'s> {
    /// Takes `steps` from the budget; a budget run out is the interpreter's to report.
    #[inline(always)]
    fn charge(&mut self, steps: u64) -> Res<()> {
        self.steps = self.steps.checked_sub(steps).ok_or(Fail::Unknown)?;
        Ok(())
    }

    /// `node` where a `bool` is read (`try_bool`: another value is an error).
    fn boolean<'t>(&mut self, node: &'t Node, local: Option<&'t Value<'t>>) -> Res<bool>
    where
        's: 't,
    {
        match node {
            Node::Not(x) => Ok(!self.boolean(x, local)?),
            Node::And(pair) => self.logical(pair, local, false),
            Node::Or(pair) => self.logical(pair, local, true),
            Node::Cond(c) => {
                let branch = if self.boolean(&c[0], local)? { &c[1] } else { &c[2] };
                self.boolean(branch, local)
            }
            Node::Eq(pair, negated) => {
                let (a, b) = self.pair(pair, local)?;
                Ok(ops::equals(a.view(), b.view())? != *negated)
            }
            Node::Cmp(pair, order) => {
                let (a, b) = self.pair(pair, local)?;
                Ok(order.holds(ops::compare(a.view(), b.view())?))
            }
            Node::In(pair) => {
                let (item, list) = self.pair(pair, local)?;
                ops::within(item.view(), list.view())
            }
            Node::Has(operand, field) => ops::has(self.value(operand, local)?.view(), field),
            Node::Scan(pair, scan, needle_first) => {
                let (haystack, needle) = if *needle_first {
                    let needle = self.value(&pair[1], local)?;
                    (self.value(&pair[0], local)?, needle)
                } else {
                    self.pair(pair, local)?
                };
                let (View::Str(haystack), View::Str(needle)) = (haystack.view(), needle.view())
                else {
                    return Err(Fail::Error);
                };
                self.charge(scan_steps(haystack.len() + needle.len()))?;
                Ok(scan.test(haystack, needle))
            }
            Node::Loop { range, weight, every, pred } => {
                self.comprehension(range, *weight, *every, pred, local)
            }
            other => match self.value(other, local)? {
                Val::Bool(b) => Ok(b),
                Val::Ref(Value::Bool(b)) => Ok(*b),
                Val::Own(v) if matches!(*v, Value::Bool(_)) => Ok(*v == Value::Bool(true)),
                _ => Err(Fail::Error),
            },
        }
    }

    /// `a && b` (`absorbing` false) or `a || b` (true): the left operand's error gives
    /// way to an absorbing right operand, as in the interpreter.
    fn logical<'t>(
        &mut self,
        pair: &'t [Node; 2],
        local: Option<&'t Value<'t>>,
        absorbing: bool,
    ) -> Res<bool>
    where
        's: 't,
    {
        let left = self.boolean(&pair[0], local);
        match left {
            Err(Fail::Unknown) => return Err(Fail::Unknown),
            Ok(l) if l == absorbing => return Ok(absorbing),
            _ => {}
        }
        let right = self.boolean(&pair[1], local)?;
        match left {
            Ok(_) => Ok(right),
            Err(_) if right == absorbing => Ok(absorbing),
            Err(e) => Err(e),
        }
    }

    /// `exists` (`every` false) or `all` over `range`, as the interpreter runs the
    /// macro: the range charged `size x weight` steps, stopping at the first deciding
    /// element; an element's error stands unless a later element decides.
    fn comprehension<'t>(
        &mut self,
        range: &'t Node,
        weight: u64,
        every: bool,
        pred: &'t Node,
        local: Option<&'t Value<'t>>,
    ) -> Res<bool>
    where
        's: 't,
    {
        let range = self.value(range, local)?;
        let View::List(items) = range.view() else {
            return Err(Fail::Unknown);
        };
        self.charge((items.len() as u64).saturating_mul(weight).max(1))?;
        let mut result = every;
        let mut pending = false;
        for item in items {
            if result != every {
                break;
            }
            match self.boolean(pred, Some(item)) {
                Err(Fail::Unknown) => return Err(Fail::Unknown),
                Err(Fail::Error) => pending = true,
                Ok(step) if pending && step == every => {}
                Ok(step) => {
                    pending = false;
                    result = step;
                }
            }
        }
        if pending { Err(Fail::Error) } else { Ok(result) }
    }

    /// Both operands, left first; the left one's error is the result.
    #[inline(always)]
    fn pair<'t>(
        &mut self,
        pair: &'t [Node; 2],
        local: Option<&'t Value<'t>>,
    ) -> Res<(Val<'t>, Val<'t>)>
    where
        's: 't,
    {
        let a = self.value(&pair[0], local)?;
        Ok((a, self.value(&pair[1], local)?))
    }

    /// The value of `node`.
    fn value<'t>(&mut self, node: &'t Node, local: Option<&'t Value<'t>>) -> Res<Val<'t>>
    where
        's: 't,
    {
        match node {
            Node::Const(v) => Ok(Val::Ref(v)),
            Node::Path(path) => self.source.get(path).ok_or(Fail::Error),
            Node::Local => local.map(Val::Ref).ok_or(Fail::Unknown),
            Node::Cond(c) => {
                let branch = if self.boolean(&c[0], local)? { &c[1] } else { &c[2] };
                self.value(branch, local)
            }
            Node::Index(pair) => {
                let (map, key) = self.pair(pair, local)?;
                let key = key.view();
                match map {
                    Val::Ref(map) => ops::index(map, key).map(Val::Ref),
                    Val::Own(map) => ops::index(&map, key).map(|v| Val::Own(Box::new(v.clone()))),
                    Val::Bool(_) | Val::Int(_) => Err(Fail::Unknown),
                }
            }
            Node::Size(x) => {
                let (n, scanned) = ops::size(self.value(x, local)?.view())?;
                if let Some(bytes) = scanned {
                    self.charge(scan_steps(bytes))?;
                }
                Ok(Val::Int(n))
            }
            other => Ok(Val::Bool(self.boolean(other, local)?)),
        }
    }
}

//! The compiled form of a condition inside the fast-path subset: a small expression
//! tree that `fast_eval.rs` evaluates straight against a [`PreparedContext`], without
//! the `cel` interpreter. `lower.rs` builds it and documents the subset.
//!
//! [`PreparedContext`]: crate::PreparedContext

use cel::common::types::CelMapKey;
use cel::common::value::Val;

/// A literal, as the `cel` value the interpreter would produce for it.
pub(crate) type Const = Box<dyn Val + 'static>;

/// One node of a compiled condition.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// A literal, or a list literal of literals (never bytes).
    Const(Const),
    /// A string literal.
    Str(String),
    /// An int literal.
    Int(i64),
    /// A variable or field path of the request context (a flattened identifier).
    Ctx(Path),
    /// A comprehension variable: position in the stack of bound variables, outermost 0.
    Var(usize),
    /// `operand.field` on a computed value (a comprehension variable, an index result).
    Select(Box<Node>, CelMapKey<'static>),
    /// `has(operand.field)`.
    Has(Box<Node>, CelMapKey<'static>),
    /// `has(request.field)`, answered without building the `request` map.
    HasRequest(RequestField),
    /// `operand[index]`.
    Index(Box<Node>, Box<Node>),
    /// `!operand`.
    Not(Box<Node>),
    /// `left && right`.
    And(Box<Node>, Box<Node>),
    /// `left || right`.
    Or(Box<Node>, Box<Node>),
    /// `condition ? then : otherwise`.
    Cond(Box<Node>, Box<Node>, Box<Node>),
    /// A comparison.
    Cmp(CmpOp, Box<Node>, Box<Node>),
    /// `x in [...]` on a list literal of string literals, sorted and deduplicated.
    InStrings(Box<Node>, Box<[String]>),
    /// `x in [e1, e2, ...]` on any other list literal: every element evaluated, in order.
    InList(Box<Node>, Box<[Node]>),
    /// `x in y` on any other right-hand side (a list or map of the context).
    In(Box<Node>, Box<Node>),
    /// `left + right` (ints here; any other operands go to the interpreter).
    Add(Box<Node>, Box<Node>),
    /// `size(x)` or `x.size()`.
    Size(Box<Node>),
    /// `target.startsWith(arg)`, `endsWith`, `contains`: (function, target, arg).
    StrFn(StrFn, Box<Node>, Box<Node>),
    /// `range.exists(v, body)` or `range.all(v, body)`.
    Loop(Box<Loop>),
    /// `path op 'literal'`: a [`Node::Cmp`] of a context value with a string literal, in
    /// one node (the most common condition, evaluated without two recursive calls).
    CmpCtxStr(CmpOp, Path, String),
    /// `v op 'literal'`: a [`Node::Cmp`] of a comprehension variable with a string literal.
    CmpVarStr(CmpOp, usize, String),
    /// `size(path) op n`: a [`Node::Cmp`] of a context value's size with an int literal.
    CmpCtxSize(CmpOp, Path, i64),
    /// `path.startsWith('literal')` (and the other [`StrFn`]s) on a context value.
    StrFnCtx(StrFn, Path, String),
}

/// The comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// The string member functions of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrFn {
    /// `startsWith`
    StartsWith,
    /// `endsWith`
    EndsWith,
    /// `contains`
    Contains,
}

/// An `exists` or `all` comprehension, its range wrapped in the budget guard.
#[derive(Debug, Clone)]
pub(crate) struct Loop {
    /// `all` (else `exists`).
    pub all: bool,
    /// The list iterated over.
    pub range: Node,
    /// Steps charged per element (the guard's weight: loop-body node count).
    pub weight: u64,
    /// Position of the loop variable in the stack of bound variables.
    pub var: usize,
    /// The predicate.
    pub body: Node,
}

/// A top-level variable of the request context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// `user`
    User,
    /// `customData`
    CustomData,
    /// `account`
    Account,
    /// `request` without `agentId` and `toolId`.
    Request,
}

/// Where a flattened identifier is found in the prepared context.
#[derive(Debug, Clone)]
pub(crate) enum Path {
    /// One of the prepared slots (typed fields).
    Slot(usize),
    /// `request.toolId`
    ToolId,
    /// `request.agentId`
    AgentId,
    /// A whole variable other than `request`.
    Root(Root),
    /// Fields walked down from a variable, e.g. `customData.a.b`.
    Walk(Root, Box<[CelMapKey<'static>]>),
}

/// The field named by `has(request.field)`.
#[derive(Debug, Clone)]
pub(crate) enum RequestField {
    /// `toolId`
    ToolId,
    /// `agentId`
    AgentId,
    /// Any other field (looked up in the prepared `request` map).
    Other(CelMapKey<'static>),
}

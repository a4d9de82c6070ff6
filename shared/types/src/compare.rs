//! What changed between two releases of a tool's interface (its `functionSchema` and the
//! `types` it uses), and whether each change is breaking, like `buf breaking`.
//!
//! Parameters are the model's input to the tool, so a change is breaking when a call
//! valid for the old release can be refused by the new one: a function or parameter
//! removed, a required parameter added, an optional one made required, a type changed
//! or narrowed (`number` to `integer`, an enum losing values, a `const` changed), a union
//! losing a variant or changing its discriminator, extra properties no longer allowed.
//! Additive changes accept every old call: a function, an optional parameter or an enum
//! value added, a requirement relaxed, a type widened. Description edits are
//! documentation changes. Named types used on both sides under the same name are
//! compared once, at `/types/<Name>`; each finding's path is in the new release's
//! document, or in the old one's for what the new one no longer has.

use crate::type_expr::{self, Base, Scalar, TypeExpr};
use crate::{FunctionDefinition, ParameterDefinition, TypeDefinition, TypeKind};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// How a change affects callers of the old release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A description changed; every call stays valid.
    Documentation,
    /// Something was added or relaxed; every old call stays valid.
    Additive,
    /// A call valid for the old release can be refused by the new one.
    Breaking,
}

/// One difference between two releases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SchemaChange {
    /// JSON Pointer of the change (in the new release, or the old one for removals).
    pub path: String,
    /// Breaking, additive or documentation.
    pub kind: ChangeKind,
    /// What changed, for people.
    pub message: String,
}

/// A tool's interface: its functions and named types.
#[derive(Debug, Clone, Copy)]
pub struct Interface<'a> {
    /// `functionSchema`.
    pub functions: &'a [FunctionDefinition],
    /// `types`.
    pub types: Option<&'a BTreeMap<String, TypeDefinition>>,
}

/// Every change from `old` to `new`, sorted by path.
pub fn compare(old: Interface<'_>, new: Interface<'_>) -> Vec<SchemaChange> {
    let mut diff = Diff { old, new, out: Vec::new(), shared: BTreeSet::new() };
    diff.functions();
    // Each type referenced under the same name on both sides, once; comparing one can
    // reach more (nested references, union variants).
    let mut done = BTreeSet::new();
    while let Some(name) = diff.shared.difference(&done).next().cloned() {
        if let (Some(a), Some(b)) = (old.type_def(&name), new.type_def(&name)) {
            let path = at("/types", &name);
            diff.type_defs(a, b, &path, 0);
        }
        done.insert(name);
    }
    diff.out.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    diff.out
}

/// The most severe kind among `changes`, `None` when there are none.
pub fn severity(changes: &[SchemaChange]) -> Option<ChangeKind> {
    changes.iter().map(|c| c.kind).max()
}

/// Named types are compared through at most this many levels (validation refuses
/// cycles; this only bounds the work).
const MAX_DEPTH: usize = 32;

impl<'a> Interface<'a> {
    fn type_def(&self, name: &str) -> Option<&'a TypeDefinition> {
        self.types.and_then(|t| t.get(name))
    }
}

struct Diff<'a> {
    old: Interface<'a>,
    new: Interface<'a>,
    out: Vec<SchemaChange>,
    /// Named types referenced under the same name on both sides, compared once.
    shared: BTreeSet<String>,
}

/// The structure of a parameter's type, with named types left as names.
enum Shape<'a> {
    Scalar(Scalar),
    Object(&'a BTreeMap<String, ParameterDefinition>, bool),
    Array(Option<&'a ParameterDefinition>),
    Named(&'a str),
    /// Not a valid type expression: compared as text.
    Opaque(&'a str),
}

fn shape(p: &ParameterDefinition) -> (Shape<'_>, usize) {
    match type_expr::parse(&p.ty) {
        Some(TypeExpr { base, dims }) => (
            match base {
                Base::Scalar(s) => Shape::Scalar(s),
                Base::Object => {
                    Shape::Object(empty_or(&p.properties), p.additional_properties.unwrap_or(false))
                }
                Base::Array => Shape::Array(p.items.as_deref()),
                Base::Named(n) => Shape::Named(n),
            },
            dims,
        ),
        None => (Shape::Opaque(&p.ty), 0),
    }
}

fn empty_or(
    map: &Option<BTreeMap<String, ParameterDefinition>>,
) -> &BTreeMap<String, ParameterDefinition> {
    static EMPTY: BTreeMap<String, ParameterDefinition> = BTreeMap::new();
    map.as_ref().unwrap_or(&EMPTY)
}

fn at(path: &str, token: &str) -> String {
    crate::pointer(path, token)
}

fn values(v: &Option<Vec<Value>>) -> Option<BTreeSet<String>> {
    v.as_ref().map(|v| v.iter().map(Value::to_string).collect())
}

impl<'a> Diff<'a> {
    fn push(&mut self, path: impl Into<String>, kind: ChangeKind, message: impl Into<String>) {
        self.out.push(SchemaChange { path: path.into(), kind, message: message.into() });
    }

    fn functions(&mut self) {
        let (old, new) = (self.old.functions, self.new.functions);
        for (i, f) in old.iter().enumerate() {
            if !new.iter().any(|g| g.name == f.name) {
                self.push(
                    format!("/functionSchema/{i}"),
                    ChangeKind::Breaking,
                    format!("function `{}` removed", f.name),
                );
            }
        }
        for (i, g) in new.iter().enumerate() {
            let path = format!("/functionSchema/{i}");
            let Some(f) = old.iter().find(|f| f.name == g.name) else {
                self.push(path, ChangeKind::Additive, format!("function `{}` added", g.name));
                continue;
            };
            if f.description != g.description {
                self.push(
                    at(&path, "description"),
                    ChangeKind::Documentation,
                    "description changed",
                );
            }
            if f.require_confirmation != g.require_confirmation {
                self.push(
                    at(&path, "requireConfirmation"),
                    ChangeKind::Additive,
                    "user confirmation setting changed",
                );
            }
            self.members(&f.parameters, &g.parameters, &at(&path, "parameters"), "parameter", 0);
        }
    }

    /// Parameters of a function, or properties of an object: by name.
    fn members(
        &mut self,
        old: &'a BTreeMap<String, ParameterDefinition>,
        new: &'a BTreeMap<String, ParameterDefinition>,
        path: &str,
        what: &str,
        depth: usize,
    ) {
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            self.push(at(path, name), ChangeKind::Breaking, format!("{what} `{name}` removed"));
        }
        for (name, b) in new {
            let here = at(path, name);
            match old.get(name) {
                None if b.is_required() => {
                    self.push(here, ChangeKind::Breaking, format!("required {what} `{name}` added"))
                }
                None => {
                    self.push(here, ChangeKind::Additive, format!("optional {what} `{name}` added"))
                }
                Some(a) => {
                    match (a.is_required(), b.is_required()) {
                        (false, true) => self.push(
                            here.clone(),
                            ChangeKind::Breaking,
                            format!("{what} `{name}` made required"),
                        ),
                        (true, false) => self.push(
                            here.clone(),
                            ChangeKind::Additive,
                            format!("{what} `{name}` made optional"),
                        ),
                        _ => {}
                    }
                    self.parameter(a, b, &here, depth);
                }
            }
        }
    }

    fn parameter(
        &mut self,
        a: &'a ParameterDefinition,
        b: &'a ParameterDefinition,
        path: &str,
        depth: usize,
    ) {
        if a.description != b.description {
            self.push(at(path, "description"), ChangeKind::Documentation, "description changed");
        }
        let (enum_a, enum_b) = (values(&a.enum_values), values(&b.enum_values));
        match (&enum_a, &enum_b) {
            (None, Some(_)) => {
                self.push(at(path, "enum"), ChangeKind::Breaking, "restricted to an enum")
            }
            (Some(_), None) => {
                self.push(at(path, "enum"), ChangeKind::Additive, "enum restriction removed")
            }
            (Some(x), Some(y)) => {
                let removed: Vec<&String> = x.difference(y).collect();
                let added: Vec<&String> = y.difference(x).collect();
                if !removed.is_empty() {
                    self.push(
                        at(path, "enum"),
                        ChangeKind::Breaking,
                        format!("enum values removed: {}", join(&removed)),
                    );
                }
                if !added.is_empty() {
                    self.push(
                        at(path, "enum"),
                        ChangeKind::Additive,
                        format!("enum values added: {}", join(&added)),
                    );
                }
            }
            (None, None) => {}
        }
        match (&a.const_value, &b.const_value) {
            (x, y) if x == y => {}
            (Some(_), None) => self.push(at(path, "const"), ChangeKind::Additive, "const removed"),
            _ => self.push(at(path, "const"), ChangeKind::Breaking, "const added or changed"),
        }
        let ((sa, da), (sb, db)) = (shape(a), shape(b));
        if da != db {
            self.push(
                at(path, "type"),
                ChangeKind::Breaking,
                format!("type changed from `{}` to `{}`", a.ty, b.ty),
            );
            return;
        }
        self.shapes(sa, sb, path, &a.ty, &b.ty, depth);
    }

    fn shapes(&mut self, a: Shape<'a>, b: Shape<'a>, path: &str, ta: &str, tb: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let changed = |this: &mut Self| {
            this.push(
                at(path, "type"),
                ChangeKind::Breaking,
                format!("type changed from `{ta}` to `{tb}`"),
            )
        };
        match (a, b) {
            (Shape::Scalar(x), Shape::Scalar(y)) if x == y => {}
            (Shape::Scalar(Scalar::Integer), Shape::Scalar(Scalar::Number)) => self.push(
                at(path, "type"),
                ChangeKind::Additive,
                "type widened from `integer` to `number`",
            ),
            (Shape::Object(x, ax), Shape::Object(y, ay)) => {
                self.additional(ax, ay, path);
                self.members(x, y, &at(path, "properties"), "property", depth + 1);
            }
            (Shape::Array(x), Shape::Array(y)) => match (x, y) {
                (Some(x), Some(y)) => self.parameter(x, y, &at(path, "items"), depth + 1),
                (None, None) => {}
                _ => changed(self),
            },
            (Shape::Named(x), Shape::Named(y)) if x == y => {
                self.shared.insert(x.to_owned());
            }
            (Shape::Named(x), Shape::Named(y)) => {
                match (self.old.type_def(x), self.new.type_def(y)) {
                    (Some(a), Some(b)) => self.type_defs(a, b, path, depth + 1),
                    _ => changed(self),
                }
            }
            (Shape::Opaque(x), Shape::Opaque(y)) if x == y => {}
            _ => changed(self),
        }
    }

    fn additional(&mut self, old: bool, new: bool, path: &str) {
        match (old, new) {
            (true, false) => self.push(
                at(path, "additionalProperties"),
                ChangeKind::Breaking,
                "extra properties no longer allowed",
            ),
            (false, true) => self.push(
                at(path, "additionalProperties"),
                ChangeKind::Additive,
                "extra properties allowed",
            ),
            _ => {}
        }
    }

    /// Two named type definitions, structurally.
    fn type_defs(
        &mut self,
        a: &'a TypeDefinition,
        b: &'a TypeDefinition,
        path: &str,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        if a.description != b.description {
            self.push(at(path, "description"), ChangeKind::Documentation, "description changed");
        }
        match (a.kind(), b.kind()) {
            (Some(TypeKind::Object), Some(TypeKind::Object)) => {
                self.additional(
                    a.additional_properties.unwrap_or(false),
                    b.additional_properties.unwrap_or(false),
                    path,
                );
                self.members(
                    empty_or(&a.properties),
                    empty_or(&b.properties),
                    &b.properties_path(path),
                    "property",
                    depth + 1,
                );
            }
            (Some(TypeKind::Array), Some(TypeKind::Array)) => {
                if let (Some(x), Some(y)) = (&a.items, &b.items) {
                    self.parameter(x, y, &at(path, "items"), depth + 1);
                }
            }
            (Some(TypeKind::Union), Some(TypeKind::Union)) => {
                if a.discriminator != b.discriminator {
                    self.push(
                        at(path, "discriminator"),
                        ChangeKind::Breaking,
                        "discriminator changed",
                    );
                }
                let (x, y) = (
                    a.any_of.as_deref().unwrap_or_default(),
                    b.any_of.as_deref().unwrap_or_default(),
                );
                for v in x.iter().filter(|v| !y.contains(v)) {
                    self.push(
                        at(path, "anyOf"),
                        ChangeKind::Breaking,
                        format!("variant `{v}` removed"),
                    );
                }
                for v in y.iter().filter(|v| !x.contains(v)) {
                    self.push(
                        at(path, "anyOf"),
                        ChangeKind::Additive,
                        format!("variant `{v}` added"),
                    );
                }
                for v in x.iter().filter(|v| y.contains(v)) {
                    self.shared.insert(v.clone());
                }
            }
            _ => self.push(
                path,
                ChangeKind::Breaking,
                "kind of type changed (object, array or union)",
            ),
        }
    }
}

fn join(values: &[&String]) -> String {
    values.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
}

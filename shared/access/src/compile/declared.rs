//! The variables a condition may use (SPEC section 4) and the AST walk that rejects
//! anything else: undeclared variables, unknown fields of typed variables, struct
//! literals.

use crate::compile::RuleKind;
use crate::compile::ast;
use crate::diagnostics::position;
use cel::common::ast::{Expr, IdedExpr, SourceInfo};

/// A declared top-level variable and its fields (`None`: free-form map).
pub(crate) struct Variable {
    /// The name used in conditions.
    pub name: &'static str,
    /// Known fields; `None` means any field is allowed.
    pub fields: Option<&'static [&'static str]>,
    /// Declared only in call rules.
    pub call_only: bool,
}

/// The variables of SPEC sections 4 and 16.
pub(crate) const VARIABLES: &[Variable] = &[
    Variable {
        name: "user",
        fields: Some(&["userId", "userType", "email", "roles"]),
        call_only: false,
    },
    Variable { name: "customData", fields: None, call_only: false },
    Variable {
        name: "account",
        fields: Some(&["accountId", "type", "organizationId"]),
        call_only: false,
    },
    Variable {
        name: "request",
        fields: Some(&["region", "time", "agentId", "toolId"]),
        call_only: false,
    },
    Variable {
        name: "call",
        fields: Some(&["function", "httpMethod", "arguments"]),
        call_only: true,
    },
    Variable {
        name: "session",
        fields: Some(&["calls", "callsOf", "total", "age"]),
        call_only: true,
    },
];

fn variable(name: &str, kind: RuleKind) -> Option<&'static Variable> {
    VARIABLES.iter().find(|v| v.name == name && (kind == RuleKind::Call || !v.call_only))
}

/// The names of the variables declared for `kind`, as messages list them.
fn declared_names(kind: RuleKind) -> &'static str {
    match kind {
        RuleKind::Access => "user, customData, account, request",
        RuleKind::Call => "user, customData, account, request, call, session",
    }
}

/// The closest of `candidates` to `word`, if close enough to suggest.
pub(crate) fn suggest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let word = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| {
            let lower = c.to_lowercase();
            let prefix = lower.len() >= 3
                && word.len() >= 3
                && (word.starts_with(&lower) || lower.starts_with(&word));
            let d = if prefix { 1 } else { strsim::damerau_levenshtein(&word, &lower) };
            (d, c)
        })
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Checks every identifier and field selection of `root`; returns one message per problem.
pub(crate) fn check(root: &IdedExpr, info: &SourceInfo, kind: RuleKind) -> Vec<String> {
    let mut out = Vec::new();
    let mut scope: Vec<&str> = Vec::new();
    walk(root, info, kind, &mut scope, &mut out);
    out
}

fn at(info: &SourceInfo, id: u64, shift: usize) -> String {
    ast::offset(info, id)
        .map_or_else(|| "?:?".to_string(), |o| position::describe(&info.source, o + shift))
}

fn walk<'e>(
    expr: &'e IdedExpr,
    info: &SourceInfo,
    kind: RuleKind,
    scope: &mut Vec<&'e str>,
    out: &mut Vec<String>,
) {
    match &expr.expr {
        Expr::Ident(name) => {
            if !scope.iter().any(|s| s == name) && variable(name, kind).is_none() {
                if name == "call" || name == "session" {
                    out.push(format!(
                        "{}: `{name}` is declared only in call rules (a tool's `callRules`); access rules decide before any call",
                        at(info, expr.id, 0)
                    ));
                    return;
                }
                let names =
                    VARIABLES.iter().filter(|v| variable(v.name, kind).is_some()).map(|v| v.name);
                let hint = suggest(name, names)
                    .map(|s| format!("did you mean `{s}`? "))
                    .unwrap_or_default();
                out.push(format!(
                    "{}: undeclared variable `{name}`; {hint}declared variables are {} (string values need quotes: '{name}')",
                    at(info, expr.id, 0),
                    declared_names(kind)
                ));
            }
        }
        Expr::Select(select) => {
            if let Expr::Ident(name) = &select.operand.expr {
                let shadowed = scope.iter().any(|s| s == name);
                if let (false, Some(Variable { fields: Some(fields), .. })) =
                    (shadowed, variable(name, kind))
                    && !fields.contains(&select.field.as_str())
                {
                    {
                        let hint = suggest(&select.field, fields.iter().copied())
                            .map(|s| format!("did you mean `{name}.{s}`? "))
                            .unwrap_or_default();
                        out.push(format!(
                            "{}: `{name}` has no field `{}`; {hint}its fields are {} (free-form data goes in customData)",
                            at(info, expr.id, 1),
                            select.field,
                            fields.join(", ")
                        ));
                    }
                }
            }
            walk(&select.operand, info, kind, scope, out);
        }
        Expr::Comprehension(c) => {
            walk(&c.iter_range, info, kind, scope, out);
            walk(&c.accu_init, info, kind, scope, out);
            let depth = scope.len();
            scope.push(&c.iter_var);
            if let Some(v) = &c.iter_var2 {
                scope.push(v);
            }
            scope.push(&c.accu_var);
            walk(&c.loop_cond, info, kind, scope, out);
            walk(&c.loop_step, info, kind, scope, out);
            walk(&c.result, info, kind, scope, out);
            scope.truncate(depth);
        }
        Expr::Struct(s) => {
            out.push(format!(
                "{}: struct literal `{}{{...}}` is not supported; use a map literal {{'key': value}}",
                at(info, expr.id, 0),
                s.type_name
            ));
        }
        _ => {
            for child in ast::children(expr) {
                walk(child, info, kind, scope, out);
            }
        }
    }
}

//! Call rules checked against the tool's schema, like a compiler: a reference to an
//! argument or function the schema does not have, or a comparison of an argument with
//! a literal of the wrong type, is refused with its position.

use crate::call::schema::{ArgType, CallSchema};
use crate::compile::ast;
use crate::compile::declared::suggest;
use crate::diagnostics::position;
use cel::common::ast::{Expr, IdedExpr, LiteralValue, SourceInfo};

/// Operators whose operands must have comparable types.
const TYPED_OPERATORS: [&str; 11] =
    ["_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_+_", "_-_", "_*_", "_/_", "_%_"];

/// Every problem of `root` against `schema`, one message each, and the running totals
/// (`<function>.<argument>`) it reads through `session.total`.
pub(crate) fn check(
    root: &IdedExpr,
    info: &SourceInfo,
    schema: &CallSchema,
) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    let mut scope = Vec::new();
    walk(root, info, schema, &mut scope, &mut out);
    let mut totals = Vec::new();
    session_reads(root, info, schema, &mut Vec::new(), &mut out, &mut totals);
    (out, totals)
}

/// `session.<field>` (unshadowed `session`): the field.
fn session_field<'e>(expr: &'e IdedExpr, scope: &[&str]) -> Option<&'e str> {
    let Expr::Select(select) = &expr.expr else { return None };
    matches!(&select.operand.expr, Expr::Ident(root) if root == "session" && !scope.contains(&"session"))
        .then_some(select.field.as_str())
}

/// Checks every `session.total['f.a']` and `session.callsOf['f']` against the schema:
/// `f` a function of the tool, `a` one of its numeric parameters; collects the totals.
fn session_reads<'e>(
    expr: &'e IdedExpr,
    info: &SourceInfo,
    schema: &CallSchema,
    scope: &mut Vec<&'e str>,
    out: &mut Vec<String>,
    totals: &mut Vec<String>,
) {
    if let Expr::Call(call) = &expr.expr
        && call.func_name == "_[_]"
        && call.args.len() == 2
        && let Some(field) = session_field(&call.args[0], scope)
    {
        let key = string_literal(&call.args[1]);
        match (field, key) {
            ("total", Some(key)) => match total_problem(&key, schema) {
                Some(problem) => out.push(format!("{}: {problem}", at(info, call.args[1].id))),
                None => totals.push(key),
            },
            ("callsOf", Some(key)) if !schema.has_function(&key) => {
                out.push(format!("{}: {}", at(info, call.args[1].id), unknown_function(&key, schema)));
            }
            ("total", None) => out.push(format!(
                "{}: index `session.total` with a string literal '<function>.<argument>': the registry keeps only the totals rules name",
                at(info, call.args[1].id)
            )),
            _ => {}
        }
    }
    if let Expr::Comprehension(c) = &expr.expr {
        let depth = scope.len();
        scope.push(&c.iter_var);
        if let Some(v) = &c.iter_var2 {
            scope.push(v);
        }
        scope.push(&c.accu_var);
        for child in ast::children(expr) {
            session_reads(child, info, schema, scope, out, totals);
        }
        scope.truncate(depth);
        return;
    }
    for child in ast::children(expr) {
        session_reads(child, info, schema, scope, out, totals);
    }
}

/// What is wrong with the running total `key` (`<function>.<argument>`), if anything.
fn total_problem(key: &str, schema: &CallSchema) -> Option<String> {
    let Some((function, argument)) = key.split_once('.') else {
        return Some(format!("'{key}' is not '<function>.<argument>'"));
    };
    if !schema.has_function(function) {
        return Some(format!("in '{key}': {}", unknown_function(function, schema)));
    }
    match schema.parameter(function, argument) {
        Some(ArgType::Integer | ArgType::Number) => None,
        Some(other) => Some(format!(
            "`{argument}` of `{function}` is {}; only numeric arguments have running totals",
            other.name()
        )),
        None => Some(format!("`{function}` has no parameter `{argument}`")),
    }
}

fn at(info: &SourceInfo, id: u64) -> String {
    ast::offset(info, id).map_or_else(|| "?:?".to_string(), |o| position::describe(&info.source, o))
}

/// `call.arguments.<name>` (unshadowed `call`): the name.
fn argument<'e>(expr: &'e IdedExpr, scope: &[&str]) -> Option<&'e str> {
    let Expr::Select(select) = &expr.expr else { return None };
    let Expr::Select(inner) = &select.operand.expr else { return None };
    let Expr::Ident(root) = &inner.operand.expr else { return None };
    (root == "call" && inner.field == "arguments" && !scope.contains(&"call") && !select.test)
        .then_some(select.field.as_str())
}

/// Whether `expr` is `call.function` (unshadowed `call`).
fn is_function(expr: &IdedExpr, scope: &[&str]) -> bool {
    matches!(&expr.expr, Expr::Select(s)
        if s.field == "function" && !scope.contains(&"call")
            && matches!(&s.operand.expr, Expr::Ident(root) if root == "call"))
}

/// The type of a literal, as the types of parameters are named; `None` for `null`
/// and bytes, which no parameter holds.
fn literal_type(expr: &IdedExpr) -> Option<(ArgType, &'static str)> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(_)) => Some((ArgType::String, "a string")),
        Expr::Literal(LiteralValue::Int(_) | LiteralValue::UInt(_)) => {
            Some((ArgType::Integer, "an integer"))
        }
        Expr::Literal(LiteralValue::Double(_)) => Some((ArgType::Number, "a number")),
        Expr::Literal(LiteralValue::Boolean(_)) => Some((ArgType::Boolean, "a boolean")),
        Expr::List(_) => Some((ArgType::Array, "a list")),
        Expr::Map(_) => Some((ArgType::Object, "a map")),
        _ => None,
    }
}

fn string_literal(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn walk<'e>(
    expr: &'e IdedExpr,
    info: &SourceInfo,
    schema: &CallSchema,
    scope: &mut Vec<&'e str>,
    out: &mut Vec<String>,
) {
    if let Some(name) = argument(expr, scope) {
        let names = schema.parameter_names();
        if !names.contains(&name) {
            let hint = suggest(name, names.iter().copied())
                .map(|s| format!("did you mean `call.arguments.{s}`? "))
                .unwrap_or_default();
            let known = if names.is_empty() {
                "the tool's functions have no parameters".to_string()
            } else {
                format!("its parameters are {}", names.join(", "))
            };
            out.push(format!(
                "{}: `{name}` is not a parameter of this tool; {hint}{known}",
                at(info, expr.id)
            ));
        }
        return;
    }
    match &expr.expr {
        Expr::Call(call) if call.args.len() == 2 => {
            let (a, b) = (&call.args[0], &call.args[1]);
            if TYPED_OPERATORS.contains(&call.func_name.as_str()) {
                for (side, other) in [(a, b), (b, a)] {
                    compare(side, other, info, schema, scope, out);
                }
            }
            if matches!(call.func_name.as_str(), "_==_" | "_!=_") {
                for (side, other) in [(a, b), (b, a)] {
                    if is_function(side, scope) {
                        function_names([other], info, schema, out);
                    }
                }
            }
            if call.func_name == "@in"
                && is_function(a, scope)
                && let Expr::List(list) = &b.expr
            {
                function_names(&list.elements, info, schema, out);
            }
            for child in ast::children(expr) {
                walk(child, info, schema, scope, out);
            }
        }
        Expr::Comprehension(c) => {
            walk(&c.iter_range, info, schema, scope, out);
            walk(&c.accu_init, info, schema, scope, out);
            let depth = scope.len();
            scope.push(&c.iter_var);
            if let Some(v) = &c.iter_var2 {
                scope.push(v);
            }
            scope.push(&c.accu_var);
            walk(&c.loop_cond, info, schema, scope, out);
            walk(&c.loop_step, info, schema, scope, out);
            walk(&c.result, info, schema, scope, out);
            scope.truncate(depth);
        }
        _ => {
            for child in ast::children(expr) {
                walk(child, info, schema, scope, out);
            }
        }
    }
}

/// `side` an argument and `other` a literal of a type the argument never has.
fn compare(
    side: &IdedExpr,
    other: &IdedExpr,
    info: &SourceInfo,
    schema: &CallSchema,
    scope: &[&str],
    out: &mut Vec<String>,
) {
    let (Some(name), Some((literal, literal_name))) = (argument(side, scope), literal_type(other))
    else {
        return;
    };
    let types = schema.parameter_types(name);
    if !types.is_empty() && !types.iter().any(|t| t.compatible(literal)) {
        let declared: Vec<&str> = types.iter().map(|t| t.name()).collect();
        out.push(format!(
            "{}: `call.arguments.{name}` is {} in the tool's schema; it cannot be compared with {literal_name}",
            at(info, other.id),
            declared.join(" or ")
        ));
    }
}

/// String literals compared with `call.function` must name a function of the tool.
fn function_names<'e>(
    literals: impl IntoIterator<Item = &'e IdedExpr>,
    info: &SourceInfo,
    schema: &CallSchema,
    out: &mut Vec<String>,
) {
    for literal in literals {
        let Some(name) = string_literal(literal) else { continue };
        if !schema.has_function(&name) {
            out.push(format!("{}: {}", at(info, literal.id), unknown_function(&name, schema)));
        }
    }
}

/// Why `name` is refused as a function of the tool: the functions it has, and the
/// closest one when one is close.
fn unknown_function(name: &str, schema: &CallSchema) -> String {
    let known: Vec<&str> = schema.function_names().collect();
    let hint = suggest(name, known.iter().copied())
        .map(|s| format!("did you mean '{s}'? "))
        .unwrap_or_default();
    format!("'{name}' is not a function of this tool; {hint}its functions are {}", known.join(", "))
}

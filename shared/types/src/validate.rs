//! Validation of a tool's `functionSchema` and `types` on write.

use crate::pointer::pointer;
use crate::type_def::TypeKind;
use crate::type_expr::{Base, Scalar, TypeExpr, is_bedrock_name, is_pascal_case, parse};
use crate::{FunctionDefinition, ParameterDefinition, TypeDefinition};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Most functions a tool may list (Bedrock).
pub const MAX_FUNCTIONS: usize = 11;
/// Most parameters a function may take (Bedrock).
pub const MAX_PARAMETERS: usize = 5;
/// Longest function description, in characters (Bedrock `Function.description`).
pub const MAX_FUNCTION_DESCRIPTION: usize = 1200;
/// Deepest nesting of objects and arrays, following named types.
pub const MAX_DEPTH: usize = 32;

/// One problem in a tool's functions or types, at a JSON Pointer from the tool root (e.g. "/functionSchema/0/parameters/city/type", "/types/CartItem").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SchemaError {
    /// JSON Pointer of the offending field.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl SchemaError {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", if self.path.is_empty() { "/" } else { &self.path }, self.message)
    }
}

/// Checks a tool's `functionSchema` and `types` on write; `bedrock` says the tool lists the bedrock framework.
pub fn validate_tool_schema(
    functions: Option<&[FunctionDefinition]>,
    types: Option<&BTreeMap<String, TypeDefinition>>,
    bedrock: bool,
) -> Vec<SchemaError> {
    let empty = BTreeMap::new();
    let mut checker = Checker { types: types.unwrap_or(&empty), errors: Vec::new() };
    match functions {
        None if bedrock => {
            checker.push("/functionSchema", "required for tools that support bedrock")
        }
        Some([]) if bedrock => checker.push(
            "/functionSchema",
            "must list at least one function for tools that support bedrock",
        ),
        _ => {}
    }
    if let Some(functions) = functions {
        checker.functions(functions);
    }
    for (name, def) in checker.types {
        checker.named_type(name, def);
    }
    if checker.errors.is_empty() {
        checker.cycles_and_depth(functions.unwrap_or_default());
    }
    if let (true, true, Some(functions)) = (bedrock, checker.errors.is_empty(), functions) {
        let (_, report) = crate::bedrock::compile_functions(functions, types);
        for issue in report.into_iter().filter(|issue| issue.blocking) {
            checker.push(issue.path, format!("cannot be expressed for bedrock: {}", issue.issue));
        }
    }
    checker.errors
}

/// Only the rules that decide what values mean (types, references, cycles), skipping
/// naming, counting and description rules: what argument validation needs.
pub(crate) fn type_errors(
    function: &FunctionDefinition,
    types: Option<&BTreeMap<String, TypeDefinition>>,
) -> Vec<SchemaError> {
    let empty = BTreeMap::new();
    let mut checker = Checker { types: types.unwrap_or(&empty), errors: Vec::new() };
    for (name, parameter) in &function.parameters {
        checker.parameter(parameter, &pointer("/functionSchema/0/parameters", name));
    }
    for (name, def) in checker.types {
        checker.named_type(name, def);
    }
    if checker.errors.is_empty() {
        checker.cycles_and_depth(std::slice::from_ref(function));
    }
    checker.errors
}

struct Checker<'a> {
    types: &'a BTreeMap<String, TypeDefinition>,
    errors: Vec<SchemaError>,
}

impl<'a> Checker<'a> {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(SchemaError::new(path, message));
    }

    fn unknown_fields(&mut self, path: &str, unknown: &BTreeMap<String, Value>) {
        for key in unknown.keys() {
            self.push(pointer(path, key), "unknown field");
        }
    }

    fn functions(&mut self, functions: &[FunctionDefinition]) {
        if functions.len() > MAX_FUNCTIONS {
            self.push(
                "/functionSchema",
                format!("at most {MAX_FUNCTIONS} functions are allowed, found {}", functions.len()),
            );
        }
        let mut seen = BTreeMap::new();
        for (index, function) in functions.iter().enumerate() {
            let path = format!("/functionSchema/{index}");
            self.unknown_fields(&path, &function.unknown);
            if !is_bedrock_name(&function.name) {
                self.push(
                    pointer(&path, "name"),
                    "function names match ([0-9a-zA-Z][_-]?){1,100}: letters and digits, single `_` or `-` between them",
                );
            } else if let Some(first) = seen.insert(function.name.as_str(), index) {
                self.push(
                    pointer(&path, "name"),
                    format!("duplicate function name, already used by /functionSchema/{first}"),
                );
            }
            let description = function.description.trim();
            if description.is_empty() {
                self.push(pointer(&path, "description"), "required: say what the function does");
            } else if function.description.chars().count() > MAX_FUNCTION_DESCRIPTION {
                self.push(
                    pointer(&path, "description"),
                    format!("at most {MAX_FUNCTION_DESCRIPTION} characters"),
                );
            }
            let parameters_path = pointer(&path, "parameters");
            if function.parameters.len() > MAX_PARAMETERS {
                self.push(
                    parameters_path.clone(),
                    format!(
                        "at most {MAX_PARAMETERS} parameters are allowed, found {}",
                        function.parameters.len()
                    ),
                );
            }
            for (name, parameter) in &function.parameters {
                let parameter_path = pointer(&parameters_path, name);
                if !is_bedrock_name(name) {
                    self.push(
                        parameter_path.clone(),
                        "parameter names match ([0-9a-zA-Z][_-]?){1,100}: letters and digits, single `_` or `-` between them",
                    );
                }
                self.parameter(parameter, &parameter_path);
            }
        }
    }

    fn named_type(&mut self, name: &str, def: &TypeDefinition) {
        let path = pointer("/types", name);
        if !is_pascal_case(name) {
            self.push(
                path.clone(),
                "type names are PascalCase (an ASCII capital, then letters and digits)",
            );
        }
        self.unknown_fields(&path, &def.unknown);
        let kinds = def.kinds();
        let kind = match kinds.as_slice() {
            [kind] => *kind,
            [] => {
                self.push(
                    path,
                    "a type needs `properties` (object type), `type: \"array\"` with `items` (array type) or `anyOf` (union)",
                );
                return;
            }
            _ => {
                self.push(path, "a type is exactly one of: `properties` (object), `items` (array), `anyOf` (union)");
                return;
            }
        };
        if kind != TypeKind::Object && def.additional_properties.is_some() {
            self.push(
                pointer(&path, "additionalProperties"),
                "only object types take additionalProperties",
            );
        }
        if kind != TypeKind::Union && def.discriminator.is_some() {
            self.push(
                pointer(&path, "discriminator"),
                "only unions (`anyOf`) have a discriminator",
            );
        }
        match kind {
            TypeKind::Object => {
                if let Some(ty) = def.ty.as_deref().filter(|ty| *ty != "object") {
                    self.push(
                        pointer(&path, "type"),
                        format!("an object type has `type: \"object\"` or none, not `{ty}`"),
                    );
                }
                if let Some(properties) = &def.properties {
                    self.properties(properties, &def.properties_path(&path));
                }
            }
            TypeKind::Array => {
                if def.ty.as_deref() != Some("array") {
                    self.push(pointer(&path, "type"), "an array type says `type: \"array\"`");
                }
                match &def.items {
                    Some(items) => self.parameter(items, &pointer(&path, "items")),
                    None => self.push(pointer(&path, "items"), "required for `type: \"array\"`"),
                }
            }
            TypeKind::Union => {
                if def.ty.is_some() {
                    self.push(
                        pointer(&path, "type"),
                        "a union has no `type`: it is one of its `anyOf` variants",
                    );
                }
                self.union(def, &path);
            }
        }
    }

    fn union(&mut self, def: &TypeDefinition, path: &str) {
        let variants = def.any_of.as_deref().unwrap_or_default();
        let any_of_path = pointer(path, "anyOf");
        if variants.len() < 2 {
            self.push(any_of_path.clone(), "a union needs at least 2 variants");
        }
        let discriminator = match def.discriminator.as_deref() {
            Some(d) if !d.is_empty() => Some(d),
            _ => {
                self.push(
                    pointer(path, "discriminator"),
                    "required: the property whose `const` tells the variants apart",
                );
                None
            }
        };
        let mut values: Vec<(&Value, &str)> = Vec::new();
        for (index, variant) in variants.iter().enumerate() {
            let variant_path = pointer(&any_of_path, index);
            let Some(target) = self.types.get(variant) else {
                self.push(variant_path, format!("type `{variant}` is not defined in `types`"));
                continue;
            };
            let Some(properties) =
                target.properties.as_ref().filter(|_| target.kind() == Some(TypeKind::Object))
            else {
                self.push(variant_path, format!("variant `{variant}` must be an object type"));
                continue;
            };
            let Some(discriminator) = discriminator else { continue };
            let Some(property) = properties.get(discriminator) else {
                self.push(
                    variant_path,
                    format!(
                        "variant `{variant}` lacks the discriminator property `{discriminator}`"
                    ),
                );
                continue;
            };
            let Some(value) = property.const_value.as_ref() else {
                self.push(
                    variant_path,
                    format!("variant `{variant}` must give its `{discriminator}` property a `const` value"),
                );
                continue;
            };
            if !property.is_required() {
                self.push(
                    variant_path.clone(),
                    format!("variant `{variant}` must not make `{discriminator}` optional"),
                );
            }
            if let Some((_, first)) = values.iter().find(|(seen, _)| *seen == value) {
                self.push(
                    variant_path,
                    format!("discriminator value {value} of `{variant}` is already used by variant `{first}`"),
                );
            } else {
                values.push((value, variant));
            }
        }
    }

    fn properties(&mut self, properties: &BTreeMap<String, ParameterDefinition>, path: &str) {
        for (name, property) in properties {
            let property_path = pointer(path, name);
            if name.is_empty() {
                self.push(property_path.clone(), "property names must not be empty");
            }
            self.parameter(property, &property_path);
        }
    }

    /// Checks a parameter, a property or an `items` definition.
    fn parameter(&mut self, p: &ParameterDefinition, path: &str) {
        self.unknown_fields(path, &p.unknown);
        if let (Some(required), Some(optional)) = (p.required, p.optional)
            && required == optional
        {
            self.push(pointer(path, "optional"), "contradicts `required`; give one of them");
        }
        let expr = if p.ty.is_empty() {
            self.push(pointer(path, "type"), "required");
            None
        } else {
            match parse(&p.ty) {
                Some(expr) => Some(expr),
                None => {
                    self.push(
                        pointer(path, "type"),
                        format!(
                            "unknown type `{}`: use string, number, integer, boolean, unknown, file, object, array, a PascalCase type from `types`, or T[]",
                            p.ty
                        ),
                    );
                    None
                }
            }
        };
        let inline_object = matches!(expr, Some(TypeExpr { base: Base::Object, dims: 0 }));
        let inline_array = matches!(expr, Some(TypeExpr { base: Base::Array, dims: 0 }));
        if let Some(expr) = expr {
            match expr.base {
                Base::Named(name) if !self.types.contains_key(name) => {
                    self.push(
                        pointer(path, "type"),
                        format!("type `{name}` is not defined in `types`"),
                    );
                }
                Base::Object | Base::Array if expr.dims > 0 => {
                    self.push(
                        pointer(path, "type"),
                        format!("`{}` is not allowed: use `type: \"array\"` with `items`", p.ty),
                    );
                }
                _ => {}
            }
        }
        match (&p.properties, inline_object) {
            (Some(properties), true) => self.properties(properties, &pointer(path, "properties")),
            (None, true) => self.push(
                pointer(path, "properties"),
                "required for `type: \"object\"` (use `unknown` for untyped data)",
            ),
            (Some(_), false) if expr.is_some() => {
                self.push(pointer(path, "properties"), "only `type: \"object\"` has properties")
            }
            _ => {}
        }
        match (&p.items, inline_array) {
            (Some(items), true) => self.parameter(items, &pointer(path, "items")),
            (None, true) => self.push(pointer(path, "items"), "required for `type: \"array\"`"),
            (Some(_), false) if expr.is_some() => {
                self.push(pointer(path, "items"), "only `type: \"array\"` has items")
            }
            _ => {}
        }
        if p.additional_properties.is_some() && !inline_object && expr.is_some() {
            self.push(
                pointer(path, "additionalProperties"),
                "only `type: \"object\"` takes additionalProperties",
            );
        }
        let scalar = match expr {
            Some(TypeExpr { base: Base::Scalar(scalar), dims: 0 }) => Some(scalar),
            _ => None,
        };
        if let Some(values) = &p.enum_values {
            self.enumeration(values, scalar, expr.is_some(), &pointer(path, "enum"));
        }
        if let Some(value) = &p.const_value {
            let const_path = pointer(path, "const");
            match scalar {
                Some(scalar) if scalar != Scalar::File => {
                    if !scalar_accepts(scalar, value) {
                        self.push(const_path, format!("{value} is not a {}", scalar.as_str()));
                    } else if let (Some(values), Some(text)) = (&p.enum_values, value.as_str())
                        && !values.iter().any(|v| v.as_str() == Some(text))
                    {
                        self.push(const_path, format!("{value} is not among the enum values"));
                    }
                }
                _ if expr.is_some() => self.push(
                    const_path,
                    "`const` applies to string, number, integer, boolean and unknown types",
                ),
                _ => {}
            }
        }
    }

    fn enumeration(&mut self, values: &[Value], scalar: Option<Scalar>, typed: bool, path: &str) {
        if scalar != Some(Scalar::String) {
            if typed {
                self.push(path, "`enum` applies only to `type: \"string\"` (enums are strings)");
            }
            return;
        }
        if values.is_empty() {
            self.push(path, "must list at least one value");
        }
        let mut seen = BTreeSet::new();
        for (index, value) in values.iter().enumerate() {
            match value.as_str() {
                None => self.push(pointer(path, index), "enum values must be strings"),
                Some(text) if !seen.insert(text) => {
                    self.push(pointer(path, index), "duplicate enum value")
                }
                Some(_) => {}
            }
        }
    }

    /// Reports reference cycles (at the reference closing the cycle) and types nested too deep.
    fn cycles_and_depth(&mut self, functions: &[FunctionDefinition]) {
        let edges: BTreeMap<&str, Vec<(&str, String)>> = self
            .types
            .iter()
            .map(|(name, def)| (name.as_str(), type_references(name, def)))
            .collect();
        let order = match topological_order(&edges) {
            Ok(order) => order,
            Err(cycles) => {
                self.errors.extend(cycles);
                return;
            }
        };
        let mut depths: BTreeMap<&str, usize> = BTreeMap::new();
        for name in order {
            let Some(def) = self.types.get(name) else { continue };
            let depth = match def.kind() {
                Some(TypeKind::Object) => {
                    1 + def
                        .properties
                        .iter()
                        .flatten()
                        .map(|(_, p)| param_depth(p, &depths))
                        .max()
                        .unwrap_or(0)
                }
                Some(TypeKind::Array) => {
                    1 + def.items.as_deref().map_or(0, |p| param_depth(p, &depths))
                }
                _ => def
                    .any_of
                    .iter()
                    .flatten()
                    .map(|variant| depths.get(variant.as_str()).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0),
            };
            if depth > MAX_DEPTH {
                self.push(
                    pointer("/types", name),
                    format!("nests {depth} levels deep; at most {MAX_DEPTH} are allowed"),
                );
            }
            depths.insert(name, depth);
        }
        for (index, function) in functions.iter().enumerate() {
            for (name, parameter) in &function.parameters {
                let depth = param_depth(parameter, &depths);
                if depth > MAX_DEPTH {
                    self.push(
                        pointer(&format!("/functionSchema/{index}/parameters"), name),
                        format!("nests {depth} levels deep; at most {MAX_DEPTH} are allowed"),
                    );
                }
            }
        }
    }
}

/// Whether `value` is an instance of the scalar type.
pub(crate) fn scalar_accepts(scalar: Scalar, value: &Value) -> bool {
    match scalar {
        Scalar::String => value.is_string(),
        Scalar::Number => value.is_number(),
        Scalar::Integer => is_integer(value),
        Scalar::Boolean => value.is_boolean(),
        Scalar::Unknown => true,
        Scalar::File => false,
    }
}

/// A JSON number without a fractional part (as JSON Schema's `integer`).
pub(crate) fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Nesting depth of a parameter (objects and arrays count one level each).
fn param_depth(p: &ParameterDefinition, named: &BTreeMap<&str, usize>) -> usize {
    let Some(expr) = parse(&p.ty) else { return 0 };
    let base = match expr.base {
        Base::Scalar(Scalar::File) => 1,
        Base::Scalar(_) => 0,
        Base::Named(name) => named.get(name).copied().unwrap_or(0),
        Base::Object => {
            1 + p.properties.iter().flatten().map(|(_, q)| param_depth(q, named)).max().unwrap_or(0)
        }
        Base::Array => 1 + p.items.as_deref().map_or(0, |q| param_depth(q, named)),
    };
    base.saturating_add(expr.dims)
}

/// Named types a type refers to, each with the path of the referring field.
fn type_references<'a>(name: &str, def: &'a TypeDefinition) -> Vec<(&'a str, String)> {
    let path = pointer("/types", name);
    let mut out = Vec::new();
    for (key, p) in def.properties.iter().flatten() {
        param_references(p, &pointer(&def.properties_path(&path), key), &mut out);
    }
    if let Some(items) = &def.items {
        param_references(items, &pointer(&path, "items"), &mut out);
    }
    for (index, variant) in def.any_of.iter().flatten().enumerate() {
        out.push((variant.as_str(), pointer(&pointer(&path, "anyOf"), index)));
    }
    out
}

fn param_references<'a>(p: &'a ParameterDefinition, path: &str, out: &mut Vec<(&'a str, String)>) {
    if let Some(TypeExpr { base: Base::Named(name), .. }) = parse(&p.ty) {
        out.push((name, pointer(path, "type")));
    }
    for (key, q) in p.properties.iter().flatten() {
        param_references(q, &pointer(&pointer(path, "properties"), key), out);
    }
    if let Some(items) = &p.items {
        param_references(items, &pointer(path, "items"), out);
    }
}

/// Types in dependency order (referenced before referring), or every cycle found, each
/// reported at the reference that closes it. Iterative, so long chains cannot overflow.
fn topological_order<'a>(
    edges: &BTreeMap<&'a str, Vec<(&'a str, String)>>,
) -> Result<Vec<&'a str>, Vec<SchemaError>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = BTreeMap::new();
    let mut order = Vec::new();
    let mut cycles = Vec::new();
    for &root in edges.keys() {
        if marks.contains_key(root) {
            continue;
        }
        // Stack of (node, index of the next edge to follow).
        let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
        marks.insert(root, Mark::Active);
        while let Some((node, next)) = stack.last_mut() {
            let node_edges = edges.get(*node).map(Vec::as_slice).unwrap_or_default();
            let Some((target, path)) = node_edges.get(*next) else {
                marks.insert(node, Mark::Done);
                order.push(*node);
                stack.pop();
                continue;
            };
            *next += 1;
            if !edges.contains_key(target) {
                continue;
            }
            match marks.get(target) {
                Some(Mark::Done) => {}
                Some(Mark::Active) => {
                    let start = stack.iter().position(|(n, _)| n == target).unwrap_or(0);
                    let chain: Vec<&str> = stack[start..]
                        .iter()
                        .map(|(n, _)| *n)
                        .chain(std::iter::once(*target))
                        .collect();
                    cycles.push(SchemaError::new(
                        path.clone(),
                        format!("types must not refer to themselves: {}", chain.join(" -> ")),
                    ));
                }
                None => {
                    marks.insert(target, Mark::Active);
                    stack.push((target, 0));
                }
            }
        }
    }
    if cycles.is_empty() { Ok(order) } else { Err(cycles) }
}

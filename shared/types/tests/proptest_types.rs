//! Property test: random well-formed types are accepted, their random instances validate
//! against the compiled JSON Schema (checked by the `jsonschema` crate) and against
//! `validate_arguments`, and mutated instances are rejected by both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Tool;
use proptest::prelude::*;
use registry_types::{
    BedrockEncoding, Format, bedrock_parameter_encodings, compile, decode_bedrock_arguments,
    validate_arguments, validate_tool_schema,
};
use serde_json::{Map, Value, json};

/// splitmix64: the test's own deterministic choices from a proptest-chosen seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A generated type.
#[derive(Debug, Clone)]
enum G {
    Str {
        values: Option<Vec<String>>,
        constant: Option<String>,
    },
    Num,
    Int,
    Bool,
    Unknown,
    File,
    /// Array; `true` when spelled with the `T[]` shorthand.
    List(Box<G>, bool),
    Obj(Vec<Prop>),
    Ref(usize),
}

#[derive(Debug, Clone)]
struct Prop {
    name: String,
    ty: G,
    required: bool,
}

#[derive(Debug, Clone)]
enum Named {
    Obj(Vec<Prop>),
    Arr(G),
    Union(Vec<usize>),
}

const NAMES: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
const DISCRIMINATOR: &str = "kind";

struct Schema {
    named: Vec<Named>,
    params: Vec<Prop>,
}

fn type_name(index: usize) -> String {
    format!("T{index}")
}

fn gen_type(rng: &mut Rng, named: &[Named], depth: usize) -> G {
    let leaf_only = depth >= 3;
    let choice = rng.below(if leaf_only { 7 } else { 10 });
    match choice {
        0 => G::Str { values: None, constant: None },
        1 => {
            let count = 1 + rng.below(3);
            G::Str { values: Some((0..count).map(|i| format!("v{i}")).collect()), constant: None }
        }
        2 => G::Num,
        3 => G::Int,
        4 => G::Bool,
        5 => {
            if rng.chance(50) {
                G::Unknown
            } else {
                G::File
            }
        }
        6 if !named.is_empty() => G::Ref(rng.below(named.len())),
        6 => G::Bool,
        7 => {
            let inner = gen_type(rng, named, depth + 1);
            let shorthand = matches!(
                inner,
                G::Str { values: None, constant: None }
                    | G::Num
                    | G::Int
                    | G::Bool
                    | G::Unknown
                    | G::File
                    | G::Ref(_)
            ) && rng.chance(50);
            G::List(Box::new(inner), shorthand)
        }
        _ => G::Obj(gen_props(rng, named, depth + 1, 3)),
    }
}

fn gen_props(rng: &mut Rng, named: &[Named], depth: usize, max: usize) -> Vec<Prop> {
    let count = rng.below(max + 1);
    let mut names: Vec<&str> = NAMES.to_vec();
    (0..count)
        .map(|_| {
            let name = names.remove(rng.below(names.len())).to_string();
            Prop { name, ty: gen_type(rng, named, depth), required: rng.chance(60) }
        })
        .collect()
}

fn gen_schema(seed: u64) -> Schema {
    let mut rng = Rng(seed);
    let mut named: Vec<Named> = Vec::new();
    let count = rng.below(6);
    for _ in 0..count {
        match rng.below(4) {
            0 | 1 => {
                let props = gen_props(&mut rng, &named, 1, 4);
                named.push(Named::Obj(props));
            }
            2 => {
                let items = gen_type(&mut rng, &named, 1);
                named.push(Named::Arr(items));
            }
            _ => {
                let variants = 2 + rng.below(2);
                let mut indexes = Vec::new();
                for v in 0..variants {
                    let mut props = gen_props(&mut rng, &named, 1, 3);
                    props.push(Prop {
                        name: DISCRIMINATOR.into(),
                        ty: G::Str { values: None, constant: Some(format!("tag{v}")) },
                        required: true,
                    });
                    named.push(Named::Obj(props));
                    indexes.push(named.len() - 1);
                }
                named.push(Named::Union(indexes));
            }
        }
    }
    let mut params = gen_props(&mut rng, &named, 0, 5);
    if params.is_empty() && !named.is_empty() {
        params.push(Prop { name: "alpha".into(), ty: G::Ref(named.len() - 1), required: true });
    }
    Schema { named, params }
}

// ---- wire form ----

fn type_string(g: &G) -> String {
    match g {
        G::Str { .. } => "string".into(),
        G::Num => "number".into(),
        G::Int => "integer".into(),
        G::Bool => "boolean".into(),
        G::Unknown => "unknown".into(),
        G::File => "file".into(),
        G::Ref(i) => type_name(*i),
        G::List(inner, _) => format!("{}[]", type_string(inner)),
        G::Obj(_) => "object".into(),
    }
}

fn wire(g: &G) -> Value {
    match g {
        G::Str { values, constant } => {
            let mut v = json!({ "type": "string", "description": "some text" });
            if let Some(values) = values {
                v["enum"] = json!(values);
            }
            if let Some(c) = constant {
                v["const"] = json!(c);
            }
            v
        }
        G::List(inner, true) => json!({ "type": format!("{}[]", type_string(inner)) }),
        G::List(inner, false) => json!({ "type": "array", "items": wire(inner) }),
        G::Obj(props) => json!({ "type": "object", "properties": wire_props(props) }),
        other => json!({ "type": type_string(other) }),
    }
}

fn wire_props(props: &[Prop]) -> Value {
    let mut map = Map::new();
    for (i, p) in props.iter().enumerate() {
        let mut v = wire(&p.ty);
        if !p.required {
            // Both spellings of "not required".
            if i % 2 == 0 {
                v["optional"] = json!(true);
            } else {
                v["required"] = json!(false);
            }
        }
        map.insert(p.name.clone(), v);
    }
    Value::Object(map)
}

fn wire_tool(schema: &Schema) -> Value {
    let mut types = Map::new();
    for (i, n) in schema.named.iter().enumerate() {
        let v = match n {
            Named::Obj(props) => {
                json!({ "properties": wire_props(props), "description": "an object" })
            }
            Named::Arr(items) => json!({ "type": "array", "items": wire(items) }),
            Named::Union(variants) => json!({
                "anyOf": variants.iter().map(|v| type_name(*v)).collect::<Vec<_>>(),
                "discriminator": DISCRIMINATOR,
            }),
        };
        types.insert(type_name(i), v);
    }
    json!({
        "functionSchema": [{ "name": "f", "description": "generated", "parameters": wire_props(&schema.params) }],
        "types": types,
    })
}

// ---- instances ----

fn instance(g: &G, named: &[Named], rng: &mut Rng) -> Value {
    match g {
        G::Str { constant: Some(c), .. } => json!(c),
        G::Str { values: Some(values), .. } => json!(values[rng.below(values.len())]),
        G::Str { .. } => json!(format!("s{}", rng.below(100))),
        G::Num => {
            if rng.chance(50) {
                json!(rng.below(1000) as f64 / 7.0)
            } else {
                json!(rng.below(50) as i64 - 25)
            }
        }
        G::Int => json!(rng.below(200) as i64 - 100),
        G::Bool => json!(rng.chance(50)),
        G::Unknown => match rng.below(5) {
            0 => Value::Null,
            1 => json!(rng.below(9)),
            2 => json!("any"),
            3 => json!([1, "two", null]),
            _ => json!({ "free": { "form": true } }),
        },
        G::File => {
            let mut f =
                json!({ "id": "f1", "mediaType": "image/png", "url": "https://example.com/f1" });
            if rng.chance(50) {
                f["filename"] = json!("a.png");
            }
            if rng.chance(50) {
                f["size"] = json!(1234);
            }
            f
        }
        G::List(inner, _) => {
            Value::Array((0..rng.below(3)).map(|_| instance(inner, named, rng)).collect())
        }
        G::Obj(props) => object_instance(props, named, rng),
        G::Ref(i) => match &named[*i] {
            Named::Obj(props) => object_instance(props, named, rng),
            Named::Arr(items) => {
                Value::Array((0..rng.below(3)).map(|_| instance(items, named, rng)).collect())
            }
            Named::Union(variants) => {
                instance(&G::Ref(variants[rng.below(variants.len())]), named, rng)
            }
        },
    }
}

fn object_instance(props: &[Prop], named: &[Named], rng: &mut Rng) -> Value {
    let mut map = Map::new();
    for p in props {
        if p.required || rng.chance(50) {
            map.insert(p.name.clone(), instance(&p.ty, named, rng));
        }
    }
    Value::Object(map)
}

// ---- mutations that make an instance invalid ----

#[derive(Debug, Clone)]
enum Mutation {
    Replace(String, Value),
    Remove(String, String),
    Add(String),
}

fn join(path: &str, token: &str) -> String {
    registry_types::pointer(path, token)
}

fn sites(g: &G, value: &Value, named: &[Named], path: &str, out: &mut Vec<Mutation>) {
    match g {
        G::Str { values, constant } => {
            out.push(Mutation::Replace(path.into(), json!(42)));
            if values.is_some() || constant.is_some() {
                out.push(Mutation::Replace(path.into(), json!("zz-not-allowed")));
            }
        }
        G::Num | G::Bool => out.push(Mutation::Replace(path.into(), json!("x"))),
        G::Int => {
            out.push(Mutation::Replace(path.into(), json!("x")));
            out.push(Mutation::Replace(path.into(), json!(1.5)));
        }
        G::Unknown => {}
        G::File => {
            out.push(Mutation::Replace(path.into(), json!("x")));
            out.push(Mutation::Remove(path.into(), "id".into()));
            out.push(Mutation::Add(path.into()));
        }
        G::List(inner, _) => {
            out.push(Mutation::Replace(path.into(), json!({ "not": "an array" })));
            for (i, element) in value.as_array().into_iter().flatten().enumerate() {
                sites(inner, element, named, &join(path, &i.to_string()), out);
            }
        }
        G::Obj(props) => object_sites(props, value, named, path, out),
        G::Ref(i) => match &named[*i] {
            Named::Obj(props) => object_sites(props, value, named, path, out),
            Named::Arr(items) => {
                sites(&G::List(Box::new(items.clone()), false), value, named, path, out)
            }
            Named::Union(variants) => {
                out.push(Mutation::Replace(path.into(), json!("x")));
                out.push(Mutation::Replace(join(path, DISCRIMINATOR), json!("zz-no-such-variant")));
                out.push(Mutation::Remove(path.into(), DISCRIMINATOR.into()));
                let tag = value[DISCRIMINATOR].as_str().unwrap_or_default();
                if let Some(variant) = variants.iter().find(|v| match &named[**v] {
                    Named::Obj(props) => props.iter().any(|p| {
                        matches!(&p.ty, G::Str { constant: Some(c), .. } if p.name == DISCRIMINATOR && c == tag)
                    }),
                    _ => false,
                }) {
                    sites(&G::Ref(*variant), value, named, path, out);
                }
            }
        },
    }
}

fn object_sites(
    props: &[Prop],
    value: &Value,
    named: &[Named],
    path: &str,
    out: &mut Vec<Mutation>,
) {
    out.push(Mutation::Replace(path.into(), json!("x")));
    out.push(Mutation::Add(path.into()));
    for p in props {
        if let Some(v) = value.get(&p.name) {
            if p.required {
                out.push(Mutation::Remove(path.into(), p.name.clone()));
            }
            sites(&p.ty, v, named, &join(path, &p.name), out);
        }
    }
}

fn apply(value: &Value, mutation: &Mutation) -> Value {
    let mut out = value.clone();
    match mutation {
        Mutation::Replace(path, replacement) => {
            *out.pointer_mut(path).unwrap() = replacement.clone()
        }
        Mutation::Remove(path, key) => {
            out.pointer_mut(path).unwrap().as_object_mut().unwrap().remove(key);
        }
        Mutation::Add(path) => {
            out.pointer_mut(path)
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert("zzExtra".into(), json!(1));
        }
    }
    out
}

/// The Bedrock string form of an argument, as an agent would send it.
fn bedrock_text(encoding: BedrockEncoding, value: &Value) -> String {
    match (encoding, value) {
        (BedrockEncoding::String, Value::String(s)) => s.clone(),
        (e, v) if e.is_json() => v.to_string(),
        (_, v) => v.to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_types_instances_and_mutations(seed in any::<u64>()) {
        let schema = gen_schema(seed);
        let tool = Tool::parse(wire_tool(&schema));
        let errors = validate_tool_schema(tool.functions(), tool.types(), false);
        prop_assert!(errors.is_empty(), "{errors:?}\n{:#}", wire_tool(&schema));
        for format in Format::ALL {
            prop_assert!(compile(tool.functions(), tool.types(), format).is_ok());
        }
        let compiled = compile(tool.functions(), tool.types(), Format::JsonSchema).unwrap();
        let json_schema = &compiled.schema["f"];
        let validator = jsonschema::validator_for(json_schema).unwrap();
        let function = tool.function("f");
        let encodings = bedrock_parameter_encodings(function, tool.types());

        let mut rng = Rng(seed ^ 0x5555);
        for _ in 0..4 {
            let args = object_instance(&schema.params, &schema.named, &mut rng);
            let problems = validate_arguments(function, tool.types(), &args);
            prop_assert!(problems.is_empty(), "{problems:?}\n{args:#}\n{json_schema:#}");
            prop_assert!(validator.is_valid(&args), "{args:#}\n{json_schema:#}");

            // Through Bedrock's string parameters and back.
            let texts: Vec<(String, String)> = args
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), bedrock_text(encodings[k], v)))
                .collect();
            let decoded =
                decode_bedrock_arguments(function, tool.types(), texts.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            prop_assert_eq!(decoded, Ok(args.clone()));

            let mut mutations = Vec::new();
            let root = G::Obj(schema.params.clone());
            sites(&root, &args, &schema.named, "", &mut mutations);
            mutations.retain(|m| !matches!(m, Mutation::Replace(p, _) if p.is_empty()));
            let mutation = &mutations[rng.below(mutations.len())];
            let bad = apply(&args, mutation);
            prop_assert!(!validator.is_valid(&bad), "{mutation:?} accepted by jsonschema\n{bad:#}\n{json_schema:#}");
            let problems = validate_arguments(function, tool.types(), &bad);
            prop_assert!(!problems.is_empty(), "{mutation:?} accepted by validate_arguments\n{bad:#}");
        }
    }
}

#[test]
fn arguments_must_be_an_object() {
    let tool = Tool::parse(
        json!({ "functionSchema": [{ "name": "f", "description": "d", "parameters": {} }] }),
    );
    let problems = validate_arguments(tool.function("f"), None, &json!([1]));
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, "");
}

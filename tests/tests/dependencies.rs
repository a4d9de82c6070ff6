//! The crate map of docs/architecture.md ("Crates and what they call") checked against
//! `cargo metadata`, as `readme.rs` runs the README (decision 110).
//!
//! One `cargo metadata --format-version 1 --all-features` gives every package's declared
//! dependencies and the workspace's resolve graph; the test then checks:
//! - the table: one row per workspace member, at its path, and its "in-repo dependencies"
//!   cell (directory names, `, `-separated, `none` for none) is exactly the member's
//!   in-repo normal dependencies; an optional one is written `name (feature `f`)`, `f`
//!   being a feature of the crate that turns it on;
//! - the promises (the list under "Dependency promises"): each line
//!   `` - `crate` [without default features] [with features `a`, `b`] links no `x`, `y*`[: why] ``
//!   holds for the crate's normal dependencies all the way down (what `cargo tree -e normal
//!   -p crate [--no-default-features] [--features a,b]` lists), `y*` meaning every crate
//!   whose name begins with `y`. The closure is computed here from the packages' declared
//!   dependencies and features, resolved to the packages of the resolve graph, with
//!   features unified across the build as cargo does; platform-specific dependencies count
//!   on every platform, so a promise may only be stricter than `cargo tree` on one host.
//!
//! To add a promise, add a line of that form to the list (one line per promise, in the
//! list, before the next heading); to change a crate's dependencies, change its row. A
//! failure names the crate, the line of the document and the difference (for a broken
//! promise, the chain of packages that brings the forbidden crate in).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The document the test reads.
const DOC: &str = "docs/architecture.md";
/// The heading of the crate table.
const TABLE: &str = "## Crates and what they call";
/// The heading of the promises' list.
const PROMISES: &str = "### Dependency promises";

/// The workspace's root directory.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// One row of the crate table.
struct Row {
    line: usize,
    name: String,
    path: String,
    /// Directory name of each in-repo dependency, with the feature that turns it on.
    deps: BTreeMap<String, Option<String>>,
}

/// One promise: `crate` (built so) links none of `forbidden`.
struct Promise {
    line: usize,
    name: String,
    default_features: bool,
    features: Vec<String>,
    forbidden: Vec<String>,
}

/// The backticked words of `text`, in order.
fn quoted(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The lines of the section under `heading`, with their line numbers (1-based).
fn section<'a>(doc: &'a str, heading: &str) -> Vec<(usize, &'a str)> {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == heading)
        .unwrap_or_else(|| panic!("{DOC} has no heading {heading:?}"));
    lines[start + 1..]
        .iter()
        .enumerate()
        .take_while(|(_, l)| !l.starts_with('#'))
        .map(|(i, l)| (start + i + 2, *l))
        .collect()
}

/// The crate table's rows.
fn rows(doc: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for (line, text) in section(doc, TABLE) {
        if !text.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = text.trim().trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 3, "{DOC}:{line}: a row needs crate | path | in-repo dependencies");
        let mut deps = BTreeMap::new();
        if cells[2] != "none" {
            for item in cells[2].split(',').map(str::trim) {
                let (dep, rest) = item.split_once(' ').unwrap_or((item, ""));
                let feature = rest.contains("feature").then(|| quoted(rest).join(""));
                deps.insert(dep.to_string(), feature);
            }
        }
        rows.push(Row {
            line,
            name: cells[0].trim_matches('`').to_string(),
            path: cells[1].trim_matches('`').to_string(),
            deps,
        });
    }
    rows
}

/// The promises' list.
fn promises(doc: &str) -> Vec<Promise> {
    let mut promises = Vec::new();
    for (line, text) in section(doc, PROMISES) {
        let Some(item) = text.strip_prefix("- `") else { continue };
        let (subject, object) = item.split_once(" links no ").unwrap_or_else(|| {
            panic!("{DOC}:{line}: a promise reads \"- `crate` links no `x`, ...\"")
        });
        let subject = format!("`{subject}");
        let names = quoted(&subject);
        let object = object.split_once(": ").map_or(object, |(names, _why)| names);
        promises.push(Promise {
            line,
            name: names[0].clone(),
            default_features: !subject.contains("without default features"),
            features: names[1..].to_vec(),
            forbidden: quoted(object),
        });
    }
    promises
}

/// `cargo metadata` of the workspace, every feature of every member on (the resolve graph
/// then holds every dependency any build of a member can have).
fn metadata() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--all-features"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// The packages of the metadata, by id, and the resolve graph's edges.
struct Graph<'m> {
    packages: HashMap<&'m str, &'m Value>,
    /// Per package id: (package name, extern name, package id) of each resolved normal dependency.
    edges: HashMap<&'m str, Vec<(&'m str, &'m str, &'m str)>>,
}

impl<'m> Graph<'m> {
    fn new(meta: &'m Value) -> Self {
        let packages: HashMap<&str, &Value> = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["id"].as_str().unwrap(), p))
            .collect();
        let mut edges = HashMap::new();
        for node in meta["resolve"]["nodes"].as_array().unwrap() {
            let normal = node["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null()))
                .map(|d| {
                    let id = d["pkg"].as_str().unwrap();
                    (packages[id]["name"].as_str().unwrap(), d["name"].as_str().unwrap(), id)
                })
                .collect();
            edges.insert(node["id"].as_str().unwrap(), normal);
        }
        Graph { packages, edges }
    }

    /// The package a declared dependency of `id` resolved to.
    fn resolved(&self, id: &str, dep: &Value) -> Option<&'m str> {
        let name = dep["name"].as_str().unwrap();
        let rename = dep["rename"].as_str().map(|r| r.replace('-', "_"));
        self.edges[id]
            .iter()
            .find(|(package, extern_name, _)| {
                *package == name && rename.as_ref().is_none_or(|r| r == extern_name)
            })
            .map(|(_, _, target)| *target)
    }

    /// Every package the build of `root` with `features` links (its normal dependencies
    /// all the way down), each with the package that brought it in.
    fn closure(
        &self,
        root: &'m str,
        features: BTreeSet<String>,
    ) -> HashMap<&'m str, Option<&'m str>> {
        let mut enabled: BTreeMap<&str, BTreeSet<String>> = BTreeMap::from([(root, features)]);
        let mut parent: HashMap<&str, Option<&str>> = HashMap::from([(root, None)]);
        loop {
            let mut changed = false;
            let active: Vec<(&str, BTreeSet<String>)> =
                enabled.iter().map(|(id, f)| (*id, f.clone())).collect();
            for (id, features) in active {
                let package = self.packages[id];
                let (deps_on, requests) = expand(package, &features);
                for dep in package["dependencies"].as_array().unwrap() {
                    if !dep["kind"].is_null() {
                        continue;
                    }
                    let key = dep["rename"].as_str().or(dep["name"].as_str()).unwrap();
                    if dep["optional"].as_bool().unwrap() && !deps_on.contains(key) {
                        continue;
                    }
                    let Some(target) = self.resolved(id, dep) else {
                        assert!(
                            dep["optional"].as_bool().unwrap(),
                            "{key} of {id} is not in the resolve graph"
                        );
                        continue;
                    };
                    let mut want: BTreeSet<String> = dep["features"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f.as_str().unwrap().to_string())
                        .collect();
                    if dep["uses_default_features"].as_bool().unwrap() {
                        want.insert("default".into());
                    }
                    want.extend(requests.iter().filter(|(d, _)| d == key).map(|(_, f)| f.clone()));
                    let have = enabled.entry(target).or_default();
                    let before = have.len();
                    have.extend(want);
                    changed |= have.len() != before;
                    if !parent.contains_key(target) {
                        parent.insert(target, Some(id));
                        changed = true;
                    }
                }
            }
            if !changed {
                return parent;
            }
        }
    }
}

/// What `features` of `package` turn on: the optional dependencies (by their key in the
/// manifest) and the features asked of dependencies (key, feature).
fn expand(
    package: &Value,
    features: &BTreeSet<String>,
) -> (BTreeSet<String>, Vec<(String, String)>) {
    let table = package["features"].as_object().unwrap();
    let mut seen = BTreeSet::new();
    let mut deps_on = BTreeSet::new();
    let mut requests = Vec::new();
    let mut weak = Vec::new();
    let mut stack: Vec<String> = features.iter().cloned().collect();
    while let Some(feature) = stack.pop() {
        if !seen.insert(feature.clone()) {
            continue;
        }
        if let Some(dep) = feature.strip_prefix("dep:") {
            deps_on.insert(dep.to_string());
        } else if let Some((dep, wanted)) = feature.split_once('/') {
            match dep.strip_suffix('?') {
                Some(dep) => weak.push((dep.to_string(), wanted.to_string())),
                None => {
                    deps_on.insert(dep.to_string());
                    requests.push((dep.to_string(), wanted.to_string()));
                }
            }
        } else if let Some(list) = table.get(&feature) {
            stack.extend(list.as_array().unwrap().iter().map(|f| f.as_str().unwrap().to_string()));
        } else {
            // an optional dependency's implicit feature
            deps_on.insert(feature);
        }
    }
    requests.extend(weak.into_iter().filter(|(dep, _)| deps_on.contains(dep)));
    (deps_on, requests)
}

/// Whether a crate name matches a promise's name (`x*`: every name beginning with `x`).
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

#[test]
fn the_crate_map_and_its_promises_hold() {
    let doc = std::fs::read_to_string(root().join(DOC)).unwrap();
    let rows = rows(&doc);
    let promises = promises(&doc);
    assert!(!rows.is_empty(), "{DOC}: no rows under {TABLE:?}");
    assert!(!promises.is_empty(), "{DOC}: no promises under {PROMISES:?}");
    let meta = metadata();
    let graph = Graph::new(&meta);
    let root_dir = root();
    let members: BTreeMap<&str, &Value> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| {
            let package = graph.packages[id.as_str().unwrap()];
            (package["name"].as_str().unwrap(), package)
        })
        .collect();
    // a member's directory, relative to the root, and its directory name
    let dir = |package: &Value| {
        let manifest = Path::new(package["manifest_path"].as_str().unwrap());
        let dir = manifest.parent().unwrap();
        dir.strip_prefix(&root_dir).unwrap().to_string_lossy().into_owned()
    };
    let short_by_path: HashMap<String, String> = members
        .values()
        .map(|p| {
            let dir = dir(p);
            let short = Path::new(&dir).file_name().unwrap().to_string_lossy().into_owned();
            (root_dir.join(&dir).to_string_lossy().into_owned(), short)
        })
        .collect();

    let mut problems = Vec::new();
    let listed: BTreeSet<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    for name in members.keys().filter(|n| !listed.contains(*n)) {
        problems.push(format!("workspace member `{name}` has no row in the table"));
    }
    for row in &rows {
        let at = format!("{DOC}:{}: `{}`", row.line, row.name);
        let Some(package) = members.get(row.name.as_str()) else {
            problems.push(format!("{at} is not a workspace member"));
            continue;
        };
        if dir(package) != row.path {
            problems.push(format!("{at}: its path is `{}`, not `{}`", dir(package), row.path));
        }
        let mut actual = BTreeMap::new();
        for dep in package["dependencies"].as_array().unwrap() {
            let (Some(path), true) = (dep["path"].as_str(), dep["kind"].is_null()) else {
                continue;
            };
            let short = short_by_path[path].clone();
            let feature = dep["optional"].as_bool().unwrap().then(|| {
                let key = dep["rename"].as_str().or(dep["name"].as_str()).unwrap();
                let turns_on = |list: &Value| {
                    list.as_array().unwrap().iter().any(|f| {
                        let f = f.as_str().unwrap();
                        f == format!("dep:{key}") || f == key
                    })
                };
                let features = package["features"].as_object().unwrap();
                features
                    .iter()
                    .filter(|(_, list)| turns_on(list))
                    .map(|(f, _)| f.clone())
                    .collect::<Vec<_>>()
            });
            actual.insert(short, feature);
        }
        for (dep, feature) in &actual {
            match (row.deps.get(dep), feature) {
                (None, _) => {
                    problems.push(format!("{at} depends on {dep}, which its row does not list"))
                }
                (Some(None), Some(_)) => {
                    problems.push(format!("{at}: {dep} is optional; write `{dep} (feature `f`)`"))
                }
                (Some(Some(f)), None) => {
                    problems.push(format!("{at}: {dep} is not optional (feature `{f}`)"))
                }
                (Some(Some(f)), Some(turn_on)) if !turn_on.contains(f) => problems.push(format!(
                    "{at}: feature `{f}` does not turn on {dep} (features that do: {turn_on:?})"
                )),
                _ => {}
            }
        }
        for dep in row.deps.keys().filter(|d| !actual.contains_key(*d)) {
            problems.push(format!("{at}: its row lists {dep}, which it does not depend on"));
        }
    }

    for promise in &promises {
        let mut how = Vec::new();
        if !promise.default_features {
            how.push("without default features".to_string());
        }
        if !promise.features.is_empty() {
            how.push(format!("with features {}", promise.features.join(", ")));
        }
        let how = if how.is_empty() { String::new() } else { format!(" ({})", how.join(", ")) };
        let at = format!("{DOC}:{}: `{}`{how}", promise.line, promise.name);
        let Some(package) = members.get(promise.name.as_str()) else {
            problems.push(format!("{at} is not a workspace member"));
            continue;
        };
        let mut features: BTreeSet<String> = promise.features.iter().cloned().collect();
        if promise.default_features {
            features.insert("default".into());
        }
        let links = graph.closure(package["id"].as_str().unwrap(), features);
        let name = |id: &str| graph.packages[id]["name"].as_str().unwrap().to_string();
        let mut found: Vec<&str> = links.keys().copied().collect();
        found.sort();
        for id in found {
            let Some(pattern) = promise.forbidden.iter().find(|p| matches(p, &name(id))) else {
                continue;
            };
            let mut chain = vec![name(id)];
            let mut at_id = id;
            while let Some(Some(up)) = links.get(at_id) {
                chain.push(name(up));
                at_id = up;
            }
            chain.reverse();
            problems.push(format!(
                "{at} promises to link no `{pattern}`, yet links {}: {}",
                name(id),
                chain.join(" -> ")
            ));
        }
    }
    assert!(problems.is_empty(), "{DOC} disagrees with cargo metadata:\n{}", problems.join("\n"));
}

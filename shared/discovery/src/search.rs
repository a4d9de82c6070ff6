//! Tool search: BM25 (the `bm25` crate's embedder and scorer) over each tool's name,
//! display name, description and tags, with each function's name, description and
//! parameter names and descriptions. One document per function (a tool without
//! functions is one document), so a hit names the function that matched; identifiers
//! are split into words (`get_forecast`, `weatherLookup`) before the crate's English
//! tokenizer (lowercase, stop words, Snowball stemming) runs.
//!
//! An index is built over exactly the tools a caller may see: the scores (their IDF
//! and average lengths) then depend on nothing else (decision 88).

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::Arc;

use bm25::{DefaultTokenizer, Embedder, EmbedderBuilder, Language, Scorer, Tokenizer};
use registry_core::ToolDefinition;
use serde::Serialize;

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 256;

/// Most hits one search returns.
pub const MAX_LIMIT: usize = 100;

/// Hits returned when the caller names no limit.
pub const DEFAULT_LIMIT: usize = 10;

/// A field a query term matched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, utoipa::ToSchema)]
pub enum Field {
    /// The tool's `name`.
    #[serde(rename = "name")]
    Name,
    /// The tool's `displayName`.
    #[serde(rename = "displayName")]
    DisplayName,
    /// The tool's `description`.
    #[serde(rename = "description")]
    Description,
    /// A tag key or value.
    #[serde(rename = "tags")]
    Tags,
    /// The function's name.
    #[serde(rename = "function.name")]
    FunctionName,
    /// The function's description.
    #[serde(rename = "function.description")]
    FunctionDescription,
    /// A parameter's name or description.
    #[serde(rename = "function.parameters")]
    Parameters,
}

impl Field {
    /// The wire name (`name`, `function.description`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::DisplayName => "displayName",
            Self::Description => "description",
            Self::Tags => "tags",
            Self::FunctionName => "function.name",
            Self::FunctionDescription => "function.description",
            Self::Parameters => "function.parameters",
        }
    }

    fn is_function(self) -> bool {
        matches!(self, Self::FunctionName | Self::FunctionDescription | Self::Parameters)
    }
}

/// Why a tool matched: the query's terms (as indexed: lowercase stems) found in one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Match {
    /// Where.
    pub field: Field,
    /// Which terms.
    pub terms: Vec<String>,
}

/// One ranked tool.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The tool.
    pub tool: Arc<ToolDefinition>,
    /// The function whose own text matched, if one did.
    pub function: Option<String>,
    /// The BM25 score (higher is more relevant; comparable within one search only).
    pub score: f32,
    /// Why it matched, field by field.
    pub matched: Vec<Match>,
}

/// The tokenizer: identifiers split into words, then the crate's English tokenizer.
struct Words(DefaultTokenizer);

impl Default for Words {
    fn default() -> Self {
        Self(DefaultTokenizer::new(Language::English))
    }
}

impl Tokenizer for Words {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        self.0.tokenize(&split_identifiers(input_text))
    }
}

/// `get_forecast`, `weatherLookup`, `weather-basic@1.0.0` as words.
fn split_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous_lower = false;
    for c in text.chars() {
        if matches!(c, '_' | '-' | '.' | '/' | '@' | ':') {
            out.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            out.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// What one document is: a tool, and one of its functions.
#[derive(Debug, Clone, Copy)]
struct Doc {
    tool: usize,
    function: Option<usize>,
}

/// A BM25 index over a set of tools.
pub struct ToolIndex {
    embedder: Embedder<u32, Words>,
    /// The same tokenizer as the embedder's, for telling why a tool matched.
    words: Words,
    scorer: Scorer<u32, u32>,
    docs: Vec<Doc>,
    tools: Vec<Arc<ToolDefinition>>,
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex").field("tools", &self.tools.len()).finish_non_exhaustive()
    }
}

impl ToolIndex {
    /// An index over `tools`.
    pub fn build(tools: Vec<Arc<ToolDefinition>>) -> Self {
        let mut docs = Vec::new();
        let mut texts = Vec::new();
        for (at, tool) in tools.iter().enumerate() {
            let common = tool_text(tool);
            match tool.function_schema.as_deref() {
                Some(functions) if !functions.is_empty() => {
                    for (f, function) in functions.iter().enumerate() {
                        docs.push(Doc { tool: at, function: Some(f) });
                        texts.push(format!("{common} {}", function_text(function)));
                    }
                }
                _ => {
                    docs.push(Doc { tool: at, function: None });
                    texts.push(common);
                }
            }
        }
        let corpus: Vec<&str> = texts.iter().map(String::as_str).collect();
        let embedder =
            EmbedderBuilder::<u32, Words>::with_tokenizer_and_fit_to_corpus(Words::default(), &corpus)
                .build();
        let mut scorer = Scorer::<u32, u32>::new();
        for (id, text) in (0u32..).zip(&texts) {
            scorer.upsert(&id, embedder.embed(text));
        }
        Self { embedder, words: Words::default(), scorer, docs, tools }
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools the index holds.
    pub fn tools(&self) -> &[Arc<ToolDefinition>] {
        &self.tools
    }

    /// The `limit` tools most relevant to `query`, best first (ties by tool id), each
    /// once, with the function that matched best and why.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let embedding = self.embedder.embed(query);
        if embedding.is_empty() {
            return Vec::new();
        }
        let mut scored = self.scorer.matches(&embedding);
        scored.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(Ordering::Equal)
                .then_with(|| self.tool_id(a.id).cmp(self.tool_id(b.id)))
                .then_with(|| a.id.cmp(&b.id))
        });
        let terms = self.terms(query);
        let mut seen = BTreeSet::new();
        let mut hits = Vec::new();
        for doc in scored {
            let Some(&Doc { tool, function }) = self.docs.get(doc.id as usize) else { continue };
            if hits.len() >= limit {
                break;
            }
            if !seen.insert(tool) {
                continue;
            }
            let Some(definition) = self.tools.get(tool) else { continue };
            let function = function
                .and_then(|f| definition.function_schema.as_deref().and_then(|fs| fs.get(f)));
            let matched = why(&self.words, &terms, definition, function);
            let named = matched.iter().any(|m| m.field.is_function());
            hits.push(Hit {
                tool: Arc::clone(definition),
                function: function.filter(|_| named).map(|f| f.name.clone()),
                score: doc.score,
                matched,
            });
        }
        hits
    }

    fn tool_id(&self, doc: u32) -> &str {
        self.docs
            .get(doc as usize)
            .and_then(|d| self.tools.get(d.tool))
            .map_or("", |t| t.tool_id.as_str())
    }

    /// The query's terms, as indexed (each once).
    fn terms(&self, query: &str) -> Vec<String> {
        let mut terms = self.words.tokenize(query);
        terms.sort();
        terms.dedup();
        terms
    }
}

fn tool_text(tool: &ToolDefinition) -> String {
    let mut text = format!("{0} {0} {1} {2}", tool.name, tool.display_name, tool.description);
    for (key, value) in tool.tags.iter().flatten() {
        text.push(' ');
        text.push_str(key);
        text.push(' ');
        text.push_str(value);
    }
    text
}

fn function_text(function: &registry_core::FunctionDefinition) -> String {
    let mut text = format!("{0} {0} {1}", function.name, function.description);
    for (name, parameter) in &function.parameters {
        text.push(' ');
        text.push_str(name);
        text.push(' ');
        text.push_str(&parameter.description);
    }
    text
}

/// The query terms found in each field of `tool` and `function`.
fn why(
    words: &Words,
    terms: &[String],
    tool: &ToolDefinition,
    function: Option<&registry_core::FunctionDefinition>,
) -> Vec<Match> {
    let tags: String = tool.tags.iter().flatten().map(|(k, v)| format!("{k} {v} ")).collect();
    let mut fields: Vec<(Field, String)> = vec![
        (Field::Name, tool.name.clone()),
        (Field::DisplayName, tool.display_name.clone()),
        (Field::Description, tool.description.clone()),
        (Field::Tags, tags),
    ];
    if let Some(function) = function {
        let parameters: String = function
            .parameters
            .iter()
            .map(|(name, p)| format!("{name} {} ", p.description))
            .collect();
        fields.push((Field::FunctionName, function.name.clone()));
        fields.push((Field::FunctionDescription, function.description.clone()));
        fields.push((Field::Parameters, parameters));
    }
    fields
        .into_iter()
        .filter_map(|(field, text)| {
            let tokens: BTreeSet<String> = words.tokenize(&text).into_iter().collect();
            let found: Vec<String> =
                terms.iter().filter(|term| tokens.contains(*term)).cloned().collect();
            (!found.is_empty()).then_some(Match { field, terms: found })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_split_into_words() {
        assert_eq!(split_identifiers("get_forecast"), "get forecast");
        assert_eq!(split_identifiers("weatherLookup"), "weather Lookup");
        assert_eq!(split_identifiers("weather-basic@1.0.0"), "weather basic 1 0 0");
    }
}

//! Tool search: BM25 (the `bm25` crate's embedder and scorer) over each tool's name,
//! display name, description and tags, with each function's name, description and
//! parameter names and descriptions. One document per function (a tool without
//! functions is one document), so a hit names the function that matched; identifiers
//! are split into words (`get_forecast`, `weatherLookup`) before the crate's English
//! tokenizer (lowercase, stop words, Snowball stemming) runs.
//!
//! Scores are the crate's: its embedder's term weights (BM25's saturated, length-
//! normalised term frequencies) times its IDF, summed over the query's tokens as its
//! `Scorer` sums them. They are summed here over postings, term at a time, and only the
//! best `limit` tools are sorted: the crate's `Scorer::matches` scores through a hash
//! set and sorts every match, 15 ms for a word common to 10,000 tools (decision 87; a
//! test checks the two give the same scores).
//!
//! An index is built over exactly the tools a caller may see: the scores (their IDF
//! and average lengths) then depend on nothing else (decision 88).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use bm25::{DefaultTokenizer, Embedder, EmbedderBuilder, Embedding, Language, Tokenizer};
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

/// One document holding a token, with the token's BM25 weight in it (the embedder's).
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    weight: f32,
}

/// A BM25 index over a set of tools.
pub struct ToolIndex {
    embedder: Embedder<u32, Words>,
    /// The same tokenizer as the embedder's, for telling why a tool matched.
    words: Words,
    /// Token (the embedder's index) to the documents holding it.
    postings: HashMap<u32, Vec<Posting>>,
    docs: Vec<Doc>,
    tools: Vec<Arc<ToolDefinition>>,
}

/// The crate's IDF of a token found in `n` of `total` documents (`Scorer::idf`).
fn idf(total: usize, n: usize) -> f32 {
    let (total, n) = (total as f32, n as f32);
    (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
}

/// Each token of an embedding once, with its weight (the embedder repeats a token's
/// entry for each occurrence, with the same weight).
fn weights(embedding: &Embedding<u32>) -> BTreeMap<u32, f32> {
    let mut weights = BTreeMap::new();
    for token in embedding.iter() {
        weights.entry(token.index).or_insert(token.value);
    }
    weights
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
        let embedder = EmbedderBuilder::<u32, Words>::with_tokenizer_and_fit_to_corpus(
            Words::default(),
            &corpus,
        )
        .build();
        let mut postings: HashMap<u32, Vec<Posting>> = HashMap::new();
        for (doc, text) in (0u32..).zip(&texts) {
            for (token, weight) in weights(&embedder.embed(text)) {
                postings.entry(token).or_default().push(Posting { doc, weight });
            }
        }
        Self { embedder, words: Words::default(), postings, docs, tools }
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
        let best = self.best_documents(query);
        let mut ranked: Vec<(f32, usize, u32)> =
            best.into_iter().map(|(tool, (score, doc))| (score, tool, doc)).collect();
        let order = |a: &(f32, usize, u32), b: &(f32, usize, u32)| {
            b.0.total_cmp(&a.0).then_with(|| self.tool_id_of(a.1).cmp(self.tool_id_of(b.1)))
        };
        if limit == 0 {
            return Vec::new();
        }
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_by(order);
        let terms = self.terms(query);
        ranked
            .into_iter()
            .filter_map(|(score, tool, doc)| {
                let definition = self.tools.get(tool)?;
                let function =
                    self.docs.get(doc as usize).and_then(|d| d.function).and_then(|f| {
                        definition.function_schema.as_deref().and_then(|fs| fs.get(f))
                    });
                let matched = why(&self.words, &terms, definition, function);
                let named = matched.iter().any(|m| m.field.is_function());
                Some(Hit {
                    tool: Arc::clone(definition),
                    function: function.filter(|_| named).map(|f| f.name.clone()),
                    score,
                    matched,
                })
            })
            .collect()
    }

    /// Each matching tool's best document and its score (ties: the first document).
    fn best_documents(&self, query: &str) -> HashMap<usize, (f32, u32)> {
        let mut best: HashMap<usize, (f32, u32)> = HashMap::new();
        for (doc, score) in self.scores(&self.embedder.embed(query)) {
            let Some(d) = self.docs.get(doc as usize) else { continue };
            let entry = best.entry(d.tool).or_insert((score, doc));
            if score > entry.0 || (score == entry.0 && doc < entry.1) {
                *entry = (score, doc);
            }
        }
        best
    }

    /// The BM25 score of every document holding a token of the query `embedding`: for
    /// each occurrence of a token, its IDF times its weight in the document, summed (as
    /// the crate's `Scorer` sums them), tokens in a fixed order.
    fn scores(&self, embedding: &Embedding<u32>) -> Vec<(u32, f32)> {
        let mut occurrences: BTreeMap<u32, f32> = BTreeMap::new();
        for token in embedding.indices() {
            *occurrences.entry(*token).or_default() += 1.0;
        }
        let mut sums = vec![0f32; self.docs.len()];
        let mut touched = Vec::new();
        for (token, times) in occurrences {
            let Some(postings) = self.postings.get(&token) else { continue };
            let idf = idf(self.docs.len(), postings.len());
            for posting in postings {
                let Some(sum) = sums.get_mut(posting.doc as usize) else { continue };
                if *sum == 0.0 {
                    touched.push(posting.doc);
                }
                *sum += times * idf * posting.weight;
            }
        }
        touched.into_iter().map(|doc| (doc, sums[doc as usize])).collect()
    }

    fn tool_id_of(&self, tool: usize) -> &str {
        self.tools.get(tool).map_or("", |t| t.tool_id.as_str())
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

    fn tool(id: &str, description: &str, functions: &[(&str, &str)]) -> Arc<ToolDefinition> {
        let functions: Vec<serde_json::Value> = functions
            .iter()
            .map(|(name, description)| serde_json::json!({"name": name, "description": description, "parameters": {}}))
            .collect();
        let value = serde_json::json!({
            "toolId": id, "executionType": "mcp", "name": id.split('@').next().unwrap_or(id),
            "displayName": id, "description": description, "url": "https://mcp.example.com/x",
            "supportedAgentFrameworks": ["bedrock"], "functionSchema": functions,
        });
        Arc::new(serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn scores_are_the_crates_scorer_scores() {
        let tools = vec![
            tool(
                "weather@1.0.0",
                "Weather and forecasts for a city",
                &[("get_forecast", "Forecast of the weather, rain and wind")],
            ),
            tool(
                "currency@1.0.0",
                "Currency exchange rates",
                &[("convert", "Convert an amount"), ("rates", "Every exchange rate of a day")],
            ),
            tool(
                "calendar@1.0.0",
                "Calendar bookings",
                &[("book", "Book a meeting room for a day")],
            ),
            tool("rain@1.0.0", "Rain radar", &[]),
        ];
        let index = ToolIndex::build(tools);
        let mut scorer = bm25::Scorer::<u32, u32>::new();
        let texts: Vec<String> = index
            .docs
            .iter()
            .map(|d| {
                let t = &index.tools[d.tool];
                match d.function {
                    Some(f) => format!(
                        "{} {}",
                        tool_text(t),
                        function_text(
                            &t.function_schema.as_ref().unwrap_or_else(|| unreachable!())[f]
                        )
                    ),
                    None => tool_text(t),
                }
            })
            .collect();
        for (doc, text) in (0u32..).zip(&texts) {
            scorer.upsert(&doc, index.embedder.embed(text));
        }
        for query in
            ["rain", "weather rain rain", "exchange rate of a day", "book a day", "nothing here"]
        {
            let embedding = index.embedder.embed(query);
            let ours: BTreeMap<u32, f32> = index.scores(&embedding).into_iter().collect();
            let theirs = scorer.matches(&embedding);
            assert_eq!(ours.len(), theirs.len(), "{query}");
            for scored in theirs {
                let mine = ours.get(&scored.id).copied().unwrap_or_default();
                assert!(
                    (mine - scored.score).abs() < 1e-4,
                    "{query}: doc {} {mine} vs {}",
                    scored.id,
                    scored.score
                );
            }
        }
    }

    #[test]
    fn identifiers_are_split_into_words() {
        assert_eq!(split_identifiers("get_forecast"), "get forecast");
        assert_eq!(split_identifiers("weatherLookup"), "weather Lookup");
        assert_eq!(split_identifiers("weather-basic@1.0.0"), "weather basic 1 0 0");
    }
}

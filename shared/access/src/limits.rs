//! Every bound the engine enforces, in one place (SPEC section 4 "Limits").
//!
//! The `cel` crate has no cost limit of its own, so cost is bounded in three layers:
//! 1. compile time: condition length, bracket nesting, AST node count, AST depth and
//!    comprehension nesting ([`MAX_CONDITION_CHARS`], [`MAX_BRACKET_NESTING`],
//!    [`MAX_AST_NODES`], [`MAX_AST_DEPTH`],
//!    [`MAX_COMPREHENSION_NESTING`]);
//! 2. context: every collection and string a caller sends is bounded
//!    ([`MAX_CONTEXT_COLLECTION`], [`MAX_CONTEXT_DEPTH`], [`MAX_CONTEXT_VALUES`],
//!    [`MAX_CONTEXT_STRING_BYTES`]);
//! 3. run time: a step budget per decision ([`DECISION_STEP_BUDGET`]), charged by every
//!    comprehension before it iterates (range size x loop-body nodes). Over budget is a
//!    run-time error, hence fail-closed (SPEC section 4 rule 5).

/// Most rules in one definition.
pub const MAX_RULES: usize = 64;
/// Longest condition, in characters.
pub const MAX_CONDITION_CHARS: usize = 2_048;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// Most AST nodes in one condition (after macro expansion).
pub const MAX_AST_NODES: usize = 1_024;
/// Deepest nesting of brackets `(`, `[`, `{` in a condition, checked before parsing.
pub const MAX_BRACKET_NESTING: usize = 12;
/// Stack of the thread that parses and checks one condition: the generated parser
/// recurses deeply (about 100 KiB per bracket level in debug builds).
pub const COMPILE_STACK_BYTES: usize = 32 * 1024 * 1024;
/// Deepest AST (after macro expansion): evaluation recurses once per level, and must
/// fit the stack of an async worker thread even in debug builds.
pub const MAX_AST_DEPTH: usize = 48;
/// Most comprehensions (`all`, `exists`, `map`, ...) nested inside one another.
pub const MAX_COMPREHENSION_NESTING: usize = 2;
/// Most steps in one decision: comprehension iterations x loop-body nodes, plus a step
/// per [`SCAN_BYTES_PER_STEP`] bytes scanned by `contains`, `startsWith`, `endsWith`,
/// `size` and `matches` (times the pattern's weight).
pub const DECISION_STEP_BUDGET: u64 = 100_000;
/// Bytes scanned per step by the string operations.
pub const SCAN_BYTES_PER_STEP: u64 = 64;
/// Most bytes of values one decision may produce (`+`, and so `map` and `filter`):
/// every produced value is charged its full size, so the live memory of a decision
/// stays below this plus the context.
pub const DECISION_BYTE_BUDGET: u64 = 4 << 20;
/// Largest compiled form (NFA) of one `matches()` pattern. Unicode classes are large
/// once compiled (`\w{2,10}` is about 1 MiB), so everyday patterns need this much;
/// `\w{256}` or `(a{100}){100}` still do not fit.
pub const MAX_PATTERN_COMPILED_BYTES: usize = 4 << 20;
/// Size steps a pattern is compiled at, smallest first: it is charged (in the cache and
/// against [`MAX_CONDITION_PATTERN_BYTES`]) the first step it fits in.
pub const PATTERN_SIZE_STEPS: [usize; 3] = [256 << 10, 1 << 20, MAX_PATTERN_COMPILED_BYTES];
/// Lazy-DFA cache of one compiled pattern (per thread using it); a match that outgrows
/// it falls back to the NFA, still linear in the input.
pub const PATTERN_DFA_CACHE_BYTES: usize = 256 << 10;
/// Most compile work the patterns of one condition may ask for, in compiled bytes
/// tried (a refused pattern is charged every step it was tried at): a bound on the
/// compile time one written or dry-run condition can cost.
pub const MAX_CONDITION_PATTERN_BYTES: usize = 16 << 20;
/// Most compiled pattern bytes the process keeps cached.
pub const MAX_CACHED_PATTERN_BYTES: usize = 256 << 20;
/// Most distinct compiled conditions kept per process (when full, one makes room).
pub const MAX_CACHED_CONDITIONS: usize = 4_096;
/// Most condition text one dry run (`/access/evaluate`) may ask to compile, in
/// characters: the work one request may ask for.
pub const MAX_DRY_RUN_CHARS: usize = 16_384;
/// Most distinct compiled patterns kept per process.
pub const MAX_CACHED_PATTERNS: usize = 1_024;
/// Most elements in one list or entries in one map of the request context.
pub const MAX_CONTEXT_COLLECTION: usize = 64;
/// Deepest nesting of lists and maps inside `customData`.
pub const MAX_CONTEXT_DEPTH: usize = 8;
/// Most values (scalars and collections) inside `customData`.
pub const MAX_CONTEXT_VALUES: usize = 1_024;
/// Longest string (or map key) in the request context, in bytes.
pub const MAX_CONTEXT_STRING_BYTES: usize = 4_096;

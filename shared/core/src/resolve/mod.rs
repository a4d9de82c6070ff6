//! Resolution (SPEC section 7): which configuration a caller gets for an agent, with
//! lifecycle (section 6), access rules (section 4) and rollout (section 5) applied to
//! the agent, its tools and, recursively, its collaborators. Pure: no I/O.
//!
//! Entry points: [`resolve`] over definitions already fetched ([`Definitions`], e.g. a
//! [`DefinitionMap`]) and compiled forms from a [`RuleCache`] (e.g. a [`BoundedCache`]);
//! or [`Snapshot::resolve`] for runtimes that embed resolution, refreshed through
//! [`LiveSnapshot`].
//!
//! Order per agent: lifecycle (`disabled`/`retired`: not available; `deprecated`: a
//! warning), access rules (deny: [`ResolveError::Denied`] for the agent asked for, left
//! out for a collaborator), rollout, `toolOverrides` (a missing or retired target is
//! skipped with a warning and the original tool kept), then per tool: missing, disabled,
//! retired or denied (rules evaluated with `request.toolId` set) tools are left out and
//! named in the trace. Collaborators: cycle-safe (an agent already on the path is
//! left out as `CYCLE`); inlined one level deep, as `InvokeInlineAgent` takes them, and
//! below that only through their `agentAliasArn` ([`MAX_COLLABORATOR_DEPTH`]).
//! Rules see `request.agentId` (the agent being checked) and `request.toolId` (the tool
//! being checked, absent for agents) set by resolution, whatever the caller sent.

mod bedrock;
mod cache;
mod compiled;
mod definitions;
mod encoded;
mod error;
mod gate;
mod resolution;
mod resolver;
mod snapshot;
mod trace;
mod warning;

pub use bedrock::{
    ActionGroup, ActionGroupExecutor, CollaboratorConfiguration, CustomControl, FunctionSchema,
    RelayConversationHistory, ResolvedKnowledgeBase, RetrievalConfiguration,
    VectorSearchConfiguration, agent_name, unique_name,
};
pub use cache::{BoundedCache, DEFAULT_CAPACITY};
pub use compiled::{CompileError, CompiledTool, RuleCache, ToolRules, compile_agent, compile_tool};
pub use definitions::{
    DefinitionMap, Definitions, collaborators_to_fetch, tool_names_to_fetch, tools_to_fetch,
};
pub use encoded::Encoded;
pub use error::ResolveError;
pub use gate::{ToolAccess, tool_access};
pub use resolution::{BedrockAgent, InlineAgent, InlineSessionState, Resolution};
pub use resolver::{MAX_COLLABORATOR_DEPTH, resolve, resolve_prepared};
pub use snapshot::{LiveSnapshot, Snapshot};
pub use trace::{
    AgentOutcome, AgentTrace, LeftOut, OverrideTrace, SkippedRelease, ToolOutcome, ToolTrace,
};
pub use warning::{Warning, WarningCode};

//! Command-line arguments.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use registry_config::names;

/// Registry of agent and tool definitions for AWS Bedrock, with enforced access rules.
#[derive(Debug, Parser)]
#[command(name = "agent-registry", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the registry HTTP API.
    Serve(ServeArgs),
    /// Answer agentgateway's ExtMCP calls (gRPC): decide `tools/call`, filter `tools/list`.
    ExtMcp(ExtMcpArgs),
    /// Manage agent definitions on a running registry.
    Agents {
        /// The operation.
        #[command(subcommand)]
        op: Operation,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
    /// Create API tokens for `serve` on the embedded store.
    Tokens {
        /// The operation.
        #[command(subcommand)]
        op: TokenOperation,
    },
    /// The secret vault of `serve` on the embedded store (`secrets.key`, `secrets.json`).
    Vault {
        /// The operation.
        #[command(subcommand)]
        op: VaultOperation,
    },
    /// Manage tool definitions on a running registry.
    Tools {
        /// The operation.
        #[command(subcommand)]
        op: Operation,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
    /// Import definitions from elsewhere into a running registry.
    Import {
        /// Where from.
        #[command(subcommand)]
        source: ImportSource,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
    /// Print the audit event stream of a running registry, oldest first.
    Events {
        /// The options.
        #[command(flatten)]
        args: EventArgs,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
    /// Review proposals (changes waiting for approval) on a running registry.
    Proposals {
        /// The operation.
        #[command(subcommand)]
        op: ProposalOperation,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
    /// The keys that sign principal tokens on a running registry (admin).
    Keys {
        /// The operation.
        #[command(subcommand)]
        op: KeyOperation,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
    },
}

/// Operations of `keys`.
#[derive(Debug, Subcommand)]
pub enum KeyOperation {
    /// List the keys, the signing one first, with when each one's last token expires.
    List,
    /// Make a new signing key; the old one keeps verifying until its tokens expire.
    Rotate,
    /// Remove a retired key: its tokens are refused from then on (not the signing key).
    Remove {
        /// The key id (`kid`).
        kid: String,
    },
}

/// Options of `events`.
#[derive(Debug, Args)]
pub struct EventArgs {
    /// Start after this cursor (printed by a previous run with `--output json`, or on
    /// stderr when following); default: from the first event.
    #[arg(long)]
    pub after: Option<String>,
    /// Only events of this kind (`agent` or `tool`).
    #[arg(long)]
    pub kind: Option<String>,
    /// Only events of this definition id.
    #[arg(long)]
    pub id: Option<String>,
    /// Only events by this principal.
    #[arg(long)]
    pub actor: Option<String>,
    /// Only events with this action (e.g. `patch`, `proposal.applied`).
    #[arg(long)]
    pub action: Option<String>,
    /// Keep polling for new events (until interrupted).
    #[arg(long)]
    pub follow: bool,
    /// Seconds between polls with `--follow`.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub interval: u64,
}

/// Proposal operations.
#[derive(Debug, Subcommand)]
pub enum ProposalOperation {
    /// List proposals, oldest first.
    List {
        /// Only proposals in this state (open, approved, applied, rejected, cancelled, stale).
        #[arg(long)]
        state: Option<String>,
        /// Only proposals for this kind (`agent` or `tool`).
        #[arg(long)]
        kind: Option<String>,
        /// Only proposals for this definition id.
        #[arg(long)]
        id: Option<String>,
    },
    /// Show a proposal with its diff from the base version.
    Show {
        /// Proposal id.
        id: String,
    },
    /// Approve a proposal (approver or admin; never its author).
    Approve {
        /// Proposal id.
        id: String,
    },
    /// Reject a proposal.
    Reject {
        /// Proposal id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
    /// Cancel your own proposal.
    Cancel {
        /// Proposal id.
        id: String,
    },
}

/// Sources `import` reads.
#[derive(Debug, Subcommand)]
pub enum ImportSource {
    /// A Bedrock agent, with its action groups, knowledge bases and collaborators
    /// (read by the registry server with its Bedrock client).
    Bedrock {
        /// The Bedrock agent id.
        #[arg(long)]
        agent_id: String,
        /// Write the definitions when all are valid (otherwise only print them).
        #[arg(long)]
        apply: bool,
    },
}

/// Storage backends for `serve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// SQLite file in the data directory.
    Embedded,
    /// An Amazon DynamoDB table (credentials from the usual AWS chain).
    Dynamodb,
}

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", env = names::LISTEN)]
    pub listen: SocketAddr,
    /// Where the registry's definitions and keys are.
    #[command(flatten)]
    pub store: StoreArgs,
    /// Do not load the example weather agent and tools on first run.
    #[arg(long)]
    pub no_example: bool,
    /// Where decision records go.
    #[command(flatten)]
    pub decisions: DecisionLogArgs,
    /// How long the principal token issued at resolution stays valid, in seconds.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(i64).range(60..=86_400))]
    pub context_ttl: i64,
    /// Also answer agentgateway's ExtMCP gRPC calls on this address, in this process
    /// (as `ext-mcp` does; docs/gateways.md).
    #[arg(long, env = names::EXT_MCP_LISTEN)]
    pub ext_mcp: Option<SocketAddr>,
    /// Lambda API endpoint for verify (and test-invoke unless the next option is
    /// given), e.g. a local AWS-API server (default: AWS's).
    #[arg(long, env = names::LAMBDA_ENDPOINT_URL)]
    pub lambda_endpoint_url: Option<String>,
    /// Lambda Invoke endpoint for test-invoke, e.g. `cargo lambda watch`'s
    /// http://127.0.0.1:9000.
    #[arg(long, env = names::LAMBDA_INVOKE_ENDPOINT_URL)]
    pub lambda_invoke_endpoint_url: Option<String>,
    /// Bedrock Agents API endpoint for publishing (AWS's own when unset).
    #[arg(long, env = names::BEDROCK_ENDPOINT_URL)]
    pub bedrock_endpoint_url: Option<String>,
    /// Limits against slow, idle and greedy clients.
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Require review: an editor's change to a governed field (rules, rollout,
    /// executor, schema, tools, collaborators, model, instruction) becomes a proposal
    /// that another principal with the approver or admin role must approve. Without
    /// it, only definitions tagged `review: required` are reviewed.
    #[arg(long, env = names::REQUIRE_REVIEW)]
    pub require_review: bool,
    /// Approvals, by distinct approvers, a proposal needs before it applies.
    #[arg(long, default_value_t = 1, env = names::REVIEW_APPROVALS,
        value_parser = clap::value_parser!(u32).range(1..=10))]
    pub review_approvals: u32,
    /// The reverse-DNS namespace of discovery's MCP server names (default
    /// `local.agent-registry`).
    #[arg(long, env = names::DISCOVERY_NAMESPACE)]
    pub discovery_namespace: Option<String>,
    /// Anonymous discovery: the principal a caller without credentials discovers as,
    /// `{"agentId": ..., "context": {...}}` (unset: anonymous discovery is off).
    #[arg(long, env = names::DISCOVERY_ANONYMOUS)]
    pub discovery_anonymous: Option<String>,
}

/// Options of `ext-mcp`.
#[derive(Debug, Args)]
pub struct ExtMcpArgs {
    /// Address the gRPC server listens on (HTTP/2 without TLS).
    #[arg(long, default_value = "127.0.0.1:9091", env = names::EXT_MCP_LISTEN)]
    pub listen: SocketAddr,
    /// Where the registry's definitions and keys are (those `serve` uses).
    #[command(flatten)]
    pub store: StoreArgs,
    /// Where decision records go.
    #[command(flatten)]
    pub decisions: DecisionLogArgs,
}

/// Where the registry's data is: `serve`'s and `ext-mcp`'s store options.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// Directory for the database and the token file (created on first run).
    #[arg(long, default_value = ".agent-registry", env = names::DATA_DIR)]
    pub data_dir: PathBuf,
    /// Storage backend.
    #[arg(long, value_enum, default_value = "embedded")]
    pub store: StoreKind,
    /// DynamoDB table name (with `--store dynamodb`).
    #[arg(long, env = names::TABLE)]
    pub table: Option<String>,
    /// DynamoDB endpoint URL, e.g. a local DynamoDB-API server.
    #[arg(long, env = names::DYNAMODB_ENDPOINT_URL)]
    pub endpoint_url: Option<String>,
    /// Create the DynamoDB table if it does not exist.
    #[arg(long)]
    pub create_table: bool,
}

/// The decision log's options.
#[derive(Debug, Clone, Args)]
pub struct DecisionLogArgs {
    /// Where decision records go: `stdout` (one JSON line each) or `off`.
    #[arg(long, value_enum, default_value = "stdout", env = names::DECISION_LOG)]
    pub decision_log: DecisionLogTarget,
    /// Keep argument values and context fields in decision records (off by default:
    /// they may be personal data).
    #[arg(long)]
    pub decision_log_values: bool,
}

/// Server limits of `serve` (defaults are `registry_api::ServerLimits::default()`).
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Seconds to receive a request head, from connection or end of the previous
    /// response: closes idle keep-alive and slow-header connections.
    #[arg(long, default_value_t = 10, env = names::HEADER_TIMEOUT,
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds for a whole request (body included); then a 503 TIMEOUT problem.
    #[arg(long, default_value_t = 30, env = names::REQUEST_TIMEOUT,
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout: u64,
    /// Seconds a response may go unread (no write progress) before the connection is closed.
    #[arg(long, default_value_t = 30, env = names::WRITE_TIMEOUT,
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout: u64,
    /// Open connections at most; at the cap the server stops accepting. Lowered to
    /// fit the open-file limit.
    #[arg(long, default_value_t = 4096, env = names::MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Requests handled at once at most; beyond, a 503 OVERLOADED problem with Retry-After.
    #[arg(long, default_value_t = 256, env = names::MAX_IN_FLIGHT,
        value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_in_flight: u64,
    /// Longest request target (path and query) in bytes; beyond, a 414 problem.
    #[arg(long, default_value_t = 8192, env = names::MAX_URI_BYTES,
        value_parser = clap::value_parser!(u64).range(256..=65_000))]
    pub max_uri_bytes: u64,
    /// Largest request headers in bytes; beyond, a 431 problem.
    #[arg(long, default_value_t = 32768, env = names::MAX_HEADER_BYTES,
        value_parser = clap::value_parser!(u64).range(1024..=1_048_576))]
    pub max_header_bytes: u64,
}

impl LimitArgs {
    /// The server limits these options describe.
    pub fn to_limits(&self) -> registry_api::ServerLimits {
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        registry_api::ServerLimits {
            header_timeout: std::time::Duration::from_secs(self.header_timeout),
            request_timeout: std::time::Duration::from_secs(self.request_timeout),
            write_timeout: std::time::Duration::from_secs(self.write_timeout),
            max_connections: size(self.max_connections),
            max_in_flight: size(self.max_in_flight),
            max_uri_bytes: size(self.max_uri_bytes),
            max_header_bytes: size(self.max_header_bytes),
        }
    }
}

/// Where the registry runs and how to authenticate.
#[derive(Debug, Args)]
pub struct Remote {
    /// Registry base URL.
    #[arg(
        long,
        global = true,
        default_value = "http://127.0.0.1:8080",
        env = names::URL
    )]
    pub url: String,
    /// Bearer token.
    #[arg(long, global = true, env = names::TOKEN, hide_env_values = true)]
    pub token: Option<String>,
    /// Output format.
    #[arg(long, short, global = true, value_enum, default_value = "table")]
    pub output: OutputFormat,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable tables.
    Table,
    /// JSON, for scripts.
    Json,
}

/// Admin operations on agents or tools.
#[derive(Debug, Subcommand)]
pub enum Operation {
    /// List definitions.
    List {
        /// Only definitions with this tag (`key` or `key=value`).
        #[arg(long)]
        tag: Option<String>,
        /// Only definitions in this lifecycle status.
        #[arg(long)]
        status: Option<String>,
        /// Fetch every page, not just the first.
        #[arg(long)]
        all: bool,
        /// Page size (1..100).
        #[arg(long, default_value_t = 25)]
        limit: u32,
    },
    /// Show one definition.
    Get {
        /// Agent or tool id.
        id: String,
    },
    /// Create or replace definitions from a JSON or YAML file (one object or a list).
    Apply {
        /// File to apply; `-` reads standard input.
        #[arg(short, long)]
        file: PathBuf,
    },
    /// Delete a definition (at its current version unless `--version` is given).
    Delete {
        /// Agent or tool id.
        id: String,
        /// Expected version; fails with 412 if the definition changed since.
        #[arg(long)]
        version: Option<u64>,
    },
    /// Tools only: check the tool's Lambda exists, is active and may be invoked by
    /// Bedrock (findings with the command that fixes each).
    Verify {
        /// Tool id.
        id: String,
        /// A tag key the function must carry (repeatable).
        #[arg(long = "require-tag")]
        require_tags: Vec<String>,
    },
    /// Tools only: invoke the tool's Lambda with the event Bedrock would send, as a
    /// principal: the registry puts a fresh principal token for --context, --agent and
    /// --session (by default the test principal `registry-test-invoke`, an agent that
    /// grants nothing: a guarded tool refuses it, `NOT_GRANTED`) in the event's session
    /// attributes, so the tool's guard decides the call as in a real session.
    Invoke {
        /// Tool id.
        id: String,
        /// Function of the tool's schema.
        #[arg(long)]
        function: String,
        /// Arguments as a JSON object, e.g. '{"value": 5, "from": "km", "to": "mi"}'.
        #[arg(long, default_value = "{}")]
        args: String,
        /// Session attributes as a JSON object of strings.
        #[arg(long)]
        session_attributes: Option<String>,
        /// The caller's request context as JSON, as for resolve.
        #[arg(long)]
        context: Option<String>,
        /// The agent making the call.
        #[arg(long)]
        agent: Option<String>,
        /// The Bedrock session of the call (with --agent): calls count against the
        /// agent's session budgets.
        #[arg(long, requires = "agent")]
        session: Option<String>,
    },
    /// Tools only: the tools most relevant to some words (BM25), with the function that
    /// matched and why; only what the token may see (a principal token: what resolve
    /// grants it).
    Search {
        /// The words.
        query: String,
        /// Most results (1..100).
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// Tools only: a short-lived access token for the tool's MCP server (role
    /// `runtime` only), for a caller the tool is granted to through `--agent`.
    Token {
        /// Tool id.
        id: String,
        /// The agent the runtime runs (resolved for the context).
        #[arg(long)]
        agent: String,
        /// The caller's request context as JSON, as for resolve.
        #[arg(long, default_value = "{}")]
        context: String,
        /// OAuth scope to ask for.
        #[arg(long)]
        scope: Option<String>,
    },
    /// Agents only: publish the agent to Bedrock Agents as the resolution for one
    /// audience (plan, then apply; `--dry-run` prints the plan only).
    Publish {
        /// Agent id.
        id: String,
        /// The audience: a request context as JSON; defaults to the current publication's.
        #[arg(long)]
        context: Option<String>,
        /// The Bedrock service role ARN (needed when the Bedrock agent is created).
        #[arg(long)]
        role_arn: Option<String>,
        /// Print the calls a publish would make, make none.
        #[arg(long)]
        dry_run: bool,
    },
    /// Agents only: resolve for a caller (the InvokeInlineAgent request, what was left
    /// out, and with `--explain` every decision).
    Resolve {
        /// The agent id.
        id: String,
        /// The request context as JSON, e.g. '{"user":{"userType":"internal-user"}}'.
        #[arg(long, default_value = "{}")]
        context: String,
        /// Add the full decision trace.
        #[arg(long)]
        explain: bool,
    },
    /// Tools only: decide one call for a caller (lifecycle, access rules, call rules).
    Authorize {
        /// The tool id.
        id: String,
        /// The function called.
        #[arg(long)]
        function: String,
        /// The arguments as a JSON object, e.g. '{"amount": 50, "currency": "USD"}'.
        #[arg(long, default_value = "{}")]
        args: String,
        /// The request context as JSON.
        #[arg(long, default_value = "{}")]
        context: String,
        /// The agent making the call.
        #[arg(long)]
        agent: Option<String>,
        /// The Bedrock session the call belongs to (with --agent): an allowed call counts
        /// against the agent's session budgets.
        #[arg(long, requires = "agent")]
        session: Option<String>,
        /// Add every rule's result.
        #[arg(long)]
        explain: bool,
    },
    /// Agents only: whether Bedrock still holds what publishing now would make.
    Publication {
        /// Agent id.
        id: String,
    },
    /// Agents only: delete the agent's Bedrock agent and clear its publication.
    Unpublish {
        /// Agent id.
        id: String,
    },
}

/// Roles a token can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// Read definitions and resolve agents.
    Reader,
    /// Also obtain tools' access tokens (chat runtimes; no other role does).
    Runtime,
    /// Read, and approve or reject others' proposals (reviewed changes).
    Approver,
    /// Read, and create and change definitions.
    Editor,
    /// Also delete and retire definitions.
    Admin,
}

/// Token operations.
#[derive(Debug, Subcommand)]
pub enum TokenOperation {
    /// Create a token for a principal and print it once (only its hash is stored).
    Add {
        /// Principal name recorded as `createdBy`/`lastModifiedBy`.
        name: String,
        /// What the token may do.
        #[arg(long, value_enum, default_value = "reader")]
        role: RoleArg,
        /// Data directory of the registry (where `auth.json` lives).
        #[arg(long, default_value = ".agent-registry", env = names::DATA_DIR)]
        data_dir: PathBuf,
    },
}

/// Operations on the secret vault.
#[derive(Debug, Subcommand)]
pub enum VaultOperation {
    /// Encrypt every kept secret under a new key and drop the old key (refused while a
    /// `serve` uses the data directory: stop it first; it reads the keys at start).
    RotateKey {
        /// Data directory of the registry (where `secrets.key` lives).
        #[arg(long, default_value = ".agent-registry", env = names::DATA_DIR)]
        data_dir: PathBuf,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serve_defaults_are_the_server_defaults() {
        let cli =
            Cli::try_parse_from(["agent-registry", "serve"]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Serve(args) = cli.command else { panic!("not serve") };
        assert_eq!(args.limits.to_limits(), registry_api::ServerLimits::default());
    }

    #[test]
    fn limits_are_configurable_and_checked() {
        let cli = Cli::try_parse_from([
            "agent-registry",
            "serve",
            "--header-timeout",
            "2",
            "--max-in-flight",
            "1",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let Command::Serve(args) = cli.command else { panic!("not serve") };
        let limits = args.limits.to_limits();
        assert_eq!(limits.header_timeout, std::time::Duration::from_secs(2));
        assert_eq!(limits.max_in_flight, 1);
        assert!(
            Cli::try_parse_from(["agent-registry", "serve", "--max-connections", "0"]).is_err()
        );
    }
}

/// Where `serve` writes decision records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecisionLogTarget {
    /// One JSON line per decision on standard output.
    Stdout,
    /// No decision log.
    Off,
}

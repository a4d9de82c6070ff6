//! Command-line arguments.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    /// Manage tool definitions on a running registry.
    Tools {
        /// The operation.
        #[command(subcommand)]
        op: Operation,
        /// Connection options.
        #[command(flatten)]
        remote: Remote,
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
    #[arg(long, default_value = "127.0.0.1:8080", env = "AGENT_REGISTRY_LISTEN")]
    pub listen: SocketAddr,
    /// Directory for the database and the token file (created on first run).
    #[arg(long, default_value = ".agent-registry", env = "AGENT_REGISTRY_DATA_DIR")]
    pub data_dir: PathBuf,
    /// Do not load the example weather agent and tools on first run.
    #[arg(long)]
    pub no_example: bool,
    /// Storage backend.
    #[arg(long, value_enum, default_value = "embedded")]
    pub store: StoreKind,
    /// DynamoDB table name (with `--store dynamodb`).
    #[arg(long, env = "AGENT_REGISTRY_TABLE")]
    pub table: Option<String>,
    /// DynamoDB endpoint URL, e.g. a local DynamoDB-API server.
    #[arg(long, env = "AGENT_REGISTRY_DYNAMODB_ENDPOINT")]
    pub endpoint_url: Option<String>,
    /// Create the DynamoDB table if it does not exist.
    #[arg(long)]
    pub create_table: bool,
}

/// Where the registry runs and how to authenticate.
#[derive(Debug, Args)]
pub struct Remote {
    /// Registry base URL.
    #[arg(
        long,
        global = true,
        default_value = "http://127.0.0.1:8080",
        env = "AGENT_REGISTRY_URL"
    )]
    pub url: String,
    /// Bearer token.
    #[arg(long, global = true, env = "AGENT_REGISTRY_TOKEN", hide_env_values = true)]
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
}

/// Roles a token can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// Read definitions and resolve agents.
    Reader,
    /// Also create and change definitions.
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
        #[arg(long, default_value = ".agent-registry", env = "AGENT_REGISTRY_DATA_DIR")]
        data_dir: PathBuf,
    },
}

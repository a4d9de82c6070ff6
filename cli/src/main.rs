#![doc = include_str!("../README.md")]

mod admin;
mod args;
mod client;
#[cfg(feature = "dynamodb")]
mod dynamodb;
mod events;
mod example;
mod ext_mcp;
mod keys;
mod nofile;
mod output;
mod proposals;
mod serve;
mod shutdown;
mod tokens;
mod vault;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_level =
        if matches!(cli.command, Command::Serve(_) | Command::ExtMcp(_)) { "info" } else { "warn" };
    registry_api::telemetry::init_terminal_logging(default_level);
    let result = match cli.command {
        Command::Serve(args) => serve::run(args).await,
        Command::ExtMcp(args) => ext_mcp::run(args).await,
        Command::Agents { op, remote } => admin::run(admin::Collection::Agents, op, remote).await,
        Command::Tools { op, remote } => admin::run(admin::Collection::Tools, op, remote).await,
        Command::Tokens { op } => tokens::run(op),
        Command::Vault { op } => vault::run(op),
        Command::Import { source, remote } => admin::import(source, remote).await,
        Command::Events { args, remote } => events::run(args, remote).await,
        Command::Proposals { op, remote } => proposals::run(op, remote).await,
        Command::Keys { op, remote } => keys::run(op, remote).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

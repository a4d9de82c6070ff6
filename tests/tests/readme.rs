//! The README's shell sessions, run as written: every ```sh block of README.md that is
//! not marked `<!-- readme-test: skip (why) -->` on the line before it, in order, in one
//! `bash` in a scratch directory, against the build's binaries (`REGISTRY_E2E_BINARIES`).
//!
//! What the runner provides, and nothing else:
//! - a `serve` for the blocks before the one that starts its own (the reader has one
//!   running from the quick start), stopped before that block; `REGISTRY_TOKEN` (the
//!   admin token, `REGISTRY_ADMIN_TOKEN`, as the reader exported what serve printed);
//! - free ports for the README's `8080` and `9000` (`REGISTRY_URL` and `REGISTRY_LISTEN`
//!   name the first, the CLI's and serve's defaults), so the test never meets a server
//!   of someone else;
//! - the build's binaries instead of building: `agent-registry` on `PATH`, `cargo run -p
//!   agent-registry --` as it, and `CARGO_LAMBDA` (which `scripts/cargo-lambda.sh`
//!   prints when set) as a stand-in for `cargo lambda watch -p example-tool -P PORT`:
//!   the real cargo-lambda's Lambda APIs (`$CARGO_LAMBDA`, scripts/test.sh) with the
//!   built example tool attached, its environment as the README gives it.
//!
//! Checked: every command succeeds, but one followed by expected output; each expected
//! output line (`#   text` under a command, `...` matching anything) appears in the
//! block's output, in order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use registry_e2e::binaries::binary;

/// What marks a block the test skips (the reason follows it).
const SKIP: &str = "<!-- readme-test: skip";
/// The admin token of the session.
const TOKEN: &str = "readme-session-admin-token-0123456789";
/// The longest the whole session may take (a hang guard, not a timing assertion).
const SESSION_GUARD: Duration = Duration::from_secs(300);

/// One ```sh block of the README: the line it starts on and its text.
struct Block {
    line: usize,
    text: String,
}

/// The README's ```sh blocks the test runs.
fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let start = i;
        let end = (start + 1..lines.len()).find(|&j| lines[j].trim_end() == "```").unwrap();
        let skipped = start > 0 && lines[start - 1].starts_with(SKIP);
        if !skipped {
            let text = lines[start + 1..end].join("\n");
            blocks.push(Block { line: start + 2, text });
        }
        i = end + 1;
    }
    blocks
}

/// The expected output lines of `text` (`#   ...` lines), and the lines (0-based) of
/// the commands they follow, which may fail.
fn expectations(text: &str) -> (Vec<String>, BTreeSet<usize>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut expected = Vec::new();
    let mut may_fail = BTreeSet::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(want) = line.strip_prefix("#   ") else { continue };
        expected.push(want.to_owned());
        // the command above, with its continuation lines
        let mut j = n;
        while j > 0 && lines[j - 1].starts_with("#   ") {
            j -= 1;
        }
        while j > 0 {
            j -= 1;
            may_fail.insert(j);
            if j == 0 || !lines[j - 1].ends_with('\\') {
                break;
            }
        }
    }
    (expected, may_fail)
}

/// Whether `line` matches `want`, where `...` matches any text.
fn matches(line: &str, want: &str) -> bool {
    let mut rest = line;
    for part in want.split("...").filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The stand-in for `cargo lambda watch -p example-tool -P PORT`.
const WATCH: &str = r#"#!/usr/bin/env bash
# `cargo lambda watch -p example-tool -P PORT` without a build: the real cargo-lambda's
# Lambda APIs on PORT, and the built example tool attached to them.
set -euo pipefail
[ "${1:-} ${2:-}" = "lambda watch" ] || { echo "readme runner: only lambda watch: $*" >&2; exit 2; }
case " $* " in *" -p example-tool "*) ;; *) echo "readme runner: only -p example-tool: $*" >&2; exit 2 ;; esac
port=9000
while [ $# -gt 0 ]; do case "$1" in -P) port="$2"; shift 2 ;; *) shift ;; esac; done
(cd "$README_REPO/functions/example-tool" &&
  exec "$README_CARGO_LAMBDA" lambda watch --only-lambda-apis -A 127.0.0.1 -P "$port") &
# listening once curl connects (exit 7: no connection; the API holds a GET open)
for _ in $(seq 1 300); do
  rc=0; curl -s -m 1 -o /dev/null "http://127.0.0.1:$port" || rc=$?
  [ "$rc" -ne 7 ] && break; sleep 0.1
done
AWS_LAMBDA_RUNTIME_API="http://127.0.0.1:$port/.rt/example-tool" AWS_LAMBDA_FUNCTION_NAME=example-tool \
  AWS_LAMBDA_FUNCTION_VERSION=1 AWS_LAMBDA_FUNCTION_MEMORY_SIZE=128 exec "$README_BINARIES/example-tool"
"#;

/// What runs before the first block: `cargo run -p agent-registry --` as the built
/// binary, failing commands reported with their line, a `serve` for the first blocks.
const PRELUDE: &str = r#"cargo() {
  if [ "${1:-} ${2:-} ${3:-} ${4:-}" = "run -p agent-registry --" ]; then shift 4; agent-registry "$@"
  else echo "readme runner: cargo $* is not run here" >&2; return 1; fi
}
trap 'echo "@@FAILED $LINENO $BASH_COMMAND"' ERR
agent-registry serve >runner-serve.log 2>&1 &
RUNNER_SERVE=$!
for _ in $(seq 1 300); do curl -sf "$REGISTRY_URL/healthz" >/dev/null && break; sleep 0.1; done
"#;

#[test]
#[ignore = "needs cargo-lambda (scripts/test.sh sets CARGO_LAMBDA), moto's venv, curl and jq"]
fn the_readme_sessions_run_as_written() {
    let repo = repo();
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 5, "{} blocks to run", blocks.len());
    let (api, invoke) = (free_port(), free_port());
    let ports = |text: &str| {
        text.replace("127.0.0.1:8080", &format!("127.0.0.1:{api}"))
            .replace("127.0.0.1:9000", &format!("127.0.0.1:{invoke}"))
            .replace("-P 9000", &format!("-P {invoke}"))
    };

    // the scratch directory: the README's relative paths, nothing written to the checkout
    let dir = tempfile::tempdir().unwrap();
    for link in ["scripts", ".venv-moto", ".venv-tools", "cli"] {
        std::os::unix::fs::symlink(repo.join(link), dir.path().join(link)).unwrap();
    }
    let watch = dir.path().join("cargo-lambda-watch");
    std::fs::write(&watch, WATCH).unwrap();
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&watch, executable).unwrap();

    let mut script = String::from(PRELUDE);
    let mut starts = Vec::new();
    for (n, block) in blocks.iter().enumerate() {
        if block.text.contains("agent-registry -- serve") {
            script.push_str("kill \"$RUNNER_SERVE\"; wait \"$RUNNER_SERVE\" || true\n");
        }
        script.push_str(&format!("echo '@@BLOCK {n}'\n"));
        starts.push(script.lines().count() + 1);
        script.push_str(&ports(&block.text));
        script.push('\n');
    }
    script.push_str("echo '@@END'\n");
    std::fs::write(dir.path().join("session.sh"), &script).unwrap();

    let binaries = binary("agent-registry").parent().unwrap().to_path_buf();
    let path = format!("{}:{}", binaries.display(), std::env::var("PATH").unwrap_or_default());
    let cargo_lambda = std::env::var("CARGO_LAMBDA").unwrap_or_else(|_| "cargo-lambda".into());
    let out = dir.path().join("session.out");
    // one file description for both streams: their lines interleave, none overwritten
    let log = std::fs::File::create(&out).unwrap();
    let mut bash = Command::new("bash");
    bash.arg("session.sh")
        .current_dir(dir.path())
        .env("PATH", path)
        .env("REGISTRY_TOKEN", TOKEN)
        .env("REGISTRY_ADMIN_TOKEN", TOKEN)
        .env("REGISTRY_URL", format!("http://127.0.0.1:{api}"))
        .env("REGISTRY_LISTEN", format!("127.0.0.1:{api}"))
        .env("CARGO_LAMBDA", &watch)
        .env("README_CARGO_LAMBDA", cargo_lambda)
        .env("README_REPO", &repo)
        .env("README_BINARIES", &binaries)
        .env_remove("DYNAMODB_ENDPOINT")
        .env_remove("STATE_DIR")
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
    std::os::unix::process::CommandExt::process_group(&mut bash, 0);
    let mut child = bash.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > SESSION_GUARD {
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // the session's servers (serve, the Lambda APIs, the tool), then its moto
    let group = format!("-{}", child.id());
    let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
    let _ = child.wait();
    let _ = Command::new("bash")
        .args(["scripts/dynamodb-local.sh", "stop"])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .status();
    let output = std::fs::read_to_string(&out).unwrap_or_default();
    let logs = format!(
        "{output}\n--- runner serve log:\n{}",
        std::fs::read_to_string(dir.path().join("runner-serve.log")).unwrap_or_default()
    );
    assert!(status.is_some(), "the session did not end within {SESSION_GUARD:?}:\n{logs}");
    assert!(output.contains("@@END"), "the session stopped early:\n{logs}");
    // the tool's calls were decided by its guard, asking serve (remote mode)
    let guarded = "call guard: on for tool `convert_units@1.0.0`, asking the registry";
    assert!(output.contains(guarded), "the example tool did not run guarded:\n{logs}");

    let mut problems = Vec::new();
    let sections: Vec<&str> = output.split("@@BLOCK ").skip(1).collect();
    assert_eq!(sections.len(), blocks.len(), "every block ran:\n{logs}");
    for (n, (block, section)) in blocks.iter().zip(&sections).enumerate() {
        let (expected, may_fail) = expectations(&block.text);
        for line in section.lines().filter(|l| l.starts_with("@@FAILED ")) {
            let at: usize = line.split(' ').nth(1).and_then(|l| l.parse().ok()).unwrap_or(0);
            let in_block = at.checked_sub(starts[n]);
            if !in_block.is_some_and(|l| may_fail.contains(&l)) {
                let readme_line = in_block.map_or(0, |l| block.line + l);
                problems.push(format!("README.md:{readme_line}: a command failed: {line}"));
            }
        }
        let lines: Vec<&str> = section.lines().collect();
        let mut at = 0;
        for want in &expected {
            match lines[at..].iter().position(|line| matches(line, want)) {
                Some(found) => at += found + 1,
                // a miss reports this line only: the next ones are looked for from here
                None => problems.push(format!(
                    "README.md block at line {}: no output line (in order) matches `{want}`",
                    block.line
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}\n\n{logs}", problems.join("\n"));
}

#[test]
fn the_runner_reads_blocks_and_expectations_as_documented() {
    let readme = "a\n```sh\necho 1\n```\n<!-- readme-test: skip (aws) -->\n```sh\naws x\n```\n```sh\nx \\\n  --y\n#   out ...here\n#   two\nz\n```\n";
    let blocks = blocks(readme);
    assert_eq!(
        blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>(),
        ["echo 1", "x \\\n  --y\n#   out ...here\n#   two\nz"]
    );
    let (expected, may_fail) = expectations(&blocks[1].text);
    assert_eq!(expected, ["out ...here", "two"]);
    assert_eq!(may_fail, BTreeSet::from([0, 1]), "the command over both lines, not `z`");
    assert!(matches("responseState null, body out and here", "out ...here"));
    assert!(!matches("here then out", "out ...here"));
}

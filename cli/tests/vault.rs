#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `agent-registry vault rotate-key` beside a running `serve` on the same data
//! directory is refused, and changes nothing; once the server is stopped it rotates.

mod common;

use std::process::Command;

use common::BIN;
#[cfg(unix)]
use common::serve;
#[cfg(unix)]
use registry_store::contract::sample::mcp_tool_json;

fn rotate_key(data: &std::path::Path) -> (bool, String, String) {
    let out =
        Command::new(BIN).args(["vault", "rotate-key", "--data-dir"]).arg(data).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn rotate_key_is_refused_while_serve_runs_and_works_once_it_stopped() {
    let mut s = serve(Some("e2e-admin-token-0123456789"), &["--no-example"]);
    s.healthy().await;
    let tool = mcp_tool_json("m1", "vault-lock-secret-9c1e");
    let (status, body) =
        s.call(reqwest::Method::POST, "/tools", Some(&s.token.clone()), Some(tool)).await;
    assert_eq!(status, 201, "{body}");
    let files = |data: &std::path::Path| {
        ["secrets.key", "secrets.json"].map(|f| std::fs::read(data.join(f)).unwrap())
    };
    let before = files(&s.data);

    let (ok, out, err) = rotate_key(&s.data);
    assert!(!ok, "rotated beside a running serve: {out}{err}");
    assert!(err.contains("in use") && err.contains("serve"), "{err}");
    assert_eq!(files(&s.data), before, "the refused rotation changed the vault");
    // The server still reads its secret (the tool's secret is still served).
    let (status, body) =
        s.call(reqwest::Method::GET, "/tools/m1", Some(&s.token.clone()), None).await;
    assert_eq!(status, 200, "{body}");

    // Stopped, the directory is free: the rotation runs.
    let pid = s.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(s.child.wait().unwrap().success());
    let (ok, out, err) = rotate_key(&s.data);
    assert!(ok, "{out}{err}");
    assert_ne!(files(&s.data)[0], before[0], "a new key");
}

//! The function binaries under test: from `REGISTRY_E2E_BINARIES` when it is set,
//! else built by cargo on first use.
//!
//! `scripts/test.sh` builds every test and binary of the workspace in one build before
//! it runs the tests, and names that build's binary directory in
//! `REGISTRY_E2E_BINARIES`: a build here would select other packages and features, and
//! cargo would compile much of the workspace again for it. Without the variable (`cargo
//! test -p registry-e2e`, whose build has no function binaries, since
//! `CARGO_BIN_EXE_*` only names binaries of the same package), the first test to need
//! one runs `cargo build --bins -p custom-resource -p admin-api -p example-tool -p
//! event-forwarder -p gateway-interceptor -p agent-registry` (the
//! same profile and target directory as this test executable; a no-op when they are
//! fresh). Cargo releases its build lock before it runs tests, so this nested build
//! does not wait on the outer `cargo test`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// Packages whose binaries the tests run (binary name = package name).
pub const PACKAGES: [&str; 6] = [
    "custom-resource",
    "admin-api",
    "example-tool",
    "event-forwarder",
    "gateway-interceptor",
    "agent-registry",
];

/// The directory of the test profile's binaries (`<target>/debug`), from this test
/// executable's path (`<target>/debug/deps/<test>`).
fn profile_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    exe.parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .ok_or_else(|| format!("unexpected test executable path {}", exe.display()))
}

fn build() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("REGISTRY_E2E_BINARIES") {
        return Ok(PathBuf::from(dir));
    }
    let dir = profile_dir()?;
    let target = dir.parent().ok_or("no target directory")?;
    let profile = dir.file_name().and_then(|n| n.to_str()).ok_or("no profile directory")?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["build", "--locked", "--bins", "--target-dir"])
        .arg(target);
    if profile == "release" {
        cmd.arg("--release");
    }
    for p in PACKAGES {
        cmd.args(["-p", p]);
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo build failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(dir)
}

/// The path of the binary `name` (one of [`PACKAGES`]), built if needed.
pub fn binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BUILT.get_or_init(build) {
        Ok(dir) => dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)),
        Err(why) => panic!("cannot build the function binaries: {why}"),
    }
}

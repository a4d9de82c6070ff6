#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Test-invoke end to end: this crate's binary runs under the Lambda Runtime API that
//! `cargo lambda watch --only-lambda-apis` serves, with the Invoke API on the same
//! loopback port; the registry sends it the event Bedrock would send and reads the
//! answer strictly. The binary is the one `cargo test` already built: nothing compiles
//! here, and every wait is bounded so a broken emulator fails the test instead of
//! hanging it.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use registry_aws::{Aws, AwsError, Endpoints, InvokeReport, TestInvoke};
use registry_core::ToolDefinition;
use serde_json::json;

/// The longest a single invocation may take before the test gives up (a hang guard,
/// not a timing assertion).
const INVOKE_GUARD: Duration = Duration::from_secs(60);

/// The example tool's definition, as the built-in example registers it.
fn tool() -> ToolDefinition {
    serde_json::from_str(include_str!("../../../cli/example/convert-units.json")).unwrap()
}

/// `cargo-lambda`: `$CARGO_LAMBDA` (set by scripts/test.sh), `.venv-tools`, or `PATH`.
fn cargo_lambda() -> PathBuf {
    if let Ok(path) = std::env::var("CARGO_LAMBDA") {
        return PathBuf::from(path);
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv-tools/bin/cargo-lambda");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("cargo-lambda")
}

/// A process killed (with its process group) on drop.
struct Process(Child);

impl Process {
    fn spawn(mut command: Command, what: &str) -> Self {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().unwrap_or_else(|e| {
            panic!("cannot start {what} ({e}); scripts/test.sh installs cargo-lambda (scripts/cargo-lambda.sh)")
        });
        Self(child)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// The Lambda emulator plus the example tool attached to it as function `example-tool`.
struct Emulator {
    port: u16,
    // Fields drop in order: the function stops before the API it polls.
    _function: Process,
    _watch: Process,
}

impl Emulator {
    fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut watch = Command::new(cargo_lambda());
        watch
            .args(["lambda", "watch", "--only-lambda-apis", "-A", "127.0.0.1", "-P"])
            .arg(port.to_string())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let watch = Process::spawn(watch, "cargo lambda watch");
        let listening = (0..300).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        assert!(listening, "cargo lambda watch did not listen on {port} within 30 s");

        // The runtime API of one named function lives under `/.rt/<name>`.
        let mut function = Command::new(env!("CARGO_BIN_EXE_example-tool"));
        function
            .env("AWS_LAMBDA_RUNTIME_API", format!("http://127.0.0.1:{port}/.rt/example-tool"))
            .env("AWS_LAMBDA_FUNCTION_NAME", "example-tool")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
            // this test is about the handler and the event shapes (tests/tests/guard.rs
            // and the README's test, tests/tests/readme.rs, run it guarded)
            .env("REGISTRY_GUARD", "off")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let function = Process::spawn(function, "the example tool");
        Self { port, _function: function, _watch: watch }
    }
}

/// Test-invokes with a bound on how long the emulator may take to answer.
async fn invoke(aws: &Aws, call: &TestInvoke) -> Result<InvokeReport, AwsError> {
    let tool = tool();
    tokio::time::timeout(INVOKE_GUARD, aws.test_invoke(&tool, call))
        .await
        .unwrap_or_else(|_| panic!("no answer from the Lambda emulator within {INVOKE_GUARD:?}"))
}

fn call(function: &str, arguments: serde_json::Value) -> TestInvoke {
    serde_json::from_value(json!({"function": function, "arguments": arguments, "sessionAttributes": {"tenant": "t-1"}}))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_example_tool_answers_good_and_bad_calls_as_bedrock_would_see_them() {
    let emulator = Emulator::start();
    let aws = Aws::new(Endpoints {
        lambda_invoke: Some(format!("http://127.0.0.1:{}", emulator.port)),
        ..Endpoints::default()
    });

    let good = invoke(&aws, &call("convert", json!({"value": 5, "from": "km", "to": "mi"}))).await;
    let good = good.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(good.response_state, None, "{good:?}");
    assert!(good.body.contains("3.10"), "5 km is 3.1069 mi: {}", good.body);
    assert_eq!(good.event["actionGroup"], "convert_units");
    let parameters = good.event["parameters"].as_array().unwrap();
    assert_eq!(parameters.len(), 3, "{parameters:?}");
    assert!(
        parameters.contains(&json!({"name": "value", "type": "number", "value": "5"})),
        "numbers travel as Bedrock writes them: {parameters:?}"
    );
    assert_eq!(good.raw["sessionAttributes"]["tenant"], "t-1", "session attributes come back");

    let bad =
        invoke(&aws, &call("convert", json!({"value": 5, "from": "parsec", "to": "mi"}))).await;
    let bad = bad.unwrap();
    assert_eq!(bad.response_state.as_deref(), Some("REPROMPT"), "{bad:?}");
    assert!(bad.body.contains("from"), "the bad parameter is named: {}", bad.body);

    // What Bedrock would never send is refused before invoking.
    let err = invoke(&aws, &call("convert", json!({"speed": 1}))).await.unwrap_err();
    let AwsError::Invalid(violations) = err else { panic!("{err}") };
    assert_eq!(violations[0].path, "/arguments/speed");
    let err = invoke(&aws, &call("teleport", json!({}))).await.unwrap_err();
    let AwsError::Invalid(violations) = err else { panic!("{err}") };
    assert_eq!(violations[0].path, "/function");
}

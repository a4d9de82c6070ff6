//! Shared setup: a real server (real router, real SQLite file in a tempdir) on
//! 127.0.0.1:0, with admin, editor and reader tokens, and a reqwest client.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod spy;

use std::sync::Arc;

use registry_api::{AppState, Registry, Role, ServerLimits, TokenFile, router, serve_with};
use registry_store::Store;
#[allow(unused_imports)] // each test binary uses some
pub use registry_store::contract::sample::{agent_json, mcp_tool_json, tool_json};
use registry_store_sqlite::SqliteStore;
use reqwest::{Method, RequestBuilder, StatusCode, header::HeaderMap};
use serde_json::{Value, json};

/// A running server and tokens for each role.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Admin token.
    pub admin: String,
    /// Editor token.
    pub editor: String,
    /// Reader token.
    pub reader: String,
    /// Runtime token (reader plus tools' access tokens).
    pub runtime: String,
    /// Approver token (`ann-approver`).
    pub approver: String,
    /// An approver token carrying the editor's name (`eve-editor`): the same person.
    pub editor_as_approver: String,
    /// HTTP client.
    pub client: reqwest::Client,
    /// The registry behind the server (for direct calls).
    pub registry: Registry,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    /// The data directory: store (SQLite), tokens, the secret vault.
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// A response: status, headers, JSON body (`Null` when empty or not JSON).
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    /// The `ETag` header.
    pub fn etag(&self) -> String {
        self.headers.get("etag").expect("etag header").to_str().unwrap().to_owned()
    }

    /// The `content-type` header.
    pub fn content_type(&self) -> String {
        self.headers.get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
    }

    /// Asserts a problem+json response with the status and code.
    pub fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.text);
        assert_eq!(self.content_type(), "application/problem+json", "{}", self.text);
        assert_eq!(self.body["status"], status, "{}", self.text);
        assert_eq!(self.body["code"], code, "{}", self.text);
        assert!(self.body["type"].is_string() && self.body["title"].is_string());
        assert!(self.body["detail"].is_string() && self.body["errors"].is_array());
    }

    /// Paths of the problem's `errors`.
    pub fn error_paths(&self) -> Vec<String> {
        self.body["errors"]
            .as_array()
            .map(|a| a.iter().map(|e| e["path"].as_str().unwrap_or("?").to_owned()).collect())
            .unwrap_or_default()
    }

    /// Asserts a 400 VALIDATION_FAILED naming `path`.
    pub fn assert_invalid_at(&self, path: &str) {
        self.assert_problem(400, "VALIDATION_FAILED");
        assert!(self.error_paths().iter().any(|p| p == path), "no error at {path}: {}", self.text);
    }
}

/// Environment variable choosing the backend of the HTTP tests: `sqlite` (default) or
/// `dynamodb` (a fresh table on the local DynamoDB-API server per test).
pub const BACKEND_ENV: &str = "REGISTRY_TEST_STORE";

/// The store for one test, on the backend [`BACKEND_ENV`] names.
async fn test_store(dir: &std::path::Path) -> Arc<dyn Store> {
    match std::env::var(BACKEND_ENV).as_deref() {
        Ok("dynamodb") => {
            Arc::new(registry_store_dynamodb::local::fresh_store("api").await.unwrap())
        }
        Ok("sqlite") | Err(_) => Arc::new(SqliteStore::open(dir.join("registry.db")).unwrap()),
        Ok(other) => panic!("{BACKEND_ENV}={other}: expected sqlite or dynamodb"),
    }
}

/// Starts a server on a fresh data directory and a fresh store.
pub async fn start() -> Server {
    start_with(ServerLimits::default()).await
}

/// Starts a server with `limits` on a fresh data directory and a fresh store.
pub async fn start_with(limits: ServerLimits) -> Server {
    start_with_registry(limits, |registry| registry).await
}

/// The issuer the tests' registries issue principal tokens as.
pub const ISSUER: &str = "http://registry.test";

/// Principal token keys kept in `dir` (a new key on first use), issuing as [`ISSUER`].
pub async fn principal_keys(
    dir: &std::path::Path,
) -> Arc<registry_api::principal_keys::PrincipalKeys> {
    use registry_api::principal_keys::{FileKeyStore, PrincipalKeys, TokenSettings};
    let store = Arc::new(FileKeyStore::in_dir(dir));
    Arc::new(PrincipalKeys::open(store, TokenSettings::new(ISSUER)).await.unwrap())
}

/// Starts a server whose registry is `wrap`ped first (e.g. given AWS clients).
pub async fn start_with_registry(
    limits: ServerLimits,
    wrap: impl FnOnce(Registry) -> Registry,
) -> Server {
    start_on(limits, false, wrap).await
}

/// Starts a server on SQLite whatever [`BACKEND_ENV`] says: for a test of logic above the
/// store that writes hundreds of definitions (the DynamoDB-API test server serializes
/// requests, so they would hold up every other test's).
pub async fn start_on_sqlite() -> Server {
    start_on(ServerLimits::default(), true, |registry| registry).await
}

async fn start_on(
    limits: ServerLimits,
    sqlite: bool,
    wrap: impl FnOnce(Registry) -> Registry,
) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = match sqlite {
        true => Arc::new(SqliteStore::open(dir.path().join("registry.db")).unwrap()),
        false => test_store(dir.path()).await,
    };
    let (_, admin) = TokenFile::load_or_init(dir.path(), None).unwrap();
    let admin = admin.expect("first run creates an admin token");
    let editor = TokenFile::add_token(dir.path(), "eve-editor", Role::Editor).unwrap();
    let reader = TokenFile::add_token(dir.path(), "rita-reader", Role::Reader).unwrap();
    let runtime = TokenFile::add_token(dir.path(), "chat-runtime", Role::Runtime).unwrap();
    let approver = TokenFile::add_token(dir.path(), "ann-approver", Role::Approver).unwrap();
    let editor_as_approver =
        TokenFile::add_token(dir.path(), "eve-editor", Role::Approver).unwrap();
    let (auth, _) = TokenFile::load_or_init(dir.path(), None).unwrap();
    let vault = registry_api::vault::FileVault::open(dir.path()).unwrap();
    let registry = wrap(Registry::new(store).with_vault(Arc::new(vault)));
    let app = router(AppState::new(registry.clone(), Arc::new(auth)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        serve_with(listener, app, limits, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    Server {
        base,
        admin,
        editor,
        reader,
        runtime,
        approver,
        editor_as_approver,
        client: reqwest::Client::new(),
        registry,
        shutdown: Some(tx),
        dir,
    }
}

impl Server {
    /// A request with a bearer token (none when `token` is empty).
    pub fn req(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        let builder = self.client.request(method, format!("{}{path}", self.base));
        if token.is_empty() { builder } else { builder.bearer_auth(token) }
    }

    /// Sends a request and reads the reply. Every successful resolution and Bedrock
    /// schema export is checked against AWS's own service models on the way.
    pub async fn send(&self, builder: RequestBuilder) -> Reply {
        let response = builder.send().await.unwrap();
        let status = response.status();
        let url = response.url().clone();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status == StatusCode::OK {
            conform(url.path(), url.query().unwrap_or_default(), &body);
        }
        Reply { status, headers, body, text }
    }

    /// `method path` as admin with a JSON body.
    pub async fn admin_json(&self, method: Method, path: &str, body: &Value) -> Reply {
        self.send(self.req(method, path, &self.admin).json(body)).await
    }

    /// `method path` by `token` with `If-Match: if_match` and a JSON body.
    pub async fn write(
        &self,
        method: Method,
        path: &str,
        token: &str,
        if_match: impl std::fmt::Display,
        body: &impl serde::Serialize,
    ) -> Reply {
        let builder = self.req(method, path, token).header("if-match", if_match.to_string());
        self.send(builder.json(body)).await
    }

    /// [`Server::write`] as a `PATCH`.
    pub async fn patch(&self, path: &str, token: &str, if_match: &str, body: &Value) -> Reply {
        self.write(Method::PATCH, path, token, if_match, body).await
    }

    /// `GET path` as reader.
    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.req(Method::GET, path, &self.reader)).await
    }

    /// The version numbers a `GET` of the versions list at `path` lists, in its order.
    pub async fn version_numbers(&self, path: &str) -> Vec<u64> {
        let versions = self.get(path).await;
        versions.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["version"].as_u64().unwrap())
            .collect()
    }

    /// Creates a tool as editor and asserts 201.
    pub async fn create_tool(&self, body: &Value) -> Reply {
        let reply = self.send(self.req(Method::POST, "/tools", &self.editor).json(body)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        reply
    }

    /// Creates an agent as editor and asserts 201.
    pub async fn create_agent(&self, body: &Value) -> Reply {
        let reply = self.send(self.req(Method::POST, "/agents", &self.editor).json(body)).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        reply
    }
}

/// Asserts that what a 200 carries for Bedrock is what AWS accepts: a resolution's
/// `inlineAgent` (with the per-call `sessionId` and `inputText` a runtime adds) is an
/// `InvokeInlineAgentRequest`, and a `?format=bedrock` export is a `FunctionSchema` in
/// both Bedrock Agents (CreateAgentActionGroup) and the runtime (inline action groups).
pub fn conform(path: &str, query: &str, body: &Value) {
    if path.ends_with("/resolve") {
        let mut request = body["inlineAgent"].clone();
        request["sessionId"] = json!("conformance-session");
        request["inputText"] = json!("What is the weather in Paris?");
        aws_conformance::Model::bedrock_agent_runtime()
            .assert("InvokeInlineAgentRequest", &request);
    }
    if path.ends_with("/schema") && query.contains("format=bedrock") {
        let schema = &body["schema"];
        aws_conformance::Model::bedrock_agent().assert("FunctionSchema", schema);
        aws_conformance::Model::bedrock_agent_runtime().assert("FunctionSchema", schema);
    }
}

/// Longest a raw-socket test waits for the server before failing (a hang, not a timing).
pub const RAW_PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

impl Server {
    /// `127.0.0.1:<port>` of the server.
    pub fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_owned()
    }

    /// Opens a raw TCP connection to the server.
    pub async fn connect(&self) -> tokio::net::TcpStream {
        tokio::net::TcpStream::connect(self.addr()).await.unwrap()
    }

    /// Sends raw bytes on a new connection and reads until the server closes it.
    pub async fn raw(&self, bytes: &[u8]) -> Vec<u8> {
        use tokio::io::AsyncWriteExt;
        let mut stream = self.connect().await;
        stream.write_all(bytes).await.unwrap();
        read_to_close(&mut stream).await
    }
}

/// Reads until the peer closes the connection (EOF or reset); panics after
/// [`RAW_PATIENCE`].
pub async fn read_to_close(stream: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    let read = async {
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(RAW_PATIENCE, read).await.expect("the server kept the connection open");
    out
}

/// Splits a raw HTTP/1.1 response into status, lower-cased head and body.
pub fn parse_raw(bytes: &[u8]) -> (u16, String, Value) {
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), serde_json::from_str(body).unwrap_or(Value::Null))
}

/// A Secrets Manager client for the local AWS-API server of `config`. The local server
/// takes any credentials; these keep the tests off the environment's.
#[cfg(feature = "aws")]
pub fn secrets_manager<'a, C>(config: &'a C) -> aws_sdk_secretsmanager::Client
where
    aws_sdk_secretsmanager::config::Builder: From<&'a C>,
{
    use aws_sdk_secretsmanager::config::{Builder, Credentials};
    let credentials = Credentials::new("test", "test", None, None, "tests");
    aws_sdk_secretsmanager::Client::from_conf(
        Builder::from(config).credentials_provider(credentials).build(),
    )
}

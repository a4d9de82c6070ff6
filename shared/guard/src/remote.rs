//! The guard's remote mode: where the registry's table is not at hand, each call is
//! decided by the registry itself, `POST /tools/{id}/authorize` with the event's
//! principal token in `X-Registry-Principal` (the registry verifies it, decides with
//! `registry_policy::decide` and counts the session): one round trip per call, within
//! [`REMOTE_TIMEOUT`]; a registry that cannot be reached refuses the call
//! (`REGISTRY_UNAVAILABLE`). The token stays opaque here.
//!
//! The guard authenticates as [`RemoteAuth`] says: a bearer token (`serve`), or SigV4
//! for `execute-api` with the function's own role (the admin API on AWS, whose every
//! route but the issuer's documents needs IAM authorization: decision 104).

use std::time::Duration;

use aws_credential_types::provider::SharedCredentialsProvider;
use bedrock_action_group::return_control::authorize_path;
use bedrock_action_group::{
    ActionGroupEvent, ArgumentError, Arguments, InvalidArguments, ToolError, respond,
};
use registry_access::{DecisionPoint, DecisionRecord, Effect, Outcome};
use registry_config::{ConfigError, Problem, Vars, names};
use registry_policy::{Refusal, Stamp};
use registry_token::{PRINCIPAL_HEADER, SESSION_ATTRIBUTE, SESSION_HEADER};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::verdict::{Verdict, denied, failure};
use crate::{Checked, refused};

/// The registry's API base URL: set, the guard runs in remote mode.
pub const URL_ENV: &str = names::URL;
/// The bearer token the guard presents to the registry (any role may authorize; give
/// it a `runtime` or `reader` token).
pub const TOKEN_ENV: &str = names::TOKEN;
/// `bearer` (default: [`TOKEN_ENV`]) or `sigv4` (the function's role, in `AWS_REGION`).
pub const AUTH_ENV: &str = names::AUTH;
/// The service SigV4 signs for: API Gateway's IAM authorization.
const SIGV4_SERVICE: &str = "execute-api";
/// Longest one call's round trip to the registry may take, connection included.
pub const REMOTE_TIMEOUT: Duration = Duration::from_secs(2);

/// What a guard in remote mode needs.
#[derive(Debug, Clone)]
pub struct RemoteConfig {
    /// The tool whose calls are decided.
    pub tool_id: String,
    /// The registry's API base URL.
    pub url: reqwest::Url,
    /// How the guard authenticates to it.
    pub auth: RemoteAuth,
}

/// How a guard in remote mode authenticates to the registry.
#[derive(Clone)]
pub enum RemoteAuth {
    /// `Authorization: Bearer` with this token (`serve`'s tokens).
    Bearer(String),
    /// SigV4 for `execute-api` in `region` with the function's own AWS credentials (its
    /// role; `REGISTRY_ROLE_MAP` of the admin API must map it to a role).
    SigV4 {
        /// The region of the registry's API.
        region: String,
    },
}

impl std::fmt::Debug for RemoteAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bearer(_) => f.write_str("Bearer(..)"),
            Self::SigV4 { region } => f.debug_struct("SigV4").field("region", region).finish(),
        }
    }
}

impl RemoteConfig {
    /// Reads [`URL_ENV`], [`TOKEN_ENV`] and `REGISTRY_TOOL_ID` through `var`: `Ok(None)`
    /// without [`URL_ENV`] (table mode), `Err` naming every problem. The table set
    /// besides makes the mode ambiguous: an error too.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, ConfigError> {
        let mut vars = Vars::new(var);
        if vars.optional(URL_ENV).is_none() {
            return Ok(None);
        }
        let tool_id =
            vars.required(names::TOOL_ID, "the registry tool whose rules guard this function");
        let url = vars.parsed(URL_ENV, |text| match reqwest::Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && !url.cannot_be_a_base() => {
                Ok(url)
            }
            _ => Err("must be the registry's http(s) base URL"),
        });
        let sigv4 = vars
            .parsed(AUTH_ENV, |text| match text.trim() {
                "bearer" => Ok(false),
                "sigv4" => Ok(true),
                _ => Err("must be `bearer` or `sigv4`"),
            })
            .unwrap_or(false);
        let auth = if sigv4 {
            let region = vars.required(names::AWS_REGION, "the region the guard signs for");
            RemoteAuth::SigV4 { region }
        } else {
            RemoteAuth::Bearer(vars.required(
                TOKEN_ENV,
                "the guard's bearer token for the registry (REGISTRY_AUTH=sigv4: its AWS role)",
            ))
        };
        let mut problems = Vec::new();
        if vars.optional(names::TABLE).is_some() {
            problems.push(Problem::Invalid {
                name: names::TABLE,
                reason: format!("set with {URL_ENV}: the guard reads the table or asks the registry, not both; unset one"),
            });
        }
        let read = vars.finish();
        if let Err(mut error) = read {
            error.problems.extend(problems);
            return Err(error);
        }
        if !problems.is_empty() {
            return Err(ConfigError { problems });
        }
        match url {
            Some(url) => Ok(Some(Self { tool_id, url, auth })),
            None => Err(ConfigError::missing(URL_ENV, "the registry's base URL")),
        }
    }
}

/// The registry, asked over HTTP.
#[derive(Debug, Clone)]
pub struct Remote {
    config: RemoteConfig,
    client: reqwest::Client,
    /// The function's AWS credentials (SigV4 only), found on first use.
    credentials: std::sync::Arc<tokio::sync::OnceCell<Option<SharedCredentialsProvider>>>,
}

/// Why the registry could not be asked (the decision line's `message`).
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The HTTP client could not be built.
    #[error("the HTTP client cannot be built: {0}")]
    Client(#[source] reqwest::Error),
}

/// Why a request to the registry cannot be sent (the call is refused
/// `REGISTRY_UNAVAILABLE`, the decision line saying this).
#[derive(Debug, thiserror::Error)]
enum Unsent {
    /// The request could not be built.
    #[error("cannot be asked: {0}")]
    Built(String),
    /// The bearer token cannot be a header value.
    #[error("cannot be asked: {TOKEN_ENV} is not a header value")]
    TokenNotHeader,
    /// No SigV4 signature could be made.
    #[error("cannot be asked: no SigV4 signature: {0}")]
    Unsigned(String),
}

/// The fields of the registry's `Authorization` answer the guard reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    decision_id: String,
    version: Option<u64>,
    effect: Effect,
    outcome: Outcome,
    stage: String,
    reason: String,
    rule_id: Option<String>,
    #[serde(default)]
    log_only: Vec<Value>,
    would_be: Option<Value>,
    limit: Option<String>,
    message: Option<String>,
    why: Option<String>,
}

impl Remote {
    /// A client of the registry at `config.url`.
    pub fn new(config: RemoteConfig) -> Result<Self, RemoteError> {
        let client = reqwest::Client::builder()
            .timeout(REMOTE_TIMEOUT)
            .connect_timeout(REMOTE_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(RemoteError::Client)?;
        Ok(Self { config, client, credentials: std::sync::Arc::default() })
    }

    /// `request` with its authentication: the bearer token, or a SigV4 signature of
    /// its method, URL, headers and body by the function's credentials; `Err` says why
    /// it cannot be sent.
    async fn authenticated(
        &self,
        mut request: reqwest::Request,
    ) -> Result<reqwest::Request, Unsent> {
        use aws_credential_types::provider::ProvideCredentials;
        use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
        let region = match &self.config.auth {
            RemoteAuth::Bearer(token) => {
                let value = http::HeaderValue::try_from(format!("Bearer {token}"))
                    .map_err(|_| Unsent::TokenNotHeader)?;
                request.headers_mut().insert(http::header::AUTHORIZATION, value);
                return Ok(request);
            }
            RemoteAuth::SigV4 { region } => region,
        };
        let unsigned = |e: &dyn std::fmt::Display| Unsent::Unsigned(e.to_string());
        let provider = self
            .credentials
            .get_or_init(|| async {
                aws_config::load_defaults(aws_config::BehaviorVersion::latest())
                    .await
                    .credentials_provider()
            })
            .await
            .as_ref()
            .ok_or_else(|| unsigned(&"no AWS credentials provider"))?;
        let credentials = provider.provide_credentials().await.map_err(|e| unsigned(&e))?;
        let identity = credentials.into();
        let params = aws_sigv4::sign::v4::SigningParams::builder()
            .identity(&identity)
            .region(region)
            .name(SIGV4_SERVICE)
            .time(std::time::SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| unsigned(&e))?
            .into();
        let body = request.body().and_then(reqwest::Body::as_bytes).unwrap_or_default();
        let headers =
            request.headers().iter().filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?)));
        let signable = SignableRequest::new(
            request.method().as_str(),
            request.url().as_str(),
            headers,
            SignableBody::Bytes(body),
        )
        .map_err(|e| unsigned(&e))?;
        let (instructions, _) = sign(signable, &params).map_err(|e| unsigned(&e))?.into_parts();
        let (headers, _) = instructions.into_parts();
        for header in headers {
            let name =
                http::HeaderName::from_bytes(header.name().as_bytes()).map_err(|e| unsigned(&e))?;
            let value = http::HeaderValue::try_from(header.value()).map_err(|e| unsigned(&e))?;
            request.headers_mut().insert(name, value);
        }
        Ok(request)
    }

    /// This client signing with `provider`'s credentials (SigV4 only) instead of those
    /// the environment gives (`aws_config`'s default chain: a Lambda's role).
    #[must_use]
    pub fn with_credentials(self, provider: SharedCredentialsProvider) -> Self {
        Self {
            credentials: std::sync::Arc::new(tokio::sync::OnceCell::from(Some(provider))),
            ..self
        }
    }

    /// The tool whose calls are decided.
    pub fn tool_id(&self) -> &str {
        &self.config.tool_id
    }

    /// Asks the registry to decide `event`'s call: its verdict and decision line.
    pub(crate) async fn ask(&self, event: &ActionGroupEvent, now_ms: i64) -> Checked {
        let Some(token) = event.session_attributes().get(SESSION_ATTRIBUTE) else {
            let message = format!("no `{SESSION_ATTRIBUTE}` session attribute");
            return refused(event, Refusal::NoSignedContext, message, now_ms);
        };
        let arguments = match Arguments::from_event(event) {
            Ok(arguments) => arguments,
            Err(invalid) => return invalid_arguments(event, invalid, now_ms),
        };
        let mut call = json!({"function": event.name(), "arguments": arguments.into_value()});
        if let ActionGroupEvent::Api(e) = event {
            call["httpMethod"] = json!(e.http_method);
        }
        let mut url = self.config.url.clone();
        let base = url.path().trim_end_matches('/').to_owned();
        url.set_path(&format!("{base}{}", authorize_path(&self.config.tool_id)));
        let unavailable = |message: String| {
            let message = format!("the registry at {} {message}", self.config.url);
            refused(event, Refusal::RegistryUnavailable, message, now_ms)
        };
        let request = self
            .client
            .post(url)
            .header(PRINCIPAL_HEADER, token)
            .header(SESSION_HEADER, event.session_id())
            .json(&json!({"call": call}))
            .build()
            .map_err(|e| Unsent::Built(error_chain(&e)));
        let request = match request {
            Ok(request) => self.authenticated(request).await,
            Err(message) => Err(message),
        };
        let request = match request {
            Ok(request) => request,
            Err(unsent) => return unavailable(unsent.to_string()),
        };
        let sent = self.client.execute(request).await;
        let response = match sent {
            Ok(response) => response,
            Err(e) => return unavailable(format!("was not reached: {}", error_chain(&e))),
        };
        let status = response.status().as_u16();
        let body: Value = match response.json().await {
            Ok(body) => body,
            Err(e) => return unavailable(format!("answered {status}, not JSON: {e}")),
        };
        match status {
            200 => match serde_json::from_value::<Answer>(body) {
                Ok(answer) => concluded(event, answer, now_ms),
                Err(e) => unavailable(format!("answered an unreadable decision: {e}")),
            },
            400 => refused_by_registry(event, &body, now_ms),
            401 | 403 => {
                let credentials = match self.config.auth {
                    RemoteAuth::Bearer(_) => TOKEN_ENV,
                    RemoteAuth::SigV4 { .. } => "AWS role (its REGISTRY_ROLE_MAP entry)",
                };
                let message = format!(
                    "the registry refused the guard's {credentials} ({status}): {}",
                    problem_detail(&body)
                );
                refused(event, Refusal::NotConfigured, message, now_ms)
            }
            404 => {
                let message = format!("the registry has no live tool: {}", problem_detail(&body));
                refused(event, Refusal::RulesUnavailable, message, now_ms)
            }
            _ => unavailable(format!("answered {status}: {}", problem_detail(&body))),
        }
    }
}

/// The decision the registry answered, as a verdict and a decision line (the
/// registry's decision id, so both lines of one call share it): a denial by a rule or
/// a limit is a `REPROMPT` saying the registry's `why`, a switched-off tool a `FAILURE`.
fn concluded(event: &ActionGroupEvent, answer: Answer, now_ms: i64) -> Checked {
    let Stamp { time, .. } = Stamp::at(now_ms);
    let mut record =
        DecisionRecord::refusal(DecisionPoint::Guard, answer.decision_id, time, "", String::new());
    record.message = answer.message;
    record.effect = answer.effect;
    record.outcome = answer.outcome;
    record.reason = answer.reason;
    record.stage = stage(&answer.stage);
    record.rule_id = answer.rule_id;
    record.limit = answer.limit;
    record.tool_version = answer.version;
    record.would_be_rule_id = answer
        .would_be
        .as_ref()
        .and_then(|w| w.get("ruleId"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    record.log_only_matched = answer
        .log_only
        .iter()
        .filter(|l| l.get("matched") == Some(&Value::Bool(true)))
        .filter_map(|l| l.get("ruleId").and_then(Value::as_str).map(str::to_owned))
        .collect();
    if answer.effect == Effect::Allow {
        return Checked { record, verdict: Verdict::Allow };
    }
    let response = match record.stage {
        Some("lifecycle") => {
            record.message = Some("the tool's lifecycle status is disabled or retired".into());
            failure(event, Refusal::ToolSwitchedOff)
        }
        _ => denied(event, answer.why.as_deref().unwrap_or("no rule allows it")),
    };
    Checked { record, verdict: Verdict::Deny(Box::new(response)) }
}

/// The decision line's stage for the answer's.
fn stage(stage: &str) -> Option<&'static str> {
    registry_policy::Stage::ALL
        .into_iter()
        .map(registry_policy::Stage::as_str)
        .find(|s| *s == stage)
}

/// A 400 of the registry: the token bound to another session (`SESSION_MISMATCH`), the
/// principal token refused (`INVALID_SIGNED_CONTEXT`, or `EXPIRED_SIGNED_CONTEXT` when
/// it says expired), the call's function or arguments
/// refused (`INVALID_ARGUMENTS`, the `REPROMPT` naming each), anything else
/// `REGISTRY_REFUSED`.
fn refused_by_registry(event: &ActionGroupEvent, body: &Value, now_ms: i64) -> Checked {
    let errors: Vec<(&str, &str)> = body["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (e["path"].as_str().unwrap_or_default(), e["message"].as_str().unwrap_or_default())
        })
        .collect();
    let detail = problem_detail(body);
    if let Some((_, message)) =
        errors.iter().find(|(path, _)| path.strip_prefix("/headers/") == Some(SESSION_HEADER))
    {
        return refused(event, Refusal::SessionMismatch, (*message).to_owned(), now_ms);
    }
    if let Some((_, message)) = errors.iter().find(|(path, _)| path.starts_with("/headers/")) {
        // the registry's wording of an expired token (`SignedContextError::Expired`)
        let refusal = match message.contains("expired") {
            true => Refusal::ExpiredSignedContext,
            false => Refusal::InvalidSignedContext,
        };
        return refused(event, refusal, (*message).to_owned(), now_ms);
    }
    let call: Vec<ArgumentError> = errors
        .iter()
        .filter_map(|(path, message)| {
            let pointer = path
                .strip_prefix("/call/arguments")
                .or_else(|| path.strip_prefix("/call").map(|_| ""))?;
            Some(ArgumentError::at(pointer, *message))
        })
        .collect();
    if !call.is_empty() {
        return invalid_arguments(event, InvalidArguments { errors: call }, now_ms);
    }
    refused(event, Refusal::RegistryRefused, format!("the registry answered 400: {detail}"), now_ms)
}

/// The `REPROMPT` naming each invalid argument, as the handler would have answered.
fn invalid_arguments(event: &ActionGroupEvent, invalid: InvalidArguments, now_ms: i64) -> Checked {
    let message = format!("{} invalid arguments", invalid.errors.len());
    let mut checked = refused(event, Refusal::InvalidArguments, message, now_ms);
    checked.verdict = Verdict::Deny(Box::new(respond::<()>(event, Err(ToolError::from(invalid)))));
    checked
}

/// A problem document's `detail` and each error, in one line (never a secret: the
/// registry's problems carry none).
fn problem_detail(body: &Value) -> String {
    let mut text = body["detail"].as_str().or(body["title"].as_str()).unwrap_or("").to_owned();
    for e in body["errors"].as_array().into_iter().flatten() {
        let path = e["path"].as_str().unwrap_or_default();
        let message = e["message"].as_str().unwrap_or_default();
        text.push_str(&format!("; {path}: {message}"));
    }
    text.chars().take(1_000).collect()
}

/// An error with its causes (reqwest's own message hides the reason).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

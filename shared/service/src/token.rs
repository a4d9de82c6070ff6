//! The token broker: a short-lived access token for a tool's MCP server, obtained with
//! the OAuth 2.0 client-credentials grant (RFC 6749 section 4.4) against the tool's
//! `auth.tokenUrl` with the secret from the vault, for a caller the tool is granted to.
//!
//! Whether the tool is granted is decided by resolution itself: the agent the runtime
//! runs is resolved for the caller's context (its lifecycle, access rules and rollout,
//! overrides and ranges, then each tool's lifecycle and access rules), and the tool must
//! be among the tools it keeps. Only the `runtime` role obtains tokens (decision 70).
//! Tokens are cached per tool version and scope until shortly before they expire;
//! concurrent requests for the same key wait for one upstream request (single flight),
//! and share its failure too, for [`FAILURE_TTL`]. The broker handles at most
//! [`MAX_BROKER_REQUESTS`] requests that wait for or make an upstream request, at most
//! [`MAX_WAITERS_PER_TOOL`] of them for one tool version (whatever scopes they ask for); beyond either a request is refused at
//! once (`Overloaded`), so a hanging token endpoint holds a bounded part of the server.
//! Upstream failures name only the status: never the secret, never the upstream body.
//! Redirects are not followed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use registry_access::{Decision, DecisionPoint, DecisionRecord, Effect, ReasonCode};
use registry_core::resolve::ToolOutcome;
use registry_core::{Kind, RequestContext, Secret, ToolDefinition};
use serde::{Deserialize, Serialize};

use crate::auth::{Principal, Role};
use crate::resolve::ResolveFailure;
use crate::sealed::{handle_of, vault_error};
use crate::{Resource, ServiceError, Tokens};

/// A token is handed out only while it has at least this long to live; a cached one
/// is renewed once it has less.
pub const TOKEN_MARGIN: Duration = Duration::from_secs(30);

/// Longest wait for the token endpoint.
pub const TOKEN_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest token-endpoint response read.
pub const MAX_TOKEN_RESPONSE_BYTES: usize = 64 * 1024;

/// Most cache entries (tool version and scope) kept, and most tool versions whose
/// waiters are counted; when full, the entry least worth keeping that no request holds
/// makes room (decision 81).
const MAX_CACHED_TOKENS: usize = 4_096;

/// Lifetime of a token whose endpoint answers no `expires_in` (RFC 6749 section 5.1
/// leaves the default to the server).
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::from_secs(300);

/// Longest a token is cached, whatever lifetime its endpoint claims.
pub const MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a failed upstream request answers for its key: every request that waited
/// for it, and any other for the same key within this time, gets the same failure
/// without asking the token endpoint again.
pub const FAILURE_TTL: Duration = Duration::from_secs(5);

/// Most requests for one tool version waiting for (or making) upstream requests, over
/// all the scopes they ask for.
pub const MAX_WAITERS_PER_TOOL: usize = 64;

/// Most requests the broker handles at once that wait for or make an upstream request
/// (a cached token is answered outside this budget).
pub const MAX_BROKER_REQUESTS: usize = 128;

/// An access token for a tool's MCP server.
#[derive(Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedToken {
    /// The bearer token to send to the MCP server.
    pub access_token: String,
    /// Its type, as the token endpoint said (`Bearer`).
    pub token_type: String,
    /// Seconds it is still valid.
    pub expires_in: u64,
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .finish_non_exhaustive()
    }
}

/// What the token endpoint answers (RFC 6749 section 5.1); without `token_type` the
/// token is a `Bearer` token.
#[derive(Debug, Deserialize, Serialize)]
struct Granted {
    access_token: oauth2::AccessToken,
    #[serde(default = "TypeName::bearer")]
    token_type: TypeName,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// A token type as the endpoint names it (`Bearer`), checked before it is handed out.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
struct TypeName(String);

impl TypeName {
    fn bearer() -> Self {
        Self("Bearer".to_owned())
    }
}

impl oauth2::TokenType for TypeName {}

impl oauth2::TokenResponse for Granted {
    type TokenType = TypeName;
    fn access_token(&self) -> &oauth2::AccessToken {
        &self.access_token
    }
    fn token_type(&self) -> &TypeName {
        &self.token_type
    }
    fn expires_in(&self) -> Option<Duration> {
        self.expires_in.map(Duration::from_secs)
    }
    fn refresh_token(&self) -> Option<&oauth2::RefreshToken> {
        None
    }
    fn scopes(&self) -> Option<&Vec<oauth2::Scope>> {
        None
    }
}

/// The OAuth client of one tool: HTTP Basic client authentication (RFC 6749 section
/// 2.3.1, id and secret form-encoded first), its token endpoint set.
type GrantClient = oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    Granted,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

/// Why the token endpoint gave no usable answer, in the words of a 502's detail
/// ("the token endpoint of tool `t` <this>"): never the secret, never the body.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unusable(String);

/// A token in the cache, valid until `expires`.
#[derive(Clone)]
struct Cached {
    access_token: String,
    token_type: String,
    expires: Instant,
}

/// Cache key: tool id, tool version (a changed `tokenUrl`, `clientId` or secret is a
/// new version), scope.
type Key = (String, u64, String);

/// The last upstream failure of a key, and when it came.
struct Failed {
    error: ServiceError,
    at: Instant,
}

/// What a key holds: its token, or its last failure.
#[derive(Default)]
struct SlotState {
    cached: Option<Cached>,
    failed: Option<Failed>,
}

/// One cache slot: its lock is the single flight.
#[derive(Default)]
struct SlotCell {
    state: tokio::sync::Mutex<SlotState>,
}

type Slot = Arc<SlotCell>;

/// The requests waiting for one tool version's token endpoint, whatever scope they ask
/// for (the scope is the caller's to choose, so it cannot widen the cap).
type ToolWaiters = Arc<AtomicUsize>;

/// A request counted in its tool's waiters until dropped.
struct Waiting(ToolWaiters);

impl Waiting {
    /// Counts a request in `waiters`, or refuses it when the tool has its most already.
    fn enter(waiters: &ToolWaiters) -> Result<Self, ServiceError> {
        let before = waiters.fetch_add(1, Ordering::AcqRel);
        let entered = Self(Arc::clone(waiters));
        if before >= MAX_WAITERS_PER_TOOL {
            return Err(ServiceError::Overloaded(format!(
                "{MAX_WAITERS_PER_TOOL} requests already wait for this tool's token endpoint; \
                 retry shortly"
            )));
        }
        Ok(entered)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Keeps an entry a request holds: evicting it would start a second single flight for
/// its key, or a second count of its tool's waiters past [`MAX_WAITERS_PER_TOOL`].
#[derive(Clone, Copy, Default)]
struct Held;

impl<K, T> quick_cache::Lifecycle<K, Arc<T>> for Held {
    type RequestState = ();
    fn is_pinned(&self, _key: &K, value: &Arc<T>) -> bool {
        Arc::strong_count(value) > 1
    }
    fn begin_request(&self) {}
}

/// A bounded map of [`Held`] entries.
type HeldCache<K, V> = quick_cache::sync::Cache<
    K,
    V,
    quick_cache::UnitWeighter,
    quick_cache::DefaultHashBuilder,
    Held,
>;

fn held_cache<K: Eq + std::hash::Hash, T>() -> HeldCache<K, Arc<T>> {
    let capacity = MAX_CACHED_TOKENS;
    HeldCache::with(capacity, capacity as u64, quick_cache::UnitWeighter, Default::default(), Held)
}

/// The entry of `key`, made empty when there is none.
fn held<K: Eq + std::hash::Hash + Clone, T: Default>(
    cache: &HeldCache<K, Arc<T>>,
    key: &K,
) -> Arc<T> {
    let Ok(value) =
        cache.get_or_insert_with(key, || Ok::<_, std::convert::Infallible>(Arc::default()));
    value
}

/// The HTTP client, the token cache and the broker's budget of requests.
pub(crate) struct TokenBroker {
    client: reqwest::Client,
    slots: HeldCache<Key, Slot>,
    waiters: HeldCache<(String, u64), ToolWaiters>,
    budget: Arc<tokio::sync::Semaphore>,
}

impl Default for TokenBroker {
    fn default() -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TOKEN_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            client,
            slots: held_cache(),
            waiters: held_cache(),
            budget: Arc::new(tokio::sync::Semaphore::new(MAX_BROKER_REQUESTS)),
        }
    }
}

impl TokenBroker {
    /// A permit of the broker's budget, or the refusal when it is spent.
    fn admit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ServiceError> {
        Arc::clone(&self.budget).try_acquire_owned().map_err(|_| {
            ServiceError::Overloaded(format!(
                "the token broker is handling {MAX_BROKER_REQUESTS} requests already; \
                 retry shortly"
            ))
        })
    }

    fn slot(&self, key: &Key) -> Slot {
        held(&self.slots, key)
    }

    /// The waiters of one tool version.
    fn waiters(&self, tool: &(String, u64)) -> ToolWaiters {
        held(&self.waiters, tool)
    }
}

/// Who asks, for which tool, through which agent, in which context.
#[derive(Debug, Clone, Copy)]
pub struct TokenRequest<'a> {
    /// The authenticated caller (role `runtime` or above).
    pub principal: &'a Principal,
    /// The tool.
    pub tool_id: &'a str,
    /// The agent the runtime runs, resolved to decide whether the tool is granted.
    pub agent_id: &'a str,
    /// The request context, as for resolve (parsed once, by the caller).
    pub context: &'a RequestContext,
    /// The OAuth scope to ask for, if any.
    pub scope: Option<&'a str>,
}

impl Tokens {
    /// An access token for `request.tool_id`'s MCP server, if resolving
    /// `request.agent_id` for the context keeps the tool (see the module docs).
    pub async fn token(&self, request: TokenRequest<'_>) -> Result<IssuedToken, ResolveFailure> {
        require_token_role(request.principal)?;
        let id = ToolDefinition::canonical_id(request.tool_id);
        let resolution = self.resolver.resolve(request.agent_id, request.context, None).await?;
        let kept = resolution.trace.tools.iter().find(|t| t.tool_id == id).map(|t| t.outcome);
        if kept != Some(ToolOutcome::Included) {
            let why = kept.map_or_else(
                || format!("agent `{}` has no tool `{id}`", request.agent_id),
                |outcome| format!("tool `{id}` is left out ({outcome:?})"),
            );
            self.log_token(&request, &id, "refused", &why);
            return Err(ServiceError::Forbidden(format!(
                "tool `{id}` is not granted to this caller through agent `{}`: {why}",
                request.agent_id
            ))
            .into());
        }
        let tool = self.tool_for_token(&id).await?;
        let key = (id.clone(), tool.version(), request.scope.unwrap_or_default().to_owned());
        let slot = self.tokens.slot(&key);
        // A cached token is answered without waiting, outside the budget.
        if let Ok(state) = slot.state.try_lock()
            && let Some(out) = usable(&state, Instant::now())
        {
            self.log_token(&request, &id, "issued", "cached");
            return Ok(out);
        }
        let refused = |e: ServiceError| {
            self.log_token(&request, &id, "refused", &e.to_string());
            e
        };
        let waiters = self.tokens.waiters(&(id.clone(), tool.version()));
        let _waiting = Waiting::enter(&waiters).map_err(refused)?;
        let _permit = self.tokens.admit().map_err(refused)?;
        let asked = Instant::now();
        let mut state = slot.state.lock().await;
        let now = Instant::now();
        if let Some(out) = usable(&state, now) {
            self.log_token(&request, &id, "issued", "cached");
            return Ok(out);
        }
        // The failure of the request this one waited for, or of a recent one.
        if let Some(failed) =
            state.failed.as_ref().filter(|f| f.at >= asked || now < f.at + FAILURE_TTL)
        {
            self.log_token(&request, &id, "failed", &format!("shared: {}", failed.error));
            return Err(failed.error.clone().into());
        }
        match self.fetch_token(&tool, request.scope).await {
            Ok(fresh) => {
                self.log_token(&request, &id, "issued", "fetched");
                let out = issued(&fresh, Instant::now());
                *state = SlotState { cached: Some(fresh), failed: None };
                Ok(out)
            }
            Err(error) => {
                self.log_token(&request, &id, "failed", &error.to_string());
                state.failed = Some(Failed { error: error.clone(), at: Instant::now() });
                Err(error.into())
            }
        }
    }

    /// The stored tool with OAuth client credentials, or why there is none.
    async fn tool_for_token(&self, id: &str) -> Result<ToolDefinition, ServiceError> {
        let stored = self.store().get(Kind::Tool, id).await;
        let tool = match stored.map_err(|e| ServiceError::from_store(Kind::Tool, id, e))? {
            Some(registry_core::Definition::Tool(tool)) => tool,
            _ => return Err(ServiceError::NotFound { kind: Kind::Tool, id: id.to_owned() }),
        };
        if tool.auth.is_none() {
            return Err(ServiceError::invalid(
                "",
                format!("tool `{id}` has no OAuth client credentials (`auth`)"),
            ));
        }
        Ok(tool)
    }

    /// Runs the client-credentials grant for `tool`.
    async fn fetch_token(
        &self,
        tool: &ToolDefinition,
        scope: Option<&str>,
    ) -> Result<Cached, ServiceError> {
        let Some(auth) = tool.auth.as_ref() else {
            return Err(ServiceError::Internal("tool without auth".into()));
        };
        let secret: Secret = match (&auth.client_secret_ref, handle_of(auth), &auth.client_secret) {
            (Some(arn), _, _) => self.vault().get_reference(arn).await.map_err(vault_error)?,
            (None, Some(handle), _) => {
                self.vault().get(&tool.tool_id, &handle).await.map_err(vault_error)?.ok_or_else(
                    || {
                        ServiceError::Unavailable(format!(
                            "the secret of `{}` is not in the vault",
                            tool.tool_id
                        ))
                    },
                )?
            }
            // Written before the vault: still in the definition until its next write.
            (None, None, Some(secret)) => secret.clone(),
            (None, None, None) => {
                return Err(ServiceError::Internal(format!(
                    "tool `{}` has no secret",
                    tool.tool_id
                )));
            }
        };
        let upstream = |what: String| {
            tracing::warn!(tool = %tool.tool_id, token_url = %auth.token_url, problem = %what, "token endpoint");
            ServiceError::Upstream(format!("the token endpoint of tool `{}` {what}", tool.tool_id))
        };
        let token_url = oauth2::TokenUrl::new(auth.token_url.clone())
            .map_err(|_| upstream("is unreachable".into()))?;
        let client: GrantClient =
            oauth2::Client::new(oauth2::ClientId::new(auth.client_id.clone()))
                .set_client_secret(oauth2::ClientSecret::new(secret.expose().to_owned()))
                .set_token_uri(token_url);
        let mut grant = client.exchange_client_credentials();
        if let Some(scope) = scope.filter(|s| !s.is_empty()) {
            grant = grant.add_scope(oauth2::Scope::new(scope.to_owned()));
        }
        // An owned client (a handle) per request: the grant's future borrows nothing.
        let http = self.tokens.client.clone();
        let send = move |request: oauth2::HttpRequest| post(http.clone(), request);
        let token = grant.request_async(&send).await.map_err(|e| {
            upstream(match e {
                oauth2::RequestTokenError::Request(Unusable(what)) => what,
                _ => "answered no OAuth token response".into(),
            })
        })?;
        let access_token = token.access_token.into_secret();
        if access_token.is_empty() {
            return Err(upstream("answered an empty access token".into()));
        }
        // RFC 6750's b64token and RFC 6749's token type: a value a runtime can put in a
        // header as it is, never a line break or a control character.
        let b64token = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
        if !access_token.chars().all(b64token) {
            return Err(upstream(
                "answered an access token with characters outside RFC 6750's b64token".into(),
            ));
        }
        let TypeName(kind) = token.token_type;
        if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
        {
            return Err(upstream("answered a token type that is not an RFC 6749 type name".into()));
        }
        let lifetime = token.expires_in.map_or(DEFAULT_TOKEN_LIFETIME, Duration::from_secs);
        if lifetime <= TOKEN_MARGIN {
            return Err(upstream(format!(
                "answered a token valid for {} s; a token is handed out only with more than \
                 {} s left",
                lifetime.as_secs(),
                TOKEN_MARGIN.as_secs()
            )));
        }
        let lifetime = lifetime.min(MAX_TOKEN_LIFETIME);
        Ok(Cached { access_token, token_type: kind, expires: Instant::now() + lifetime })
    }
}

/// Whether `principal` may obtain tools' access tokens: the `runtime` role only, not
/// every role ranked above it (decision 70).
pub fn can_obtain_tokens(principal: &Principal) -> bool {
    principal.role == Role::Runtime
}

/// [`can_obtain_tokens`], or the 403 that says why not.
pub fn require_token_role(principal: &Principal) -> Result<(), ServiceError> {
    if can_obtain_tokens(principal) {
        return Ok(());
    }
    Err(ServiceError::Forbidden(format!(
        "only the `runtime` role obtains tool access tokens; `{}` has `{}`",
        principal.name,
        principal.role.as_str()
    )))
}

/// The cached token of `state` while it has more than [`TOKEN_MARGIN`] left at `now`.
fn usable(state: &SlotState, now: Instant) -> Option<IssuedToken> {
    state.cached.as_ref().filter(|c| c.expires > now + TOKEN_MARGIN).map(|c| issued(c, now))
}

/// The answer for a cached token at `now`.
fn issued(cached: &Cached, now: Instant) -> IssuedToken {
    IssuedToken {
        access_token: cached.access_token.clone(),
        token_type: cached.token_type.clone(),
        expires_in: cached.expires.saturating_duration_since(now).as_secs(),
    }
}

impl Tokens {
    /// One decision per token request, in the decision log (point `token`) and as a
    /// `registry::decision` trace line: who, which tool through which agent, the outcome;
    /// never the token or the secret.
    fn log_token(&self, request: &TokenRequest<'_>, tool_id: &str, outcome: &str, detail: &str) {
        if self.decisions.is_on() {
            let effect = if outcome == "issued" { Effect::Allow } else { Effect::Deny };
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let decision = Decision::new(effect, ReasonCode::RuleMatch);
            let mut record = DecisionRecord::of(
                &decision,
                DecisionPoint::Token,
                uuid::Uuid::now_v7().to_string(),
                now,
            );
            record.reason = outcome.to_uppercase();
            record.principal_id = Some(request.principal.name.clone());
            record.agent_id = Some(request.agent_id.to_owned());
            record.tool_id = Some(tool_id.to_owned());
            record.message = Some(detail.to_owned());
            self.decisions.record(record);
        }
        log(request, tool_id, outcome, detail);
    }
}

/// The `registry::decision` trace line of a token request.
fn log(request: &TokenRequest<'_>, tool_id: &str, outcome: &str, detail: &str) {
    tracing::info!(
        target: "registry::decision",
        decision = "token",
        principal = %request.principal.name,
        agent = %request.agent_id,
        tool = %tool_id,
        scope = request.scope.unwrap_or_default(),
        outcome,
        detail,
        "token decision"
    );
}

/// Sends the grant's request with the broker's client (its timeout, no redirects) and
/// reads at most [`MAX_TOKEN_RESPONSE_BYTES`] of a `200 OK` answer; any other status is
/// refused here, naming only the status.
async fn post(
    client: reqwest::Client,
    request: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, Unusable> {
    let request =
        reqwest::Request::try_from(request).map_err(|_| Unusable("is unreachable".into()))?;
    let mut response = client.execute(request).await.map_err(|e| {
        Unusable(if e.is_timeout() { "timed out".into() } else { "is unreachable".into() })
    })?;
    let status = response.status();
    if status.is_redirection() {
        return Err(Unusable(format!(
            "answered HTTP {} (redirects are not followed)",
            status.as_u16()
        )));
    }
    if status != reqwest::StatusCode::OK {
        return Err(Unusable(format!("answered HTTP {}", status.as_u16())));
    }
    let mut body = Vec::new();
    while let Some(chunk) =
        response.chunk().await.map_err(|_| Unusable("broke off its answer".into()))?
    {
        if body.len() + chunk.len() > MAX_TOKEN_RESPONSE_BYTES {
            return Err(Unusable(format!("answered more than {MAX_TOKEN_RESPONSE_BYTES} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    let mut answer = oauth2::HttpResponse::new(body);
    *answer.headers_mut() = std::mem::take(response.headers_mut());
    Ok(answer)
}

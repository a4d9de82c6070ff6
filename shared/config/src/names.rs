//! The names of the registry's environment variables (docs/deploy.md lists each with its
//! meaning and who reads it).

/// The registry's DynamoDB table (admin API, custom resource, guard in table mode,
/// `serve --table`).
pub const TABLE: &str = "REGISTRY_TABLE";
/// A DynamoDB-API endpoint instead of AWS's (local servers in tests).
pub const DYNAMODB_ENDPOINT_URL: &str = "REGISTRY_DYNAMODB_ENDPOINT_URL";
/// A Secrets Manager endpoint instead of AWS's.
pub const SECRETSMANAGER_ENDPOINT_URL: &str = "REGISTRY_SECRETSMANAGER_ENDPOINT_URL";
/// A Lambda control-plane endpoint instead of AWS's (verify).
pub const LAMBDA_ENDPOINT_URL: &str = "REGISTRY_LAMBDA_ENDPOINT_URL";
/// A Lambda invoke endpoint instead of AWS's (test-invoke).
pub const LAMBDA_INVOKE_ENDPOINT_URL: &str = "REGISTRY_LAMBDA_INVOKE_ENDPOINT_URL";
/// A Bedrock agent endpoint instead of AWS's (publish, import).
pub const BEDROCK_ENDPOINT_URL: &str = "REGISTRY_BEDROCK_ENDPOINT_URL";
/// An EventBridge endpoint instead of AWS's (event forwarder).
pub const EVENTBRIDGE_ENDPOINT_URL: &str = "REGISTRY_EVENTBRIDGE_ENDPOINT_URL";
/// Who holds which role behind API Gateway (JSON, docs/deploy.md).
pub const ROLE_MAP: &str = "REGISTRY_ROLE_MAP";
/// The secret that signs list cursors (all instances must share it).
pub const CURSOR_KEY: &str = "REGISTRY_CURSOR_KEY";
/// The `iss` of principal tokens: the registry's URL (issuer: A, S; verifiers: G).
pub const TOKEN_ISSUER: &str = "REGISTRY_TOKEN_ISSUER";
/// The `aud` of principal tokens (default `agent-registry`).
pub const TOKEN_AUDIENCE: &str = "REGISTRY_TOKEN_AUDIENCE";
/// The algorithm of new signing keys: `RS256` (default), `ES256` or `EdDSA` (issuer: A, S).
pub const TOKEN_ALGORITHM: &str = "REGISTRY_TOKEN_ALGORITHM";
/// A verifier's JWKS URL: the registry's `/.well-known/jwks.json`.
pub const JWKS_URL: &str = "REGISTRY_JWKS_URL";
/// A verifier's JWKS document (instead of [`JWKS_URL`]).
pub const JWKS: &str = "REGISTRY_JWKS";
/// The Secrets Manager secret holding the admin API's signing key ring.
pub const SIGNING_KEYS_SECRET: &str = "REGISTRY_SIGNING_KEYS_SECRET";
/// The Secrets Manager name prefix of tools' client secrets.
pub const SECRETS_PREFIX: &str = "REGISTRY_SECRETS_PREFIX";
/// The reverse-DNS namespace of discovery's MCP server names (`<namespace>/<tool name>`).
pub const DISCOVERY_NAMESPACE: &str = "REGISTRY_DISCOVERY_NAMESPACE";
/// Anonymous discovery's principal, `{"agentId", "context"}` JSON (unset: off).
pub const DISCOVERY_ANONYMOUS: &str = "REGISTRY_DISCOVERY_ANONYMOUS";
/// A gateway point's claims mapping: JSON, context path to claim (unset: only the
/// registry's principal token is accepted).
pub const GATEWAY_CLAIMS: &str = "REGISTRY_GATEWAY_CLAIMS";
/// The agent whose session limits apply to a gateway's callers known by claims.
pub const GATEWAY_AGENT: &str = "REGISTRY_GATEWAY_AGENT";
/// `true`: editors' changes to governed fields become proposals.
pub const REQUIRE_REVIEW: &str = "REGISTRY_REQUIRE_REVIEW";
/// Approvals a proposal needs (1 to 10).
pub const REVIEW_APPROVALS: &str = "REGISTRY_REVIEW_APPROVALS";
/// The EventBridge bus the event forwarder puts events on.
pub const EVENT_BUS: &str = "REGISTRY_EVENT_BUS";
/// The `source` of the forwarded events.
pub const EVENT_SOURCE: &str = "REGISTRY_EVENT_SOURCE";
/// The registry tool whose rules guard a tool Lambda.
pub const TOOL_ID: &str = "REGISTRY_TOOL_ID";
/// `off` turns a tool Lambda's guard off.
pub const GUARD: &str = "REGISTRY_GUARD";
/// How old the guard's cached rules may get when the table cannot be read, in seconds.
pub const GUARD_MAX_STALENESS_SECONDS: &str = "REGISTRY_GUARD_MAX_STALENESS_SECONDS";
/// `serve`'s admin token on first start (else a random one is printed).
pub const ADMIN_TOKEN: &str = "REGISTRY_ADMIN_TOKEN";
/// The registry's API base URL: the CLI's, and a guard's in remote mode.
pub const URL: &str = "REGISTRY_URL";
/// The bearer token of the CLI, and of a guard in remote mode.
pub const TOKEN: &str = "REGISTRY_TOKEN";
/// How a guard in remote mode authenticates to the registry: `bearer` (default,
/// [`TOKEN`]: `serve`) or `sigv4` (its own AWS role: the admin API behind API Gateway).
pub const AUTH: &str = "REGISTRY_AUTH";
/// The AWS region (Lambda sets it): where a guard in remote mode signs its requests for.
pub const AWS_REGION: &str = "AWS_REGION";
/// `serve`'s listen address.
pub const LISTEN: &str = "REGISTRY_LISTEN";
/// `serve --ext-mcp` and `ext-mcp --listen`: where agentgateway's ExtMCP calls are answered.
pub const EXT_MCP_LISTEN: &str = "REGISTRY_EXT_MCP_LISTEN";
/// `serve`'s data directory (and the vault and export commands').
pub const DATA_DIR: &str = "REGISTRY_DATA_DIR";
/// `serve`'s decision log target (`stdout` or `off`).
pub const DECISION_LOG: &str = "REGISTRY_DECISION_LOG";
/// `serve`'s seconds to receive a request's headers.
pub const HEADER_TIMEOUT: &str = "REGISTRY_HEADER_TIMEOUT";
/// `serve`'s seconds to receive a request's body.
pub const REQUEST_TIMEOUT: &str = "REGISTRY_REQUEST_TIMEOUT";
/// `serve`'s seconds to send a response.
pub const WRITE_TIMEOUT: &str = "REGISTRY_WRITE_TIMEOUT";
/// `serve`'s open connections at most.
pub const MAX_CONNECTIONS: &str = "REGISTRY_MAX_CONNECTIONS";
/// `serve`'s requests in flight at most.
pub const MAX_IN_FLIGHT: &str = "REGISTRY_MAX_IN_FLIGHT";
/// `serve`'s longest request target, in bytes.
pub const MAX_URI_BYTES: &str = "REGISTRY_MAX_URI_BYTES";
/// `serve`'s largest request header block, in bytes.
pub const MAX_HEADER_BYTES: &str = "REGISTRY_MAX_HEADER_BYTES";

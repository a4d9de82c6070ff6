//! Tool validation.

use std::net::IpAddr;

use super::common::{
    check_id, check_lambda_arn, check_lifecycle, check_rules, check_tags, check_test_type,
    check_text, check_unknown,
};
use crate::violation::Violations;
use crate::{AgentFramework, ExecutionType, McpAuth, ToolDefinition, Violation};

/// A Secrets Manager secret ARN (`auth.clientSecretRef`), in any partition.
static SECRET_ARN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    #[allow(clippy::expect_used)]
    regex::Regex::new(
        r"^arn:aws(-[a-z]+)*:secretsmanager:[a-z]{2}(-[a-z]+)+-\d{1,2}:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$",
    )
    .expect("literal pattern compiles")
});

/// Maximum description length, in characters.
pub const MAX_DESCRIPTION: usize = 200;
/// Maximum inline code size, in bytes.
pub const MAX_CODE_BYTES: usize = 64 * 1024;
/// Allowed execution timeout range, in seconds.
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u32> = 1..=900;

const FIELDS: &[&str] = &[
    "toolId",
    "executionType",
    "name",
    "displayName",
    "description",
    "executionTimeout",
    "supportedAgentFrameworks",
    "functionSchema",
    "types",
    "lambdaArn",
    "url",
    "auth",
    "code",
    "tags",
    "lifecycle",
    "accessRules",
    "callRules",
    "rateLimit",
    "testType",
    "version",
    "createdBy",
    "lastModifiedBy",
    "createdAt",
    "updatedAt",
];

/// Checks a tool definition; `Err` lists every violation with its JSON Pointer.
pub fn tool(def: &ToolDefinition) -> Result<(), Vec<Violation>> {
    let mut v = Violations::new();
    check_unknown(&mut v, "", &def.unknown, FIELDS);
    check_id(&mut v, "/toolId", &def.tool_id);
    if !is_action_group_name(&def.name) {
        v.push(
            "/name",
            "must match ([0-9a-zA-Z][_-]?){1,100}: letters and digits, each optionally followed by one _ or -",
        );
    }
    check_text(&mut v, "/displayName", &def.display_name, 200);
    if def.description.chars().count() > MAX_DESCRIPTION {
        v.push(
            "/description",
            format!(
                "must be at most {MAX_DESCRIPTION} characters: it is the action group's description (AWS `ResourceDescription`; got {})",
                def.description.chars().count()
            ),
        );
    } else {
        check_text(&mut v, "/description", &def.description, MAX_DESCRIPTION);
    }
    if let Some(t) = def.execution_timeout
        && !TIMEOUT_RANGE.contains(&t)
    {
        v.push("/executionTimeout", "must be between 1 and 900 seconds");
    }
    if def.supported_agent_frameworks.is_empty() {
        v.push("/supportedAgentFrameworks", "must list at least one framework (\"bedrock\")");
    }
    check_target(&mut v, def);
    let bedrock = def.supported_agent_frameworks.contains(&AgentFramework::Bedrock);
    for error in registry_types::validate_tool_schema(
        def.function_schema.as_deref(),
        def.types.as_ref(),
        bedrock,
    ) {
        v.push(error.path, error.message);
    }
    if let Some(rules) = &def.access_rules {
        check_rules(&mut v, "/accessRules", rules);
    }
    if let Some(rate) = &def.rate_limit {
        super::limits::check_rate(&mut v, rate);
    }
    if let Some(rules) = &def.call_rules {
        for error in registry_access::validate_call_rules(rules, &def.call_schema()) {
            v.push(format!("/callRules{}", error.path), error.message);
        }
    }
    if let Some(lifecycle) = &def.lifecycle {
        check_lifecycle(&mut v, "/lifecycle", lifecycle);
    }
    if let Some(tags) = &def.tags {
        check_tags(&mut v, "/tags", tags);
    }
    check_test_type(&mut v, "/testType", def.test_type.as_deref());
    v.into_result()
}

fn is_action_group_name(name: &str) -> bool {
    // ([0-9a-zA-Z][_-]?){1,100}: alphanumerics, each optionally followed by one separator.
    let mut units = 0;
    let mut after_separator_allowed = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            units += 1;
            after_separator_allowed = true;
        } else if (c == '_' || c == '-') && after_separator_allowed {
            after_separator_allowed = false;
        } else {
            return false;
        }
    }
    (1..=100).contains(&units)
}

/// Checks that exactly the fields of the execution type are present and valid.
fn check_target(v: &mut Violations, def: &ToolDefinition) {
    let ty = def.execution_type.as_str();
    let present = [
        ("lambdaArn", def.lambda_arn.is_some(), ExecutionType::Lambda),
        ("url", def.url.is_some(), ExecutionType::Mcp),
        ("auth", def.auth.is_some(), ExecutionType::Mcp),
        ("code", def.code.is_some(), ExecutionType::Inline),
    ];
    for (field, is_present, owner) in present {
        if is_present && owner != def.execution_type {
            v.push(
                format!("/{field}"),
                format!("not allowed for executionType \"{ty}\" (only for \"{}\")", owner.as_str()),
            );
        }
    }
    match def.execution_type {
        ExecutionType::Lambda => match &def.lambda_arn {
            Some(arn) => check_lambda_arn(v, "/lambdaArn", arn),
            None => v.push("/lambdaArn", "required for executionType \"lambda\""),
        },
        ExecutionType::Mcp => {
            match &def.url {
                Some(url) => check_url(v, "/url", url),
                None => v.push("/url", "required for executionType \"mcp\""),
            }
            if let Some(auth) = &def.auth {
                check_auth(v, auth);
            }
        }
        ExecutionType::Inline => match &def.code {
            Some(code) if code.trim().is_empty() => v.push("/code", "must not be empty"),
            Some(code) if code.len() > MAX_CODE_BYTES => v.push(
                "/code",
                format!("must be at most {MAX_CODE_BYTES} bytes (got {})", code.len()),
            ),
            Some(_) => {}
            None => v.push("/code", "required for executionType \"inline\""),
        },
    }
}

fn check_auth(v: &mut Violations, auth: &McpAuth) {
    check_unknown(
        v,
        "/auth",
        &auth.unknown,
        &["clientId", "clientSecret", "clientSecretRef", "tokenUrl"],
    );
    check_text(v, "/auth/clientId", &auth.client_id, 1_024);
    match (&auth.client_secret, &auth.client_secret_ref) {
        (Some(_), Some(_)) => {
            v.push("/auth/clientSecretRef", "give either clientSecret or clientSecretRef, not both")
        }
        (Some(secret), None) if secret.expose().is_empty() => {
            v.push("/auth/clientSecret", "must not be empty")
        }
        (None, Some(arn)) if !SECRET_ARN.is_match(arn) => v.push(
            "/auth/clientSecretRef",
            "must be a Secrets Manager secret ARN \
             (arn:aws:secretsmanager:<region>:<account>:secret:<name>)",
        ),
        (Some(_), None) | (None, Some(_)) => {}
        (None, None) => v.push("/auth/clientSecret", "required when auth is given"),
    }
    check_url(v, "/auth/tokenUrl", &auth.token_url);
}

/// Longest URL accepted (the MCP `url`, `auth.tokenUrl`, an agent's `endpoint`), in bytes.
pub const MAX_URL_BYTES: usize = 2_048;

/// Checks that `raw` is an https URL, or http on a loopback host, naming a host and no
/// user (credentials belong in `auth`), with no space or control character (no CR or
/// LF), at most [`MAX_URL_BYTES`] long.
pub(crate) fn check_url(v: &mut Violations, path: &str, raw: &str) {
    if raw.len() > MAX_URL_BYTES {
        v.push(path, format!("must be at most {MAX_URL_BYTES} bytes (got {})", raw.len()));
        return;
    }
    if raw.chars().any(|c| c.is_control() || c.is_whitespace()) {
        v.push(path, "must not contain spaces or control characters (such as CR or LF)");
        return;
    }
    // Not a URL character (RFC 3986); parsers disagree on it (WHATWG reads `\\` as `/`,
    // RFC 3986 parsers as part of the user info), so the host a runtime connects to could
    // differ from the host checked here.
    if raw.contains('\\') {
        v.push(path, "must not contain a backslash (write `/`)");
        return;
    }
    let Ok(url) = url::Url::parse(raw) else {
        v.push(path, "is not a valid URL");
        return;
    };
    // The authority as written: the parser skips extra slashes and an empty `@`.
    let authority =
        raw.split_once("://").and_then(|(_, rest)| rest.split(['/', '\\', '?', '#']).next());
    match authority {
        None | Some("") => {
            v.push(path, "must name a host (scheme://host/...)");
            return;
        }
        Some(authority) if authority.contains('@') => {
            v.push(path, "must not carry a user name or password (credentials belong in auth)");
            return;
        }
        Some(_) => {}
    }
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => {}
        "http" if loopback => {}
        _ => v.push(path, "must be an https URL (http is allowed only for loopback hosts)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "get_weather", "get-weather-2", "A1_b2-c3", &"a".repeat(100)] {
            assert!(is_action_group_name(ok), "{ok}");
        }
        for bad in ["", "_a", "a__b", "a-_b", "a b", "é", &"a".repeat(101)] {
            assert!(!is_action_group_name(bad), "{bad}");
        }
        assert!(is_action_group_name("a_"));
    }

    #[test]
    fn urls() {
        let mut v = Violations::new();
        for ok in [
            "https://mcp.example.com/x",
            "http://localhost:9000",
            "http://127.0.0.1/",
            "http://[::1]:80/",
        ] {
            check_url(&mut v, "/url", ok);
        }
        assert!(v.is_empty(), "{v:?}");
        for bad in ["http://example.com", "ftp://x", "not a url", "http://10.0.0.1"] {
            check_url(&mut v, "/url", bad);
        }
        assert_eq!(v.as_slice().len(), 4);
    }

    #[test]
    fn urls_with_users_without_hosts_with_line_breaks_or_too_long_are_refused() {
        let long = format!("https://idp.example.com/{}", "a".repeat(MAX_URL_BYTES));
        for bad in [
            "https://user:pw@idp.example.com/token",
            "https://user@idp.example.com/token",
            "https://@idp.example.com/token",
            "https:///idp.example.com/token",
            "https:idp.example.com/token",
            "https://idp.example.com/token\r\nX-Injected: 1",
            "https://idp.example.com/to ken",
            "\thttps://idp.example.com/token",
            // Parsers disagree on `\`: WHATWG connects to 127.0.0.1, RFC 3986 to evil.com.
            "http://127.0.0.1\\@evil.com/t",
            "http://localhost\\@evil.com/",
            "https://idp.example.com\\token",
            long.as_str(),
        ] {
            let mut v = Violations::new();
            check_url(&mut v, "/auth/tokenUrl", bad);
            assert_eq!(v.as_slice().len(), 1, "{bad:?}");
            assert_eq!(v.as_slice()[0].path, "/auth/tokenUrl");
            assert!(v.as_slice()[0].message.len() < 100, "{bad:?}");
        }
        let mut v = Violations::new();
        let longest = format!("https://idp.example.com/{}", "a".repeat(MAX_URL_BYTES - 24));
        check_url(&mut v, "/url", &longest);
        check_url(&mut v, "/url", "https://idp.example.com:8443/oauth2/token?x=1");
        assert!(v.is_empty(), "{v:?}");
    }
}

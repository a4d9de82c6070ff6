//! The caller identity API Gateway put in the request context, which lambda_http keeps
//! in the request extensions.
//!
//! - HTTP API (payload v2): `requestContext.authorizer.iam.userArn` (IAM authorization),
//!   else `requestContext.authorizer.jwt.claims.sub` with the groups claims
//!   (JWT authorization).
//! - REST API (payload v1): `requestContext.identity.userArn` (IAM authorization), else
//!   `requestContext.authorizer.claims.sub` with the groups claims (Cognito authorizer).
//!
//! Groups come from the claims `cognito:groups` and `groups`, in any of the forms API
//! Gateway delivers them: a JSON array, `"[a b]"` (HTTP API flattens arrays like this),
//! or `"a,b"`.

use lambda_http::request::RequestContext;
use serde_json::Value;

/// Claims that carry group membership.
pub const GROUP_CLAIMS: [&str; 2] = ["cognito:groups", "groups"];

/// An authenticated API Gateway caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The name recorded as `createdBy`: the principal ARN or the JWT `sub`.
    pub name: String,
    /// The IAM principal ARN, for IAM-authorized calls.
    pub arn: Option<String>,
    /// JWT groups, for JWT-authorized calls.
    pub groups: Vec<String>,
}

impl Identity {
    /// The identity in `extensions` (from lambda_http), if API Gateway authenticated
    /// the caller.
    pub fn from_extensions(extensions: &http::Extensions) -> Option<Self> {
        match extensions.get::<RequestContext>()? {
            RequestContext::ApiGatewayV2(ctx) => {
                let authorizer = ctx.authorizer.as_ref()?;
                let iam = authorizer.iam.as_ref().and_then(|iam| iam.user_arn.as_deref());
                if let Some(arn) = non_empty(iam) {
                    return Some(Self::iam(arn));
                }
                let claims = &authorizer.jwt.as_ref()?.claims;
                let sub = non_empty(claims.get("sub").map(String::as_str))?;
                let groups = GROUP_CLAIMS
                    .iter()
                    .filter_map(|c| claims.get(*c))
                    .flat_map(|v| parse_groups(&Value::String(v.clone())))
                    .collect();
                Some(Self { name: sub.to_owned(), arn: None, groups })
            }
            RequestContext::ApiGatewayV1(ctx) => {
                if let Some(arn) = non_empty(ctx.identity.user_arn.as_deref()) {
                    return Some(Self::iam(arn));
                }
                let claims = ctx.authorizer.fields.get("claims")?.as_object()?;
                let sub = non_empty(claims.get("sub").and_then(Value::as_str))?;
                let groups = GROUP_CLAIMS
                    .iter()
                    .filter_map(|c| claims.get(*c))
                    .flat_map(parse_groups)
                    .collect();
                Some(Self { name: sub.to_owned(), arn: None, groups })
            }
            _ => None,
        }
    }

    fn iam(arn: &str) -> Self {
        Self { name: arn.to_owned(), arn: Some(arn.to_owned()), groups: Vec::new() }
    }
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Group names from a claim value: a JSON array of strings, or a string holding a JSON
/// array, `[a b]` or `a,b`.
fn parse_groups(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .filter(|g| !g.is_empty())
            .collect(),
        Value::String(text) => {
            if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) {
                return parse_groups(&Value::Array(items));
            }
            let inner = text.trim();
            let inner = inner.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(inner);
            inner
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|g| !g.is_empty())
                .map(str::to_owned)
                .collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn extensions(event: Value) -> http::Extensions {
        let request = lambda_http::request::from_str(&event.to_string()).unwrap();
        request.into_parts().0.extensions
    }

    fn v2(authorizer: Option<Value>) -> Value {
        let mut ctx = json!({
            "routeKey": "$default", "accountId": "123456789012", "stage": "$default",
            "requestId": "r", "apiId": "api", "domainName": "api.example.com",
            "domainPrefix": "api", "time": "21/Nov/2026:08:00:00 +0000", "timeEpoch": 0,
            "http": {"method": "GET", "path": "/agents", "protocol": "HTTP/1.1",
                     "sourceIp": "192.0.2.1", "userAgent": "test"}
        });
        if let Some(a) = authorizer {
            ctx["authorizer"] = a;
        }
        json!({"version": "2.0", "routeKey": "$default", "rawPath": "/agents",
               "rawQueryString": "", "headers": {}, "requestContext": ctx, "isBase64Encoded": false})
    }

    fn v1(ctx_extra: Value) -> Value {
        let mut ctx = json!({
            "accountId": "123456789012", "resourceId": "x", "stage": "prod", "requestId": "r",
            "identity": {"sourceIp": "192.0.2.1"}, "resourcePath": "/{proxy+}",
            "httpMethod": "GET", "apiId": "api"
        });
        for (k, v) in ctx_extra.as_object().unwrap() {
            if k == "identity" {
                ctx["identity"]["userArn"] = v.clone();
            } else {
                ctx[k] = v.clone();
            }
        }
        json!({"resource": "/{proxy+}", "path": "/agents", "httpMethod": "GET", "headers": {},
               "multiValueHeaders": {}, "queryStringParameters": null,
               "multiValueQueryStringParameters": null, "pathParameters": null,
               "stageVariables": null, "requestContext": ctx, "body": null, "isBase64Encoded": false})
    }

    #[test]
    fn http_api_iam_caller() {
        let arn = "arn:aws:sts::123456789012:assumed-role/Admin/jane";
        let ext = extensions(v2(Some(
            json!({"iam": {"accessKey": "AKIA", "accountId": "123456789012",
            "callerId": "AROA:jane", "principalOrgId": null, "userArn": arn, "userId": "AROA:jane"}}),
        )));
        let id = Identity::from_extensions(&ext).unwrap();
        assert_eq!(id, Identity { name: arn.into(), arn: Some(arn.into()), groups: vec![] });
    }

    #[test]
    fn http_api_jwt_caller_with_flattened_groups() {
        let ext = extensions(v2(Some(json!({"jwt": {"claims": {
            "sub": "7c1d-42", "cognito:groups": "[registry-editors ops]", "groups": "a,b"},
            "scopes": null}}))));
        let id = Identity::from_extensions(&ext).unwrap();
        assert_eq!(id.name, "7c1d-42");
        assert_eq!(id.arn, None);
        assert_eq!(id.groups, ["registry-editors", "ops", "a", "b"]);
    }

    #[test]
    fn missing_or_empty_identity_is_none() {
        assert_eq!(Identity::from_extensions(&extensions(v2(None))), None);
        let empty_sub = v2(Some(json!({"jwt": {"claims": {"sub": " "}, "scopes": null}})));
        assert_eq!(Identity::from_extensions(&extensions(empty_sub)), None);
        assert_eq!(Identity::from_extensions(&http::Extensions::new()), None);
    }

    #[test]
    fn rest_api_iam_and_cognito_callers() {
        let arn = "arn:aws:iam::123456789012:user/alice";
        let id = Identity::from_extensions(&extensions(v1(json!({"identity": arn})))).unwrap();
        assert_eq!(id.arn.as_deref(), Some(arn));
        let cognito = v1(json!({"authorizer": {"claims": {"sub": "u-1",
            "cognito:groups": ["admins", "editors"]}}}));
        let id = Identity::from_extensions(&extensions(cognito)).unwrap();
        assert_eq!(
            (id.name.as_str(), id.groups.as_slice()),
            ("u-1", &["admins".to_owned(), "editors".to_owned()][..])
        );
        assert_eq!(Identity::from_extensions(&extensions(v1(json!({})))), None);
    }

    #[test]
    fn group_claim_forms() {
        assert_eq!(parse_groups(&json!("[\"a\",\"b\"]")), ["a", "b"]);
        assert_eq!(parse_groups(&json!("[a b]")), ["a", "b"]);
        assert_eq!(parse_groups(&json!("a, b")), ["a", "b"]);
        assert_eq!(parse_groups(&json!("single")), ["single"]);
        assert!(parse_groups(&json!(7)).is_empty());
        assert!(parse_groups(&json!("[]")).is_empty());
    }
}

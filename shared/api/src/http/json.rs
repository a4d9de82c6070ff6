//! The JSON body extractor: content type, size limit, syntax and type errors all
//! become problems with JSON Pointer paths, never a 500. An object that repeats a key
//! is malformed (`MALFORMED_JSON` at the key's pointer), never last-one-wins.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use registry_core::Violation;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::http::problem::{Code, Problem};
use crate::service::{JsonError, from_json, parse_strict};

/// Largest accepted request body: 1 MiB.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Media types of a JSON body: a definition, a resolution context, a call.
const JSON_TYPES: &[&str] = &["application/json"];

/// Media types of a merge patch.
const MERGE_PATCH_TYPES: &[&str] = &["application/json", "application/merge-patch+json"];

/// A JSON request body deserialized into `T`.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonText(bytes) = JsonText::from_request(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// A JSON request body as text, not parsed yet: content type and size checked.
#[derive(Debug, Clone)]
pub struct JsonText(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonText {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        check_content_type(req.headers(), JSON_TYPES)?;
        read_body(req, state).await
    }
}

/// A JSON Merge Patch body (RFC 7396), sent as `application/merge-patch+json` or
/// `application/json`: the only body that may name the merge-patch media type.
#[derive(Debug, Clone)]
pub struct MergePatchBody(pub serde_json::Value);

impl<S: Send + Sync> FromRequest<S> for MergePatchBody {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        check_content_type(req.headers(), MERGE_PATCH_TYPES)?;
        let JsonText(bytes) = read_body(req, state).await?;
        parse_json(&bytes).map(MergePatchBody)
    }
}

/// Reads the body within the size limit.
async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<JsonText, Problem> {
    Bytes::from_request(req, state).await.map(JsonText).map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Problem::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                Code::PayloadTooLarge,
                format!("the body is larger than {MAX_BODY_BYTES} bytes"),
            )
        } else {
            Problem::new(StatusCode::BAD_REQUEST, Code::MalformedJson, "the body could not be read")
        }
    })
}

/// Parses a JSON body strictly (no repeated keys) into `T`, every error a problem.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    let value = parse_strict(bytes).map_err(|err| {
        let message = err.to_string();
        let errors = match err {
            JsonError::DuplicateKey(violation) => vec![violation],
            JsonError::Syntax(_) => {
                vec![Violation { path: String::new(), message: message.clone() }]
            }
        };
        Problem { errors, ..Problem::new(StatusCode::BAD_REQUEST, Code::MalformedJson, message) }
    })?;
    from_json(value).map_err(Problem::validation)
}

/// Initial size of a JSON response buffer: a resolution of ten tools is about 7 KiB,
/// which then takes one allocation instead of a doubling series from 128 bytes.
const RESPONSE_BUFFER: usize = 8 * 1024;

/// A `200 OK` JSON response of `value`, encoded straight into one buffer.
pub fn json_ok<T: Serialize>(value: &T) -> Response {
    let mut body = Vec::with_capacity(RESPONSE_BUFFER);
    match serde_json::to_writer(&mut body, value) {
        Ok(()) => ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body)
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "response not encodable");
            Problem::internal().into_response()
        }
    }
}

/// Accepts the media types in `accepted` (with parameters, in any case): anything else,
/// another `+json` type included, is a 415, so a merge patch sent to a PUT is never
/// taken for a full replacement.
fn check_content_type(headers: &http::HeaderMap, accepted: &[&str]) -> Result<(), Problem> {
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    match essence.as_deref() {
        Some(t) if accepted.contains(&t) => Ok(()),
        other => Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Code::UnsupportedMediaType,
            format!(
                "expected `Content-Type: {}`, got {}",
                accepted.join("` or `"),
                other.map_or_else(|| "none".to_owned(), |t| format!("`{t}`"))
            ),
        )),
    }
}

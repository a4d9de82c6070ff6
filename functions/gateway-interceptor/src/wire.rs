//! The interceptor documents AgentCore Gateway exchanges with its interceptor Lambda
//! (AgentCore developer guide, "Types of interceptors", MCP targets): the input an
//! interception point receives and the output it answers, version "1.0" both ways.
//!
//! Input: `{"interceptorInputVersion": "1.0", "mcp": {"rawGatewayRequest": {"body"},
//! "gatewayRequest": {"path", "httpMethod", "headers"?, "body"}, "gatewayResponse"?:
//! {"statusCode", "headers"?, "body"}}}`: `headers` only with `passRequestHeaders`,
//! `gatewayResponse` only at the RESPONSE point. Output: `{"interceptorOutputVersion":
//! "1.0", "mcp": {"transformedGatewayRequest": {...}}}` (the request goes on to the
//! target) or `{... "transformedGatewayResponse": {"statusCode", "headers"?, "body"}}`
//! (the gateway answers the client with it, and at the REQUEST point never calls the
//! target). Values the interceptor passes on are kept as the gateway sent them
//! ([`RawValue`]), byte for byte, except that a passed request carries no
//! `Authorization` header ([`NOT_FORWARDED`]).

use std::borrow::Cow;

use crate::members::{Headers, Key, Repeated, Without};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The request header a passed request never carries on to the target: the caller's
/// bearer token (the registry's principal token or the gateway's inbound JWT).
pub const NOT_FORWARDED: &str = "Authorization";

/// The only input and output version this function reads and writes.
pub const VERSION: &str = "1.0";

/// The event of either interception point.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterceptorInput<'a> {
    /// `"1.0"`; any other version is refused.
    #[serde(borrow)]
    pub interceptor_input_version: Cow<'a, str>,
    /// The MCP exchange.
    #[serde(borrow)]
    pub mcp: McpInput<'a>,
}

/// `mcp` of the input. `rawGatewayRequest` (the body as text) is not read: the parsed
/// `gatewayRequest.body` is the same request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpInput<'a> {
    /// The client's request, as the gateway will send it on (REQUEST) or sent it
    /// (RESPONSE).
    #[serde(borrow, default)]
    pub gateway_request: Option<GatewayRequest<'a>>,
    /// The target's answer: present at the RESPONSE point only.
    #[serde(borrow, default)]
    pub gateway_response: Option<&'a RawValue>,
}

/// `gatewayRequest`, read in the same pass as the event: its members in order (`path`,
/// `httpMethod` and any other kept as written), the headers decoded, the body raw.
/// Written back member by member: what the gateway sent, header values re-encoded as
/// the same JSON strings, except the caller's `Authorization` ([`NOT_FORWARDED`]).
#[derive(Debug)]
pub struct GatewayRequest<'a> {
    members: Vec<(Cow<'a, str>, Option<&'a RawValue>)>,
    /// The client's HTTP headers (names in any case), with `passRequestHeaders` only.
    pub headers: Option<Headers<'a>>,
    /// The JSON-RPC message.
    pub body: Option<&'a RawValue>,
}

impl<'de: 'a, 'a> Deserialize<'de> for GatewayRequest<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = GatewayRequest<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("gatewayRequest, an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<GatewayRequest<'a>, M::Error> {
                let mut request = GatewayRequest { members: Vec::new(), headers: None, body: None };
                while let Some(Key(key)) = map.next_key::<Key<'a>>()? {
                    if request.members.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(Repeated(key.into_owned())));
                    }
                    let value = match key.as_ref() {
                        "headers" => {
                            request.headers = map.next_value::<Option<Headers<'a>>>()?;
                            None
                        }
                        "body" => {
                            let body = map.next_value::<&'a RawValue>()?;
                            request.body = Some(body);
                            Some(body)
                        }
                        _ => Some(map.next_value::<&'a RawValue>()?),
                    };
                    request.members.push((key, value));
                }
                Ok(request)
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

impl Serialize for GatewayRequest<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.members.len()))?;
        for (key, value) in &self.members {
            match (value, &self.headers) {
                (Some(raw), _) => map.serialize_entry(key, raw)?,
                // the caller's credentials are for the gateway and this function, never
                // for the target (it gets the gateway's outbound credentials)
                (None, Some(headers)) => {
                    map.serialize_entry(key, &Without { headers, skip: &[NOT_FORWARDED] })?
                }
                (None, None) => map.serialize_entry(key, &self.headers)?,
            }
        }
        map.end()
    }
}

/// `gatewayResponse` (and `transformedGatewayResponse`): a status, headers, a body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayResponse<'a> {
    /// The HTTP status the client gets.
    pub status_code: StatusCode<'a>,
    /// Response headers, when any are set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<&'a RawValue>,
    /// The JSON-RPC message.
    pub body: Box<RawValue>,
}

/// A status code: the target's as it came, or one of this function's.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum StatusCode<'a> {
    /// As the gateway sent it.
    Kept(&'a RawValue),
    /// This function's answer.
    Set(u16),
}

/// The output document of either point.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InterceptorOutput<'a> {
    /// Always [`VERSION`].
    pub interceptor_output_version: &'static str,
    /// What the gateway does next.
    pub mcp: McpOutput<'a>,
}

/// `mcp` of the output: exactly one member.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum McpOutput<'a> {
    /// Send this request on to the target (the REQUEST point's pass).
    TransformedGatewayRequest(&'a GatewayRequest<'a>),
    /// Answer the client with this response.
    TransformedGatewayResponse(Response<'a>),
}

/// The response the client gets.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Response<'a> {
    /// The target's, as it came (the RESPONSE point's pass).
    Kept(&'a RawValue),
    /// The target's with its body changed (a filtered `tools/list`).
    Changed(Box<RawValue>),
    /// A response of this function's making, or the target's changed.
    Made(GatewayResponse<'a>),
}

impl<'a> InterceptorOutput<'a> {
    /// The output whose `mcp` is `mcp`.
    pub fn new(mcp: McpOutput<'a>) -> Self {
        Self { interceptor_output_version: VERSION, mcp }
    }

    /// The document as JSON text.
    pub fn to_raw(&self) -> Box<RawValue> {
        // only strings, numbers and raw JSON inside: serializing cannot fail
        serde_json::value::to_raw_value(self).unwrap_or_else(|_| fallback())
    }
}

/// A response of this function's own: status 200 (a JSON-RPC answer, never a transport
/// error), `Content-Type: application/json`, and `body`.
pub fn answered(body: Box<RawValue>) -> GatewayResponse<'static> {
    GatewayResponse { status_code: StatusCode::Set(200), headers: Some(json_content()), body }
}

fn json_content() -> &'static RawValue {
    static HEADERS: std::sync::LazyLock<Box<RawValue>> = std::sync::LazyLock::new(|| {
        RawValue::from_string(r#"{"Content-Type":"application/json"}"#.to_owned())
            .unwrap_or_else(|_| fallback())
    });
    &HEADERS
}

/// `null`, as raw JSON.
pub(crate) fn fallback() -> Box<RawValue> {
    RawValue::NULL.to_owned()
}

/// Whether `raw` is a JSON object (serde would also read a struct from an array).
pub fn is_object(raw: &RawValue) -> bool {
    raw.get().trim_start().starts_with('{')
}

//! HTTP summarizers for LLM providers, without the HTTP.
//!
//! Each provider module turns a [`SummaryRequest`](crate::SummaryRequest) into an
//! [`HttpRequest`] (`build_request`) and an HTTP answer into summary text or a
//! [`CompactionError`] (`parse_response`). Sending the request is left to the
//! caller: `fetch` in the wasm bindings, any HTTP client natively. Nothing here
//! does I/O or panics.
//!
//! Error messages never contain the API key, even when the server echoes it.

pub mod anthropic;
pub mod openai;

use std::fmt;

use serde_json::Value;

use crate::error::{CompactionError, LlmError};
use crate::text::{json_string, quoted, truncate_string};

/// Most characters of a response body quoted in an error message.
pub const EXCERPT_MAX_CHARS: usize = 200;

/// What replaces the API key wherever it would appear in an error message.
pub const REDACTED: &str = "[REDACTED]";

/// A ready-to-send HTTP request. The method is always `POST` ([`HttpRequest::METHOD`]).
///
/// Its `Debug` output hides the values of credential headers.
#[derive(Clone, PartialEq, Eq, serde::Serialize)]
pub struct HttpRequest {
    /// Absolute URL to post to.
    pub url: String,
    /// Header names (lowercase) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

impl HttpRequest {
    /// The HTTP method of every provider request.
    pub const METHOD: &'static str = "POST";

    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), if is_credential_header(n) { REDACTED } else { v.as_str() }))
            .collect();
        f.debug_struct("HttpRequest")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body", &self.body)
            .finish()
    }
}

fn is_credential_header(name: &str) -> bool {
    ["authorization", "proxy-authorization", "x-api-key", "api-key"].iter().any(|h| name.eq_ignore_ascii_case(h))
}

/// `base` without trailing slashes, followed by `path` (which starts with `/`).
pub(crate) fn join_url(base: &str, path: &str) -> String {
    let mut url = base.trim_end_matches('/').to_owned();
    url.push_str(path);
    url
}

/// `text` with every occurrence of `secret` (raw or JSON-escaped) replaced by
/// [`REDACTED`]. An empty or absent secret changes nothing.
pub fn scrub(text: &str, secret: Option<&str>) -> String {
    let Some(secret) = secret.filter(|s| !s.is_empty()) else {
        return text.to_owned();
    };
    let mut out = text.replace(secret, REDACTED);
    // The key as it would appear inside a JSON string, e.g. with `/` escaped.
    let escaped = quoted(secret);
    let escaped = escaped.trim_matches('"');
    if !escaped.is_empty() && escaped != secret {
        out = out.replace(escaped, REDACTED);
    }
    let slash_escaped = escaped.replace('/', "\\/");
    if !slash_escaped.is_empty() && slash_escaped != escaped {
        out = out.replace(&slash_escaped, REDACTED);
    }
    out
}

/// A one-line, human-readable excerpt of a response body for error messages:
/// the provider's error message when the body is a JSON error (OpenAI,
/// Anthropic, Ollama shapes), otherwise the body itself with whitespace runs
/// collapsed. The secret is scrubbed *before* cutting to
/// [`EXCERPT_MAX_CHARS`] characters (UTF-8 safe), so no part of it survives.
pub fn excerpt(body: &str, secret: Option<&str>) -> String {
    // JSON is re-serialized canonically, so a `\u`-escaped key is caught by `scrub`.
    let text = match serde_json::from_str::<Value>(body) {
        Ok(v) => json_error_message(&v).unwrap_or_else(|| json_string(&v)),
        Err(_) => body.to_owned(),
    };
    let text = scrub(&text, secret);
    let mut collapsed = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    let text = scrub(&collapsed, secret);
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    truncate_string(text, EXCERPT_MAX_CHARS)
}

/// The error message of a JSON error body, with its type when there is one:
/// `{"error":{"type":"rate_limit_error","message":"…"}}` → `rate_limit_error: …`.
fn json_error_message(v: &Value) -> Option<String> {
    match v.get("error") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(err @ Value::Object(_)) => {
            let message = non_empty(err.get("message"))?;
            match non_empty(err.get("type")).or_else(|| non_empty(err.get("code"))) {
                Some(kind) => Some(kind.to_owned() + ": " + message),
                None => Some(message.to_owned()),
            }
        }
        _ => non_empty(v.get("message")).or_else(|| non_empty(v.get("detail"))).map(str::to_owned),
    }
}

/// The error for an HTTP answer outside `200..=299`:
/// `HTTP 429 from the summarizer: <excerpt>`, with `status` set.
pub fn http_error(status: u16, body: &str, secret: Option<&str>) -> LlmError {
    LlmError {
        message: format!("HTTP {status} from the summarizer: {}", excerpt(body, secret)),
        status: Some(status),
        source: None,
    }
}

/// The error for a successful answer of the wrong shape:
/// `malformed response: <what> (body: <excerpt>)`.
pub fn malformed(what: &str, body: &str, secret: Option<&str>) -> LlmError {
    LlmError::new(scrub(&format!("malformed response: {what} (body: {})", excerpt(body, secret)), secret))
}

/// Common part of `parse_response`: the HTTP error for a non-2xx status, the
/// body as JSON otherwise (a malformed-response error if it is not JSON).
pub(crate) fn check_status_and_parse(status: u16, body: &str, secret: Option<&str>) -> Result<Value, CompactionError> {
    if !(200..300).contains(&status) {
        return Err(http_error(status, body, secret).into());
    }
    serde_json::from_str(body).map_err(|e| malformed(&format!("body is not JSON ({e})"), body, secret).into())
}

/// A chat message as providers take it: `{"content": …, "role": …}`.
fn chat_message(role: &str, content: &str) -> Value {
    serde_json::json!({ "content": content, "role": role })
}

/// The trimmed string `v`, if it is a non-empty one.
fn non_empty(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// `text`, or [`CompactionError::EmptySummary`] if it is empty or whitespace.
pub(crate) fn non_empty_summary(text: String) -> Result<String, CompactionError> {
    if text.trim().is_empty() {
        Err(CompactionError::EmptySummary)
    } else {
        Ok(text)
    }
}

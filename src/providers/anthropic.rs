//! Anthropic Messages API.

use std::fmt;

use serde_json::Value;

use serde_json::json;

use super::{chat_message, check_status_and_parse, join_url, malformed, non_empty_summary, HttpRequest};
use crate::error::CompactionError;
use crate::summarizer::SummaryRequest;

/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The default `anthropic-version` header.
pub const DEFAULT_ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` sent when the request has none (the API requires one).
pub const DEFAULT_MAX_TOKENS: i64 = 2048;

/// Where and how to call the Messages API. `Debug` hides the key.
///
/// Calling the API directly from a browser also needs the extra header
/// `anthropic-dangerous-direct-browser-access: true`.
#[derive(Clone, PartialEq, Eq)]
pub struct AnthropicConfig {
    /// API root, [`DEFAULT_BASE_URL`] by default; with or without a trailing
    /// slash or `/v1`.
    pub base_url: String,
    /// Sent as `x-api-key`.
    pub api_key: String,
    /// Model name, e.g. `claude-3-5-haiku-latest`.
    pub model: String,
    /// Extra headers, appended after the standard ones as given.
    pub headers: Vec<(String, String)>,
    /// Sent as `anthropic-version`, [`DEFAULT_ANTHROPIC_VERSION`] by default.
    pub anthropic_version: String,
}

impl AnthropicConfig {
    /// A config with the default base URL and version and no extra headers.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: api_key.into(),
            model: model.into(),
            headers: Vec::new(),
            anthropic_version: DEFAULT_ANTHROPIC_VERSION.to_owned(),
        }
    }
}

impl fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &super::REDACTED)
            .field("model", &self.model)
            .field("headers", &self.headers)
            .field("anthropic_version", &self.anthropic_version)
            .finish()
    }
}

/// The `POST {base_url}/v1/messages` request for `request` (no doubled `/v1`).
/// `max_tokens` is the request's when positive, else [`DEFAULT_MAX_TOKENS`].
pub fn build_request(config: &AnthropicConfig, request: &SummaryRequest) -> HttpRequest {
    let max_tokens = request.max_tokens.filter(|&n| n > 0).unwrap_or(DEFAULT_MAX_TOKENS);
    let body = json!({
        "max_tokens": max_tokens,
        "messages": [chat_message("user", &request.prompt)],
        "model": config.model,
        "system": request.system,
    });

    let base = config.base_url.trim_end_matches('/');
    let url = if base.ends_with("/v1") { join_url(base, "/messages") } else { join_url(base, "/v1/messages") };

    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("x-api-key".to_owned(), config.api_key.clone()),
        ("anthropic-version".to_owned(), config.anthropic_version.clone()),
    ];
    headers.extend(config.headers.iter().cloned());

    HttpRequest { url, headers, body: crate::text::json_string(&body) }
}

/// The summary in a Messages answer: the `text` blocks of `content`, joined.
///
/// Errors: a status outside `200..=299` gives an [`LlmError`](crate::LlmError)
/// with that status; a body that is not JSON or has no `content` array gives a
/// "malformed response" error; no or empty text gives
/// [`CompactionError::EmptySummary`]. The API key never appears in an error message.
pub fn parse_response(config: &AnthropicConfig, status: u16, body: &str) -> Result<String, CompactionError> {
    let key = Some(config.api_key.as_str());
    let value = check_status_and_parse(status, body, key)?;
    let Some(blocks) = value.get("content").and_then(Value::as_array) else {
        return Err(malformed("no content array", body, key).into());
    };
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    non_empty_summary(text)
}

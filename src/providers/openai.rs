//! OpenAI Chat Completions, and the many servers compatible with it (Ollama,
//! vLLM, LM Studio, OpenRouter, …).

use std::fmt;

use serde_json::Value;

use super::{chat_message, check_status_and_parse, join_url, malformed, non_empty_summary, HttpRequest};
use crate::error::CompactionError;
use crate::summarizer::SummaryRequest;

/// Where and how to call a Chat Completions endpoint. `Debug` hides the key.
#[derive(Clone, PartialEq)]
pub struct OpenAIConfig {
    /// API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`;
    /// a trailing slash is fine.
    pub base_url: String,
    /// Sent as `authorization: Bearer <key>`; `None` or empty sends no authorization.
    pub api_key: Option<String>,
    /// Model name, e.g. `gpt-4o-mini`.
    pub model: String,
    /// Extra headers, appended after the standard ones as given.
    pub headers: Vec<(String, String)>,
    /// Sampling temperature; omitted from the body when `None` or not finite.
    pub temperature: Option<f64>,
}

impl OpenAIConfig {
    /// A config with no key, no extra headers and no temperature.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), api_key: None, model: model.into(), headers: Vec::new(), temperature: None }
    }

    fn key(&self) -> Option<&str> {
        self.api_key.as_deref().filter(|k| !k.is_empty())
    }
}

impl fmt::Debug for OpenAIConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAIConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| super::REDACTED))
            .field("model", &self.model)
            .field("headers", &self.headers)
            .field("temperature", &self.temperature)
            .finish()
    }
}

/// The `POST {base_url}/chat/completions` request for `request`: a system and a
/// user message, `max_tokens` when positive, `temperature` when set.
pub fn build_request(config: &OpenAIConfig, request: &SummaryRequest) -> HttpRequest {
    let mut body = serde_json::Map::new();
    if let Some(max) = request.max_tokens.filter(|&n| n > 0) {
        body.insert("max_tokens".to_owned(), max.into());
    }
    let messages = vec![chat_message("system", &request.system), chat_message("user", &request.prompt)];
    body.insert("messages".to_owned(), Value::Array(messages));
    body.insert("model".to_owned(), config.model.clone().into());
    if let Some(t) = config.temperature.filter(|t| t.is_finite()) {
        body.insert("temperature".to_owned(), t.into());
    }

    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = config.key() {
        headers.push(("authorization".to_owned(), "Bearer ".to_owned() + key));
    }
    headers.extend(config.headers.iter().cloned());

    HttpRequest {
        url: join_url(&config.base_url, "/chat/completions"),
        headers,
        body: crate::text::json_string(&Value::Object(body)),
    }
}

/// The summary in a Chat Completions answer: `choices[0].message.content`, a
/// string or an array of text parts (joined).
///
/// Errors: a status outside `200..=299` gives an [`LlmError`](crate::LlmError)
/// with that status; a body that is not JSON or lacks the content gives a
/// "malformed response" error; empty text gives [`CompactionError::EmptySummary`].
/// The API key never appears in an error message.
pub fn parse_response(config: &OpenAIConfig, status: u16, body: &str) -> Result<String, CompactionError> {
    let key = config.key();
    let value = check_status_and_parse(status, body, key)?;
    let Some(message) = value.pointer("/choices/0/message") else {
        return Err(malformed("no choices[0].message", body, key).into());
    };
    match message.get("content") {
        Some(Value::String(text)) => non_empty_summary(text.clone()),
        Some(Value::Array(parts)) => non_empty_summary(parts.iter().filter_map(part_text).collect()),
        _ => {
            let what = match message.get("refusal").and_then(Value::as_str) {
                Some(refusal) => "the model refused: ".to_owned() + refusal,
                None => "no choices[0].message.content string".to_owned(),
            };
            Err(malformed(&what, body, key).into())
        }
    }
}

/// The text of one content part: a string, or an object with a `text` string
/// (`{"type":"text","text":…}`); other parts (images, refusals) have none.
fn part_text(part: &Value) -> Option<&str> {
    match part {
        Value::String(s) => Some(s),
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            None | Some("text" | "output_text") => o.get("text").and_then(Value::as_str),
            Some(_) => None,
        },
        _ => None,
    }
}

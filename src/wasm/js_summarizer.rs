//! The [`Summarizer`] over the user's JS `summarize` callback:
//! `({ system, prompt, maxTokens, signal }) => Promise<string>`.

use futures::future::BoxFuture;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::errors::{describe_thrown, js_type, JsCause};
use super::promise::settled;
use super::values::text_to_js;
use crate::error::LlmError;
use crate::summarizer::{Summarizer, SummaryRequest};
use send_wrapper::SendWrapper;

/// What `summarize` receives: `{ system, prompt, maxTokens, signal }`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SummarizeArgs<'a> {
    system: &'a str,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    prompt: JsValue,
    max_tokens: Option<i64>,
    /// The request's `AbortSignal`, passed as it is.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    signal: JsValue,
}

/// The user's `summarize` function.
pub struct JsSummarizer {
    callback: SendWrapper<js_sys::Function>,
}

impl JsSummarizer {
    /// Wraps a JS function.
    pub fn new(callback: js_sys::Function) -> Self {
        Self { callback: SendWrapper::new(callback) }
    }
}

/// Reads the `{ system, prompt, maxTokens }` a `summarize` function receives,
/// for the package's own summarizers (missing fields read as empty).
pub fn request_from_js(args: &JsValue) -> SummaryRequest {
    let field = |k: &str| js_sys::Reflect::get(args, &k.into()).unwrap_or(JsValue::UNDEFINED);
    SummaryRequest {
        system: field("system").as_string().unwrap_or_default(),
        prompt: field("prompt").as_string().unwrap_or_default(),
        max_tokens: field("maxTokens").as_f64().map(|n| n as i64),
    }
}

/// Aborts the request's `AbortSignal` when dropped before the answer arrived:
/// that is how a timeout (which drops the future) stops the user's `fetch`.
struct AbortOnDrop {
    controller: web_sys::AbortController,
    settled: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.settled {
            self.controller.abort();
        }
    }
}

impl Summarizer for JsSummarizer {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        let callback = (*self.callback).clone();
        Box::pin(SendWrapper::new(async move {
            let controller = web_sys::AbortController::new()
                .map_err(|e| JsCause::llm_error("AbortController is not available", e))?;
            let mut guard = AbortOnDrop { controller, settled: false };
            let args = SummarizeArgs {
                system: &request.system,
                prompt: text_to_js(&request.prompt),
                max_tokens: request.max_tokens,
                signal: guard.controller.signal().into(),
            };
            let args = args
                .serialize(&serde_wasm_bindgen::Serializer::new())
                .map_err(|e| JsCause::llm_error("could not build the summarize arguments", e.into()))?;
            let returned = callback
                .call1(&JsValue::UNDEFINED, &args)
                .map_err(|e| JsCause::llm_error(format!("summarize threw: {}", describe_thrown(&e)), e))?;
            let answer = settled(&returned).await;
            guard.settled = true;
            let value = match answer {
                Ok(value) => value,
                Err(e) if is_compaction_error(&e) => return from_compaction_error(e),
                Err(e) => return Err(JsCause::llm_error(format!("summarize rejected: {}", describe_thrown(&e)), e)),
            };
            value.as_string().ok_or_else(|| {
                let message = format!("summarize resolved to {}, expected a string", js_type(&value));
                JsCause::llm_error(message, value)
            })
        }))
    }
}

fn is_compaction_error(value: &JsValue) -> bool {
    value.is_instance_of::<js_sys::Error>()
        && js_sys::Reflect::get(value, &"name".into()).ok().and_then(|n| n.as_string()).as_deref()
            == Some("CompactionError")
}

/// A `CompactionError` thrown by one of the package's own summarizers keeps its
/// meaning: an empty reply stays `EMPTY_SUMMARY`, an HTTP error keeps its status.
fn from_compaction_error(error: JsValue) -> Result<String, LlmError> {
    let get = |k: &str| js_sys::Reflect::get(&error, &k.into()).unwrap_or(JsValue::UNDEFINED);
    if get("code").as_string().as_deref() == Some("EMPTY_SUMMARY") {
        return Ok(String::new());
    }
    let message = get("message").as_string().unwrap_or_default();
    let message = message.strip_prefix("LLM error: ").unwrap_or(&message).to_owned();
    let status = get("status").as_f64().map(|s| s as u16);
    let cause = get("cause");
    let mut llm_error = JsCause::llm_error(message, if cause.is_undefined() { error } else { cause });
    llm_error.status = status;
    Err(llm_error)
}

//! The [`Summarizer`] over the user's JS `summarize` callback:
//! `({ system, prompt, maxTokens, signal }) => Promise<string>`.

use futures::future::BoxFuture;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::errors::{describe_thrown, js_type, JsCause};
use super::js_text::js_string;
use crate::error::LlmError;
use crate::single_threaded::SingleThreaded;
use crate::summarizer::{Summarizer, SummaryRequest};

/// The user's `summarize` function.
pub struct JsSummarizer {
    callback: SingleThreaded<js_sys::Function>,
}

impl JsSummarizer {
    /// Wraps a JS function.
    pub fn new(callback: js_sys::Function) -> Self {
        Self { callback: SingleThreaded(callback) }
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

#[wasm_bindgen(module = "/src/wasm/js_summarizer.js")]
extern "C" {
    /// `summarize({ system, prompt, maxTokens, signal })`: the summary, or rejects
    /// with `[step, …]` (see the file).
    #[wasm_bindgen(js_name = callSummarize)]
    fn call_summarize(
        summarize: &js_sys::Function,
        system: &JsValue,
        prompt: &JsValue,
        max_tokens: Option<f64>,
        signal: &JsValue,
    ) -> js_sys::Promise;
}

impl Summarizer for JsSummarizer {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        let callback = (*self.callback).clone();
        Box::pin(SingleThreaded(async move {
            let controller = web_sys::AbortController::new()
                .map_err(|e| JsCause::llm_error("AbortController is not available", e))?;
            let mut guard = AbortOnDrop { controller, settled: false };
            let strings = js_string(&request.system).and_then(|system| Ok((system, js_string(&request.prompt)?)));
            let (system, prompt) = strings.map_err(|e| JsCause::llm_error(BUILD_FAILED, e))?;
            let max_tokens = request.max_tokens.map(|n| n as f64);
            let call = call_summarize(&callback, &system, &prompt, max_tokens, &guard.controller.signal());
            let failure: js_sys::Array = match JsFuture::from(call).await {
                Ok(summary) => {
                    guard.settled = true;
                    return Ok(summary.as_string().unwrap_or_default());
                }
                Err(failure) => failure.unchecked_into(),
            };
            let step = failure.get(0).as_f64().unwrap_or_default() as u8;
            // Not settled: the signal is aborted as the guard drops.
            guard.settled = step >= 2;
            let thrown = failure.get(1);
            Err(match step {
                0 => JsCause::llm_error(BUILD_FAILED, thrown),
                1 | 2 => {
                    let what = if step == 1 { "summarize threw: " } else { "summarize rejected: " };
                    JsCause::llm_error(format!("{what}{}", describe_thrown(&thrown)), thrown)
                }
                3 => {
                    let message = format!("summarize resolved to {}, expected a string", js_type(&thrown));
                    JsCause::llm_error(message, thrown)
                }
                _ => {
                    let mut error = JsCause::llm_error(thrown.as_string().unwrap_or_default(), failure.get(3));
                    error.status = failure.get(2).as_f64().map(|s| s as u16);
                    error
                }
            })
        }))
    }
}

const BUILD_FAILED: &str = "could not build the summarize arguments";

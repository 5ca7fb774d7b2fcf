//! `openAISummarizer` / `anthropicSummarizer`: `summarize` functions over
//! `fetch`. The core builds the request and reads the reply; this file only
//! calls `fetch` with the request's `AbortSignal`.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::errors::{describe_thrown, expected, invalid, js_type, threw, to_js_error, JsCause};
use super::inspect::{entries, own_keys};
use super::js_summarizer::request_from_js;
use super::options::Options;
use super::promise::future_to_promise;
use crate::error::CompactionError;
use crate::providers::{anthropic, openai, HttpRequest};
use crate::summarizer::SummaryRequest;

/// A provider: how to build its request and read its reply.
trait Provider: 'static {
    fn request(&self, request: &SummaryRequest) -> HttpRequest;
    fn reply(&self, status: u16, body: &str) -> Result<String, CompactionError>;
    fn secret(&self) -> Option<&str>;
}

impl Provider for openai::OpenAIConfig {
    fn request(&self, request: &SummaryRequest) -> HttpRequest {
        openai::build_request(self, request)
    }
    fn reply(&self, status: u16, body: &str) -> Result<String, CompactionError> {
        openai::parse_response(self, status, body)
    }
    fn secret(&self) -> Option<&str> {
        self.api_key.as_deref()
    }
}

impl Provider for anthropic::AnthropicConfig {
    fn request(&self, request: &SummaryRequest) -> HttpRequest {
        anthropic::build_request(self, request)
    }
    fn reply(&self, status: u16, body: &str) -> Result<String, CompactionError> {
        anthropic::parse_response(self, status, body)
    }
    fn secret(&self) -> Option<&str> {
        Some(&self.api_key)
    }
}

/// `openAISummarizer({ baseURL, apiKey?, model, fetch?, headers?, temperature? })`:
/// a `summarize` function for Chat Completions and compatible servers.
#[wasm_bindgen(js_name = openAISummarizer)]
pub fn open_ai_summarizer(options: JsValue) -> Result<js_sys::Function, JsValue> {
    let o = Options::new(&options, "options", &["baseURL", "apiKey", "model", "fetch", "headers", "temperature"], &[])?;
    let base_url = o
        .string("baseURL")?
        .ok_or_else(|| invalid(o.path("baseURL"), "is required, e.g. \"https://api.openai.com/v1\""))?;
    let model = o.string("model")?.ok_or_else(|| invalid(o.path("model"), "is required"))?;
    let mut config = openai::OpenAIConfig::new(base_url, model);
    config.api_key = o.string("apiKey")?;
    config.headers = headers(&o)?;
    config.temperature = o.number("temperature")?;
    Ok(summarize_function(Rc::new(config), fetch_function(&o)?))
}

/// `anthropicSummarizer({ baseURL?, apiKey, model, fetch?, headers? })`: a
/// `summarize` function for the Anthropic Messages API.
#[wasm_bindgen(js_name = anthropicSummarizer)]
pub fn anthropic_summarizer(options: JsValue) -> Result<js_sys::Function, JsValue> {
    let o = Options::new(&options, "options", &["baseURL", "apiKey", "model", "fetch", "headers"], &[])?;
    let api_key = o.string("apiKey")?.ok_or_else(|| invalid(o.path("apiKey"), "is required"))?;
    let model = o.string("model")?.ok_or_else(|| invalid(o.path("model"), "is required"))?;
    let mut config = anthropic::AnthropicConfig::new(api_key, model);
    if let Some(base_url) = o.string("baseURL")? {
        config.base_url = base_url;
    }
    config.headers = headers(&o)?;
    Ok(summarize_function(Rc::new(config), fetch_function(&o)?))
}

/// The `headers` option: an object of name → value, or a `Headers` or a `Map`
/// (what `fetch` takes too); anything else is refused, not read as none.
fn headers(o: &Options) -> Result<Vec<(String, String)>, JsValue> {
    let Some(value) = o.get("headers")? else { return Ok(Vec::new()) };
    let path = o.path("headers");
    let object = entries(
        &value,
        &path,
        &["Headers", "Map"],
        "an object of header name → value, a Headers or a Map",
        "expected header names that are strings",
    )?;
    let mut headers = Vec::new();
    for key in own_keys(&object, &path)?.iter() {
        let key = key.as_string().unwrap_or_default();
        let at = format!("{path}.{key}");
        let v = js_sys::Reflect::get(&object, &key.as_str().into()).map_err(|e| threw(&at, &e))?;
        headers.push((key, v.as_string().ok_or_else(|| expected(&at, "a string", &v))?));
    }
    Ok(headers)
}

fn fetch_function(o: &Options) -> Result<js_sys::Function, JsValue> {
    if let Some(f) = o.function("fetch")? {
        return Ok(f);
    }
    js_sys::Reflect::get(&js_sys::global(), &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| invalid(o.path("fetch"), "no global fetch here: pass one"))
}

/// What `fetch` threw, with the messages of its `cause` chain: Node's fetch
/// rejects with a bare "fetch failed" and puts the reason in `cause`
/// ("connect ECONNREFUSED …", "other side closed", …).
fn with_causes(error: &JsValue) -> String {
    let mut text = describe_thrown(error);
    let mut value = error.clone();
    // A few levels: enough for undici's, and a cycle cannot loop.
    for _ in 0..4 {
        value = match js_sys::Reflect::get(&value, &"cause".into()) {
            Ok(cause) if !cause.is_undefined() && !cause.is_null() => cause,
            _ => break,
        };
        let cause = describe_thrown(&value);
        if !text.ends_with(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}

/// The provider is `dyn`: one copy of the fetch code serves both.
fn summarize_function(provider: Rc<dyn Provider>, fetch: js_sys::Function) -> js_sys::Function {
    let summarize = Closure::<dyn Fn(JsValue) -> js_sys::Promise>::new(move |args: JsValue| {
        let provider = Rc::clone(&provider);
        let fetch = fetch.clone();
        future_to_promise(async move { call(&*provider, &fetch, &args).await.map(JsValue::from) })
    });
    summarize.into_js_value().unchecked_into()
}

#[wasm_bindgen(module = "/src/wasm/fetch_summarizers.js")]
extern "C" {
    /// `fetch(url, { method, headers, body, signal })` and the reply's text:
    /// `[status, text]`, or rejects with `[what, thrown]` (see the file).
    #[wasm_bindgen(js_name = fetchText)]
    fn fetch_text(
        fetch: &js_sys::Function,
        url: &str,
        method: &str,
        headers: &JsValue,
        body: &[u8],
        signal: &JsValue,
    ) -> js_sys::Promise;
}

async fn call(provider: &dyn Provider, fetch: &js_sys::Function, args: &JsValue) -> Result<String, JsValue> {
    let http = provider.request(&request_from_js(args));
    let signal = js_sys::Reflect::get(args, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
    let headers = js_sys::Object::new();
    for (k, v) in &http.headers {
        js_sys::Reflect::set(&headers, &k.into(), &v.into())?;
    }
    // UTF-8 bytes, as fetch sends them: a string body would be decoded here
    // and encoded again by fetch (for a 2 MB Cyrillic transcript, ~10 ms in Node 20).
    let pending = fetch_text(fetch, &http.url, HttpRequest::METHOD, &headers, http.body.as_bytes(), &signal);
    let reply = match JsFuture::from(pending).await {
        Ok(reply) => reply.unchecked_into::<js_sys::Array>(),
        Err(failure) => {
            let failure = failure.unchecked_into::<js_sys::Array>();
            return Err(failed(provider, failure.get(0).as_string(), failure.get(1)));
        }
    };
    let status = reply.get(0).as_f64().unwrap_or_default() as u16;
    provider.reply(status, &reply.get(1).as_string().unwrap_or_default()).map_err(|e| to_js_error(&e))
}

/// What `fetchText` rejected with: the error `thrown` as is when making the
/// request threw (`what` is `None`), else an `LLM_ERROR` with `thrown` as cause.
fn failed(provider: &dyn Provider, what: Option<String>, thrown: JsValue) -> JsValue {
    let Some(what) = what else { return thrown };
    let message = if what.is_empty() {
        format!("fetch resolved to {}, expected a Response", js_type(&thrown))
    } else {
        // Not "fetch failed: fetch failed: …" when fetch's own message says it already.
        let text = with_causes(&thrown);
        let message = match text.strip_prefix(what.as_str()) {
            Some(rest) if rest.is_empty() || rest.starts_with(": ") => text.clone(),
            _ => format!("{what}: {text}"),
        };
        crate::providers::scrub(&message, provider.secret())
    };
    to_js_error(&CompactionError::LlmError(JsCause::llm_error(message, thrown)))
}

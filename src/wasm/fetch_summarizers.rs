//! `openAISummarizer` / `anthropicSummarizer`: `summarize` functions over
//! `fetch`. The core builds the request and reads the reply; this file only
//! calls `fetch` with the request's `AbortSignal`.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::errors::{describe_thrown, expected, invalid, js_type, threw, to_js_error, JsCause};
use super::inspect::{entries, own_keys};
use super::js_summarizer::request_from_js;
use super::options::Options;
use super::promise::{future_to_promise, settled};
use crate::error::CompactionError;
use crate::model::read::field;
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
        let at = field(&path, &key);
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

async fn call(provider: &dyn Provider, fetch: &js_sys::Function, args: &JsValue) -> Result<String, JsValue> {
    let http = provider.request(&request_from_js(args));
    let signal = js_sys::Reflect::get(args, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
    let init = js_sys::Object::new();
    let headers = js_sys::Object::new();
    for (k, v) in &http.headers {
        js_sys::Reflect::set(&headers, &k.into(), &v.into())?;
    }
    js_sys::Reflect::set(&init, &"method".into(), &HttpRequest::METHOD.into())?;
    js_sys::Reflect::set(&init, &"headers".into(), &headers)?;
    // UTF-8 bytes, as fetch sends them: a string body would be decoded here and encoded again by fetch.
    js_sys::Reflect::set(&init, &"body".into(), &js_sys::Uint8Array::from(http.body.as_bytes()))?;
    js_sys::Reflect::set(&init, &"signal".into(), &signal)?;
    let failed = |what: &str, e: JsValue| {
        // Not "fetch failed: fetch failed: …" when fetch's own message says it already.
        let thrown = with_causes(&e);
        let message = match thrown.strip_prefix(what) {
            Some(rest) if rest.is_empty() || rest.starts_with(": ") => thrown.clone(),
            _ => format!("{what}: {thrown}"),
        };
        let message = crate::providers::scrub(&message, provider.secret());
        to_js_error(&CompactionError::LlmError(JsCause::llm_error(message, e)))
    };
    let pending =
        fetch.call2(&JsValue::UNDEFINED, &http.url.as_str().into(), &init).map_err(|e| failed("fetch threw", e))?;
    let response = settled(&pending).await.map_err(|e| failed("fetch failed", e))?;
    // A custom fetch may resolve to anything: what is not a Response says so.
    let not_response = || {
        let message = format!("fetch resolved to {}, expected a Response", js_type(&response));
        to_js_error(&CompactionError::LlmError(JsCause::llm_error(message, response.clone())))
    };
    let field = |key: &str| js_sys::Reflect::get(&response, &key.into()).map_err(|_| not_response());
    let status = field("status")?.as_f64().ok_or_else(not_response)? as u16;
    let text: js_sys::Function = field("text")?.dyn_into().map_err(|_| not_response())?;
    let body = text.call0(&response).map_err(|e| failed("reading the reply failed", e))?;
    let body = settled(&body).await.map_err(|e| failed("reading the reply failed", e))?;
    provider.reply(status, &body.as_string().unwrap_or_default()).map_err(|e| to_js_error(&e))
}

//! Errors across the boundary: `CompactionError` (a JS class extending `Error`,
//! with `code`, `path`, `status` and `cause`) and the thrown values it carries.

use std::fmt;
use std::sync::Arc;

use wasm_bindgen::prelude::*;

use crate::error::{CompactionError, InputError, LlmError};
use crate::model::read::expected_text;
use send_wrapper::SendWrapper;

#[wasm_bindgen(module = "/src/wasm/compaction_error.js")]
extern "C" {
    /// A `CompactionError` with `path`, `status` and `cause` where given.
    #[wasm_bindgen(js_name = compactionError)]
    fn compaction_error(
        message: &str,
        code: &str,
        path: Option<&str>,
        status: Option<u16>,
        has_cause: bool,
        cause: Option<&JsValue>,
    ) -> JsValue;

    #[wasm_bindgen(thread_local_v2, js_name = CompactionError)]
    static COMPACTION_ERROR_CLASS: JsValue;
}

/// The `CompactionError` class, for the package entries to re-export.
#[wasm_bindgen(js_name = __compactionErrorClass, skip_typescript)]
pub fn compaction_error_class() -> JsValue {
    COMPACTION_ERROR_CLASS.with(JsValue::clone)
}

/// A value thrown by JS code (the user's summarizer), kept so that it can be
/// handed back as the `cause` of the `CompactionError`.
pub struct JsCause(SendWrapper<JsValue>);

impl JsCause {
    /// Wraps a thrown value as the source of an [`LlmError`].
    pub fn llm_error(message: impl Into<String>, thrown: JsValue) -> LlmError {
        LlmError { message: message.into(), status: None, source: Some(Arc::new(JsCause(SendWrapper::new(thrown)))) }
    }
}

impl fmt::Debug for JsCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsCause({self})")
    }
}

impl fmt::Display for JsCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_thrown(&self.0))
    }
}

impl std::error::Error for JsCause {}

/// A short description of a thrown JS value: its message (a string, or an
/// `Error`'s string `message`), else its kind. Never throws.
pub fn describe_thrown(value: &JsValue) -> String {
    super::inspect::thrown_message(value).unwrap_or_else(|| js_type(value))
}

/// What a JS value is, for error messages: "null", "array", "object", a
/// built-in's name ("Map", "Date"), or typeof (see `inspect.js`).
pub fn js_type(value: &JsValue) -> String {
    super::inspect::type_name(value).unwrap_or_else(|_| value.js_typeof().as_string().unwrap_or_default())
}

/// Converts a core error into a JS `CompactionError`.
pub fn to_js_error(error: &CompactionError) -> JsValue {
    let cause = match error {
        CompactionError::LlmError(e) => e.source.as_ref().and_then(|s| s.downcast_ref::<JsCause>()).map(|c| &*c.0),
        _ => None,
    };
    js_error(error, cause)
}

/// `error` as a `CompactionError`, with `cause` if given.
fn js_error(error: &CompactionError, cause: Option<&JsValue>) -> JsValue {
    let (path, status) = match error {
        CompactionError::InvalidInput(e) => (Some(e.path.as_str()), None),
        CompactionError::LlmError(e) => (None, e.status),
        _ => (None, None),
    };
    compaction_error(&error.to_string(), error.code(), path, status, cause.is_some(), cause)
}

/// An `INVALID_INPUT` error as a JS value, ready to throw.
pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> JsValue {
    InputError::new(path, message).into()
}

/// `INVALID_INPUT` at `path` for a value wasm memory cannot hold.
pub fn too_large(path: &str) -> JsValue {
    invalid(path, "is too large for WebAssembly memory")
}

/// `INVALID_INPUT` at `path`: "expected `what`, got " and what `value` is ([`js_type`]).
pub fn expected(path: &str, what: &str, value: &JsValue) -> JsValue {
    expected_got(path, what, &js_type(value))
}

/// `INVALID_INPUT` at `path`: "expected `what`, got `got`".
pub fn expected_got(path: &str, what: &str, got: &str) -> JsValue {
    invalid(path, expected_text(what, got))
}

/// `INVALID_INPUT` at `path` for what JS threw while the value there was being
/// read (a getter, a Proxy trap): "could not be read: …", with the thrown value as `cause`.
pub fn threw(path: &str, thrown: &JsValue) -> JsValue {
    invalid_with_cause(path, "could not be read", thrown)
}

/// `INVALID_INPUT` at `path`, "`reason`: what was thrown", with the thrown value as `cause`.
pub fn invalid_with_cause(path: &str, reason: &str, thrown: &JsValue) -> JsValue {
    let error = InputError::new(path, format!("{reason}: {}", describe_thrown(thrown)));
    js_error(&CompactionError::InvalidInput(error), Some(thrown))
}

impl From<InputError> for JsValue {
    fn from(e: InputError) -> Self {
        to_js_error(&CompactionError::InvalidInput(e))
    }
}

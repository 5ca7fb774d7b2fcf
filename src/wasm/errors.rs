//! Errors across the boundary: `CompactionError` (a JS class extending `Error`,
//! with `code`, `path`, `status` and `cause`) and the thrown values it carries.

use std::fmt;
use std::sync::Arc;

use wasm_bindgen::prelude::*;

use crate::error::{CompactionError, InputError, LlmError};
use crate::single_threaded::SingleThreaded;

#[wasm_bindgen(module = "/src/wasm/compaction_error.js")]
extern "C" {
    #[wasm_bindgen(js_name = CompactionError)]
    type JsCompactionError;

    #[wasm_bindgen(constructor, js_class = "CompactionError")]
    fn new(message: &str, code: &str, details: &JsValue) -> JsCompactionError;

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
pub struct JsCause(SingleThreaded<JsValue>);

impl JsCause {
    /// Wraps a thrown value as the source of an [`LlmError`].
    pub fn llm_error(message: impl Into<String>, thrown: JsValue) -> LlmError {
        LlmError { message: message.into(), status: None, source: Some(Arc::new(JsCause(SingleThreaded(thrown)))) }
    }
}

impl fmt::Debug for JsCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsCause({:?})", *self.0)
    }
}

impl fmt::Display for JsCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_thrown(&self.0))
    }
}

impl std::error::Error for JsCause {}

/// A short description of a thrown JS value: its message if it is an `Error`.
pub fn describe_thrown(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    match value.as_string() {
        Some(s) => s,
        None => js_type(value),
    }
}

/// `typeof`, with `null` and arrays told apart.
pub fn js_type(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

/// Converts a core error into a JS `CompactionError`.
pub fn to_js_error(error: &CompactionError) -> JsValue {
    let details = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| {
        let _ = js_sys::Reflect::set(&details, &key.into(), value);
    };
    match error {
        CompactionError::InvalidInput(e) => set("path", &e.path.as_str().into()),
        CompactionError::LlmError(e) => {
            if let Some(status) = e.status {
                set("status", &status.into());
            }
            if let Some(cause) = e.source.as_ref().and_then(|s| s.downcast_ref::<JsCause>()) {
                set("cause", &cause.0);
            }
        }
        _ => {}
    }
    JsCompactionError::new(&error.to_string(), error.code(), &details).into()
}

/// An `INVALID_INPUT` error as a JS value, ready to throw.
pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> JsValue {
    to_js_error(&CompactionError::InvalidInput(InputError::new(path, message)))
}

impl From<InputError> for JsValue {
    fn from(e: InputError) -> Self {
        to_js_error(&CompactionError::InvalidInput(e))
    }
}

//! Looking at the caller's values without letting what they throw escape: a
//! getter, a Proxy trap or a revoked Proxy becomes an `Err` here, for the
//! bindings to report as `INVALID_INPUT` with a path (`inspect.js`).

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::errors::{expected_got, invalid, invalid_with_cause, threw};

#[wasm_bindgen(module = "/src/wasm/inspect.js")]
extern "C" {
    /// "null", "array", "object" (plain or a class instance), a built-in's name ("Map"), or typeof.
    #[wasm_bindgen(catch, js_name = typeName)]
    pub fn type_name(value: &JsValue) -> Result<String, JsValue>;

    /// Whether [`type_name`] is "object", without its name crossing (most calls ask just that).
    #[wasm_bindgen(catch, js_name = isObject)]
    fn is_object(value: &JsValue) -> Result<bool, JsValue>;

    /// A thrown value's message (a string, or an `Error`'s string `message`); never throws.
    #[wasm_bindgen(js_name = thrownMessage)]
    pub fn thrown_message(value: &JsValue) -> Option<String>;

    /// A Map's entries as an object, or null if a key is not a string.
    #[wasm_bindgen(catch, js_name = mapObject)]
    fn map_object(map: &JsValue) -> Result<Option<js_sys::Object>, JsValue>;

    /// `[path, reason, thrown?]`: the first field of `value` that cannot be read as JSON.
    #[wasm_bindgen(catch, js_name = jsonProblem)]
    fn json_problem(value: &JsValue, throws_only: bool) -> Result<Option<Array>, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;
}

/// `Object.keys(value)`; `path` names the value if it throws (a Proxy's trap).
pub fn own_keys(value: &JsValue, path: &str) -> Result<Array, JsValue> {
    object_keys(value).map_err(|e| threw(path, &e))
}

/// Whether `value` is a plain object or a class instance, whose fields are its
/// data: not an array, a function, a `Map` or another built-in.
pub fn is_plain_object(value: &JsValue, path: &str) -> Result<bool, JsValue> {
    is_object(value).map_err(|e| threw(path, &e))
}

/// The entries of `value` as an object: `value` itself if it is a plain object,
/// else those of a map-like built-in named in `maps` (`Map`, `Headers`) as a new
/// object. Anything else is `INVALID_INPUT` at `path`, "expected `expected`,
/// got …"; a map with a key that is not a string, `bad_key`.
pub fn entries(value: &JsValue, path: &str, maps: &[&str], expected: &str, bad_key: &str) -> Result<JsValue, JsValue> {
    let kind = type_name(value).map_err(|e| threw(path, &e))?;
    if kind == "object" {
        return Ok(value.clone());
    }
    if !maps.contains(&kind.as_str()) {
        return Err(expected_got(path, expected, &kind));
    }
    match map_object(value).map_err(|e| threw(path, &e))? {
        Some(object) => Ok(object.into()),
        None => Err(invalid(path, bad_key)),
    }
}

/// Refuses, as `INVALID_INPUT` at `path` ("expected {expected}, got Map"), what
/// is not a plain object or a class instance: a `Map`, a `Date` or an array
/// would be read as `{}` or as something else than meant. Undefined passes,
/// for the caller's reader to report as missing.
pub fn plain_object(value: &JsValue, path: &str, expected: &str) -> Result<(), JsValue> {
    if value.is_undefined() || is_plain_object(value, path)? {
        return Ok(());
    }
    Err(expected_got(path, expected, &type_name(value).map_err(|e| threw(path, &e))?))
}

/// The `INVALID_INPUT` error for the first field of `value` (named `path`) that
/// JSON text cannot hold, or `None` if none is found. With `throws_only`, only
/// a field that throws when read counts.
pub fn json_error(value: &JsValue, path: &str, throws_only: bool) -> Option<JsValue> {
    let problem = json_problem(value, throws_only).ok()??;
    let at = format!("{path}{}", problem.get(0).as_string().unwrap_or_default());
    let reason = problem.get(1).as_string().unwrap_or_default();
    match problem.length() {
        3 => Some(invalid_with_cause(&at, &reason, &problem.get(2))),
        _ => Some(invalid(at, reason)),
    }
}

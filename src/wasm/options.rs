//! Reading option objects field by field, with a path for every mistake and
//! unknown options rejected (a typo should not be silently ignored).

use wasm_bindgen::prelude::*;

use super::errors::{expected, expected_got, invalid, threw};
use super::inspect::{own_keys, plain_object};
use crate::model::read::field;
use crate::text::number_text;

/// An options object being read.
pub struct Options {
    object: Option<js_sys::Object>,
    path: String,
}

impl Options {
    /// Reads `value` (undefined or null: all defaults), allowing only `known`
    /// and `extra` keys. It must be a plain object (or a class instance): a `Map`,
    /// a `Date` or an array would have its options silently ignored.
    pub fn new(value: &JsValue, path: &str, known: &[&str], extra: &[&str]) -> Result<Self, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Self { object: None, path: path.to_owned() });
        }
        plain_object(value, path, "an options object")?;
        let object: js_sys::Object = value.clone().unchecked_into();
        for key in own_keys(value, path)?.iter() {
            let key = key.as_string().unwrap_or_default();
            if !known.contains(&key.as_str()) && !extra.contains(&key.as_str()) {
                let mut message = String::from("unknown option (expected one of: ");
                for (i, name) in known.iter().chain(extra).enumerate() {
                    if i > 0 {
                        message.push_str(", ");
                    }
                    message.push_str(name);
                }
                message.push(')');
                return Err(invalid(field(path, &key), message));
            }
        }
        Ok(Self { object: Some(object), path: path.to_owned() })
    }

    /// The path of option `key`, for errors.
    pub fn path(&self, key: &str) -> String {
        field(&self.path, key)
    }

    /// The raw value of `key`, `None` when absent or undefined.
    pub fn get(&self, key: &str) -> Result<Option<JsValue>, JsValue> {
        let Some(object) = &self.object else { return Ok(None) };
        let value = js_sys::Reflect::get(object, &key.into()).map_err(|e| threw(&self.path(key), &e))?;
        Ok((!value.is_undefined()).then_some(value))
    }

    /// A number option.
    pub fn number(&self, key: &str) -> Result<Option<f64>, JsValue> {
        self.get(key)?.map(|v| v.as_f64().ok_or_else(|| expected(&self.path(key), "a number", &v))).transpose()
    }

    /// A ratio strictly between 0 and 1.
    pub fn ratio(&self, key: &str) -> Result<Option<f64>, JsValue> {
        let value = self.number(key)?;
        if let Some(v) = value {
            crate::compaction::config::validate_threshold(v, &self.path(key))?;
        }
        Ok(value)
    }

    /// A whole number in `min..=max`.
    pub fn integer(&self, key: &str, min: f64, max: f64) -> Result<Option<f64>, JsValue> {
        self.number(key)?.map(|v| whole(v, &self.path(key), "a whole number", min, max)).transpose()
    }

    /// A string option.
    pub fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        self.get(key)?.map(|v| v.as_string().ok_or_else(|| expected(&self.path(key), "a string", &v))).transpose()
    }

    /// A function option.
    pub fn function(&self, key: &str) -> Result<Option<js_sys::Function>, JsValue> {
        self.get(key)?.map(|v| v.dyn_into().map_err(|v| expected(&self.path(key), "a function", &v))).transpose()
    }
}

/// `value` if it is a whole number in `min..=max`, else `INVALID_INPUT` at
/// `path`: "expected `noun` from `min` to `max`, got `value`".
pub fn whole(value: f64, path: &str, noun: &str, min: f64, max: f64) -> Result<f64, JsValue> {
    // Infinities and NaN have no zero fraction.
    if value.fract() == 0.0 && value >= min && value <= max {
        return Ok(value);
    }
    let mut what = String::from(noun);
    what.push_str(" from ");
    what.push_str(&number_text(min));
    what.push_str(" to ");
    what.push_str(&number_text(max));
    Err(expected_got(path, &what, &number_text(value)))
}

/// [`crate::model::read::MAX_SAFE_INTEGER`] as the JS number it is.
pub const MAX_SAFE_INTEGER: f64 = crate::model::read::MAX_SAFE_INTEGER as f64;
/// Longest delay `setTimeout` honours (2^31 − 1 ms).
pub const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

//! Strings for JS: ASCII as UTF-8, any other text as UTF-16 (see [`crate::utf16`]).
//! A text longer than a JS string can be (~2^29 units) is an `Err`, not an
//! exception unwinding through the module.

use wasm_bindgen::prelude::*;

use crate::utf16::to_utf16;

#[wasm_bindgen(module = "/src/wasm/js_text.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = fromUtf8)]
    fn from_utf8(bytes: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = fromUtf16)]
    fn from_utf16(units: &[u16]) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// `text` as a JS string, or what JS threw making it.
pub fn js_string(text: &str) -> Result<JsValue, JsValue> {
    if text.is_ascii() {
        return from_utf8(text.as_bytes());
    }
    from_utf16(&to_utf16(text))
}

/// The JS value of a JSON text (`JSON.parse`), or what JS threw making it.
pub fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    json_parse(&js_string(text)?)
}

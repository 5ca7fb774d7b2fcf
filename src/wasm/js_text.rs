//! Strings for JS: ASCII as UTF-8, any other text as UTF-16 (see [`crate::utf16`]).

use wasm_bindgen::prelude::*;

use crate::utf16::to_utf16;

#[wasm_bindgen(module = "/src/wasm/js_text.js")]
extern "C" {
    #[wasm_bindgen(js_name = fromUtf16)]
    fn from_utf16(units: &[u16]) -> JsValue;
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// `text` as a JS string.
pub fn js_string(text: &str) -> JsValue {
    if text.is_ascii() {
        return JsValue::from_str(text);
    }
    from_utf16(&to_utf16(text))
}

/// The JS value of a JSON text (`JSON.parse`); `null` if JS refuses it.
pub fn parse_json(text: &str) -> JsValue {
    json_parse(&js_string(text)).unwrap_or(JsValue::NULL)
}

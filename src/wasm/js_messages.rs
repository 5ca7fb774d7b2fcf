//! Messages read where they are, in a JS array: for the fast paths that need a
//! few fields of each message and would waste their time copying the rest
//! across the boundary. `js_messages.js` reads them in one JS pass; when it
//! finds something invalid, the readers here go field by field and name the
//! field as the full reader (`parse.rs`) does.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::errors::{invalid, js_type};
use crate::text::number_text;

#[wasm_bindgen(module = "/src/wasm/js_messages.js")]
extern "C" {
    /// What one JS pass over a messages array found (see `scan` in js_messages.js).
    pub type Scan;

    /// Reads the array once; `None` if anything in it is invalid.
    pub fn scan(messages: &Array) -> Option<Scan>;

    /// Per message, 1 when it continues the turn of the one before.
    #[wasm_bindgen(method, getter)]
    pub fn same(this: &Scan) -> Vec<u8>;

    /// Per tool result (of user messages, in order), the index of its message.
    #[wasm_bindgen(method, getter)]
    pub fn at(this: &Scan) -> Vec<u32>;

    /// The tool results' `tool_use_id`s, a JSON array.
    #[wasm_bindgen(method, getter)]
    pub fn ids(this: &Scan) -> String;

    /// Per tool result, 1 when it has a `compact_summary`.
    #[wasm_bindgen(method, getter)]
    pub fn summarized(this: &Scan) -> Vec<u8>;

    /// Sets the first tool results' contents to `texts` (a JSON array: null to
    /// leave one, 1 for its own `compact_summary`, or the text), skipping those
    /// that already are that text; returns how many were set.
    #[wasm_bindgen(js_name = setContents)]
    pub fn set_contents(scanned: &Scan, texts: &str) -> u32;
}

/// Property names and values compared often, created once.
struct Names {
    role: JsValue,
    turn_id: JsValue,
    owner: JsValue,
    number: JsValue,
    content: JsValue,
    kind: JsValue,
    tool_use_id: JsValue,
    compact_summary: JsValue,
    user: JsValue,
    assistant: JsValue,
    tool_result: JsValue,
}

thread_local! {
    static NAMES: Names = Names {
        role: "role".into(),
        turn_id: "turn_id".into(),
        owner: "owner".into(),
        number: "number".into(),
        content: "content".into(),
        kind: "type".into(),
        tool_use_id: "tool_use_id".into(),
        compact_summary: "compact_summary".into(),
        user: "user".into(),
        assistant: "assistant".into(),
        tool_result: "tool_result".into(),
    };
}

/// A turn id as read: the owner string (a JS value, compared with `===`) and the number.
pub struct JsTurnId {
    owner: JsValue,
    number: f64,
}

impl JsTurnId {
    /// Whether both ids are the same turn.
    pub fn same_as(&self, other: &JsTurnId) -> bool {
        self.number == other.number && self.owner == other.owner
    }
}

/// A tool result block of a JS message, with what compaction reads of it.
pub struct JsToolResult {
    /// The block object itself, to write the new `content` into.
    pub block: JsValue,
    /// Its `tool_use_id`.
    pub tool_use_id: String,
    /// Its `content` (a string or an array).
    pub content: JsValue,
    /// Its `compact_summary` string, if any.
    pub compact_summary: Option<JsValue>,
}

fn get(object: &JsValue, key: &JsValue) -> JsValue {
    Reflect::get(object, key).unwrap_or(JsValue::UNDEFINED)
}

fn missing(path: &str) -> JsValue {
    invalid(path, "is required but missing")
}

// Paths are built only on error: formatting one per field would cost more than the reading.
fn object(value: &JsValue, path: impl FnOnce() -> String, what: &str) -> Result<(), JsValue> {
    if value.is_undefined() {
        return Err(missing(&path()));
    }
    if !value.is_object() || Array::is_array(value) {
        return Err(invalid(path(), format!("expected {what}, got {}", js_type(value))));
    }
    Ok(())
}

fn string(value: JsValue, path: impl FnOnce() -> String) -> Result<JsValue, JsValue> {
    match value {
        v if v.is_string() => Ok(v),
        v if v.is_undefined() => Err(missing(&path())),
        v => Err(invalid(path(), format!("expected a string, got {}", js_type(&v)))),
    }
}

/// The array of messages, or `INVALID_INPUT` at `path`.
pub fn messages_array(value: &JsValue, path: &str) -> Result<Array, JsValue> {
    value.dyn_ref::<Array>().cloned().ok_or_else(|| {
        if value.is_undefined() {
            missing(path)
        } else {
            invalid(path, format!("expected an array of messages, got {}", js_type(value)))
        }
    })
}

/// Message `index` of `messages` (an object) and its turn id.
pub fn turn_id(messages: &Array, index: u32, path: &str) -> Result<JsTurnId, JsValue> {
    let message = messages.get(index);
    let at = |field: &str| format!("{path}[{index}]{field}");
    object(&message, || at(""), "a message object")?;
    NAMES.with(|n| {
        let turn_id = get(&message, &n.turn_id);
        object(&turn_id, || at(".turn_id"), "a turn id { owner, number }")?;
        let owner = string(get(&turn_id, &n.owner), || at(".turn_id.owner"))?;
        let number = get(&turn_id, &n.number);
        match number.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() <= 9.2e18 => Ok(JsTurnId { owner, number: x }),
            _ if number.is_undefined() => Err(missing(&at(".turn_id.number"))),
            Some(x) => {
                Err(invalid(at(".turn_id.number"), format!("expected an integer, got number {}", number_text(x))))
            }
            None => Err(invalid(at(".turn_id.number"), format!("expected an integer, got {}", js_type(&number)))),
        }
    })
}

/// The tool results of message `index` when it is a user message (none for an
/// assistant message), each checked as the full reader would.
pub fn tool_results(messages: &Array, index: u32, path: &str) -> Result<Vec<JsToolResult>, JsValue> {
    let message = messages.get(index);
    let at = |field: &str| format!("{path}[{index}]{field}");
    NAMES.with(|n| {
        let role = get(&message, &n.role);
        if role == n.assistant {
            return Ok(Vec::new());
        }
        if role != n.user {
            let got = role.as_string().map_or_else(|| js_type(&role), |s| format!("{s:?}"));
            return match role.is_undefined() {
                true => Err(missing(&at(".role"))),
                false => Err(invalid(at(".role"), format!("expected \"user\" or \"assistant\", got {got}"))),
            };
        }
        let content = get(&message, &n.content);
        let Some(blocks) = content.dyn_ref::<Array>() else {
            return match content.is_undefined() {
                true => Err(missing(&at(".content"))),
                false => Err(invalid(
                    at(".content"),
                    format!("expected an array of content blocks, got {}", js_type(&content)),
                )),
            };
        };
        let mut results = Vec::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = |field: &str| at(&format!(".content[{j}]{field}"));
            object(&block, || at(""), "a content block object")?;
            let kind = string(get(&block, &n.kind), || at(".type"))?;
            if kind != n.tool_result {
                continue;
            }
            let tool_use_id = string(get(&block, &n.tool_use_id), || at(".tool_use_id"))?;
            let content = get(&block, &n.content);
            if !content.is_string() && !Array::is_array(&content) {
                return Err(match content.is_undefined() {
                    true => missing(&at(".content")),
                    false => invalid(
                        at(".content"),
                        format!("expected a string or an array of content blocks, got {}", js_type(&content)),
                    ),
                });
            }
            let compact_summary = match get(&block, &n.compact_summary) {
                v if v.is_undefined() || v.is_null() => None,
                v => Some(string(v, || at(".compact_summary"))?),
            };
            let tool_use_id = tool_use_id.as_string().unwrap_or_default();
            results.push(JsToolResult { block, tool_use_id, content, compact_summary });
        }
        Ok(results)
    })
}

/// Sets a tool result block's `content`.
pub fn set_content(block: &JsValue, content: &JsValue) {
    NAMES.with(|n| {
        let _ = Reflect::set(block, &n.content, content);
    });
}

//! Messages read where they are, in a JS array: for the fast paths that need a
//! few fields of each message and would waste their time copying the rest
//! across the boundary. `js_messages.js` reads them in JS passes; when one
//! finds something invalid, the checks here go field by field and name the
//! field as the full reader (`parse.rs`) does.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::errors::{expected, expected_got, invalid, js_type, threw};
use crate::text::{number_text, quoted};

#[wasm_bindgen(module = "/src/wasm/js_messages.js")]
extern "C" {
    /// Tool results as `scan` in js_messages.js found them, in the order of the messages.
    pub type ToolResults;

    /// What JS threw in the last call of this module that failed.
    type Thrown;

    /// The thrown value.
    #[wasm_bindgen(method, getter)]
    fn error(this: &Thrown) -> JsValue;

    /// What the last call of this module that failed threw; `None` if it found
    /// the input invalid instead.
    // Budget (issue 19, stateless compact ≤ 2× the JS peer): wasm-bindgen's `catch` on those took 0.4 of 2.7 µs per call.
    fn thrown() -> Option<Thrown>;

    /// `value.length` if `value` is an array, else -1; -2 if looking threw
    /// ([`thrown`]: a revoked Proxy).
    #[wasm_bindgen(js_name = arrayLength)]
    fn array_length(value: &JsValue) -> f64;

    /// One pass over `messages`: the number of messages, having set the mark of
    /// each (see [`SAME_TURN`], [`INVALID`], [`RESULTS`]) in the `room` words at
    /// address `marks` and kept their tool results for [`scanned`] (their
    /// `tool_use_id`s read if `with_ids`) if there is room for them all; else
    /// only their turn ids are checked (call again with more room). Or a code:
    /// [`NOT_AN_ARRAY`], [`INVALID_TURNS`] (reading may have thrown:
    /// [`thrown`]) or [`CHANGED`].
    pub fn scan(messages: &JsValue, marks: *mut u32, room: usize, with_ids: bool) -> f64;

    /// The tool results that [`scan`] last found (`None` if none), once.
    pub fn scanned() -> Option<ToolResults>;

    /// What reading message `index`'s role, content or blocks threw in the
    /// last [`scan`], if that is why it is marked [`INVALID`]; undefined if not.
    #[wasm_bindgen(js_name = contentThrown)]
    pub fn content_thrown(index: u32) -> JsValue;

    /// Their `tool_use_id`s, a JSON array (null for one with a lone surrogate;
    /// empty text without `with_ids`).
    #[wasm_bindgen(method, getter)]
    pub fn ids(this: &ToolResults) -> js_sys::JsString;

    /// The edits the `count` words at address `codes` ask for (one per tool
    /// result: 0 to leave it, 1 for its own `compact_summary` if it has one,
    /// 2 + n for `texts[n]`, `texts` a JSON array), less those whose content
    /// already is that text or is `keep`: `[k, text, …]`; `None` if reading a
    /// block threw ([`thrown`]).
    pub fn edits(
        scanned: &ToolResults,
        codes: *const u32,
        count: usize,
        texts: Option<&str>,
        keep: &JsValue,
    ) -> Option<Array>;

    /// Applies `edits` to the caller's blocks, all or nothing: undefined, or
    /// `{ path, error }` for the block that refused the write.
    #[wasm_bindgen(catch, js_name = setContents)]
    pub fn set_contents(scanned: &ToolResults, edits: &Array) -> Result<JsValue, JsValue>;

    /// `{ messages, result }`: a new array of `messages` with the edits [`edits`]
    /// makes of the codes and `texts` (none without `scanned`) applied to shallow
    /// copies of the messages and blocks they change (the rest is shared), and
    /// the counts: `redacted`, `summarized` and `turns` each per edit made;
    /// undefined if reading them threw ([`thrown`]).
    #[wasm_bindgen(js_name = withEdits)]
    #[allow(clippy::too_many_arguments)]
    pub fn with_edits(
        messages: &Array,
        scanned: Option<&ToolResults>,
        codes: *const u32,
        count: usize,
        texts: Option<&str>,
        keep: &JsValue,
        redacted: usize,
        summarized: usize,
        turns: usize,
    ) -> JsValue;
}

/// In a mark of [`scan`]: the message continues the turn of the one before.
pub const SAME_TURN: u32 = 1;
/// In a mark of [`scan`]: the message's role, content or blocks are not as
/// compaction reads them, or reading them threw ([`content_thrown`]).
pub const INVALID: u32 = 2;
/// In a mark of [`scan`]: one tool result block; the mark over this is their count.
pub const RESULTS: u32 = 4;
/// From [`scan`]: `messages` is not an array, or looking threw.
pub const NOT_AN_ARRAY: f64 = -1.0;
/// From [`scan`]: a message or its turn id is invalid, or reading one threw.
pub const INVALID_TURNS: f64 = -2.0;
/// From [`scan`]: a getter changed the array's length meanwhile: read it again.
pub const CHANGED: f64 = -3.0;

/// What the last call of this module that failed threw (a getter, a Proxy's
/// trap); `None` if it found the input invalid instead.
pub fn last_thrown() -> Option<JsValue> {
    thrown().map(|thrown| thrown.error())
}

/// Property names and values compared often, created once per check of an array.
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

impl Names {
    fn new() -> Self {
        Names {
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
        }
    }
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
        return Err(expected(&path(), what, value));
    }
    Ok(())
}

fn string(value: JsValue, path: impl FnOnce() -> String) -> Result<JsValue, JsValue> {
    match value {
        v if v.is_string() => Ok(v),
        v if v.is_undefined() => Err(missing(&path())),
        v => Err(expected(&path(), "a string", &v)),
    }
}

/// The array of messages and its length, or `INVALID_INPUT` at `path`.
pub fn messages_array(value: &JsValue, path: &str) -> Result<(Array, usize), JsValue> {
    match array_length(value) {
        -1.0 if value.is_undefined() => Err(missing(path)),
        -1.0 => Err(expected(path, "an array of messages", value)),
        -2.0 => Err(threw(path, &last_thrown().unwrap_or_default())),
        length => Ok((value.clone().unchecked_into(), length as usize)),
    }
}

/// The first error in the messages and turn ids of `messages`, where `scan`
/// returned [`INVALID_TURNS`].
pub fn turn_id_error(messages: &Array, path: &str) -> JsValue {
    let names = Names::new();
    (0..messages.length()).find_map(|i| check_turn_id(messages, i, path, &names).err()).unwrap_or_else(|| changed(path))
}

/// The first error in the roles and blocks of the messages before `end`, where
/// `scan` marked one of them [`INVALID`].
pub fn tool_result_error(messages: &Array, end: u32, path: &str) -> JsValue {
    let names = Names::new();
    (0..end).find_map(|i| check_blocks(messages, i, path, &names).err()).unwrap_or_else(|| changed(path))
}

/// For input that a JS pass found invalid and the checks here valid: only a
/// getter or Proxy answering differently the second time (or an array whose
/// length keeps changing) gets here.
pub fn changed(path: &str) -> JsValue {
    invalid(path, "changed while it was being read")
}

/// Checks that message `index` of `messages` is an object with a turn id.
fn check_turn_id(messages: &Array, index: u32, path: &str, n: &Names) -> Result<(), JsValue> {
    let message = messages.get(index);
    let at = |field: &str| format!("{path}[{index}]{field}");
    object(&message, || at(""), "a message object")?;
    let turn_id = get(&message, &n.turn_id);
    object(&turn_id, || at(".turn_id"), "a turn id { owner, number }")?;
    string(get(&turn_id, &n.owner), || at(".turn_id.owner"))?;
    let number = get(&turn_id, &n.number);
    match number.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() <= 9.2e18 => Ok(()),
        _ if number.is_undefined() => Err(missing(&at(".turn_id.number"))),
        Some(x) => {
            Err(expected_got(&at(".turn_id.number"), "an integer", &(String::from("number ") + &number_text(x))))
        }
        None => Err(expected(&at(".turn_id.number"), "an integer", &number)),
    }
}

/// Checks the role of message `index` and, for a user message, its content
/// blocks as far as compaction reads them (type; a tool result's
/// `tool_use_id`, `content` and `compact_summary`), as the full reader would.
fn check_blocks(messages: &Array, index: u32, path: &str, n: &Names) -> Result<(), JsValue> {
    let message = messages.get(index);
    let at = |field: &str| format!("{path}[{index}]{field}");
    let role = get(&message, &n.role);
    if role == n.assistant {
        return Ok(());
    }
    if role != n.user {
        let got = role.as_string().map_or_else(|| js_type(&role), |s| quoted(&s));
        return match role.is_undefined() {
            true => Err(missing(&at(".role"))),
            false => Err(expected_got(&at(".role"), "\"user\" or \"assistant\"", &got)),
        };
    }
    let content = get(&message, &n.content);
    let Some(blocks) = content.dyn_ref::<Array>() else {
        return match content.is_undefined() {
            true => Err(missing(&at(".content"))),
            false => Err(expected(&at(".content"), "an array of content blocks", &content)),
        };
    };
    for (j, block) in blocks.iter().enumerate() {
        let at = |field: &str| at(&format!(".content[{j}]{field}"));
        object(&block, || at(""), "a content block object")?;
        let kind = string(get(&block, &n.kind), || at(".type"))?;
        if kind != n.tool_result {
            continue;
        }
        string(get(&block, &n.tool_use_id), || at(".tool_use_id"))?;
        let content = get(&block, &n.content);
        if !content.is_string() && !Array::is_array(&content) {
            return Err(match content.is_undefined() {
                true => missing(&at(".content")),
                false => expected(&at(".content"), "a string or an array of content blocks", &content),
            });
        }
        let summary = get(&block, &n.compact_summary);
        if !summary.is_undefined() && !summary.is_null() {
            string(summary, || at(".compact_summary"))?;
        }
    }
    Ok(())
}

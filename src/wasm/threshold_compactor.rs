//! `ThresholdCompactor`: the stateless, synchronous compactor for JS.

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::compactor_options::threshold_config;
use super::convert::{context_limit, input_message_from_js, summaries_from_js, token_count};
use super::errors::{invalid_with_cause, threw, too_large};
use super::inspect::json_error;
use super::js_messages::{
    changed, content_thrown, edits, last_thrown, messages_array, scan, scanned, set_contents, tool_result_error,
    turn_id_error, with_edits, ToolResults, CHANGED, INVALID, INVALID_TURNS, NOT_AN_ARRAY, RESULTS, SAME_TURN,
};
use super::memory::give_memory;
use super::outcome::counts_js;
use crate::compaction::config::exceeds_threshold;
use crate::compaction::config::Keep;
use crate::compaction::result::CompactionResult;
use crate::compaction::threshold::ThresholdCompactor;
use crate::compaction::turns::{kept_turns, old_end_by, old_turns_from_starts, starts_by};
use crate::json_text::{write_array, write_str};
use crate::model::read::read_text;
use crate::model::tokens::estimate_message_tokens;

/// Summarizes or redacts tool results in old turns. Fast, synchronous, never fails.
#[wasm_bindgen(js_name = ThresholdCompactor)]
pub struct JsThresholdCompactor {
    inner: ThresholdCompactor,
    /// `inner.kept_content()` as a JS string (or undefined), made once.
    kept_content: JsValue,
    /// Room for `scan`'s marks, one per message, kept from one call to the next
    /// (as large as twice the longest array compacted, at most).
    marks: RefCell<Vec<u32>>,
}

#[wasm_bindgen(js_class = ThresholdCompactor)]
impl JsThresholdCompactor {
    /// `new ThresholdCompactor({ threshold = 0.75, keepRecentTurns = 3, toolCompaction = "summarize" })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsThresholdCompactor, JsValue> {
        let inner = ThresholdCompactor::new(threshold_config(&options, "options", &[])?)?;
        let kept_content = inner.kept_content().map_or(JsValue::UNDEFINED, JsValue::from_str);
        Ok(Self { inner, kept_content, marks: RefCell::default() })
    }

    /// Whether `contextUsed / contextLimit` is above the threshold.
    #[wasm_bindgen(js_name = shouldCompact)]
    pub fn should_compact(&self, context_used: JsValue, limit: JsValue) -> Result<bool, JsValue> {
        let used = token_count(&context_used, "contextUsed")?;
        let limit = context_limit(&limit, "contextLimit")?;
        Ok(exceeds_threshold(self.inner.config().threshold, used, limit))
    }

    /// Returns `{ messages, result }`: a new array, in which the messages that
    /// compaction changes are shallow copies (with copies of the tool result
    /// blocks it changes) and the others the caller's own objects; nothing of
    /// the caller's is modified. Reads and checks what `compactInPlace` does.
    pub fn compact(&self, messages: JsValue, compact_summaries: JsValue) -> Result<JsValue, JsValue> {
        let summaries = summaries_after(&messages, &compact_summaries)?;
        let plan = self.plan(&messages, &summaries)?;
        let array = messages.unchecked_ref();
        let (scanned, codes, texts) = match &plan {
            Some(plan) => (Some(&plan.scanned), &plan.codes[..], plan.texts.as_deref()),
            None => (None, &[][..], None),
        };
        // The codes stay where they are until the call returns (js_messages.js reads them there).
        // What one edit counts: JS counts the edits it makes (one crossing for them all).
        let mut each = CompactionResult::default();
        self.inner.count(&mut each);
        // The objects are made in JS: each property name made here would cross as a string.
        let out = with_edits(
            array,
            scanned,
            codes.as_ptr(),
            codes.len(),
            texts,
            &self.kept_content,
            each.tool_results_redacted,
            each.tool_results_summarized,
            each.turns_compacted,
        );
        match out.is_undefined() {
            true => Err(read_failure(array)),
            false => Ok(out),
        }
    }

    /// Compacts `messages` in place, as an app's own loop would: the old tool
    /// results' `content` is replaced, nothing is copied or filled in. Only what
    /// compaction needs is read (turn ids, roles, blocks) and checked (turn ids;
    /// roles and blocks of old messages), with the same errors as `compact`; on
    /// invalid input, or a block that refuses the write, nothing changed.
    #[wasm_bindgen(js_name = compactInPlace)]
    pub fn compact_in_place(&self, messages: JsValue, compact_summaries: JsValue) -> Result<JsValue, JsValue> {
        let summaries = summaries_after(&messages, &compact_summaries)?;
        let mut result = CompactionResult::default();
        if let Some(plan) = self.plan(&messages, &summaries)? {
            let array = messages.unchecked_ref();
            let (codes, count) = (plan.codes.as_ptr(), plan.codes.len());
            let changes = edits(&plan.scanned, codes, count, plan.texts.as_deref(), &self.kept_content)
                .ok_or_else(|| read_failure(array))?;
            let written = |path: &str, e: &JsValue| invalid_with_cause(path, "could not be written", e);
            let refused = set_contents(&plan.scanned, &changes).map_err(|e| written("messages", &e))?;
            if !refused.is_undefined() {
                let get = |key: &str| js_sys::Reflect::get(&refused, &key.into()).unwrap_or_default();
                return Err(written(&get("path").as_string().unwrap_or_default(), &get("error")));
            }
            for _ in 0..changes.length() / 2 {
                self.inner.count(&mut result);
            }
        }
        Ok(counts_js(&result))
    }
}

/// What JS threw while reading `messages`: at the first field that throws when
/// read (found by reading them all again), else at "messages".
fn read_error(messages: &Array, thrown: &JsValue) -> JsValue {
    json_error(messages, "messages", true).unwrap_or_else(|| threw("messages", thrown))
}

/// What the last JS call over `messages` that failed threw, as an error.
fn read_failure(messages: &Array) -> JsValue {
    read_error(messages, &last_thrown().unwrap_or_default())
}

/// Why a pass over `messages` gave no result: what it threw, else `invalid()`.
fn failure(messages: &Array, invalid: impl FnOnce() -> JsValue) -> JsValue {
    match last_thrown() {
        Some(thrown) => read_error(messages, &thrown),
        None => invalid(),
    }
}

/// The summaries given (none if undefined or null). `messages` is checked
/// first, so that its errors come before theirs; without summaries, `scan` checks it.
fn summaries_after(messages: &JsValue, summaries: &JsValue) -> Result<HashMap<String, String>, JsValue> {
    if summaries.is_undefined() || summaries.is_null() {
        return Ok(HashMap::new());
    }
    messages_array(messages, "messages")?;
    summaries_from_js(summaries, "compactSummaries")
}

/// Scans `messages` into `marks`, grown to fit, and returns how many messages
/// there are and the tool results found. Read again, up to three times, with
/// more room or if a getter changed the array's length meanwhile.
fn scan_marks(
    messages: &JsValue,
    marks: &mut Vec<u32>,
    with_ids: bool,
) -> Result<(usize, Option<ToolResults>), JsValue> {
    let array = messages.unchecked_ref();
    give_memory();
    for _ in 0..4 {
        // JS writes the marks where they are, through its view of wasm memory.
        match scan(messages, marks.as_mut_ptr(), marks.len(), with_ids) {
            n if n >= 0.0 && n as usize <= marks.len() => {
                let len = n as usize;
                // Taken at once: a getter run later (Keep::Tokens reads messages) could scan again.
                let any = marks[..len].iter().any(|&mark| mark >= RESULTS);
                return Ok((len, if any { scanned() } else { None }));
            }
            // Room for twice as many as before at least, so that a growing conversation
            // is rarely read twice; an array too long for wasm memory is an error, not a panic.
            n if n >= 0.0 => {
                let room = (n as usize).max(2 * marks.len());
                if marks.try_reserve_exact(room - marks.len()).is_err() {
                    return Err(too_large("messages"));
                }
                marks.resize(room, 0);
            }
            NOT_AN_ARRAY => {
                return Err(messages_array(messages, "messages").err().unwrap_or_else(|| changed("messages")))
            }
            // The turn ids are read one by one below, for the exact error.
            INVALID_TURNS => break,
            CHANGED => {}
            // (scan gives no other code.)
            _ => break,
        }
    }
    Err(failure(array, || turn_id_error(array, "messages")))
}

/// What compaction changes in a JS array of messages, for `js_messages.js` to apply.
struct Plan {
    /// The tool results `scan` found.
    scanned: ToolResults,
    /// Per tool result of the old messages: 0 (leave it), 1 (its own summary) or
    /// 2 + n (`texts[n]`).
    codes: Vec<u32>,
    /// The texts of `codes`, a JSON array; `None` when there are none.
    texts: Option<String>,
}

impl JsThresholdCompactor {
    /// Reads what compaction needs of `messages` in one pass (turn ids; roles
    /// and blocks, which must be valid in the old messages only) and decides the
    /// edits; `None` when the old messages have no tool results. Invalid input is
    /// reported as the full reader would, from field-by-field checks of the part
    /// found invalid.
    fn plan(&self, messages: &JsValue, summaries: &HashMap<String, String>) -> Result<Option<Plan>, JsValue> {
        // The ids cross as one JSON text: fetched only when they decide something.
        let with_ids = self.inner.reads_tool_use_id(summaries);
        let (count, scanned) = self.old_results(messages, with_ids)?;
        let Some(scanned) = scanned.filter(|_| count > 0) else {
            return Ok(None);
        };
        let ids = match with_ids {
            true => read_text(&String::from(scanned.ids()), "messages")?,
            false => Value::Null,
        };
        let ids = ids.as_array().map(Vec::as_slice).unwrap_or_default();
        // A tool result without an id here (none fetched, or a lone surrogate) is in no summaries.
        let none = HashMap::new();
        // A block's own summary stays in JS: it is passed as this marker, recognised by address.
        const OWN: &str = "compact_summary";
        // Per tool result 0 (leave it), 1 (its own summary) or 2 + n (`texts[n]`); a text
        // crosses once for a run of tool results that get it (the redaction notice: once).
        let mut codes = Vec::with_capacity(count);
        let mut texts: Vec<&str> = Vec::new();
        for k in 0..count {
            let (id, summaries) = match ids.get(k).and_then(Value::as_str) {
                Some(id) => (id, summaries),
                None => ("", &none),
            };
            // Whether the content already is the text is asked of JS, where the content is.
            codes.push(match self.inner.replacement(id, Some(OWN), summaries, |_| false) {
                None => 0,
                Some(text) if std::ptr::eq(text, OWN) => 1,
                Some(text) => {
                    if !texts.last().is_some_and(|last| std::ptr::eq(*last, text)) {
                        texts.push(text);
                    }
                    texts.len() as u32 + 1
                }
            });
        }
        let texts = (!texts.is_empty()).then(|| {
            let mut json = Vec::new();
            write_array(&mut json, &texts, |out, text| write_str(out, text));
            String::from_utf8(json).unwrap_or_default()
        });
        Ok(Some(Plan { scanned, codes, texts }))
    }

    /// How many tool results the old messages of `messages` have, and the tool
    /// results `scan` found in all of them; an error if an old message is invalid.
    fn old_results(&self, messages: &JsValue, with_ids: bool) -> Result<(usize, Option<ToolResults>), JsValue> {
        let mut own = Vec::new();
        let mut kept = self.marks.try_borrow_mut();
        // Held when a getter compacts with this compactor meanwhile: that call uses its own room.
        let room = kept.as_deref_mut().unwrap_or(&mut own);
        let (len, scanned) = scan_marks(messages, room, with_ids)?;
        let marks = &room[..len];
        let array: &Array = messages.unchecked_ref();
        let continues = |i: usize| marks[i] & SAME_TURN != 0;
        let end = match self.inner.config().keep() {
            Keep::Turns(n) => old_end_by(len, continues, n),
            // The recent messages are read in full, newest first, only as far as the budget goes.
            keep @ Keep::Tokens(_) => {
                let starts = starts_by(len, continues);
                let mut error = None;
                let kept = kept_turns(&starts, len, keep, |i| {
                    match input_message_from_js(&array.get(i as u32), &format!("messages[{i}]")) {
                        Ok((message, _)) => estimate_message_tokens(&message),
                        Err(e) => {
                            error.get_or_insert(e);
                            0
                        }
                    }
                });
                if let Some(error) = error {
                    return Err(error);
                }
                old_turns_from_starts(&starts, len, kept).map_or(0, |old| old.messages)
            }
        };
        let old = &marks[..end];
        if let Some(i) = old.iter().position(|mark| mark & INVALID != 0) {
            let thrown = content_thrown(i as u32);
            return Err(match thrown.is_undefined() {
                true => tool_result_error(array, end as u32, "messages"),
                false => read_error(array, &thrown),
            });
        }
        Ok((old.iter().map(|mark| (mark / RESULTS) as usize).sum(), scanned))
    }
}

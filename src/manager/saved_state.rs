//! The state a [`ContextManager`] saves and restores: its messages, compact
//! summaries and the provider's last figure (`toJSON` / `fromJSON` in JS).
//! Configuration is not part of it: it may hold secrets and functions.

use serde::Serialize;
use serde_json::{Map, Value};

use super::context_manager::{ContextManager, ContextManagerConfig, Reported};
use crate::error::InputError;
use crate::model::message::Message;
use crate::model::read::{expected, field, kind, missing, parse_messages, parse_summaries, MAX_SAFE_INTEGER};
use crate::text::json_string;

/// Version of the JSON written by [`ContextManager::state`].
pub const STATE_VERSION: u64 = 1;

/// `{ compactSummaries, contextUsed, messages, version }`, keys sorted: what
/// [`ContextManager::saved_state`] gives to serialize.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedState<'a> {
    compact_summaries: Map<String, Value>,
    context_used: Option<ContextUsed>,
    messages: &'a [Message],
    version: u64,
}

/// `{ estimatedThen, inputTokens }`: the provider's figure and the estimate then.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextUsed {
    estimated_then: i64,
    input_tokens: i64,
}

impl ContextManager {
    /// The state to persist, as JSON: `{ version, messages, compactSummaries, contextUsed }`.
    pub fn state(&self) -> Value {
        serde_json::to_value(self.saved_state()).expect("a saved state always serializes")
    }

    /// [`ContextManager::state`], borrowed, to serialize (what `toJSON` gives JS).
    pub fn saved_state(&self) -> SavedState<'_> {
        SavedState {
            compact_summaries: {
                // Sorted: the summaries are a HashMap, and a saved state should not depend on its order.
                let mut summaries: Vec<_> = self.summaries.iter().collect();
                summaries.sort_unstable();
                summaries.into_iter().map(|(id, s)| (id.clone(), Value::from(s.as_str()))).collect()
            },
            context_used: self
                .reported
                .map(|r| ContextUsed { estimated_then: r.estimate_then, input_tokens: r.tokens }),
            messages: self.messages(),
            version: STATE_VERSION,
        }
    }

    /// A manager restored from [`ContextManager::state`]; `path` names the state in errors.
    pub fn restore(config: ContextManagerConfig, state: &Value, path: &str) -> Result<Self, InputError> {
        let object = state.as_object().ok_or_else(|| expected(path, "a saved state object", kind(state)))?;
        match object.get("version") {
            Some(v) if v.as_u64() == Some(STATE_VERSION) => {}
            other => {
                let got = other.map_or("nothing".to_owned(), json_string);
                return Err(expected(&field(path, "version"), &STATE_VERSION.to_string(), &got));
            }
        }
        let messages = object.get("messages").ok_or_else(|| missing(path, "messages"))?;
        let messages = parse_messages(messages, &field(path, "messages"))?;
        let summaries =
            parse_summaries(object.get("compactSummaries").unwrap_or(&Value::Null), &field(path, "compactSummaries"))?;
        let mut manager = Self::new(config)?;
        manager.push_many(messages);
        manager.summaries = summaries;
        match object.get("contextUsed") {
            None | Some(Value::Null) => {}
            Some(used) => manager.reported = Some(reported(used, &field(path, "contextUsed"))?),
        }
        Ok(manager)
    }
}

/// Reads a saved state's `contextUsed`: counts as `setContextUsed` takes them,
/// non-negative safe integers.
fn reported(used: &Value, path: &str) -> Result<Reported, InputError> {
    let used = used.as_object().ok_or_else(|| expected(path, "{ inputTokens, estimatedThen }", kind(used)))?;
    let count = |name: &str| {
        let value = used.get(name).ok_or_else(|| missing(path, name))?;
        value.as_i64().filter(|n| (0..=MAX_SAFE_INTEGER).contains(n)).ok_or_else(|| {
            let got = match value {
                Value::Number(n) => n.to_string(),
                other => kind(other).to_owned(),
            };
            expected(&field(path, name), "a non-negative whole number of tokens", &got)
        })
    };
    Ok(Reported { tokens: count("inputTokens")?, estimate_then: count("estimatedThen")? })
}

//! A saved state (`ContextManager::state` / `saved_state`) restored: what it
//! accepts is what the manager itself would hold.

mod common;

use common::*;
use context_compactor::model::read::{parse_message_text, parse_messages_text, read_text, MAX_MESSAGE_NESTING};
use context_compactor::{CompactorType, ContextManager, ContextManagerConfig, InputError};
use serde_json::{json, Value};

fn config() -> ContextManagerConfig {
    ContextManagerConfig::new(1000, CompactorType::default())
}

fn restore(state: &Value) -> Result<ContextManager, InputError> {
    ContextManager::restore(config(), state, "state")
}

#[test]
fn token_counts_must_be_non_negative_safe_integers() {
    let mut m = ContextManager::new(config()).unwrap();
    m.push_many(agent_conversation(1));
    m.set_context_used(5);
    let state = m.state();
    let largest = (1i64 << 53) - 1;
    for (field, value, accepted) in [
        ("inputTokens", json!(-1), false),
        ("inputTokens", json!(-1e15), false),
        ("inputTokens", json!(1.5), false),
        ("inputTokens", json!(largest + 1), false),
        ("inputTokens", json!("5"), false),
        ("estimatedThen", json!(-7), false),
        ("inputTokens", json!(largest), true),
        ("estimatedThen", json!(0), true),
    ] {
        let mut s = state.clone();
        s["contextUsed"][field] = value.clone();
        match restore(&s) {
            Ok(_) => assert!(accepted, "{field}: {value} accepted"),
            Err(e) => {
                assert!(!accepted, "{field}: {value} refused: {e}");
                assert_eq!(e.path, format!("state.contextUsed.{field}"));
            }
        }
    }
    let mut s = state.clone();
    s["contextUsed"].as_object_mut().unwrap().remove("estimatedThen");
    let e = restore(&s).err().unwrap();
    assert_eq!((e.path.as_str(), e.message.as_str()), ("state.contextUsed.estimatedThen", "is required but missing"));
}

#[test]
fn missing_messages_are_said_to_be_missing() {
    let e = restore(&json!({ "version": 1, "compactSummaries": {}, "contextUsed": null })).err().unwrap();
    assert_eq!((e.path.as_str(), e.message.as_str()), ("state.messages", "is required but missing"));
}

/// A message whose tool input is `levels` objects nested in one another.
fn deep_message(levels: usize) -> Value {
    let mut input = json!({});
    for _ in 1..levels {
        input = json!({ "a": input });
    }
    json!({ "role": "assistant", "turn_id": { "owner": "a", "number": 1 },
            "content": [{ "type": "tool_use", "id": "x", "name": "f", "input": input }] })
}

#[test]
fn every_message_accepted_is_restored_from_the_state_text() {
    // Up to the JSON reader's limit (127 levels around the innermost value), past it.
    for levels in 110..=125 {
        let Ok(message) = parse_message_text(&deep_message(levels).to_string(), "message") else { continue };
        let mut m = ContextManager::new(config()).unwrap();
        m.push(message);
        let state = read_text(&serde_json::to_string(&m.saved_state()).unwrap(), "state")
            .unwrap_or_else(|e| panic!("{levels} levels: {e}"));
        let restored = restore(&state).unwrap_or_else(|e| panic!("{levels} levels: {e}"));
        assert_eq!(restored.state(), m.state());
    }
    // The deepest message accepted: message, content and block around the input.
    let deepest = MAX_MESSAGE_NESTING - 3;
    assert!(parse_message_text(&deep_message(deepest).to_string(), "message").is_ok());
    // Alone or in an array, a message one level deeper is refused, naming the field.
    let e = parse_message_text(&deep_message(deepest + 1).to_string(), "message").unwrap_err();
    assert_eq!(e.path, "message.content[0].input");
    let e = parse_messages_text(&json!([deep_message(deepest + 1)]).to_string(), "messages").unwrap_err();
    assert_eq!(e.path, "messages[0].content[0].input");
}

//! A saved state (`ContextManager::state` / `state_json`) restored: what it
//! accepts is what the manager itself would hold.

mod common;

use common::*;
use context_compactor::{CompactorType, ContextManager, ContextManagerConfig, InputError};
use serde_json::{json, Value};

fn config() -> ContextManagerConfig {
    ContextManagerConfig { context_limit: 1000, compactor: CompactorType::default(), fallback: None }
}

fn restore(state: &Value) -> Result<ContextManager, InputError> {
    ContextManager::restore(config(), state, "state")
}

#[test]
fn token_counts_must_be_non_negative_safe_integers() {
    let mut m = ContextManager::new(config());
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

//! `model_json` writes messages byte for byte as their `Serialize` does through
//! `serde_json`: on every shared transcript and on generated messages with every
//! kind of field, string and number.

use std::path::PathBuf;

use context_compactor::formats::{from_anthropic, from_openai};
use context_compactor::model_json::write_messages;
use context_compactor::parse::parse_messages;
use context_compactor::Message;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Map, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conversations");

fn same_as_serde(messages: &[Message]) -> Result<(), String> {
    let mut ours = Vec::new();
    write_messages(&mut ours, messages);
    let serde = serde_json::to_vec(messages).unwrap();
    if ours == serde {
        Ok(())
    } else {
        let at = ours.iter().zip(&serde).position(|(a, b)| a != b).unwrap_or(ours.len().min(serde.len()));
        let from = at.saturating_sub(40);
        Err(format!(
            "differ at byte {at}:\n ours:  {}\n serde: {}",
            String::from_utf8_lossy(&ours[from..(at + 40).min(ours.len())]),
            String::from_utf8_lossy(&serde[from..(at + 40).min(serde.len())])
        ))
    }
}

#[test]
fn every_transcript_is_written_as_serde_writes_it() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .expect("shared/conversations is beside the repository")
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut checked = 0;
    for path in files {
        let name = path.to_string_lossy().to_string();
        let Ok(value) = serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap()) else { continue };
        let messages = if name.ends_with(".anthropic.json") {
            from_anthropic(&value).unwrap().messages
        } else if name.ends_with(".openai.json") {
            from_openai(&value).unwrap().messages
        } else {
            continue;
        };
        same_as_serde(&messages).unwrap_or_else(|e| panic!("{name}: {e}"));
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} transcripts");
}

#[test]
fn every_kind_of_block_and_field() {
    let messages = parse_messages(
        &json!([
            { "role": "user", "id": "a\"b\\c\u{1}", "session_id": -7, "turn_id": { "owner": "ü\n", "number": -9_007_199_254_740_993i64 },
              "created_at": "2026-01-01T00:00:00Z", "content": [
                { "type": "text", "text": "tab\there \u{7f} \u{2028} 😀", "cache_control": { "type": "ephemeral" } },
                { "type": "tool_result", "tool_use_id": "t", "content": [
                    { "type": "text", "text": "x", "z": [1.5, -0.0, 1e300, null, true] },
                    { "type": "image", "source": { "data": "AAAA" } },
                    { "type": "text", "text": 3 }
                  ], "is_error": true, "compact_summary": "s", "extra\u{0}key": {} },
                { "type": "tool_result", "tool_use_id": "u", "content": "plain" },
                { "type": "thinking", "thinking": "hmm", "signature": "sig" }
              ], "meta": { "b": 2, "a": [1, "two", { "c": null }] } },
            { "role": "assistant", "turn_id": { "owner": "a", "number": 1 }, "summary_of": { "messages": 4, "turns": 2 },
              "content": [{ "type": "tool_use", "id": "t", "name": "run", "input": { "cmd": "ls \"-la\"", "n": 12345678901234567890u64 } }] }
        ]),
        "messages",
    )
    .unwrap();
    same_as_serde(&messages).unwrap();
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Any JSON value, strings and numbers of every kind included.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn extra() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z_\u{1}\"é]{1,6}", value(), 0..3).prop_map(|m| m.into_iter().collect())
}

fn block() -> impl Strategy<Value = Value> {
    prop_oneof![
        (any::<String>(), extra()).prop_map(|(text, extra)| with(json!({ "type": "text", "text": text }), extra)),
        (any::<String>(), any::<String>(), value())
            .prop_map(|(id, name, input)| json!({ "type": "tool_use", "id": id, "name": name, "input": input })),
        (
            any::<String>(),
            prop_oneof![
                any::<String>().prop_map(Value::String),
                prop::collection::vec(
                    (any::<String>(), extra()).prop_map(|(t, e)| with(json!({ "type": "text", "text": t }), e)),
                    0..3
                )
                .prop_map(Value::Array)
            ],
            any::<bool>(),
            proptest::option::of(any::<String>()),
            extra()
        )
            .prop_map(|(id, content, is_error, summary, extra)| {
                let mut block =
                    json!({ "type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error });
                if let Some(s) = summary {
                    block["compact_summary"] = s.into();
                }
                with(block, extra)
            }),
        (any::<String>(), value()).prop_map(|(kind, v)| json!({ "type": format!("x{kind}"), "data": v })),
    ]
}

fn with(mut block: Value, extra: Map<String, Value>) -> Value {
    for (k, v) in extra {
        block.as_object_mut().unwrap().entry(k).or_insert(v);
    }
    block
}

fn message() -> impl Strategy<Value = Value> {
    (any::<String>(), any::<i64>(), any::<String>(), any::<i64>(), prop::collection::vec(block(), 0..4), extra(), any::<bool>())
        .prop_map(|(id, session, owner, number, content, extra, summary)| {
            let mut m = json!({ "role": if number % 2 == 0 { "user" } else { "assistant" }, "id": id, "session_id": session,
                "turn_id": { "owner": owner, "number": number }, "created_at": "2026-01-01T00:00:00.000Z", "content": content });
            if summary {
                m["summary_of"] = json!({ "messages": 3, "turns": 1 });
            }
            for (k, v) in extra {
                m.as_object_mut().unwrap().entry(format!("x_{k}")).or_insert(v);
            }
            m
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_messages_are_written_as_serde_writes_them(messages in prop::collection::vec(message(), 0..5)) {
        let messages = parse_messages(&Value::Array(messages), "messages").unwrap();
        prop_assert!(same_as_serde(&messages).is_ok(), "{}", same_as_serde(&messages).unwrap_err());
    }
}

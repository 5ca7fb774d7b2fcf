//! Reading the message model: defaults filled in, unknown fields kept, and
//! every malformed input answered with the path of the offending field.

use context_compactor::model::read::{parse_messages, parse_summaries};
use serde_json::{json, Value};

fn valid() -> Value {
    json!([
        { "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "type": "text", "text": "hi", "cache_control": {"type": "ephemeral"} }], "meta": { "x": 1 } },
        { "role": "assistant", "turn_id": { "owner": "a", "number": 1 }, "content": [
            { "type": "thinking", "thinking": "hmm", "signature": "sig" },
            { "type": "tool_use", "id": "t1", "name": "ls", "input": {} }
        ] },
        { "role": "user", "id": "m3", "session_id": 7, "created_at": "2024-05-01T10:00:00+02:00", "turn_id": { "owner": "a", "number": 1 }, "content": [
            { "type": "tool_result", "tool_use_id": "t1", "content": [{ "type": "text", "text": "a.txt" }] }
        ] }
    ])
}

#[test]
fn fills_defaults_and_keeps_unknown_fields_verbatim() {
    let messages = parse_messages(&valid(), "messages").unwrap();
    let out = serde_json::to_value(&messages).unwrap();
    assert_eq!(out[0]["meta"], json!({ "x": 1 }));
    assert_eq!(out[0]["content"][0]["cache_control"], json!({ "type": "ephemeral" }));
    assert_eq!(out[1]["content"][0], valid()[1]["content"][0], "unknown block kept verbatim");
    assert_eq!(out[0]["session_id"], 0);
    let id = out[0]["id"].as_str().unwrap();
    assert_eq!((id.len(), &id[14..15]), (36, "4"), "uuid v4: {id}");
    assert!(chrono::DateTime::parse_from_rfc3339(out[0]["created_at"].as_str().unwrap()).is_ok());
    assert_eq!(out[2]["id"], "m3");
    assert_eq!(out[2]["created_at"], "2024-05-01T10:00:00+02:00", "kept as written");
    assert_eq!(out[2]["content"][0]["is_error"], false);
    // Output parses back to the same thing.
    assert_eq!(parse_messages(&out, "messages").unwrap(), messages);
}

#[test]
fn generated_ids_are_distinct_uuid_v4_across_random_draws() {
    // 64 ids per draw from the OS: 1,000 ids cross many draws.
    let messages: Vec<Value> = (0..1_000)
        .map(|k| json!({ "role": "user", "turn_id": { "owner": "u", "number": k }, "content": [] }))
        .collect();
    let ids: Vec<String> = parse_messages(&json!(messages), "messages").unwrap().into_iter().map(|m| m.id).collect();
    for id in &ids {
        let hex: Vec<&str> = id.split('-').collect();
        assert_eq!(hex.iter().map(|h| h.len()).collect::<Vec<_>>(), [8, 4, 4, 4, 12], "{id}");
        assert!(id.chars().all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)), "{id}");
        assert!(hex[2].starts_with('4') && "89ab".contains(&hex[3][..1]), "not v4: {id}");
    }
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "ids repeat");
}

#[test]
fn malformed_input_names_the_path() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({}), "messages"),
        (json!([null]), "messages[0]"),
        (json!([{ "turn_id": { "owner": "u", "number": 1 }, "content": [] }]), "messages[0].role"),
        (json!([{ "role": "system", "turn_id": { "owner": "u", "number": 1 }, "content": [] }]), "messages[0].role"),
        (json!([{ "role": "user", "turn_id": "u1", "content": [] }]), "messages[0].turn_id"),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1.5 }, "content": [] }]),
            "messages[0].turn_id.number",
        ),
        (json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": "hi" }]), "messages[0].content"),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "type": "text", "text": 5 }] }]),
            "messages[0].content[0].text",
        ),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "type": "tool_result", "content": "x" }] }]),
            "messages[0].content[0].tool_use_id",
        ),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "type": "tool_result", "tool_use_id": "t", "content": 3 }] }]),
            "messages[0].content[0].content",
        ),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "text": "no type" }] }]),
            "messages[0].content[0].type",
        ),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "created_at": "yesterday", "content": [] }]),
            "messages[0].created_at",
        ),
        (
            json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "session_id": "7", "content": [] }]),
            "messages[0].session_id",
        ),
    ];
    for (input, path) in cases {
        let err = parse_messages(&input, "messages").unwrap_err();
        assert_eq!(err.path, path, "{input}");
        assert!(err.to_string().starts_with(&format!("{path}: ")));
    }
    assert_eq!(parse_summaries(&json!({ "t": 1 }), "compactSummaries").unwrap_err().path, "compactSummaries.t");
}

#[test]
fn summary_of_counts_are_safe_integers() {
    let with = |messages: Value| {
        let m = json!([{ "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [], "summary_of": { "messages": messages, "turns": 1 } }]);
        parse_messages(&m, "messages")
    };
    assert_eq!(with(json!(9_007_199_254_740_991_u64)).unwrap()[0].summary_of.unwrap().messages, 9_007_199_254_740_991);
    for n in [json!(9_007_199_254_740_992_u64), json!(-1)] {
        let err = with(n.clone()).unwrap_err();
        assert_eq!(err.path, "messages[0].summary_of.messages");
        assert_eq!(err.message, format!("expected a whole number from 0 to 9007199254740991, got {n}"));
    }
}

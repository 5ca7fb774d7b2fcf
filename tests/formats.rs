//! Provider wire formats: round trips on real transcripts, cross-format
//! agreement, pairing after compaction, and each format's edge cases.

mod common;

use std::collections::HashMap;

use context_compactor::compaction::config::Keep;
use context_compactor::compaction::llm::{plan, KeptBudget};
use context_compactor::compaction::tool_pairs::validate_tool_pairs;
use context_compactor::formats::{
    assign_turn_ids, detect_format, from_anthropic, from_openai, from_openai_responses, from_vercel_ai, to_anthropic,
    to_openai, to_openai_responses, to_vercel_ai, Format, SystemMessage,
};
use context_compactor::model::read::{parse_messages, parse_messages_text};
use context_compactor::model::tokens::{estimate_block_tokens, estimate_json_tokens, estimate_text_tokens};
use context_compactor::{
    CompactionConfig, Compactor, ContentBlock, Message, Role, ThresholdCompactor, ToolCompaction, ToolResultContent,
    TurnId, REDACTION_NOTICE,
};
use serde_json::{json, Value};

use common::transcript_files::{transcript_files, DIR};

/// `(file name, JSON)` of every transcript whose name ends with `suffix`.
fn transcripts(suffix: &str) -> Vec<(String, Value)> {
    transcript_files(suffix)
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable transcript");
            (
                p.file_name().unwrap_or_default().to_string_lossy().into_owned(),
                serde_json::from_str(&text).expect("JSON"),
            )
        })
        .collect()
}

fn anthropic_doc(system: Option<Value>, messages: &[Message]) -> Value {
    let mut doc = serde_json::Map::new();
    if let Some(system) = system {
        doc.insert("system".into(), system);
    }
    doc.insert("messages".into(), to_anthropic(messages));
    Value::Object(doc)
}

/// What must agree between formats: role, turn, and each block's meaning.
fn essence(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| {
            let blocks: Vec<Value> = m
                .content
                .iter()
                .map(|b| match b {
                    ContentBlock::Text(t) => json!(["text", t.text]),
                    ContentBlock::ToolUse(u) => json!(["tool_use", u.id, u.name, u.input]),
                    ContentBlock::ToolResult(r) => json!(["tool_result", r.tool_use_id, r.content.text(), r.is_error]),
                    ContentBlock::Other(o) => json!(["other", o]),
                })
                .collect();
            json!([m.role.as_str(), m.turn_id.owner, m.turn_id.number, blocks])
        })
        .collect()
}

/// Every `tool` message follows (possibly after other `tool` messages) an
/// assistant message that made a call with its `tool_call_id`.
fn assert_openai_tool_messages_follow_calls(array: &Value, what: &str) {
    let items = array.as_array().expect("an array");
    let mut calls: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item["role"].as_str() {
            Some("assistant") => {
                calls = item["tool_calls"]
                    .as_array()
                    .map(|c| c.iter().filter_map(|c| c["id"].as_str().map(str::to_owned)).collect())
                    .unwrap_or_default();
            }
            Some("tool") => {
                let id = item["tool_call_id"].as_str().expect("tool_call_id");
                assert!(calls.iter().any(|c| c == id), "{what}: tool message {i} ({id}) does not follow its call");
            }
            _ => calls.clear(),
        }
    }
}

// ---------------------------------------------------------------------------
// Real transcripts

#[test]
fn transcripts_are_found() {
    let count = transcripts(".anthropic.json").len() + transcripts(".openai.json").len();
    assert!(count >= 20, "only {count} transcripts in {DIR}");
}

#[test]
fn anthropic_transcripts_round_trip() {
    let files = transcripts(".anthropic.json");
    assert!(files.len() >= 10);
    for (name, value) in files {
        let imported = from_anthropic(&value).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!imported.messages.is_empty(), "{name}");
        assert_eq!(anthropic_doc(imported.system, &imported.messages), value, "{name}");
    }
}

#[test]
fn openai_transcripts_round_trip() {
    let files = transcripts(".openai.json");
    assert!(files.len() >= 10);
    for (name, value) in files {
        let imported = from_openai(&value).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(imported.system.len(), 1, "{name}");
        assert_eq!(imported.system[0].position, 0, "{name}");
        assert_eq!(to_openai(&imported.messages, &imported.system), value, "{name}");
    }
}

#[test]
fn transcripts_round_trip_through_the_model_json() {
    for (name, value) in transcripts(".openai.json") {
        let imported = from_openai(&value).unwrap_or_else(|e| panic!("{name}: {e}"));
        let model = serde_json::to_value(&imported.messages).expect("serializable");
        assert_eq!(detect_format(&model), Some(Format::Model), "{name}");
        let reparsed = parse_messages(&model, "messages").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(to_openai(&reparsed, &imported.system), value, "{name}");
    }
}

#[test]
fn anthropic_and_openai_transcripts_agree() {
    let pairs = transcripts(".anthropic.json");
    for (name, anthropic) in pairs {
        let openai_name = name.replace(".anthropic.json", ".openai.json");
        let text = std::fs::read_to_string(format!("{DIR}/{openai_name}")).expect("the OpenAI twin");
        let openai: Value = serde_json::from_str(&text).expect("JSON");
        let a = from_anthropic(&anthropic).expect("anthropic");
        let o = from_openai(&openai).expect("openai");
        assert_eq!(essence(&a.messages), essence(&o.messages), "{name}");
        assert_eq!(a.system.as_ref(), o.system[0].message.get("content"), "{name}");
        assert!(validate_tool_pairs(&a.messages).is_empty(), "{name}");
    }
}

#[test]
fn transcripts_survive_the_other_formats() {
    for (name, value) in transcripts(".openai.json") {
        let o = from_openai(&value).expect("openai");
        let responses = to_openai_responses(&o.messages, &o.system);
        assert_eq!(detect_format(&responses), Some(Format::OpenAiResponses), "{name}");
        let r = from_openai_responses(&responses).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(essence(&r.messages), essence(&o.messages), "{name}");
        assert_eq!(to_openai(&r.messages, &r.system), value, "{name}: openai → responses → openai");
        let vercel = to_vercel_ai(&o.messages, &o.system);
        let v = from_vercel_ai(&vercel).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(essence(&v.messages), essence(&o.messages), "{name}");
        assert_eq!(to_vercel_ai(&v.messages, &v.system), vercel, "{name}");
    }
}

#[test]
fn turn_ids_pair_tool_calls_with_results() {
    let mut tool_transcripts = 0;
    for (name, value) in transcripts(".openai.json") {
        let messages = from_openai(&value).expect("openai").messages;
        assert_eq!(messages[0].turn_id, TurnId::new("u", 1), "{name}");
        for (i, m) in messages.iter().enumerate() {
            if m.tool_result_ids().next().is_some() {
                tool_transcripts += 1;
                assert_eq!(m.turn_id, messages[i - 1].turn_id, "{name}: message {i}");
                assert_eq!(m.turn_id.owner, "a", "{name}: message {i}");
            }
        }
    }
    assert!(tool_transcripts >= 3);
}

fn cut_conversation(messages: &[Message], keep: usize) -> Option<Vec<Message>> {
    let plan = plan(messages, Keep::Turns(keep), KeptBudget::flat(0))?;
    let mut out = vec![Message::user_text("[Previous conversation summary]: …", 0, TurnId::new("u", 0))];
    out.extend_from_slice(&messages[plan.cut..]);
    Some(out)
}

fn assert_exports_pair(messages: &[Message], system: &[SystemMessage], what: &str) {
    assert_eq!(validate_tool_pairs(messages), vec![], "{what}: model");
    let anthropic = to_anthropic(messages);
    let back = from_anthropic(&anthropic).expect("re-import anthropic").messages;
    assert_eq!(validate_tool_pairs(&back), vec![], "{what}: anthropic");
    let openai = to_openai(messages, system);
    assert_openai_tool_messages_follow_calls(&openai, what);
    let back = from_openai(&openai).expect("re-import openai").messages;
    assert_eq!(validate_tool_pairs(&back), vec![], "{what}: openai");
}

#[test]
fn llm_cut_keeps_pairs_in_every_export() {
    let mut cuts = 0;
    for (name, value) in transcripts(".openai.json") {
        let imported = from_openai(&value).expect("openai");
        let anthropic_name = name.replace(".openai.json", ".anthropic.json");
        let text = std::fs::read_to_string(format!("{DIR}/{anthropic_name}")).expect("twin");
        let from_a = from_anthropic(&serde_json::from_str(&text).expect("JSON")).expect("anthropic").messages;
        for keep in 1..=4 {
            for messages in [&imported.messages, &from_a] {
                if let Some(cut) = cut_conversation(messages, keep) {
                    cuts += 1;
                    assert_exports_pair(&cut, &imported.system, &format!("{name} keep {keep}"));
                }
            }
        }
    }
    assert!(cuts >= 20, "only {cuts} cuts");
}

/// All `tools.*` OpenAI transcripts as one conversation of several exchanges
/// (each transcript is a single exchange: one user turn, one agent turn).
fn multi_exchange_tool_conversation() -> Value {
    let mut out = Vec::new();
    for (_, value) in transcripts(".openai.json").into_iter().filter(|(n, _)| n.starts_with("tools.")) {
        let items = value.as_array().expect("array").clone();
        let skip = if out.is_empty() { 0 } else { 1 };
        out.extend(items.into_iter().skip(skip));
    }
    Value::Array(out)
}

#[test]
fn threshold_compaction_keeps_pairs_in_every_export() {
    let compactor = ThresholdCompactor::new(CompactionConfig {
        keep_recent_turns: 2,
        tool_compaction: ToolCompaction::Redact,
        ..CompactionConfig::default()
    })
    .unwrap();
    let mut redacted = 0;
    let mut inputs = transcripts(".openai.json");
    inputs.push(("all tool transcripts".into(), multi_exchange_tool_conversation()));
    for (name, value) in inputs {
        let mut imported = from_openai(&value).expect("openai");
        let result = compactor.compact(&mut imported.messages, &HashMap::new());
        redacted += result.tool_results_redacted;
        assert_exports_pair(&imported.messages, &imported.system, &name);
        let openai = to_openai(&imported.messages, &imported.system);
        let notices = openai.as_array().expect("array").iter().filter(|m| m["content"] == REDACTION_NOTICE).count();
        assert_eq!(notices, result.tool_results_redacted, "{name}");
        // Back in Anthropic form, the redacted results are still tool results.
        let anthropic = from_anthropic(&anthropic_doc(None, &imported.messages)).expect("anthropic");
        assert_eq!(essence(&anthropic.messages), essence(&imported.messages), "{name}");
    }
    assert!(redacted >= 10, "only {redacted} results redacted");
}

// ---------------------------------------------------------------------------
// Anthropic

#[test]
fn anthropic_string_content_and_array_system_round_trip() {
    let doc = json!({
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "user", "content": [{"type": "text", "text": "Bye"}]}
        ]
    });
    let imported = from_anthropic(&doc).expect("valid");
    assert!(matches!(&imported.messages[0].content[..], [ContentBlock::Text(t)] if t.text == "Hello"));
    assert_eq!(anthropic_doc(imported.system.clone(), &imported.messages), doc);
    // A string read from a string goes to OpenAI as a string too.
    assert_eq!(to_openai(&imported.messages, &[])[0], json!({"role": "user", "content": "Hello"}));
    // The bare messages array is accepted as well.
    assert_eq!(from_anthropic(&doc["messages"]).expect("bare").messages.len(), 3);
}

#[test]
fn anthropic_unknown_blocks_are_kept_verbatim() {
    let doc = json!({"messages": [
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}, "title": "t"},
            {"type": "text", "text": "What is this?", "cache_control": {"type": "ephemeral"}}
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Hmm.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {"x": 1}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "2"}], "is_error": true},
            {"type": "text", "text": "and now?"}
        ]}
    ]});
    let imported = from_anthropic(&doc).expect("valid");
    let m = &imported.messages;
    assert!(matches!(&m[0].content[0], ContentBlock::Other(o) if o["type"] == "image"));
    assert!(matches!(&m[1].content[0], ContentBlock::Other(o) if o["type"] == "thinking"));
    assert!(matches!(&m[2].content[0], ContentBlock::ToolResult(r) if r.is_error));
    // A user message whose tool result answers the step's call joins the step,
    // text besides it or not: a tool pair always shares a turn.
    let turns: Vec<_> = m.iter().map(|m| m.turn_id.clone()).collect();
    assert_eq!(turns, [TurnId::new("u", 1), TurnId::new("a", 1), TurnId::new("a", 1)]);
    assert_eq!(anthropic_doc(None, m), doc);
    // In OpenAI, the tool result becomes a tool message before the user's text.
    let openai = to_openai(m, &[]);
    assert_eq!(openai[2]["role"], "tool");
    assert_eq!(openai[3], json!({"role": "user", "content": "and now?"}));
}

#[test]
fn anthropic_normalizes_is_error_false_and_missing_content() {
    let doc = json!({"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": false}
        ]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": true}]}
    ]});
    let imported = from_anthropic(&doc).expect("valid");
    assert_eq!(imported.messages[0].turn_id, TurnId::new("a", 1));
    let out = to_anthropic(&imported.messages);
    assert_eq!(out[1]["content"][0], json!({"type": "tool_result", "tool_use_id": "t1", "content": "ok"}));
    assert_eq!(out[3], doc["messages"][3]);
}

#[test]
fn anthropic_errors_name_the_field() {
    let cases = [
        (json!(42), "conversation"),
        (json!({"system": "s"}), "messages"),
        (json!({"messages": {}}), "messages"),
        (json!({"messages": [{"role": "system", "content": "x"}]}), "messages[0].role"),
        (json!({"messages": [{"role": "user"}]}), "messages[0].content"),
        (json!({"messages": [{"role": "user", "content": 3}]}), "messages[0].content"),
        (json!({"messages": [{"role": "user", "content": null}]}), "messages[0].content"),
        (json!({"messages": [{"role": "user", "content": ["x"]}]}), "messages[0].content[0]"),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": 5, "content": ""}]}]}),
            "messages[0].content[0].tool_use_id",
        ),
    ];
    for (input, path) in cases {
        let err = from_anthropic(&input).expect_err(&input.to_string());
        assert_eq!(err.path, path, "{input}");
        assert!(!err.message.is_empty());
    }
    // A role that is a string is quoted, as the model's reader quotes it.
    let err = from_anthropic(&json!([{"role": "system", "content": "x"}])).unwrap_err();
    assert_eq!(err.message, "expected \"user\" or \"assistant\", got \"system\"");
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions

#[test]
fn openai_arguments_survive_exactly() {
    let doc = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bad", "arguments": "{\"a\": 1,"}},
            {"id": "c2", "type": "function", "function": {"name": "spaced", "arguments": "{ \"b\" : [1, 2], \"a\": true }"}},
            {"id": "c3", "type": "function", "function": {"name": "plain", "arguments": "{\"a\":1}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "e"},
        {"role": "tool", "tool_call_id": "c2", "content": "f"},
        {"role": "tool", "tool_call_id": "c3", "content": "g"}
    ]);
    let mut imported = from_openai(&doc).expect("valid");
    let calls: Vec<_> = imported.messages[1]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse(u) => Some(u.clone()),
            _ => None,
        })
        .collect();
    // Arguments that are not JSON become an object any format takes, and nothing else is kept.
    assert_eq!(calls[0].input, json!({"_raw": "{\"a\": 1,"}));
    assert!(calls[0].extra.is_empty());
    assert_eq!(calls[1].input, json!({"a": true, "b": [1, 2]}));
    assert_eq!(calls[2].input, json!({"a": 1}));
    assert!(calls[2].extra.is_empty());
    assert_eq!(to_openai(&imported.messages, &[]), doc);
    // Parallel calls: one assistant message, one user message with all results.
    assert_eq!(imported.messages.len(), 3);
    assert_eq!(imported.messages[2].tool_result_ids().collect::<Vec<_>>(), ["c1", "c2", "c3"]);
    assert!(validate_tool_pairs(&imported.messages).is_empty());
    // A changed input is re-encoded instead of the stale raw string.
    if let ContentBlock::ToolUse(u) = &mut imported.messages[1].content[1] {
        u.input = json!({"b": 3});
    }
    let out = to_openai(&imported.messages, &[]);
    assert_eq!(out[1]["tool_calls"][1]["function"]["arguments"], "{\"b\":3}");
    assert_eq!(out[1]["tool_calls"][0]["function"]["arguments"], "{\"a\": 1,");
}

/// `value` as JavaScript gives it back: every number a double.
fn as_in_js(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64().expect("finite")),
        Value::Array(items) => items.iter().map(as_in_js).collect(),
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), as_in_js(v))).collect(),
        other => other.clone(),
    }
}

#[test]
fn arguments_with_numbers_javascript_rounds_survive_exactly() {
    // 64-bit ids beyond 2^53 and a float written `1.0`: JavaScript changes each,
    // even when the text is already how the package would write it (the second call).
    let args =
        ["{\"n\":12345678901234567890,\"id\":9007199254740993,\"f\":1.0}", "{\"id\":9007199254740993}", "{\"f\":1.0}"];
    let calls: Vec<Value> = args
        .iter()
        .enumerate()
        .map(|(i, a)| json!({"id": format!("c{i}"), "type": "function", "function": {"name": "f", "arguments": a}}))
        .collect();
    let doc = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c0", "content": "r"},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "tool", "tool_call_id": "c2", "content": "r"}
    ]);
    let mut messages = from_openai(&doc).expect("valid").messages;
    assert_eq!(to_openai(&messages, &[]), doc);
    // The inputs as they come back from JS (`messages()`, then `push`) still match.
    for block in &mut messages[1].content {
        if let ContentBlock::ToolUse(u) = block {
            u.input = as_in_js(&u.input);
        }
    }
    assert_eq!(to_openai(&messages, &[]), doc);
    // Formats that carry the input as a value get the provider's numbers too.
    let anthropic = to_anthropic(&messages);
    assert_eq!(
        anthropic[1]["content"][0]["input"],
        json!({"n": 12345678901234567890u64, "id": 9007199254740993u64, "f": 1.0})
    );
    assert_eq!(to_vercel_ai(&messages, &[])[1]["content"][1]["input"], json!({"id": 9007199254740993u64}));
    // An input changed beyond what JS rounds is written as it now is.
    if let ContentBlock::ToolUse(u) = &mut messages[1].content[1] {
        u.input = json!({"id": 9007199254740996u64});
    }
    assert_eq!(to_openai(&messages, &[])[1]["tool_calls"][1]["function"]["arguments"], "{\"id\":9007199254740996}");
    assert_eq!(to_anthropic(&messages)[1]["content"][1]["input"], json!({"id": 9007199254740996u64}));

    let items = json!([
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": args[1]},
        {"type": "function_call_output", "call_id": "c1", "output": "r"}
    ]);
    let mut messages = from_openai_responses(&items).expect("valid").messages;
    if let ContentBlock::ToolUse(u) = &mut messages[1].content[0] {
        u.input = as_in_js(&u.input);
    }
    assert_eq!(to_openai_responses(&messages, &[]), items);
}

#[test]
fn openai_system_positions_names_and_parts_round_trip() {
    let doc = json!([
        {"role": "developer", "content": "Rules."},
        {"role": "user", "name": "alice", "content": [
            {"type": "text", "text": "Look:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}}
        ]},
        {"role": "assistant", "content": "", "refusal": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "zoom", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "zoomed"}]},
        {"role": "system", "content": "Mid-conversation note."},
        {"role": "user", "content": [{"type": "text", "text": "one part"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "refusal", "refusal": "no"}]},
        {"role": "user", "content": ""},
        {"role": "assistant", "tool_calls": []}
    ]);
    let imported = from_openai(&doc).expect("valid");
    let positions: Vec<usize> = imported.system.iter().map(|s| s.position).collect();
    assert_eq!(positions, [0, 3]);
    assert_eq!(imported.messages.len(), 7);
    assert_eq!(imported.messages[0].extra["name"], "alice");
    assert!(matches!(&imported.messages[2].content[0], ContentBlock::ToolResult(r)
        if matches!(&r.content, ToolResultContent::Blocks(b) if b.len() == 1)));
    assert_eq!(to_openai(&imported.messages, &imported.system), doc);
    // Messages dropped by a compaction: the trailing system message goes last.
    let out = to_openai(&imported.messages[..2], &imported.system);
    assert_eq!(out.as_array().map(Vec::len), Some(4));
    assert_eq!(out[3]["role"], "system");
}

#[test]
fn openai_errors_name_the_field() {
    let call = |function: Value| json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": function}]}]);
    let cases = [
        (json!({}), "messages"),
        (json!([1]), "messages[0]"),
        (json!([{"content": "x"}]), "messages[0].role"),
        (json!([{"role": "function", "content": "x"}]), "messages[0].role"),
        (json!([{"role": "user"}]), "messages[0].content"),
        (json!([{"role": "user", "content": [{"type": "text"}]}]), "messages[0].content[0].text"),
        (json!([{"role": "tool", "content": "x"}]), "messages[0].tool_call_id"),
        (json!([{"role": "tool", "tool_call_id": "c", "content": 1}]), "messages[0].content"),
        (json!([{"role": "assistant", "tool_calls": {}}]), "messages[0].tool_calls"),
        (call(json!({"arguments": "{}"})), "messages[0].tool_calls[0].function.name"),
        (call(json!({"name": "f", "arguments": {}})), "messages[0].tool_calls[0].function.arguments"),
        (call(json!("f")), "messages[0].tool_calls[0].function"),
        (
            json!([{"role": "assistant", "tool_calls": [{"id": "c", "type": "custom", "custom": {}}]}]),
            "messages[0].tool_calls[0].type",
        ),
    ];
    for (input, path) in cases {
        let err = from_openai(&input).expect_err(&input.to_string());
        assert_eq!(err.path, path, "{input}");
        assert!(!err.message.is_empty());
    }
}

// ---------------------------------------------------------------------------
// OpenAI Responses

fn responses_sample() -> Value {
    json!([
        {"role": "developer", "content": "Be precise."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "weather", "arguments": "{\"city\": \"Rome\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
        {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "21C"}]},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "Paris 18C, Rome 21C.", "annotations": []}
        ]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Thanks"},
            {"type": "input_image", "image_url": "https://example.invalid/a.png", "detail": "auto"}
        ]}
    ])
}

#[test]
fn responses_items_round_trip_in_order() {
    let doc = responses_sample();
    assert_eq!(detect_format(&doc), Some(Format::OpenAiResponses));
    let imported = from_openai_responses(&doc).expect("valid");
    assert_eq!(imported.system.len(), 1);
    let m = &imported.messages;
    let roles: Vec<_> = m.iter().map(|m| (m.role, m.turn_id.owner.as_str(), m.turn_id.number)).collect();
    // Reasoning and its calls form one assistant message, the outputs one user
    // message, the answer and the search call another assistant message: a
    // step each, the outputs in the step of their calls.
    assert_eq!(
        roles,
        [
            (Role::User, "u", 1),
            (Role::Assistant, "a", 1),
            (Role::User, "a", 1),
            (Role::Assistant, "a", 2),
            (Role::User, "u", 2)
        ]
    );
    assert!(matches!(&m[1].content[0], ContentBlock::Other(o) if o["type"] == "reasoning"));
    assert_eq!(m[1].tool_use_ids().collect::<Vec<_>>(), ["call_1", "call_2"]);
    assert_eq!(m[2].tool_result_ids().collect::<Vec<_>>(), ["call_1", "call_2"]);
    assert_eq!(m[3].id, "msg_1");
    assert!(matches!(&m[3].content[..], [ContentBlock::Text(t), ContentBlock::Other(o)]
        if t.text.starts_with("Paris") && o["type"] == "web_search_call"));
    assert!(validate_tool_pairs(m).is_empty());
    assert_eq!(to_openai_responses(m, &imported.system), doc);
    // Through the model's own JSON: the item ids do not clash with the model's fields.
    let model = serde_json::to_value(m).expect("serializable");
    let reparsed = parse_messages(&model, "messages").expect("model JSON");
    assert_eq!(to_openai_responses(&reparsed, &imported.system), doc);
}

#[test]
fn responses_errors_name_the_field() {
    let cases = [
        (json!("hello"), "input"),
        (json!([{"type": "function_call", "name": "f", "arguments": "{}"}]), "input[0].call_id"),
        (json!([{"type": "function_call_output", "call_id": "c", "output": 5}]), "input[0].output"),
        (json!([{"type": "message", "role": "tool", "content": "x"}]), "input[0].role"),
        (json!([{"role": "user", "content": [{"type": "input_text"}]}]), "input[0].content[0].text"),
        (json!([{"type": 3}]), "input[0].type"),
    ];
    for (input, path) in cases {
        let err = from_openai_responses(&input).expect_err(&input.to_string());
        assert_eq!(err.path, path, "{input}");
    }
}

// ---------------------------------------------------------------------------
// Vercel AI SDK

fn vercel_sample() -> Value {
    json!([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this image?"},
            {"type": "image", "image": "https://example.invalid/cat.png", "mediaType": "image/png"}
        ]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Let me check."},
            {"type": "text", "text": "Checking."},
            {"type": "tool-call", "toolCallId": "t1", "toolName": "classify", "input": {"url": "cat.png"}},
            {"type": "tool-call", "toolCallId": "t2", "toolName": "lookup", "input": {"q": "cat"}, "providerOptions": {"x": {"y": 1}}},
            {"type": "tool-call", "toolCallId": "t3", "toolName": "fail", "input": {}}
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "t1", "toolName": "classify", "output": {"type": "text", "value": "cat"}},
            {"type": "tool-result", "toolCallId": "t2", "toolName": "lookup", "output": {"type": "json", "value": {"legs": 4, "name": "cat"}}},
            {"type": "tool-result", "toolCallId": "t3", "toolName": "fail", "output": {"type": "error-text", "value": "boom"}}
        ]},
        {"role": "assistant", "content": "A cat."},
        {"role": "user", "content": "Thanks", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}
    ])
}

#[test]
fn vercel_messages_round_trip() {
    let doc = vercel_sample();
    assert_eq!(detect_format(&doc), Some(Format::VercelAi));
    let imported = from_vercel_ai(&doc).expect("valid");
    let m = &imported.messages;
    assert_eq!(m.len(), 5);
    assert_eq!(imported.system[0].position, 0);
    let results: Vec<_> = m[2]
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some((r.content.text(), r.is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [("cat".into(), false), ("{\"legs\":4,\"name\":\"cat\"}".into(), false), ("boom".into(), true)]
    );
    assert_eq!(m[2].turn_id, m[1].turn_id);
    assert!(validate_tool_pairs(m).is_empty());
    assert_eq!(to_vercel_ai(m, &imported.system), doc);
}

#[test]
fn vercel_compacted_results_are_written_as_text() {
    let mut imported = from_vercel_ai(&vercel_sample()).expect("valid");
    for block in &mut imported.messages[2].content {
        if let ContentBlock::ToolResult(r) = block {
            r.content = ToolResultContent::Text(REDACTION_NOTICE.into());
        }
    }
    let out = to_vercel_ai(&imported.messages, &imported.system);
    assert_eq!(out[3]["content"][1]["output"], json!({"type": "text", "value": REDACTION_NOTICE}));
    assert_eq!(out[3]["content"][2]["output"], json!({"type": "error-text", "value": REDACTION_NOTICE}));
}

#[test]
fn vercel_from_openai_fills_tool_names() {
    let o = from_openai(&json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}
    ]))
    .expect("valid");
    let out = to_vercel_ai(&o.messages, &o.system);
    assert_eq!(
        out[2],
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "ls", "output": {"type": "text", "value": "a.txt"}}]})
    );
}

#[test]
fn vercel_errors_name_the_field() {
    let cases = [
        (
            json!([{"role": "assistant", "content": [{"type": "tool-call", "toolName": "f", "input": {}}]}]),
            "messages[0].content[0].toolCallId",
        ),
        (json!([{"role": "tool", "content": "x"}]), "messages[0].content"),
        (
            json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f"}]}]),
            "messages[0].content[0].output",
        ),
        (json!([{"role": "developer", "content": "x"}]), "messages[0].role"),
        (json!([{"role": "user", "content": null}]), "messages[0].content"),
    ];
    for (input, path) in cases {
        let err = from_vercel_ai(&input).expect_err(&input.to_string());
        assert_eq!(err.path, path, "{input}");
    }
}

// ---------------------------------------------------------------------------
// Shared pieces

#[test]
fn detect_format_recognises_each_format() {
    for (name, value) in transcripts(".anthropic.json") {
        assert_eq!(detect_format(&value), Some(Format::Anthropic), "{name}");
    }
    for (name, value) in transcripts(".openai.json") {
        // Plain string messages fit every array format: they are read as Chat Completions.
        assert_eq!(detect_format(&value), Some(Format::OpenAi), "{name}");
    }
    assert_eq!(detect_format(&json!({"model": "m", "messages": [{"role": "user", "tool_calls": []}]})), None);
    assert_eq!(detect_format(&json!({"messages": [{"role": "system", "content": "s"}]})), None);
    assert_eq!(detect_format(&json!({"messages": [{"role": "user", "content": "hi"}]})), Some(Format::Anthropic));
    assert_eq!(detect_format(&json!("text")), None);
    assert_eq!(detect_format(&json!([])), None);
    for format in Format::ALL {
        assert_eq!(Format::from_name(format.name()), Some(format));
    }
    assert_eq!(Format::from_name("vercel"), None);
}

#[test]
fn turn_ids_follow_steps() {
    let doc = json!([
        {"role": "assistant", "content": "Welcome."},
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "r"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "c"}
    ]);
    let mut messages = from_openai(&doc).expect("valid").messages;
    let turns =
        |m: &[Message]| m.iter().map(|m| format!("{}{}", m.turn_id.owner, m.turn_id.number)).collect::<Vec<_>>();
    assert_eq!(turns(&messages), ["a1", "u1", "u2", "a2", "a2", "a3", "u3"]);
    for m in &mut messages {
        m.turn_id = TurnId::new("x", 9);
    }
    assign_turn_ids(&mut messages);
    assert_eq!(turns(&messages), ["a1", "u1", "u2", "a2", "a2", "a3", "u3"]);
}

/// A tool result's content array: typed text blocks (one with `cache_control`)
/// among blocks kept verbatim, a text block whose `text` is not a string among them.
fn nested_blocks() -> Value {
    json!([
        {"type": "text", "text": "first", "cache_control": {"type": "ephemeral"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "text", "text": 5},
        {"text": "no type"},
        {"type": "text", "text": "last"}
    ])
}

/// The tool result of the only user message holding one.
fn nested_result(messages: &[Message]) -> &ToolResultContent {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .find_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(&r.content),
            _ => None,
        })
        .expect("a tool result")
}

fn assert_nested_blocks_typed(content: &ToolResultContent, what: &str) {
    let ToolResultContent::Blocks(blocks) = content else { panic!("{what}: {content:?}") };
    let kinds: Vec<&str> = blocks
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) if t.text == "first" && t.extra["cache_control"] == json!({"type": "ephemeral"}) => {
                "first"
            }
            ContentBlock::Text(t) if t.text == "last" && t.extra.is_empty() => "last",
            ContentBlock::Other(_) => "other",
            _ => "unexpected",
        })
        .collect();
    assert_eq!(kinds, ["first", "other", "other", "other", "last"], "{what}");
    assert_eq!(content.to_value(), nested_blocks(), "{what}");
    assert_eq!(content.text(), "first\nno type\nlast", "{what}");
}

#[test]
fn nested_text_blocks_are_typed_and_round_trip_through_every_format() {
    let call = json!({"type": "tool_use", "id": "t1", "name": "look", "input": {}});
    let anthropic = json!({"messages": [
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": nested_blocks()}]}
    ]});
    let openai = json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "t1", "content": nested_blocks()}
    ]);
    let responses = json!([
        {"type": "function_call", "call_id": "t1", "name": "look", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "t1", "output": nested_blocks()}
    ]);
    let vercel = json!([
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "t1", "toolName": "look", "input": {}}]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "t1", "toolName": "look", "output": {"type": "content", "value": nested_blocks()}}
        ]}
    ]);

    let imported = from_anthropic(&anthropic).expect("anthropic");
    assert_nested_blocks_typed(nested_result(&imported.messages), "anthropic");
    assert_eq!(anthropic_doc(None, &imported.messages), anthropic);
    let messages = imported.messages;

    let imported = from_openai(&openai).expect("openai");
    assert_nested_blocks_typed(nested_result(&imported.messages), "openai");
    assert_eq!(to_openai(&imported.messages, &imported.system), openai);

    let imported = from_openai_responses(&responses).expect("responses");
    assert_nested_blocks_typed(nested_result(&imported.messages), "responses");
    assert_eq!(to_openai_responses(&imported.messages, &imported.system), responses);

    let imported = from_vercel_ai(&vercel).expect("vercel");
    assert_nested_blocks_typed(nested_result(&imported.messages), "vercel");
    assert_eq!(to_vercel_ai(&imported.messages, &imported.system), vercel);

    // The model's own JSON, read as a value and as text.
    let model = serde_json::to_value(&messages).expect("JSON");
    assert_eq!(model[1]["content"][0]["content"], nested_blocks());
    let again = parse_messages(&model, "messages").expect("model JSON");
    assert_eq!(again, messages);
    let text = serde_json::to_string(&model).expect("text");
    assert_eq!(parse_messages_text(&text, "messages").expect("model JSON text"), messages);
    // A text block is written `type`, `text`, then its other fields.
    let written = serde_json::to_string(&messages).expect("text");
    assert!(written.contains(r#"{"type":"text","text":"first","cache_control":{"type":"ephemeral"}}"#), "{written}");
}

#[test]
fn nested_blocks_are_estimated_as_json_blocks_were() {
    let messages = from_anthropic(&json!({"messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": nested_blocks()}]}
    ]}))
    .expect("anthropic")
    .messages;
    let text = estimate_text_tokens;
    let json = |v: Value| estimate_json_tokens(&v);
    // Block overhead, the texts, the image's flat figure, the others as JSON.
    let expected =
        3 + text("first") + 1_600 + json(json!({"type": "text", "text": 5})) + text("no type") + text("last");
    assert_eq!(estimate_block_tokens(&messages[0].content[0]), expected);
}

#[test]
fn threshold_compaction_replaces_any_block_array_with_the_summary() {
    let cases = [
        nested_blocks(),
        json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]),
        json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        json!([{"type": "text", "text": "a very long text that is longer than the summary".repeat(50)}]),
        json!([]),
    ];
    for content in cases {
        let mut messages = from_anthropic(&json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "look", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": content}]},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": "ok"}
        ]}))
        .expect("anthropic")
        .messages;
        for tool_compaction in [ToolCompaction::Summarize, ToolCompaction::Redact] {
            let compactor = ThresholdCompactor::new(CompactionConfig {
                tool_compaction,
                keep_recent_turns: 1,
                ..CompactionConfig::default()
            })
            .unwrap();
            let summaries = HashMap::from([("t1".to_owned(), "the summary".to_owned())]);
            let mut compacted = messages.clone();
            let result = compactor.compact(&mut compacted, &summaries);
            assert_eq!(result.tool_results_summarized + result.tool_results_redacted, 1, "{content}");
            let expected = match tool_compaction {
                ToolCompaction::Summarize => "the summary",
                ToolCompaction::Redact => REDACTION_NOTICE,
            };
            assert_eq!(nested_result(&compacted), &ToolResultContent::Text(expected.to_owned()), "{content}");
            // Nothing else changed.
            let ContentBlock::ToolResult(r) = &mut messages[1].content[0] else { unreachable!() };
            let original = std::mem::replace(&mut r.content, ToolResultContent::Text(expected.to_owned()));
            assert_eq!(compacted, messages, "{content}");
            let ContentBlock::ToolResult(r) = &mut messages[1].content[0] else { unreachable!() };
            r.content = original;
        }
    }
}

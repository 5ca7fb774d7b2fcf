//! `ContextManager::request_body`: the body is the request's fields plus the
//! `to_*` adapter's output, and the cache follows every change.

mod common;

use common::agent_conversation;
use context_compactor::formats::{to_anthropic, to_openai, to_openai_responses, Format, SystemMessage};
use context_compactor::{
    BodyRequest, CompactionConfig, CompactionError, CompactorType, ContextManager, ContextManagerConfig, Step,
    ToolCompaction,
};
use serde_json::{json, Map, Value};

fn manager(turns: usize) -> ContextManager {
    let mut ctx = ContextManager::new(ContextManagerConfig {
        context_limit: 1_000_000,
        compactor: CompactorType::Threshold(CompactionConfig {
            tool_compaction: ToolCompaction::Redact,
            keep_recent_turns: 1,
            ..CompactionConfig::default()
        }),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap();
    ctx.push_many(agent_conversation(turns));
    ctx
}

fn request(format: Format, system: Vec<SystemMessage>) -> BodyRequest {
    let fields: Map<String, Value> = json!({ "model": "m", "max_tokens": 100 }).as_object().unwrap().clone();
    BodyRequest { format, fields, system }
}

/// What the body must be: the fields as serialized, then the adapter's array.
fn expected(ctx: &ContextManager, request: &BodyRequest) -> Vec<u8> {
    let (key, wire) = match request.format {
        Format::Anthropic => ("messages", to_anthropic(ctx.messages()).to_string()),
        Format::OpenAi => ("messages", to_openai(ctx.messages(), &request.system).to_string()),
        _ => ("input", to_openai_responses(ctx.messages(), &request.system).to_string()),
    };
    let mut body = serde_json::to_vec(&request.fields).unwrap();
    body.pop();
    if !request.fields.is_empty() {
        body.push(b',');
    }
    body.extend(format!("{}:{}}}", json!(key), wire).bytes());
    body
}

#[test]
fn body_equals_the_adapters_output_byte_for_byte() {
    let system = vec![
        SystemMessage { position: 0, message: json!({ "role": "system", "content": "s" }) },
        SystemMessage { position: 99, message: json!({ "role": "developer", "content": "d" }) },
    ];
    let mut ctx = manager(5);
    for request in [
        request(Format::Anthropic, Vec::new()),
        request(Format::OpenAi, system.clone()),
        request(Format::OpenAiResponses, system),
    ] {
        let body = ctx.request_body(&request).to_vec();
        assert_eq!(body, expected(&ctx, &request), "{:?}", request.format);
    }
}

#[test]
fn body_follows_pushes_and_compactions() {
    let mut ctx = manager(6);
    let anthropic = request(Format::Anthropic, Vec::new());
    let first = ctx.request_body(&anthropic).to_vec();
    assert_eq!(ctx.request_body(&anthropic), first.as_slice());
    ctx.push_many(agent_conversation(1));
    assert_eq!(ctx.request_body(&anthropic).to_vec(), expected(&ctx, &anthropic));
    let outcome = futures::executor::block_on(ctx.force_compact(None)).unwrap();
    assert!(outcome.tool_results_redacted > 0);
    let compacted = ctx.request_body(&anthropic).to_vec();
    assert!(compacted.len() < first.len());
    assert_eq!(compacted, expected(&ctx, &anthropic));
    let openai = request(Format::OpenAi, Vec::new());
    assert_eq!(ctx.request_body(&openai).to_vec(), expected(&ctx, &openai));
}

#[test]
fn pushes_extend_the_body_and_trailing_system_messages_stay_last() {
    let system = vec![
        SystemMessage { position: 0, message: json!({ "role": "system", "content": "s" }) },
        SystemMessage { position: 9, message: json!({ "role": "developer", "content": "after message 9" }) },
    ];
    let mut ctx = manager(0);
    for request in [request(Format::Anthropic, Vec::new()), request(Format::OpenAi, system)] {
        for turn in 0..4 {
            assert_eq!(ctx.request_body(&request).to_vec(), expected(&ctx, &request), "turn {turn}");
            ctx.push_many(agent_conversation(1));
        }
    }
    let anthropic = request(Format::Anthropic, Vec::new());
    ctx.request_body(&anthropic);
    futures::executor::block_on(ctx.force_compact(None)).unwrap();
    ctx.push_many(agent_conversation(1));
    assert_eq!(ctx.request_body(&anthropic).to_vec(), expected(&ctx, &anthropic), "a compaction, then a push");
}

#[test]
fn bad_requests_name_the_field() {
    let cases = [
        (json!([]), "options"),
        (json!({ "model": "m" }), "options.format"),
        (json!({ "format": "vercel-ai" }), "options.format"),
        (json!({ "format": "anthropic", "messages": [] }), "options.messages"),
        (json!({ "format": "openai-responses", "input": [] }), "options.input"),
        (json!({ "format": "openai", "system": {} }), "options.system"),
    ];
    for (value, path) in cases {
        assert_eq!(BodyRequest::parse(value.clone(), "options").unwrap_err().path, path, "{value}");
    }
    let anthropic = BodyRequest::parse(json!({ "format": "anthropic", "system": "s", "model": "m" }), "options");
    assert_eq!(anthropic.unwrap().fields, json!({ "system": "s", "model": "m" }).as_object().unwrap().clone());
}

/// One step of a [`body_follows_any_sequence_of_changes`] run.
#[derive(Debug, Clone)]
enum Op {
    /// Push this many agent turns.
    Push(usize),
    /// Threshold compaction (the fallback of a failed summary).
    Threshold,
    /// LLM compaction: a summary replaces the old turns.
    Summary,
    /// A body in this format (0..3), with or without extra fields and system messages.
    Body { format: usize, more_fields: bool, system: bool },
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        (0..4usize).prop_map(Op::Push),
        Just(Op::Threshold),
        Just(Op::Summary),
        (0..3usize, any::<bool>(), any::<bool>()).prop_map(|(format, more_fields, system)| Op::Body {
            format,
            more_fields,
            system
        }),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Whatever happened since the last body (pushes, compactions of either
    /// kind, another format or other fields), the body is what the adapter
    /// writes for the conversation as it is now.
    #[test]
    fn body_follows_any_sequence_of_changes(ops in proptest::collection::vec(op(), 1..24)) {
        let mut ctx = ContextManager::new(ContextManagerConfig {
            context_limit: 1_000_000,
            compactor: CompactorType::LLM(Default::default()),
            fallback: Some(CompactionConfig {
                tool_compaction: ToolCompaction::Redact,
                keep_recent_turns: 1,
                ..CompactionConfig::default()
            }),
            reserve_tokens: 0,
            max_tool_result_tokens: None,
        }).unwrap();
        for op in ops {
            match op {
                Op::Push(turns) => ctx.push_many(agent_conversation(turns)),
                Op::Threshold | Op::Summary => {
                    if let Step::Summarize(job) = ctx.begin(true) {
                        let answer = match op {
                            Op::Summary => Ok("Short.".to_owned()),
                            _ => Err(CompactionError::EmptySummary),
                        };
                        ctx.complete(job.id, answer);
                    }
                }
                Op::Body { format, more_fields, system } => {
                    let format = [Format::Anthropic, Format::OpenAi, Format::OpenAiResponses][format];
                    let system = if system && format != Format::Anthropic {
                        vec![
                            SystemMessage { position: 2, message: json!({ "role": "system", "content": "s" }) },
                            SystemMessage { position: 0, message: json!({ "role": "developer", "content": "d" }) },
                            SystemMessage { position: 7, message: json!({ "role": "system", "content": "late" }) },
                        ]
                    } else {
                        Vec::new()
                    };
                    let mut request = request(format, system);
                    if more_fields {
                        request.fields.insert("temperature".to_owned(), json!(0.5));
                    }
                    let body = ctx.request_body(&request).to_vec();
                    proptest::prop_assert_eq!(
                        String::from_utf8(body).unwrap(),
                        String::from_utf8(expected(&ctx, &request)).unwrap()
                    );
                }
            }
        }
    }
}

#[test]
fn tool_result_block_arrays_are_written_as_the_adapters_write_them() {
    let mut ctx = manager(2);
    let blocks = json!([
        {"type": "text", "text": "plain \"quoted\"\n"},
        {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "text", "text": 5}
    ]);
    let messages = json!([
        {"role": "assistant", "turn_id": {"owner": "a", "number": 9}, "content": [
            {"type": "tool_use", "id": "b1", "name": "look", "input": {}}
        ]},
        {"role": "user", "turn_id": {"owner": "a", "number": 9}, "content": [
            {"type": "tool_result", "tool_use_id": "b1", "content": blocks}
        ]}
    ]);
    ctx.push_many(context_compactor::model::read::parse_messages(&messages, "messages").unwrap());
    for request in [request(Format::Anthropic, Vec::new()), request(Format::OpenAi, Vec::new())] {
        let body = ctx.request_body(&request).to_vec();
        assert_eq!(body, expected(&ctx, &request), "{:?}", request.format);
        let body: Value = serde_json::from_slice(&body).unwrap();
        let last = body["messages"].as_array().and_then(|m| m.last()).unwrap();
        // The blocks as given; OpenAI's tool message holds the text parts only.
        match request.format {
            Format::Anthropic => assert_eq!(last["content"][0]["content"], blocks),
            _ => assert!(last["content"].as_array().is_some_and(|parts| parts.contains(&blocks[0])), "{last}"),
        }
    }
}

/// Messages read from Anthropic: turn `k`'s answer starts with a thinking block
/// (no Chat Completions equivalent) and an unsigned one (no Responses equivalent).
fn with_thinking(turns: std::ops::Range<usize>) -> Vec<context_compactor::Message> {
    let mut wire = Vec::new();
    for k in turns {
        wire.push(json!({ "role": "user", "content": format!("question {k}") }));
        wire.push(json!({ "role": "assistant", "content": [
            { "type": "thinking", "thinking": format!("thought {k}"), "signature": "sig" },
            { "type": "text", "text": format!("answer {k}") },
        ] }));
    }
    context_compactor::formats::from_anthropic(&json!({ "messages": wire })).unwrap().messages
}

#[test]
fn the_blocks_a_body_leaves_out_are_reported_when_their_message_is_written() {
    use context_compactor::formats::{to_openai_responses_with_dropped, to_openai_with_dropped};
    let mut ctx = manager(0);
    ctx.push_many(with_thinking(0..3));
    let openai = request(Format::OpenAi, Vec::new());

    // The first body writes every message: what the adapter leaves out, at the same indices.
    let (body, dropped) = ctx.request_body_with_dropped(&openai);
    let body = body.to_vec();
    assert_eq!(body, expected(&ctx, &openai));
    let all = to_openai_with_dropped(ctx.messages(), &[]).1;
    assert_eq!(dropped, all);
    assert_eq!(dropped.iter().map(|d| (d.message_index, d.block_index)).collect::<Vec<_>>(), [(1, 0), (3, 0), (5, 0)]);
    assert!(dropped.iter().all(|d| d.block_type == "thinking"));

    // Unchanged: the same body, nothing written, nothing reported.
    assert!(ctx.request_body_with_dropped(&openai).1.is_empty());

    // Pushed: only the new messages are written, and reported at their indices.
    ctx.push_many(with_thinking(3..4));
    let (body, dropped) = ctx.request_body_with_dropped(&openai);
    let body = body.to_vec();
    assert_eq!(body, expected(&ctx, &openai));
    assert_eq!(dropped.iter().map(|d| d.message_index).collect::<Vec<_>>(), [7]);

    // Another format writes every message again.
    let responses = request(Format::OpenAiResponses, Vec::new());
    let (body, dropped) = ctx.request_body_with_dropped(&responses);
    let body = body.to_vec();
    assert_eq!(body, expected(&ctx, &responses));
    assert_eq!(dropped, to_openai_responses_with_dropped(ctx.messages(), &[]).1);
    assert_eq!(dropped.len(), 4);

    // Anthropic takes its own signed thinking back: nothing left out.
    assert!(ctx.request_body_with_dropped(&request(Format::Anthropic, Vec::new())).1.is_empty());
}

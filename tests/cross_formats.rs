//! Conversions between provider formats: what one format says, written in another.

use context_compactor::formats::{
    from_anthropic, from_openai, from_openai_responses, from_vercel_ai, to_anthropic, to_openai, to_openai_responses,
    to_vercel_ai,
};
use context_compactor::ContentBlock;
use serde_json::{json, Value};

/// The inputs of the tool calls of `messages`, in order.
fn inputs(messages: &[context_compactor::Message]) -> Vec<Value> {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            ContentBlock::ToolUse(u) => Some(u.input.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn arguments_that_are_not_json_cross_every_format_as_raw() {
    let broken = "{\"path\": \"a.txt\",";
    let chat = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": broken}},
            {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"_raw\":\"x\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "bad arguments"},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"}
    ]);
    let o = from_openai(&chat).expect("chat");
    assert_eq!(inputs(&o.messages), [json!({"_raw": broken}), json!({"_raw": "x"})]);
    // Back to Chat Completions exactly: the broken string, and real JSON that looks like the wrapper.
    assert_eq!(to_openai(&o.messages, &o.system), chat);

    // Anthropic takes the wrapper as an object input, and gives the string back to OpenAI.
    let anthropic = to_anthropic(&o.messages);
    assert_eq!(anthropic[1]["content"][0]["input"], json!({"_raw": broken}));
    let a = from_anthropic(&anthropic).expect("anthropic");
    assert_eq!(to_openai(&a.messages, &[])[1]["tool_calls"][0]["function"]["arguments"], broken);

    // So does the AI SDK.
    let vercel = to_vercel_ai(&o.messages, &o.system);
    assert_eq!(vercel[1]["content"][0]["input"], json!({"_raw": broken}));
    let v = from_vercel_ai(&vercel).expect("vercel");
    assert_eq!(to_openai(&v.messages, &v.system)[1]["tool_calls"][0]["function"]["arguments"], broken);

    // The Responses API's arguments are strings too: read, written back, and to Chat Completions.
    let items = json!([
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c1", "name": "read", "arguments": broken},
        {"type": "function_call_output", "call_id": "c1", "output": "bad arguments"}
    ]);
    let r = from_openai_responses(&items).expect("responses");
    assert_eq!(inputs(&r.messages), [json!({"_raw": broken})]);
    assert_eq!(to_openai_responses(&r.messages, &r.system), items);
    assert_eq!(to_openai(&r.messages, &r.system)[1]["tool_calls"][0]["function"]["arguments"], broken);
    assert_eq!(to_openai_responses(&o.messages, &o.system)[1]["arguments"], broken);
}

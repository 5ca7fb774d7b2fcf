//! Conversions between provider formats: what one format says, written in another.

use context_compactor::formats::{
    from_anthropic, from_openai, from_openai_responses, from_vercel_ai, to_anthropic, to_anthropic_with_dropped,
    to_openai, to_openai_responses, to_openai_responses_with_dropped, to_openai_with_dropped, to_vercel_ai,
    to_vercel_ai_with_dropped, Dropped,
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

// ---------------------------------------------------------------------------
// Blocks with an equivalent elsewhere: each format's own, in every other format

const PNG: &str = "iVBORw0KGgoAAAANSUhEUg";
const PDF: &str = "JVBERi0xLjQKJcfs";

/// What a `to_*_with_dropped` left out, as `(message, block, part, type)`.
fn dropped_at(dropped: &[Dropped]) -> Vec<(usize, usize, Option<usize>, String)> {
    dropped.iter().map(|d| (d.message_index, d.block_index, d.part_index, d.block_type.clone())).collect()
}

/// An Anthropic conversation with a block of each kind that has an equivalent elsewhere.
fn anthropic_catalogue() -> Value {
    json!({"messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "What do these show?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}, "title": "report.pdf"},
            {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}}
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two lookups.", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "opaque-1"},
            {"type": "tool_use", "id": "t1", "name": "ocr", "input": {"page": 1}},
            {"type": "tool_use", "id": "t2", "name": "render", "input": {"page": 2}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "no text found"}], "is_error": true},
            {"type": "tool_result", "tool_use_id": "t2", "content": [
                {"type": "text", "text": "rendered"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            ]}
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "A cat and a report."}]}
    ]})
}

#[test]
fn anthropic_blocks_in_chat_completions() {
    let a = from_anthropic(&anthropic_catalogue()).expect("anthropic");
    let (chat, dropped) = to_openai_with_dropped(&a.messages, &[]);
    assert_eq!(
        chat[0]["content"],
        json!([
            {"type": "text", "text": "What do these show?"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
            {"type": "file", "file": {"filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{PDF}")}}
        ])
    );
    // No thinking, no error flag, text only in tool messages.
    assert_eq!(chat[1]["content"], Value::Null);
    assert_eq!(
        chat[2],
        json!({"role": "tool", "tool_call_id": "t1", "content": [{"type": "text", "text": "no text found"}]})
    );
    assert_eq!(chat[3]["content"], json!([{"type": "text", "text": "rendered"}]));
    assert_eq!(
        dropped_at(&dropped),
        [
            (0, 4, None, "document".into()),
            (1, 0, None, "thinking".into()),
            (1, 1, None, "redacted_thinking".into()),
            (2, 1, Some(1), "image".into())
        ]
    );
    assert_eq!(dropped[0].reason, "Chat Completions takes files as base64 PDFs only");
    // Read back, the media are Chat Completions parts, and written to Anthropic they are its blocks again.
    let o = from_openai(&chat).expect("chat");
    let (back, dropped) = to_anthropic_with_dropped(&o.messages);
    assert!(dropped.is_empty(), "{dropped:?}");
    assert_eq!(back[0]["content"], json!(anthropic_catalogue()["messages"][0]["content"].as_array().unwrap()[..4]));
}

#[test]
fn anthropic_blocks_in_responses() {
    let a = from_anthropic(&anthropic_catalogue()).expect("anthropic");
    let (items, dropped) = to_openai_responses_with_dropped(&a.messages, &[]);
    assert_eq!(
        items[0]["content"],
        json!([
            {"type": "input_text", "text": "What do these show?"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "auto"},
            {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "auto"},
            {"type": "input_file", "file_data": format!("data:application/pdf;base64,{PDF}"), "filename": "report.pdf"},
            {"type": "input_file", "file_url": "https://example.com/paper.pdf"}
        ])
    );
    assert_eq!(items[1]["type"], "function_call");
    assert_eq!(
        items[3],
        json!({"type": "function_call_output", "call_id": "t1", "output": [{"type": "input_text", "text": "no text found"}]})
    );
    assert_eq!(
        items[4]["output"],
        json!([
            {"type": "input_text", "text": "rendered"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "auto"}
        ])
    );
    // Anthropic's thinking means nothing to OpenAI.
    assert_eq!(dropped_at(&dropped), [(1, 0, None, "thinking".into()), (1, 1, None, "redacted_thinking".into())]);
    let r = from_openai_responses(&items).expect("responses");
    let (back, dropped) = to_anthropic_with_dropped(&r.messages);
    assert!(dropped.is_empty(), "{dropped:?}");
    assert_eq!(back[0]["content"], anthropic_catalogue()["messages"][0]["content"]);
    assert_eq!(back[2]["content"][1]["content"], anthropic_catalogue()["messages"][2]["content"][1]["content"]);
}

#[test]
fn anthropic_blocks_in_the_ai_sdk() {
    let a = from_anthropic(&anthropic_catalogue()).expect("anthropic");
    let (vercel, dropped) = to_vercel_ai_with_dropped(&a.messages, &[]);
    assert!(dropped.is_empty(), "{dropped:?}");
    assert_eq!(
        vercel[0]["content"],
        json!([
            {"type": "text", "text": "What do these show?"},
            {"type": "file", "mediaType": "image/png", "data": PNG},
            {"type": "file", "mediaType": "image/*", "data": "https://example.com/cat.jpg"},
            {"type": "file", "mediaType": "application/pdf", "data": PDF, "filename": "report.pdf"},
            {"type": "file", "mediaType": "application/pdf", "data": "https://example.com/paper.pdf"}
        ])
    );
    assert_eq!(
        vercel[1]["content"].as_array().expect("content")[..2],
        [
            json!({"type": "reasoning", "text": "Two lookups.", "providerOptions": {"anthropic": {"signature": "sig-1"}}}),
            json!({"type": "reasoning", "text": "", "providerOptions": {"anthropic": {"redactedData": "opaque-1"}}})
        ]
    );
    // The error flag is an error output; an image in a tool result is a content part.
    assert_eq!(vercel[2]["content"][0]["output"], json!({"type": "error-text", "value": "no text found"}));
    assert_eq!(
        vercel[2]["content"][1]["output"],
        json!({"type": "content", "value": [
            {"type": "text", "text": "rendered"},
            {"type": "image-data", "data": PNG, "mediaType": "image/png"}
        ]})
    );
    // And back: everything, thinking with its signature included; the error's text is a string.
    let v = from_vercel_ai(&vercel).expect("vercel");
    let (back, dropped) = to_anthropic_with_dropped(&v.messages);
    assert!(dropped.is_empty(), "{dropped:?}");
    let mut expected = anthropic_catalogue();
    expected["messages"][2]["content"][0]["content"] = json!("no text found");
    assert_eq!(json!({ "messages": back }), expected);
}

#[test]
fn chat_completions_blocks_in_every_format() {
    let chat = json!([
        {"role": "user", "content": [
            {"type": "text", "text": "Read these."},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ", "detail": "high"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/dog.png"}},
            {"type": "file", "file": {"filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{PDF}")}},
            {"type": "input_audio", "input_audio": {"data": "UklGRg", "format": "wav"}}
        ]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't read the audio."}]}
    ]);
    let o = from_openai(&chat).expect("chat");
    assert_eq!(to_openai(&o.messages, &o.system), chat);

    let (anthropic, dropped) = to_anthropic_with_dropped(&o.messages);
    assert_eq!(
        anthropic,
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "Read these."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/dog.png"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}, "title": "a.pdf"}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "I can't read the audio."}]}
        ])
    );
    assert_eq!(dropped_at(&dropped), [(0, 4, None, "input_audio".into())]);

    let (items, dropped) = to_openai_responses_with_dropped(&o.messages, &o.system);
    assert_eq!(
        items[0]["content"][1],
        json!({"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ", "detail": "auto"})
    );
    assert_eq!(items[0]["content"][3]["type"], "input_file");
    assert_eq!(items[1]["content"], json!([{"type": "refusal", "refusal": "I can't read the audio."}]));
    assert_eq!(dropped_at(&dropped), [(0, 4, None, "input_audio".into())]);

    let (vercel, dropped) = to_vercel_ai_with_dropped(&o.messages, &o.system);
    assert_eq!(vercel[0]["content"][1], json!({"type": "file", "mediaType": "image/jpeg", "data": "/9j/4AAQ"}));
    assert_eq!(
        vercel[0]["content"][3],
        json!({"type": "file", "mediaType": "application/pdf", "data": PDF, "filename": "a.pdf"})
    );
    assert_eq!(vercel[1]["content"], json!([{"type": "text", "text": "I can't read the audio."}]));
    assert_eq!(dropped_at(&dropped), [(0, 4, None, "input_audio".into())]);
}

/// A Responses conversation: media, a reasoning item with two summaries, an image in a function output.
fn responses_catalogue() -> Value {
    json!([
        {"role": "user", "content": [
            {"type": "input_text", "text": "Describe it."},
            {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "low"},
            {"type": "input_file", "filename": "b.pdf", "file_data": format!("data:application/pdf;base64,{PDF}")}
        ]},
        {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "First."}, {"type": "summary_text", "text": "Second."}
        ], "encrypted_content": "enc-1"},
        {"type": "function_call", "call_id": "c1", "name": "zoom", "arguments": "{\"x\":1}"},
        {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "zoomed"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "auto"}
        ]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"role": "assistant", "content": [{"type": "output_text", "text": "A chart."}]}
    ])
}

#[test]
fn responses_blocks_in_every_format() {
    let r = from_openai_responses(&responses_catalogue()).expect("responses");
    assert_eq!(to_openai_responses(&r.messages, &r.system), responses_catalogue());

    // Each summary is an AI SDK reasoning part carrying the item; back in Responses they are one item again.
    let (vercel, dropped) = to_vercel_ai_with_dropped(&r.messages, &r.system);
    let options = json!({"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "enc-1"}});
    assert_eq!(
        vercel[1]["content"].as_array().expect("content")[..2],
        [
            json!({"type": "reasoning", "text": "First.", "providerOptions": options}),
            json!({"type": "reasoning", "text": "Second.", "providerOptions": options})
        ]
    );
    assert_eq!(
        vercel[2]["content"][0]["output"]["value"],
        json!([{"type": "text", "text": "zoomed"}, {"type": "image-data", "data": PNG, "mediaType": "image/png"}])
    );
    assert_eq!(dropped_at(&dropped), [(3, 0, None, "web_search_call".into())]);
    let v = from_vercel_ai(&vercel).expect("vercel");
    let (items, dropped) = to_openai_responses_with_dropped(&v.messages, &v.system);
    assert!(dropped.is_empty(), "{dropped:?}");
    assert_eq!(items[1], responses_catalogue()[1]);
    assert_eq!(items[3]["output"], responses_catalogue()[3]["output"]);

    // Anthropic and Chat Completions cannot take OpenAI's reasoning back.
    let (anthropic, dropped) = to_anthropic_with_dropped(&r.messages);
    assert_eq!(dropped_at(&dropped), [(1, 0, None, "reasoning".into()), (3, 0, None, "web_search_call".into())]);
    assert_eq!(dropped[0].reason, "Anthropic takes back only thinking it signed");
    assert_eq!(
        anthropic[0]["content"][1],
        json!({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}})
    );
    assert_eq!(
        anthropic[2]["content"][0]["content"],
        json!([
            {"type": "text", "text": "zoomed"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        ])
    );
    let (chat, dropped) = to_openai_with_dropped(&r.messages, &r.system);
    assert_eq!(
        dropped_at(&dropped),
        [
            (1, 0, None, "reasoning".into()),
            (2, 0, Some(1), "input_image".into()),
            (3, 0, None, "web_search_call".into())
        ]
    );
    assert_eq!(chat[2], json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "zoomed"}]}));
}

/// An AI SDK conversation: an image without a media type, a PDF, reasoning of both providers, tool outputs.
fn vercel_catalogue() -> Value {
    json!([
        {"role": "user", "content": [
            {"type": "image", "image": PNG},
            {"type": "file", "data": "https://example.com/c.pdf", "mediaType": "application/pdf"},
            {"type": "text", "text": "Compare."}
        ]},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "Signed.", "providerOptions": {"anthropic": {"signature": "sig-2"}}},
            {"type": "reasoning", "text": "Unsigned."},
            {"type": "tool-call", "toolCallId": "v1", "toolName": "diff", "input": {}},
            {"type": "tool-call", "toolCallId": "v2", "toolName": "shot", "input": {}}
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "v1", "toolName": "diff", "output": {"type": "error-json", "value": {"code": 7}}},
            {"type": "tool-result", "toolCallId": "v2", "toolName": "shot", "output": {"type": "content", "value": [
                {"type": "media", "data": PNG, "mediaType": "image/png"},
                {"type": "image-url", "url": "https://example.com/d.png"}
            ]}}
        ]}
    ])
}

#[test]
fn ai_sdk_blocks_in_every_format() {
    let v = from_vercel_ai(&vercel_catalogue()).expect("vercel");
    assert_eq!(to_vercel_ai(&v.messages, &v.system), vercel_catalogue());

    let (anthropic, dropped) = to_anthropic_with_dropped(&v.messages);
    assert_eq!(
        anthropic[0]["content"].as_array().expect("content")[..2],
        [
            // The media type is read off the data's first bytes.
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}),
            json!({"type": "document", "source": {"type": "url", "url": "https://example.com/c.pdf"}})
        ]
    );
    assert_eq!(anthropic[1]["content"][0], json!({"type": "thinking", "thinking": "Signed.", "signature": "sig-2"}));
    assert_eq!(dropped_at(&dropped), [(1, 1, None, "reasoning".into())]);
    assert_eq!(
        anthropic[2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "v1", "content": "{\"code\":7}", "is_error": true})
    );
    assert_eq!(
        anthropic[2]["content"][1]["content"],
        json!([
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/d.png"}}
        ])
    );

    let (chat, dropped) = to_openai_with_dropped(&v.messages, &v.system);
    assert_eq!(
        chat[0]["content"][0],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}})
    );
    assert_eq!(
        dropped_at(&dropped),
        [
            (0, 1, None, "file".into()),
            (1, 0, None, "reasoning".into()),
            (1, 1, None, "reasoning".into()),
            (2, 1, Some(0), "media".into()),
            (2, 1, Some(1), "image-url".into())
        ]
    );
    // The error flag has no place in Chat Completions: the result keeps its text.
    assert_eq!(chat[2], json!({"role": "tool", "tool_call_id": "v1", "content": "{\"code\":7}"}));

    let (items, dropped) = to_openai_responses_with_dropped(&v.messages, &v.system);
    assert_eq!(items[0]["content"][1], json!({"type": "input_file", "file_url": "https://example.com/c.pdf"}));
    assert_eq!(dropped_at(&dropped), [(1, 0, None, "reasoning".into()), (1, 1, None, "reasoning".into())]);
    assert_eq!(
        items[4]["output"],
        json!([
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "auto"},
            {"type": "input_image", "image_url": "https://example.com/d.png", "detail": "auto"}
        ])
    );
}

#[test]
fn an_error_result_of_blocks_is_error_text_in_the_ai_sdk() {
    let a = from_anthropic(&json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
            {"type": "text", "text": "failed"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "text", "text": "twice"}
        ]}]}
    ]))
    .expect("anthropic");
    let (vercel, dropped) = to_vercel_ai_with_dropped(&a.messages, &[]);
    assert_eq!(vercel[1]["content"][0]["output"], json!({"type": "error-text", "value": "failed\ntwice"}));
    assert_eq!(dropped_at(&dropped), [(1, 0, Some(1), "image".into())]);
    assert_eq!(dropped[0].reason, "an AI SDK error output holds text only");
    // Read back, the error is still one.
    let v = from_vercel_ai(&vercel).expect("vercel");
    assert_eq!(to_anthropic(&v.messages)[1]["content"][0]["is_error"], true);
}

#[test]
fn what_no_other_format_has_is_dropped_there_and_kept_at_home() {
    let doc = json!({"messages": [
        {"role": "user", "content": "Search."},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "Found it."}]}
    ]});
    let a = from_anthropic(&doc).expect("anthropic");
    assert_eq!(json!({ "messages": to_anthropic(&a.messages) }), doc);
    // A message left without blocks is left out, not written empty.
    let (chat, dropped) = to_openai_with_dropped(&a.messages, &[]);
    assert_eq!(chat, json!([{"role": "user", "content": "Search."}, {"role": "assistant", "content": "Found it."}]));
    assert_eq!(
        dropped_at(&dropped),
        [(1, 0, None, "server_tool_use".into()), (1, 1, None, "web_search_tool_result".into())]
    );
    assert_eq!(dropped[0].reason, "the format has no equivalent of this block");
    assert_eq!(to_vercel_ai(&a.messages, &[]).as_array().map(Vec::len), Some(2));
    assert_eq!(to_openai_responses(&a.messages, &[]).as_array().map(Vec::len), Some(2));
}

#[test]
fn provider_fields_stay_in_their_format() {
    let items = json!([
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "id": "fco_1", "call_id": "c1", "output": "ok", "status": "completed"},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "Done.", "annotations": []}
        ]}
    ]);
    let r = from_openai_responses(&items).expect("responses");
    assert_eq!(to_openai_responses(&r.messages, &r.system), items);
    // Neither Chat Completions nor Anthropic has item ids, statuses or annotations.
    assert_eq!(
        to_openai(&r.messages, &r.system),
        json!([
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "Done."}
        ])
    );
    assert_eq!(
        to_anthropic(&r.messages),
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
        ])
    );
    // The AI SDK's tool name and options stay in the AI SDK, the name coming back from the call.
    let v = from_vercel_ai(&json!([
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "ok"}}
        ], "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}
    ]))
    .expect("vercel");
    assert_eq!(
        to_anthropic(&v.messages)[1],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}]})
    );
    let back = from_anthropic(&to_anthropic(&v.messages)).expect("anthropic");
    assert_eq!(to_vercel_ai(&back.messages, &[])[1]["content"][0]["toolName"], "f");
    // An Anthropic field on a model message (the model's own shapes) reaches Anthropic only.
    let a = from_anthropic(&json!([
        {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}]}
    ]))
    .expect("anthropic");
    assert_eq!(to_anthropic(&a.messages)[0]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(to_openai(&a.messages, &[])[0], json!({"role": "user", "content": "Hi"}));
}

#[test]
fn system_messages_take_the_shape_of_the_format_they_are_written_in() {
    let chat = json!([
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Cite files."}]},
        {"role": "system", "content": "Answer in English.", "name": "policy"},
        {"role": "user", "content": "hi"}
    ]);
    let o = from_openai(&chat).expect("chat");
    // At home: verbatim.
    assert_eq!(to_openai(&o.messages, &o.system), chat);
    // The AI SDK has only `system`, its content a string.
    let vercel = to_vercel_ai(&o.messages, &o.system);
    assert_eq!(vercel[0], json!({"role": "system", "content": "Be brief.\nCite files."}));
    assert_eq!(vercel[1], json!({"role": "system", "content": "Answer in English."}));
    // The Responses API takes `developer`, and text parts as input_text only.
    let items = to_openai_responses(&o.messages, &o.system);
    assert_eq!(items[0], json!({"role": "developer", "content": "Be brief.\nCite files."}));
    assert_eq!(items[1], json!({"role": "system", "content": "Answer in English."}));

    let r = from_openai_responses(&json!([
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
        {"role": "user", "content": "hi"}
    ]))
    .expect("responses");
    assert_eq!(to_openai_responses(&r.messages, &r.system)[0]["type"], "message", "at home: verbatim");
    assert_eq!(to_openai(&r.messages, &r.system)[0], json!({"role": "developer", "content": "dev"}));
    assert_eq!(to_vercel_ai(&r.messages, &r.system)[0], json!({"role": "system", "content": "dev"}));

    let v = from_vercel_ai(&json!([
        {"role": "system", "content": "sys", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
        {"role": "user", "content": "hi"}
    ]))
    .expect("vercel");
    assert_eq!(
        to_vercel_ai(&v.messages, &v.system)[0]["providerOptions"]["anthropic"]["cacheControl"]["type"],
        "ephemeral"
    );
    assert_eq!(to_openai(&v.messages, &v.system)[0], json!({"role": "system", "content": "sys"}));
}

//! The bindings on wasm32, in Node and in headless Chromium
//! (`WASM_BINDGEN_USE_BROWSER=1`): errors become `CompactionError`s with codes
//! and paths, and the JS summarizer is called, timed out and aborted.
#![cfg(target_arch = "wasm32")]

use context_compactor::model::read::parse_messages;
use context_compactor::{
    CompactionConfig, CompactionError, CompactorType, ContextManager, ContextManagerConfig, LLMCompactorConfig,
    Summarizer, SummaryRequest, ThresholdCompactor, ToolCompaction,
};
use futures::future::BoxFuture;
use serde_json::json;
use wasm_bindgen_test::*;

fn conversation(turns: i64) -> Vec<context_compactor::Message> {
    let mut v = Vec::new();
    for k in 1..=turns {
        v.push(json!({ "role": "user", "turn_id": { "owner": "u", "number": k }, "content": [{ "type": "text", "text": format!("step {k}") }] }));
        v.push(json!({ "role": "assistant", "turn_id": { "owner": "a", "number": k }, "content": [{ "type": "tool_use", "id": format!("c{k}"), "name": "run", "input": {} }] }));
        v.push(json!({ "role": "user", "turn_id": { "owner": "a", "number": k }, "content": [{ "type": "tool_result", "tool_use_id": format!("c{k}"), "content": "out ".repeat(200) }] }));
    }
    parse_messages(&json!(v), "messages").unwrap()
}

#[wasm_bindgen_test]
fn ids_and_timestamps_are_generated_on_wasm() {
    // Ids (crypto.getRandomValues, through getrandom) and timestamps (Date) must work without panicking.
    let messages = conversation(1);
    assert_eq!(messages[0].id.len(), 36);
    assert!(messages[0].created_at.ends_with('Z'));
}

#[wasm_bindgen_test]
fn threshold_compaction_runs_on_wasm() {
    let mut messages = conversation(6);
    let compactor =
        ThresholdCompactor::new(CompactionConfig { tool_compaction: ToolCompaction::Redact, ..Default::default() })
            .unwrap();
    let result = context_compactor::Compactor::compact(&compactor, &mut messages, &Default::default());
    assert_eq!(result.tool_results_redacted, 4);
}

struct Never;
impl Summarizer for Never {
    fn summarize<'a>(&'a self, _r: &'a SummaryRequest) -> BoxFuture<'a, Result<String, context_compactor::LlmError>> {
        Box::pin(futures::future::pending())
    }
}

#[wasm_bindgen_test]
async fn the_timeout_fires_on_the_js_event_loop() {
    // src/timer.rs is backed by setTimeout on wasm32; a pending summarizer must time out.
    // Forced, in a room large enough that nothing but the summary would change the conversation.
    let mut manager = ContextManager::new(ContextManagerConfig {
        context_limit: 1_000_000,
        compactor: CompactorType::LLM(LLMCompactorConfig {
            summary_timeout: Some(std::time::Duration::from_millis(20)),
            ..Default::default()
        }),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap();
    manager.push_many(conversation(5));
    let before = manager.messages().to_vec();
    let err = manager.force_compact(Some(&Never)).await.unwrap_err();
    assert!(matches!(err, CompactionError::Timeout(20)));
    assert_eq!(manager.messages(), &before[..]);
}

#[wasm_bindgen_test]
async fn the_offline_summarizer_compacts_on_wasm() {
    let mut manager = ContextManager::new(ContextManagerConfig {
        context_limit: 1_000_000,
        compactor: CompactorType::LLM(LLMCompactorConfig { keep_user_messages_tokens: 0, ..Default::default() }),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap();
    manager.push_many(conversation(6));
    let result = manager.force_compact(Some(&context_compactor::summarizer::offline::OfflineSummarizer)).await.unwrap();
    assert_eq!(result.turns_compacted, 9);
    assert!(manager.messages()[0].summary_of.is_some());
}

use context_compactor::wasm::{JsContextManager, JsThresholdCompactor};
use wasm_bindgen::{JsCast, JsValue};

fn js(source: &str) -> JsValue {
    js_sys::eval(source).unwrap()
}

#[wasm_bindgen_test]
fn bad_input_throws_a_compaction_error_with_code_and_path() {
    let err = JsThresholdCompactor::new(js("({ keepRecentTurns: -1 })")).err().unwrap();
    let error: &js_sys::Error = err.dyn_ref().expect("an Error instance");
    assert_eq!(String::from(error.name()), "CompactionError");
    let get = |k: &str| js_sys::Reflect::get(&err, &k.into()).unwrap().as_string();
    assert_eq!(get("code").as_deref(), Some("INVALID_INPUT"));
    assert_eq!(get("path").as_deref(), Some("options.keepRecentTurns"));
    // keepRecentTurns 0: compact() reads the blocks of old turns only.
    let compactor = JsThresholdCompactor::new(js("({ keepRecentTurns: 0 })")).unwrap();
    let err = compactor.compact(js("[{ role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'tool_result', content: 'x' }] }]"), JsValue::UNDEFINED).err().unwrap();
    assert_eq!(
        js_sys::Reflect::get(&err, &"path".into()).unwrap().as_string().as_deref(),
        Some("messages[0].content[0].tool_use_id")
    );
    let err =
        compactor.compact(js("(() => { const a = []; a.push(a); return a; })()"), JsValue::UNDEFINED).err().unwrap();
    assert_eq!(js_sys::Reflect::get(&err, &"code".into()).unwrap().as_string().as_deref(), Some("INVALID_INPUT"));
}

#[wasm_bindgen_test]
async fn a_timed_out_js_summarizer_sees_its_signal_aborted() {
    let aborted = js("globalThis.__aborted = false; globalThis");
    let summarize = js("({ signal }) => new Promise(() => { signal.addEventListener('abort', () => { globalThis.__aborted = true; }); })");
    let options = js_sys::Object::new();
    let compactor = js_sys::Object::new();
    js_sys::Reflect::set(&compactor, &"type".into(), &"llm".into()).unwrap();
    js_sys::Reflect::set(&compactor, &"summarize".into(), &summarize).unwrap();
    js_sys::Reflect::set(&compactor, &"summaryTimeoutMs".into(), &30.into()).unwrap();
    js_sys::Reflect::set(&options, &"contextLimit".into(), &1000.into()).unwrap();
    js_sys::Reflect::set(&options, &"compactor".into(), &compactor).unwrap();
    let manager = JsContextManager::new(options.into()).unwrap();
    manager.push_many(js("Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', turn_id: { owner: i % 2 ? 'a' : 'u', number: i }, content: [{ type: 'text', text: 'hello '.repeat(50) }] }))")).unwrap();
    let err = wasm_bindgen_futures::JsFuture::from(manager.force_compact()).await.unwrap_err();
    assert_eq!(js_sys::Reflect::get(&err, &"code".into()).unwrap().as_string().as_deref(), Some("TIMEOUT"));
    assert_eq!(js_sys::Reflect::get(&aborted, &"__aborted".into()).unwrap().as_bool(), Some(true));
    assert_eq!(js_sys::Array::from(&manager.messages().unwrap()).length(), 12, "nothing lost");
}

#[wasm_bindgen_test]
async fn text_in_any_script_reaches_js_intact() {
    // ASCII goes to JS as UTF-8, other text as UTF-16 (src/wasm/js_text.js:
    // Node's Buffer in Node, TextDecoder in the browser).
    let texts = js("globalThis.__texts = ['plain ascii', 'café é', 'файл строка', '文件行错误', '\u{feff}BOM first', 'emoji 😀 𝄞', 'mixed a\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}'];");
    let summarize =
        js("(r) => { globalThis.__prompt = r.prompt; globalThis.__system = r.system; return 'summary ✓'; }");
    let options = js_sys::Object::new();
    let compactor = js_sys::Object::new();
    js_sys::Reflect::set(&compactor, &"type".into(), &"llm".into()).unwrap();
    js_sys::Reflect::set(&compactor, &"summarize".into(), &summarize).unwrap();
    js_sys::Reflect::set(&compactor, &"keepRecentTurns".into(), &1.into()).unwrap();
    // A leading U+FEFF is text: the UTF-16 decoder must not take it for a byte order mark.
    js_sys::Reflect::set(&compactor, &"summarySystemPrompt".into(), &"\u{feff}Résume".into()).unwrap();
    js_sys::Reflect::set(&options, &"contextLimit".into(), &100_000.into()).unwrap();
    js_sys::Reflect::set(&options, &"compactor".into(), &compactor).unwrap();
    let manager = JsContextManager::new(options.into()).unwrap();
    let messages = js("globalThis.__texts.map((text, i) => ({ role: i % 2 ? 'assistant' : 'user', turn_id: { owner: i % 2 ? 'a' : 'u', number: i }, content: [{ type: 'text', text }] }))");
    manager.push_many(messages).unwrap();
    let out = js_sys::Array::from(&manager.messages().unwrap());
    let texts = js_sys::Array::from(&texts);
    for (i, text) in texts.iter().enumerate() {
        let content = js_sys::Reflect::get(&out.get(i as u32), &"content".into()).unwrap();
        let read = js_sys::Reflect::get(&js_sys::Array::from(&content).get(0), &"text".into()).unwrap();
        assert_eq!(read.as_string(), text.as_string(), "messages()[{i}]");
    }
    wasm_bindgen_futures::JsFuture::from(manager.force_compact()).await.unwrap();
    assert_eq!(js("globalThis.__system").as_string().as_deref(), Some("\u{feff}Résume"));
    let prompt = js("globalThis.__prompt").as_string().unwrap();
    for text in texts.iter().take(texts.length() as usize - 1) {
        assert!(prompt.contains(&text.as_string().unwrap()), "{text:?} in the prompt");
    }
    let first =
        js_sys::Reflect::get(&js_sys::Array::from(&manager.messages().unwrap()).get(0), &"content".into()).unwrap();
    let summary = js_sys::Reflect::get(&js_sys::Array::from(&first).get(0), &"text".into()).unwrap();
    assert!(summary.as_string().unwrap().ends_with("summary ✓"), "{summary:?}");
}

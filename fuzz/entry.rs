//! The fuzz entry: arbitrary bytes, read as JSON, fed to every public entry
//! point that takes JSON (the model parser, from a `Value` and from text, each
//! provider format's reader and writer, threshold compaction, the LLM plan and
//! compaction, the context manager's restore). Must not panic and must not hang.
//!
//! Shared by `fuzz/fuzz_targets/json_input.rs` (libFuzzer, nightly) and
//! `tests/fuzz_corpus.rs` (replays the committed corpus on stable).
//!
//! Beyond "no panic", a few cheap invariants are asserted, so the fuzzer also
//! looks for wrong answers: model JSON round-trips exactly, a writer's output is
//! accepted by its own reader, threshold compaction keeps the message count and
//! is idempotent, LLM compaction replaces exactly the planned prefix, and a saved
//! state restores to the same state.

use std::collections::HashMap;

use context_compactor::compaction::{llm, tool_pairs};
use context_compactor::formats::{self, SystemMessage};
use context_compactor::manager::{ContextManager, ContextManagerConfig, Step};
use context_compactor::model::read::{parse_messages, parse_summaries};
use context_compactor::{
    estimate_tokens, extract_turn_ids, AsyncCompactor, CompactionConfig, Compactor, CompactorType, LLMCompactor,
    LLMCompactorConfig, LlmError, Message, Summarizer, SummaryRequest, ThresholdCompactor, ToolCompaction,
};
use futures::future::BoxFuture;
use serde_json::Value;

/// A deterministic summarizer that answers at once with a short text.
struct Short;

impl Summarizer for Short {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        let answer = format!("{} chars", request.prompt.len());
        Box::pin(futures::future::ready(Ok(answer)))
    }
}

/// Runs one input through every entry point.
pub fn run(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    // Parameters derived from the input, so the corpus explores them too.
    let keep = data.len() % 4;
    let summaries = summaries_of(&value);

    let _ = formats::detect_format(&value);

    if let Ok(imported) = formats::from_anthropic(&value) {
        let written = formats::to_anthropic(&imported.messages);
        reread(formats::from_anthropic(&written).map(|i| i.messages), &imported.messages, "anthropic");
        exercise(&imported.messages, &summaries, keep);
    }
    if let Ok(imported) = formats::from_openai(&value) {
        let written = formats::to_openai(&imported.messages, &imported.system);
        reread(formats::from_openai(&written).map(|i| i.messages), &imported.messages, "openai");
        exercise(&imported.messages, &summaries, keep);
    }
    if let Ok(imported) = formats::from_openai_responses(&value) {
        let written = formats::to_openai_responses(&imported.messages, &imported.system);
        reread(formats::from_openai_responses(&written).map(|i| i.messages), &imported.messages, "openai-responses");
        exercise(&imported.messages, &summaries, keep);
    }
    if let Ok(imported) = formats::from_vercel_ai(&value) {
        let written = formats::to_vercel_ai(&imported.messages, &imported.system);
        reread(formats::from_vercel_ai(&written).map(|i| i.messages), &imported.messages, "vercel-ai");
        exercise(&imported.messages, &summaries, keep);
    }

    // The model itself: a bare array, or `{ messages, system?, compactSummaries? }`.
    let model = value.get("messages").unwrap_or(&value);
    if let Ok(messages) = parse_messages(model, "messages") {
        // Model → JSON → model is the identity (no text in between, so floats are exact).
        let json = serde_json::to_value(&messages).expect("messages serialize");
        let again = parse_messages(&json, "messages").expect("serialized messages parse");
        assert_eq!(again, messages, "model JSON round trip");
        // Every writer accepts any model conversation, with any system placement.
        let system = system_of(&value);
        let _ = formats::to_anthropic(&messages);
        let _ = formats::to_openai(&messages, &system);
        let _ = formats::to_openai_responses(&messages, &system);
        let _ = formats::to_vercel_ai(&messages, &system);
        exercise(&messages, &summaries, keep);
    }

    restore(&value, &summaries);
}

/// pushMany's reader (JSON text straight to messages) answers as the `Value`
/// path does, errors included.
fn summaries_of(value: &Value) -> HashMap<String, String> {
    value.get("compactSummaries").and_then(|s| parse_summaries(s, "compactSummaries").ok()).unwrap_or_default()
}

/// A `system` array as the JS bindings read it: `[{ position, message }]`.
fn system_of(value: &Value) -> Vec<SystemMessage> {
    let Some(items) = value.get("system").and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let position = item.get("position")?.as_u64()? as usize;
            Some(SystemMessage { position, message: item.get("message")?.clone() })
        })
        .collect()
}

/// What a format's writer produced must be accepted by its reader. (The message
/// count may differ: writers merge what their format cannot keep apart, e.g.
/// consecutive same-role items read from foreign input.)
fn reread(again: Result<Vec<Message>, context_compactor::InputError>, original: &[Message], format: &str) {
    if let Err(e) = again {
        panic!("{format}: the reader rejects what the writer wrote for {} messages: {e}", original.len());
    }
}

fn exercise(messages: &[Message], summaries: &HashMap<String, String>, keep: usize) {
    let _ = estimate_tokens(messages);
    let _ = extract_turn_ids(messages);
    let _ = tool_pairs::validate_tool_pairs(messages);
    for limit in [0, messages.len() / 2, messages.len(), usize::MAX] {
        assert!(tool_pairs::safe_cut(messages, limit) <= messages.len().min(limit));
    }

    // Threshold compaction, both modes: same length, idempotent.
    for tool_compaction in [ToolCompaction::Summarize, ToolCompaction::Redact] {
        let compactor = ThresholdCompactor::new(CompactionConfig {
            keep_recent_turns: keep,
            tool_compaction,
            ..CompactionConfig::default()
        })
        .unwrap();
        let _ = compactor.should_compact(i64::MAX, 0);
        let mut once = messages.to_vec();
        let _ = compactor.compact(&mut once, summaries);
        assert_eq!(once.len(), messages.len(), "threshold compaction changed the message count");
        let mut twice = once.clone();
        let second = compactor.compact(&mut twice, summaries);
        assert!(second.is_empty(), "threshold compaction is not idempotent: {second:?}");
        assert_eq!(twice, once, "a second threshold compaction changed messages");
    }

    // LLM compaction with a deterministic summarizer.
    let config = LLMCompactorConfig { keep_recent_turns: keep, ..LLMCompactorConfig::default() };
    let plan = llm::plan(messages, config.keep(), llm::KeptBudget::flat(config.keep_user_messages_tokens));
    if let Some(plan) = &plan {
        assert!(plan.cut > 0 && plan.cut <= messages.len());
        let _ = llm::build_request(&messages[..plan.cut], &plan.kept, &config, summaries);
    }
    let compactor = LLMCompactor::new(config.clone(), Short).unwrap();
    match futures::executor::block_on(compactor.compact_async(messages.to_vec(), summaries)) {
        Ok((out, result)) => match plan {
            Some(plan) => {
                assert_eq!(out.len(), messages.len() - plan.cut + 1 + plan.kept.len());
                let kept: Vec<_> = plan.kept.iter().map(|&i| llm::kept_user_message(&messages[i])).collect();
                assert_eq!(&out[1..1 + kept.len()], &kept[..], "LLM compaction changed kept user messages");
                assert_eq!(&out[1 + kept.len()..], &messages[plan.cut..], "LLM compaction changed kept messages");
                assert_eq!(result.turns_compacted, plan.turns);
            }
            None => assert_eq!(out, messages, "LLM compaction with nothing to do changed messages"),
        },
        Err(e) => assert!(plan.is_some(), "LLM compaction failed with nothing to do: {e}"),
    }

    // The context manager, each strategy, forced.
    for compactor in [
        CompactorType::LLM(config),
        CompactorType::Threshold(CompactionConfig { keep_recent_turns: keep, ..CompactionConfig::default() }),
    ] {
        let mut manager = ContextManager::new(ContextManagerConfig {
            context_limit: 1,
            compactor,
            fallback: Some(CompactionConfig::default()),
            reserve_tokens: 0,
            max_tool_result_tokens: None,
        })
        .unwrap();
        manager.push_many(messages.iter().cloned());
        manager.store_compact_summaries(summaries.clone());
        if let Step::Summarize(job) = manager.begin(true) {
            assert!(manager.is_compacting());
            let outcome = manager.complete(job.id, Ok("summary".to_owned())).expect("pending job completes");
            assert_eq!(outcome.messages_after, manager.messages().len());
        }
        assert!(!manager.is_compacting());
        let _ = manager.state();
    }
}

/// A saved state restores to the same state.
fn restore(value: &Value, summaries: &HashMap<String, String>) {
    let config = ContextManagerConfig {
        context_limit: 1_000,
        compactor: CompactorType::Threshold(CompactionConfig::default()),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    };
    let Ok(mut manager) = ContextManager::restore(config.clone(), value, "state") else {
        return;
    };
    let state = manager.state();
    let again = ContextManager::restore(config, &state, "state").expect("a saved state restores");
    assert_eq!(again.state(), state, "state → restore → state changed the state");
    let _ = manager.context_used();
    manager.store_compact_summaries(summaries.clone());
    let _ = manager.begin(true);
}

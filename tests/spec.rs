//! Every step of the specification (`shared/spec/compaction-algorithm.md`),
//! with its defaults, on the native build.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use context_compactor::compaction::llm::{format_for_summary, SUMMARY_PREFIX};
use context_compactor::{
    AsyncCompactor, CompactionConfig, CompactionError, CompactionResult, Compactor, CompactorType, ContentBlock,
    LLMCompactor, LLMCompactorConfig, Role, ThresholdCompactor, ToolCompaction, TurnId, DEFAULT_SUMMARY_PROMPT,
    REDACTION_NOTICE,
};
use futures::executor::block_on;

/// The specification's LLM compactor: no user message kept after the summary
/// (this package keeps them by default, see `keep_user_messages_tokens`).
fn spec_llm() -> LLMCompactorConfig {
    LLMCompactorConfig { keep_user_messages_tokens: 0, ..LLMCompactorConfig::default() }
}

#[test]
fn defaults_are_the_specifications() {
    let c = CompactionConfig::default();
    assert_eq!((c.threshold, c.keep_recent_turns, c.tool_compaction), (0.75, 3, ToolCompaction::Summarize));
    let l = LLMCompactorConfig::default();
    assert_eq!((l.threshold, l.keep_recent_turns), (0.75, 3));
    assert_eq!(l.summary_system_prompt, None);
    assert_eq!(l.max_summary_tokens, Some(2048));
    assert_eq!(l.summary_timeout, Some(Duration::from_secs(60)));
    assert_eq!(l.system_prompt(), DEFAULT_SUMMARY_PROMPT);
    assert!(DEFAULT_SUMMARY_PROMPT.contains("You are a conversation summarizer."));
    assert_eq!(CompactorType::default(), CompactorType::Threshold(CompactionConfig::default()));
}

#[test]
fn threshold_check_is_strictly_greater() {
    let c = ThresholdCompactor::default();
    assert!(!c.should_compact(75, 100));
    assert!(c.should_compact(76, 100));
    assert!(!c.should_compact(0, 100));
    assert!(!c.should_compact(100, 0), "a zero limit never triggers");
    let l = LLMCompactor::new(spec_llm(), FixedSummarizer::ok("s")).unwrap();
    assert!(l.should_compact(751, 1000) && !l.should_compact(750, 1000));
    assert!(l.is_async() && !c.is_async());
}

#[test]
fn extract_turn_ids_collects_runs_in_order() {
    let conv = agent_conversation(2);
    let ids = context_compactor::extract_turn_ids(&conv);
    assert_eq!(ids, vec![TurnId::new("u", 1), TurnId::new("a", 1), TurnId::new("u", 2), TurnId::new("a", 2)]);
}

#[test]
fn nothing_to_compact_when_turns_do_not_exceed_keep_recent() {
    let mut conv = agent_conversation(1); // 2 turns
    let before = conv.clone();
    let c = ThresholdCompactor::new(CompactionConfig { tool_compaction: ToolCompaction::Redact, ..Default::default() })
        .unwrap();
    assert_eq!(c.compact(&mut conv, &HashMap::new()), CompactionResult::default());
    assert_eq!(conv, before);
}

#[test]
fn redact_replaces_old_tool_results_and_keeps_recent_turns() {
    let mut conv = agent_conversation(4); // 8 turns
    let before = conv.clone();
    let c = ThresholdCompactor::new(CompactionConfig { tool_compaction: ToolCompaction::Redact, ..Default::default() })
        .unwrap();
    let result = c.compact(&mut conv, &HashMap::new());
    // Runs u1 a1 u2 a2 u3 | a3 u4 a4: the last three are recent, so the results of a1 and a2 are old.
    assert_eq!(result, CompactionResult { tool_results_redacted: 2, ..Default::default() });
    assert_eq!(tool_result_text(&conv[2]), vec![REDACTION_NOTICE]);
    assert_eq!(tool_result_text(&conv[6]), vec![REDACTION_NOTICE]);
    assert_eq!(&conv[8..], &before[8..], "recent turns untouched");
    assert_eq!(conv.len(), before.len());
}

#[test]
fn summarize_uses_the_map_then_the_blocks_own_summary_and_skips_others() {
    let mut conv = agent_conversation(5);
    if let ContentBlock::ToolResult(r) = &mut conv[6].content[0] {
        r.compact_summary = Some("own summary 2".into());
    }
    let summaries = HashMap::from([("call_1".to_string(), "map summary 1".to_string())]);
    let result = ThresholdCompactor::default().compact(&mut conv, &summaries);
    assert_eq!(result, CompactionResult { tool_results_summarized: 2, ..Default::default() });
    assert_eq!(tool_result_text(&conv[2]), vec!["map summary 1"]);
    assert_eq!(tool_result_text(&conv[6]), vec!["own summary 2"]);
    assert!(tool_result_text(&conv[10])[0].starts_with("output line"), "no summary: left alone");
}

#[test]
fn threshold_compaction_is_idempotent() {
    for mode in [ToolCompaction::Redact, ToolCompaction::Summarize] {
        let mut conv = agent_conversation(6);
        let summaries: HashMap<_, _> = (1..=6).map(|k| (format!("call_{k}"), format!("s{k}"))).collect();
        let c = ThresholdCompactor::new(CompactionConfig { tool_compaction: mode, ..Default::default() }).unwrap();
        let first = c.compact(&mut conv, &summaries);
        assert!(!first.is_empty());
        let once = conv.clone();
        assert_eq!(c.compact(&mut conv, &summaries), CompactionResult::default());
        assert_eq!(conv, once);
    }
}

#[test]
fn repeated_turn_ids_among_recent_turns_stay_intact() {
    // The specification partitions by set membership; a turn id that comes back
    // among the recent turns must not drag those recent messages into compaction.
    let mut conv = agent_conversation(3);
    let last = conv.len() - 1;
    for m in &mut conv[last - 2..] {
        m.turn_id = TurnId::new("a", 1); // the last turn reuses an old id
    }
    let before = conv.clone();
    let c = ThresholdCompactor::new(CompactionConfig { tool_compaction: ToolCompaction::Redact, ..Default::default() })
        .unwrap();
    c.compact(&mut conv, &HashMap::new());
    assert_eq!(&conv[last - 2..], &before[last - 2..]);
}

#[test]
fn format_for_summary_follows_the_specification_markers() {
    let conv = agent_conversation(1);
    let text = format_for_summary(&conv, &HashMap::new());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "User: Please do step 1.");
    assert!(lines[1].starts_with("Assistant: [Called tool: run] {\"id\":\"call_1\"}"), "{}", lines[1]);
    assert!(lines[2].starts_with("User: [Tool result: call_1] output line"), "{}", lines[2]);
    assert_eq!(*lines.last().unwrap(), "Assistant: Step 1 is done.");
}

#[test]
fn llm_compaction_replaces_old_turns_with_one_summary_message() {
    let conv = agent_conversation(4);
    let summarizer = FixedSummarizer::ok("  the summary  ");
    let compactor = LLMCompactor::new(spec_llm(), summarizer).unwrap();
    let (out, result) = block_on(compactor.compact_async(conv.clone(), &HashMap::new())).unwrap();
    // Runs u1 a1 u2 a2 u3 | a3 u4 a4: the first five runs are summarized.
    assert_eq!(result, CompactionResult { turns_compacted: 5, ..Default::default() });
    let summary = &out[0];
    assert_eq!(summary.role, Role::User);
    assert_eq!(summary.turn_id, TurnId::new("u", 0));
    assert_eq!(first_text(summary), format!("{SUMMARY_PREFIX}the summary"));
    assert_eq!(summary.summary_of.unwrap().messages, conv.len() - (out.len() - 1));
    assert_eq!(&out[1..], &conv[conv.len() - (out.len() - 1)..], "recent messages unchanged, in order");
    let requests = compactor.summarizer().requests.lock().unwrap();
    assert_eq!(requests[0].system, DEFAULT_SUMMARY_PROMPT);
    assert!(requests[0].prompt.starts_with("Summarize this conversation:\n\nUser: Please do step 1."));
    assert_eq!(requests[0].max_tokens, Some(2048));
}

#[test]
fn llm_errors_are_reported_and_nothing_is_lost() {
    let conv = agent_conversation(4);
    let failing = LLMCompactor::new(spec_llm(), FixedSummarizer::failing("HTTP 500")).unwrap();
    let err = block_on(failing.compact_async(conv.clone(), &HashMap::new())).unwrap_err();
    assert_eq!(err.code(), "LLM_ERROR");
    let empty = LLMCompactor::new(spec_llm(), FixedSummarizer::ok(" \n\t ")).unwrap();
    assert!(matches!(block_on(empty.compact_async(conv.clone(), &HashMap::new())), Err(CompactionError::EmptySummary)));
    let huge = LLMCompactor::new(spec_llm(), FixedSummarizer::ok(&"word ".repeat(100_000))).unwrap();
    let err = block_on(huge.compact_async(conv.clone(), &HashMap::new())).unwrap_err();
    assert_eq!(err.code(), "SUMMARY_TOO_LARGE");
}

#[test]
fn llm_timeout_fires_without_a_runtime() {
    let config = LLMCompactorConfig { summary_timeout: Some(Duration::from_millis(30)), ..spec_llm() };
    let compactor = LLMCompactor::new(config, NeverSummarizer).unwrap();
    let err = block_on(compactor.compact_async(agent_conversation(4), &HashMap::new())).unwrap_err();
    assert!(matches!(err, CompactionError::Timeout(30)), "{err:?}");
    assert_eq!(err.code(), "TIMEOUT");
    assert_eq!(err.to_string(), "summary timed out after 30 ms");
    assert_eq!(CompactionError::Timeout(u64::MAX).to_string(), format!("summary timed out after {} ms", u64::MAX));
}

#[test]
fn llm_cut_never_separates_a_tool_call_from_its_result() {
    // The tool result carries the next turn's id: the naive cut would orphan it.
    let mut conv = agent_conversation(4);
    conv[10].turn_id = TurnId::new("u", 4); // result of call_3 pretends to be in turn u4
    conv.swap(10, 12);
    let compactor =
        LLMCompactor::new(LLMCompactorConfig { keep_recent_turns: 2, ..spec_llm() }, FixedSummarizer::ok("s")).unwrap();
    let (out, _) = block_on(compactor.compact_async(conv.clone(), &HashMap::new())).unwrap();
    let kept_uses: Vec<String> =
        out.iter().flat_map(|m| m.tool_use_ids().map(str::to_owned).collect::<Vec<_>>()).collect();
    let kept_results: Vec<String> =
        out.iter().flat_map(|m| m.tool_result_ids().map(str::to_owned).collect::<Vec<_>>()).collect();
    for r in &kept_results {
        assert!(kept_uses.contains(r), "orphaned tool_result {r}");
    }
    for u in &kept_uses {
        assert!(kept_results.contains(u), "orphaned tool_use {u}");
    }
}

#[test]
fn a_huge_keep_recent_turns_keeps_everything_without_allocating_for_it() {
    let mut conv = agent_conversation(3);
    let before = conv.clone();
    let c = ThresholdCompactor::new(CompactionConfig {
        keep_recent_turns: usize::MAX,
        tool_compaction: ToolCompaction::Redact,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(c.compact(&mut conv, &HashMap::new()), CompactionResult::default());
    assert_eq!(conv, before);
    let l =
        LLMCompactor::new(LLMCompactorConfig { keep_recent_turns: usize::MAX, ..spec_llm() }, FixedSummarizer::ok("s"))
            .unwrap();
    let (out, result) = block_on(l.compact_async(conv.clone(), &HashMap::new())).unwrap();
    assert_eq!((out, result), (before, CompactionResult::default()));
}

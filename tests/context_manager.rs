//! The context manager: the specification's trigger, plus what it must do better
//! (nothing lost during a summary, fallback, no loops, persistence).

mod common;

use std::time::Duration;

use common::*;
use context_compactor::manager::fit::{Compacted, Escalation};
use context_compactor::{
    CompactionConfig, CompactorType, ContextManager, ContextManagerConfig, LLMCompactorConfig, Role, Step, Strategy,
    ToolCompaction, TurnId,
};
use futures::executor::block_on;

fn llm_manager(limit: i64, fallback: Option<CompactionConfig>) -> ContextManager {
    ContextManager::new(ContextManagerConfig {
        context_limit: limit,
        compactor: CompactorType::LLM(LLMCompactorConfig::default()),
        fallback,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap()
}

#[test]
fn below_threshold_nothing_happens() {
    let mut m = llm_manager(1_000_000, None);
    m.push_many(agent_conversation(10));
    let s = FixedSummarizer::ok("summary");
    assert!(block_on(m.maybe_compact(Some(&s))).is_none());
    assert_eq!(s.calls(), 0);
}

#[test]
fn provider_figure_plus_estimate_of_new_messages_drives_the_trigger() {
    let mut m = llm_manager(10_000, None);
    m.push_many(agent_conversation(2));
    m.set_context_used(7_000);
    assert!(!m.should_compact());
    let before = m.context_used();
    m.push(text(Role::User, TurnId::new("u", 3), &"lots of new words ".repeat(300)));
    assert!(m.context_used() > before, "what was pushed since the figure counts");
    assert!(m.should_compact());
}

#[test]
fn messages_pushed_during_the_summary_are_kept_after_it_in_order() {
    // 985 tokens: above the threshold, within the room, so no escalation touches the kept turns.
    let mut m = llm_manager(1000, None);
    let conv = agent_conversation(5);
    m.push_many(conv.clone());
    let Step::Summarize(job) = m.begin(false) else { panic!("expected a summary job") };
    let late: Vec<_> = (0..3).map(|i| text(Role::User, TurnId::new("u", 6 + i), &format!("late {i}"))).collect();
    m.push_many(late.clone());
    assert!(matches!(m.begin(true), Step::Busy), "single flight");
    let outcome = m.complete(job.id, Ok("short".into())).unwrap();
    assert!(outcome.error.is_none());
    let out = m.messages();
    let summarized = out[0].summary_of.unwrap().messages;
    assert_eq!(&out[1..out.len() - 3], &conv[summarized..], "exactly the summarized messages were replaced");
    assert_eq!(&out[out.len() - 3..], &late[..]);
    assert!(m.complete(job.id, Ok("again".into())).is_none(), "a second answer changes nothing");
}

#[test]
fn failure_without_fallback_keeps_everything_and_is_not_retried_until_a_new_turn() {
    let mut m = llm_manager(1000, None);
    let conv = agent_conversation(5);
    m.push_many(conv.clone());
    let s = FixedSummarizer::failing("down");
    let outcome = block_on(m.maybe_compact(Some(&s))).unwrap();
    assert_eq!(outcome.error.as_ref().unwrap().code(), "LLM_ERROR");
    assert!(outcome.to_string().starts_with("LLM compaction failed: "));
    assert_eq!(m.messages(), &conv[..]);
    assert!(block_on(m.maybe_compact(Some(&s))).is_none(), "no retry loop");
    assert_eq!(s.calls(), 1);
    m.push(text(Role::User, TurnId::new("u", 6), "next"));
    assert!(block_on(m.maybe_compact(Some(&s))).is_some(), "a new turn allows another try");
    assert_eq!(s.calls(), 2);
}

#[test]
fn fallback_runs_threshold_compaction_when_the_llm_fails() {
    let fallback = CompactionConfig { tool_compaction: ToolCompaction::Redact, ..Default::default() };
    let mut m = llm_manager(100, Some(fallback));
    m.push_many(agent_conversation(5));
    let tokens = m.estimated_tokens();
    let outcome = block_on(m.maybe_compact(Some(&FixedSummarizer::failing("connection refused")))).unwrap();
    assert!(outcome.fallback);
    assert_eq!(outcome.strategy, Strategy::Threshold);
    assert_eq!(outcome.error.as_ref().unwrap().code(), "LLM_ERROR");
    assert!(outcome.result.tool_results_redacted > 0);
    assert!(m.estimated_tokens() < tokens);
    assert_eq!(m.messages().len(), 20, "no message lost");
}

#[test]
fn timeout_in_the_manager_keeps_the_conversation() {
    let mut m = ContextManager::new(ContextManagerConfig {
        context_limit: 1000,
        compactor: CompactorType::LLM(LLMCompactorConfig {
            summary_timeout: Some(Duration::from_millis(20)),
            ..Default::default()
        }),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap();
    let conv = agent_conversation(4);
    m.push_many(conv.clone());
    let err = block_on(m.force_compact(Some(&NeverSummarizer))).unwrap_err();
    assert_eq!(err.code(), "TIMEOUT");
    assert_eq!(m.messages(), &conv[..]);
}

#[test]
fn after_a_compaction_the_estimate_replaces_the_stale_provider_figure() {
    let mut m = llm_manager(4_000, None);
    m.push_many(agent_conversation(12));
    m.set_context_used(3_900);
    let s = FixedSummarizer::ok("brief");
    let outcome = block_on(m.maybe_compact(Some(&s))).unwrap();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert!(outcome.tokens_after < outcome.tokens_before);
    assert_eq!(m.context_used(), m.estimated_tokens());
    assert!(outcome.below_threshold);
    assert!(block_on(m.maybe_compact(Some(&s))).is_none(), "no second compaction");
    assert_eq!(s.calls(), 1);
}

#[test]
fn threshold_manager_that_cannot_get_below_reports_once() {
    let mut m = ContextManager::new(ContextManagerConfig {
        context_limit: 10,
        compactor: CompactorType::Threshold(CompactionConfig {
            tool_compaction: ToolCompaction::Redact,
            ..Default::default()
        }),
        fallback: None,
        reserve_tokens: 0,
        max_tool_result_tokens: None,
    })
    .unwrap();
    m.push_many(agent_conversation(5));
    let first = block_on(m.maybe_compact(None)).unwrap();
    assert!(!first.below_threshold && !first.fits && first.result.tool_results_redacted > 0);
    let redacted = first.result.tool_results_redacted;
    // Every rung of the escalation was tried: the last turn alone is far over 10 tokens.
    let shrunk = Compacted { summarized: 0, redacted: 1 };
    assert_eq!(
        first.escalation,
        [
            Escalation::ShrankWindow { turns: 2, compacted: shrunk },
            Escalation::ShrankWindow { turns: 1, compacted: Compacted::default() },
            Escalation::Truncated { tool_results: 1, max_tokens: 2 },
        ]
    );
    assert_eq!(
        first.to_string(),
        format!(
            "Compaction result: 0 tool results summarized, {redacted} redacted, 0 turns compacted; \
             then the kept window shrunk to 2 turns (tool results 0 summarized, 1 redacted); then the kept window \
             shrunk to 1 turn; then 1 tool result cut to 2 tokens; the context still does not fit ({} tokens)",
            first.tokens_after
        )
    );
    assert!(block_on(m.maybe_compact(None)).is_none(), "not retried until the conversation grows");
}

#[test]
fn state_round_trips() {
    let mut m = llm_manager(1000, None);
    m.push_many(agent_conversation(3));
    m.set_context_used(321);
    m.store_compact_summaries([("call_1".to_string(), "s1".to_string()), ("call_2".to_string(), "s2".to_string())]);
    let state = m.state();
    let restored = ContextManager::restore(m.config().clone(), &state, "state").unwrap();
    assert_eq!(restored.state(), state);
    assert_eq!(restored.context_used(), m.context_used());
    let mut bad = state.clone();
    bad["messages"][1]["role"] = "robot".into();
    let err = ContextManager::restore(m.config().clone(), &bad, "state").unwrap_err();
    assert_eq!(err.path, "state.messages[1].role");
}

#[test]
fn an_exact_count_is_used_until_the_conversation_changes() {
    let mut m = llm_manager(1_000, None);
    m.push_many(agent_conversation(2));
    assert!(m.needs_count());
    m.set_counted_tokens(m.version(), 900);
    assert!(!m.needs_count());
    assert_eq!(m.context_used(), 900);
    assert!(m.should_compact());
    m.push(text(Role::User, TurnId::new("u", 3), "more"));
    assert!(m.needs_count(), "stale after a push");
    assert_eq!(m.context_used(), m.estimated_tokens());
    m.set_context_used(100);
    assert!(!m.needs_count(), "a provider figure is fresher than any count");
}

#[test]
fn a_count_of_a_conversation_that_changed_meanwhile_is_not_used() {
    let mut m = llm_manager(1_000, None);
    m.push_many(agent_conversation(2));
    let counted = m.version();
    m.push(text(Role::User, TurnId::new("u", 3), "pushed while counting"));
    assert_ne!(m.version(), counted, "a push changes the version");
    m.set_counted_tokens(counted, 900);
    assert_eq!(m.context_used(), m.estimated_tokens());
    assert!(m.needs_count());
    let version = m.version();
    block_on(m.force_compact(Some(&FixedSummarizer::ok("summary")))).unwrap();
    assert_ne!(m.version(), version, "a compaction changes the version");
}

#[test]
fn a_negative_provider_count_reads_as_zero() {
    let mut m = llm_manager(1000, None);
    m.push_many(agent_conversation(3));
    m.set_context_used(-5_000);
    assert_eq!(m.context_used(), 0);
    // And the saved state stays restorable (fromJSON refuses negative counts).
    assert!(ContextManager::restore(m.config().clone(), &m.state(), "state").is_ok());
}

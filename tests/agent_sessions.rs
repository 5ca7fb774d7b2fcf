//! Agent sessions (issue 18): a turn per model step, keep-by-tokens, the user
//! messages kept after an LLM summary, and the escalation that makes the
//! context fit. Random tool loops checked against rules computed here.
//!
//! Cases per property: 48 by default; raise with `PROPTEST_CASES=2000`.

mod common;

use std::collections::HashMap;

use common::FixedSummarizer;
use context_compactor::compaction::config::Keep;
use context_compactor::compaction::llm::{kept_user_message, plan, KeptBudget};
use context_compactor::compaction::tool_pairs::validate_tool_pairs;
use context_compactor::compaction::turns::{old_turns, StepRule};
use context_compactor::manager::fit::{truncate_middle, Compacted, Escalation};
use context_compactor::model::tokens::{estimate_message_tokens, estimate_text_tokens};
use context_compactor::{
    estimate_tokens, CompactionConfig, CompactorType, ContentBlock, ContextManager, ContextManagerConfig, LLMCompactor,
    LLMCompactorConfig, Message, Role, TextBlock, ToolCompaction, ToolResultBlock, ToolResultContent, ToolUseBlock,
    TurnId, REDACTION_NOTICE,
};
use futures::executor::block_on;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Map};

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    Config { cases, failure_persistence: None, ..Config::default() }
}

// ---------------------------------------------------------------------------
// Tool loops

/// One piece of an agent session, as providers order them.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A user message with text (the task, a follow-up, a text-mode observation).
    User(usize),
    /// An assistant message with text.
    Answer(usize),
    /// An assistant message with `calls` tool calls, answered in `split` user
    /// messages (the results in order), the last with user text beside them when `text`.
    Step { calls: usize, split: usize, result_len: usize, text: bool },
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        1 => (10usize..400).prop_map(Event::User),
        1 => (5usize..200).prop_map(Event::Answer),
        5 => (1usize..4, 1usize..3, 0usize..3_000, prop::bool::weighted(0.15))
            .prop_map(|(calls, split, result_len, text)| Event::Step { calls, split: split.min(calls), result_len, text }),
    ]
}

fn session() -> impl Strategy<Value = Vec<Message>> {
    (10usize..300, prop::collection::vec(event(), 0..40)).prop_map(|(task, events)| build(task, &events))
}

fn message(role: Role, content: Vec<ContentBlock>) -> Message {
    let mut m = Message::user_text("", 0, TurnId::default());
    m.role = role;
    m.content = content;
    m
}

fn text(s: String) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: s, extra: Map::new() })
}

fn words(n: usize, seed: usize) -> String {
    (0..n).map(|i| ["alpha ", "beta ", "gamma\n", "δέλτα ", "42 "][(i + seed) % 5]).collect()
}

/// A session: the task, then the events; messages carry no turn id yet.
fn build(task: usize, events: &[Event]) -> Vec<Message> {
    let mut out = vec![message(Role::User, vec![text(words(task, 0))])];
    let mut next = 0;
    for (e, event) in events.iter().enumerate() {
        match *event {
            Event::User(n) => out.push(message(Role::User, vec![text(words(n, e))])),
            Event::Answer(n) => out.push(message(Role::Assistant, vec![text(words(n, e))])),
            Event::Step { calls, split, result_len, text: with_text } => {
                let ids: Vec<String> = (0..calls)
                    .map(|_| {
                        next += 1;
                        format!("call_{next}")
                    })
                    .collect();
                let mut call = vec![text(words(8, e))];
                call.extend(ids.iter().map(|id| {
                    ContentBlock::ToolUse(ToolUseBlock {
                        id: id.clone(),
                        name: "bash".into(),
                        input: json!({ "cmd": format!("cat {id}") }),
                        extra: Map::new(),
                    })
                }));
                out.push(message(Role::Assistant, call));
                let results: Vec<ContentBlock> = ids
                    .iter()
                    .map(|id| {
                        ContentBlock::ToolResult(ToolResultBlock {
                            tool_use_id: id.clone(),
                            content: ToolResultContent::Text(words(result_len, e)),
                            is_error: false,
                            compact_summary: None,
                            extra: Map::new(),
                        })
                    })
                    .collect();
                let per = results.len().div_ceil(split);
                let chunks: Vec<&[ContentBlock]> = results.chunks(per).collect();
                for (c, chunk) in chunks.iter().enumerate() {
                    let mut content = chunk.to_vec();
                    if with_text && c + 1 == chunks.len() {
                        content.push(text("and please hurry".into()));
                    }
                    out.push(message(Role::User, content));
                }
            }
        }
    }
    out
}

fn assigned(messages: &[Message]) -> Vec<Message> {
    let mut out = messages.to_vec();
    StepRule::default().assign_all(&mut out);
    out
}

fn ids(messages: &[Message]) -> Vec<String> {
    messages.iter().map(|m| format!("{}{}", m.turn_id.owner, m.turn_id.number)).collect()
}

/// The index of the first message of the last turn.
fn newest_turn_start(messages: &[Message]) -> usize {
    let last = &messages.last().unwrap().turn_id;
    (0..messages.len()).rev().take_while(|&i| &messages[i].turn_id == last).last().unwrap()
}

fn json_all(ms: &[Message]) -> Vec<String> {
    ms.iter().map(|m| serde_json::to_string(m).unwrap()).collect()
}

// ---------------------------------------------------------------------------
// The step rule

proptest! {
    #![proptest_config(config())]

    /// A tool call and its results share a turn with everything between them;
    /// each assistant message starts a turn; any prefix gets the same turns.
    #[test]
    fn the_step_rule_keeps_tool_pairs_together_and_is_prefix_stable(messages in session()) {
        let whole = assigned(&messages);
        for (i, m) in whole.iter().enumerate() {
            if m.role == Role::Assistant {
                prop_assert!(i == 0 || whole[i - 1].turn_id != m.turn_id, "assistant message {} continues a turn", i);
                prop_assert_eq!(&m.turn_id.owner, "a");
            }
            for call in m.tool_use_ids() {
                let answer = (i + 1..whole.len()).find(|&j| whole[j].tool_result_ids().any(|r| r == call)).unwrap();
                for between in &whole[i..=answer] {
                    prop_assert_eq!(&between.turn_id, &m.turn_id, "call {} and its result in different turns", call);
                }
            }
            let user_text_only = m.role == Role::User && m.tool_result_ids().next().is_none();
            if user_text_only {
                prop_assert!(i == 0 || whole[i - 1].turn_id != m.turn_id, "user message {} continues a turn", i);
                prop_assert_eq!(&m.turn_id.owner, "u");
            }
        }
        for n in 0..=messages.len() {
            prop_assert_eq!(ids(&assigned(&messages[..n])), ids(&whole[..n]), "prefix of {} messages", n);
        }
    }

    /// A manager fed messages one at a time, in batches, or restored from its
    /// saved state midway, gives the turns the adapters give.
    #[test]
    fn the_manager_assigns_what_the_adapters_assign(messages in session(), cut in 0usize..50) {
        let whole = assigned(&messages);
        let cut = cut.min(messages.len());
        let mut manager = ContextManager::new(ContextManagerConfig::new(1_000_000_000, CompactorType::default())).unwrap();
        for m in &messages[..cut] {
            manager.push_step(m.clone());
        }
        let state = manager.state();
        let mut restored = ContextManager::restore(
            ContextManagerConfig::new(1_000_000_000, CompactorType::default()), &state, "state"
        ).unwrap();
        for m in &messages[cut..] {
            manager.push_step(m.clone());
            restored.push_step(m.clone());
        }
        prop_assert_eq!(ids(manager.messages()), ids(&whole));
        prop_assert_eq!(ids(restored.messages()), ids(&whole));
    }

    /// Keep-by-tokens keeps the newest whole turns that fit, at least one.
    #[test]
    fn keep_recent_tokens_keeps_whole_turns_within_the_budget(messages in session(), budget in 0i64..5_000) {
        let messages = assigned(&messages);
        let start = old_turns(&messages, Keep::Tokens(budget)).map_or(0, |old| old.messages);
        let kept = estimate_tokens(&messages[start..]);
        let newest = newest_turn_start(&messages);
        prop_assert!(start <= newest, "the newest turn is always kept");
        prop_assert!(start == newest || kept <= budget, "{} kept tokens over a budget of {}", kept, budget);
        prop_assert!(start == 0 || messages[start - 1].turn_id != messages[start].turn_id, "a turn was split");
        if start > 0 {
            // One more turn would not have fit.
            let previous = (0..start).rev().take_while(|&i| messages[i].turn_id == messages[start - 1].turn_id).last().unwrap();
            prop_assert!(estimate_tokens(&messages[previous..]) > budget);
        }
    }

    /// The user messages with text of the summarized turns come back verbatim
    /// (less any tool results) after the summary: the task (the oldest) when it
    /// fits, then the newest others that fit beside it.
    #[test]
    fn llm_compaction_keeps_the_task_and_the_newest_user_messages_that_fit(messages in session(), keep in 1usize..4, budget in 0i64..3_000) {
        let messages = assigned(&messages);
        let config = LLMCompactorConfig { keep_recent_turns: keep, keep_user_messages_tokens: budget, ..Default::default() };
        let Some(expected) = plan(&messages, config.keep(), KeptBudget::flat(budget)) else { return Ok(()) };
        let candidates: Vec<usize> = (0..expected.cut)
            .filter(|&i| messages[i].role == Role::User && messages[i].content.iter().any(|b| matches!(b, ContentBlock::Text(_))))
            .collect();
        let cost = |i: usize| estimate_message_tokens(&kept_user_message(&messages[i]));
        let mut want = Vec::new();
        let mut tokens = 0;
        let mut rest = &candidates[..];
        if let Some((&task, others)) = candidates.split_first() {
            if cost(task) <= budget {
                want.push(task);
                tokens = cost(task);
                rest = others;
            }
        }
        let mut newest = Vec::new();
        for &i in rest.iter().rev() {
            tokens += cost(i);
            if tokens > budget { break; }
            newest.insert(0, i);
        }
        want.extend(newest);
        prop_assert_eq!(&expected.kept, &want);
        let compactor = LLMCompactor::new(config, FixedSummarizer::ok("s")).unwrap();
        let Ok((out, _)) = block_on(compactor.compact_conversation(messages.clone(), &HashMap::new())) else { return Ok(()) };
        let copies: Vec<Message> = want.iter().map(|&i| kept_user_message(&messages[i])).collect();
        prop_assert_eq!(json_all(&out[1..1 + copies.len()]), json_all(&copies));
        prop_assert_eq!(json_all(&out[1 + copies.len()..]), json_all(&messages[expected.cut..]));
        for copy in &copies {
            prop_assert!(copy.tool_result_ids().next().is_none());
        }
        if validate_tool_pairs(&messages).is_empty() {
            prop_assert!(validate_tool_pairs(&out).is_empty(), "{:?}", validate_tool_pairs(&out));
        }
    }

    /// After a threshold compaction in a manager, the context fits its room,
    /// or there was nothing left to do: every old tool result is redacted or
    /// summarized, the window is the newest turn, its tool results are cut to
    /// the maximum. The newest turn is byte-identical unless one was cut;
    /// nothing is lost and no tool pair is broken.
    #[test]
    fn the_escalation_makes_the_context_fit_or_says_why_not(
        messages in session(),
        share in 5i64..120,
        reserve_share in 0i64..30,
        keep in 1usize..5,
        redact in any::<bool>(),
    ) {
        let messages = assigned(&messages);
        let total = estimate_tokens(&messages).max(10);
        let limit = (total * share / 100).max(2);
        let reserve = (limit * reserve_share / 100).min(limit - 1);
        let mode = if redact { ToolCompaction::Redact } else { ToolCompaction::Summarize };
        let mut manager = ContextManager::new(ContextManagerConfig {
            reserve_tokens: reserve,
            ..ContextManagerConfig::new(limit, CompactorType::Threshold(CompactionConfig {
                keep_recent_turns: keep, tool_compaction: mode, ..Default::default()
            }))
        }).unwrap();
        manager.push_many(messages.clone());
        let Some(outcome) = block_on(manager.maybe_compact(None)) else {
            prop_assert!(total <= limit - reserve && !manager.should_compact());
            return Ok(());
        };
        let out = manager.messages();
        let room = limit - reserve;
        prop_assert_eq!(outcome.fits, manager.context_used() <= room);
        prop_assert_eq!(manager.context_used(), estimate_tokens(out));
        prop_assert_eq!(out.len(), messages.len(), "a message was lost");
        prop_assert_eq!(validate_tool_pairs(out), validate_tool_pairs(&messages));
        let newest = newest_turn_start(&messages);
        let truncated = outcome.escalation.iter().any(|r| matches!(r, Escalation::Truncated { .. }));
        if !truncated {
            prop_assert_eq!(json_all(&out[newest..]), json_all(&messages[newest..]), "the newest turn changed");
        }
        if !outcome.fits {
            let max = manager.config().max_tool_result_tokens();
            for (i, m) in out.iter().enumerate() {
                for b in &m.content {
                    let ContentBlock::ToolResult(r) = b else { continue };
                    if i < newest {
                        prop_assert!(r.content.is_text(REDACTION_NOTICE), "an old tool result was left");
                    } else {
                        prop_assert!(estimate_text_tokens(&r.content.text()) <= max.max(40), "a large tool result was left");
                    }
                }
            }
        }
        // Not retried before the conversation grows.
        if !outcome.fits || !outcome.below_threshold {
            prop_assert!(block_on(manager.maybe_compact(None)).is_none());
        }
    }
}

// ---------------------------------------------------------------------------
// Examples

#[test]
fn a_tool_loop_is_a_turn_per_step() {
    let messages = assigned(&build(
        20,
        &[
            Event::Step { calls: 1, split: 1, result_len: 10, text: false },
            Event::Step { calls: 2, split: 2, result_len: 10, text: true },
            Event::Answer(5),
            Event::User(5),
            Event::Step { calls: 1, split: 1, result_len: 10, text: false },
        ],
    ));
    assert_eq!(ids(&messages), ["u1", "a1", "a1", "a2", "a2", "a2", "a3", "u2", "a4", "a4"]);
}

#[test]
fn the_escalation_cuts_a_huge_tool_result_of_the_newest_step_last() {
    let messages = assigned(&build(
        50,
        &[
            Event::Step { calls: 1, split: 1, result_len: 2_000, text: false },
            Event::Step { calls: 1, split: 1, result_len: 2_000, text: false },
            Event::Step { calls: 1, split: 1, result_len: 20_000, text: false },
        ],
    ));
    let mut manager = ContextManager::new(ContextManagerConfig {
        max_tool_result_tokens: Some(1_000),
        ..ContextManagerConfig::new(4_000, CompactorType::default())
    })
    .unwrap();
    manager.push_many(messages.clone());
    let outcome = block_on(manager.maybe_compact(None)).unwrap();
    assert!(outcome.fits, "{outcome}");
    // Turns u1 a1 a2 a3, the last three kept: nothing old to redact, so the window
    // shrinks (a1's then a2's result redacted), then a3's result is cut.
    assert_eq!(
        outcome.escalation,
        [
            Escalation::ShrankWindow { turns: 2, compacted: Compacted { summarized: 0, redacted: 1 } },
            Escalation::ShrankWindow { turns: 1, compacted: Compacted { summarized: 0, redacted: 1 } },
            Escalation::Truncated { tool_results: 1, max_tokens: 1_000 }
        ]
    );
    let ContentBlock::ToolResult(result) = &manager.messages().last().unwrap().content[0] else { panic!() };
    let text = result.content.text();
    assert!(text.contains("characters (about") && text.contains("cut for context management"), "{text:.200}");
    assert!(estimate_text_tokens(&text) <= 1_000);
    assert!(outcome.to_string().contains("then 1 tool result cut to 1000 tokens"), "{outcome}");
}

#[test]
fn truncate_middle_is_a_prefix_a_marker_and_a_suffix() {
    let text = words(5_000, 3);
    let out = truncate_middle(&text, 200);
    let (head, rest) = out.split_once("\n[… ").unwrap();
    let (_, tail) = rest.split_once(" …]\n").unwrap();
    assert!(text.starts_with(head) && text.ends_with(tail) && !head.is_empty() && !tail.is_empty());
    assert!(estimate_text_tokens(&out) <= 200);
}

#[test]
fn reserve_tokens_trigger_a_compaction_below_the_threshold() {
    let messages = assigned(&build(10, &[Event::Step { calls: 2, split: 1, result_len: 400, text: false }; 6]));
    let total = estimate_tokens(&messages);
    // 70 % full: below the 0.75 threshold, but over the room the reserve leaves.
    let limit = total * 10 / 7;
    let mut manager = ContextManager::new(ContextManagerConfig {
        reserve_tokens: limit / 2,
        ..ContextManagerConfig::new(limit, CompactorType::Threshold(CompactionConfig::default()))
    })
    .unwrap();
    manager.push_many(messages);
    assert!(manager.should_compact() && !manager.fits());
    let outcome = block_on(manager.maybe_compact(None)).unwrap();
    assert!(outcome.fits && manager.context_used() <= limit - limit / 2, "{outcome}");
    assert!(matches!(outcome.escalation[0], Escalation::Compacted(c) if c.redacted > 0));
}

#[test]
fn text_mode_sessions_say_threshold_compaction_has_nothing_to_compact() {
    let messages = assigned(&build(10, &[Event::Answer(300), Event::User(300), Event::Answer(300), Event::User(300)]));
    let mut manager = ContextManager::new(ContextManagerConfig::new(
        estimate_tokens(&messages),
        CompactorType::Threshold(CompactionConfig { keep_recent_turns: 1, ..Default::default() }),
    ))
    .unwrap();
    manager.push_many(messages);
    let outcome = block_on(manager.maybe_compact(None)).unwrap();
    assert!(outcome.no_tool_results && outcome.result.is_empty());
}

/// The manager counts the tool results it holds as messages come and go: a text
/// session that gets one has something to compact; once an LLM summary has replaced
/// every turn that held one, the threshold fallback has nothing again.
#[test]
fn whether_there_are_tool_results_follows_pushes_and_summaries() {
    let text_only = assigned(&build(10, &[Event::Answer(300), Event::User(300), Event::Answer(300), Event::User(300)]));
    let step = Event::Step { calls: 1, split: 1, result_len: 2_000, text: false };
    let with_tools = assigned(&build(10, &[step, step, Event::Answer(300), Event::User(300), Event::Answer(300)]));
    let threshold = |limit| {
        ContextManager::new(ContextManagerConfig::new(
            limit,
            CompactorType::Threshold(CompactionConfig { keep_recent_turns: 1, ..Default::default() }),
        ))
        .unwrap()
    };

    let mut manager = threshold(estimate_tokens(&text_only));
    manager.push_many(text_only.clone());
    assert!(block_on(manager.maybe_compact(None)).unwrap().no_tool_results);
    // The newest turn brings a tool result; the old turns still hold none, so nothing changes.
    let mut tools = build(0, &[step]);
    let result = tools.pop().unwrap();
    manager.push_step(tools.pop().unwrap());
    manager.push_step(result);
    let outcome = block_on(manager.maybe_compact(None)).unwrap();
    assert!(!outcome.no_tool_results && outcome.result.is_empty(), "{outcome}");

    // An LLM summary replaces the old turns, tool results and all: after it, the threshold
    // fallback of a failed summary finds none.
    let config = LLMCompactorConfig { keep_recent_turns: 2, ..Default::default() };
    let mut config = ContextManagerConfig::new(estimate_tokens(&with_tools), CompactorType::LLM(config));
    config.fallback = Some(CompactionConfig { keep_recent_turns: 1, ..Default::default() });
    let mut manager = ContextManager::new(config).unwrap();
    manager.push_many(with_tools.clone());
    let outcome = block_on(manager.maybe_compact(Some(&FixedSummarizer::ok("summary")))).unwrap();
    assert!(outcome.error.is_none() && outcome.result.turns_compacted > 0, "{outcome}");
    assert!(manager.messages().iter().all(|m| m.tool_result_ids().next().is_none()));
    for message in build(3_000, &[Event::Answer(3_000), Event::User(3_000), Event::Answer(3_000)]) {
        manager.push_step(message);
    }
    let outcome = block_on(manager.maybe_compact(Some(&FixedSummarizer::failing("down")))).unwrap();
    assert!(outcome.fallback && outcome.no_tool_results, "{outcome}");
}

#[test]
fn a_stuck_compaction_is_retried_when_a_step_arrives_in_the_same_turn() {
    // The caller's own turn ids: the whole loop is one turn, as before the step rule.
    let mut messages = build(10, &[Event::Step { calls: 1, split: 1, result_len: 2_000, text: false }; 4]);
    for m in &mut messages[1..] {
        m.turn_id = TurnId::new("a", 1);
    }
    messages[0].turn_id = TurnId::new("u", 1);
    let mut manager = ContextManager::new(ContextManagerConfig::new(
        estimate_tokens(&messages),
        CompactorType::Threshold(CompactionConfig { keep_recent_turns: 1, ..Default::default() }),
    ))
    .unwrap();
    manager.push_many(messages.clone());
    assert!(block_on(manager.maybe_compact(None)).is_some());
    assert!(block_on(manager.maybe_compact(None)).is_none(), "not retried without growth");
    manager.push(messages[1].clone());
    assert!(block_on(manager.maybe_compact(None)).is_some(), "retried after a push in the same turn");
}

#[test]
fn the_escalation_prefers_compact_summaries_and_summarizing_never_undoes_a_redaction() {
    let mut messages = assigned(&build(10, &[Event::Step { calls: 1, split: 1, result_len: 1_000, text: false }; 6]));
    // Every result has its own summary but the first, which has one in the manager's map.
    let mut first = None;
    for m in &mut messages {
        for b in &mut m.content {
            if let ContentBlock::ToolResult(r) = b {
                match first {
                    None => first = Some(r.tool_use_id.clone()),
                    Some(_) => r.compact_summary = Some(format!("summary of {}", r.tool_use_id)),
                }
            }
        }
    }
    let total = estimate_tokens(&messages);
    // Six of the seven turns kept: the escalation shrinks the window, and the results leaving it
    // become their summaries (the map's first, then their own), never the notice.
    let mut manager = ContextManager::new(ContextManagerConfig::new(
        total / 3,
        CompactorType::Threshold(CompactionConfig {
            tool_compaction: ToolCompaction::Summarize,
            keep_recent_turns: 6,
            ..Default::default()
        }),
    ))
    .unwrap();
    manager.push_many(messages.clone());
    manager.store_compact_summaries([(first.clone().unwrap(), "mapped summary".to_owned())]);
    let outcome = block_on(manager.maybe_compact(None)).unwrap();
    assert!(outcome.fits, "{outcome}");
    assert_eq!(outcome.result.tool_results_redacted, 0, "{outcome}");
    assert!(outcome.result.tool_results_summarized > 0, "{outcome}");
    assert_eq!(manager.estimated_tokens(), estimate_tokens(manager.messages()), "cached estimates");
    let texts: Vec<String> = manager
        .messages()
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.content.text()),
            _ => None,
        })
        .collect();
    assert_eq!(texts[0], "mapped summary");

    // A redaction notice stays: a summary would make the context grow.
    let mut redacted = messages.clone();
    for m in &mut redacted {
        for b in &mut m.content {
            if let ContentBlock::ToolResult(r) = b {
                r.content = ToolResultContent::Text(REDACTION_NOTICE.to_owned());
            }
        }
    }
    let summarize =
        context_compactor::ThresholdCompactor::new(CompactionConfig { keep_recent_turns: 0, ..Default::default() })
            .unwrap();
    let mut out = redacted.clone();
    let result = context_compactor::Compactor::compact(&summarize, &mut out, &HashMap::new());
    assert!(result.is_empty());
    assert_eq!(out, redacted);
}

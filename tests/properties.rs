//! Property tests: random conversations (parallel tool calls, arbitrary and
//! repeated turn ids, empty content, Unicode at every boundary, very long and very
//! many messages) through threshold compaction, LLM compaction (deterministic
//! summarizer) and the context manager.
//!
//! The expected results are computed here independently of the library (turn
//! runs, the recent boundary, where a cut may fall, which tool ids are orphaned),
//! so a wrong turn boundary or a split tool pair in `src/` makes these fail.
//!
//! Cases per property: 48 by default (the file runs in a few seconds); raise
//! with `PROPTEST_CASES=2000 cargo test --release --test properties`.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use context_compactor::compaction::tool_pairs::validate_tool_pairs;
use context_compactor::manager::Step;
use context_compactor::{
    estimate_tokens, formats, CompactionConfig, CompactionError, CompactionResult, Compactor, CompactorType,
    ContentBlock, ContextManager, ContextManagerConfig, LLMCompactor, LLMCompactorConfig, LlmError, Message, Role,
    Summarizer, SummaryOf, SummaryRequest, TextBlock, ThresholdCompactor, ToolCompaction, ToolResultBlock,
    ToolResultContent, ToolUseBlock, TurnId, REDACTION_NOTICE, SUMMARY_PREFIX,
};
use futures::future::BoxFuture;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Map};

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    Config { cases, failure_persistence: None, ..Config::default() }
}

// ---------------------------------------------------------------------------
// Generators

/// Characters that break naive byte slicing or trimming.
const EDGES: &[&str] =
    &["é", "😀", "e\u{301}", "👩\u{200d}💻", "\u{feff}", "𝕏", "中", "\u{202e}", " ", "\n", "\"", "\\", "\u{7f}"];

fn edge() -> impl Strategy<Value = String> {
    proptest::sample::select(EDGES).prop_map(str::to_owned)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "\\PC{0,24}",
        2 => Just(String::new()),
        3 => (edge(), "\\PC{0,12}", edge()).prop_map(|(a, m, b)| format!("{a}{m}{b}")),
        // Around the summarizer's excerpt limits (300 and 1,000 characters).
        1 => (edge(), 290usize..1_010).prop_map(|(c, n)| c.repeat(n)),
        // Very long.
        1 => (edge(), 1usize..4).prop_map(|(c, n)| format!("{c}{}{c}", "long line of text\n".repeat(n * 3_000))),
    ]
}

fn turn() -> impl Strategy<Value = TurnId> {
    // A small pool, so ids repeat, both consecutively (one run) and later on.
    (proptest::sample::select(&["u", "a", "x", "ü😀", ""][..]), -1i64..3).prop_map(|(o, n)| TurnId::new(o, n))
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![Just(Role::User), Just(Role::Assistant)]
}

#[derive(Debug, Clone)]
struct ResultSpec {
    body: String,
    /// 0: none, 1: a short summary, 2: the body itself (already compacted).
    compact: u8,
    blocks: bool,
    is_error: bool,
}

#[derive(Debug, Clone)]
enum Seg {
    Text {
        role: Role,
        turn: TurnId,
        text: String,
    },
    Empty {
        role: Role,
        turn: TurnId,
    },
    Other {
        role: Role,
        turn: TurnId,
    },
    /// Parallel tool calls in one assistant message, answered in one (or two) user messages.
    Tools {
        call_turn: TurnId,
        result_turn: TurnId,
        preamble: Option<String>,
        results: Vec<ResultSpec>,
        reversed: bool,
        split: bool,
        results_by_assistant: bool,
    },
    /// A tool result whose call is not in the conversation.
    OrphanResult {
        turn: TurnId,
        body: String,
    },
    /// A tool call whose result never comes.
    OrphanCall {
        turn: TurnId,
    },
}

fn result_spec() -> impl Strategy<Value = ResultSpec> {
    (text(), 0u8..3, any::<bool>(), prop::bool::weighted(0.2))
        .prop_map(|(body, compact, blocks, is_error)| ResultSpec { body, compact, blocks, is_error })
}

fn seg() -> impl Strategy<Value = Seg> {
    prop_oneof![
        4 => (role(), turn(), text()).prop_map(|(role, turn, text)| Seg::Text { role, turn, text }),
        1 => (role(), turn()).prop_map(|(role, turn)| Seg::Empty { role, turn }),
        1 => (role(), turn()).prop_map(|(role, turn)| Seg::Other { role, turn }),
        4 => (
            turn(),
            turn(),
            proptest::option::weighted(0.3, text()),
            prop::collection::vec(result_spec(), 1..5),
            any::<bool>(),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.1),
        )
            .prop_map(|(call_turn, result_turn, preamble, results, reversed, split, results_by_assistant)| {
                Seg::Tools { call_turn, result_turn, preamble, results, reversed, split, results_by_assistant }
            }),
        1 => (turn(), text()).prop_map(|(turn, body)| Seg::OrphanResult { turn, body }),
        1 => turn().prop_map(|turn| Seg::OrphanCall { turn }),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    messages: Vec<Message>,
    summaries: HashMap<String, String>,
}

fn message(role: Role, turn: TurnId, content: Vec<ContentBlock>) -> Message {
    let mut m = Message::user_text("", 7, turn);
    m.role = role;
    m.content = content;
    m
}

fn text_block(text: &str) -> ContentBlock {
    ContentBlock::Text(TextBlock { text: text.to_owned(), extra: Map::new() })
}

fn build(segs: Vec<Seg>, id_prefix: &str, realistic_turns: bool, summary_mask: u64) -> Case {
    let mut messages = Vec::new();
    let mut summaries = HashMap::new();
    let mut next = 0u64;
    let mut new_id = || {
        next += 1;
        (next, format!("{id_prefix}{next}"))
    };
    for seg in segs {
        match seg {
            Seg::Text { role, turn, text } => messages.push(message(role, turn, vec![text_block(&text)])),
            Seg::Empty { role, turn } => messages.push(message(role, turn, Vec::new())),
            Seg::Other { role, turn } => {
                let block = ContentBlock::Other(
                    json!({ "type": "thinking", "thinking": "hmm 😀", "signature": "sig" })
                        .as_object()
                        .unwrap()
                        .clone(),
                );
                messages.push(message(role, turn, vec![block, text_block("after")]));
            }
            Seg::Tools { call_turn, result_turn, preamble, results, reversed, split, results_by_assistant } => {
                let ids: Vec<(u64, String)> = results.iter().map(|_| new_id()).collect();
                let mut calls: Vec<ContentBlock> = preamble.iter().map(|t| text_block(t)).collect();
                calls.extend(ids.iter().map(|(_, id)| {
                    ContentBlock::ToolUse(ToolUseBlock {
                        id: id.clone(),
                        name: "run".into(),
                        input: json!({ "cmd": "ls", "n": 1.5 }),
                        extra: Map::new(),
                    })
                }));
                messages.push(message(Role::Assistant, call_turn, calls));
                let mut answers: Vec<ContentBlock> = results
                    .iter()
                    .zip(&ids)
                    .map(|(spec, (n, id))| {
                        if summary_mask & (1 << (n % 64)) != 0 {
                            summaries.insert(id.clone(), format!("summary of {id} ✓"));
                        }
                        ContentBlock::ToolResult(ToolResultBlock {
                            tool_use_id: id.clone(),
                            content: if spec.blocks {
                                ToolResultContent::Blocks(
                                    [
                                        json!({ "type": "text", "text": spec.body }),
                                        json!({ "type": "image", "source": { "type": "base64", "data": "AAAA" } }),
                                        json!({ "type": "text", "text": "more", "cache_control": { "type": "ephemeral" } }),
                                    ]
                                    .into_iter()
                                    .map(|b| ContentBlock::nested(b.as_object().unwrap().clone()))
                                    .collect(),
                                )
                            } else {
                                ToolResultContent::Text(spec.body.clone())
                            },
                            is_error: spec.is_error,
                            compact_summary: match spec.compact {
                                0 => None,
                                1 => Some(format!("short {id}")),
                                _ => Some(spec.body.clone()),
                            },
                            extra: Map::new(),
                        })
                    })
                    .collect();
                if reversed {
                    answers.reverse();
                }
                let role = if results_by_assistant { Role::Assistant } else { Role::User };
                if split && answers.len() > 1 {
                    let rest = answers.split_off(answers.len() / 2);
                    messages.push(message(role, result_turn.clone(), answers));
                    messages.push(message(role, result_turn, rest));
                } else {
                    messages.push(message(role, result_turn, answers));
                }
            }
            Seg::OrphanResult { turn, body } => {
                let (_, id) = new_id();
                let block = ContentBlock::ToolResult(ToolResultBlock {
                    tool_use_id: format!("orphan-{id}"),
                    content: ToolResultContent::Text(body),
                    is_error: false,
                    compact_summary: Some("orphan summary".into()),
                    extra: Map::new(),
                });
                messages.push(message(Role::User, turn, vec![block]));
            }
            Seg::OrphanCall { turn } => {
                let (_, id) = new_id();
                let block = ContentBlock::ToolUse(ToolUseBlock {
                    id: format!("unanswered-{id}"),
                    name: "run".into(),
                    input: json!(null),
                    extra: Map::new(),
                });
                messages.push(message(Role::Assistant, turn, vec![block]));
            }
        }
    }
    if realistic_turns {
        formats::assign_turn_ids(&mut messages);
    }
    Case { messages, summaries }
}

fn case() -> impl Strategy<Value = Case> {
    let segs = prop_oneof![
        12 => prop::collection::vec(seg(), 0..30),
        // Very many messages.
        1 => prop::collection::vec(seg(), 150..300),
    ];
    (segs, proptest::sample::select(&["call_", "toolu_", "ид-", "😀", ""][..]), any::<bool>(), any::<u64>())
        .prop_map(|(segs, prefix, realistic, mask)| build(segs, prefix, realistic, mask))
}

// ---------------------------------------------------------------------------
// Expectations, computed without the library

fn json(m: &Message) -> String {
    serde_json::to_string(m).unwrap()
}

fn json_all(ms: &[Message]) -> Vec<String> {
    ms.iter().map(json).collect()
}

/// Number of turns: runs of consecutive messages with the same turn id.
fn runs(ms: &[Message]) -> usize {
    (0..ms.len()).filter(|&i| i == 0 || ms[i - 1].turn_id != ms[i].turn_id).count()
}

/// Index of the first message of the last `keep` turns; `None` when there are no older turns.
fn recent_start(ms: &[Message], keep: usize) -> Option<usize> {
    let starts: Vec<usize> = (0..ms.len()).filter(|&i| i == 0 || ms[i - 1].turn_id != ms[i].turn_id).collect();
    (starts.len() > keep).then(|| if keep == 0 { ms.len() } else { starts[starts.len() - keep] })
}

fn call_ids(ms: &[Message]) -> Vec<String> {
    ms.iter().flat_map(|m| m.tool_use_ids().map(str::to_owned).collect::<Vec<_>>()).collect()
}

fn result_ids(ms: &[Message]) -> Vec<String> {
    ms.iter().flat_map(|m| m.tool_result_ids().map(str::to_owned).collect::<Vec<_>>()).collect()
}

/// Tool results without their call, and calls without their result.
fn orphans(ms: &[Message]) -> (BTreeSet<String>, BTreeSet<String>) {
    let calls: BTreeSet<String> = call_ids(ms).into_iter().collect();
    let results: BTreeSet<String> = result_ids(ms).into_iter().collect();
    (results.difference(&calls).cloned().collect(), calls.difference(&results).cloned().collect())
}

/// The largest cut `c <= limit` with no tool id on both sides of it.
fn expected_cut(ms: &[Message], limit: usize) -> usize {
    (0..=limit)
        .rev()
        .find(|&c| {
            let before: BTreeSet<String> = call_ids(&ms[..c]).into_iter().chain(result_ids(&ms[..c])).collect();
            let after: BTreeSet<String> = call_ids(&ms[c..]).into_iter().chain(result_ids(&ms[c..])).collect();
            before.is_disjoint(&after)
        })
        .unwrap()
}

/// Checks a threshold compaction of `input` into `out` against the rules and
/// returns how many tool results it changed.
fn check_threshold(
    input: &[Message],
    out: &[Message],
    summaries: &HashMap<String, String>,
    keep: usize,
    mode: ToolCompaction,
) -> Result<usize, TestCaseError> {
    prop_assert_eq!(out.len(), input.len(), "threshold compaction keeps every message");
    let old_end = recent_start(input, keep).unwrap_or(0);
    // 1. The recent turns are byte-identical.
    prop_assert_eq!(json_all(&out[old_end..]), json_all(&input[old_end..]), "recent turns changed");
    // 2. Old messages differ at most in tool-result content, and only as the rules say.
    let mut changed = 0;
    for (before, after) in input[..old_end].iter().zip(&out[..old_end]) {
        prop_assert_eq!(before.content.len(), after.content.len());
        let mut expected = before.clone();
        for (block, (b, a)) in expected.content.iter_mut().zip(before.content.iter().zip(&after.content)) {
            let (ContentBlock::ToolResult(rb), ContentBlock::ToolResult(ra)) = (b, a) else { continue };
            let target = match mode {
                ToolCompaction::Redact => Some(REDACTION_NOTICE),
                ToolCompaction::Summarize => {
                    summaries.get(&rb.tool_use_id).or(rb.compact_summary.as_ref()).map(String::as_str)
                }
            };
            let should_change = before.role == Role::User && target.is_some_and(|t| !rb.content.is_text(t));
            prop_assert_eq!(ra.content != rb.content, should_change, "tool result {} changed wrongly", rb.tool_use_id);
            if should_change {
                prop_assert!(ra.content.is_text(target.unwrap()));
                changed += 1;
                if let ContentBlock::ToolResult(e) = block {
                    e.content = ra.content.clone();
                }
            }
        }
        prop_assert_eq!(json(&expected), json(after), "more than tool-result content changed");
    }
    // 3. Pairing: threshold compaction touches no ids.
    prop_assert_eq!(orphans(out), orphans(input));
    prop_assert_eq!(validate_tool_pairs(out), validate_tool_pairs(input));
    Ok(changed)
}

fn expected_counts(mode: ToolCompaction, changed: usize) -> CompactionResult {
    match mode {
        ToolCompaction::Summarize => CompactionResult { tool_results_summarized: changed, ..Default::default() },
        ToolCompaction::Redact => CompactionResult { tool_results_redacted: changed, ..Default::default() },
    }
}

/// A deterministic summarizer; `kind` picks the answer.
struct Det {
    kind: u8,
    /// Characters of the oversized answer (kind 3): more than the conversation's estimate allows.
    huge: usize,
    calls: AtomicUsize,
}

/// Characters enough to out-weigh `messages` by any token estimate.
fn huge(messages: &[Message]) -> usize {
    8 * estimate_tokens(messages) as usize + 64
}

fn answer(kind: u8, request: &SummaryRequest, huge: usize) -> Result<String, LlmError> {
    match kind {
        // A short summary that names what it saw.
        0 | 1 => Ok(format!("  {} lines summarized 😀 é\n", request.prompt.lines().count())),
        2 => Ok(" \n\t ".into()),
        3 => Ok("longer than the conversation ".chars().cycle().take(huge).collect()),
        _ => Err(LlmError::new("the LLM is down")),
    }
}

impl Summarizer for Det {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(futures::future::ready(answer(self.kind, request, self.huge)))
    }
}

/// Checks an LLM compaction of `input` (cut at `cut`, the expected cut) into `out`.
fn check_llm_success(input: &[Message], out: &[Message], cut: usize, summary: &str) -> Result<(), TestCaseError> {
    // 2. Order kept; the summarized prefix replaced by exactly one summary message.
    prop_assert_eq!(out.len(), input.len() - cut + 1);
    let head = &out[0];
    prop_assert_eq!(head.role, Role::User);
    prop_assert_eq!(head.summary_of, Some(SummaryOf { messages: cut, turns: runs(&input[..cut]) }));
    prop_assert_eq!(head.content.len(), 1);
    let ContentBlock::Text(t) = &head.content[0] else { return Err(TestCaseError::fail("summary is not text")) };
    prop_assert_eq!(&t.text, &format!("{SUMMARY_PREFIX}{}", summary.trim()));
    // 1. Everything after the cut, the recent turns included, is byte-identical.
    prop_assert_eq!(json_all(&out[1..]), json_all(&input[cut..]));
    // Compaction never makes the context grow.
    prop_assert!(estimate_tokens(out) < estimate_tokens(input));
    // 3. No pair split: no new orphan, no new adjacency problem.
    let (r_in, c_in) = orphans(input);
    let (r_out, c_out) = orphans(out);
    prop_assert!(r_out.is_subset(&r_in), "new orphaned tool results: {:?}", r_out.difference(&r_in));
    prop_assert!(c_out.is_subset(&c_in), "new unanswered tool calls: {:?}", c_out.difference(&c_in));
    if validate_tool_pairs(input).is_empty() {
        prop_assert!(validate_tool_pairs(out).is_empty());
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(config())]

    #[test]
    fn threshold_compaction_follows_the_rules(case in case(), keep in 0usize..5, redact in any::<bool>()) {
        let mode = if redact { ToolCompaction::Redact } else { ToolCompaction::Summarize };
        let compactor = ThresholdCompactor::new(CompactionConfig {
            keep_recent_turns: keep,
            tool_compaction: mode,
            ..CompactionConfig::default()
        }).unwrap();
        let mut out = case.messages.clone();
        let result = compactor.compact(&mut out, &case.summaries);
        let changed = check_threshold(&case.messages, &out, &case.summaries, keep, mode)?;
        // 5. The counts are the changes made.
        prop_assert_eq!(result, expected_counts(mode, changed));
        // 4. A second compaction changes nothing and counts nothing.
        let mut again = out.clone();
        let second = compactor.compact(&mut again, &case.summaries);
        prop_assert_eq!(second, CompactionResult::default());
        prop_assert_eq!(json_all(&again), json_all(&out));

        // The context manager does the same, and says so.
        // Forced, with a room large enough that no escalation follows the compaction.
        let mut manager = ContextManager::new(ContextManagerConfig {
            context_limit: 1_000_000_000,
            compactor: CompactorType::Threshold(compactor.config().clone()),
            fallback: None,
            reserve_tokens: 0,
            max_tool_result_tokens: None,
        }).unwrap();
        manager.push_many(case.messages.clone());
        manager.store_compact_summaries(case.summaries.clone());
        let Step::Done(outcome) = manager.begin(true) else {
            return Err(TestCaseError::fail("threshold compaction is synchronous"));
        };
        prop_assert_eq!(outcome.result, result);
        prop_assert_eq!(json_all(manager.messages()), json_all(&out));
        prop_assert_eq!(outcome.tokens_after, estimate_tokens(&out));
        // Again in the other mode: redaction notices over summaries, then summaries over notices.
        let other = match mode { ToolCompaction::Summarize => ToolCompaction::Redact, ToolCompaction::Redact => ToolCompaction::Summarize };
        manager.push_many(case.messages.clone());
        manager.begin(true);
        prop_assert_eq!(manager.estimated_tokens(), estimate_tokens(manager.messages()));
        let mut manager = ContextManager::restore(
            ContextManagerConfig {
                context_limit: 1_000_000_000,
                compactor: CompactorType::Threshold(CompactionConfig { tool_compaction: other, ..compactor.config().clone() }),
                fallback: None,
                reserve_tokens: 0,
                max_tool_result_tokens: None,
            },
            &manager.state(),
            "state",
        ).map_err(|e| TestCaseError::fail(e.to_string()))?;
        manager.begin(true);
        prop_assert_eq!(manager.estimated_tokens(), estimate_tokens(manager.messages()));
    }

    #[test]
    fn llm_compaction_follows_the_rules(case in case(), keep in 0usize..5, kind in 0u8..5) {
        let input = case.messages;
        let cut = recent_start(&input, keep).map_or(0, |s| expected_cut(&input, s));
        let compactor = LLMCompactor::new(
            // No user message kept after the summary: the specification's shape.
            LLMCompactorConfig { keep_recent_turns: keep, keep_user_messages_tokens: 0, ..LLMCompactorConfig::default() },
            Det { kind, huge: huge(&input), calls: AtomicUsize::new(0) },
        ).unwrap();
        let outcome = futures::executor::block_on(compactor.compact_conversation(input.clone(), &case.summaries));
        let calls = compactor.summarizer().calls.load(Ordering::SeqCst);
        if cut == 0 {
            // Nothing old, or no safe cut: nothing summarized, nothing counted.
            let (out, result) = outcome.map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(calls, 0);
            prop_assert_eq!(json_all(&out), json_all(&input));
            prop_assert_eq!(result, CompactionResult::default());
            return Ok(());
        }
        prop_assert_eq!(calls, 1, "one summarizer call per compaction");
        let summarized = estimate_tokens(&input[..cut]);
        match (kind, outcome) {
            (0 | 1, Ok((out, result))) => {
                // 5. The count is the number of turns actually replaced.
                prop_assert_eq!(result, CompactionResult { turns_compacted: runs(&input[..cut]), ..Default::default() });
                let summary = out[0].content.first().map(|b| match b {
                    ContentBlock::Text(t) => t.text[SUMMARY_PREFIX.len()..].to_owned(),
                    _ => String::new(),
                }).unwrap_or_default();
                check_llm_success(&input, &out, cut, &summary)?;
            }
            // A short summary may still not be smaller than a tiny old part: refused.
            (0 | 1 | 3, Err(CompactionError::SummaryTooLarge { summary_tokens, summarized_tokens })) => {
                prop_assert_eq!(summarized_tokens, summarized);
                prop_assert!(summary_tokens >= summarized_tokens);
            }
            (2, Err(CompactionError::EmptySummary)) | (4, Err(CompactionError::LlmError(_))) => {}
            (kind, other) => {
                return Err(TestCaseError::fail(format!("answer kind {kind} gave {:?}", other.map(|(_, r)| r))));
            }
        }
    }

    /// The manager: messages pushed while the summary is pending are kept, after
    /// it, in order; a failure keeps everything; a stale answer changes nothing;
    /// the saved state restores to the same state.
    #[test]
    fn context_manager_keeps_every_message(
        case in case(),
        pushed in prop::collection::vec((role(), turn(), text()), 0..6),
        keep in 0usize..4,
        kind in 0u8..5,
        fallback in any::<bool>(),
    ) {
        let input = case.messages;
        let pushed: Vec<Message> =
            pushed.into_iter().map(|(role, turn, text)| message(role, turn, vec![text_block(&text)])).collect();
        let fallback_config =
            CompactionConfig { keep_recent_turns: keep, tool_compaction: ToolCompaction::Redact, ..Default::default() };
        // Forced, with a room large enough that no escalation follows, and the specification's shape.
        let config = ContextManagerConfig {
            context_limit: 1_000_000_000,
            compactor: CompactorType::LLM(LLMCompactorConfig {
                keep_recent_turns: keep,
                keep_user_messages_tokens: 0,
                ..Default::default()
            }),
            fallback: fallback.then(|| fallback_config.clone()),
            reserve_tokens: 0,
            max_tool_result_tokens: None,
        };
        let mut manager = ContextManager::new(config.clone()).unwrap();
        manager.push_many(input.clone());
        manager.store_compact_summaries(case.summaries.clone());
        let cut = recent_start(&input, keep).map_or(0, |s| expected_cut(&input, s));
        match manager.begin(true) {
            Step::Summarize(job) => {
                prop_assert!(cut > 0);
                for m in &pushed {
                    manager.push(m.clone());
                }
                prop_assert!(matches!(manager.begin(true), Step::Busy), "one summary in flight");
                prop_assert!(manager.complete(job.id + 1, Ok("stale".into())).is_none());
                let mut all = input.clone();
                all.extend(pushed.iter().cloned());
                prop_assert_eq!(json_all(manager.messages()), json_all(&all), "a stale answer changed messages");

                let answer = answer(kind, &job.request, huge(&all)).map_err(CompactionError::LlmError);
                let outcome = manager.complete(job.id, answer.clone()).expect("the pending job completes");
                prop_assert_eq!(outcome.messages_after, manager.messages().len());
                let messages = manager.messages().to_vec();
                match (&outcome.error, fallback) {
                    (None, _) => {
                        check_llm_success(&all, &messages, cut, answer.as_ref().unwrap())?;
                        prop_assert_eq!(outcome.result.turns_compacted, runs(&input[..cut]));
                        prop_assert_eq!(outcome.summary_length, Some(answer.unwrap().trim().chars().count()));
                    }
                    (Some(_), false) => {
                        prop_assert_eq!(json_all(&messages), json_all(&all), "a failed compaction changed messages");
                        prop_assert!(outcome.result.is_empty());
                    }
                    (Some(_), true) => {
                        prop_assert!(outcome.fallback);
                        let changed = check_threshold(&all, &messages, &case.summaries, keep, ToolCompaction::Redact)?;
                        prop_assert_eq!(outcome.result, expected_counts(ToolCompaction::Redact, changed));
                    }
                }
            }
            Step::Done(outcome) => {
                prop_assert_eq!(cut, 0);
                prop_assert!(outcome.result.is_empty());
                prop_assert_eq!(json_all(manager.messages()), json_all(&input));
            }
            other => return Err(TestCaseError::fail(format!("unexpected step {other:?}"))),
        }
        prop_assert!(!manager.is_compacting());
        // The cached per-message and per-block estimates still add up to a fresh count.
        prop_assert_eq!(manager.estimated_tokens(), estimate_tokens(manager.messages()));
        // And after a second round whose summary fails: with a fallback, threshold
        // compaction edits blocks of the conversation the first round rewrote.
        manager.push_many(input.iter().cloned());
        if let Step::Summarize(job) = manager.begin(true) {
            manager.complete(job.id, Err(CompactionError::LlmError(LlmError::new("down"))));
        }
        prop_assert_eq!(manager.estimated_tokens(), estimate_tokens(manager.messages()));

        // state → restore → state is the identity.
        let state = manager.state();
        let restored = ContextManager::restore(config, &state, "state").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(serde_json::to_string(&restored.state()).unwrap(), serde_json::to_string(&state).unwrap());
    }

    /// A user message whose text merely looks like a summary is an ordinary message:
    /// only `summary_of` marks a summary, and it survives JSON.
    #[test]
    fn summary_marker_text_is_not_a_summary(case in case(), keep in 1usize..4) {
        let mut input = case.messages;
        input.insert(0, message(Role::User, TurnId::new("u", 0), vec![text_block(&format!("{SUMMARY_PREFIX}forged"))]));
        let json_in = serde_json::to_value(&input).unwrap();
        let parsed = context_compactor::model::read::parse_messages(&json_in, "messages").unwrap();
        prop_assert!(parsed[0].summary_of.is_none());
        prop_assert_eq!(json_all(&parsed), json_all(&input));
        let compactor = LLMCompactor::new(
            LLMCompactorConfig { keep_recent_turns: keep, keep_user_messages_tokens: 0, ..LLMCompactorConfig::default() },
            Det { kind: 0, huge: 0, calls: AtomicUsize::new(0) },
        ).unwrap();
        let outcome = futures::executor::block_on(compactor.compact_conversation(parsed, &case.summaries));
        let compacted = compactor.summarizer().calls.load(Ordering::SeqCst) == 1;
        if let Ok((out, _)) = outcome {
            // Exactly the message written by this compaction is marked; the forged
            // one, if kept, is not.
            let marked: Vec<usize> = (0..out.len()).filter(|&i| out[i].summary_of.is_some()).collect();
            prop_assert_eq!(marked, if compacted { vec![0] } else { vec![] });
        }
    }
}

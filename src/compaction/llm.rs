//! LLM compaction: summarize the old turns with an LLM and replace them with
//! one `[Previous conversation summary]: …` message.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::compaction::config::{exceeds_threshold, Keep, LLMCompactorConfig};
use crate::compaction::result::{AsyncCompactor, CompactionFuture, CompactionResult, Compactor};
use crate::compaction::tool_pairs::safe_cut;
use crate::compaction::turns::{count_turns, old_turns, OldTurns};
use crate::error::{CompactionError, InputError};
use crate::model::message::{ContentBlock, Message, Role, SummaryOf, ToolResultBlock, ToolResultContent, TurnId};
use crate::model::tokens::{estimate_message_tokens, estimate_message_with, estimate_tokens};
use crate::summarizer::{summarize_with_timeout, Summarizer, SummaryRequest};
use crate::text::{push_json_truncated, push_truncated};

/// The text that starts every summary message.
pub const SUMMARY_PREFIX: &str = "[Previous conversation summary]: ";
/// Longest excerpt of a tool call's input shown to the summarizer, in characters.
const TOOL_INPUT_EXCERPT: usize = 300;
/// Longest excerpt of a tool result shown to the summarizer, in characters.
const TOOL_RESULT_EXCERPT: usize = 1_000;

/// The asynchronous compactor of the specification, over any [`Summarizer`].
///
/// ```
/// use std::collections::HashMap;
/// use context_compactor::{AsyncCompactor, LLMCompactor, LLMCompactorConfig, LlmError, SummaryRequest, Summarizer};
/// use futures::future::BoxFuture;
///
/// struct MyLlm;
/// impl Summarizer for MyLlm {
///     fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
///         // Call your LLM with request.system, request.prompt and request.max_tokens.
///         Box::pin(async move { Ok(format!("{} characters of history", request.prompt.len())) })
///     }
/// }
///
/// let compactor = LLMCompactor::new(LLMCompactorConfig::default(), MyLlm)?;
/// let conversation = Vec::new(); // your messages
/// let (conversation, result) =
///     futures::executor::block_on(compactor.compact_async(conversation, &HashMap::new())).unwrap();
/// assert_eq!(result.turns_compacted, 0);
/// # let _ = conversation;
/// # Ok::<(), context_compactor::InputError>(())
/// ```
pub struct LLMCompactor<S> {
    config: LLMCompactorConfig,
    summarizer: S,
}

/// Which messages an LLM compaction will summarize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmPlan {
    /// The first `cut` messages are summarized; the rest are kept.
    pub cut: usize,
    /// How many turns (runs) the summarized messages span.
    pub turns: usize,
    /// The user messages among the first `cut` that stay verbatim after the
    /// summary, by index, oldest first (see [`kept_user_message`]).
    pub kept: Vec<usize>,
}

/// How many tokens the user messages kept after the summary may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeptBudget {
    /// All of them together: `keep_user_messages_tokens`.
    pub total: i64,
    /// The oldest of them, the task (a manager gives it what the room leaves).
    pub task: i64,
    /// The others (a manager gives them what the threshold leaves).
    pub others: i64,
}

impl KeptBudget {
    /// `tokens` for all of them, the task included.
    pub fn flat(tokens: i64) -> Self {
        Self { total: tokens, task: tokens, others: tokens }
    }
}

/// Plans an LLM compaction: the old turns, cut back where needed so that no tool
/// call is separated from its result, and the user messages kept verbatim
/// within `budget`. `None` when there is nothing to summarize (no old turns, or
/// only user messages that would be kept).
pub fn plan(conversation: &[Message], keep: Keep, budget: KeptBudget) -> Option<LlmPlan> {
    plan_after(conversation, old_turns(conversation, keep)?, budget)
}

/// [`plan`] for a caller that knows where the `old` turns end.
pub fn plan_after(conversation: &[Message], old: OldTurns, budget: KeptBudget) -> Option<LlmPlan> {
    let cut = safe_cut(conversation, old.messages);
    let turns = if cut == old.messages { old.turns } else { count_turns(&conversation[..cut]) };
    let kept = kept_user_messages(&conversation[..cut], budget);
    // Nothing to summarize when every old message would stay as it is.
    (cut > kept.len()).then_some(LlmPlan { cut, turns, kept })
}

/// The user messages of `summarized` that carry text (the summary message of an
/// earlier compaction excepted) and stay after the summary, oldest first: the
/// oldest, the task, when it fits in `budget.task`; then the newest others whose
/// kept copies fit, together with it, in `budget.others` and `budget.total`.
fn kept_user_messages(summarized: &[Message], budget: KeptBudget) -> Vec<usize> {
    let candidates: Vec<usize> = (0..summarized.len())
        .filter(|&i| {
            let message = &summarized[i];
            let carries_text = message.content.iter().any(|b| matches!(b, ContentBlock::Text(_)));
            message.role == Role::User && message.summary_of.is_none() && carries_text
        })
        .collect();
    // The estimate of the kept copy (see kept_user_message), without making it.
    let tokens = |i: usize| estimate_message_with(summarized[i].content.iter().filter(|b| !is_tool_result(b)));
    let mut kept = Vec::new();
    let mut used = 0;
    let mut others = &candidates[..];
    if let Some((&task, rest)) = candidates.split_first() {
        let task_tokens = tokens(task);
        if task_tokens <= budget.task.min(budget.total) {
            kept.push(task);
            used = task_tokens;
            others = rest;
        }
    }
    let limit = budget.others.min(budget.total);
    let first_other = kept.len();
    for &i in others.iter().rev() {
        used += tokens(i);
        if used > limit {
            break;
        }
        kept.insert(first_other, i);
    }
    kept
}

/// The copy of a user message kept after the summary: the message itself, less
/// any tool results (their calls are summarized, so they would answer nothing).
pub fn kept_user_message(message: &Message) -> Message {
    let mut kept = message.clone();
    kept.content.retain(|b| !is_tool_result(b));
    kept
}

fn is_tool_result(block: &ContentBlock) -> bool {
    matches!(block, ContentBlock::ToolResult(_))
}

/// The request sent to the summarizer for `old_messages`, the messages at
/// `kept` staying verbatim after the summary.
pub fn build_request(
    old_messages: &[Message],
    kept: &[usize],
    config: &LLMCompactorConfig,
    summaries: &HashMap<String, String>,
) -> SummaryRequest {
    let mut prompt = String::from(if kept.is_empty() { SUMMARY_INSTRUCTION } else { SUMMARY_INSTRUCTION_WITH_KEPT });
    write_transcript(&mut prompt, old_messages, kept, summaries);
    SummaryRequest { system: config.system_prompt().to_owned(), prompt, max_tokens: config.max_summary_tokens }
}

/// The specification's instruction before the transcript.
const SUMMARY_INSTRUCTION: &str = "Summarize this conversation:\n\n";
/// The instruction when user messages are kept after the summary.
const SUMMARY_INSTRUCTION_WITH_KEPT: &str = "Summarize this conversation. The user messages marked \"(kept verbatim)\" \
stay in the conversation word for word after your summary: do not restate them, summarize what happened around them.\n\n";

/// The specification's transcript format (`User: …` / `Assistant: …`), with
/// excerpts of tool inputs and results (or their compact summaries) so the
/// summarizer knows what the tools did.
pub fn format_for_summary(messages: &[Message], summaries: &HashMap<String, String>) -> String {
    let mut output = String::new();
    write_transcript(&mut output, messages, &[], summaries);
    output
}

/// Appends [`format_for_summary`]'s transcript to `output`, the messages at
/// `kept` (ascending) marked as kept verbatim.
fn write_transcript(output: &mut String, messages: &[Message], kept: &[usize], summaries: &HashMap<String, String>) {
    output.reserve(transcript_len(messages));
    let mut kept = kept.iter().peekable();
    for (index, msg) in messages.iter().enumerate() {
        let is_kept = kept.next_if_eq(&&index).is_some();
        let (role, blocks) = match (msg.role, is_kept) {
            (Role::Assistant, _) => ("Assistant: ", &msg.content[..]),
            (Role::User, false) => ("User: ", &msg.content[..]),
            (Role::User, true) => {
                // A kept message's tool results are not kept: they are summarized like any.
                if msg.content.iter().any(is_tool_result) {
                    write_entry(output, "User: ", msg.content.iter().filter(|b| is_tool_result(b)), summaries);
                }
                let kept_blocks = msg.content.iter().filter(|b| !is_tool_result(b));
                write_entry(output, "User (kept verbatim): ", kept_blocks, summaries);
                continue;
            }
        };
        write_entry(output, role, blocks.iter(), summaries);
    }
}

/// One transcript line (or more): `role`, then each block, one per line.
fn write_entry<'a>(
    output: &mut String,
    role: &str,
    blocks: impl Iterator<Item = &'a ContentBlock>,
    summaries: &HashMap<String, String>,
) {
    output.push_str(role);
    for (i, block) in blocks.enumerate() {
        if i > 0 {
            output.push('\n');
        }
        match block {
            ContentBlock::Text(t) => output.push_str(&t.text),
            ContentBlock::ToolUse(u) => {
                output.push_str("[Called tool: ");
                output.push_str(&u.name);
                output.push_str("] ");
                push_json_truncated(output, &u.input, TOOL_INPUT_EXCERPT);
            }
            ContentBlock::ToolResult(r) => {
                output.push_str("[Tool result: ");
                output.push_str(&r.tool_use_id);
                output.push_str("] ");
                push_result_excerpt(output, r, summaries);
            }
            ContentBlock::Other(map) => {
                let kind = map.get("type").and_then(|t| t.as_str()).unwrap_or("block");
                output.push('[');
                output.push_str(kind);
                output.push(']');
            }
        }
    }
    output.push('\n');
}

/// About how long [`write_transcript`]'s output for `messages` is, so that the
/// prompt is allocated once instead of grown by copying: exact for text, the
/// longest ASCII excerpt for tool inputs, and for tool results the compact
/// summary or the text, up to the longest ASCII excerpt; plus room for what
/// [`push_json_truncated`] writes past an input's excerpt before cutting it.
fn transcript_len(messages: &[Message]) -> usize {
    let block_len = |block: &ContentBlock| match block {
        ContentBlock::Text(t) => t.text.len(),
        ContentBlock::ToolUse(u) => "[Called tool: ] …".len() + u.name.len() + TOOL_INPUT_EXCERPT,
        ContentBlock::ToolResult(r) => {
            let text = match (&r.compact_summary, &r.content) {
                (Some(summary), _) => summary.len(),
                (None, ToolResultContent::Text(text)) => text.len(),
                (None, ToolResultContent::Blocks(_)) => TOOL_RESULT_EXCERPT,
            };
            "[Tool result: ] (error) …".len() + r.tool_use_id.len() + text.min(TOOL_RESULT_EXCERPT)
        }
        ContentBlock::Other(_) => "[block]".len(),
    };
    let messages_len: usize = messages
        .iter()
        .map(|m| "User (kept verbatim): \n".len() + m.content.iter().map(|b| 1 + block_len(b)).sum::<usize>())
        .sum();
    messages_len + 4 * TOOL_INPUT_EXCERPT + 8
}

/// Appends the result's summary, or an excerpt of its text, without copying the whole text.
fn push_result_excerpt(output: &mut String, result: &ToolResultBlock, summaries: &HashMap<String, String>) {
    let text: Cow<'_, str> =
        match (summaries.get(&result.tool_use_id).or(result.compact_summary.as_ref()), &result.content) {
            (Some(summary), _) => Cow::Borrowed(summary),
            (None, ToolResultContent::Text(text)) => Cow::Borrowed(text),
            (None, content) => Cow::Owned(content.text()),
        };
    if result.is_error {
        output.push_str("(error) ");
    }
    push_truncated(output, &text, TOOL_RESULT_EXCERPT);
}

/// Checks the summarizer's answer and builds what replaces the first
/// `plan.cut` messages of `conversation` (whose estimate is `prefix_tokens`):
/// the summary message, then copies of the kept user messages. Fails when the
/// summary is empty, or when it would not make the context smaller than the
/// messages it replaces.
pub fn replacement(
    summary: &str,
    conversation: &[Message],
    plan: &LlmPlan,
    prefix_tokens: i64,
) -> Result<Vec<Message>, CompactionError> {
    let summary = summary.trim();
    if summary.is_empty() {
        return Err(CompactionError::EmptySummary);
    }
    let summarized = &conversation[..plan.cut];
    let session_id = summarized.first().map_or(0, |m| m.session_id);
    let mut message = Message::user_text(SUMMARY_PREFIX.to_owned() + summary, session_id, TurnId::new("u", 0));
    message.summary_of = Some(SummaryOf { messages: plan.cut, turns: plan.turns });
    let mut out = vec![message];
    out.extend(plan.kept.iter().map(|&i| kept_user_message(&summarized[i])));
    let summary_tokens = estimate_message_tokens(&out[0]);
    let summarized_tokens = prefix_tokens - estimate_tokens(&out[1..]);
    if summary_tokens >= summarized_tokens {
        return Err(CompactionError::SummaryTooLarge { summary_tokens, summarized_tokens });
    }
    Ok(out)
}

impl<S: Summarizer> LLMCompactor<S> {
    /// A compactor with the given configuration and summarizer.
    pub fn new(config: LLMCompactorConfig, summarizer: S) -> Result<Self, InputError> {
        config.validate("")?;
        Ok(Self { config, summarizer })
    }

    /// The configuration in force.
    pub fn config(&self) -> &LLMCompactorConfig {
        &self.config
    }

    /// The LLM call.
    pub fn summarizer(&self) -> &S {
        &self.summarizer
    }

    /// Summarizes the old turns of `conversation`. On error, nothing is lost:
    /// the caller keeps the conversation it had.
    pub async fn compact_conversation(
        &self,
        conversation: Vec<Message>,
        summaries: &HashMap<String, String>,
    ) -> Result<(Vec<Message>, CompactionResult), CompactionError> {
        let budget = KeptBudget::flat(self.config.keep_user_messages_tokens);
        let Some(plan) = plan(&conversation, self.config.keep(), budget) else {
            return Ok((conversation, CompactionResult::default()));
        };
        let old = &conversation[..plan.cut];
        let request = build_request(old, &plan.kept, &self.config, summaries);
        let summary = summarize_with_timeout(&self.summarizer, &request, self.config.timeout()).await?;
        let replacement = replacement(&summary, &conversation, &plan, estimate_tokens(old))?;
        let mut compacted = conversation;
        compacted.splice(..plan.cut, replacement);
        Ok((compacted, CompactionResult { turns_compacted: plan.turns, ..CompactionResult::default() }))
    }
}

impl<S: Summarizer> Compactor for LLMCompactor<S> {
    fn should_compact(&self, context_used: i64, context_limit: i32) -> bool {
        exceeds_threshold(self.config.threshold, context_used, context_limit.into())
    }

    /// LLM compaction cannot run synchronously: this does nothing. Use
    /// [`AsyncCompactor::compact_async`].
    fn compact(&self, _conversation: &mut Vec<Message>, _summaries: &HashMap<String, String>) -> CompactionResult {
        CompactionResult::default()
    }

    fn is_async(&self) -> bool {
        true
    }
}

impl<S: Summarizer> AsyncCompactor for LLMCompactor<S> {
    fn compact_async<'a>(
        &'a self,
        conversation: Vec<Message>,
        compact_summaries: &'a HashMap<String, String>,
    ) -> CompactionFuture<'a> {
        Box::pin(self.compact_conversation(conversation, compact_summaries))
    }
}

//! Threshold compaction: in old turns, replace tool results with their compact
//! summary or a redaction notice. Fast, synchronous, never fails.

use std::collections::HashMap;

use crate::compaction::config::{exceeds_threshold, CompactionConfig, ToolCompaction, REDACTION_NOTICE};
use crate::compaction::result::{CompactionResult, Compactor};
use crate::compaction::turns::old_turns;
use crate::error::InputError;
use crate::model::message::{ContentBlock, Message, Role, ToolResultBlock, ToolResultContent};

/// The synchronous compactor of the specification.
///
/// ```
/// use std::collections::HashMap;
/// use context_compactor::{CompactionConfig, Compactor, ThresholdCompactor, ToolCompaction};
///
/// let compactor = ThresholdCompactor::new(CompactionConfig {
///     tool_compaction: ToolCompaction::Redact,
///     ..CompactionConfig::default()
/// })?;
/// assert!(compactor.should_compact(80_000, 100_000));
/// let mut conversation = Vec::new(); // your messages
/// let result = compactor.compact(&mut conversation, &HashMap::new());
/// assert_eq!(result.tool_results_redacted, 0);
/// # Ok::<(), context_compactor::InputError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ThresholdCompactor {
    config: CompactionConfig,
}

impl ThresholdCompactor {
    /// A compactor with the given configuration, checked ([`CompactionConfig::validate`]).
    pub fn new(config: CompactionConfig) -> Result<Self, InputError> {
        config.validate("")?;
        Ok(Self { config })
    }

    /// A compactor with a configuration already checked (a manager's).
    pub(crate) fn checked(config: CompactionConfig) -> Self {
        Self { config }
    }

    /// The configuration in force.
    pub fn config(&self) -> &CompactionConfig {
        &self.config
    }

    /// Compacts the tool results of the old turns, reporting each block it
    /// changes to `on_change` as (message index, block index, whether the new
    /// content is the block's own `compact_summary`).
    /// Idempotent: a result already replaced is neither changed nor counted again.
    pub fn compact_range(
        &self,
        conversation: &mut [Message],
        summaries: &HashMap<String, String>,
        on_change: impl FnMut(usize, usize, bool),
    ) -> CompactionResult {
        match old_turns(conversation, self.config.keep()) {
            Some(old) => self.compact_prefix(&mut conversation[..old.messages], summaries, on_change),
            None => CompactionResult::default(),
        }
    }

    /// [`ThresholdCompactor::compact_range`] for a caller that knows where the
    /// old turns end: compacts every tool result of `old`.
    pub fn compact_prefix(
        &self,
        old: &mut [Message],
        summaries: &HashMap<String, String>,
        mut on_change: impl FnMut(usize, usize, bool),
    ) -> CompactionResult {
        let mut result = CompactionResult::default();
        for (index, message) in old.iter_mut().enumerate() {
            if message.role != Role::User {
                continue;
            }
            for (block_index, block) in message.content.iter_mut().enumerate() {
                if let ContentBlock::ToolResult(tool_result) = block {
                    if let Some(own) = self.compact_tool_result(tool_result, summaries, &mut result) {
                        on_change(index, block_index, own);
                    }
                }
            }
        }
        result
    }

    /// Compacts one tool result; `Some(own)` when it changed, `own` telling
    /// whether its new content is its own `compact_summary`.
    fn compact_tool_result(
        &self,
        tool_result: &mut ToolResultBlock,
        summaries: &HashMap<String, String>,
        result: &mut CompactionResult,
    ) -> Option<bool> {
        if self.kept_content().is_some_and(|keep| tool_result.content.is_text(keep)) {
            return None;
        }
        let own_summary = tool_result.compact_summary.as_deref();
        let text = self
            .replacement(&tool_result.tool_use_id, own_summary, summaries, |text| tool_result.content.is_text(text))?;
        let own = own_summary.is_some_and(|own| std::ptr::eq(own, text));
        tool_result.content = ToolResultContent::Text(text.to_owned());
        self.count(result);
        Some(own)
    }

    /// What replaces an old tool result's content: its summary (from `summaries`,
    /// else its own `compact_summary`) or the redaction notice; `None` when there
    /// is no summary or `is_current` says the content is already that text.
    pub fn replacement<'a>(
        &self,
        tool_use_id: &str,
        compact_summary: Option<&'a str>,
        summaries: &'a HashMap<String, String>,
        is_current: impl FnOnce(&str) -> bool,
    ) -> Option<&'a str> {
        let text = match self.config.tool_compaction {
            ToolCompaction::Summarize => summaries.get(tool_use_id).map(String::as_str).or(compact_summary)?,
            ToolCompaction::Redact => REDACTION_NOTICE,
        };
        (!is_current(text)).then_some(text)
    }

    /// Whether [`ThresholdCompactor::replacement`] looks the `tool_use_id` up in
    /// `summaries`: not when redacting, nor when there are none. A caller that
    /// must fetch the ids from elsewhere (a JS array) can skip them otherwise.
    pub fn reads_tool_use_id(&self, summaries: &HashMap<String, String>) -> bool {
        self.config.tool_compaction == ToolCompaction::Summarize && !summaries.is_empty()
    }

    /// Content left as it is whatever [`ThresholdCompactor::replacement`] says:
    /// when summarizing, the redaction notice (a summary would be longer; a
    /// manager's escalation may have redacted a result that has a summary).
    pub fn kept_content(&self) -> Option<&'static str> {
        (self.config.tool_compaction == ToolCompaction::Summarize).then_some(REDACTION_NOTICE)
    }

    /// Counts one replacement made by [`ThresholdCompactor::replacement`].
    pub fn count(&self, result: &mut CompactionResult) {
        match self.config.tool_compaction {
            ToolCompaction::Summarize => result.tool_results_summarized += 1,
            ToolCompaction::Redact => result.tool_results_redacted += 1,
        }
    }
}

impl Compactor for ThresholdCompactor {
    fn should_compact(&self, context_used: i64, context_limit: i32) -> bool {
        exceeds_threshold(self.config.threshold, context_used, context_limit.into())
    }

    /// Summarizes or redacts the tool results of every turn but the last
    /// `keep_recent_turns`. A tool result with no summary (neither in
    /// `compact_summaries` nor in its own `compact_summary`) is left alone.
    fn compact(
        &self,
        conversation: &mut Vec<Message>,
        compact_summaries: &HashMap<String, String>,
    ) -> CompactionResult {
        self.compact_range(conversation, compact_summaries, |_, _, _| {})
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::ThresholdCompactor;
    use crate::compaction::config::{CompactionConfig, ToolCompaction};
    use crate::model::read::parse_messages;

    #[test]
    fn compact_prefix_reports_every_change_at_its_index() {
        let n = 101;
        let messages = (0..n).map(|i| {
            let turn = json!({ "owner": "u", "number": i });
            match i % 3 {
                0 => json!({ "role": "user", "turn_id": turn, "content": [{ "type": "text", "text": "go" }] }),
                1 => json!({ "role": "assistant", "turn_id": turn, "content": [
                    { "type": "text", "text": "calling" },
                    { "type": "tool_use", "id": format!("t{i}"), "name": "ls", "input": {} }] }),
                _ => json!({ "role": "user", "turn_id": turn, "content": [
                    { "type": "text", "text": "here" },
                    { "type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": "long output",
                      "compact_summary": "short" }] }),
            }
        });
        let mut messages = parse_messages(&messages.collect(), "messages").unwrap();
        let mut changed = Vec::new();
        let result = ThresholdCompactor::default().compact_prefix(&mut messages, &HashMap::new(), |i, b, own| {
            changed.push((i, b, own));
        });
        let expected: Vec<_> = (0..n).filter(|i| i % 3 == 2).map(|i| (i, 1, true)).collect();
        assert_eq!(changed, expected);
        assert_eq!(result.tool_results_summarized, expected.len());
        for (i, _, _) in expected {
            assert!(messages[i].content[1].to_value()["content"] == "short", "message {i}");
        }
    }

    #[test]
    fn replacement_reads_the_id_only_when_reads_tool_use_id_says_so() {
        let some = HashMap::from([("a".to_owned(), "summary of a".to_owned())]);
        for tool_compaction in [ToolCompaction::Summarize, ToolCompaction::Redact] {
            let compactor =
                ThresholdCompactor::new(CompactionConfig { tool_compaction, ..CompactionConfig::default() }).unwrap();
            for summaries in [HashMap::new(), some.clone()] {
                let reads = compactor.reads_tool_use_id(&summaries);
                assert_eq!(reads, tool_compaction == ToolCompaction::Summarize && !summaries.is_empty());
                for own in [None, Some("own")] {
                    let a = compactor.replacement("a", own, &summaries, |_| false);
                    let b = compactor.replacement("b", own, &summaries, |_| false);
                    assert_eq!(a != b, reads, "{tool_compaction:?} {summaries:?} {own:?}");
                }
            }
        }
    }
}

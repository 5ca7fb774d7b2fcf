//! Making the context fit when the configured compaction was not enough: the
//! escalation a [`ContextManager`](crate::ContextManager) runs after it, each
//! rung mechanical (it cannot fail) and tried only while the context is still
//! over its room:
//!
//! 1. compact the tool results of the old turns that the strategy left: each
//!    becomes its compact summary when it has one, else the redaction notice;
//! 2. shrink the kept window a turn at a time, down to the newest turn,
//!    compacting the tool results of each turn that leaves it the same way;
//! 3. cut the largest tool results of the newest turn down to a maximum, their
//!    head and tail kept around a marker that says how much was cut.

use std::collections::HashMap;

use crate::compaction::config::REDACTION_NOTICE;
use crate::manager::conversation::Conversation;
use crate::model::message::{ContentBlock, Role, ToolResultBlock, ToolResultContent};
use crate::model::tokens::{estimate_text_tokens, estimate_tool_result_tokens};

/// One rung of the escalation, as it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalation {
    /// The tool results of the old turns that the strategy left were compacted.
    Compacted(Compacted),
    /// The kept window shrank to the newest `turns` turns.
    ShrankWindow {
        /// Turns kept now.
        turns: usize,
        /// The tool results compacted in the turns that left the window.
        compacted: Compacted,
    },
    /// The largest tool results of the kept turns were cut down to `max_tokens`.
    Truncated {
        /// How many.
        tool_results: usize,
        /// What each was cut down to, in estimated tokens.
        max_tokens: i64,
    },
}

/// Tool results a rung replaced: by their compact summary, or by the redaction notice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Compacted {
    /// Replaced by their compact summary.
    pub summarized: usize,
    /// Replaced by the redaction notice (they had no summary).
    pub redacted: usize,
}

impl Compacted {
    /// Whether the rung compacted nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl std::fmt::Display for Compacted {
    /// E.g. "2 summarized, 1 redacted".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} summarized, {} redacted", self.summarized, self.redacted)
    }
}

impl Escalation {
    /// The tool results the rung compacted (none for a cut).
    pub fn compacted(&self) -> Compacted {
        match *self {
            Escalation::Compacted(compacted) | Escalation::ShrankWindow { compacted, .. } => compacted,
            Escalation::Truncated { .. } => Compacted::default(),
        }
    }
}

/// Runs the escalation on `conversation` until its estimate is at most `room`:
/// `window` is how many of the newest turns the configured compaction kept, and
/// `max_tool_result_tokens` what rung 3 cuts a tool result down to. Returns the
/// rungs taken, in order.
pub fn fit(
    conversation: &mut Conversation,
    room: i64,
    window: usize,
    summaries: &HashMap<String, String>,
    max_tool_result_tokens: i64,
) -> Vec<Escalation> {
    let mut taken = Vec::new();
    let turns = conversation.turns();
    if conversation.total_tokens() <= room || turns == 0 {
        return taken;
    }
    let mut window = window.clamp(1, turns);
    let compacted = compact_before(conversation, turns - window, summaries);
    if !compacted.is_empty() {
        taken.push(Escalation::Compacted(compacted));
    }
    while conversation.total_tokens() > room && window > 1 {
        window -= 1;
        let compacted = compact_before(conversation, turns - window, summaries);
        taken.push(Escalation::ShrankWindow { turns: window, compacted });
    }
    if conversation.total_tokens() > room {
        let tool_results = truncate_largest(conversation, turns - window, room, max_tool_result_tokens);
        if tool_results > 0 {
            taken.push(Escalation::Truncated { tool_results, max_tokens: max_tool_result_tokens });
        }
    }
    taken
}

/// Compacts the tool results of the first `turns` turns that hold neither the
/// redaction notice nor their summary: to their summary (from `summaries`, else
/// their own), else to the notice.
fn compact_before(conversation: &mut Conversation, turns: usize, summaries: &HashMap<String, String>) -> Compacted {
    let end = conversation.turn_starts().get(turns).copied().unwrap_or(conversation.messages().len());
    conversation.edit(|messages, changed| {
        let mut compacted = Compacted::default();
        for (i, message) in messages[..end].iter_mut().enumerate() {
            if message.role != Role::User {
                continue;
            }
            for (b, block) in message.content.iter_mut().enumerate() {
                let ContentBlock::ToolResult(result) = block else { continue };
                let mapped = summaries.get(&result.tool_use_id);
                let summary = mapped.map(String::as_str).or(result.compact_summary.as_deref());
                if result.content.is_text(REDACTION_NOTICE) || summary.is_some_and(|s| result.content.is_text(s)) {
                    continue;
                }
                match summary {
                    Some(summary) => {
                        result.content = ToolResultContent::Text(summary.to_owned());
                        // Its estimate is cached when the summary is its own.
                        changed(i, b, mapped.is_none());
                        compacted.summarized += 1;
                    }
                    None => {
                        result.content = ToolResultContent::Text(REDACTION_NOTICE.to_owned());
                        changed(i, b, false);
                        compacted.redacted += 1;
                    }
                }
            }
        }
        compacted
    })
}

/// Cuts the largest tool results of the turns after the first `turns` down to
/// `max_tokens`, largest first, until the estimate is at most `room`; returns how many.
fn truncate_largest(conversation: &mut Conversation, turns: usize, room: i64, max_tokens: i64) -> usize {
    let start = conversation.turn_starts().get(turns).copied().unwrap_or(conversation.messages().len());
    // (estimate, message, block) of every tool result over the maximum.
    let mut large: Vec<(i64, usize, usize)> = Vec::new();
    for (i, message) in conversation.messages().iter().enumerate().skip(start) {
        for (b, block) in message.content.iter().enumerate() {
            if let ContentBlock::ToolResult(result) = block {
                let tokens = result_tokens(result);
                if tokens > max_tokens {
                    large.push((tokens, i, b));
                }
            }
        }
    }
    large.sort_by_key(|&(tokens, _, _)| std::cmp::Reverse(tokens));
    let mut cut = 0;
    for (_, i, b) in large {
        if conversation.total_tokens() <= room {
            break;
        }
        conversation.edit(|messages, changed| {
            if let ContentBlock::ToolResult(result) = &mut messages[i].content[b] {
                let text = result.content.text();
                result.content = ToolResultContent::Text(truncate_middle(&text, max_tokens));
                changed(i, b, false);
            }
        });
        cut += 1;
    }
    cut
}

fn result_tokens(result: &ToolResultBlock) -> i64 {
    match &result.content {
        ToolResultContent::Text(text) => estimate_tool_result_tokens(text),
        content => estimate_tool_result_tokens(&content.text()),
    }
}

/// `text` cut down to about `max_tokens` estimated tokens: its head and tail,
/// around a line that says how much of the middle was cut. Text within the
/// maximum is returned as it is.
pub fn truncate_middle(text: &str, max_tokens: i64) -> String {
    let tokens = estimate_text_tokens(text);
    if tokens <= max_tokens {
        return text.to_owned();
    }
    // Bytes per token in this text, to aim the first cut; then tighter until it fits.
    let mut keep = (text.len() as i64 * max_tokens / tokens.max(1)).max(0) as usize;
    loop {
        let (head_end, tail_start) = (floor_boundary(text, keep / 2), ceil_boundary(text, text.len() - keep / 2));
        let (head, cut, tail) = (&text[..head_end], &text[head_end..tail_start], &text[tail_start..]);
        let marker = format!(
            "\n[… {} characters (about {} tokens) cut for context management …]\n",
            cut.chars().count(),
            estimate_text_tokens(cut)
        );
        let out = format!("{head}{marker}{tail}");
        if keep == 0 || estimate_text_tokens(&out) <= max_tokens {
            return out;
        }
        keep = keep * 9 / 10;
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` at or above `i`.
fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::truncate_middle;
    use crate::model::tokens::estimate_text_tokens;

    #[test]
    fn truncate_middle_keeps_head_and_tail_and_says_what_it_cut() {
        let text: String = (0..2_000).map(|i| format!("line {i} of the output, ünïcödé 日本\n")).collect();
        for max in [10, 100, 1_000] {
            let out = truncate_middle(&text, max);
            assert!(estimate_text_tokens(&out) <= max.max(30), "{max}: {}", estimate_text_tokens(&out));
            assert!(out.contains("cut for context management"), "{out}");
            assert!(text.starts_with(out.split("\n[…").next().unwrap()));
            assert!(text.ends_with(out.rsplit("…]\n").next().unwrap()));
        }
        assert_eq!(truncate_middle("short", 10), "short");
    }
}

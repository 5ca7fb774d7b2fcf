//! Making the context fit when the configured compaction was not enough: the
//! escalation a [`ContextManager`](crate::ContextManager) runs after it, each
//! rung mechanical (it cannot fail) and tried only while the context is still
//! over its room:
//!
//! 1. redact the tool results of the old turns that are neither redacted nor
//!    summarized yet;
//! 2. shrink the kept window a turn at a time, down to the newest turn,
//!    redacting the tool results of each turn that leaves it;
//! 3. cut the largest tool results of the newest turn down to a maximum, their
//!    head and tail kept around a marker that says how much was cut.

use std::collections::HashMap;

use crate::config::REDACTION_NOTICE;
use crate::conversation::Conversation;
use crate::message::{ContentBlock, Role, ToolResultBlock, ToolResultContent};
use crate::text::{head, tail};
use crate::tokens::{estimate_text_tokens, estimate_tool_result_tokens};

/// One rung of the escalation, as it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalation {
    /// The tool results of the old turns that the strategy left were redacted.
    Redacted {
        /// How many.
        tool_results: usize,
    },
    /// The kept window shrank to the newest `turns` turns.
    ShrankWindow {
        /// Turns kept now.
        turns: usize,
        /// Tool results redacted in the turns that left the window.
        tool_results: usize,
    },
    /// The largest tool results of the kept turns were cut down to `max_tokens`.
    Truncated {
        /// How many.
        tool_results: usize,
        /// What each was cut down to, in estimated tokens.
        max_tokens: i64,
    },
}

impl Escalation {
    /// The rung's name: `"redact"`, `"shrink"` or `"truncate"`.
    pub fn name(&self) -> &'static str {
        match self {
            Escalation::Redacted { .. } => "redact",
            Escalation::ShrankWindow { .. } => "shrink",
            Escalation::Truncated { .. } => "truncate",
        }
    }

    /// Tool results the rung redacted.
    pub fn redacted(&self) -> usize {
        match *self {
            Escalation::Redacted { tool_results } | Escalation::ShrankWindow { tool_results, .. } => tool_results,
            Escalation::Truncated { .. } => 0,
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
    let tool_results = redact_before(conversation, turns - window, summaries);
    if tool_results > 0 {
        taken.push(Escalation::Redacted { tool_results });
    }
    while conversation.total_tokens() > room && window > 1 {
        window -= 1;
        let tool_results = redact_before(conversation, turns - window, summaries);
        taken.push(Escalation::ShrankWindow { turns: window, tool_results });
    }
    if conversation.total_tokens() > room {
        let tool_results = truncate_largest(conversation, turns - window, room, max_tool_result_tokens);
        if tool_results > 0 {
            taken.push(Escalation::Truncated { tool_results, max_tokens: max_tool_result_tokens });
        }
    }
    taken
}

/// Redacts the tool results of the first `turns` turns that hold neither the
/// redaction notice nor their summary; returns how many.
fn redact_before(conversation: &mut Conversation, turns: usize, summaries: &HashMap<String, String>) -> usize {
    let end = conversation.turn_starts().get(turns).copied().unwrap_or(conversation.messages().len());
    conversation.edit(|messages, changed| {
        let mut redacted = 0;
        for (i, message) in messages[..end].iter_mut().enumerate() {
            if message.role != Role::User {
                continue;
            }
            for (b, block) in message.content.iter_mut().enumerate() {
                let ContentBlock::ToolResult(result) = block else { continue };
                let summary =
                    summaries.get(&result.tool_use_id).map(String::as_str).or(result.compact_summary.as_deref());
                if result.content.is_text(REDACTION_NOTICE) || summary.is_some_and(|s| result.content.is_text(s)) {
                    continue;
                }
                result.content = ToolResultContent::Text(REDACTION_NOTICE.to_owned());
                changed(i, b, false);
                redacted += 1;
            }
        }
        redacted
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
        let (head, tail) = (head(text, head_end), tail(text, tail_start));
        let cut = text.get(head_end..tail_start).unwrap_or_default();
        let marker = format!(
            "\n[… {} characters (about {} tokens) cut for context management …]\n",
            cut.chars().count(),
            estimate_text_tokens(cut)
        );
        let out = [head, &marker, tail].concat();
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
    use crate::tokens::estimate_text_tokens;

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

//! Tool-call pairing: where a conversation may be cut without orphaning a
//! `tool_result` from its `tool_use` or the other way round.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use crate::message::{ContentBlock, Message};

/// The largest cut `c <= limit` such that no tool call and its result lie on
/// different sides of `messages[..c]` / `messages[c..]`. Always exists: 0 is safe.
pub fn safe_cut(conversation: &[Message], limit: usize) -> usize {
    let limit = limit.min(conversation.len());
    // Usually no id before the cut comes back after it: then the cut is safe as it is,
    // found with a map of the few ids after it instead of one of them all.
    let after = spans(&conversation[limit..]);
    if !conversation[..limit].iter().any(|msg| ids(msg).any(|id| after.contains_key(id))) {
        return limit;
    }
    // A cut c splits a pair spanning [a, b] when a < c <= b.
    let mut forbidden = vec![0i32; limit + 2];
    for &(a, b) in spans(conversation).values() {
        if a < b && a < limit {
            forbidden[a + 1] += 1;
            forbidden[b.min(limit) + 1] -= 1;
        }
    }
    let mut depth = 0;
    let mut best = 0;
    for (c, delta) in forbidden.iter().enumerate().take(limit + 1) {
        depth += delta;
        if depth == 0 {
            best = c;
        }
    }
    best
}

/// First and last message index of every id seen as a call or a result.
fn spans(conversation: &[Message]) -> HashMap<&str, (usize, usize), FxBuildHasher> {
    // Sized for calls answered once (two blocks per id), so that it rarely grows.
    let blocks = conversation
        .iter()
        .flat_map(|m| &m.content)
        .filter(|b| matches!(b, ContentBlock::ToolUse(_) | ContentBlock::ToolResult(_)))
        .count();
    let mut span = HashMap::with_capacity_and_hasher(blocks / 2, FxBuildHasher);
    for (i, msg) in conversation.iter().enumerate() {
        for id in ids(msg) {
            span.entry(id).and_modify(|s: &mut (usize, usize)| s.1 = i).or_insert((i, i));
        }
    }
    span
}

/// The ids of a message's tool calls and tool results.
fn ids(message: &Message) -> impl Iterator<Item = &str> {
    message.tool_use_ids().chain(message.tool_result_ids())
}

/// A broken pairing found by [`validate_tool_pairs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingProblem {
    /// Index of the message at fault.
    pub message_index: usize,
    /// The tool call id concerned.
    pub tool_use_id: String,
    /// What is wrong.
    pub problem: &'static str,
}

/// Checks the providers' pairing rule: every `tool_result` answers a `tool_use`
/// of the immediately preceding assistant message, and every `tool_use` is
/// answered in the immediately following message. A `tool_use` in the last
/// message is not a problem: its result has not arrived yet.
pub fn validate_tool_pairs(conversation: &[Message]) -> Vec<PairingProblem> {
    let mut problems = Vec::new();
    let mut problem = |message_index, id: &str, problem| {
        problems.push(PairingProblem { message_index, tool_use_id: id.to_owned(), problem });
    };
    for (i, msg) in conversation.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &conversation[p]);
        for id in msg.tool_result_ids() {
            if !prev.is_some_and(|p| p.tool_use_ids().any(|u| u == id)) {
                problem(i, id, "tool_result without a tool_use in the preceding message");
            }
        }
        let Some(next) = conversation.get(i + 1) else { break };
        for id in msg.tool_use_ids() {
            if !next.tool_result_ids().any(|r| r == id) {
                problem(i, id, "tool_use without a tool_result in the following message");
            }
        }
    }
    problems
}

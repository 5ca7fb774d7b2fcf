//! Tool-call pairing: where a conversation may be cut without orphaning a
//! `tool_result` from its `tool_use` or the other way round.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use crate::model::message::Message;

/// The largest cut `c <= limit` such that no tool call and its result lie on
/// different sides of `messages[..c]` / `messages[c..]`. Always exists: 0 is safe.
///
/// Each tool result is paired with the nearest call of its id before it (or,
/// when there is none, the nearest after it), so that an id a conversation uses
/// more than once (real transcripts do) pairs each call with its own result
/// instead of spanning every use of the id.
pub fn safe_cut(conversation: &[Message], limit: usize) -> usize {
    let limit = limit.min(conversation.len());
    // A cut c splits a pair at messages (a, b), a < b, when a < c <= b.
    let mut forbidden = vec![0i32; limit + 2];
    let mut forbid = |a: usize, b: usize| {
        if a < b && a < limit {
            forbidden[a + 1] += 1;
            forbidden[b.min(limit) + 1] -= 1;
        }
    };
    let mut unpaired = Vec::new();
    let mut last_call: HashMap<&str, usize, FxBuildHasher> = HashMap::default();
    for (i, msg) in conversation.iter().enumerate() {
        for id in msg.tool_result_ids() {
            match last_call.get(id) {
                Some(&call) => forbid(call, i),
                None => unpaired.push((id, i)),
            }
        }
        for id in msg.tool_use_ids() {
            last_call.insert(id, i);
        }
    }
    // Results before any call of their id: paired with the first call after them.
    if !unpaired.is_empty() {
        let mut first_call: HashMap<&str, usize, FxBuildHasher> = HashMap::default();
        for (i, msg) in conversation.iter().enumerate().rev() {
            for id in msg.tool_use_ids() {
                first_call.insert(id, i);
            }
        }
        for (id, result) in unpaired {
            if let Some(&call) = first_call.get(id) {
                forbid(result, call);
            }
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

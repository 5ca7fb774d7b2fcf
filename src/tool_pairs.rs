//! Tool-call pairing: where a conversation may be cut without orphaning a
//! `tool_result` from its `tool_use` or the other way round.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
fn spans(conversation: &[Message]) -> HashMap<&str, (usize, usize), BuildHasherDefault<IdHasher>> {
    // Sized for calls answered once (two blocks per id), so that it rarely grows.
    let blocks = conversation
        .iter()
        .flat_map(|m| &m.content)
        .filter(|b| matches!(b, ContentBlock::ToolUse(_) | ContentBlock::ToolResult(_)))
        .count();
    let mut span = HashMap::with_capacity_and_hasher(blocks / 2, BuildHasherDefault::<IdHasher>::default());
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

/// FxHash (rustc's hasher), for [`safe_cut`]'s map: a few instructions per
/// 8 bytes where SipHash took a sixth of an LLM compaction's overhead. Not
/// keyed; neither is std's SipHash on wasm32-unknown-unknown, which has no
/// randomness for it.
#[derive(Default)]
struct IdHasher(u64);

impl IdHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        }
        let mut last = [0; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        self.add(u64::from_le_bytes(last));
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(byte.into());
    }

    /// The multiply leaves the entropy in the high bits; hashbrown indexes by the low ones.
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
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
    for (i, msg) in conversation.iter().enumerate() {
        let prev: Vec<&str> = if i > 0 { conversation[i - 1].tool_use_ids().collect() } else { Vec::new() };
        for id in msg.tool_result_ids() {
            if !prev.contains(&id) {
                problems.push(PairingProblem {
                    message_index: i,
                    tool_use_id: id.to_owned(),
                    problem: "tool_result without a tool_use in the preceding message",
                });
            }
        }
        let Some(next) = conversation.get(i + 1) else { break };
        let next: Vec<&str> = next.tool_result_ids().collect();
        for id in msg.tool_use_ids() {
            if !next.contains(&id) {
                problems.push(PairingProblem {
                    message_index: i,
                    tool_use_id: id.to_owned(),
                    problem: "tool_use without a tool_result in the following message",
                });
            }
        }
    }
    problems
}

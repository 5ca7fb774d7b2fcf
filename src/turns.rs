//! Turns: runs of consecutive messages that share a turn id.

use crate::message::{Message, TurnId};

/// The specification's step 1: the turn ids in order, one per run of
/// consecutive messages with the same id (an id can come back later).
pub fn extract_turn_ids(conversation: &[Message]) -> Vec<TurnId> {
    let mut turn_ids: Vec<TurnId> = Vec::new();
    for msg in conversation {
        if turn_ids.last() != Some(msg.turn_id()) {
            turn_ids.push(msg.turn_id().clone());
        }
    }
    turn_ids
}

/// Where the old turns end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OldTurns {
    /// Number of leading messages that belong to old turns.
    pub messages: usize,
    /// Number of old turns (runs) among them.
    pub turns: usize,
}

/// Splits a conversation into old turns and the last `keep_recent_turns` turns.
///
/// The old part is a prefix: unlike the specification, which tests membership in
/// the set of old turn ids, a turn id that comes back among the recent turns
/// keeps those recent messages intact. Returns `None` when there is nothing old.
pub fn old_turns(conversation: &[Message], keep_recent_turns: usize) -> Option<OldTurns> {
    old_turns_by(conversation.len(), |i| !starts_turn(conversation, i), keep_recent_turns)
}

/// [`old_turns`] for messages held elsewhere (e.g. a JS array): `len` messages,
/// `continues(i)` telling whether message `i` (≥ 1) has the turn id of message `i - 1`.
pub fn old_turns_by(len: usize, continues: impl Fn(usize) -> bool, keep_recent_turns: usize) -> Option<OldTurns> {
    let mut runs = 0usize;
    let mut boundary = len;
    // Walk backwards to find where the `keep_recent_turns`-th most recent run starts.
    for i in (0..len).rev() {
        if i == 0 || !continues(i) {
            runs += 1;
            if runs == keep_recent_turns {
                boundary = i;
            }
        }
    }
    (runs > keep_recent_turns).then(|| OldTurns { messages: boundary, turns: runs - keep_recent_turns })
}

/// Where each turn (run) starts: the index of its first message.
pub fn turn_starts(conversation: &[Message]) -> Vec<usize> {
    let mut starts = Vec::new();
    for i in 0..conversation.len() {
        if starts_turn(conversation, i) {
            starts.push(i);
        }
    }
    starts
}

/// [`old_turns`] from the [`turn_starts`] of a conversation of `len` messages.
pub fn old_turns_from_starts(starts: &[usize], len: usize, keep_recent_turns: usize) -> Option<OldTurns> {
    let turns = starts.len().checked_sub(keep_recent_turns).filter(|&t| t > 0)?;
    Some(OldTurns { messages: starts.get(turns).copied().unwrap_or(len), turns })
}

/// Number of turns (runs) in a conversation.
pub fn count_turns(conversation: &[Message]) -> usize {
    (0..conversation.len()).filter(|&i| starts_turn(conversation, i)).count()
}

/// Whether message `i` starts a turn: it is the first, or its turn id differs from the previous one's.
fn starts_turn(conversation: &[Message], i: usize) -> bool {
    i == 0 || conversation[i - 1].turn_id != conversation[i].turn_id
}

#[cfg(test)]
mod tests {
    use super::{old_turns, old_turns_from_starts, turn_starts};
    use crate::message::{Message, TurnId};

    #[test]
    fn old_turns_from_starts_agrees_with_old_turns() {
        // Turn ids as (owner, number); an id may come back later.
        let shapes: [&[(&str, i64)]; 5] = [
            &[],
            &[("u", 1)],
            &[("u", 1), ("a", 1), ("a", 1), ("u", 2), ("a", 2)],
            &[("u", 1), ("u", 1), ("a", 1), ("u", 1), ("a", 1), ("a", 1)],
            &[("a", 1), ("a", 1), ("a", 1)],
        ];
        for shape in shapes {
            let messages: Vec<Message> =
                shape.iter().map(|&(owner, number)| Message::user_text("x", 0, TurnId::new(owner, number))).collect();
            let starts = turn_starts(&messages);
            for keep in 0..6 {
                assert_eq!(
                    old_turns_from_starts(&starts, messages.len(), keep),
                    old_turns(&messages, keep),
                    "{shape:?} keep {keep}"
                );
            }
        }
    }
}

//! Turns: runs of consecutive messages that share a turn id, and the step rule
//! that gives messages their turn ids when the caller does not.

use crate::compaction::config::Keep;
use crate::model::message::{ContentBlock, Message, Role, TurnId};
use crate::model::tokens::estimate_message_tokens;

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

/// The step rule: one turn per model step. A step is one assistant message plus
/// the messages that only answer its tool calls, so a tool call and its result
/// always share a turn, and an agent's tool loop is a turn per model call:
///
/// ```text
/// user      "Fix the failing test"          u1
/// assistant tool_use ls                     a1 ┐ step
/// user      tool_result (ls)                a1 ┘
/// assistant tool_use cat                    a2 ┐ step
/// user      tool_result (cat)               a2 ┘
/// assistant "Done: the test passes"         a3
/// ```
///
/// - An assistant message starts a new turn `a<k>`.
/// - A user message that holds only tool results, or a tool result answering a
///   call of the current turn, joins the current turn (an empty one does too).
/// - Any other user message (text, images, …) starts a new turn `u<k>`.
///
/// The numbers go up from the largest seen for each owner, so an assigned id
/// never repeats one the conversation holds. The rule looks only at the messages
/// before the one it places: a conversation and any prefix of it get the same turns.
#[derive(Debug, Clone, Default)]
pub struct StepRule {
    next_user: i64,
    next_assistant: i64,
}

impl StepRule {
    /// A rule that continues after the turn ids of `messages`.
    pub fn after(messages: &[Message]) -> Self {
        let mut rule = Self::default();
        for message in messages {
            rule.observe(&message.turn_id);
        }
        rule
    }

    /// Notes a turn id the conversation holds, so that no assigned id repeats it.
    pub fn observe(&mut self, turn_id: &TurnId) {
        let next = turn_id.number.saturating_add(1);
        match turn_id.owner.as_str() {
            "u" => self.next_user = self.next_user.max(next),
            "a" => self.next_assistant = self.next_assistant.max(next),
            _ => {}
        }
    }

    /// The turn id of `message`, appended after `current`: the messages of the
    /// conversation's last turn (empty for the first message).
    pub fn assign(&mut self, current: &[Message], message: &Message) -> TurnId {
        let id = match current.last() {
            Some(last) if joins(current, message) => last.turn_id.clone(),
            _ => match message.role {
                Role::Assistant => TurnId::new("a", self.next_assistant.max(1)),
                Role::User => TurnId::new("u", self.next_user.max(1)),
            },
        };
        self.observe(&id);
        id
    }

    /// Gives every message of `messages` its turn id by the rule.
    pub fn assign_all(&mut self, messages: &mut [Message]) {
        self.assign_where(messages, |_| true);
    }

    /// Gives the messages of `messages` that have none (`given[i]` false) a turn
    /// id by the rule; the others keep theirs, and no assigned id repeats one of them.
    pub fn assign_missing(messages: &mut [Message], given: &[bool]) {
        if given.iter().all(|&g| g) {
            return;
        }
        let mut rule = Self::default();
        for (message, _) in messages.iter().zip(given).filter(|(_, &g)| g) {
            rule.observe(&message.turn_id);
        }
        rule.assign_where(messages, |i| !given[i]);
    }

    fn assign_where(&mut self, messages: &mut [Message], assign: impl Fn(usize) -> bool) {
        let mut start = 0;
        for i in 0..messages.len() {
            let (before, rest) = messages.split_at_mut(i);
            let id = if assign(i) { self.assign(&before[start..], &rest[0]) } else { rest[0].turn_id.clone() };
            if before.last().is_none_or(|last| last.turn_id != id) {
                start = i;
            }
            rest[0].turn_id = id;
        }
    }
}

/// Whether user message `message` joins the turn whose messages are `current`.
fn joins(current: &[Message], message: &Message) -> bool {
    if message.role != Role::User {
        return false;
    }
    let only_results = message.content.iter().all(|b| matches!(b, ContentBlock::ToolResult(_)));
    only_results || message.tool_result_ids().any(|id| current.iter().any(|m| m.tool_use_ids().any(|call| call == id)))
}

/// Where the old turns end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OldTurns {
    /// Number of leading messages that belong to old turns.
    pub messages: usize,
    /// Number of old turns (runs) among them.
    pub turns: usize,
}

/// Splits a conversation into old turns and the recent ones that `keep` leaves
/// intact.
///
/// The old part is a prefix: unlike the specification, which tests membership in
/// the set of old turn ids, a turn id that comes back among the recent turns
/// keeps those recent messages intact. Returns `None` when there is nothing old.
pub fn old_turns(conversation: &[Message], keep: Keep) -> Option<OldTurns> {
    old_turns_in(&turn_starts(conversation), conversation.len(), keep, |i| estimate_message_tokens(&conversation[i]))
}

/// [`old_turns`] from the [`turn_starts`] of a conversation of `len` messages,
/// `tokens(i)` giving message `i`'s estimate (read only for [`Keep::Tokens`],
/// and only for the recent turns it walks).
pub fn old_turns_in(starts: &[usize], len: usize, keep: Keep, tokens: impl FnMut(usize) -> i64) -> Option<OldTurns> {
    old_turns_from_starts(starts, len, kept_turns(starts, len, keep, tokens))
}

/// How many of the last turns `keep` leaves intact: for [`Keep::Tokens`], the
/// newest turns whose estimates fit in the budget, never fewer than one.
pub fn kept_turns(starts: &[usize], len: usize, keep: Keep, mut tokens: impl FnMut(usize) -> i64) -> usize {
    let budget = match keep {
        Keep::Turns(n) => return n,
        Keep::Tokens(budget) => budget,
    };
    let (mut kept, mut sum, mut end) = (0, 0i64, len);
    for &start in starts.iter().rev() {
        sum += (start..end).map(&mut tokens).sum::<i64>();
        if kept > 0 && sum > budget {
            break;
        }
        kept += 1;
        end = start;
    }
    kept
}

/// [`old_turns`] for messages held elsewhere (e.g. a JS array): `len` messages,
/// `continues(i)` telling whether message `i` (≥ 1) has the turn id of message `i - 1`.
pub fn starts_by(len: usize, continues: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut starts = Vec::with_capacity(len);
    for i in 0..len {
        if i == 0 || !continues(i) {
            starts.push(i);
        }
    }
    starts
}

/// [`old_turns_from_starts`] of [`starts_by`]`(len, continues)`, without the
/// starts: where the old part ends (0 when nothing is old), found by walking
/// back from the newest message only as far as the kept turns go.
pub fn old_end_by(len: usize, continues: impl Fn(usize) -> bool, keep_recent_turns: usize) -> usize {
    if keep_recent_turns == 0 {
        return len;
    }
    let mut starts = 0;
    for i in (1..len).rev() {
        if !continues(i) {
            starts += 1;
            if starts == keep_recent_turns {
                return i;
            }
        }
    }
    0
}

/// Where each turn (run) starts: the index of its first message.
pub fn turn_starts(conversation: &[Message]) -> Vec<usize> {
    starts_by(conversation.len(), |i| conversation[i - 1].turn_id == conversation[i].turn_id)
}

/// The old part when the last `keep_recent_turns` of the turns starting at
/// `starts` are kept, in a conversation of `len` messages.
pub fn old_turns_from_starts(starts: &[usize], len: usize, keep_recent_turns: usize) -> Option<OldTurns> {
    let turns = starts.len().checked_sub(keep_recent_turns).filter(|&t| t > 0)?;
    Some(OldTurns { messages: starts.get(turns).copied().unwrap_or(len), turns })
}

/// Number of turns (runs) in a conversation.
pub fn count_turns(conversation: &[Message]) -> usize {
    turn_starts(conversation).len()
}

#[cfg(test)]
mod tests {
    use super::{kept_turns, old_end_by, old_turns_from_starts, starts_by, StepRule};
    use crate::compaction::config::Keep;
    use crate::model::message::{Message, Role, TurnId};

    #[test]
    fn kept_turns_by_tokens_keeps_whole_turns_and_at_least_one() {
        // Turns of 3, 2 and 4 messages, each message 10 tokens.
        let starts = [0, 3, 5];
        let kept = |budget| kept_turns(&starts, 9, Keep::Tokens(budget), |_| 10);
        assert_eq!(kept(0), 1, "never fewer than one turn");
        assert_eq!(kept(39), 1);
        assert_eq!(kept(40), 1);
        assert_eq!(kept(59), 1);
        assert_eq!(kept(60), 2);
        assert_eq!(kept(90), 3);
        assert_eq!(kept(1_000), 3);
        assert_eq!(kept_turns(&starts, 9, Keep::Turns(2), |_| unreachable!()), 2);
        assert_eq!(old_turns_from_starts(&starts, 9, kept(60)).map(|o| (o.messages, o.turns)), Some((3, 1)));
    }

    #[test]
    fn old_end_by_is_where_old_turns_from_starts_ends() {
        // Every pattern of turn continuity over up to 10 messages, every number of kept turns.
        for len in 0..=10usize {
            for pattern in 0..1u32 << len {
                let continues = |i: usize| pattern >> i & 1 == 1;
                let starts = starts_by(len, continues);
                for keep in 0..=len + 1 {
                    let expected = old_turns_from_starts(&starts, len, keep).map_or(0, |old| old.messages);
                    assert_eq!(
                        old_end_by(len, continues, keep),
                        expected,
                        "len {len}, pattern {pattern:b}, keep {keep}"
                    );
                }
            }
        }
    }

    #[test]
    fn observed_ids_are_never_assigned_again() {
        let mut rule = StepRule::default();
        rule.observe(&TurnId::new("a", 7));
        rule.observe(&TurnId::new("x", 99));
        let message = Message::user_text("hi", 0, TurnId::new("", 0));
        let mut assistant = message.clone();
        assistant.role = Role::Assistant;
        assert_eq!(rule.assign(&[], &assistant), TurnId::new("a", 8));
        assert_eq!(rule.assign(&[], &message), TurnId::new("u", 1));
        assert_eq!(rule.assign(&[], &message), TurnId::new("u", 2));
    }
}

//! A conversation held by a [`ContextManager`](crate::ContextManager): the
//! messages plus a cached token estimate for each, so totals cost O(1), and
//! their cached wire JSON, so request bodies rewrite only what changed.

use crate::message::Message;
use crate::request_body::{BodyRequest, WireCache};
use crate::tokens::estimate_message_tokens;
use crate::turns::{old_turns_from_starts, turn_starts, OldTurns};

/// Messages with their cached token estimates, turn boundaries and wire JSON.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    messages: Vec<Message>,
    tokens: Vec<i64>,
    total_tokens: i64,
    /// Index of each turn's first message.
    turn_starts: Vec<usize>,
    version: u64,
    wire: WireCache,
}

impl Conversation {
    /// The messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Estimated tokens of the whole conversation.
    pub fn total_tokens(&self) -> i64 {
        self.total_tokens
    }

    /// Estimated tokens of the first `n` messages.
    pub fn prefix_tokens(&self, n: usize) -> i64 {
        self.tokens[..n].iter().sum()
    }

    /// Number of turns (runs of one turn id).
    pub fn turns(&self) -> usize {
        self.turn_starts.len()
    }

    /// [`old_turns`](crate::turns::old_turns) of the messages, without walking them.
    pub fn old_turns(&self, keep_recent_turns: usize) -> Option<OldTurns> {
        old_turns_from_starts(&self.turn_starts, self.messages.len(), keep_recent_turns)
    }

    /// Changes whenever the messages change (to tell when a token count is stale).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Appends one message.
    pub fn push(&mut self, message: Message) {
        self.version += 1;
        if self.messages.last().is_none_or(|last| last.turn_id != message.turn_id) {
            self.turn_starts.push(self.messages.len());
        }
        let tokens = estimate_message_tokens(&message);
        self.total_tokens += tokens;
        self.tokens.push(tokens);
        self.messages.push(message);
        self.wire.pushed();
    }

    /// Appends several messages.
    pub fn extend(&mut self, messages: impl IntoIterator<Item = Message>) {
        for message in messages {
            self.push(message);
        }
    }

    /// Edits the messages in place; `edit` reports each index it changed so
    /// that its estimate is refreshed.
    pub fn edit<R>(&mut self, edit: impl FnOnce(&mut [Message], &mut dyn FnMut(usize)) -> R) -> R {
        self.version += 1;
        let mut changed = Vec::new();
        let result = edit(&mut self.messages, &mut |i| changed.push(i));
        for i in changed {
            let tokens = estimate_message_tokens(&self.messages[i]);
            self.total_tokens += tokens - self.tokens[i];
            self.tokens[i] = tokens;
            self.wire.changed(i);
        }
        result
    }

    /// Replaces the first `n` messages with `message`.
    pub fn replace_prefix(&mut self, n: usize, message: Message) {
        self.version += 1;
        let tokens = estimate_message_tokens(&message);
        self.messages.splice(..n, [message]);
        self.tokens.splice(..n, [tokens]);
        self.wire.replaced_prefix(n);
        self.total_tokens = self.tokens.iter().sum();
        self.turn_starts = turn_starts(&self.messages);
    }

    /// The provider request body for the conversation as it is (see [`WireCache`]).
    pub fn request_body(&mut self, request: &BodyRequest) -> &[u8] {
        self.wire.body(&self.messages, self.version, request)
    }
}

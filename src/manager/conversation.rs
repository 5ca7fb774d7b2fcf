//! A conversation held by a [`ContextManager`](crate::ContextManager): the
//! messages plus a cached token estimate for each message and block, so totals
//! cost O(1) and a compacted tool result is re-counted without reading text,
//! and their cached wire JSON, so request bodies rewrite only what changed.

use crate::compaction::config::Keep;
use crate::compaction::config::REDACTION_NOTICE;
use crate::compaction::turns::{old_turns_in, turn_starts, OldTurns, StepRule};
use crate::formats::Dropped;
use crate::manager::request_body::{BodyRequest, WireCache};
use crate::model::message::{ContentBlock, Message};
use crate::model::tokens::{estimate_block_tokens, estimate_tool_result_tokens, MESSAGE_OVERHEAD};

/// Messages with their cached token estimates, turn boundaries and wire JSON.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    messages: Vec<Message>,
    tokens: Vec<i64>,
    total_tokens: i64,
    /// Every message's blocks, in order.
    blocks: Vec<BlockTokens>,
    /// Index in `blocks` of each message's first block.
    first_block: Vec<usize>,
    /// Index of each turn's first message.
    turn_starts: Vec<usize>,
    /// Tool result blocks held: with none, a threshold compaction has nothing to read.
    tool_results: usize,
    /// Gives pushed messages without a turn id theirs.
    rule: StepRule,
    version: u64,
    /// Messages pushed so far (compaction does not lower it).
    pushed: u64,
    wire: WireCache,
}

/// The estimates of one content block.
#[derive(Debug, Clone, Copy)]
struct BlockTokens {
    /// The block as it is.
    now: i64,
    /// A tool result with its `compact_summary` as content (what threshold
    /// compaction usually writes); 0 for other blocks.
    summarized: i64,
}

impl BlockTokens {
    fn of(block: &ContentBlock) -> Self {
        let summarized = match block {
            ContentBlock::ToolResult(r) => r.compact_summary.as_deref().map_or(0, estimate_tool_result_tokens),
            _ => 0,
        };
        Self { now: estimate_block_tokens(block), summarized }
    }
}

/// How many tool result blocks `message` holds.
fn tool_results(message: &Message) -> usize {
    message.content.iter().filter(|b| matches!(b, ContentBlock::ToolResult(_))).count()
}

/// A message's estimate from its blocks' (as [`crate::model::tokens::estimate_message_tokens`] adds them up).
fn message_tokens(blocks: &[BlockTokens]) -> i64 {
    MESSAGE_OVERHEAD + blocks.iter().map(|b| b.now).sum::<i64>()
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

    /// Whether any message holds a tool result block.
    pub fn holds_tool_results(&self) -> bool {
        self.tool_results > 0
    }

    /// Estimated tokens of the first `n` messages.
    pub fn prefix_tokens(&self, n: usize) -> i64 {
        self.tokens[..n].iter().sum()
    }

    /// Number of turns (runs of one turn id).
    pub fn turns(&self) -> usize {
        self.turn_starts.len()
    }

    /// Index of each turn's first message.
    pub fn turn_starts(&self) -> &[usize] {
        &self.turn_starts
    }

    /// Estimated tokens of message `i`.
    pub fn message_tokens(&self, i: usize) -> i64 {
        self.tokens[i]
    }

    /// [`old_turns`](crate::compaction::turns::old_turns) of the messages, from the cached
    /// turn starts and estimates.
    pub fn old_turns(&self, keep: Keep) -> Option<OldTurns> {
        old_turns_in(&self.turn_starts, self.messages.len(), keep, |i| self.tokens[i])
    }

    /// How many messages were ever pushed: grows with the conversation, and
    /// only then (a compaction leaves it as it is).
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Changes whenever the messages change (to tell when a token count is stale).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Appends one message, with its own turn id.
    pub fn push(&mut self, message: Message) {
        self.rule.observe(&message.turn_id);
        self.version += 1;
        self.pushed += 1;
        if self.messages.last().is_none_or(|last| last.turn_id != message.turn_id) {
            self.turn_starts.push(self.messages.len());
        }
        self.first_block.push(self.blocks.len());
        let start = self.blocks.len();
        self.blocks.extend(message.content.iter().map(BlockTokens::of));
        let tokens = message_tokens(&self.blocks[start..]);
        self.total_tokens += tokens;
        self.tokens.push(tokens);
        self.tool_results += tool_results(&message);
        self.messages.push(message);
        self.wire.pushed();
    }

    /// Appends one message with the turn id the [`StepRule`] gives it.
    pub fn push_step(&mut self, mut message: Message) {
        let current = self.turn_starts.last().map_or(&[][..], |&start| &self.messages[start..]);
        message.turn_id = self.rule.assign(current, &message);
        self.push(message);
    }

    /// Appends several messages, with their own turn ids.
    pub fn extend(&mut self, messages: impl IntoIterator<Item = Message>) {
        for message in messages {
            self.push(message);
        }
    }

    /// Edits the messages' blocks in place; `edit` reports each block it
    /// changed, as (message index, block index, whether it is now a tool result
    /// holding its own `compact_summary`), so that its estimate is refreshed.
    /// The blocks of a message must stay where they were, each of its kind.
    pub fn edit<R>(&mut self, edit: impl FnOnce(&mut [Message], &mut dyn FnMut(usize, usize, bool)) -> R) -> R {
        let mut changed = Vec::new();
        let result = edit(&mut self.messages, &mut |i, b, summarized| changed.push((i, b, summarized)));
        if !changed.is_empty() {
            self.version += 1;
        }
        let mut notice = None;
        for (i, b, summarized) in changed {
            let cached = &mut self.blocks[self.first_block[i] + b];
            let tokens = match &self.messages[i].content[b] {
                _ if summarized => cached.summarized,
                ContentBlock::ToolResult(r) if r.content.is_text(REDACTION_NOTICE) => {
                    *notice.get_or_insert_with(|| estimate_tool_result_tokens(REDACTION_NOTICE))
                }
                block => estimate_block_tokens(block),
            };
            self.tokens[i] += tokens - cached.now;
            self.total_tokens += tokens - cached.now;
            cached.now = tokens;
            self.wire.changed(i);
        }
        result
    }

    /// Replaces the first `n` messages with `messages`.
    pub fn replace_prefix(&mut self, n: usize, messages: Vec<Message>) {
        self.version += 1;
        let cut = self.first_block.get(n).copied().unwrap_or(self.blocks.len());
        let mut blocks = Vec::new();
        let mut first_block = Vec::with_capacity(messages.len());
        let mut tokens = Vec::with_capacity(messages.len());
        for message in &messages {
            first_block.push(blocks.len());
            let start = blocks.len();
            blocks.extend(message.content.iter().map(BlockTokens::of));
            tokens.push(message_tokens(&blocks[start..]));
        }
        let added = blocks.len();
        self.blocks.splice(..cut, blocks);
        self.first_block[n..].iter_mut().for_each(|first| *first = *first + added - cut);
        self.first_block.splice(..n, first_block);
        self.wire.replaced_prefix(n, messages.len());
        self.tokens.splice(..n, tokens);
        self.tool_results -= self.messages[..n].iter().map(tool_results).sum::<usize>();
        self.tool_results += messages.iter().map(tool_results).sum::<usize>();
        self.messages.splice(..n, messages);
        self.total_tokens = self.tokens.iter().sum();
        self.turn_starts = turn_starts(&self.messages);
    }

    /// The provider request body for the conversation as it is (see [`WireCache`]);
    /// the blocks left out of the messages it wrote go to `dropped`.
    pub fn request_body(&mut self, request: &BodyRequest, dropped: &mut Vec<Dropped>) -> &[u8] {
        self.wire.body(&self.messages, self.version, request, dropped)
    }
}

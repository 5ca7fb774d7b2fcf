//! A conversation kept under its context limit: the specification's
//! `maybe_compact` / `force_compact`, hardened.
//!
//! The manager is a synchronous state machine so that it can be driven from any
//! async world without holding a borrow across an `await`:
//! [`ContextManager::begin`] decides and, for LLM compaction, hands out a
//! [`SummaryJob`]; the caller runs the summarizer; [`ContextManager::complete`]
//! applies the answer. Messages pushed in between are kept, after the summary.

use std::collections::HashMap;
use std::fmt;

use web_time::Instant;

use crate::compaction::config::{exceeds_threshold, CompactionConfig, CompactorType, Keep, LLMCompactorConfig};
use crate::compaction::llm;
use crate::compaction::result::CompactionResult;
use crate::compaction::threshold::ThresholdCompactor;
use crate::compaction::turns::{kept_turns, old_turns_from_starts};
use crate::error::{CompactionError, InputError, LlmError};
use crate::formats::Dropped;
use crate::manager::conversation::Conversation;
use crate::manager::fit::{fit, Escalation};
use crate::manager::request_body::BodyRequest;
use crate::model::message::Message;
use crate::summarizer::{summarize_with_timeout, Summarizer, SummaryRequest};

/// How a [`ContextManager`] is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextManagerConfig {
    /// The model's context window, in tokens.
    pub context_limit: i64,
    /// The strategy.
    pub compactor: CompactorType,
    /// For LLM compaction: threshold compaction to run when the LLM fails.
    pub fallback: Option<CompactionConfig>,
    /// Tokens kept free for the reply: a compaction makes the context fit in
    /// `context_limit - reserve_tokens` (its room) whenever it can.
    pub reserve_tokens: i64,
    /// What the last rung of the escalation (see [`crate::manager::fit`]) cuts a tool
    /// result of the newest turn down to; `None`: a quarter of the room.
    pub max_tool_result_tokens: Option<i64>,
}

impl ContextManagerConfig {
    /// A configuration with the given limit and strategy, no fallback, no
    /// reserve and the default maximum for cut tool results.
    pub fn new(context_limit: i64, compactor: CompactorType) -> Self {
        Self { context_limit, compactor, fallback: None, reserve_tokens: 0, max_tool_result_tokens: None }
    }

    /// Checks the configuration: a limit of at least one token, a reserve
    /// smaller than it, a maximum for cut tool results of at least one token,
    /// and the compactors' own checks (their `validate`).
    pub fn validate(&self) -> Result<(), InputError> {
        if self.context_limit < 1 {
            return Err(InputError::new(
                "context_limit",
                format!("expected 1 or more tokens, got {}", self.context_limit),
            ));
        }
        if !(0..self.context_limit).contains(&self.reserve_tokens) {
            let message = format!(
                "expected 0 to {} tokens (less than context_limit), got {}",
                self.context_limit - 1,
                self.reserve_tokens
            );
            return Err(InputError::new("reserve_tokens", message));
        }
        if let Some(n) = self.max_tool_result_tokens.filter(|&n| n < 1) {
            return Err(InputError::new("max_tool_result_tokens", format!("expected 1 or more tokens, got {n}")));
        }
        self.compactor.validate("compactor")?;
        match &self.fallback {
            Some(fallback) => fallback.validate("fallback"),
            None => Ok(()),
        }
    }

    /// The room: the context limit less the reserve.
    pub fn room(&self) -> i64 {
        self.context_limit - self.reserve_tokens
    }

    /// What a tool result is cut down to when nothing else makes the context fit.
    pub fn max_tool_result_tokens(&self) -> i64 {
        self.max_tool_result_tokens.unwrap_or(self.room() / 4).max(1)
    }
}

/// Which strategy produced an [`Outcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Tool results summarized or redacted.
    Threshold,
    /// Old turns replaced by an LLM summary.
    Llm,
}

/// What one compaction did, for the caller and for logs.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The strategy that changed the conversation (the fallback's, if it ran).
    pub strategy: Strategy,
    /// The specification's counts.
    pub result: CompactionResult,
    /// Context used before, in tokens (the provider's figure when fresh).
    pub tokens_before: i64,
    /// Estimated context used after.
    pub tokens_after: i64,
    /// Messages before and after.
    pub messages_before: usize,
    /// Messages after.
    pub messages_after: usize,
    /// Wall time, in milliseconds, summarizer included.
    pub duration_ms: f64,
    /// Length of the LLM summary, in characters.
    pub summary_length: Option<usize>,
    /// Why the LLM compaction failed, if it did.
    pub error: Option<CompactionError>,
    /// Whether the threshold fallback ran because the LLM failed.
    pub fallback: bool,
    /// Whether the context is now at or below the threshold.
    pub below_threshold: bool,
    /// Whether the context now fits in its room (`context_limit - reserve_tokens`).
    pub fits: bool,
    /// What was done beyond the configured strategy to make it fit, in order.
    pub escalation: Vec<Escalation>,
    /// LLM: user messages kept verbatim after the summary.
    pub kept_user_messages: usize,
    /// Threshold compaction had old turns to compact but the conversation holds
    /// no tool result (tool output arriving as text: only an LLM compaction can shrink it).
    pub no_tool_results: bool,
}

impl fmt::Display for Outcome {
    /// The specification's log lines, with the counts in words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(error) = &self.error {
            write!(f, "LLM compaction failed: {error}")?;
            if self.fallback {
                write!(f, "; fallback compaction result: {}", self.result)?;
            }
            return Ok(());
        }
        match self.strategy {
            Strategy::Threshold => write!(f, "Compaction result: {}", self.result)?,
            Strategy::Llm => write!(f, "LLM compaction result: {}", self.result)?,
        }
        for rung in &self.escalation {
            match *rung {
                Escalation::Compacted(compacted) => write!(f, "; then old tool results {compacted}")?,
                Escalation::ShrankWindow { turns, compacted } if compacted.is_empty() => {
                    write!(f, "; then the kept window shrunk to {} {}", turns, plural(turns, "turn"))?
                }
                Escalation::ShrankWindow { turns, compacted } => write!(
                    f,
                    "; then the kept window shrunk to {} {} (tool results {compacted})",
                    turns,
                    plural(turns, "turn")
                )?,
                Escalation::Truncated { tool_results, max_tokens } => write!(
                    f,
                    "; then {} {} cut to {max_tokens} tokens",
                    tool_results,
                    plural(tool_results, "tool result")
                )?,
            }
        }
        if !self.fits {
            write!(f, "; the context still does not fit ({} tokens)", self.tokens_after)?;
        }
        Ok(())
    }
}

/// A summarizer call handed out by [`ContextManager::begin`].
#[derive(Debug, Clone)]
pub struct SummaryJob {
    /// Identifies the job to [`ContextManager::complete`].
    pub id: u64,
    /// What to send to the summarizer.
    pub request: SummaryRequest,
    /// How long the summarizer may take.
    pub timeout: std::time::Duration,
}

/// What [`ContextManager::begin`] decided.
#[derive(Debug)]
pub enum Step {
    /// Below the threshold, or nothing new to try: nothing to do.
    Idle,
    /// A compaction is already waiting for its summary: share it.
    Busy,
    /// Done synchronously.
    Done(Outcome),
    /// Run the summarizer, then call [`ContextManager::complete`].
    Summarize(SummaryJob),
}

/// The provider's input-token count and what the conversation held then.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reported {
    pub(super) tokens: i64,
    pub(super) estimate_then: i64,
}

#[derive(Debug)]
struct Pending {
    id: u64,
    plan: llm::LlmPlan,
    /// The window shrunk before the summary, if it was.
    shrunk: Option<Escalation>,
    tokens_before: i64,
    messages_before: usize,
    started: Instant,
}

/// A conversation, its context figures and its compaction policy.
#[derive(Debug)]
pub struct ContextManager {
    config: ContextManagerConfig,
    conversation: Conversation,
    pub(super) summaries: HashMap<String, String>,
    pub(super) reported: Option<Reported>,
    /// An exact count from the user's counter, and the conversation version it is for.
    counted: Option<(u64, i64)>,
    pending: Option<Pending>,
    next_job: u64,
    /// [`Conversation::pushed`] when the last compaction failed, or left the
    /// context above the threshold or over its room: not retried until the
    /// conversation grows.
    stuck_at: Option<u64>,
}

impl ContextManager {
    /// An empty context, its configuration checked ([`ContextManagerConfig::validate`]).
    pub fn new(config: ContextManagerConfig) -> Result<Self, InputError> {
        config.validate()?;
        Ok(Self {
            config,
            conversation: Conversation::default(),
            summaries: HashMap::new(),
            reported: None,
            counted: None,
            pending: None,
            next_job: 1,
            stuck_at: None,
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &ContextManagerConfig {
        &self.config
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        self.conversation.messages()
    }

    /// The stored compact summaries, by `tool_use_id`.
    pub fn compact_summaries(&self) -> &HashMap<String, String> {
        &self.summaries
    }

    /// Appends a message with its own turn id.
    pub fn push(&mut self, message: Message) {
        self.conversation.push(message);
    }

    /// Appends messages with their own turn ids.
    pub fn push_many(&mut self, messages: impl IntoIterator<Item = Message>) {
        self.conversation.extend(messages);
    }

    /// Appends a message in the turn the step rule gives it (see
    /// [`StepRule`](crate::compaction::turns::StepRule)); its own `turn_id` is replaced.
    pub fn push_step(&mut self, message: Message) {
        self.conversation.push_step(message);
    }

    /// The request body for the provider (UTF-8 JSON): `request`'s fields and
    /// the conversation in its wire format. Each message is written once and
    /// again only when compaction changes it; an unchanged conversation and
    /// request give the same bytes back without work.
    pub fn request_body(&mut self, request: &BodyRequest) -> &[u8] {
        self.request_body_with_dropped(request).0
    }

    /// [`ContextManager::request_body`], and the blocks the format has no equivalent
    /// for, left out of the messages written this time (as by the `to_*` writers;
    /// a message copied unchanged from the last body was reported when it was written).
    pub fn request_body_with_dropped(&mut self, request: &BodyRequest) -> (&[u8], Vec<Dropped>) {
        let mut dropped = Vec::new();
        let body = self.conversation.request_body(request, &mut dropped);
        (body, dropped)
    }

    /// Records the provider's input-token count for the last request (a
    /// negative count reads as 0; the JS binding refuses it).
    pub fn set_context_used(&mut self, input_tokens: i64) {
        self.reported = Some(Reported { tokens: input_tokens.max(0), estimate_then: self.conversation.total_tokens() });
    }

    /// Stores pre-computed summaries of tool results, by `tool_use_id`.
    pub fn store_compact_summaries(&mut self, summaries: impl IntoIterator<Item = (String, String)>) {
        for (id, summary) in summaries {
            self.summaries.insert(id, summary);
        }
    }

    /// Context used now: the provider's last figure plus an estimate of what was
    /// pushed since; with no fresh figure, an exact count of the conversation as
    /// it is (see [`ContextManager::set_counted_tokens`]) or else its estimate.
    pub fn context_used(&self) -> i64 {
        match (self.reported, self.counted) {
            (Some(r), _) => r.tokens + (self.conversation.total_tokens() - r.estimate_then).max(0),
            (None, Some((version, tokens))) if version == self.conversation.version() => tokens,
            (None, _) => self.conversation.total_tokens(),
        }
    }

    /// Whether an exact count would be used now and none is up to date: no fresh
    /// provider figure, and the conversation changed since the last count.
    pub fn needs_count(&self) -> bool {
        self.reported.is_none() && self.counted.is_none_or(|(version, _)| version != self.conversation.version())
    }

    /// Identifies the conversation as it is now: changes whenever its messages do.
    pub fn version(&self) -> u64 {
        self.conversation.version()
    }

    /// Records an exact token count (from a user-supplied tokenizer) of the
    /// conversation as it was at `version` (see [`ContextManager::version`]):
    /// used until the conversation changes, so a count of a conversation that
    /// changed while it was being counted is never used.
    pub fn set_counted_tokens(&mut self, version: u64, tokens: i64) {
        self.counted = Some((version, tokens));
    }

    /// Estimated tokens of the conversation as held.
    pub fn estimated_tokens(&self) -> i64 {
        self.conversation.total_tokens()
    }

    /// Whether a summary is being awaited.
    pub fn is_compacting(&self) -> bool {
        self.pending.is_some()
    }

    fn threshold(&self) -> f64 {
        match &self.config.compactor {
            CompactorType::Threshold(c) => c.threshold,
            CompactorType::LLM(c) => c.threshold,
        }
    }

    /// Whether the context is above the threshold, or over its room.
    pub fn should_compact(&self) -> bool {
        exceeds_threshold(self.threshold(), self.context_used(), self.config.context_limit) || !self.fits()
    }

    /// Whether the context fits in its room: at most `context_limit - reserve_tokens`.
    pub fn fits(&self) -> bool {
        self.context_used() <= self.config.room()
    }

    /// Decides what to do: nothing, a synchronous compaction (done here), or a
    /// summarizer call for the caller to run. `force` ignores the threshold and
    /// the no-retry rule. O(1) when below the threshold.
    pub fn begin(&mut self, force: bool) -> Step {
        if self.pending.is_some() {
            return Step::Busy;
        }
        if !force && (!self.should_compact() || self.stuck_at == Some(self.conversation.pushed())) {
            return Step::Idle;
        }
        let started = Instant::now();
        let tokens_before = self.context_used();
        match self.config.compactor.clone() {
            CompactorType::Threshold(config) => {
                let outcome = self.run_threshold(&config, tokens_before, started, None);
                Step::Done(self.settle(outcome))
            }
            CompactorType::LLM(config) => self.begin_llm(&config, tokens_before, started),
        }
    }

    fn begin_llm(&mut self, config: &LLMCompactorConfig, tokens_before: i64, started: Instant) -> Step {
        let (window, shrunk) = self.llm_window(config);
        let allowance = summary_allowance(config);
        let len = self.conversation.messages().len();
        // Beside the window and the summary, the task (the oldest user message) may take
        // what the room leaves: keeping it may leave the context above the threshold, and
        // the next step compact again, which is better than losing it. The other user
        // messages take only what the threshold leaves, so that the compaction lands below it.
        let beside = self.tail_tokens(window) + allowance;
        let below = (self.threshold() * self.config.context_limit as f64) as i64;
        let kept_budget = llm::KeptBudget {
            total: config.keep_user_messages_tokens,
            task: (self.config.room() - beside).max(0),
            others: (below.min(self.config.room()) - beside).max(0),
        };
        let old = old_turns_from_starts(self.conversation.turn_starts(), len, window);
        let messages = self.conversation.messages();
        let Some(plan) = old.and_then(|old| llm::plan_after(messages, old, kept_budget)) else {
            let mut outcome = self.outcome(Strategy::Llm, CompactionResult::default(), tokens_before, started);
            self.fit(&mut outcome, window);
            return Step::Done(self.settle(outcome));
        };
        let request = llm::build_request(&messages[..plan.cut], &plan.kept, config, &self.summaries);
        let id = self.next_job;
        self.next_job += 1;
        self.pending = Some(Pending { id, plan, shrunk, tokens_before, messages_before: len, started });
        Step::Summarize(SummaryJob { id, request, timeout: config.timeout() })
    }

    /// How many of the newest turns an LLM compaction keeps: the configured
    /// window, shrunk while it alone would not fit in the room (the summary then
    /// covers the turns that leave it, rather than the escalation redacting them).
    fn llm_window(&self, config: &LLMCompactorConfig) -> (usize, Option<Escalation>) {
        let configured = self.kept_turns(config.keep());
        let mut window = configured;
        while window > 1 && self.tail_tokens(window) > self.config.room() {
            window -= 1;
        }
        (
            window,
            (window < configured).then_some(Escalation::ShrankWindow { turns: window, compacted: Default::default() }),
        )
    }

    /// How many of the newest turns `keep` leaves intact, at most all of them.
    fn kept_turns(&self, keep: Keep) -> usize {
        let c = &self.conversation;
        kept_turns(c.turn_starts(), c.messages().len(), keep, |i| c.message_tokens(i)).min(c.turns())
    }

    /// Estimated tokens of the newest `turns` turns.
    fn tail_tokens(&self, turns: usize) -> i64 {
        let c = &self.conversation;
        let starts = c.turn_starts();
        let start = starts.len().checked_sub(turns).map_or(0, |t| starts.get(t).copied().unwrap_or(c.messages().len()));
        (start..c.messages().len()).map(|i| c.message_tokens(i)).sum()
    }

    /// Applies the summarizer's answer to job `id`. The summary replaces exactly
    /// the messages it summarized; messages pushed meanwhile stay after it. On
    /// failure the conversation is kept, or the threshold fallback runs.
    /// An answer for a job that is no longer pending changes nothing.
    pub fn complete(&mut self, id: u64, answer: Result<String, CompactionError>) -> Option<Outcome> {
        if self.pending.as_ref().map(|p| p.id) != Some(id) {
            return None;
        }
        let pending = self.pending.take()?;
        let plan = &pending.plan;
        // Only pushes can happen while a job is pending, so the summarized
        // messages are still the first `cut`.
        let applied = answer.and_then(|summary| {
            let prefix_tokens = self.conversation.prefix_tokens(plan.cut);
            let replacement = llm::replacement(&summary, self.conversation.messages(), plan, prefix_tokens)?;
            let length = summary.trim().chars().count();
            let added = replacement.len();
            self.conversation.replace_prefix(plan.cut, replacement);
            Ok((length, added))
        });
        let mut outcome = match applied {
            Ok((length, added)) => {
                self.reported = None;
                let result = CompactionResult { turns_compacted: plan.turns, ..CompactionResult::default() };
                let mut outcome = self.outcome(Strategy::Llm, result, pending.tokens_before, pending.started);
                outcome.summary_length = Some(length);
                outcome.kept_user_messages = plan.kept.len();
                outcome.escalation.extend(pending.shrunk);
                let starts = self.conversation.turn_starts();
                let window = starts.len() - starts.iter().filter(|&&start| start < added).count();
                self.fit(&mut outcome, window);
                outcome
            }
            Err(error) => match self.config.fallback.clone() {
                Some(fallback) => self.run_threshold(&fallback, pending.tokens_before, pending.started, Some(error)),
                None => {
                    let result = CompactionResult::default();
                    let mut outcome = self.outcome(Strategy::Llm, result, pending.tokens_before, pending.started);
                    outcome.error = Some(error);
                    let window = self.conversation.turns() - plan.turns;
                    self.fit(&mut outcome, window);
                    outcome
                }
            },
        };
        outcome.messages_before = pending.messages_before;
        Some(self.settle(outcome))
    }

    fn run_threshold(
        &mut self,
        config: &CompactionConfig,
        tokens_before: i64,
        started: Instant,
        llm_error: Option<CompactionError>,
    ) -> Outcome {
        let compactor = ThresholdCompactor::checked(config.clone());
        let window = self.kept_turns(config.keep());
        let old = old_turns_from_starts(self.conversation.turn_starts(), self.conversation.messages().len(), window)
            .map_or(0, |old| old.messages);
        let summaries = &self.summaries;
        let holds_tool_results = self.conversation.holds_tool_results();
        let result = match holds_tool_results {
            true => self
                .conversation
                .edit(|messages, changed| compactor.compact_prefix(&mut messages[..old], summaries, changed)),
            false => CompactionResult::default(),
        };
        if !result.is_empty() {
            self.reported = None;
        }
        let mut outcome = self.outcome(Strategy::Threshold, result, tokens_before, started);
        // A text-mode agent: old turns to compact, but no tool result in the whole conversation.
        outcome.no_tool_results = old > 0 && !holds_tool_results;
        outcome.fallback = llm_error.is_some();
        outcome.error = llm_error;
        self.fit(&mut outcome, window);
        outcome
    }

    /// Runs the escalation (see [`crate::manager::fit`]) when the context does not fit,
    /// `window` being the turns the compaction kept, and records it in `outcome`.
    fn fit(&mut self, outcome: &mut Outcome, window: usize) {
        if !self.fits() {
            let room = self.config.room();
            let max = self.config.max_tool_result_tokens();
            let taken = fit(&mut self.conversation, room, window, &self.summaries, max);
            if !taken.is_empty() {
                self.reported = None;
            }
            for compacted in taken.iter().map(Escalation::compacted) {
                outcome.result.tool_results_summarized += compacted.summarized;
                outcome.result.tool_results_redacted += compacted.redacted;
            }
            outcome.escalation.extend(taken);
        }
        outcome.tokens_after = self.context_used();
        outcome.messages_after = self.conversation.messages().len();
        outcome.below_threshold = !exceeds_threshold(self.threshold(), outcome.tokens_after, self.config.context_limit);
        outcome.fits = self.fits();
    }

    fn outcome(&self, strategy: Strategy, result: CompactionResult, tokens_before: i64, started: Instant) -> Outcome {
        let messages = self.conversation.messages().len();
        Outcome {
            strategy,
            result,
            tokens_before,
            tokens_after: self.context_used(),
            messages_before: messages,
            messages_after: messages,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            summary_length: None,
            error: None,
            fallback: false,
            below_threshold: !exceeds_threshold(self.threshold(), self.context_used(), self.config.context_limit),
            fits: self.fits(),
            escalation: Vec::new(),
            kept_user_messages: 0,
            no_tool_results: false,
        }
    }

    /// Remembers a compaction that failed, or left the context above the
    /// threshold or over its room, so it is not retried before the conversation grows.
    fn settle(&mut self, outcome: Outcome) -> Outcome {
        let stuck = outcome.error.is_some() || !outcome.below_threshold || !outcome.fits;
        self.stuck_at = stuck.then(|| self.conversation.pushed());
        outcome
    }

    /// The specification's `maybe_compact`, for native Rust: compacts when above
    /// the threshold. `summarizer` is needed for LLM compaction only.
    pub async fn maybe_compact(&mut self, summarizer: Option<&dyn Summarizer>) -> Option<Outcome> {
        self.run(false, summarizer).await
    }

    /// The specification's `force_compact`, for native Rust: compacts now,
    /// whatever the threshold says.
    pub async fn force_compact(
        &mut self,
        summarizer: Option<&dyn Summarizer>,
    ) -> Result<CompactionResult, CompactionError> {
        match self.run(true, summarizer).await {
            Some(Outcome { error: Some(error), .. }) => Err(error),
            Some(outcome) => Ok(outcome.result),
            None => Ok(CompactionResult::default()),
        }
    }

    async fn run(&mut self, force: bool, summarizer: Option<&dyn Summarizer>) -> Option<Outcome> {
        match self.begin(force) {
            Step::Idle | Step::Busy => None,
            Step::Done(outcome) => Some(outcome),
            Step::Summarize(job) => {
                let answer = match summarizer {
                    Some(s) => summarize_with_timeout(s, &job.request, job.timeout).await,
                    None => Err(CompactionError::LlmError(LlmError::new("LLM compaction needs a summarizer"))),
                };
                self.complete(job.id, answer)
            }
        }
    }
}

/// Tokens set aside for the summary when planning an LLM compaction: its
/// maximum length, or 2048 when it has none.
fn summary_allowance(config: &LLMCompactorConfig) -> i64 {
    config.max_summary_tokens.unwrap_or(2048)
}

/// `noun`, with an `s` unless `n` is 1.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

//! Configuration of the two compactors, with the specification's defaults.

use std::time::Duration;

use crate::error::InputError;

/// What threshold compaction does to an old tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolCompaction {
    /// Replace it with its pre-computed compact summary (left alone when it has none).
    #[default]
    Summarize,
    /// Replace it with [`REDACTION_NOTICE`].
    Redact,
}

/// The text that replaces a redacted tool result.
pub const REDACTION_NOTICE: &str = "[Content redacted for context management]";

/// How much of the recent conversation a compaction leaves intact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The last N turns.
    Turns(usize),
    /// The newest turns whose estimate fits in N tokens: whole turns, never fewer than one.
    Tokens(i64),
}

/// Configuration of the [`ThresholdCompactor`](crate::ThresholdCompactor).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionConfig {
    /// Utilization ratio (0.0–1.0) above which compaction triggers.
    pub threshold: f64,
    /// How many of the most recent turns are never touched.
    pub keep_recent_turns: usize,
    /// When set, replaces `keep_recent_turns`: the newest turns whose estimate
    /// fits in this many tokens are never touched (at least one turn).
    pub keep_recent_tokens: Option<i64>,
    /// What happens to old tool results.
    pub tool_compaction: ToolCompaction,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            threshold: 0.75,
            keep_recent_turns: 3,
            keep_recent_tokens: None,
            tool_compaction: ToolCompaction::Summarize,
        }
    }
}

impl CompactionConfig {
    /// What the compaction leaves intact.
    pub fn keep(&self) -> Keep {
        keep(self.keep_recent_turns, self.keep_recent_tokens)
    }

    /// Checks the configuration: a threshold strictly between 0 and 1, and no
    /// negative token count. Errors name the field, under `path` (`""` for none).
    pub fn validate(&self, path: &str) -> Result<(), InputError> {
        validate_threshold(self.threshold, &under(path, "threshold"))?;
        non_negative(self.keep_recent_tokens, &under(path, "keep_recent_tokens"))
    }
}

fn keep(turns: usize, tokens: Option<i64>) -> Keep {
    tokens.map_or(Keep::Turns(turns), Keep::Tokens)
}

/// The prompt used when [`LLMCompactorConfig::summary_system_prompt`] is `None`.
pub const DEFAULT_SUMMARY_PROMPT: &str = r#"
You are a conversation summarizer. Summarize the following conversation
concisely while preserving:
- Key decisions made
- Important information discovered
- Current task context
- Any pending actions

Be concise but complete. Focus on information needed to continue the conversation.
"#;

/// Configuration of the [`LLMCompactor`](crate::LLMCompactor).
#[derive(Debug, Clone, PartialEq)]
pub struct LLMCompactorConfig {
    /// Utilization ratio (0.0–1.0) above which compaction triggers.
    pub threshold: f64,
    /// How many of the most recent turns are never summarized.
    pub keep_recent_turns: usize,
    /// When set, replaces `keep_recent_turns`: the newest turns whose estimate
    /// fits in this many tokens are never summarized (at least one turn).
    pub keep_recent_tokens: Option<i64>,
    /// User messages with text among the summarized turns stay verbatim after the
    /// summary, the newest ones whose estimate fits in this many tokens (0: none,
    /// the specification's shape: the summary then the recent turns).
    pub keep_user_messages_tokens: i64,
    /// The summarizer's system prompt; `None` uses [`DEFAULT_SUMMARY_PROMPT`].
    pub summary_system_prompt: Option<String>,
    /// Upper bound on the summary's length, passed to the summarizer.
    pub max_summary_tokens: Option<i64>,
    /// How long the summarizer may take; `None` means 60 s.
    pub summary_timeout: Option<Duration>,
}

impl Default for LLMCompactorConfig {
    fn default() -> Self {
        Self {
            threshold: 0.75,
            keep_recent_turns: 3,
            keep_recent_tokens: None,
            keep_user_messages_tokens: 20_000,
            summary_system_prompt: None,
            max_summary_tokens: Some(2048),
            summary_timeout: Some(Duration::from_secs(60)),
        }
    }
}

impl LLMCompactorConfig {
    /// What the compaction leaves intact.
    pub fn keep(&self) -> Keep {
        keep(self.keep_recent_turns, self.keep_recent_tokens)
    }

    /// Checks the configuration: a threshold strictly between 0 and 1, no
    /// negative token count, a summary of at least one token and a timeout
    /// longer than zero. Errors name the field, under `path` (`""` for none).
    pub fn validate(&self, path: &str) -> Result<(), InputError> {
        validate_threshold(self.threshold, &under(path, "threshold"))?;
        non_negative(self.keep_recent_tokens, &under(path, "keep_recent_tokens"))?;
        non_negative(Some(self.keep_user_messages_tokens), &under(path, "keep_user_messages_tokens"))?;
        if let Some(n) = self.max_summary_tokens.filter(|&n| n < 1) {
            return Err(InputError::new(
                under(path, "max_summary_tokens"),
                format!("expected 1 or more tokens, got {n}"),
            ));
        }
        if self.summary_timeout.is_some_and(|t| t.is_zero()) {
            return Err(InputError::new(under(path, "summary_timeout"), "expected a timeout longer than zero"));
        }
        Ok(())
    }

    /// The system prompt in force.
    pub fn system_prompt(&self) -> &str {
        self.summary_system_prompt.as_deref().unwrap_or(DEFAULT_SUMMARY_PROMPT)
    }

    /// The timeout in force.
    pub fn timeout(&self) -> Duration {
        self.summary_timeout.unwrap_or(Duration::from_secs(60))
    }
}

/// Which compaction strategy a context uses.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactorType {
    /// Mechanical: summarize or redact old tool results.
    Threshold(CompactionConfig),
    /// Summarize old turns with an LLM.
    LLM(LLMCompactorConfig),
}

impl Default for CompactorType {
    fn default() -> Self {
        CompactorType::Threshold(CompactionConfig::default())
    }
}

impl CompactorType {
    /// Checks the compactor's configuration (see its `validate`), under `path`.
    pub fn validate(&self, path: &str) -> Result<(), InputError> {
        match self {
            CompactorType::Threshold(config) => config.validate(path),
            CompactorType::LLM(config) => config.validate(path),
        }
    }
}

/// `path.name`, or `name` when `path` is empty.
pub(crate) fn under(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// An error at `path` when `tokens` is negative.
fn non_negative(tokens: Option<i64>, path: &str) -> Result<(), InputError> {
    match tokens {
        Some(n) if n < 0 => Err(InputError::new(path, format!("expected 0 or more tokens, got {n}"))),
        _ => Ok(()),
    }
}

/// Checks that a threshold is a ratio strictly between 0 and 1.
pub fn validate_threshold(threshold: f64, path: &str) -> Result<(), InputError> {
    if threshold.is_finite() && threshold > 0.0 && threshold < 1.0 {
        Ok(())
    } else {
        Err(InputError::new(
            path,
            format!("expected a number strictly between 0 and 1, got {}", crate::text::number_text(threshold)),
        ))
    }
}

/// The specification's threshold check: utilization strictly above `threshold`.
/// A non-positive limit never triggers (there is nothing sensible to compare with).
pub fn exceeds_threshold(threshold: f64, context_used: i64, context_limit: i64) -> bool {
    if context_limit <= 0 {
        return false;
    }
    let utilization = context_used as f64 / context_limit as f64;
    utilization > threshold
}

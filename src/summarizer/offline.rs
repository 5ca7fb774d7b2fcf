//! A small extractive summarizer that runs offline, for demos and tests. It is
//! not an LLM: it picks lines from the transcript it is given and says so.

use futures::future::BoxFuture;

use crate::error::LlmError;
use crate::summarizer::{Summarizer, SummaryRequest};
use std::collections::BTreeMap;

use crate::text::{push_truncated, truncate_string};

/// What starts a tool call in the transcript, before the tool's name.
const CALLED_TOOL: &str = "[Called tool: ";

/// Longest excerpt of one request or answer, in characters.
const EXCERPT: usize = 160;

/// Summarizes a transcript by extraction: the user's requests, the tools used
/// and the assistant's last words, within `max_tokens` (about 4 characters each).
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineSummarizer;

impl OfflineSummarizer {
    /// The summary of a prompt built by [`crate::compaction::llm::build_request`].
    pub fn summarize_text(&self, request: &SummaryRequest) -> String {
        let mut requests = Vec::new();
        let mut tools: BTreeMap<&str, usize> = BTreeMap::new();
        let mut last_assistant = None;
        for line in request.prompt.lines() {
            if let Some(text) = line.strip_prefix("User: ") {
                if !text.starts_with("[Tool result:") && !text.trim().is_empty() {
                    requests.push(text.trim());
                }
            } else if let Some(text) = line.strip_prefix("Assistant: ") {
                if !text.starts_with("[Called tool:") && !text.trim().is_empty() {
                    last_assistant = Some(text.trim());
                }
            }
            for called in line.split(CALLED_TOOL).skip(1) {
                let name = called.split(']').next().unwrap_or(called);
                *tools.entry(name).or_default() += 1;
            }
        }
        let mut summary = String::from("Offline extractive summary (not an LLM).");
        if !requests.is_empty() {
            summary.push_str(" The user asked: ");
            for (k, request) in requests.iter().enumerate() {
                if k > 0 {
                    summary.push_str(" | ");
                }
                push_truncated(&mut summary, request, EXCERPT);
            }
            summary.push('.');
        }
        if !tools.is_empty() {
            summary.push_str(" Tools used: ");
            for (k, (name, n)) in tools.iter().enumerate() {
                if k > 0 {
                    summary.push_str(", ");
                }
                summary.push_str(&format!("{name} ×{n}"));
            }
            summary.push('.');
        }
        if let Some(last) = last_assistant {
            summary.push_str(" Last assistant note: ");
            push_truncated(&mut summary, last, EXCERPT);
        }
        let max_chars = request.max_tokens.map_or(8_000, |t| (t.max(1) as usize).saturating_mul(4));
        truncate_string(summary, max_chars)
    }
}

impl Summarizer for OfflineSummarizer {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        Box::pin(async move { Ok(self.summarize_text(request)) })
    }
}

//! A small extractive summarizer that runs offline, for demos and tests. It is
//! not an LLM: it picks lines from the transcript it is given and says so.

use futures::future::BoxFuture;

use crate::error::LlmError;
use crate::summarizer::{Summarizer, SummaryRequest};
use crate::text::{find, head, push_truncated, tail, truncate_string};

/// What starts a tool call in the transcript, before the tool's name.
const CALLED_TOOL: &str = "[Called tool: ";

/// Longest excerpt of one request or answer, in characters.
const EXCERPT: usize = 160;

/// Summarizes a transcript by extraction: the user's requests, the tools used
/// and the assistant's last words, within `max_tokens` (about 4 characters each).
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineSummarizer;

impl OfflineSummarizer {
    /// The summary of a prompt built by [`crate::llm::build_request`].
    pub fn summarize_text(&self, request: &SummaryRequest) -> String {
        let mut requests = Vec::new();
        // Sorted by name; a `Vec` rather than a `BTreeMap`, which would be one more in the module.
        let mut tools: Vec<(&str, usize)> = Vec::new();
        let mut last_assistant = None;
        for line in lines(&request.prompt) {
            if let Some(text) = line.strip_prefix("User: ") {
                if !text.starts_with("[Tool result:") && !text.trim().is_empty() {
                    requests.push(text.trim());
                }
            } else if let Some(text) = line.strip_prefix("Assistant: ") {
                if !text.starts_with("[Called tool:") && !text.trim().is_empty() {
                    last_assistant = Some(text.trim());
                }
            }
            let mut rest = line;
            while let Some(i) = find(rest, CALLED_TOOL) {
                rest = tail(rest, i + CALLED_TOOL.len());
                let name = head(rest, rest.bytes().position(|b| b == b']').unwrap_or(rest.len()));
                match tools.binary_search_by(|(tool, _)| tool.cmp(&name)) {
                    Ok(k) => tools[k].1 += 1,
                    Err(k) => tools.insert(k, (name, 1)),
                }
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

/// `text.lines()`, without the `memchr` search it brings into the `.wasm`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match rest.bytes().position(|b| b == b'\n') {
            Some(i) => {
                let line = head(rest, i);
                (line.strip_suffix('\r').unwrap_or(line), tail(rest, i + 1))
            }
            None => (rest, ""),
        };
        rest = next;
        Some(line)
    })
}

impl Summarizer for OfflineSummarizer {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        Box::pin(async move { Ok(self.summarize_text(request)) })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_are_str_lines() {
        for text in ["", "a", "a\n", "a\nb", "\n", "\n\n", "a\r\nb\r\n", "a\r", "a\rb\n", "\r\n", "é\nü\r\n\r"] {
            assert_eq!(super::lines(text).collect::<Vec<_>>(), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }
}

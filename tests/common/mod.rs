//! Conversation builders shared by the native tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use context_compactor::{
    ContentBlock, LlmError, Message, Role, Summarizer, SummaryRequest, TextBlock, ToolResultBlock, ToolResultContent,
    ToolUseBlock, TurnId,
};
use futures::future::BoxFuture;
use serde_json::{json, Map};

pub mod transcript_files;

pub fn text(role: Role, turn: TurnId, text: &str) -> Message {
    let mut m = Message::user_text(text, 0, turn);
    m.role = role;
    m
}

pub fn tool_use(turn: TurnId, ids: &[&str]) -> Message {
    let mut m = text(Role::Assistant, turn, "calling tools");
    m.content = ids
        .iter()
        .map(|id| {
            ContentBlock::ToolUse(ToolUseBlock {
                id: id.to_string(),
                name: "run".into(),
                input: json!({"id": id}),
                extra: Map::new(),
            })
        })
        .collect();
    m
}

pub fn tool_result(turn: TurnId, ids: &[&str], body: &str) -> Message {
    let mut m = text(Role::User, turn, "");
    m.content = ids
        .iter()
        .map(|id| {
            ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id: id.to_string(),
                content: ToolResultContent::Text(format!("{body} ({id})")),
                is_error: false,
                compact_summary: None,
                extra: Map::new(),
            })
        })
        .collect();
    m
}

/// `turns` agent exchanges: user text (u<k>), then assistant turn a<k> with a
/// tool call, its result and a final answer.
pub fn agent_conversation(turns: usize) -> Vec<Message> {
    let mut out = Vec::new();
    for k in 1..=turns as i64 {
        let id = format!("call_{k}");
        out.push(text(Role::User, TurnId::new("u", k), &format!("Please do step {k}.")));
        out.push(tool_use(TurnId::new("a", k), &[&id]));
        out.push(tool_result(TurnId::new("a", k), &[&id], &"output line\n".repeat(50)));
        out.push(text(Role::Assistant, TurnId::new("a", k), &format!("Step {k} is done.")));
    }
    out
}

pub fn tool_result_text(m: &Message) -> Vec<String> {
    m.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.content.text()),
            _ => None,
        })
        .collect()
}

pub fn first_text(m: &Message) -> &str {
    m.content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Text(TextBlock { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

/// A summarizer that answers a fixed text and records the requests it got.
pub struct FixedSummarizer {
    pub answer: Result<String, LlmError>,
    pub calls: AtomicUsize,
    pub requests: Mutex<Vec<SummaryRequest>>,
}

impl FixedSummarizer {
    pub fn ok(answer: &str) -> Self {
        Self { answer: Ok(answer.into()), calls: AtomicUsize::new(0), requests: Mutex::new(Vec::new()) }
    }
    pub fn failing(message: &str) -> Self {
        Self { answer: Err(LlmError::new(message)), calls: AtomicUsize::new(0), requests: Mutex::new(Vec::new()) }
    }
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Summarizer for FixedSummarizer {
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.requests.lock().unwrap().push(request.clone());
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

/// A summarizer that never answers.
pub struct NeverSummarizer;

impl Summarizer for NeverSummarizer {
    fn summarize<'a>(&'a self, _request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>> {
        Box::pin(futures::future::pending())
    }
}

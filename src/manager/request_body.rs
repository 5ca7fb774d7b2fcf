//! Provider request bodies, as UTF-8 JSON bytes ready to send. A message is
//! written when a body first needs it and again only when compaction changes
//! it; a new body copies the rest from the last one, which is kept until the
//! conversation or the request changes.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::{
    anthropic, openai, openai_responses, parse_system, system_message_for, Dropped, Format, SystemMessage,
};
use crate::json_text::{same_map_text, same_text, write_str, write_value};
use crate::model::message::Message;
use crate::model::read::field;

/// What a request body holds besides the messages.
#[derive(Debug, Clone)]
pub struct BodyRequest {
    /// The provider format: [`Format::Anthropic`], [`Format::OpenAi`] or [`Format::OpenAiResponses`].
    pub format: Format,
    /// The other top-level fields (`model`, `max_tokens`, Anthropic's `system`, …), written as given.
    pub fields: Map<String, Value>,
    /// For the OpenAI formats: the system messages returned by `from_openai` /
    /// `from_openai_responses`, put back at their positions.
    pub system: Vec<SystemMessage>,
}

impl BodyRequest {
    /// Reads `{ format, system?, ...fields }`; `path` names the object in errors.
    /// For Anthropic, `system` is an ordinary top-level field.
    pub fn parse(value: Value, path: &str) -> Result<Self, InputError> {
        let Value::Object(mut fields) = value else {
            return Err(InputError::new(path, "expected an object { format, ...fields }"));
        };
        let format = match fields.get("format") {
            Some(Value::String(name)) => Format::from_name(name).filter(|f| messages_key(*f).is_some()),
            _ => None,
        }
        .ok_or_else(|| {
            InputError::new(
                field(path, "format"),
                "expected \"anthropic\", \"openai\" or \"openai-responses\" (for the AI SDK, use toVercelAI)",
            )
        })?;
        let system = match (format, fields.get("system")) {
            (Format::Anthropic, _) | (_, None) => Vec::new(),
            (_, Some(system)) => parse_system(system, &field(path, "system"))?,
        };
        fields.shift_remove("format");
        if format != Format::Anthropic {
            fields.shift_remove("system");
        }
        if let Some(key) = messages_key(format).filter(|key| fields.contains_key(*key)) {
            return Err(InputError::new(field(path, key), "is written by requestBody from the conversation"));
        }
        Ok(Self { format, fields, system })
    }
}

/// Two requests are the same when they write the same body: their fields in the same order.
impl PartialEq for BodyRequest {
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format
            && same_map_text(&self.fields, &other.fields)
            && self.system.len() == other.system.len()
            && self
                .system
                .iter()
                .zip(&other.system)
                .all(|(a, b)| a.position == b.position && same_text(&a.message, &b.message))
    }
}

/// The top-level field that holds the conversation, for the formats that have request bodies.
fn messages_key(format: Format) -> Option<&'static str> {
    match format {
        Format::Anthropic | Format::OpenAi => Some("messages"),
        Format::OpenAiResponses => Some("input"),
        Format::VercelAi | Format::Model => None,
    }
}

/// The last body, and where each message's wire JSON sits in it. A message is
/// written when a body first needs it and again only when it changes; a new body
/// copies the others from the last one, in runs of neighbours. Its owner reports
/// every change.
#[derive(Debug, Clone, Default)]
pub struct WireCache {
    /// Per message: where its wire items (comma-separated, without brackets;
    /// empty when it writes none) sit in the last body, or `None` when they
    /// must be written.
    spans: Vec<Option<Range<usize>>>,
    /// The last body, and what it was assembled for.
    body: Option<Body>,
}

#[derive(Debug, Clone)]
struct Body {
    version: u64,
    request: BodyRequest,
    bytes: Vec<u8>,
    /// How many messages it holds, and whether they are still the first ones
    /// held (only pushes since): then new messages are appended to it.
    messages: usize,
    prefix: bool,
}

/// Bytes of the last body being copied into the next one as one piece.
struct Run {
    /// Where they are in the last body.
    from: Range<usize>,
    /// Where they go in the new one.
    to: usize,
}

impl WireCache {
    /// A message was appended.
    pub fn pushed(&mut self) {
        self.spans.push(None);
    }

    /// Message `index` changed.
    pub fn changed(&mut self, index: usize) {
        self.spans[index] = None;
        self.body_changed();
    }

    /// The first `n` messages were replaced by `added` new ones.
    pub fn replaced_prefix(&mut self, n: usize, added: usize) {
        self.spans.splice(..n, std::iter::repeat_n(None, added));
        self.body_changed();
    }

    fn body_changed(&mut self) {
        if let Some(body) = &mut self.body {
            body.prefix = false;
        }
    }

    /// The body for `messages` (at `version`): kept while neither changed, extended
    /// when messages were only pushed since, else assembled again. The blocks the
    /// format has no equivalent for, in the messages written this time, go to `dropped`.
    pub fn body(
        &mut self,
        messages: &[Message],
        version: u64,
        request: &BodyRequest,
        dropped: &mut Vec<Dropped>,
    ) -> &[u8] {
        let body = match self.body.take() {
            Some(body) if body.version == version && &body.request == request => body,
            // New messages can go at the end unless a system message was written after the last one.
            Some(body)
                if body.prefix
                    && &body.request == request
                    && request.system.iter().all(|s| s.position < body.messages) =>
            {
                self.append(body, messages, version, dropped)
            }
            old => self.assemble(messages, version, request, old, dropped),
        };
        &self.body.insert(body).bytes
    }

    /// `body` with the messages pushed since written at its end.
    fn append(&mut self, mut body: Body, messages: &[Message], version: u64, dropped: &mut Vec<Dropped>) -> Body {
        let format = body.request.format;
        body.bytes.truncate(body.bytes.len() - b"]}".len());
        let mut first = body.bytes.last() == Some(&b'[');
        let spans = self.spans[body.messages..].iter_mut().zip(&messages[body.messages..]);
        for (index, (span, message)) in (body.messages..).zip(spans) {
            *span = Some(write_item(&mut body.bytes, &mut first, |out| {
                write_fragment(format, message, index, out, dropped)
            }));
        }
        body.bytes.extend_from_slice(b"]}");
        body.version = version;
        body.messages = messages.len();
        body
    }

    /// The whole body: the messages that did not change since `old` copied from
    /// it, the others written.
    fn assemble(
        &mut self,
        messages: &[Message],
        version: u64,
        request: &BodyRequest,
        old: Option<Body>,
        dropped: &mut Vec<Dropped>,
    ) -> Body {
        let format = request.format;
        // The spans point into `old`, whose messages are in its own format.
        let old = old.filter(|old| old.request.format == format).map(|old| old.bytes).unwrap_or_default();
        if old.is_empty() {
            self.spans.iter_mut().for_each(|span| *span = None);
        }
        let mut out = Vec::with_capacity(capacity(&self.spans));
        out.push(b'{');
        for (key, value) in &request.fields {
            write_str(&mut out, key);
            out.push(b':');
            write_value(&mut out, value);
            out.push(b',');
        }
        write_str(&mut out, messages_key(format).unwrap_or("messages"));
        out.extend_from_slice(b":[");
        let mut first = true;
        let mut run: Option<Run> = None;
        for (index, (span, message)) in self.spans.iter_mut().zip(messages).enumerate() {
            for s in request.system.iter().filter(|s| s.position == index) {
                copy(&mut out, &old, run.take());
                write_item(&mut out, &mut first, |out| write_value(out, &system_message_for(format, &s.message)));
            }
            *span = match span.take() {
                Some(from) if from.is_empty() => Some(from),
                Some(from) => {
                    // Neighbours in the old body are one comma apart: one copy for both.
                    let run = match &mut run {
                        Some(run) if run.from.end + 1 == from.start => run,
                        _ => {
                            copy(&mut out, &old, run.take());
                            if !first {
                                out.push(b',');
                            }
                            first = false;
                            run.insert(Run { from: from.start..from.start, to: out.len() })
                        }
                    };
                    run.from.end = from.end;
                    let start = run.to + (from.start - run.from.start);
                    Some(start..start + from.len())
                }
                None => {
                    copy(&mut out, &old, run.take());
                    Some(write_item(&mut out, &mut first, |out| write_fragment(format, message, index, out, dropped)))
                }
            };
        }
        copy(&mut out, &old, run);
        // Past the end: in the order given, as `interleave_system` does.
        for s in request.system.iter().filter(|s| s.position >= messages.len()) {
            write_item(&mut out, &mut first, |out| write_value(out, &system_message_for(format, &s.message)));
        }
        out.extend_from_slice(b"]}");
        Body { version, request: request.clone(), bytes: out, messages: messages.len(), prefix: true }
    }
}

/// Room for a body of messages at `spans`: the known ones' size and, for the
/// others, their average (or 512 bytes), plus an eighth for the next turns,
/// which are appended (see [`WireCache::append`]).
fn capacity(spans: &[Option<Range<usize>>]) -> usize {
    let (known, bytes) = spans.iter().flatten().fold((0, 0), |(n, bytes), span| (n + 1, bytes + span.len() + 1));
    let average = bytes.checked_div(known).unwrap_or(512);
    let size = 64 + bytes + (spans.len() - known) * average;
    size + size / 8
}

/// Copies `run` from the old body to the end of `out` (where it was planned to go).
fn copy(out: &mut Vec<u8>, old: &[u8], run: Option<Run>) {
    if let Some(run) = run {
        debug_assert_eq!(out.len(), run.to);
        out.extend_from_slice(&old[run.from]);
    }
}

/// Writes one item with `write` (which may write nothing), after a comma unless
/// it is the first; returns where it is.
fn write_item(out: &mut Vec<u8>, first: &mut bool, write: impl FnOnce(&mut Vec<u8>)) -> Range<usize> {
    let before = out.len();
    if !*first {
        out.push(b',');
    }
    let start = out.len();
    write(out);
    if out.len() == start {
        out.truncate(before);
        return before..before;
    }
    *first = false;
    start..out.len()
}

/// Appends the wire items of message `index`, comma-separated. Blocks the format
/// has no equivalent for are left out as by the `to_*` writers, and go to `dropped`.
fn write_fragment(format: Format, message: &Message, index: usize, out: &mut Vec<u8>, dropped: &mut Vec<Dropped>) {
    let mut items = Vec::new();
    match format {
        Format::Anthropic => return anthropic::write_message(out, message, index, dropped),
        Format::OpenAi => openai::write_message(message, index, &mut items, dropped),
        _ => openai_responses::write_message(message, index, &mut items, dropped),
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_value(out, item);
    }
}

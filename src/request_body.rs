//! Provider request bodies, as UTF-8 JSON bytes ready to send, assembled from
//! wire-format JSON kept per message: a message is written when a body first
//! needs it and again only when compaction changes it, and the assembled body
//! is kept until the conversation or the request changes.

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::{anthropic, openai, openai_responses, parse_system, Format, SystemMessage};
use crate::json_writer::{write_str, write_value};
use crate::message::Message;

/// What a request body holds besides the messages.
#[derive(Debug, Clone, PartialEq)]
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
    pub fn parse(value: &Value, path: &str) -> Result<Self, InputError> {
        let Value::Object(object) = value else {
            return Err(InputError::new(path, "expected an object { format, ...fields }"));
        };
        let mut fields = object.clone();
        let format = match fields.remove("format") {
            Some(Value::String(name)) => Format::from_name(&name).filter(|f| messages_key(*f).is_some()),
            _ => None,
        }
        .ok_or_else(|| {
            InputError::new(
                format!("{path}.format"),
                "expected \"anthropic\", \"openai\" or \"openai-responses\" (for the AI SDK, use toVercelAI)",
            )
        })?;
        let system = match format {
            Format::Anthropic => Vec::new(),
            _ => match fields.remove("system") {
                Some(system) => parse_system(&system, &format!("{path}.system"))?,
                None => Vec::new(),
            },
        };
        if let Some(key) = messages_key(format).filter(|key| fields.contains_key(*key)) {
            return Err(InputError::new(format!("{path}.{key}"), "is written by requestBody from the conversation"));
        }
        Ok(Self { format, fields, system })
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

/// Each message's wire JSON (for one format at a time) and the last body.
/// Its owner reports every change so that exactly the changed messages are rewritten.
#[derive(Debug, Clone, Default)]
pub struct WireCache {
    format: Option<Format>,
    /// Per message: its wire items, comma-separated, without brackets (empty when it writes none).
    fragments: Vec<Option<Vec<u8>>>,
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

impl WireCache {
    /// A message was appended.
    pub fn pushed(&mut self) {
        self.fragments.push(None);
    }

    /// Message `index` changed.
    pub fn changed(&mut self, index: usize) {
        self.fragments[index] = None;
        self.body_changed();
    }

    /// The first `n` messages were replaced by one.
    pub fn replaced_prefix(&mut self, n: usize) {
        crate::prefix::replace_prefix(&mut self.fragments, n, None);
        self.body_changed();
    }

    fn body_changed(&mut self) {
        if let Some(body) = &mut self.body {
            body.prefix = false;
        }
    }

    /// The body for `messages` (at `version`): kept while neither changed, extended
    /// when messages were only pushed since, else assembled again.
    pub fn body(&mut self, messages: &[Message], version: u64, request: &BodyRequest) -> &[u8] {
        let kept = match self.body.take() {
            Some(body) if body.version == version && &body.request == request => Ok(body),
            Some(body) if body.prefix && &body.request == request && self.extends(&body, request) => {
                Ok(self.append(body, messages, version))
            }
            // Assembled again, in the old body's memory.
            old => Err(old.map(|body| body.bytes).unwrap_or_default()),
        };
        let body = match kept {
            Ok(body) => body,
            Err(buffer) => Body {
                version,
                request: request.clone(),
                bytes: self.assemble(messages, request, buffer),
                messages: messages.len(),
                prefix: true,
            },
        };
        &self.body.insert(body).bytes
    }

    /// Whether new messages can go at the end of `body`: no system message was
    /// written after its last message.
    fn extends(&self, body: &Body, request: &BodyRequest) -> bool {
        self.format == Some(request.format) && request.system.iter().all(|s| s.position < body.messages)
    }

    /// `body` with the messages pushed since written at its end.
    fn append(&mut self, mut body: Body, messages: &[Message], version: u64) -> Body {
        let format = body.request.format;
        body.bytes.truncate(body.bytes.len() - b"]}".len());
        let mut first = body.bytes.last() == Some(&b'[');
        for (fragment, message) in self.fragments[body.messages..].iter_mut().zip(&messages[body.messages..]) {
            let fragment = fragment.get_or_insert_with(|| write_fragment(format, message));
            if !fragment.is_empty() {
                if !first {
                    body.bytes.push(b',');
                }
                first = false;
                body.bytes.extend_from_slice(fragment);
            }
        }
        body.bytes.extend_from_slice(b"]}");
        body.version = version;
        body.messages = messages.len();
        body
    }

    /// The whole body, written into `body` (cleared first).
    fn assemble(&mut self, messages: &[Message], request: &BodyRequest, mut body: Vec<u8>) -> Vec<u8> {
        if self.format != Some(request.format) {
            self.format = Some(request.format);
            self.fragments.iter_mut().for_each(|f| *f = None);
        }
        let mut size = 64;
        for (fragment, message) in self.fragments.iter_mut().zip(messages) {
            size += fragment.get_or_insert_with(|| write_fragment(request.format, message)).len() + 1;
        }
        // Room for the next turns, which are appended (see `append`).
        body.clear();
        body.reserve(size + size / 8);
        body.push(b'{');
        for (key, value) in &request.fields {
            write_str(&mut body, key);
            body.push(b':');
            write_value(&mut body, value);
            body.push(b',');
        }
        write_str(&mut body, messages_key(request.format).unwrap_or("messages"));
        body.extend_from_slice(b":[");
        let mut first = true;
        let mut item = |body: &mut Vec<u8>, bytes: &[u8]| {
            if !bytes.is_empty() {
                if !first {
                    body.push(b',');
                }
                first = false;
                body.extend_from_slice(bytes);
            }
        };
        for (index, fragment) in self.fragments.iter().enumerate() {
            // A scan rather than a sort (system messages are few): no sort in the module for this.
            for s in request.system.iter().filter(|s| s.position == index) {
                item(&mut body, &serde_json::to_vec(&s.message).unwrap_or_default());
            }
            item(&mut body, fragment.as_deref().unwrap_or_default());
        }
        // Past the end: in the order given, as `interleave_system` does.
        for s in request.system.iter().filter(|s| s.position >= self.fragments.len()) {
            item(&mut body, &serde_json::to_vec(&s.message).unwrap_or_default());
        }
        body.extend_from_slice(b"]}");
        body
    }
}

/// One message's wire items, comma-separated.
fn write_fragment(format: Format, message: &Message) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    if format == Format::Anthropic && anthropic::write_message_json(message, &mut out) {
        return out;
    }
    let mut items = Vec::new();
    match format {
        Format::Anthropic => items.push(anthropic::write_message(message)),
        Format::OpenAi => openai::write_message(message, &mut items),
        _ => openai_responses::write_message(message, &mut items),
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_value(&mut out, item);
    }
    out
}

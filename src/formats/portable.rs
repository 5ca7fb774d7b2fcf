//! Blocks with an equivalent in several formats: images, documents and other
//! files, thinking and reasoning, refusals, and text in another format's part
//! shape.
//!
//! A message keeps its blocks in the shapes of the format it was read from,
//! which the `from_*` readers record in its `extra` as `source_format` (none:
//! the model's own shapes, which are Anthropic's). Written to that same format,
//! its blocks are copied, so a round trip gives the input back. Written to
//! another, `for_format` converts each block the model has no kind of its own
//! for ([`ContentBlock::Other`], at the top level or in a tool result's content):
//! it is recognised in whichever format's shape it has and written in the
//! target's, or left out and reported as a [`Dropped`] when the target has no
//! equivalent, never passed on in a shape the target rejects.
//!
//! | Block | Anthropic | Chat Completions | Responses | AI SDK |
//! |---|---|---|---|---|
//! | image, base64 | `image`, `source.type: "base64"` | `image_url` with a `data:` URL | `input_image` with a `data:` URL | `file` (image `mediaType`), or `image` |
//! | image, URL | `image`, `source.type: "url"` | `image_url` | `input_image` | `file`, or `image` |
//! | PDF, base64 | `document`, `source.type: "base64"` | `file` with `file_data` | `input_file` with `file_data` | `file` |
//! | PDF, URL | `document`, `source.type: "url"` | dropped | `input_file` with `file_url` | `file` |
//! | in a tool result | `image`, `document` | dropped (text only) | `input_image`, `input_file` | `image-data`, `image-url`, `file-data`, `file-url` (or `media`) |
//! | thinking | `thinking` (needs its signature) | dropped | dropped | `reasoning`, signature in `providerOptions.anthropic` |
//! | redacted thinking | `redacted_thinking` | dropped | dropped | `reasoning`, `providerOptions.anthropic.redactedData` |
//! | OpenAI reasoning | dropped | dropped | `reasoning` item | a `reasoning` part per summary, `providerOptions.openai.itemId` |
//! | refusal | text | `refusal` | `refusal` | text |
//!
//! The AI SDK's `image` parts are read as well as its `file` parts, `media` as
//! well as the typed parts of a tool result; a media type missing from base64
//! data is read off its first bytes, as the AI SDK does. A document's `title`
//! is a file's `filename` and back. Tool errors are not blocks: the AI SDK
//! writes `is_error` as an `error-text` output (whose non-text blocks are
//! dropped), Chat Completions and Responses have no error flag and keep the
//! result's text.
//!
//! The provider fields of a message written to another format, and of its text
//! and tool blocks (an item's `id` and `status`, `annotations`, `cache_control`,
//! the AI SDK's `toolName` and `providerOptions`, …), stay behind: they are the
//! first format's, and the target's API may reject them.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::formats::{has_fields, markers, put, put_str, Format, SOURCE_FORMAT};
use crate::model::message::{ContentBlock, Message, TextBlock, ToolResultBlock, ToolResultContent, ToolUseBlock};

/// A block that a writer left out because its format has no equivalent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The index of the message among the messages written.
    pub message_index: usize,
    /// The index of the block in the message's content.
    pub block_index: usize,
    /// When the block was in the content of the tool result at `block_index`: its index there.
    pub part_index: Option<usize>,
    /// The block's `type` (empty when it has none).
    pub block_type: String,
    /// Why the format cannot take it.
    pub reason: &'static str,
}

const NO_EQUIVALENT: &str = "the format has no equivalent of this block";
const CHAT_REASONING: &str = "Chat Completions takes no thinking or reasoning";
const ANTHROPIC_REASONING: &str = "Anthropic takes back only thinking it signed";
const RESPONSES_REASONING: &str = "the Responses API takes back only its own reasoning items";
const REASONING_IN_RESULT: &str = "a tool result holds no thinking or reasoning";
const CHAT_RESULT: &str = "Chat Completions tool messages hold text only";
const CHAT_FILE: &str = "Chat Completions takes files as base64 PDFs only";
const ANTHROPIC_FILE: &str = "Anthropic takes documents as PDFs only";
const ANTHROPIC_IMAGE: &str = "Anthropic takes JPEG, PNG, GIF and WebP images only";
const IMAGE_TYPE: &str = "a base64 image of unknown media type";
const ERROR_TEXT: &str = "an AI SDK error output holds text only";

/// The image media types Anthropic takes.
const ANTHROPIC_IMAGES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];
const PDF: &str = "application/pdf";
/// The media type of an image whose type is not known.
const ANY_IMAGE: &str = "image/*";
/// How base64 data starts for the media types recognised by their first bytes.
const SIGNATURES: &[(&str, &str)] = &[
    ("iVBORw0KGgo", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
    ("JVBERi0", PDF),
];

/// Records in each of `messages` that its blocks have `format`'s shapes.
pub(crate) fn mark(messages: &mut [Message], format: Format) {
    for message in messages {
        put_str(&mut message.extra, SOURCE_FORMAT, format.name());
    }
}

/// `message` as the writer of `target` takes it (see the module docs): itself
/// when nothing needs converting, else a copy with its blocks converted and,
/// when it was read from another format, without that format's fields, which
/// the target has no use for and its API may reject; `None` when nothing is
/// left of it. What is left out is added to `dropped`, as the message at `index`.
pub(crate) fn for_format<'a>(
    message: &'a Message,
    index: usize,
    target: Format,
    dropped: &mut Vec<Dropped>,
) -> Option<Cow<'a, Message>> {
    let source = message.extra.get(SOURCE_FORMAT).and_then(Value::as_str).and_then(Format::from_name);
    let converts = |block: &ContentBlock| match block {
        ContentBlock::Other(_) => true,
        ContentBlock::Text(t) => has_fields(&t.extra),
        ContentBlock::ToolUse(u) => has_fields(&u.extra),
        ContentBlock::ToolResult(r) => {
            has_fields(&r.extra) || matches!(&r.content, ToolResultContent::Blocks(b) if !b.is_empty())
        }
    };
    if source.unwrap_or(Format::Anthropic) == target
        || !has_fields(&message.extra) && !message.content.iter().any(converts)
    {
        return Some(Cow::Borrowed(message));
    }
    let mut site = Site { target, dropped, message_index: index, block_index: 0 };
    let mut content = Vec::with_capacity(message.content.len());
    for (i, block) in message.content.iter().enumerate() {
        site.block_index = i;
        match block {
            ContentBlock::Other(map) => site.convert(map, None, &mut content),
            ContentBlock::ToolResult(result) => content.push(ContentBlock::ToolResult(site.convert_result(result))),
            block => content.push(without_fields(block)),
        }
    }
    (!content.is_empty()).then(|| {
        let mut copy = message.clone();
        copy.content = content;
        copy.extra = markers(&message.extra);
        Cow::Owned(copy)
    })
}

/// A text block or tool call without its provider fields.
fn without_fields(block: &ContentBlock) -> ContentBlock {
    let mut block = block.clone();
    if let ContentBlock::Text(TextBlock { extra, .. }) | ContentBlock::ToolUse(ToolUseBlock { extra, .. }) = &mut block
    {
        *extra = markers(extra);
    }
    block
}

/// Where the blocks being converted are, and where what is left out goes.
struct Site<'a> {
    target: Format,
    dropped: &'a mut Vec<Dropped>,
    message_index: usize,
    block_index: usize,
}

impl Site<'_> {
    /// Appends the block `map` in the target's shape to `out` (nothing when it
    /// is left out); `part` is its index in a tool result's content.
    fn convert(&mut self, map: &Map<String, Value>, part: Option<usize>, out: &mut Vec<ContentBlock>) {
        let written = match read(map) {
            Some(block) => write(&block, self.target, part.is_some(), out),
            None => Err(NO_EQUIVALENT),
        };
        if let Err(reason) = written {
            self.drop(map, part, reason);
        }
    }

    /// A tool result with its content blocks in the target's shapes.
    fn convert_result(&mut self, result: &ToolResultBlock) -> ToolResultBlock {
        let mut content = result.content.clone();
        if let ToolResultContent::Blocks(blocks) = &mut content {
            let error_text = self.target == Format::VercelAi && result.is_error;
            for (j, block) in std::mem::take(blocks).into_iter().enumerate() {
                match block {
                    ContentBlock::Text(t) if self.target == Format::OpenAiResponses => {
                        blocks.push(ContentBlock::Other(part("input_text", &[("text", &t.text)])))
                    }
                    ContentBlock::Other(map) => {
                        let before = blocks.len();
                        self.convert(&map, Some(j), blocks);
                        if error_text && blocks[before..].iter().any(|b| !matches!(b, ContentBlock::Text(_))) {
                            blocks.truncate(before);
                            self.drop(&map, Some(j), ERROR_TEXT);
                        }
                    }
                    block => blocks.push(without_fields(&block)),
                }
            }
        }
        ToolResultBlock {
            tool_use_id: result.tool_use_id.clone(),
            content,
            is_error: result.is_error,
            compact_summary: result.compact_summary.clone(),
            extra: markers(&result.extra),
        }
    }

    fn drop(&mut self, map: &Map<String, Value>, part_index: Option<usize>, reason: &'static str) {
        self.dropped.push(Dropped {
            message_index: self.message_index,
            block_index: self.block_index,
            part_index,
            block_type: str_at(map, &["type"]).unwrap_or_default().to_owned(),
            reason,
        });
    }
}

/// A block as every format can say it.
enum Portable<'a> {
    /// Text in another format's part shape (`input_text`, `output_text`).
    Text(&'a str),
    /// What the model refused to do, in its words.
    Refusal(&'a str),
    /// An image, a document or another file.
    Media(Media<'a>),
    /// Anthropic thinking (from Anthropic itself, or an AI SDK `reasoning` part).
    Thinking { text: &'a str, signature: Option<&'a str> },
    /// Anthropic's encrypted thinking.
    Redacted(&'a str),
    /// A Responses API reasoning item.
    Reasoning { id: &'a str, encrypted: Option<&'a str>, summary: Vec<&'a str> },
}

/// An image, a document or another file.
struct Media<'a> {
    media_type: &'a str,
    data: Data<'a>,
    filename: Option<&'a str>,
}

/// Where a file's bytes are.
enum Data<'a> {
    Base64(&'a str),
    Url(&'a str),
}

impl<'a> Media<'a> {
    /// Base64 `data`; a vague image type (`image`, `image/*`) is refined from its first bytes.
    fn base64(media_type: &'a str, data: &'a str, filename: Option<&'a str>) -> Self {
        let vague = media_type.is_empty() || media_type == "image" || media_type == ANY_IMAGE;
        let sniffed = SIGNATURES.iter().find(|(start, _)| data.starts_with(start)).map(|(_, t)| *t);
        let media_type = match sniffed {
            Some(sniffed) if vague => sniffed,
            _ => media_type,
        };
        Media { media_type, data: Data::Base64(data), filename }
    }

    /// A file at `url`, of type `media_type` unless a base64 `data:` URL says otherwise.
    fn url(url: &'a str, media_type: &'a str, filename: Option<&'a str>) -> Self {
        match url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,")) {
            Some((media_type, data)) => Media::base64(media_type, data, filename),
            None => Media { media_type, data: Data::Url(url), filename },
        }
    }

    /// Base64 data, or a `data:` URL holding it (as Chat Completions' and Responses' `file_data`).
    fn file_data(data: &'a str, filename: Option<&'a str>) -> Self {
        let by_name = filename.filter(|f| f.ends_with(".pdf") || f.ends_with(".PDF")).map_or("", |_| PDF);
        match data.starts_with("data:") {
            true => Media::url(data, by_name, filename),
            false => Media::base64(by_name, data, filename),
        }
    }

    /// The AI SDK's `data` (or `image`): base64, a URL, or `{ type: "data" | "url", … }`.
    fn ai_sdk(data: &'a Value, media_type: &'a str, filename: Option<&'a str>) -> Option<Self> {
        let data = match data {
            Value::Object(tagged) => str_at(tagged, &["data"]).or_else(|| str_at(tagged, &["url"]))?,
            data => data.as_str()?,
        };
        let is_url = ["http://", "https://", "data:"].iter().any(|scheme| data.starts_with(scheme));
        Some(if is_url { Media::url(data, media_type, filename) } else { Media::base64(media_type, data, filename) })
    }

    fn is_image(&self) -> bool {
        self.media_type.starts_with("image")
    }

    /// Whether the media type is a definite one, not `image/*`.
    fn is_definite(&self) -> bool {
        self.media_type.contains('/') && !self.media_type.ends_with('*')
    }

    /// The file as a URL: its own, or a base64 `data:` URL.
    fn data_url(&self) -> Cow<'a, str> {
        match self.data {
            Data::Url(url) => Cow::Borrowed(url),
            Data::Base64(data) => Cow::Owned(["data:", self.media_type, ";base64,", data].concat()),
        }
    }

    /// The file's data as the AI SDK writes it: base64 or a URL.
    fn raw(&self) -> &'a str {
        match self.data {
            Data::Base64(data) | Data::Url(data) => data,
        }
    }
}

/// The string at `path` in `map`.
fn str_at<'a>(map: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
    let (last, objects) = path.split_last()?;
    let mut map = map;
    for key in objects {
        map = map.get(*key)?.as_object()?;
    }
    map.get(*last)?.as_str()
}

/// Recognises a block in any format's shape.
fn read(map: &Map<String, Value>) -> Option<Portable<'_>> {
    let s = |path: &[&str]| str_at(map, path);
    Some(match s(&["type"])? {
        "input_text" | "output_text" => Portable::Text(s(&["text"])?),
        "refusal" => Portable::Refusal(s(&["refusal"])?),
        "thinking" => Portable::Thinking { text: s(&["thinking"])?, signature: s(&["signature"]) },
        "redacted_thinking" => Portable::Redacted(s(&["data"])?),
        "reasoning" => match map.get("summary") {
            Some(Value::Array(parts)) => {
                let mut summary = Vec::new();
                for part in parts {
                    summary.push(part.get("text")?.as_str()?);
                }
                Portable::Reasoning { id: s(&["id"])?, encrypted: s(&["encrypted_content"]), summary }
            }
            _ => {
                let text = s(&["text"])?;
                let anthropic = |key| s(&["providerOptions", "anthropic", key]);
                let openai = |key| s(&["providerOptions", "openai", key]);
                match (anthropic("redactedData"), openai("itemId")) {
                    (Some(data), _) => Portable::Redacted(data),
                    (None, Some(id)) => Portable::Reasoning {
                        id,
                        encrypted: openai("reasoningEncryptedContent"),
                        summary: if text.is_empty() { Vec::new() } else { vec![text] },
                    },
                    (None, None) => Portable::Thinking { text, signature: anthropic("signature") },
                }
            }
        },
        ty => Portable::Media(read_media(map, ty)?),
    })
}

/// Recognises an image, document or file block of type `ty`.
fn read_media<'a>(map: &'a Map<String, Value>, ty: &str) -> Option<Media<'a>> {
    let s = |path: &[&str]| str_at(map, path);
    Some(match ty {
        // Anthropic
        "image" | "document" if map.contains_key("source") => {
            let (kind, filename) = if ty == "image" { (ANY_IMAGE, None) } else { (PDF, s(&["title"])) };
            match s(&["source", "type"])? {
                "base64" => Media::base64(s(&["source", "media_type"])?, s(&["source", "data"])?, filename),
                "url" => Media::url(s(&["source", "url"])?, kind, filename),
                _ => return None,
            }
        }
        // Chat Completions
        "image_url" => Media::url(s(&["image_url", "url"])?, ANY_IMAGE, None),
        "file" if map.contains_key("file") => Media::file_data(s(&["file", "file_data"])?, s(&["file", "filename"])),
        // Responses
        "input_image" => Media::url(s(&["image_url"])?, ANY_IMAGE, None),
        "input_file" => match s(&["file_data"]) {
            Some(data) => Media::file_data(data, s(&["filename"])),
            None => Media::url(s(&["file_url"])?, PDF, s(&["filename"])),
        },
        // AI SDK
        "image" => Media::ai_sdk(map.get("image")?, s(&["mediaType"]).unwrap_or(ANY_IMAGE), None)?,
        "file" => Media::ai_sdk(map.get("data")?, s(&["mediaType"])?, s(&["filename"]))?,
        "media" | "image-data" | "file-data" => Media::base64(s(&["mediaType"])?, s(&["data"])?, s(&["filename"])),
        "image-url" => Media::url(s(&["url"])?, ANY_IMAGE, None),
        "file-url" => Media::url(s(&["url"])?, s(&["mediaType"]).unwrap_or(PDF), None),
        _ => return None,
    })
}

/// An object of string fields.
fn obj(fields: &[(&str, &str)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (key, value) in fields {
        put_str(&mut map, key, value);
    }
    map
}

/// A part `{ type: ty, …fields }`.
fn part(ty: &str, fields: &[(&str, &str)]) -> Map<String, Value> {
    let mut map = obj(fields);
    put_str(&mut map, "type", ty);
    map
}

/// A part `{ type: ty, [key]: object }`.
fn holding(ty: &str, key: &str, object: Map<String, Value>) -> Map<String, Value> {
    let mut map = part(ty, &[]);
    put(&mut map, key, Value::Object(object));
    map
}

/// Appends `block` in `target`'s shape to `out`, or says why it has none;
/// `nested` when it is in a tool result's content.
fn write(block: &Portable, target: Format, nested: bool, out: &mut Vec<ContentBlock>) -> Result<(), &'static str> {
    use Format::{Anthropic, OpenAi, OpenAiResponses, VercelAi};
    let map = match (block, target) {
        (Portable::Text(text) | Portable::Refusal(text), OpenAiResponses) if nested => {
            part("input_text", &[("text", text)])
        }
        (Portable::Refusal(text), OpenAi | OpenAiResponses) if !nested => part("refusal", &[("refusal", text)]),
        (Portable::Text(text) | Portable::Refusal(text), _) => {
            out.push(ContentBlock::Text(TextBlock { text: (*text).to_owned(), extra: Map::new() }));
            return Ok(());
        }
        (Portable::Media(media), _) => write_media(media, target, nested)?,
        _ if nested => return Err(REASONING_IN_RESULT),
        (Portable::Thinking { text, signature: Some(signature) }, Anthropic) => {
            part("thinking", &[("thinking", text), ("signature", signature)])
        }
        (Portable::Redacted(data), Anthropic) => part("redacted_thinking", &[("data", data)]),
        (Portable::Reasoning { id, encrypted, summary }, OpenAiResponses) => {
            let mut parts = Vec::new();
            for text in summary {
                parts.push(Value::Object(part("summary_text", &[("text", text)])));
            }
            // The AI SDK has a part per summary, each naming the item: consecutive ones are one item.
            if let Some(ContentBlock::Other(last)) = out.last_mut() {
                if str_at(last, &["type"]) == Some("reasoning") && str_at(last, &["id"]) == Some(id) {
                    if let Some(Value::Array(all)) = last.get_mut("summary") {
                        all.append(&mut parts);
                        return Ok(());
                    }
                }
            }
            let mut item = part("reasoning", &[("id", id)]);
            put(&mut item, "summary", Value::Array(parts));
            if let Some(encrypted) = encrypted {
                put_str(&mut item, "encrypted_content", encrypted);
            }
            item
        }
        (Portable::Thinking { text, signature }, VercelAi) => {
            reasoning_part(text, "anthropic", &[("signature", *signature)])
        }
        (Portable::Redacted(data), VercelAi) => reasoning_part("", "anthropic", &[("redactedData", Some(data))]),
        (Portable::Reasoning { id, encrypted, summary }, VercelAi) => {
            let options = [("itemId", Some(*id)), ("reasoningEncryptedContent", *encrypted)];
            let (last, rest) = summary.split_last().unwrap_or((&"", &[]));
            for text in rest {
                out.push(ContentBlock::Other(reasoning_part(text, "openai", &options)));
            }
            reasoning_part(last, "openai", &options)
        }
        (_, OpenAi) => return Err(CHAT_REASONING),
        (_, Anthropic) => return Err(ANTHROPIC_REASONING),
        _ => return Err(RESPONSES_REASONING),
    };
    out.push(ContentBlock::Other(map));
    Ok(())
}

/// An AI SDK `reasoning` part, with the options given for `provider` (none when all are absent).
fn reasoning_part(text: &str, provider: &str, options: &[(&str, Option<&str>)]) -> Map<String, Value> {
    let mut reasoning = part("reasoning", &[("text", text)]);
    let mut fields = Map::new();
    for (key, value) in options {
        if let Some(value) = value {
            put_str(&mut fields, key, value);
        }
    }
    if !fields.is_empty() {
        let mut by_provider = Map::new();
        put(&mut by_provider, provider, Value::Object(fields));
        put(&mut reasoning, "providerOptions", Value::Object(by_provider));
    }
    reasoning
}

/// An image or file block in `target`'s shape (see the module docs).
fn write_media(media: &Media, target: Format, nested: bool) -> Result<Map<String, Value>, &'static str> {
    let (image, media_type) = (media.is_image(), media.media_type);
    let base64 = match media.data {
        Data::Base64(data) => Some(data),
        Data::Url(_) => None,
    };
    let pdf = media_type == PDF;
    // OpenAI wants a name with a file's data.
    let filename = media.filename.or((pdf && base64.is_some()).then_some("document.pdf"));
    if matches!(target, Format::OpenAi | Format::OpenAiResponses) && image && base64.is_some() && !media.is_definite() {
        return Err(IMAGE_TYPE);
    }
    let url = media.data_url();
    let mut block = match (target, base64) {
        (Format::Anthropic, _) => {
            let ty = match base64 {
                Some(_) if image && !ANTHROPIC_IMAGES.contains(&media_type) => return Err(ANTHROPIC_IMAGE),
                _ if image => "image",
                _ if pdf => "document",
                _ => return Err(ANTHROPIC_FILE),
            };
            let source = match base64 {
                Some(data) => part("base64", &[("media_type", media_type), ("data", data)]),
                None => part("url", &[("url", &url)]),
            };
            let mut block = holding(ty, "source", source);
            if let Some(title) = media.filename.filter(|_| !image) {
                put_str(&mut block, "title", title);
            }
            return Ok(block);
        }
        (Format::OpenAi, _) if nested => return Err(CHAT_RESULT),
        (Format::OpenAi, _) if image => holding("image_url", "image_url", obj(&[("url", &url)])),
        (Format::OpenAi, Some(_)) if pdf => {
            let file = obj(&[("filename", filename.unwrap_or_default()), ("file_data", &url)]);
            return Ok(holding("file", "file", file));
        }
        (Format::OpenAi, _) => return Err(CHAT_FILE),
        (Format::OpenAiResponses, _) if image => part("input_image", &[("image_url", &url), ("detail", "auto")]),
        (Format::OpenAiResponses, Some(_)) => part("input_file", &[("file_data", &url)]),
        (Format::OpenAiResponses, None) => part("input_file", &[("file_url", &url)]),
        (_, _) if !nested => part("file", &[("mediaType", media_type), ("data", media.raw())]),
        (_, Some(data)) if image => part("image-data", &[("data", data), ("mediaType", media_type)]),
        (_, None) if image => part("image-url", &[("url", &url)]),
        (_, Some(data)) => part("file-data", &[("data", data), ("mediaType", media_type)]),
        (_, None) => part("file-url", &[("url", &url), ("mediaType", media_type)]),
    };
    if let Some(filename) = filename.filter(|_| !image) {
        put_str(&mut block, "filename", filename);
    }
    Ok(block)
}

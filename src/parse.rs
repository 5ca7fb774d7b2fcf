//! Reading the message model from JSON, with the path of every mistake.
//!
//! Hand-written rather than derived so that each error names the exact field
//! (`messages[3].content[0].tool_use_id`) and says what was expected.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::message::{
    new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock, ToolResultContent,
    ToolUseBlock, TurnId,
};

/// Parses an array of messages; `path` names the array in errors (e.g. `"messages"`).
pub fn parse_messages(value: &Value, path: &str) -> Result<Vec<Message>, InputError> {
    let items = value
        .as_array()
        .ok_or_else(|| InputError::new(path, format!("expected an array of messages, got {}", kind(value))))?;
    items.iter().enumerate().map(|(i, m)| parse_message(m, &format!("{path}[{i}]"))).collect()
}

/// Parses one message; missing `id`, `session_id` and `created_at` are filled in.
pub fn parse_message(value: &Value, path: &str) -> Result<Message, InputError> {
    let obj = object(value, path, "a message object")?;
    let mut extra = Map::new();
    let mut role = None;
    let mut id = None;
    let mut session_id = None;
    let mut turn_id = None;
    let mut created_at = None;
    let mut content = None;
    let mut summary_of = None;
    for (key, v) in obj {
        let p = || format!("{path}.{key}");
        match key.as_str() {
            "role" => {
                role = Some(match v.as_str() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    Some(other) => {
                        return Err(InputError::new(
                            p(),
                            format!("expected \"user\" or \"assistant\", got {}", crate::text::quoted(other)),
                        ))
                    }
                    None => {
                        return Err(InputError::new(
                            p(),
                            format!("expected \"user\" or \"assistant\", got {}", kind(v)),
                        ))
                    }
                })
            }
            "id" => id = Some(string(v, &p())?.to_owned()),
            "session_id" => session_id = Some(integer(v, &p())?),
            "turn_id" => turn_id = Some(parse_turn_id(v, &p())?),
            "created_at" => {
                let s = string(v, &p())?;
                chrono::DateTime::parse_from_rfc3339(s).map_err(|e| {
                    InputError::new(
                        p(),
                        format!("expected an RFC 3339 timestamp ({e}), got {}", crate::text::quoted(s)),
                    )
                })?;
                created_at = Some(s.to_owned());
            }
            "content" => content = Some(parse_content(v, &p())?),
            "summary_of" if !v.is_null() => summary_of = Some(parse_summary_of(v, &p())?),
            _ => {
                extra.insert(key.clone(), v.clone());
            }
        }
    }
    Ok(Message {
        role: role.ok_or_else(|| missing(path, "role"))?,
        id: id.unwrap_or_else(new_message_id),
        session_id: session_id.unwrap_or(0),
        turn_id: turn_id.ok_or_else(|| missing(path, "turn_id"))?,
        created_at: created_at.unwrap_or_else(now_rfc3339),
        content: content.ok_or_else(|| missing(path, "content"))?,
        summary_of,
        extra,
    })
}

/// Parses a `{ owner, number }` turn id.
pub fn parse_turn_id(value: &Value, path: &str) -> Result<TurnId, InputError> {
    let obj = object(value, path, "a turn id { owner, number }")?;
    let owner = obj.get("owner").ok_or_else(|| missing(path, "owner"))?;
    let number = obj.get("number").ok_or_else(|| missing(path, "number"))?;
    Ok(TurnId {
        owner: string(owner, &format!("{path}.owner"))?.to_owned(),
        number: integer(number, &format!("{path}.number"))?,
    })
}

fn parse_summary_of(value: &Value, path: &str) -> Result<SummaryOf, InputError> {
    let obj = object(value, path, "an object { messages, turns }")?;
    let count = |name: &str| -> Result<usize, InputError> {
        let p = format!("{path}.{name}");
        let n = integer(obj.get(name).ok_or_else(|| missing(path, name))?, &p)?;
        usize::try_from(n).map_err(|_| InputError::new(p, format!("expected a non-negative integer, got {n}")))
    };
    Ok(SummaryOf { messages: count("messages")?, turns: count("turns")? })
}

fn parse_content(value: &Value, path: &str) -> Result<Vec<ContentBlock>, InputError> {
    let items = value
        .as_array()
        .ok_or_else(|| InputError::new(path, format!("expected an array of content blocks, got {}", kind(value))))?;
    items.iter().enumerate().map(|(i, b)| parse_block(b, &format!("{path}[{i}]"))).collect()
}

/// Parses one content block; unknown block types are kept verbatim.
pub fn parse_block(value: &Value, path: &str) -> Result<ContentBlock, InputError> {
    let obj = object(value, path, "a content block object")?;
    let ty = obj.get("type").ok_or_else(|| missing(path, "type"))?;
    let ty = string(ty, &format!("{path}.type"))?;
    let rest = |known: &[&str]| -> Map<String, Value> {
        obj.iter()
            .filter(|(k, _)| k.as_str() != "type" && !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let field = |name: &str| obj.get(name).ok_or_else(|| missing(path, name));
    let sub = |name: &str| format!("{path}.{name}");
    Ok(match ty {
        "text" => ContentBlock::Text(TextBlock {
            text: string(field("text")?, &sub("text"))?.to_owned(),
            extra: rest(&["text"]),
        }),
        "tool_use" => ContentBlock::ToolUse(ToolUseBlock {
            id: string(field("id")?, &sub("id"))?.to_owned(),
            name: string(field("name")?, &sub("name"))?.to_owned(),
            input: field("input")?.clone(),
            extra: rest(&["id", "name", "input"]),
        }),
        "tool_result" => ContentBlock::ToolResult(ToolResultBlock {
            tool_use_id: string(field("tool_use_id")?, &sub("tool_use_id"))?.to_owned(),
            content: parse_tool_result_content(field("content")?, &sub("content"))?,
            is_error: match obj.get("is_error") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(InputError::new(sub("is_error"), format!("expected a boolean, got {}", kind(other))))
                }
            },
            compact_summary: match obj.get("compact_summary") {
                None | Some(Value::Null) => None,
                Some(v) => Some(string(v, &sub("compact_summary"))?.to_owned()),
            },
            extra: rest(&["tool_use_id", "content", "is_error", "compact_summary"]),
        }),
        _ => ContentBlock::Other(obj.clone()),
    })
}

/// Parses a tool result's content: a string, or an array of block objects kept verbatim.
pub fn parse_tool_result_content(value: &Value, path: &str) -> Result<ToolResultContent, InputError> {
    match value {
        Value::String(s) => Ok(ToolResultContent::Text(s.clone())),
        Value::Array(blocks) => {
            for (i, b) in blocks.iter().enumerate() {
                object(b, &format!("{path}[{i}]"), "a content block object")?;
            }
            Ok(ToolResultContent::Blocks(blocks.clone()))
        }
        other => {
            Err(InputError::new(path, format!("expected a string or an array of content blocks, got {}", kind(other))))
        }
    }
}

/// Parses a `{ toolUseId: summary }` object of compact summaries.
pub fn parse_summaries(value: &Value, path: &str) -> Result<HashMap<String, String>, InputError> {
    match value {
        Value::Null => Ok(HashMap::new()),
        Value::Object(obj) => {
            obj.iter().map(|(k, v)| Ok((k.clone(), string(v, &format!("{path}.{k}"))?.to_owned()))).collect()
        }
        other => {
            Err(InputError::new(path, format!("expected an object of tool_use_id → summary, got {}", kind(other))))
        }
    }
}

fn object<'a>(value: &'a Value, path: &str, what: &str) -> Result<&'a Map<String, Value>, InputError> {
    value.as_object().ok_or_else(|| InputError::new(path, format!("expected {what}, got {}", kind(value))))
}

fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, InputError> {
    value.as_str().ok_or_else(|| InputError::new(path, format!("expected a string, got {}", kind(value))))
}

fn integer(value: &Value, path: &str) -> Result<i64, InputError> {
    value.as_i64().ok_or_else(|| InputError::new(path, format!("expected an integer, got {}", describe(value))))
}

fn missing(path: &str, field: &str) -> InputError {
    InputError::new(format!("{path}.{field}"), "is required but missing")
}

/// The JSON kind of a value, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Number(n) => format!("number {n}"),
        other => kind(other).to_owned(),
    }
}

//! Reading messages from JSON text (`parse_messages_text`, what `pushMany` does)
//! against the `Value` path (`serde_json::from_str` then `parse_messages`): the
//! same messages and the same errors for any text, and the text reader answering
//! by itself for the usual inputs (else it would only be slower).

use std::path::PathBuf;

use context_compactor::formats::{from_anthropic, from_openai};
use context_compactor::parse::{parse_message, parse_message_text, parse_messages, parse_messages_text, read_text};
use context_compactor::{parse_text, InputError, Message};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// What the `Value` path gives for `text`.
fn by_value(text: &str) -> Result<Vec<Message>, InputError> {
    parse_messages(&read_text(text, "messages")?, "messages")
}

/// Asserts that the paths agree on `text`; whether the text reader answered.
fn agree(text: &str) -> bool {
    let expected = by_value(text);
    let fast = parse_text::messages(text);
    if let Some(fast) = &fast {
        assert_eq!(Ok(fast), expected.as_ref(), "{text}");
    }
    assert_eq!(parse_messages_text(text, "messages"), expected, "{text}");
    fast.is_some()
}

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conversations");

fn transcript_texts() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .expect("shared/conversations is beside the repository")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.to_string_lossy().into_owned(), std::fs::read_to_string(&p).expect("readable transcript")))
        .collect()
}

#[test]
fn real_transcripts_read_the_same_by_the_text_reader_alone() {
    let mut read = 0;
    for (name, text) in transcript_texts() {
        // The provider file itself is not the message model: both paths refuse it alike.
        agree(&text);
        let value = read_text(&text, "conversation").unwrap();
        let messages = if name.contains(".anthropic.") {
            from_anthropic(&value).unwrap().messages
        } else {
            from_openai(&value).unwrap().messages
        };
        for model in [serde_json::to_string(&messages).unwrap(), serde_json::to_string_pretty(&messages).unwrap()] {
            assert!(agree(&model), "{name}: the text reader gave up");
            assert_eq!(parse_messages_text(&model, "messages").unwrap(), messages, "{name}");
        }
        read += 1;
    }
    assert!(read >= 30, "only {read} transcripts");
}

const ID: &str = r#""id":"m1","created_at":"2024-05-01T10:00:00Z","#;

/// `[message]` with the usual id and timestamp before `fields`.
fn one(fields: &str) -> String {
    format!("[{{{ID}{fields}}}]")
}

const USER: &str = r#""role":"user","turn_id":{"owner":"u","number":1},"#;

#[test]
fn unusual_but_valid_messages_and_blocks_are_read_through_a_value_one_at_a_time() {
    for fields in [
        r#""r\u006fle":"user","turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""role":"us\u0065r","turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""role":"user","role":"assistant","turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""role":"user","turn_id":{"owner":"u","number":1,"number":2,"x":[1]},"content":[]"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":{"messages":1,"turns":2},"summary_of":null"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":null,"meta":{"a":1},"meta":2"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":{"turns":2,"messages":1,"x":"y"}"#,
        &format!(r#"{USER}"content":[{{"text":"hi","type":"text"}}]"#),
        &format!(r#"{USER}"content":[{{"type":"text","text":"a","text":"b"}}]"#),
        &format!(r#"{USER}"content":[{{"type":"text","type":"image","text":"b"}}]"#),
        &format!(r#"{USER}"content":[{{"type":"image","source":{{"data":"x"}}}}]"#),
        &format!(r#"{USER}"content":[{{"type":"t\u0065xt","text":"b"}}]"#),
        &format!(r#"{USER}"content":[{{"type":"text","t\u0065xt":"b","text":"c"}}]"#),
        &format!(r#"{USER}"content":[{{"type":"text","text":"b","id":"x","input":[1],"is_error":"no"}}]"#),
        &format!(
            r#"{USER}"content":[{{"type":"tool_use","id":"t","name":"n","input":{{"a":[1.5,-0,1e3]}},"x":null}}]"#
        ),
        &format!(
            r#"{USER}"content":[{{"type":"tool_result","tool_use_id":"t","content":[{{"type":"text","text":"x"}}],"is_error":null,"compact_summary":null}}]"#
        ),
        &format!(
            r#"{USER}"content":[{{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true,"compact_summary":"s"}}]"#
        ),
    ] {
        assert!(agree(&one(fields)), "{fields}");
    }
}

#[test]
fn strings_numbers_and_whitespace_read_as_serde_json_reads_them() {
    for text in
        [r#""a\"b\\c\/d\b\f\n\r\t""#, r#""\u00e9\u4e2d\ud83d\ude00 \u0000""#, r#""é😀 plain""#, r#""a\\""#, r#""""#]
    {
        let fields = format!(r#"{USER}"content":[{{"type":"text","text":{text}}}]"#);
        assert!(agree(&one(&fields)), "{text}");
    }
    for number in [
        "0",
        "-5",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "9223372036854775807",
        "-9223372036854775808",
    ] {
        assert!(agree(&one(&format!(r#"{USER}"content":[],"session_id":{number}"#))), "{number}");
    }
    assert!(agree(&format!(" \n[ {{ {} \"role\" : \"user\" ,\t\"turn_id\":{{ \"owner\":\"u\" , \"number\" : 1 }} , \"content\" : [ ] }} ] \r\n", ID)));
    assert!(agree("[]"));
    // A count beyond usize on wasm32 (an error there), not natively.
    agree(&one(&format!(r#"{USER}"content":[],"summary_of":{{"messages":1,"turns":99999999999}}"#)));
}

#[test]
fn every_mistake_is_the_value_paths_error() {
    let mut texts: Vec<String> =
        [r#""a\ud800b""#, r#""\udc00""#, r#""\ud83d\u0041""#, r#""\x""#, r#""\u12g4""#, "\"tab\there\"", r#""a"#]
            .iter()
            .map(|s| one(&format!(r#"{USER}"content":[{{"type":"text","text":{s}}}]"#)))
            .collect();
    for number in ["1.0", "-0", "1e2", "1E2", "01", "-01", "00", "-", "12x", "9223372036854775808", "\"1\"", "null"] {
        texts.push(one(&format!(r#"{USER}"content":[],"session_id":{number}"#)));
        texts.push(one(&format!(r#""role":"user","turn_id":{{"owner":"u","number":{number}}},"content":[]"#)));
    }
    for fields in [
        r#""role":"system","turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""role":1,"turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""turn_id":{"owner":"u","number":1},"content":[]"#,
        r#""role":"user","turn_id":{"owner":1,"number":1},"content":[]"#,
        r#""role":"user","turn_id":{"number":1},"content":[]"#,
        r#""role":"user","turn_id":[],"content":[]"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":"hi""#,
        r#""role":"user","turn_id":{"owner":"u","number":1}"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":{"messages":-1,"turns":0}"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":{"messages":1}"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"summary_of":"x""#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"created_at":"yesterday""#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"id":7"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[] "x""#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"meta":}"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"meta":]]"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"meta":"#,
        r#""role":"user","turn_id":{"owner":"u","number":1},"content":[],"meta":"\"#,
    ] {
        texts.push(one(fields));
    }
    for block in [
        r#"{"text":"x"}"#,
        r#"{"type":1}"#,
        r#"{"type":"text"}"#,
        r#"{"type":"text","text":1}"#,
        r#"{"type":"tool_use","id":"t","name":"n"}"#,
        r#"{"type":"tool_use","id":"t","input":{}}"#,
        r#"{"type":"tool_result","content":"x"}"#,
        r#"{"type":"tool_result","tool_use_id":"t","content":[1]}"#,
        r#"{"type":"tool_result","tool_use_id":"t","content":5}"#,
        r#"{"type":"tool_result","tool_use_id":"t","content":"x","is_error":"yes"}"#,
        r#"{"type":"tool_result","tool_use_id":"t","content":"x","compact_summary":1}"#,
        r#""text""#,
        "[]",
    ] {
        texts.push(one(&format!(r#"{USER}"content":[{block}]"#)));
    }
    texts.extend(["".into(), "{}".into(), "[1]".into(), "[{}]".into(), "[] []".into(), "[".into(), one(USER)]);
    for text in &texts {
        agree(text);
        assert!(parse_messages_text(text, "messages").is_err(), "{text}");
    }
}

#[test]
fn nesting_near_serde_jsons_limit_reads_the_same() {
    // serde_json refuses more than 128 levels, counted from the whole text.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for n in 118..=128 {
        for fields in [
            format!(r#"{USER}"content":[{{"type":"tool_use","id":"t","name":"n","input":{}}}]"#, deep(n)),
            format!(r#"{USER}"content":[],"meta":{}"#, deep(n)),
        ] {
            agree(&one(&fields));
        }
    }
    assert!(agree(&one(&format!(r#"{USER}"content":[],"meta":{}"#, deep(90)))));
    assert!(by_value(&one(&format!(r#"{USER}"content":[],"meta":{}"#, deep(127)))).is_err());
}

#[test]
fn one_message_reads_as_the_value_path_reads_it() {
    for text in [
        format!(r#"{{{ID}{USER}"content":[{{"type":"text","text":"hi\n"}}]}}"#),
        format!(r#"{{{ID}{USER}"content":[{{"type":"text","text":"\ud800"}}]}}"#),
        format!(r#"{{{ID}{USER}"content":[]}} x"#),
        "[]".into(),
    ] {
        let expected = read_text(&text, "message").and_then(|v| parse_message(&v, "message"));
        assert_eq!(parse_message_text(&text, "message"), expected, "{text}");
    }
}

// ---------------------------------------------------------------------------
// Random texts, mostly valid, built from the pieces that matter.

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256);
    Config { cases, failure_persistence: None, ..Config::default() }
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> + Clone {
    prop::sample::select(options).prop_map(str::to_owned)
}

/// A JSON string literal: escapes, surrogates, any Unicode; with `noise`, some broken ones.
fn string(noise: u32) -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        8 => any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap()),
        4 => pick(&[
            r#""plain""#, r#""a\nb\"c""#, r#""\u00e9\ud83d\ude00""#, r#""\/\b\f\r\t""#, r#""""#, "\"é😀\"",
        ]),
        noise => pick(&[r#""\ud800""#, r#""\udc00x""#, r#""\q""#, "\"\t\"", r#""\u00""#]),
        noise => "[a-z\\\\\"\n ]{0,10}".prop_map(|s| format!("\"{s}\"")),
    ]
}

/// Any JSON value; with `noise`, some that are not quite JSON.
fn value(noise: u32) -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        6 => pick(&[
            "null", "true", "false", "0", "-0", "7", "-3", "1.0", "1e2", "9223372036854775807",
            "9223372036854775808", "18446744073709551616", "{}", "[]", r#"{"a":[1,{"b":null}],"a":2}"#,
            r#"[{"type":"text","text":"x"}]"#, "[1]", "[[[[[[[[[[]]]]]]]]]]",
        ]),
        3 => string(noise),
        noise => pick(&["01", "tru", "{", "[1,]", "1.", "-"]),
    ]
}

fn whitespace() -> impl Strategy<Value = String> + Clone {
    prop_oneof![6 => Just(String::new()), 1 => pick(&[" ", "\n", " \t\r\n "])]
}

type Fields = Vec<(String, String)>;

/// An object from its fields, `ws` around the punctuation.
fn object(fields: &Fields, ws: &str) -> String {
    let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{ws}\"{k}\"{ws}:{ws}{v}{ws}")).collect();
    format!("{{{}}}", fields.join(","))
}

fn field(key: &str, value: String) -> (String, String) {
    (key.to_owned(), value)
}

/// Fields the model knows or not, with values of the right type or not.
fn extra_field(noise: u32) -> impl Strategy<Value = (String, String)> {
    let unknown = &["cache_control", "t\\u0065xt", "meta", "citations"];
    let keys = if noise == 0 {
        pick(unknown)
    } else {
        pick(&[
            "text",
            "id",
            "name",
            "input",
            "tool_use_id",
            "content",
            "is_error",
            "compact_summary",
            "cache_control",
            "type",
            "t\\u0065xt",
            "role",
            "turn_id",
            "session_id",
            "summary_of",
            "meta",
        ])
    };
    (keys, prop_oneof![string(noise), value(noise)])
}

fn block(noise: u32) -> impl Strategy<Value = String> {
    let ty = |t: &str| format!("\"{t}\"");
    let required = prop_oneof![
        3 => string(noise).prop_map(move |t| vec![field("type", ty("text")), field("text", t)]),
        2 => (string(noise), string(noise), value(noise)).prop_map(move |(id, name, input)| {
            vec![field("type", ty("tool_use")), field("id", id), field("name", name), field("input", input)]
        }),
        2 => (string(noise), prop_oneof![3 => string(noise), 1 => value(noise)], pick(&["true", "false", "null"]))
            .prop_map(move |(id, content, is_error)| vec![
                field("type", ty("tool_result")), field("tool_use_id", id), field("content", content),
                field("is_error", is_error),
            ]),
        1 => value(noise).prop_map(move |v| vec![field("type", ty("image")), field("source", v)]),
        noise => value(noise).prop_map(|v| vec![field("type", v)]),
    ];
    (required, prop::collection::vec(extra_field(noise), 0..3), 0..8usize, whitespace()).prop_map(
        |(mut fields, extra, at, ws): (Fields, Fields, usize, String)| {
            // The type first most of the time, as writers put it.
            let ty = fields.remove(0);
            fields.extend(extra);
            fields.insert(if at < 6 { 0 } else { at.min(fields.len()) }, ty);
            object(&fields, &ws)
        },
    )
}

fn message(noise: u32) -> impl Strategy<Value = String> {
    let content = prop_oneof![
        8 => prop::collection::vec(block(noise), 0..4).prop_map(|b| format!("[{}]", b.join(","))),
        noise => value(noise),
    ];
    let role = prop_oneof![
        8 => pick(&[r#""user""#, r#""assistant""#]),
        noise => pick(&[r#""system""#, r#""us\u0065r""#, "1"]),
    ];
    let turn_id = prop_oneof![
        8 => pick(&[r#"{"owner":"u","number":1}"#, r#"{"number":2,"owner":"a","x":[]}"#]),
        noise => pick(&[r#"{"owner":"u"}"#, r#"{"owner":"u","number":1.5}"#, "null"]),
    ];
    let optional = prop_oneof![
        1 => prop_oneof![4 => pick(&["0", "7", "-3"]), noise => value(noise)].prop_map(|v| field("session_id", v)),
        1 => pick(&["null", r#"{"messages":3,"turns":1}"#, r#"{"messages":-1,"turns":1}"#])
            .prop_map(|v| field("summary_of", v)),
        2 => extra_field(noise),
    ];
    let order = prop::collection::vec(any::<prop::sample::Index>(), 3);
    (role, turn_id, content, prop::collection::vec(optional, 0..3), order, whitespace()).prop_map(
        |(role, turn_id, content, optional, order, ws)| {
            let mut fields = optional;
            for (f, at) in
                [field("role", role), field("turn_id", turn_id), field("content", content)].into_iter().zip(order)
            {
                fields.insert(at.index(fields.len() + 1), f);
            }
            // Ids and times are made up when missing: always given, so that results compare.
            fields.insert(0, field("created_at", r#""2024-05-01T10:00:00Z""#.to_owned()));
            fields.insert(0, field("id", r#""m""#.to_owned()));
            object(&fields, &ws)
        },
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_valid_texts_read_the_same_by_the_text_reader_alone(messages in prop::collection::vec(message(0), 1..5)) {
        let text = format!("[{}]", messages.join(","));
        if by_value(&text).is_ok() {
            prop_assert!(agree(&text), "the text reader gave up on {}", text);
        } else {
            agree(&text);
        }
    }

    #[test]
    fn random_texts_read_the_same_both_ways(messages in prop::collection::vec(message(1), 0..5)) {
        agree(&format!("[{}]", messages.join(",")));
    }
}

#[test]
fn value_at_reads_one_value_within_the_nesting_the_value_path_allows() {
    for text in ["null", "\"a\\u00e9\"", "[1,{\"k\":[2.5,-3]}]", " {\"a\" : true } "] {
        assert_eq!(parse_text::value_at(text, 4), serde_json::from_str(text).ok(), "{text}");
    }
    // Not one value: nothing.
    assert_eq!(parse_text::value_at("1 2", 0), None);
    assert_eq!(parse_text::value_at("[1", 0), None);
    // Nesting counts with the containers around it.
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse_text::value_at(&nested(96), 4).is_some());
    assert_eq!(parse_text::value_at(&nested(97), 4), None);
}

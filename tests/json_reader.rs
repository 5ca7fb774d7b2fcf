//! The crate's JSON reader (`json_reader::read_value`) against `serde_json::from_str`,
//! which it replaces in the `.wasm`: the same verdict and the same `Value` for any
//! text. (The dev-dependency turns on serde_json's `float_roundtrip`, so that both
//! round floats correctly.)

use std::path::{Path, PathBuf};

use context_compactor::json_reader::read_value;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::Value;

/// Asserts that both readers accept `text` alike and read the same value.
fn agree(text: &str) {
    let ours = read_value(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{text:.200}");
            // Number kinds too (1 and 1.0 are equal `Value`s only when of one kind).
            assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap(), "{text:.200}");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("{text:.200}: ours {ours:?}, serde_json {:?}", theirs.map_err(|e| e.to_string())),
    }
}

fn files(dir: &Path, extension: Option<&str>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| extension.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    files.sort();
    files
}

#[test]
fn transcripts_and_the_fuzz_corpus_read_as_serde_json_reads_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let transcripts = files(&root.join("../shared/conversations"), Some("json"));
    let corpus = files(&root.join("fuzz/corpus/json_input"), None);
    assert!(transcripts.len() >= 5 && corpus.len() >= 20);
    let mut valid = 0;
    for path in transcripts.iter().chain(&corpus) {
        let bytes = std::fs::read(path).unwrap();
        let Ok(text) = std::str::from_utf8(&bytes) else { continue };
        agree(text);
        valid += usize::from(serde_json::from_str::<Value>(text).is_ok());
    }
    // The corpus has both kinds of input.
    assert!(valid > 100 && valid < corpus.len() + transcripts.len(), "{valid} valid");
}

#[test]
fn edge_cases_read_as_serde_json_reads_them() {
    for text in [
        "0",
        "-0",
        "-0.0",
        "1",
        "-1",
        "01",
        "-01",
        "1.",
        ".5",
        "1.5e",
        "1e+",
        "1E-2",
        "1e5",
        "+1",
        "--1",
        "0x10",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1e308",
        "1e309",
        "-1e309",
        "1e-400",
        "2.5e-324",
        "1e99999999999999999999",
        "1e-99999999999999999999",
        "0.1",
        "3.141592653589793",
        "[1,2,3]",
        "[1,2,]",
        "[,]",
        "[]",
        "{}",
        "{,}",
        r#"{"a":1,}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a" :1 , "b": [ true ,false,null ] }"#,
        r#"{1:2}"#,
        r#"{"a"}"#,
        r#"{"a":}"#,
        "tru",
        "true",
        "truex",
        "nul",
        "null ",
        " \n\t\r null \n",
        "\u{feff}null",
        "",
        "   ",
        "[",
        "]",
        "{",
        r#""abc"#,
        r#""a\"b\\c\/d\b\f\n\r\t""#,
        r#""\u00e9\u4e2d\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83d\u0041""#,
        r#""\x41""#,
        r#""\u12""#,
        "\"a\u{1}b\"",
        "\"tab\there\"",
        r#""é中😀""#,
        r#"{"k\u0041y": "v"}"#,
        "[1] [2]",
        "1 2",
        r#"["a",]"#,
        "[1,,2]",
        "nan",
        "NaN",
        "Infinity",
        "-Infinity",
        "[-]",
        "[1e]",
        "[0.e1]",
        "[1.0e+5, -2E-3]",
    ] {
        agree(text);
    }
}

#[test]
fn nesting_stops_where_serde_json_stops() {
    for depth in [1, 100, 126, 127, 128, 129, 500] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            agree(&format!("{}1{}", open.repeat(depth), close.repeat(depth)));
        }
        agree(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
    }
}

#[test]
fn errors_say_what_and_where() {
    let cases = [
        ("[1,\n  x]", "expected value at line 2 column 3"),
        ("[1 2]", "invalid JSON at line 1 column 4"),
        ("{\"a\": 1", "EOF while parsing at line 1 column 8"),
        ("1e999", "number out of range at line 1 column 6"),
        ("{\"a\":1} x", "invalid JSON at line 1 column 9"),
        ("{1:2}", "key must be a string at line 1 column 2"),
        ("[\"a\\ud800b\"]", "lone surrogate in a string at line 1 column 4"),
        ("[\"a\\udc00\"]", "lone surrogate in a string at line 1 column 4"),
        ("\"a\\ud800\\u0041\"", "lone surrogate in a string at line 1 column 3"),
        ("\"a\\x\"", "invalid escape at line 1 column 3"),
        ("\"a\\u12g4\"", "invalid escape at line 1 column 3"),
        ("\"a\u{1}\"", "control character in a string at line 1 column 3"),
        ("\"ab", "EOF while parsing a string at line 1 column 4"),
    ];
    for (text, message) in cases {
        assert_eq!(read_value(text).unwrap_err().to_string(), message, "{text}");
    }
    let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
    assert_eq!(read_value(&deep).unwrap_err().to_string(), "recursion limit exceeded at line 1 column 128");
}

/// Any JSON value: every kind of number, strings with escapes and any character, nesting.
fn value() -> impl Strategy<Value = Value> {
    let number = prop_oneof![
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (any::<i32>(), -30i32..30).prop_map(|(m, e)| Value::from(f64::from(m) * 10f64.powi(e))),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number,
        any::<String>().prop_map(Value::String),
        "[a-z\"\\\\\n\u{1}\u{7f}é中😀]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-c\"é]{0,3}", inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(Config::with_cases(2_000))]

    /// Written compact or pretty, a value reads back as itself.
    #[test]
    fn written_values_read_back(value in value()) {
        for text in [serde_json::to_string(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap()] {
            prop_assert_eq!(&read_value(&text).unwrap(), &value);
            agree(&text);
        }
    }

    /// With one byte changed, dropped or doubled, both readers still agree.
    #[test]
    fn damaged_texts_get_the_same_verdict(value in value(), at in any::<prop::sample::Index>(), byte in prop::sample::select(b"[]{},:\"\\ 0-.eE+tfn1\x01x".to_vec()), how in 0..3) {
        let mut text = serde_json::to_string(&value).unwrap().into_bytes();
        let i = at.index(text.len());
        match how {
            0 => text[i] = byte,
            1 => { text.remove(i); }
            _ => text.insert(i, byte),
        }
        if let Ok(text) = String::from_utf8(text) {
            agree(&text);
        }
    }

    /// Numbers as people and other programs write them.
    #[test]
    fn number_texts_read_as_serde_json_reads_them(int in "-?(0|[1-9][0-9]{0,25})", frac in "(\\.[0-9]{1,25})?", exp in "([eE][+-]?[0-9]{1,3})?") {
        agree(&format!("{int}{frac}{exp}"));
        agree(&format!("[{int}{frac}{exp}]"));
    }
}

//! Request building and response parsing of the HTTP summarizers.

use context_compactor::providers::{anthropic, excerpt, openai, scrub, HttpRequest, EXCERPT_MAX_CHARS, REDACTED};
use context_compactor::{CompactionError, LlmError, SummaryRequest};
use serde_json::{json, Value};

const KEY: &str = "sk-test-SECRET-1234567890abcdef";

fn request(max_tokens: Option<i64>) -> SummaryRequest {
    SummaryRequest { system: "You summarize.".into(), prompt: "Summarize: hello".into(), max_tokens }
}

fn oa(base_url: &str, key: Option<&str>) -> openai::OpenAIConfig {
    openai::OpenAIConfig {
        base_url: base_url.into(),
        api_key: key.map(str::to_owned),
        model: "gpt-4o-mini".into(),
        headers: Vec::new(),
        temperature: None,
    }
}

fn an() -> anthropic::AnthropicConfig {
    anthropic::AnthropicConfig::new(KEY, "claude-3-5-haiku-latest")
}

fn body_json(req: &HttpRequest) -> Value {
    serde_json::from_str(&req.body).expect("body is JSON")
}

fn llm_err(r: Result<String, CompactionError>) -> LlmError {
    match r {
        Err(CompactionError::LlmError(e)) => e,
        other => panic!("expected LlmError, got {other:?}"),
    }
}

fn assert_no_key(e: &LlmError) {
    assert!(!e.message.contains(KEY), "key leaked: {}", e.message);
    // Not even a prefix long enough to matter.
    assert!(!e.message.contains(&KEY[..10]), "key prefix leaked: {}", e.message);
    // Nor its distinctive tail, e.g. from a `\u`-escaped echo of the key.
    assert!(!e.message.contains(&KEY[KEY.len() - 16..]), "key tail leaked: {}", e.message);
    let shown = CompactionError::LlmError(e.clone()).to_string();
    assert!(!shown.contains(KEY));
    assert!(!format!("{e:?}").contains(KEY));
}

// ---------- OpenAI: requests ----------

#[test]
fn openai_request_url_headers_body() {
    let mut cfg = oa("https://api.openai.com/v1", Some(KEY));
    cfg.headers = vec![("openai-organization".into(), "org-1".into())];
    cfg.temperature = Some(0.2);
    let req = openai::build_request(&cfg, &request(Some(500)));
    assert_eq!(req.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(HttpRequest::METHOD, "POST");
    assert_eq!(
        req.headers,
        vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("authorization".to_owned(), format!("Bearer {KEY}")),
            ("openai-organization".to_owned(), "org-1".to_owned()),
        ]
    );
    assert_eq!(req.header("Authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(
        body_json(&req),
        json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You summarize."},
                {"role": "user", "content": "Summarize: hello"},
            ],
            "max_tokens": 500,
            "temperature": 0.2,
        })
    );
}

#[test]
fn openai_request_trailing_slash_no_key_no_max_tokens() {
    let req = openai::build_request(&oa("http://127.0.0.1:11434/v1/", None), &request(None));
    assert_eq!(req.url, "http://127.0.0.1:11434/v1/chat/completions");
    assert_eq!(req.headers, vec![("content-type".to_owned(), "application/json".to_owned())]);
    assert_eq!(req.header("authorization"), None);
    let body = body_json(&req);
    assert!(body.get("max_tokens").is_none());
    assert!(body.get("temperature").is_none());
    assert_eq!(body["messages"][1]["content"], "Summarize: hello");
}

#[test]
fn openai_request_empty_key_sends_no_authorization() {
    let req = openai::build_request(&oa("https://x/v1", Some("")), &request(None));
    assert_eq!(req.header("authorization"), None);
}

#[test]
fn openai_request_odd_values_do_not_panic_and_stay_valid_json() {
    let mut cfg = oa("", Some(KEY));
    cfg.temperature = Some(f64::NAN);
    let req = openai::build_request(
        &cfg,
        &SummaryRequest { system: "\"quotes\" \u{0} é".into(), prompt: "💥\n\\".into(), max_tokens: Some(0) },
    );
    assert_eq!(req.url, "/chat/completions");
    let body = body_json(&req);
    assert!(body.get("temperature").is_none());
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["messages"][0]["content"], "\"quotes\" \u{0} é");
    assert_eq!(body["messages"][1]["content"], "💥\n\\");
}

#[test]
fn debug_output_hides_keys() {
    let cfg = oa("https://api.openai.com/v1", Some(KEY));
    let req = openai::build_request(&cfg, &request(None));
    assert!(!format!("{cfg:?}").contains(KEY));
    assert!(!format!("{req:?}").contains(KEY));
    assert!(format!("{req:?}").contains(REDACTED));
    let a = an();
    assert!(!format!("{a:?}").contains(KEY));
    assert!(!format!("{:?}", anthropic::build_request(&a, &request(None))).contains(KEY));
}

// ---------- OpenAI: responses ----------

#[test]
fn openai_parse_success() {
    let cfg = oa("https://api.openai.com/v1", Some(KEY));
    let body = r#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"The summary."},"finish_reason":"stop"}]}"#;
    assert_eq!(openai::parse_response(&cfg, 200, body).unwrap(), "The summary.");
}

#[test]
fn openai_parse_array_content_joins_text_parts() {
    let cfg = oa("https://x/v1", None);
    let body = json!({"choices":[{"message":{"content":[
        {"type":"text","text":"Part one. "},
        {"type":"image_url","image_url":{"url":"http://img"}},
        "Part two."
    ]}}]})
    .to_string();
    assert_eq!(openai::parse_response(&cfg, 200, &body).unwrap(), "Part one. Part two.");
}

#[test]
fn openai_parse_empty_text_is_empty_summary() {
    let cfg = oa("https://x/v1", None);
    for content in [json!(""), json!("  \n\t "), json!([]), json!([{"type":"text","text":"   "}])] {
        let body = json!({"choices":[{"message":{"content": content}}]}).to_string();
        assert!(
            matches!(openai::parse_response(&cfg, 200, &body), Err(CompactionError::EmptySummary)),
            "content {content}"
        );
    }
}

#[test]
fn openai_parse_http_errors_with_json_bodies() {
    let cfg = oa("https://api.openai.com/v1", Some(KEY));
    let body =
        r#"{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}"#;
    let e = llm_err(openai::parse_response(&cfg, 429, body));
    assert_eq!(e.status, Some(429));
    assert_eq!(e.message, "HTTP 429 from the summarizer: requests: Rate limit reached for gpt-4o-mini");

    // Ollama-style `{"error": "..."}`.
    let e = llm_err(openai::parse_response(&cfg, 500, r#"{"error":"model 'llama9' not found"}"#));
    assert_eq!(e.status, Some(500));
    assert_eq!(e.message, "HTTP 500 from the summarizer: model 'llama9' not found");
}

#[test]
fn openai_parse_http_errors_with_html_and_empty_bodies() {
    let cfg = oa("https://x/v1", None);
    let html = "<html>\n  <head><title>502 Bad Gateway</title></head>\n  <body>nginx</body>\n</html>";
    let e = llm_err(openai::parse_response(&cfg, 502, html));
    assert_eq!(e.status, Some(502));
    assert_eq!(
        e.message,
        "HTTP 502 from the summarizer: <html> <head><title>502 Bad Gateway</title></head> <body>nginx</body> </html>"
    );

    let e = llm_err(openai::parse_response(&cfg, 503, ""));
    assert_eq!(e.status, Some(503));
    assert_eq!(e.message, "HTTP 503 from the summarizer: (empty body)");

    // A long HTML page is cut.
    let long = format!("<html>{}</html>", "x".repeat(5000));
    let e = llm_err(openai::parse_response(&cfg, 500, &long));
    let quoted = e.message.strip_prefix("HTTP 500 from the summarizer: ").unwrap();
    assert_eq!(quoted.chars().count(), EXCERPT_MAX_CHARS + 1);
    assert!(quoted.ends_with('…'));
}

#[test]
fn openai_parse_non_2xx_statuses_are_errors() {
    let cfg = oa("https://x/v1", None);
    let ok_body = r#"{"choices":[{"message":{"content":"fine"}}]}"#;
    for status in [0u16, 301, 400, 401, 404, 599, u16::MAX] {
        let e = llm_err(openai::parse_response(&cfg, status, ok_body));
        assert_eq!(e.status, Some(status));
        assert!(e.message.starts_with(&format!("HTTP {status} from the summarizer: ")));
    }
    assert_eq!(openai::parse_response(&cfg, 201, ok_body).unwrap(), "fine");
}

#[test]
fn openai_parse_malformed_json() {
    let cfg = oa("https://x/v1", None);
    for body in ["", "not json", "{\"choices\": [", "<html>ok</html>"] {
        let e = llm_err(openai::parse_response(&cfg, 200, body));
        assert_eq!(e.status, None);
        assert!(e.message.starts_with("malformed response: body is not JSON"), "{}", e.message);
    }
}

#[test]
fn openai_parse_missing_fields() {
    let cfg = oa("https://x/v1", None);
    let cases = [
        ("{}", "malformed response: no choices[0].message"),
        (r#"{"choices":[]}"#, "malformed response: no choices[0].message"),
        (r#"{"choices":"x"}"#, "malformed response: no choices[0].message"),
        (r#"[1,2]"#, "malformed response: no choices[0].message"),
        (r#"{"choices":[{"message":{}}]}"#, "malformed response: no choices[0].message.content string"),
        (r#"{"choices":[{"message":{"content":null}}]}"#, "malformed response: no choices[0].message.content string"),
        (r#"{"choices":[{"message":{"content":42}}]}"#, "malformed response: no choices[0].message.content string"),
        (
            r#"{"choices":[{"message":{"content":null,"refusal":"I can't help with that."}}]}"#,
            "malformed response: the model refused: I can't help with that.",
        ),
    ];
    for (body, prefix) in cases {
        let e = llm_err(openai::parse_response(&cfg, 200, body));
        assert_eq!(e.status, None);
        assert!(e.message.starts_with(prefix), "{body}: {}", e.message);
    }
}

#[test]
fn openai_parse_finds_the_message_where_a_json_pointer_does() {
    let cfg = oa("https://x/v1", None);
    let choices = [
        json!([{"message":{"content":"fine"}}]),
        json!({"0":{"message":{"content":"fine"}}}),
        json!({"00":{"message":{"content":"fine"}}}),
        json!([null, {"message":{"content":"fine"}}]),
        json!([{"message":null}]),
        json!([{"Message":{"content":"fine"}}]),
        json!(["message"]),
        json!(0),
    ];
    for choices in choices {
        let body = json!({ "choices": choices });
        let found = body.pointer("/choices/0/message").is_some();
        let missing = "malformed response: no choices[0].message (";
        let got = openai::parse_response(&cfg, 200, &body.to_string());
        assert_eq!(
            !matches!(&got, Err(CompactionError::LlmError(e)) if e.message.starts_with(missing)),
            found,
            "{body}"
        );
    }
}

#[test]
fn openai_key_never_in_error_messages() {
    let cfg = oa("https://api.openai.com/v1", Some(KEY));
    let bodies = [
        format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error"}}}}"#),
        format!("<html><body>Unauthorized: Bearer {KEY}</body></html>"),
        format!("{{\"error\":\"bad key {}\"}}", KEY.replace('-', "\\u002d")), // JSON-escaped
        // Key straddling the excerpt cut.
        format!("{}{KEY}{}", "a".repeat(EXCERPT_MAX_CHARS - 15), "b".repeat(100)),
    ];
    for body in &bodies {
        for status in [200u16, 401, 500] {
            let e = llm_err(openai::parse_response(&cfg, status, body));
            assert_no_key(&e);
        }
    }
    let e = llm_err(openai::parse_response(&cfg, 401, &bodies[0]));
    assert_eq!(
        e.message,
        format!("HTTP 401 from the summarizer: invalid_request_error: Incorrect API key provided: {REDACTED}.")
    );

    // Also when the key shows up in a 200 body of the wrong shape.
    let e = llm_err(openai::parse_response(
        &cfg,
        200,
        &format!(r#"{{"choices":[{{"message":{{"content":null,"refusal":"{KEY}"}}}}]}}"#),
    ));
    assert_no_key(&e);
}

// ---------- Anthropic: requests ----------

#[test]
fn anthropic_request_url_headers_body() {
    let mut cfg = an();
    cfg.headers = vec![("anthropic-dangerous-direct-browser-access".into(), "true".into())];
    let req = anthropic::build_request(&cfg, &request(Some(300)));
    assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(
        req.headers,
        vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("x-api-key".to_owned(), KEY.to_owned()),
            ("anthropic-version".to_owned(), "2023-06-01".to_owned()),
            ("anthropic-dangerous-direct-browser-access".to_owned(), "true".to_owned()),
        ]
    );
    assert_eq!(
        body_json(&req),
        json!({
            "model": "claude-3-5-haiku-latest",
            "max_tokens": 300,
            "system": "You summarize.",
            "messages": [{"role": "user", "content": "Summarize: hello"}],
        })
    );
}

#[test]
fn anthropic_defaults() {
    let cfg = an();
    assert_eq!(cfg.base_url, anthropic::DEFAULT_BASE_URL);
    assert_eq!(cfg.base_url, "https://api.anthropic.com");
    assert_eq!(cfg.anthropic_version, "2023-06-01");
    for max in [None, Some(0), Some(-5)] {
        assert_eq!(body_json(&anthropic::build_request(&cfg, &request(max)))["max_tokens"], 2048);
    }
}

#[test]
fn anthropic_request_urls() {
    let cases = [
        ("https://api.anthropic.com", "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/", "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"),
        ("https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"),
        ("http://localhost:8080/proxy/anthropic", "http://localhost:8080/proxy/anthropic/v1/messages"),
        ("http://localhost:8080/v1beta", "http://localhost:8080/v1beta/v1/messages"),
    ];
    for (base, url) in cases {
        let mut cfg = an();
        cfg.base_url = base.into();
        assert_eq!(anthropic::build_request(&cfg, &request(None)).url, url, "base {base}");
    }
}

// ---------- Anthropic: responses ----------

#[test]
fn anthropic_parse_success_joins_text_blocks() {
    let cfg = an();
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "First. "},
            {"type": "tool_use", "id": "t", "name": "x", "input": {}},
            {"type": "text", "text": "Second."}
        ],
        "stop_reason": "end_turn"
    })
    .to_string();
    assert_eq!(anthropic::parse_response(&cfg, 200, &body).unwrap(), "First. Second.");
}

#[test]
fn anthropic_parse_empty_text_is_empty_summary() {
    let cfg = an();
    for content in [json!([]), json!([{"type":"text","text":"  \n"}]), json!([{"type":"thinking","thinking":"x"}])] {
        let body = json!({"type":"message","content": content}).to_string();
        assert!(
            matches!(anthropic::parse_response(&cfg, 200, &body), Err(CompactionError::EmptySummary)),
            "content {content}"
        );
    }
}

#[test]
fn anthropic_parse_http_errors() {
    let cfg = an();
    let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#;
    let e = llm_err(anthropic::parse_response(&cfg, 429, body));
    assert_eq!(e.status, Some(429));
    assert_eq!(
        e.message,
        "HTTP 429 from the summarizer: rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"
    );

    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let e = llm_err(anthropic::parse_response(&cfg, 529, body));
    assert_eq!(e.status, Some(529));
    assert_eq!(e.message, "HTTP 529 from the summarizer: overloaded_error: Overloaded");

    let e = llm_err(anthropic::parse_response(&cfg, 500, "<html><body><h1>Internal Server Error</h1></body></html>"));
    assert_eq!(e.status, Some(500));
    assert_eq!(e.message, "HTTP 500 from the summarizer: <html><body><h1>Internal Server Error</h1></body></html>");
}

#[test]
fn anthropic_parse_malformed_and_missing_fields() {
    let cfg = an();
    let e = llm_err(anthropic::parse_response(&cfg, 200, "{oops"));
    assert_eq!(e.status, None);
    assert!(e.message.starts_with("malformed response: body is not JSON"), "{}", e.message);

    for body in ["{}", r#"{"content":"text"}"#, r#"{"content":null}"#, "null", "\"str\""] {
        let e = llm_err(anthropic::parse_response(&cfg, 200, body));
        assert_eq!(e.status, None);
        assert!(e.message.starts_with("malformed response: no content array"), "{body}: {}", e.message);
    }

    // An error body with a 200 status names the error.
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let e = llm_err(anthropic::parse_response(&cfg, 200, body));
    assert_eq!(e.message, "malformed response: no content array (body: overloaded_error: Overloaded)");
}

#[test]
fn anthropic_key_never_in_error_messages() {
    let cfg = an();
    let bodies = [
        format!(r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {KEY}"}}}}"#),
        format!("<html>x-api-key: {KEY}</html>"),
        format!(r#"{{"echo":"{KEY}"}}"#),
        format!("{}{KEY}", "é".repeat(EXCERPT_MAX_CHARS - 15)),
        format!(r#"{{"echo":"{}"}}"#, KEY.replace('-', "\\u002d")), // JSON-escaped, not an error shape
    ];
    for body in &bodies {
        for status in [200u16, 401, 403, 500] {
            assert_no_key(&llm_err(anthropic::parse_response(&cfg, status, body)));
        }
    }
    let e = llm_err(anthropic::parse_response(&cfg, 401, &bodies[0]));
    assert_eq!(e.message, format!("HTTP 401 from the summarizer: authentication_error: invalid x-api-key {REDACTED}"));
}

// ---------- Shared helpers ----------

#[test]
fn excerpt_is_utf8_safe_on_multibyte_bodies() {
    for unit in ["é", "日本語", "👨‍👩‍👧", "a\u{301}"] {
        let body = unit.repeat(400);
        let ex = excerpt(&body, None);
        assert_eq!(ex.chars().count(), EXCERPT_MAX_CHARS + 1, "unit {unit}");
        assert!(ex.ends_with('…'));
        assert!(body.starts_with(ex.trim_end_matches('…')));
    }
    // Through parse_response as well, for both providers.
    let body = format!("<p>{}</p>", "ñ漢🙂".repeat(300));
    let e = llm_err(openai::parse_response(&oa("https://x/v1", None), 500, &body));
    assert!(e.message.chars().count() <= "HTTP 500 from the summarizer: ".len() + EXCERPT_MAX_CHARS + 1);
    let e = llm_err(anthropic::parse_response(&an(), 200, &body));
    assert!(e.message.starts_with("malformed response: body is not JSON"));
    assert!(e.message.contains("ñ漢🙂"));
}

#[test]
fn excerpt_short_body_is_kept_and_whitespace_collapsed() {
    assert_eq!(excerpt("  Service\r\n\tUnavailable  ", None), "Service Unavailable");
    assert_eq!(excerpt("   \n ", None), "(empty body)");
    assert_eq!(excerpt(r#"{"message":"Not Found"}"#, None), "Not Found");
    assert_eq!(excerpt(r#"{"detail":"Unprocessable"}"#, None), "Unprocessable");
    assert_eq!(excerpt(r#"{"error":{"message":"plain"}}"#, None), "plain");
    assert_eq!(excerpt(r#"{"ok":true}"#, None), r#"{"ok":true}"#);
}

#[test]
fn scrub_replaces_raw_and_escaped_key() {
    assert_eq!(scrub("a KEY b KEY", Some("KEY")), format!("a {REDACTED} b {REDACTED}"));
    assert_eq!(scrub("unchanged", Some("")), "unchanged");
    assert_eq!(scrub("unchanged", None), "unchanged");
    assert_eq!(scrub(r#"{"k":"ab\/cd"}"#, Some("ab/cd")), format!(r#"{{"k":"{REDACTED}"}}"#));
    assert_eq!(scrub(r#"say "a\"b""#, Some("a\"b")), format!(r#"say "{REDACTED}""#));
    // A key that is a prefix of the redaction marker cannot loop or panic.
    assert_eq!(scrub("[RED", Some("[RED")), REDACTED);
}

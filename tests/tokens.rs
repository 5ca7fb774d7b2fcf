//! The token estimate splits text as o200k_base's pre-tokenizer does. The expected
//! figures are o200k_base's own counts (js-tiktoken) for these strings.

use context_compactor::model::tokens::estimate_text_tokens;

#[test]
fn common_words_are_one_token_each_with_their_leading_space() {
    assert_eq!(estimate_text_tokens("hello world"), 2);
    assert_eq!(estimate_text_tokens("The quick brown fox jumps over the lazy dog."), 10);
}

#[test]
fn camel_case_splits_at_each_hump_and_digits_group_by_three() {
    assert_eq!(estimate_text_tokens("getValueFromMap"), 4);
    assert_eq!(estimate_text_tokens("12345678"), 3);
}

#[test]
fn code_indentation_and_paths_are_not_counted_per_character() {
    // "   ", " return", " x", "\n"
    assert_eq!(estimate_text_tokens("    return x\n"), 4);
    // "/usr", "/lib", "/python", "3"
    assert_eq!(estimate_text_tokens("/usr/lib/python3"), 4);
    // "\n", "       " and the spaces of a deep indentation are one token each
    assert_eq!(estimate_text_tokens("\n\n            "), 2);
}

#[test]
fn nothing_costs_nothing_and_any_text_is_estimated_without_panicking() {
    assert_eq!(estimate_text_tokens(""), 0);
    for text in [" ", "\n", "\t(", " (", "é", "日本語のテキスト", "🦀🦀", "a\u{0}b", "x \n", "  1", "\r\n\r\n"]
    {
        let tokens = estimate_text_tokens(text);
        assert!(tokens >= 1 && tokens <= text.len() as i64, "{text:?}: {tokens}");
    }
}

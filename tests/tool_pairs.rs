//! Where a conversation may be cut, and the providers' pairing rule.

mod common;

use common::*;
use context_compactor::compaction::tool_pairs::{safe_cut, validate_tool_pairs};
use context_compactor::{Role, TurnId};

#[test]
fn safe_cut_moves_before_a_pair_it_would_split() {
    let conv = agent_conversation(3); // u1 [use1] [res1] a1 u2 [use2] [res2] a2 …
    assert_eq!(safe_cut(&conv, 4), 4, "a clean boundary stays");
    assert_eq!(safe_cut(&conv, 2), 1, "between a call and its result: move before the call");
    assert_eq!(safe_cut(&conv, 100), conv.len());
    assert_eq!(safe_cut(&[], 3), 0);
}

#[test]
fn parallel_calls_answered_across_several_messages() {
    let t = TurnId::new("a", 1);
    let conv = vec![
        text(Role::User, TurnId::new("u", 1), "go"),
        tool_use(t.clone(), &["x", "y"]),
        tool_result(t.clone(), &["x"], "r"),
        tool_result(TurnId::new("u", 2), &["y"], "r"), // lies about its turn
        text(Role::User, TurnId::new("u", 2), "next"),
    ];
    for limit in 2..=3 {
        assert_eq!(safe_cut(&conv, limit), 1);
    }
    assert_eq!(safe_cut(&conv, 4), 4);
}

#[test]
fn validate_reports_orphans_both_ways() {
    let conv = agent_conversation(2);
    assert!(validate_tool_pairs(&conv).is_empty());
    let orphan_result = &conv[2..];
    let problems = validate_tool_pairs(orphan_result);
    assert_eq!(problems.len(), 1);
    assert_eq!((problems[0].message_index, problems[0].tool_use_id.as_str()), (0, "call_1"));
    let mut orphan_use = conv.clone();
    orphan_use.remove(2);
    let problems = validate_tool_pairs(&orphan_use);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].problem, "tool_use without a tool_result in the following message");
    assert!(validate_tool_pairs(&conv[..2]).is_empty(), "a call awaiting its result at the end is fine");
}

#[test]
fn a_reused_tool_call_id_pairs_each_call_with_its_own_result() {
    // Real transcripts reuse ids (tools.marshmallow-1867 has 11 calls over 6 ids).
    let conv = vec![
        text(Role::User, TurnId::new("u", 1), "go"),
        tool_use(TurnId::new("a", 1), &["same"]),
        tool_result(TurnId::new("a", 1), &["same"], "first"),
        tool_use(TurnId::new("a", 2), &["same"]),
        tool_result(TurnId::new("a", 2), &["same"], "second"),
        tool_use(TurnId::new("a", 3), &["same"]),
        tool_result(TurnId::new("a", 3), &["same"], "third"),
    ];
    assert_eq!(safe_cut(&conv, 3), 3, "between two uses of the id");
    assert_eq!(safe_cut(&conv, 5), 5);
    assert_eq!(safe_cut(&conv, 6), 5, "inside the last pair");
    // A result before any call of its id pairs with the first call after it.
    let early = vec![
        tool_result(TurnId::new("u", 1), &["late"], "r"),
        text(Role::User, TurnId::new("u", 2), "x"),
        tool_use(TurnId::new("a", 1), &["late"]),
        text(Role::User, TurnId::new("u", 3), "y"),
    ];
    assert_eq!(safe_cut(&early, 2), 0);
    assert_eq!(safe_cut(&early, 3), 3);
}

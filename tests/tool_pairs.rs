//! Where a conversation may be cut, and the providers' pairing rule.

mod common;

use common::*;
use context_compactor::tool_pairs::{safe_cut, validate_tool_pairs};
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

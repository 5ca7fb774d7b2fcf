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

/// `safe_cut` as the specification words it, one pair at a time: each result is paired
/// with the nearest call of its id before it, else the first call of its id; the answer
/// is the largest cut at or below `limit` that splits no pair.
fn reference_cut(conv: &[context_compactor::Message], limit: usize) -> usize {
    let calls = |j: usize| conv[j].tool_use_ids().map(str::to_owned).collect::<Vec<_>>();
    let mut pairs = Vec::new();
    for (i, message) in conv.iter().enumerate() {
        for id in message.tool_result_ids() {
            let has = |j: &usize| calls(*j).iter().any(|c| c == id);
            let call = (0..i).rev().find(has).or_else(|| (0..conv.len()).find(has));
            if let Some(call) = call {
                pairs.push((call.min(i), call.max(i)));
            }
        }
    }
    let limit = limit.min(conv.len());
    (0..=limit).rev().find(|&c| pairs.iter().all(|&(a, b)| !(a < c && c <= b))).unwrap_or(0)
}

#[test]
fn safe_cut_agrees_with_the_pairing_rule_on_generated_conversations() {
    // Three ids over up to 12 messages: ids are reused, answered late, or before their call.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n) as usize
    };
    let ids = ["a", "b", "c"];
    for _ in 0..3000 {
        let len = next(13);
        let conv: Vec<_> = (0..len)
            .map(|i| {
                let turn = TurnId::new("t", i as i64);
                let some: Vec<&str> = (0..1 + next(2)).map(|_| ids[next(3)]).collect();
                match next(5) {
                    0 => text(if next(2) == 0 { Role::User } else { Role::Assistant }, turn, "x"),
                    1 | 2 => tool_use(turn, &some),
                    _ => tool_result(turn, &some, "r"),
                }
            })
            .collect();
        for limit in 0..=len + 1 {
            assert_eq!(safe_cut(&conv, limit), reference_cut(&conv, limit), "limit {limit} of {conv:?}");
        }
    }
}

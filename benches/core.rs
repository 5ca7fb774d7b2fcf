//! `cargo bench`: the core on the cases of `npm run bench`, natively. The
//! reference for what the wasm build and the JS boundary add on top.

use std::collections::HashMap;
use std::hint::black_box;

use context_compactor::formats::Format;
use context_compactor::model::read::{parse_messages, parse_messages_text};
use context_compactor::{
    BodyRequest, CompactionConfig, Compactor, CompactorType, ContextManager, ContextManagerConfig, Step,
    ThresholdCompactor,
};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::{json, Map, Value};

/// mulberry32, as in `bench/generate.mjs`, so both benches see the same conversations.
struct Prng(u32);

impl Prng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x6d2b_79f5);
        let mut t = self.0;
        t = (t ^ (t >> 15)).wrapping_mul(t | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64) as usize
    }
}

const WORDS: &str = "the a to of and in is it for on with as was at by file line error test function return \
value import from src main config module const let if else async await result ok failed passed \
build cargo npm node rust wasm json string number array object index path dir read write";

fn words(random: &mut Prng, chars: usize) -> String {
    let words: Vec<&str> = WORDS.split(' ').collect();
    let mut out = String::new();
    while out.len() < chars {
        let w = words[random.below(words.len())];
        out.push_str(w);
        out.push(if random.next() < 0.08 { '\n' } else { ' ' });
    }
    out.truncate(chars);
    out
}

/// The JSON of `bench/generate.mjs`'s conversation (same shape and sizes; timestamps simplified).
fn conversation_json(turns: usize) -> Value {
    let mut random = Prng(42);
    let mut messages = Vec::new();
    let mut n = 0;
    let mut message = |role: &str, owner: &str, number: usize, content: Value| {
        n += 1;
        messages.push(json!({
            "role": role, "id": format!("00000000-0000-4000-8000-{n:012x}"), "session_id": 1,
            "turn_id": { "owner": owner, "number": number }, "created_at": "2026-01-01T00:00:00.000Z",
            "content": content,
        }));
    };
    for k in 1..=turns {
        let len = 80 + random.below(200);
        message("user", "u", k, json!([{ "type": "text", "text": words(&mut random, len) }]));
        for c in 1..=2 {
            let id = format!("toolu_{k}_{c}");
            let tool = if random.next() < 0.5 { "read_file" } else { "run_command" };
            let len = 40 + random.below(80);
            let text = words(&mut random, len);
            let path = words(&mut random, 12).trim().replace(|ch: char| !ch.is_alphanumeric(), "_");
            message(
                "assistant",
                "a",
                k,
                json!([{ "type": "text", "text": text },
                       { "type": "tool_use", "id": id, "name": tool, "input": { "path": format!("src/{path}.rs") } }]),
            );
            let len = 1800 + random.below(400);
            let content = words(&mut random, len);
            let summary = format!("{tool} ok: {}", words(&mut random, 60));
            message(
                "user",
                "a",
                k,
                json!([{ "type": "tool_result", "tool_use_id": id, "content": content, "is_error": false,
                         "compact_summary": summary }]),
            );
        }
        let len = 200 + random.below(400);
        message("assistant", "a", k, json!([{ "type": "text", "text": words(&mut random, len) }]));
    }
    Value::Array(messages)
}

fn manager(messages: &[context_compactor::Message], limit: i64, compactor: CompactorType) -> ContextManager {
    let mut ctx = ContextManager::new(ContextManagerConfig::new(limit, compactor)).unwrap();
    ctx.push_many(messages.iter().cloned());
    ctx
}

fn anthropic_request() -> BodyRequest {
    let fields: Map<String, Value> =
        json!({ "model": "claude-sonnet-4-5", "max_tokens": 4096 }).as_object().unwrap().clone();
    BodyRequest { format: Format::Anthropic, fields, system: Vec::new() }
}

fn bench(c: &mut Criterion) {
    let threshold = || CompactorType::Threshold(CompactionConfig::default());
    for turns in [100, 1_000, 5_000] {
        let json = conversation_json(turns);
        let text = json.to_string();
        let messages = parse_messages(&json, "messages").unwrap();
        let estimate = manager(&messages, 1, threshold()).estimated_tokens();
        let mut group = c.benchmark_group(format!("{turns} turns"));
        group.sample_size(15);

        group.bench_function("ContextManager threshold compaction", |b| {
            b.iter_batched(
                || manager(&messages, estimate, threshold()),
                |mut ctx| {
                    black_box(ctx.begin(false));
                    ctx
                },
                BatchSize::LargeInput,
            )
        });

        let request = anthropic_request();
        let mut ctx = manager(&messages, 1_000_000_000, threshold());
        ctx.request_body(&request);
        group.bench_function("request_body, unchanged", |b| b.iter(|| black_box(ctx.request_body(&request).len())));
        let turn = parse_messages(&conversation_json(1), "messages").unwrap();
        group.bench_function("push a turn + request_body", |b| {
            b.iter_batched(
                || {
                    let mut ctx = manager(&messages, 1_000_000_000, threshold());
                    ctx.request_body(&request);
                    ctx
                },
                |mut ctx| {
                    ctx.push_many(turn.iter().cloned());
                    black_box(ctx.request_body(&request).len());
                    ctx
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function("request_body after a compaction", |b| {
            b.iter_batched(
                || {
                    let mut ctx = manager(&messages, estimate, threshold());
                    ctx.request_body(&request);
                    assert!(matches!(ctx.begin(false), Step::Done(_)));
                    ctx
                },
                |mut ctx| {
                    black_box(ctx.request_body(&request).len());
                    ctx
                },
                BatchSize::LargeInput,
            )
        });

        let mut idle = manager(&messages, 1_000_000_000, threshold());
        group.bench_function("begin() below the threshold", |b| {
            b.iter(|| black_box(matches!(idle.begin(false), Step::Idle)))
        });

        let compactor = ThresholdCompactor::default();
        group.bench_function("ThresholdCompactor::compact", |b| {
            b.iter_batched(
                || messages.clone(),
                |mut m| {
                    black_box(compactor.compact(&mut m, &HashMap::new()));
                    m
                },
                BatchSize::LargeInput,
            )
        });

        group.bench_function("push_many from JSON text", |b| {
            b.iter_batched(
                || manager(&[], 1_000_000_000, threshold()),
                |mut ctx| {
                    ctx.push_many(parse_messages_text(&text, "messages").unwrap());
                    ctx
                },
                BatchSize::LargeInput,
            )
        });

        let llm = || CompactorType::LLM(Default::default());
        group.bench_function("LLM compaction (instant summary)", |b| {
            b.iter_batched(
                || manager(&messages, 1_000_000_000, llm()),
                |mut ctx| {
                    let Step::Summarize(job) = ctx.begin(true) else { panic!("expected a summary job") };
                    black_box(ctx.complete(job.id, Ok("A short summary of the work.".to_owned())));
                    ctx
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

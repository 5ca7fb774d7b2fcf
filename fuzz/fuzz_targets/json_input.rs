#![no_main]

// The entry function is shared with tests/fuzz_corpus.rs, which replays the
// committed corpus on stable Rust with plain `cargo test`.
#[path = "../entry.rs"]
mod entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| entry::run(data));

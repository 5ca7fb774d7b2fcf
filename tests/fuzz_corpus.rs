//! Replays the committed fuzz corpus (`fuzz/corpus/json_input/`, minimized with
//! `cargo fuzz cmin`) through the fuzz target's own entry function, on stable
//! Rust with plain `cargo test`: every input that once reached new code must
//! still run without a panic. Fuzzing itself needs nightly: see `fuzz/README.md`.

#[path = "../fuzz/entry.rs"]
mod entry;

use std::path::Path;
use std::time::{Duration, Instant};

#[test]
fn fuzz_corpus_replays_without_panic_or_hang() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/json_input");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the committed corpus has only {} inputs", files.len());
    let mut parsed = 0;
    for file in &files {
        let data = std::fs::read(file).unwrap();
        parsed += usize::from(serde_json::from_slice::<serde_json::Value>(&data).is_ok());
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| entry::run(&data));
        assert!(outcome.is_ok(), "{} panicked", file.display());
        // The fuzzer ran with -timeout=10; a debug build is slower, hence the margin.
        assert!(started.elapsed() < Duration::from_secs(20), "{} took {:?}", file.display(), started.elapsed());
    }
    // The corpus must exercise the library, not only the JSON parser.
    assert!(parsed >= 100 && parsed * 3 >= files.len(), "only {parsed} of {} inputs are JSON", files.len());
    // The inputs that once crashed the target (`crash-*`, kept by hand after `cmin`)
    // are regression tests: they must stay.
    let regressions = files.iter().filter(|f| f.file_name().unwrap().to_string_lossy().starts_with("crash-")).count();
    assert!(regressions >= 2, "the crash-* regression inputs are missing from the corpus");
}

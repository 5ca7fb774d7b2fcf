//! The shared transcripts' files, for the native tests and (through `#[path]` in
//! `src/formats/mod.rs`) the crate's own unit tests: one listing for both.

use std::path::PathBuf;

/// Where the shared transcripts are: beside the repository.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conversations");

/// The files of [`DIR`] whose names end with `suffix` (`""`: all of them), in file
/// name order.
pub fn transcript_files(suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .expect("shared/conversations is beside the repository")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

//! The compaction algorithms, on plain slices of messages: turns and the step
//! rule, where a conversation may be cut, threshold and LLM compaction.

pub mod config;
pub mod llm;
pub mod result;
pub mod threshold;
pub mod tool_pairs;
pub mod turns;

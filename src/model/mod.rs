//! The message model: messages and their content blocks, the one reader that
//! turns JSON into them (with the path of every mistake), and the token estimate.

pub mod message;
pub mod read;
pub mod tokens;

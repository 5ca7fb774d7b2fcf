//! Replacing the start of a vector with one element, as a compaction does to
//! the messages and their caches. `Vec::splice` would do it too, but each of its
//! instantiations costs the `.wasm` about 700 bytes; `drain` is there anyway.

/// Replaces `v[..n]` with `x`.
pub(crate) fn replace_prefix<T>(v: &mut Vec<T>, n: usize, x: T) {
    if n == 0 {
        v.insert(0, x);
    } else {
        v.drain(1..n);
        v[0] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::replace_prefix;

    #[test]
    fn replaces_the_prefix_as_splice_does() {
        for n in 0..=4 {
            let mut ours = vec![1, 2, 3, 4];
            let mut theirs = ours.clone();
            replace_prefix(&mut ours, n, 9);
            theirs.splice(..n, [9]);
            assert_eq!(ours, theirs, "n = {n}");
        }
    }
}

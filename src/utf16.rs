//! A `str` as UTF-16 code units: how large non-ASCII text is best handed to
//! JS. Node 20's `TextDecoder` reads UTF-8 outside ASCII at 4–6 ns a byte
//! (10 ms for a 2 MB Cyrillic prompt); UTF-16 it copies.

/// How many UTF-16 code units `text` has: one per character, two for those
/// beyond U+FFFF (four bytes in UTF-8).
pub fn utf16_len(text: &str) -> usize {
    text.bytes().map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)).sum()
}

/// The UTF-16 code units of `text`, as [`str::encode_utf16`] gives them, in
/// one loop over the bytes.
pub fn to_utf16(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    // Exactly the room needed: the text's UTF-16 can be twice its UTF-8 (ASCII).
    let mut units: Vec<u16> = Vec::with_capacity(utf16_len(text));
    let dst = units.spare_capacity_mut().as_mut_ptr().cast::<u16>();
    let (mut i, mut j) = (0, 0);
    // SAFETY: `text` is valid UTF-8, so each lead byte at `i` is followed by
    // its continuation bytes, all before `bytes.len()`; the loop writes one
    // unit per character and two for a 4-byte one: `utf16_len` units, the capacity.
    unsafe {
        let at = |k: usize| u32::from(*bytes.get_unchecked(k));
        while i < bytes.len() {
            let lead = at(i);
            let unit = if lead < 0x80 {
                i += 1;
                lead
            } else if lead < 0xE0 {
                i += 2;
                ((lead & 0x1F) << 6) | (at(i - 1) & 0x3F)
            } else if lead < 0xF0 {
                i += 3;
                ((lead & 0x0F) << 12) | ((at(i - 2) & 0x3F) << 6) | (at(i - 1) & 0x3F)
            } else {
                i += 4;
                let c =
                    ((lead & 0x07) << 18) | ((at(i - 3) & 0x3F) << 12) | ((at(i - 2) & 0x3F) << 6) | (at(i - 1) & 0x3F);
                let c = c - 0x1_0000;
                // The high surrogate here, the low one below.
                dst.add(j).write((0xD800 | (c >> 10)) as u16);
                j += 1;
                0xDC00 | (c & 0x3FF)
            };
            dst.add(j).write(unit as u16);
            j += 1;
        }
        units.set_len(j);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::{to_utf16, utf16_len};

    #[test]
    fn gives_what_encode_utf16_gives() {
        let texts = [
            "",
            "ascii only\n",
            "é",
            "файл строка ошибка",
            "文件行错误",
            "😀 and 𝄞",
            "a\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}z",
        ];
        for text in texts {
            assert_eq!(to_utf16(text), text.encode_utf16().collect::<Vec<_>>(), "{text}");
            assert_eq!(utf16_len(text), text.encode_utf16().count(), "{text}");
        }
    }

    #[test]
    fn every_scalar_value() {
        let text: String = (0..=0x10FFFF).filter_map(char::from_u32).collect();
        assert!(to_utf16(&text).into_iter().eq(text.encode_utf16()));
    }
}

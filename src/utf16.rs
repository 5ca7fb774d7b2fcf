//! A `str` as UTF-16 code units: how large non-ASCII text is best handed to
//! JS. Node 20's `TextDecoder` reads UTF-8 outside ASCII at 4–6 ns a byte
//! (10 ms for a 2 MB Cyrillic prompt); UTF-16 it copies.

/// At least as many as the UTF-16 code units of `text`, and at most two thirds
/// more: one per character (counted a word at a time, where counting the units
/// exactly took ~1 ms per 2 MB), plus one for each character that the bytes
/// left could make beyond U+FFFF (four bytes in UTF-8).
pub fn utf16_room(text: &str) -> usize {
    let chars = text.chars().count();
    chars + (text.len() - chars) / 3
}

/// The UTF-16 code units of `text`, as [`str::encode_utf16`] gives them, in
/// one loop over the bytes.
pub fn to_utf16(text: &str) -> Vec<u16> {
    let bytes = text.as_bytes();
    // Room for the units, not one per byte: a character of two or three bytes is
    // one unit, so non-ASCII text needs a half to a third as many units as bytes.
    let mut units: Vec<u16> = Vec::with_capacity(utf16_room(text));
    let dst = units.spare_capacity_mut().as_mut_ptr().cast::<u16>();
    let (mut i, mut j) = (0, 0);
    // SAFETY: `text` is valid UTF-8, so each lead byte at `i` is followed by
    // its continuation bytes, all before `bytes.len()`; the loop writes one
    // unit per character and two for a 4-byte one: at most `utf16_room` units.
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
    use super::{to_utf16, utf16_room};

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
            let units = text.encode_utf16().count();
            let room = utf16_room(text);
            assert!(room >= units && room * 3 <= units * 5, "{text}");
        }
    }

    #[test]
    fn every_scalar_value() {
        let text: String = (0..=0x10FFFF).filter_map(char::from_u32).collect();
        assert!(to_utf16(&text).into_iter().eq(text.encode_utf16()));
    }
}

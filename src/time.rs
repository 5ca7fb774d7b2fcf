//! RFC 3339 timestamps, without a date library: the current time (UTC,
//! milliseconds) and a validity check for timestamps given by callers.
//! Hand-written because these two functions were all the crate used of
//! `chrono`, whose share of the `.wasm` was not worth it.

use std::cell::RefCell;

use web_time::{SystemTime, UNIX_EPOCH};

/// The current time as RFC 3339 (UTC, millisecond precision), e.g. `2026-01-01T12:00:00.000Z`.
pub fn now_rfc3339() -> String {
    thread_local! {
        /// The last time formatted: the messages of one `pushMany` mostly share a millisecond.
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != millis {
            *last = (millis, format_millis(millis));
        }
        last.1.clone()
    })
}

/// A Unix time in milliseconds as RFC 3339 (UTC, millisecond precision).
pub fn format_millis(millis: i64) -> String {
    let (days, ms) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, ms) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

/// The (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Whether `s` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`,
/// with a real calendar date (leap years included), `t`/space for `T` and `z`
/// for `Z` accepted, and a leap second (`:60`) allowed.
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    if !b.get(..19).is_some_and(|head| shaped(head, b"0000-00-00T00:00:00")) {
        return false;
    }
    // Digits known to be there, as a number.
    let num = |i: usize, len: usize| b[i..i + len].iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
    let (year, month, day, hour, minute, second) =
        (num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > days_in_month || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
    if matches!(b.get(i), Some(b'.')) {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        i += 1 + digits;
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len() && shaped(&b[i + 1..], b"00:00") && num(i + 1, 2) <= 23 && num(i + 4, 2) <= 59
        }
        _ => false,
    }
}

/// Whether `bytes` has the shape of `shape`, byte for byte: `0` stands for
/// any ASCII digit, `T` for the date-time separator (`T`, `t` or a space).
fn shaped(bytes: &[u8], shape: &[u8]) -> bool {
    bytes.len() == shape.len()
        && bytes.iter().zip(shape).all(|(&c, &expected)| match expected {
            b'0' => c.is_ascii_digit(),
            b'T' => matches!(c, b'T' | b't' | b' '),
            _ => c == expected,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_chrono() {
        for millis in [0, 951_782_400_000, 1_709_210_096_789, 4_102_444_799_999, -86_400_001, 1_767_225_600_000] {
            let expected = chrono::DateTime::from_timestamp_millis(millis)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            assert_eq!(format_millis(millis), expected);
        }
        assert!(is_rfc3339(&now_rfc3339()));
    }

    #[test]
    fn the_current_time_is_reused_only_within_its_millisecond() {
        let first = now_rfc3339();
        assert_eq!(now_rfc3339().len(), first.len());
        std::thread::sleep(std::time::Duration::from_millis(3));
        let later = now_rfc3339();
        assert!(later > first, "{later} is not after {first}");
        let age = chrono::Utc::now() - chrono::DateTime::parse_from_rfc3339(&later).unwrap().to_utc();
        assert!((0..1000).contains(&age.num_milliseconds()), "{later} is {age} old");
    }

    #[test]
    fn validates_like_chrono() {
        let cases = [
            "2024-05-01T10:00:00+02:00",
            "2024-05-01T10:00:00Z",
            "2024-05-01t10:00:00z",
            "2024-05-01 10:00:00Z",
            "2024-02-29T00:00:00.123456789Z",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T10:60:00Z",
            "2016-12-31T23:59:60Z",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00.Z",
            "2024-05-01T10:00:00+2:00",
            "2024-05-01T10:00:00+02:00x",
            "yesterday",
            "",
            "2024-05-01",
            "2024-05-01T10:00:00-00:00",
            "0000-01-01T00:00:00Z",
            "2024-05-01T10:00:00+24:00",
            "٢٠٢٤-05-01T10:00:00Z",
            "2024/05/01T10:00:00Z",
            "2024-05-01T10:00:0Z",
            "2024-05-01T10:00:00+02:3x",
            "2024-05-01T10:00:00+0200",
            "2024-05-01T10:00:00-23:59",
        ];
        for case in cases {
            assert_eq!(is_rfc3339(case), chrono::DateTime::parse_from_rfc3339(case).is_ok(), "{case:?}");
        }
    }
}

//! Decimal digits to the nearest `f64`, correctly rounded (ties to even), as
//! `JSON.parse` reads numbers. Written here because core's `str::parse::<f64>`
//! adds 14 KB gzip to the `.wasm`: the usual cases take one exact `f64`
//! multiplication or division (Clinger's fast path); the others start from an
//! estimate and step to the right neighbour by comparing exact big integers.

use std::cmp::Ordering;

/// Powers of ten that `f64` holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Significant digits beyond which only whether the rest is zero matters.
const MAX_DIGITS: usize = 768;

/// The nearest `f64` to `int.frac` × 10^`exponent`, where `int` and `frac`
/// are ASCII decimal digits; `f64::INFINITY` when that is beyond `f64::MAX`
/// (by more than half its last unit).
pub(crate) fn decimal_to_f64(int: &[u8], frac: &[u8], exponent: i64) -> f64 {
    // The first 19 significant digits, and the power of ten that scales them.
    let mut w = 0u64;
    let (leading, exact) = significant(int, frac, 19, |d| w = w * 10 + u64::from(d));
    let digits = int.len() + frac.len() - leading;
    // value = 0.d1d2… × 10^magnitude
    let magnitude = exponent.saturating_add((int.len() as i64) - (leading as i64));
    if digits == 0 || magnitude < -324 {
        return 0.0;
    }
    if magnitude > 310 {
        return f64::INFINITY;
    }
    let scale = magnitude - digits.min(19) as i64;
    if exact && w < 1 << 53 && scale.unsigned_abs() <= 22 {
        let power = EXACT_POWERS[scale.unsigned_abs() as usize];
        return if scale < 0 { w as f64 / power } else { w as f64 * power };
    }
    // Most other numbers JS writes (17 digits, a small exponent) are compared
    // in 128 bits.
    if exact {
        if let Some(x) = refine(estimate(w, scale), |m, k| compare_small(w, scale, m, k)) {
            return x;
        }
    }
    // The exact value: the digits as one integer, times 10^(magnitude - used).
    // 768 significant digits decide any rounding (a halfway point has at most
    // 767); a rest that is not all zeros counts as one more digit, a 1.
    let mut all = Big::default();
    let (_, rest_zero) = significant(int, frac, MAX_DIGITS, |d| all.mul_add(10, u32::from(d)));
    let mut used = digits.min(MAX_DIGITS);
    if !rest_zero {
        all.mul_add(10, 1);
        used += 1;
    }
    let scale_all = magnitude - used as i64;
    refine(estimate(w, scale), |m, k| Some(compare(&all, scale_all, m, k))).unwrap_or(f64::INFINITY)
}

/// Hands the first `max` significant digits of `int` then `frac` to `each`
/// (as numbers); the count of leading zeros, and whether the digits past
/// `max` are all zeros. Plain loops: iterator adapters are calls at opt-level "z".
fn significant(int: &[u8], frac: &[u8], max: usize, mut each: impl FnMut(u8)) -> (usize, bool) {
    let (mut leading, mut taken, mut rest_zero) = (0, 0, true);
    for part in [int, frac] {
        for &d in part {
            let d = d - b'0';
            if taken == 0 && d == 0 {
                leading += 1;
            } else if taken < max {
                each(d);
                taken += 1;
            } else if d != 0 {
                rest_zero = false;
            }
        }
    }
    (leading, rest_zero)
}

/// `w` × 10^`scale` within a few units of the last place (or 0 or `f64::MAX`
/// near the ends of the range), for [`refine`] to correct.
fn estimate(w: u64, scale: i64) -> f64 {
    let scale = scale as i32;
    let x = match scale {
        ..-300 => w as f64 * 10f64.powi(scale + 300) * 1e-300,
        301.. => w as f64 * 10f64.powi(scale - 300) * 1e300,
        _ => w as f64 * 10f64.powi(scale),
    };
    x.min(f64::MAX)
}

/// The nearest `f64` to the value that `compare` compares with `m` × 2^`k`,
/// stepping from `x` one unit of the last place at a time; `None` when a
/// comparison cannot be made (see [`compare_small`]).
fn refine(mut x: f64, compare: impl Fn(u64, i64) -> Option<Ordering>) -> Option<f64> {
    loop {
        let bits = x.to_bits();
        let (m, k) = parts(bits);
        let even = bits & 1 == 0;
        // Halfway to the next value up: (2m + 1) × 2^(k - 1).
        match compare(2 * m + 1, k - 1)? {
            Ordering::Greater => {}
            Ordering::Equal if !even => {}
            _ => {
                if bits == 0 {
                    return Some(x);
                }
                // Halfway to the next value down; a unit smaller below a power of two.
                let below =
                    if m == 1 << 52 && k > -1074 { compare(4 * m - 1, k - 2)? } else { compare(2 * m - 1, k - 1)? };
                match below {
                    Ordering::Less => {}
                    Ordering::Equal if !even => {}
                    _ => return Some(x),
                }
                x = f64::from_bits(bits - 1);
                continue;
            }
        }
        if bits == f64::MAX.to_bits() {
            return Some(f64::INFINITY);
        }
        x = f64::from_bits(bits + 1);
    }
}

/// A finite, non-negative `f64` (by its bits) as `m` × 2^`k`.
fn parts(bits: u64) -> (u64, i64) {
    let field = (bits >> 52) as i64;
    let fraction = bits & ((1 << 52) - 1);
    match field {
        0 => (fraction, -1074),
        _ => (fraction | 1 << 52, field - 1075),
    }
}

/// `w` × 10^`scale` against `m` × 2^`k`, in 128 bits, or `None` when they do not fit.
fn compare_small(w: u64, scale: i64, m: u64, k: i64) -> Option<Ordering> {
    // As in `compare`: 5^27 < 2^63, and both sides are about as large.
    if scale.unsigned_abs() > 27 {
        return None;
    }
    let five = 5u128.pow(scale.unsigned_abs() as u32);
    let (mut left, mut right) = (u128::from(w), u128::from(m));
    match scale >= 0 {
        true => left *= five,
        false => right *= five,
    }
    let shifted = |x: u128, by: u64| (by < 128 && x.leading_zeros() as u64 >= by).then(|| x << by);
    match scale - k {
        shift if shift >= 0 => left = shifted(left, shift.unsigned_abs())?,
        shift => right = shifted(right, shift.unsigned_abs())?,
    }
    Some(left.cmp(&right))
}

/// `digits` × 10^`scale` against `m` × 2^`k`.
fn compare(digits: &Big, scale: i64, m: u64, k: i64) -> Ordering {
    // 10^scale = 5^scale × 2^scale: the fives go to the side where they multiply,
    // then the side with the larger power of two is shifted.
    let mut left = digits.clone();
    let mut right = Big::default();
    right.mul_add(1 << 32, (m >> 32) as u32);
    right.mul_add(1 << 32, m as u32);
    match scale >= 0 {
        true => left.mul_pow5(scale.unsigned_abs()),
        false => right.mul_pow5(scale.unsigned_abs()),
    }
    match scale - k {
        shift if shift >= 0 => left.shl(shift.unsigned_abs()),
        shift => right.shl(shift.unsigned_abs()),
    }
    left.cmp(&right)
}

/// An unsigned big integer, in 32-bit limbs, least significant first, with
/// no zero limb at the top.
#[derive(Clone, Default, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    /// self = self × `factor` + `add`; `factor` up to 2^32.
    fn mul_add(&mut self, factor: u64, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let x = u64::from(*limb) * factor + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// self = self × 5^`n`.
    fn mul_pow5(&mut self, mut n: u64) {
        while n > 0 {
            let step = n.min(13);
            self.mul_add(5u64.pow(step as u32), 0);
            n -= step;
        }
    }

    /// self = self × 2^`n`.
    fn shl(&mut self, n: u64) {
        if self.0.is_empty() {
            return;
        }
        self.mul_add(1 << (n % 32), 0);
        // Zero limbs in front: not `splice`, whose drop is a kilobyte of `.wasm`.
        let mut shifted = vec![0; (n / 32) as usize];
        shifted.extend_from_slice(&self.0);
        self.0 = shifted;
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        // The most significant limb that differs decides; a plain loop, not `Iterator::cmp`.
        let differs = self.0.iter().rev().zip(other.0.iter().rev()).find(|(a, b)| a != b);
        self.0.len().cmp(&other.0.len()).then_with(|| differs.map_or(Ordering::Equal, |(a, b)| a.cmp(b)))
    }
}

#[cfg(test)]
mod tests {
    use super::decimal_to_f64;

    /// Splits a JSON-style number text and reads it here.
    fn read(text: &str) -> f64 {
        let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        decimal_to_f64(int.as_bytes(), frac.as_bytes(), exponent.parse().unwrap())
    }

    #[test]
    fn hard_cases_round_as_core_does() {
        for text in [
            "0",
            "0.0",
            "000.000e5",
            "1",
            "0.1",
            "0.3",
            "123.456",
            "9007199254740993",
            "9007199254740992.5",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203126",
            "1.00000000000000011102230246251565404236316680908203124",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.47032822920623272088e-324",
            "1e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "179769313486231580793728971405301e276",
            "1e309",
            "1e22",
            "1e23",
            "8.98846567431158e307",
            "4503599627370496.5",
            "4503599627370497.5",
            "1234567890123456789012345678901234567890e-20",
            "0.000000000000000000000000000000000000000001e42",
            "5e-324",
            "3e-324",
            "7.4109846876186982e-324",
        ] {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(read(text).to_bits(), expected.to_bits(), "{text}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// Every finite double, written shortest, at 17 and at 25 digits, reads back as core reads it.
        #[test]
        fn doubles_round_as_core_does(bits in 0u64..0x7ff0_0000_0000_0000) {
            let x = f64::from_bits(bits);
            for text in [format!("{x:e}"), format!("{x:.16e}"), format!("{x:.24e}"), format!("{x}")] {
                let expected: f64 = text.parse().unwrap();
                proptest::prop_assert_eq!(read(&text).to_bits(), expected.to_bits(), "{}", text);
            }
        }

        /// Any digits at any scale, halfway points of small doubles among them.
        #[test]
        fn digit_strings_round_as_core_does(int in "[0-9]{1,30}", frac in "[0-9]{0,30}", exponent in -360i64..330) {
            let text = format!("{int}.{frac}e{exponent}");
            let expected: f64 = text.parse().unwrap();
            proptest::prop_assert_eq!(read(&text).to_bits(), expected.to_bits(), "{}", text);
        }
    }

    /// The exact decimal halfway between `x` and the next double up.
    fn halfway_up(x: f64) -> String {
        let up = f64::from_bits(x.to_bits() + 1);
        // Fixed notation with 1,100 decimals writes any double exactly.
        let (a, b) = (format!("{x:.1100}"), format!("{up:.1100}"));
        let width = a.len().max(b.len());
        let digits =
            |s: &str| format!("{s:0>width$}").bytes().filter(|&c| c != b'.').map(|c| c - b'0').collect::<Vec<_>>();
        let (a, b) = (digits(&a), digits(&b));
        // Sum, then halve, digit by digit (the sum is even in its last place only sometimes:
        // one more decimal keeps the half exact).
        let mut sum = vec![0u8; a.len() + 1];
        let mut carry = 0;
        for i in (0..a.len()).rev() {
            let d = a[i] + b[i] + carry;
            sum[i + 1] = d % 10;
            carry = d / 10;
        }
        sum[0] = carry;
        sum.push(0);
        let mut half = Vec::with_capacity(sum.len());
        let mut rest = 0;
        for d in sum {
            let x = rest * 10 + d;
            half.push(b'0' + x / 2);
            rest = x % 2;
        }
        let text = String::from_utf8(half).unwrap();
        // `width + 1` integer digits before the point, `a` had `width - 1101`.
        let point = width + 1 - 1101;
        let (integer, fraction) = text.split_at(point);
        format!("{integer}.{fraction}")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]

        /// Halfway points round to the even neighbour; a digit more or less decides.
        #[test]
        fn halfway_points_round_as_core_does(bits in 0u64..0x7fef_ffff_ffff_ffff) {
            let x = f64::from_bits(bits);
            let half = halfway_up(x);
            let mut texts = vec![half.clone(), format!("{half}1")];
            // Below: the last decimal one lower (when halfway is not a whole number).
            let trimmed = half.trim_end_matches('0');
            if !trimmed.ends_with('.') {
                let mut t = trimmed.as_bytes().to_vec();
                *t.last_mut().unwrap() -= 1;
                texts.push(String::from_utf8(t).unwrap());
            }
            for text in &texts {
                let expected: f64 = text.parse().unwrap();
                proptest::prop_assert_eq!(read(text).to_bits(), expected.to_bits(), "{}", text);
            }
            let even = if bits % 2 == 0 { x } else { f64::from_bits(bits + 1) };
            proptest::prop_assert_eq!(read(&half).to_bits(), even.to_bits());
        }
    }

    #[test]
    fn long_digit_strings_round_as_core_does() {
        let mut digits = String::from("1");
        for i in 0..800 {
            digits.push(char::from(b'0' + (i * 7 % 10) as u8));
            for exponent in [-1100, -340, -330, -20, 0, 20, -600, -1000] {
                let text = format!("{digits}e{exponent}");
                let expected: f64 = text.parse().unwrap();
                assert_eq!(read(&text).to_bits(), expected.to_bits(), "{text}");
            }
        }
    }
}

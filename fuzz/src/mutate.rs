//! A deterministic mutator in the manner of AFL's havoc stage: bit flips,
//! truncation, splicing with another seed, spans deleted or repeated, and
//! numbers replaced by hostile values (0, −1, NaN, ±inf, ±1e300, huge
//! integers) — as text in text inputs, as little-endian words in binary
//! ones.

/// A SplitMix64 generator: the same seed gives the same mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Hostile numbers written as text.
const TEXT_NUMBERS: [&str; 14] = [
    "0",
    "-1",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e300",
    "-1e300",
    "1e-45",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999999999",
];

/// Hostile numbers as the bytes of `f64`, `f32`, `u32` and `u64` words.
fn binary_word(rng: &mut Rng) -> Vec<u8> {
    match rng.below(12) {
        0 => f64::NAN.to_le_bytes().to_vec(),
        1 => f64::INFINITY.to_le_bytes().to_vec(),
        2 => 1e300f64.to_le_bytes().to_vec(),
        3 => (-1.0f64).to_le_bytes().to_vec(),
        4 => f32::NAN.to_le_bytes().to_vec(),
        5 => f32::NEG_INFINITY.to_le_bytes().to_vec(),
        6 => 1e30f32.to_le_bytes().to_vec(),
        7 => (-1.0f32).to_le_bytes().to_vec(),
        8 => u32::MAX.to_le_bytes().to_vec(),
        9 => 0x8000_0000u32.to_le_bytes().to_vec(),
        10 => u64::MAX.to_le_bytes().to_vec(),
        _ => 0u64.to_le_bytes().to_vec(),
    }
}

/// One to four mutations of `input`; `other` is the splice partner and
/// `text` chooses how numbers are replaced.
#[must_use]
pub fn mutate(rng: &mut Rng, input: &[u8], other: &[u8], text: bool) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(6) {
            0 => flip_bit(rng, &mut out),
            1 => out.truncate(rng.below(out.len() + 1)),
            2 => out = splice(rng, &out, other),
            3 => span(rng, &mut out),
            _ if text => replace_number(rng, &mut out),
            _ => overwrite_word(rng, &mut out),
        }
    }
    out
}

fn flip_bit(rng: &mut Rng, bytes: &mut [u8]) {
    if !bytes.is_empty() {
        let at = rng.below(bytes.len());
        bytes[at] ^= 1 << rng.below(8);
    }
}

fn splice(rng: &mut Rng, head: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut out = head[..rng.below(head.len() + 1)].to_vec();
    out.extend_from_slice(&tail[rng.below(tail.len() + 1)..]);
    out
}

/// Deletes a span, or repeats it in place.
fn span(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let start = rng.below(bytes.len() + 1);
    let end = (start + rng.below(64)).min(bytes.len());
    if rng.below(2) == 0 {
        bytes.drain(start..end);
    } else {
        let copy = bytes[start..end].to_vec();
        bytes.splice(start..start, copy);
    }
}

/// Replaces one number token (digits with sign, point and exponent) by a
/// hostile one.
fn replace_number(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let numeric = |b: u8| b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'e' | b'E' | b'+');
    let starts: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || !numeric(bytes[i - 1])))
        .collect();
    if starts.is_empty() {
        return;
    }
    let start = starts[rng.below(starts.len())];
    let end = (start..bytes.len())
        .find(|&i| !numeric(bytes[i]))
        .unwrap_or(bytes.len());
    let value = TEXT_NUMBERS[rng.below(TEXT_NUMBERS.len())].as_bytes();
    bytes.splice(start..end, value.iter().copied());
}

/// Overwrites a word at a 4-byte boundary with a hostile number's bytes.
fn overwrite_word(rng: &mut Rng, bytes: &mut [u8]) {
    let word = binary_word(rng);
    if bytes.len() < word.len() {
        return;
    }
    let at = rng.below((bytes.len() - word.len()) / 4 + 1) * 4;
    bytes[at..at + word.len()].copy_from_slice(&word);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutants_and_numbers_change() {
        let input = b"width 10\nheight 20\n";
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..50)
                .map(|_| mutate(&mut rng, input, b"other", true))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let mut rng = Rng::new(1);
        let mut bytes = input.to_vec();
        replace_number(&mut rng, &mut bytes);
        assert_ne!(bytes, input.to_vec());
        assert!(bytes.starts_with(b"width ") || bytes.starts_with(b"width 10\nheight "));
    }
}

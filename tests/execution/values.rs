//! Buffer and texture contents written as tokens in a case's header, each
//! token giving one or more 32-bit words:
//!
//! | token | words |
//! |---|---|
//! | `7`, `-1`, `4294967295`, `0x8000_0000` | one integer (negative ones in two's complement) |
//! | `1.5`, `-0.0`, `1e-3`, `inf`, `-inf` | one `f32` |
//! | `edges` | the sixteen integer edge values of [`EDGES`] |
//! | `index*N` | `0, 1, ..., N-1` |
//! | `random*N` | `N` pseudo-random words |
//! | `floats*N` | `N` pseudo-random finite, normal `f32`s in ±[2^-8, 2^8) |
//! | `T*N` | any one-word token `T` repeated `N` times, e.g. `0*64` |
//!
//! The pseudo-random words are the same on every run and every machine: a
//! splitmix64 sequence seeded by the token's position in its list and the
//! binding, so two buffers never share contents by accident.

/// Integer values where signed and unsigned meanings part, and where shifts,
/// overflow and bit scans have their edge cases.
pub const EDGES: [u32; 16] = [
    0,
    1,
    2,
    3,
    0xFFFF_FFFF, // -1, UINT_MAX
    0xFFFF_FFFE, // -2
    31,
    32,
    0x7FFF_FFFF, // INT_MAX
    0x8000_0000, // INT_MIN
    0x8000_0001,
    0x7FFF_FFFE,
    0x0000_FFFF,
    0xFFFF_0000,
    0x5555_5555,
    0xAAAA_AAAA,
];

/// The words a list of tokens stands for; `seed` varies the random ones.
pub fn parse_words(tokens: &[&str], seed: u64) -> Result<Vec<u32>, String> {
    let mut words = Vec::new();
    for (position, token) in tokens.iter().enumerate() {
        let mut random = SplitMix(seed.wrapping_mul(1_000_003).wrapping_add(position as u64));
        let (base, count) = match token.rsplit_once('*') {
            Some((base, count)) => {
                let count: usize =
                    count.parse().map_err(|_| format!("`{token}`: the count after `*` is not a number"))?;
                (base, Some(count))
            }
            None => (*token, None),
        };
        match (base, count) {
            ("edges", None) => words.extend(EDGES),
            ("index", Some(n)) => words.extend(0..n as u32),
            ("random", Some(n)) => words.extend((0..n).map(|_| random.next() as u32)),
            ("floats", Some(n)) => words.extend((0..n).map(|_| random.float_bits())),
            ("index" | "random" | "floats", None) => {
                return Err(format!("`{token}` needs a count, e.g. `{token}*16`"));
            }
            (literal, count) => {
                let word = parse_word(literal)?;
                words.extend(std::iter::repeat_n(word, count.unwrap_or(1)));
            }
        }
    }
    Ok(words)
}

/// One literal: an integer (decimal or `0x` hex, `_` allowed) or an `f32`.
pub fn parse_word(token: &str) -> Result<u32, String> {
    let plain = token.replace('_', "");
    let (negative, digits) = match plain.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, plain.as_str()),
    };
    if let Some(hex) = digits.strip_prefix("0x") {
        let value = u32::from_str_radix(hex, 16).map_err(|_| format!("`{token}` is not a 32-bit hex word"))?;
        return Ok(if negative { value.wrapping_neg() } else { value });
    }
    let is_float = digits.contains(['.', 'e', 'E']) || digits == "inf";
    if is_float {
        let value: f32 = plain.parse().map_err(|_| format!("`{token}` is not an f32"))?;
        return Ok(value.to_bits());
    }
    let value: i64 = plain.parse().map_err(|_| format!("`{token}` is not a word"))?;
    if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&value) {
        return Err(format!("`{token}` does not fit in 32 bits"));
    }
    Ok(value as u32)
}

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A normal float with a random sign and mantissa and an exponent in
    /// [-8, 7], so sums and products stay far from overflow and denormals.
    fn float_bits(&mut self) -> u32 {
        let bits = self.next();
        let sign = (bits as u32) & 0x8000_0000;
        let exponent = (127 - 8 + ((bits >> 32) as u32 & 15)) << 23;
        let mantissa = (bits >> 40) as u32 & 0x007F_FFFF;
        sign | exponent | mantissa
    }
}

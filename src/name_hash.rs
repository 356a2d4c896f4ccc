//! A fast keyed hash for the maps and sets keyed by names (identifiers of the WGSL being written),
//! which the emitter and the tree rewrites look up for every identifier of a function.
//!
//! std's default hash (SipHash) takes about as long per lookup as the rest of such a rewrite.
//! Names are spelled by the input (`OpName`), so a hash an input could aim collisions at would let
//! it make every lookup walk one bucket; this hash is keyed, like std's, by random keys drawn once
//! per process: each eight bytes of a name are joined to the state by a multiply whose high half
//! is folded onto its low half, with a secret factor, so which names share a bucket cannot be
//! chosen without the keys.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::OnceLock;

/// A `HashMap` for name keys.
pub type NameMap<K, V> = HashMap<K, V, NameState>;

/// A `HashSet` for name keys.
pub type NameSet<K> = HashSet<K, NameState>;

/// The process's keys: the initial state and the factor.
#[derive(Clone, Copy)]
pub struct NameState {
    seed: u64,
    factor: u64,
}

impl Default for NameState {
    fn default() -> Self {
        static KEYS: OnceLock<NameState> = OnceLock::new();
        *KEYS.get_or_init(|| {
            let random = RandomState::new();
            // The factor is odd so that the multiply loses no bits of the state.
            NameState { seed: random.hash_one(0u8), factor: random.hash_one(1u8) | 1 }
        })
    }
}

impl BuildHasher for NameState {
    type Hasher = NameHasher;
    fn build_hasher(&self) -> NameHasher {
        NameHasher { state: self.seed, factor: self.factor }
    }
}

pub struct NameHasher {
    state: u64,
    factor: u64,
}

impl NameHasher {
    fn add(&mut self, word: u64) {
        let product = u128::from(self.state ^ word) * u128::from(self.factor);
        self.state = (product as u64) ^ ((product >> 64) as u64);
    }
}

/// The last one to seven bytes of a name as one word, zero above them, as `u64::from_le_bytes`
/// reads them padded with zeros: with overlapping reads, as copying them into a zeroed word calls
/// `memcpy` (their number is known only at run time), which cost as much as the rest of hashing
/// a short name.
fn tail_word(rest: &[u8]) -> u64 {
    let len = rest.len();
    if len >= 4 {
        let low = u32::from_le_bytes(rest[..4].try_into().expect("four bytes"));
        let high = u32::from_le_bytes(rest[len - 4..].try_into().expect("four bytes"));
        u64::from(low) | (u64::from(high) << (8 * (len - 4)))
    } else {
        // One, two or three bytes: the first, middle and last cover them.
        let byte = |at: usize| u64::from(rest[at]) << (8 * at);
        byte(0) | byte(len / 2) | byte(len - 1)
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        // The length first: a name and the same name with zero bytes after it pad alike.
        self.add(bytes.len() as u64);
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            self.add(tail_word(rest));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // One more fold, so the last word reaches every bit, the low ones that pick the bucket and
        // the top seven that hashbrown compares first.
        let product = u128::from(self.state) * u128::from(self.factor);
        (product as u64) ^ ((product >> 64) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(name: &str) -> u64 {
        NameState::default().hash_one(name)
    }

    #[test]
    fn equal_names_hash_alike_and_names_that_differ_anywhere_apart() {
        assert_eq!(hash("x_12"), hash(&String::from("x_12")));
        let names =
            ["x_12", "x_13", "x_12\0", "x_1", "", "a_very_long_name_of_a_value_0", "a_very_long_name_of_a_value_1"];
        let hashes: HashSet<u64> = names.iter().map(|name| hash(name)).collect();
        assert_eq!(hashes.len(), names.len());
    }

    #[test]
    fn the_last_bytes_read_as_a_word_padded_with_zeros() {
        let bytes = [0x81, 0x02, 0xf3, 0x04, 0x75, 0x06, 0xe7];
        for len in 1..=7 {
            let mut padded = [0; 8];
            padded[..len].copy_from_slice(&bytes[..len]);
            assert_eq!(tail_word(&bytes[..len]), u64::from_le_bytes(padded), "{len} bytes");
        }
    }

    #[test]
    fn names_that_differ_only_in_their_last_bytes_spread_over_the_buckets() {
        // 4,096 names `v_0` to `v_4095`: in a table of 4,096 buckets, picked by the low 12 bits,
        // a good hash leaves about 1/e of the buckets empty; one that kept the last word's high
        // bytes out of the low bits would put them all in a few.
        let buckets: HashSet<u64> = (0..4096).map(|n| hash(&format!("v_{n}")) & 4095).collect();
        assert!(buckets.len() > 2200, "{} buckets", buckets.len());
        let tags: HashSet<u64> = (0..4096).map(|n| hash(&format!("v_{n}")) >> 57).collect();
        assert_eq!(tags.len(), 128);
    }
}

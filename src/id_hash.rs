//! A fast hash for the maps keyed by ids and indices that the passes and the emitter fill for
//! every instruction.
//!
//! std's default hash (SipHash, randomly keyed) resists chosen collisions at a cost that shows
//! in every lookup, and it scatters neighbouring keys over the whole table, so a pass walking its
//! ids in order misses the cache on every lookup once the table outgrows it. Here an id's low
//! bits pick its bucket unchanged: consecutive ids sit in neighbouring buckets, and walking ids in
//! order walks the table in order. In a key of several words (an id and a member index) the
//! earlier words are spread by a multiply, which is one-to-one on the low bits, before the next
//! is joined. The top seven bits, which hashbrown compares before comparing keys, come from a
//! multiplicative mix.
//!
//! The keys are small numbers: ids below the id bound, which `load` keeps within 16 times the
//! module's word count, and indices of blocks, scopes and members. An input that picks its ids
//! to share a bucket can put at most bound / buckets of them there for each value of a key's
//! other words, so the extra probing it causes is bounded by the bound: linear in its size. Keys
//! an input spells freely, such as names, take a keyed hash instead (`name_hash.rs`).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` for id and index keys.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A `HashSet` for id and index keys.
pub type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

/// The key itself (several integers combined by rotation), with mixed bits on top.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

const MIX: u64 = 0x517c_c1b7_2722_0a95;

impl IdHasher {
    /// The first word is taken as is; each further one joins the ones before spread by a
    /// multiply, so keys that differ in an earlier word (a struct id paired with a member index)
    /// differ in their low bits too, where they would otherwise share a bucket.
    fn add(&mut self, word: u64) {
        self.0 = self.0.wrapping_mul(MIX) ^ word;
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0.wrapping_mul(MIX) & 0xfe00_0000_0000_0000)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::Hash;

    use super::*;

    fn hash(id: u32) -> u64 {
        let mut hasher = IdHasher::default();
        hasher.write_u32(id);
        hasher.finish()
    }

    #[test]
    fn consecutive_ids_take_consecutive_buckets() {
        for id in [0, 1, 1000, 123_456] {
            assert_eq!(hash(id + 1) & 0xffff, (hash(id) + 1) & 0xffff);
        }
    }

    #[test]
    fn pairs_differing_in_their_first_word_take_different_buckets() {
        let buckets: HashSet<u64> = (0..1024u32)
            .map(|id| {
                let mut hasher = IdHasher::default();
                (id, 0u32).hash(&mut hasher);
                hasher.finish() & 0x3ff
            })
            .collect();
        assert_eq!(buckets.len(), 1024);
    }

    #[test]
    fn the_bits_compared_before_keys_vary() {
        let tags: HashSet<u64> = (0..64u32).map(|id| hash(id) >> 57).collect();
        assert!(tags.len() > 32, "{tags:?}");
    }
}

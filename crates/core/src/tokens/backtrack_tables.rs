//! The tables of the backtracking encoder (`backtrack.rs`), shared by
//! crates/core/build.rs (which computes them from a vocabulary, once, at build time)
//! and the counters (which read them from the binary: no load-time work).
//! build.rs includes this file with `#[path]`, so it depends on `std` only.
//!
//! They are the `bpe` crate's (github/rust-gems), made static: for each
//! token, by rank, its length, the longest token that is a proper prefix
//! of it (`next_prefix`), and the two tokens byte-pair merging last joined
//! to make it (`split`, found as the crate finds them). Instead of the
//! crate's Aho-Corasick automata (built or deserialised at load: 17-92 ms)
//! the longest token at a position is found by extending a string while
//! it is a prefix of some token; two hashed bit sets (no false negatives)
//! say which strings are proper prefixes of tokens and which may be
//! tokens, so the rank table is asked only where a token may end. And
//! instead of the crate's map of pairs, a pair is looked up as the text it
//! covers (the two tokens are always adjacent in the text) in the rank
//! table, then checked against `split`; two small filters in each token's
//! record say which pairs may be a split, so most of the pair checks'
//! questions (is this pair some token's split? mostly no) are answered
//! without a lookup.
//!
//! Tokens byte-pair merging can never make (several parts and no two
//! adjacent ones merge) are left out: never matched, never a prefix. Then
//! the encoder's tokens are tiktoken's (the tests check every vocabulary).
//!
//! Layout (all little-endian): `ids` (u32), `bits` (u32, log2 of the bit
//! sets' size), the longest token's length (u32), the longest unmakeable
//! token's (u32, 0 for none: our vocabularies have none), the 256 byte tokens'
//! ranks (u32), then a 20-byte record per id: its length (u16, 0 for no
//! or an unmakeable token), `next_prefix` (u24, `NONE` for none), `split`
//! (two u24; a token that is no merge has itself twice), the filter of
//! its right partners and that of its left partners (u32 each), a zero;
//! then the bit sets, a slot of two bits (a proper prefix, a token) per
//! hash. An empty blob: no tables (a
//! vocabulary without all 256 bytes as tokens).

/// No token, in `next_prefix`.
pub const NONE: u32 = 0xff_ffff;
const HEADER: usize = 16 + 256 * 4;
/// A token's record: what the encoder reads about it together, in one
/// cache line.
const RECORD: usize = 20;

/// The bit sets' hash of a string, a byte at a time (the encoder extends
/// strings a byte at a time): the string's, and that of its first
/// [`BLOCK_KEY`] bytes, which picks the slot's block. The search extends
/// the string at one position byte by byte, so past the first few bytes
/// every bit it reads is in one block of two cache lines, not each in its
/// own (the bit sets are larger than the cache: those misses were most of
/// the search's time).
#[derive(Clone, Copy)]
pub struct Hash {
    h: u64,
    block: u64,
    len: u32,
}

/// See [`Hash`]: strings sharing their first four bytes share a block.
const BLOCK_KEY: u32 = 4;
/// Slots in a block (two bits each: 128 bytes).
const BLOCK_BITS: u32 = 9;

#[inline]
pub fn step(s: Hash, byte: u8) -> Hash {
    let h = (s.h ^ byte as u64 ^ 0x100).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let len = s.len + 1;
    Hash {
        h,
        block: if len <= BLOCK_KEY { h } else { s.block },
        len,
    }
}

/// The hash of the empty string.
pub const SEED: Hash = Hash {
    h: 0x2545_f491_4f6c_dd1d,
    block: 0,
    len: 0,
};

/// The slot of a string's hash among `1 << bits`.
#[inline]
fn slot(bits: u32, s: Hash) -> usize {
    let block = s.block >> (64 - (bits - BLOCK_BITS));
    ((block << BLOCK_BITS) | (s.h >> 40) & ((1 << BLOCK_BITS) - 1)) as usize
}

/// A token's bit in its partners' 32-bit filters.
#[inline]
pub fn partner_bit(t: u32) -> u32 {
    1 << (t.wrapping_mul(0x9e37_79b1) >> 27)
}

/// The blob's views, borrowed from the binary.
#[derive(Clone, Copy)]
pub struct Links {
    ids: usize,
    /// The longest token's length.
    pub longest: usize,
    /// The longest unmakeable token's length (0 for none): a longer piece
    /// is a token only if the encoder finds it one.
    pub unmade: usize,
    bits: u32,
    data: &'static [u8],
}

fn u24(s: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([s[i], s[i + 1], s[i + 2], 0])
}

impl Links {
    /// The tables of a blob from [`build`], if it has any.
    pub fn parse(data: &'static [u8]) -> Option<Links> {
        let word = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(data.get(i..i + 4)?.try_into().ok()?))
        };
        let ids = word(0)? as usize;
        let bits = word(4)?;
        let longest = word(8)? as usize;
        let unmade = word(12)? as usize;
        let size = HEADER + ids * RECORD + (1usize << bits) / 4;
        (data.len() == size && ids < NONE as usize).then_some(Links {
            ids,
            longest,
            unmade,
            bits,
            data,
        })
    }

    /// The rank of the one-byte token `b`.
    #[inline]
    pub fn byte(&self, b: u8) -> u32 {
        let i = 16 + b as usize * 4;
        u32::from_le_bytes([
            self.data[i],
            self.data[i + 1],
            self.data[i + 2],
            self.data[i + 3],
        ])
    }

    /// A token's length in bytes (0 if the encoder never makes it).
    #[inline]
    pub fn len(&self, id: u32) -> usize {
        let i = HEADER + id as usize * RECORD;
        u16::from_le_bytes([self.data[i], self.data[i + 1]]) as usize
    }

    /// The longest token the encoder makes that is a proper prefix of `id`.
    #[inline]
    pub fn next_prefix(&self, id: u32) -> Option<u32> {
        let p = u24(self.data, HEADER + id as usize * RECORD + 2);
        (p != NONE).then_some(p)
    }

    /// The two tokens merged last to make `id` (itself twice if none).
    #[inline]
    pub fn split(&self, id: u32) -> (u32, u32) {
        let i = HEADER + id as usize * RECORD + 5;
        (u24(self.data, i), u24(self.data, i + 3))
    }

    /// Which tables these are (the low bits of their address in the
    /// binary, distinct for each vocabulary's).
    pub fn tag(&self) -> u32 {
        self.data.as_ptr() as usize as u32
    }

    /// Whether the tables know `id` (a rank the rank table returned).
    /// Without unmakeable tokens, every one: the record is not read (on a
    /// large vocabulary, a cache miss).
    #[inline]
    pub fn knows(&self, id: u32) -> bool {
        self.unmade == 0 || ((id as usize) < self.ids && self.len(id) > 0)
    }

    /// Slot `h`'s bit `kind` (0: a proper prefix, 1: a token): the two
    /// side by side, because the search asks both about each string.
    fn bit(&self, kind: usize, h: Hash) -> bool {
        let i = slot(self.bits, h);
        self.data[HEADER + self.ids * RECORD + i / 4] & (1 << (i % 4 * 2 + kind)) != 0
    }

    /// Whether the string hashed to `h` may be a proper prefix of a token.
    #[inline]
    pub fn may_extend(&self, h: Hash) -> bool {
        self.bit(0, h)
    }

    /// Whether the string hashed to `h` may be a token.
    #[inline]
    pub fn may_be_token(&self, h: Hash) -> bool {
        self.bit(1, h)
    }

    /// Whether `(t1, t2)` may be some token's split: each token's
    /// record has a 32-bit filter of the tokens it is split from on the
    /// right, and one of those on the left (a token that has many, a byte,
    /// has a full filter, but rarely both of the two).
    #[inline]
    pub fn may_be_split(&self, t1: u32, t2: u32) -> bool {
        let word = |i: usize| {
            u32::from_le_bytes([
                self.data[i],
                self.data[i + 1],
                self.data[i + 2],
                self.data[i + 3],
            ])
        };
        let rights = word(HEADER + t1 as usize * RECORD + 11);
        let lefts = word(HEADER + t2 as usize * RECORD + 15);
        rights & partner_bit(t2) != 0 && lefts & partner_bit(t1) != 0
    }
}

/// The tables for a vocabulary of (bytes, rank) entries; a token listed
/// twice keeps its last rank, as the rank table does.
#[allow(dead_code)] // crates/core/build.rs builds; the counters read
pub fn build(entries: &[(Vec<u8>, u32)]) -> Vec<u8> {
    use std::collections::HashMap;
    let mut by_bytes: HashMap<&[u8], u32> = HashMap::new();
    for (bytes, rank) in entries {
        by_bytes.insert(bytes, *rank);
    }
    let ids = entries.iter().map(|e| e.1 as usize + 1).max().unwrap_or(0);
    let mut bytes_of: Vec<Option<&[u8]>> = vec![None; ids];
    for (bytes, rank) in &by_bytes {
        bytes_of[*rank as usize] = Some(bytes);
    }
    let byte_ranks: Option<Vec<u32>> = (0..=255u8)
        .map(|b| by_bytes.get(&[b][..]).copied())
        .collect();
    let (Some(byte_ranks), true) = (byte_ranks, ids < NONE as usize) else {
        return Vec::new();
    };
    assert!(bytes_of.iter().flatten().all(|b| b.len() < 1 << 16));

    // Splits in rank order, as the `bpe` crate finds them: the longest
    // prefix token whose rest is a token, both of lower rank, that
    // byte-pair merging would leave side by side.
    let mut split: Vec<(u32, u32)> = (0..ids as u32).map(|id| (id, id)).collect();
    let mut made = vec![false; ids];
    let mut pairs: HashMap<(u32, u32), u32> = HashMap::new();
    let made_token = |made: &[bool], bytes: &[u8], below: u32| -> Option<u32> {
        by_bytes
            .get(bytes)
            .copied()
            .filter(|&t| t < below && made[t as usize])
    };
    for id in 0..ids as u32 {
        let Some(bytes) = bytes_of[id as usize] else {
            continue;
        };
        if bytes.len() == 1 {
            made[id as usize] = true;
            continue;
        }
        for cut in (1..bytes.len()).rev() {
            let (Some(t1), Some(t2)) = (
                made_token(&made, &bytes[..cut], id),
                made_token(&made, &bytes[cut..], id),
            ) else {
                continue;
            };
            if valid_pair(&pairs, &split, t1, t2) {
                pairs.insert((t1, t2), id);
                split[id as usize] = (t1, t2);
                made[id as usize] = true;
                break;
            }
        }
    }

    let bits = (usize::BITS - (by_bytes.len() * 12).leading_zeros()).max(10);
    let mut slots = vec![0u8; (1usize << bits) / 4];
    let mut rights = vec![0u32; ids];
    let mut lefts = vec![0u32; ids];
    let set = |v: &mut Vec<u8>, kind: usize, h: Hash| {
        let i = slot(bits, h);
        v[i / 4] |= 1 << (i % 4 * 2 + kind);
    };
    let mut next_prefix = vec![NONE; ids];
    for id in 0..ids {
        let (Some(bytes), true) = (bytes_of[id], made[id]) else {
            continue;
        };
        let mut h = SEED;
        for (i, &b) in bytes.iter().enumerate() {
            if i > 0 {
                set(&mut slots, 0, h);
                if let Some(t) = by_bytes.get(&bytes[..i]).filter(|&&t| made[t as usize]) {
                    next_prefix[id] = *t;
                }
            }
            h = step(h, b);
        }
        set(&mut slots, 1, h);
        if bytes.len() > 1 {
            let (t1, t2) = split[id];
            rights[t1 as usize] |= partner_bit(t2);
            lefts[t2 as usize] |= partner_bit(t1);
        }
    }

    let mut out = Vec::new();
    out.extend_from_slice(&(ids as u32).to_le_bytes());
    out.extend_from_slice(&bits.to_le_bytes());
    let longest = bytes_of
        .iter()
        .flatten()
        .map(|b| b.len())
        .max()
        .unwrap_or(0);
    out.extend_from_slice(&(longest as u32).to_le_bytes());
    let unmade = (0..ids)
        .filter(|&id| !made[id])
        .filter_map(|id| bytes_of[id])
        .map(|b| b.len())
        .max()
        .unwrap_or(0);
    out.extend_from_slice(&(unmade as u32).to_le_bytes());
    for r in byte_ranks {
        out.extend_from_slice(&r.to_le_bytes());
    }
    for id in 0..ids {
        let len = match bytes_of[id] {
            Some(b) if made[id] => b.len() as u16,
            _ => 0,
        };
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&next_prefix[id].to_le_bytes()[..3]);
        out.extend_from_slice(&split[id].0.to_le_bytes()[..3]);
        out.extend_from_slice(&split[id].1.to_le_bytes()[..3]);
        out.extend_from_slice(&rights[id].to_le_bytes());
        out.extend_from_slice(&lefts[id].to_le_bytes());
        out.push(0);
    }
    out.extend(slots);
    out
}

/// The `bpe` crate's `is_valid_token_pair`: whether byte-pair merging of
/// the two tokens' bytes leaves them side by side, undoing their merges
/// from the last while no merge across the boundary came first.
#[allow(dead_code)]
fn valid_pair(
    pairs: &std::collections::HashMap<(u32, u32), u32>,
    split: &[(u32, u32)],
    mut t1: u32,
    mut t2: u32,
) -> bool {
    let mut limit = u32::MAX;
    loop {
        if pairs.get(&(t1, t2)).is_some_and(|&c| c < limit) {
            return false;
        }
        if t1 > t2 {
            limit = t1;
            t1 = split[t1 as usize].1;
            if t1 == limit {
                limit = t2 + 1;
                t2 = split[t2 as usize].0;
                if t2 + 1 == limit {
                    return true;
                }
            }
        } else {
            limit = t2 + 1;
            t2 = split[t2 as usize].0;
            if t2 + 1 == limit {
                limit = t1;
                t1 = split[t1 as usize].1;
                if t1 == limit {
                    return true;
                }
            }
        }
    }
}

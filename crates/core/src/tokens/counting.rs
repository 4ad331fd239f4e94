//! Counting with a tiktoken vocabulary, without building a tiktoken
//! `CoreBPE`: the same pieces as the pre-tokenizer regex (split by hand,
//! `pretokenize`) and the same merges, over a rank table that crates/core/build.rs
//! decoded at build time and the binary embeds.
//!
//! Why: `CoreBPE::new` also builds a decoder and a sorted token list, and
//! the singletons first decode 200,000 base64 lines into 200,000 separate
//! allocations (80 ms and ~50 MB for `o200k_base`). Counting needs neither:
//! here crates/core/build.rs also made the hash index over the table, so the load costs
//! nothing and no memory of its own (the pages a count touches are read
//! from the binary). Token ids are never needed to count.

use super::backtrack_tables::Links;
use super::bpe::{self, Ranks};
use super::pretokenize::Pattern;
use super::rank_slots;
use super::specials::Specials;
use std::cell::Cell;
use tiktoken_rs::Rank;

pub struct CountingBpe {
    ranks: StaticRanks,
    pattern: Pattern,
    /// The encoding's special tokens (tiktoken's `special_tokens_set`).
    specials: Specials,
}

impl CountingBpe {
    pub fn new(ranks: StaticRanks, pattern: Pattern, specials: Specials) -> CountingBpe {
        CountingBpe {
            ranks,
            pattern,
            specials,
        }
    }

    #[cfg(test)]
    pub fn ranks(&self) -> &StaticRanks {
        &self.ranks
    }

    /// The special tokens.
    pub fn specials(&self) -> &Specials {
        &self.specials
    }

    /// `len(encoding.encode(text, allowed_special="all"))` with `specials`,
    /// else `len(encoding.encode(text, disallowed_special=()))`: every
    /// special a piece of its own, or none.
    pub fn count(&self, text: &str, specials: bool) -> usize {
        if specials {
            let n = self
                .specials
                .split_count(text, &mut |piece| Some(self.count_ordinary(piece)));
            // Not reached: the gaps' counts never give up.
            n.unwrap_or(text.len())
        } else {
            self.count_ordinary(text)
        }
    }

    /// The tokens of `text` read as ordinary text (no specials), with their
    /// ids and bytes, each handed to `f` as it is found: the pieces and
    /// merges [`CountingBpe::count`] counts without specials. None where a
    /// part is no token (not with our vocabularies).
    pub fn encode_ordinary(
        &self,
        text: &str,
        f: &mut impl FnMut(Rank, std::ops::Range<usize>),
    ) -> Option<()> {
        let t = text.as_bytes();
        self.ranks.with_cache(|ranks| {
            let mut p = 0;
            while p < t.len() {
                let end = self.pattern.piece_end(t, p);
                bpe::encode(&t[p..end], p, ranks, f)?;
                p = end;
            }
            Some(())
        })
    }

    fn count_ordinary(&self, text: &str) -> usize {
        self.ranks
            .with_cache(|ranks| self.count_from(text.as_bytes(), 0, ranks))
    }

    /// [`CountingBpe::count`] without specials of two texts, the pieces
    /// they share from their start counted once (a `<history>` group's
    /// last line is counted both with the group's closing tag and alone).
    pub fn count_two_ordinary(&self, a: &str, b: &str) -> (usize, usize) {
        let (ta, tb) = (a.as_bytes(), b.as_bytes());
        let same = ta.iter().zip(tb).take_while(|(x, y)| x == y).count();
        self.ranks.with_cache(|ranks| {
            let mut shared = 0;
            let mut p = 0;
            while p < same {
                let end = self.pattern.piece_end(ta, p);
                // The same piece in both where both scans end it at the
                // same place within the bytes they share (a piece's end
                // may depend on a character past it).
                if end > same || self.pattern.piece_end(tb, p) != end {
                    break;
                }
                shared += piece_count(ta, p, end, ranks);
                p = end;
            }
            let a = shared + self.count_from(ta, p, ranks);
            (a, shared + self.count_from(tb, p, ranks))
        })
    }

    /// The tokens of the pieces of `t` from `p` (a piece's start).
    #[inline(always)]
    fn count_from(&self, t: &[u8], mut p: usize, ranks: &Cached<'_>) -> usize {
        let mut n = 0;
        while p < t.len() {
            let end = self.pattern.piece_end(t, p);
            n += piece_count(t, p, end, ranks);
            p = end;
        }
        n
    }
}

/// The tokens of the piece `t[p..end]`. A piece that is a token counts one
/// (`bpe::count` sees to it; asked here first for a short one, its key
/// read from the text around it: most pieces are such words).
#[inline(always)]
fn piece_count(t: &[u8], p: usize, end: usize, ranks: &Cached<'_>) -> usize {
    match packed_within(t, p, end) {
        Some(key) if ranks.rank_keyed(&t[p..end], key).is_some() => 1,
        _ => bpe::count(&t[p..end], ranks),
    }
}

/// A rank table embedded in the binary: crates/core/build.rs's packed entries (see
/// crates/core/src/tokens/rank_slots.rs) and its hash index over them.
#[derive(Clone, Copy)]
pub struct StaticRanks {
    table: &'static [u8],
    slots: &'static [u8],
    /// The backtracking encoder's tables (`backtrack_tables`).
    links: &'static [u8],
}

impl StaticRanks {
    pub const fn new(
        table: &'static [u8],
        slots: &'static [u8],
        links: &'static [u8],
    ) -> StaticRanks {
        StaticRanks {
            table,
            slots,
            links,
        }
    }

    /// Every (bytes, rank) entry, in the table's order.
    #[cfg(test)]
    pub fn entries(&self) -> impl Iterator<Item = (&'static [u8], Rank)> {
        let table = self.table;
        let mut at = 0;
        std::iter::from_fn(move || {
            let (rank, bytes, next) = rank_slots::entry(table, at)?;
            at = next;
            Some((bytes, rank))
        })
    }
}

impl Ranks for StaticRanks {
    fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        rank_slots::lookup(self.table, self.slots, bytes)
    }

    fn links(&self) -> Option<Links> {
        Links::parse(self.links)
    }
}

impl StaticRanks {
    /// `f` with these ranks behind this thread's short-string cache: what
    /// byte-pair merging should ask (the cache is fetched once per call,
    /// not per lookup, which cost an eighth of a count on Chinese).
    pub fn with_cache<R>(&self, f: impl FnOnce(&Cached<'_>) -> R) -> R {
        CACHE.with(|cache| f(&Cached { ranks: self, cache }))
    }
}

/// [`StaticRanks`] behind the short-string cache.
pub struct Cached<'a> {
    ranks: &'a StaticRanks,
    cache: &'a [Cell<CacheEntry>; 1 << CACHE_BITS],
}

impl Ranks for Cached<'_> {
    fn links(&self) -> Option<Links> {
        self.ranks.links()
    }

    #[inline]
    fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        if bytes.len() > bpe::SHORT {
            let StaticRanks { table, slots, .. } = *self.ranks;
            return rank_slots::lookup(table, slots, bytes);
        }
        // Short strings (the byte pairs, characters and words a merge asks
        // about again and again) go through a small cache first: a table
        // probe is two cache misses (the slot, then the entry to compare),
        // most of a count's time on Chinese, where every piece is merged.
        self.rank_keyed(bytes, pack(bytes))
    }
}

impl Cached<'_> {
    /// [`Ranks::rank`] of a string of at most [`bpe::SHORT`] bytes whose
    /// cache key ([`pack`]) is `key`.
    #[inline]
    fn rank_keyed(&self, bytes: &[u8], key: [u64; 2]) -> Option<Rank> {
        let StaticRanks { table, slots, .. } = *self.ranks;
        let [low, high] = key;
        let tag = table.as_ptr() as usize as u32;
        let mix = (low ^ high.rotate_left(29) ^ tag as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = &self.cache[(mix >> (64 - CACHE_BITS)) as usize];
        let entry = slot.get();
        if entry.key == key && entry.table == tag {
            return entry.rank.checked_sub(1);
        }
        let rank = rank_slots::lookup(table, slots, bytes);
        slot.set(CacheEntry {
            key,
            table: tag,
            rank: rank.map_or(0, |r| r + 1),
        });
        rank
    }
}

/// [`pack`]'s key of `t[p..end]` when it is short and sixteen bytes of
/// `t` from `p` can be read: both words read whole and masked to the
/// string, without `pack`'s branch on the length (words of every length
/// follow each other in prose, and that branch was mispredicted).
#[inline(always)]
fn packed_within(t: &[u8], p: usize, end: usize) -> Option<[u64; 2]> {
    let n = end - p;
    let chunk = t.get(p..p + 16).filter(|_| (2..=bpe::SHORT).contains(&n))?;
    let word = |at: usize| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&chunk[at..at + 8]);
        u64::from_le_bytes(bytes)
    };
    // n is 2 to 15: the first word keeps 16 to 64 bits, the second 0 to 56.
    let low = word(0) & (u64::MAX >> (64 - 8 * n.min(8)));
    let high = word(8) & ((1u64 << (8 * n.saturating_sub(8))) - 1);
    Some([low, high | ((n as u64 + 1) << 56)])
}

/// The cache's key of a string of up to 15 bytes: its bytes, zeros, then
/// its length plus one in the last byte, read with overlapping loads
/// rather than copied into a buffer (a copy of a length known only at run
/// time is a call to memmove: a twentieth of a count of Chinese).
#[inline]
fn pack(bytes: &[u8]) -> [u64; 2] {
    let n = bytes.len();
    debug_assert!(n <= bpe::SHORT);
    let word = |at: usize| {
        u64::from_le_bytes([
            bytes[at],
            bytes[at + 1],
            bytes[at + 2],
            bytes[at + 3],
            bytes[at + 4],
            bytes[at + 5],
            bytes[at + 6],
            bytes[at + 7],
        ])
    };
    let half = |at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as u64
    };
    let (low, high) = match n {
        // The last eight bytes, shifted down to the ninth: the overlap
        // with the first eight falls off.
        9.. => (word(0), word(n - 8) >> (8 * (16 - n))),
        8 => (word(0), 0),
        // Two overlapping halves: the overlap's bytes are the same in both.
        4.. => (half(0) | half(n - 4) << (8 * (n - 4)), 0),
        _ => (
            bytes.iter().rev().fold(0u64, |acc, &b| acc << 8 | b as u64),
            0,
        ),
    };
    [low, high | ((n as u64 + 1) << 56)]
}

/// The short-string cache: direct-mapped, per thread, shared by the
/// vocabularies (each entry says whose table it came from: the table's
/// address, distinct in the binary). A key packs up to 15 bytes and the
/// length plus one, so it is never 0, the empty entry's; `rank` is the
/// rank plus one, 0 for a string that is no token. All zeros at start, so
/// a thread pays for the pages it touches only (192 KB at most).
const CACHE_BITS: u32 = 13;

#[derive(Clone, Copy)]
struct CacheEntry {
    /// Two words, not a `u128`, whose alignment would make an entry 32
    /// bytes instead of 24.
    key: [u64; 2],
    table: u32,
    rank: Rank,
}

thread_local! {
    static CACHE: [Cell<CacheEntry>; 1 << CACHE_BITS] = const {
        [const { Cell::new(CacheEntry { key: [0, 0], table: 0, rank: 0 }) }; 1 << CACHE_BITS]
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_index_finds_every_token_of_every_vocabulary() {
        use crate::tokens::Vocab;
        for vocab in [
            Vocab::O200kBase,
            Vocab::Cl100kBase,
            Vocab::Qwen,
            Vocab::ClaudeLegacy,
        ] {
            let ranks = vocab.counting().ranks();
            let mut last = std::collections::HashMap::new();
            for (bytes, rank) in ranks.entries() {
                last.insert(bytes, rank);
            }
            assert!(last.len() > 50_000, "{vocab:?}: {} tokens", last.len());
            for (bytes, rank) in &last {
                assert_eq!(ranks.rank(bytes), Some(*rank), "{vocab:?} {bytes:?}");
            }
            assert_eq!(ranks.rank(b"\xff\xfe not a token \x00"), None);
        }
    }

    /// The packed key is the string's bytes, zeros, and its length plus
    /// one last: every length, from different places in a buffer.
    #[test]
    fn a_key_packs_the_bytes_and_the_length() {
        let text: Vec<u8> = (1..=40).collect();
        for at in 0..20 {
            for n in 0..=15 {
                let bytes = &text[at..at + n];
                let mut buffer = [0u8; 16];
                buffer[..n].copy_from_slice(bytes);
                buffer[15] = n as u8 + 1;
                let want = [
                    u64::from_le_bytes(buffer[..8].try_into().unwrap()),
                    u64::from_le_bytes(buffer[8..].try_into().unwrap()),
                ];
                assert_eq!(pack(bytes), want, "{n} bytes at {at}");
            }
        }
    }

    /// The key read from the text around a piece is the piece's own key,
    /// for every length it reads, and none is read without sixteen bytes.
    #[test]
    fn a_key_read_in_place_is_the_pieces_key() {
        let text: Vec<u8> = (1..=40).map(|b: u8| b.wrapping_mul(151)).collect();
        for at in 0..text.len() {
            for n in 0..=20.min(text.len() - at) {
                let want = (at + 16 <= text.len() && (2..=15).contains(&n))
                    .then(|| pack(&text[at..at + n]));
                assert_eq!(packed_within(&text, at, at + n), want, "{n} bytes at {at}");
            }
        }
    }

    /// Two texts counted together count as each counted alone, whatever
    /// they share from their start and however each goes on (a space run
    /// that a following letter ends otherwise, a contraction, a
    /// character cut in the middle of its bytes).
    #[test]
    fn two_texts_count_as_each_alone() {
        use crate::tokens::Vocab;
        let heads = [
            "",
            "Bob: the library opens",
            "x  ",
            "don",
            "中文书",
            "a.\n",
            "ok!!",
            "1234",
        ];
        let tails = [
            "",
            "\n</history>",
            "\nx",
            "'t go",
            "   y",
            "s",
            "\u{301}",
            "文",
            "\n\n",
            "5",
        ];
        for vocab in [Vocab::O200kBase, Vocab::Cl100kBase] {
            let bpe = vocab.counting();
            for head in heads {
                for a in tails {
                    for b in tails {
                        let (a, b) = (format!("{head}{a}"), format!("{head}{b}"));
                        let want = (bpe.count(&a, false), bpe.count(&b, false));
                        assert_eq!(
                            bpe.count_two_ordinary(&a, &b),
                            want,
                            "{vocab:?} {a:?} {b:?}"
                        );
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        #[test]
        fn two_texts_with_a_common_start_count_as_each_alone(
            head in "[a-zA-Z0-9 '\n\t.,!中文é]{0,60}",
            a in "[a-z '\n<>/.中]{0,8}",
            b in "[a-z '\n<>/.中]{0,8}",
        ) {
            use crate::tokens::Vocab;
            for vocab in [Vocab::O200kBase, Vocab::Cl100kBase] {
                let bpe = vocab.counting();
                let (a, b) = (format!("{head}{a}"), format!("{head}{b}"));
                let want = (bpe.count(&a, false), bpe.count(&b, false));
                proptest::prop_assert_eq!(bpe.count_two_ordinary(&a, &b), want);
            }
        }
    }

    /// The short-string cache answers as the table does, whichever
    /// vocabulary asked last, for tokens and for strings that are none.
    #[test]
    fn the_cache_answers_as_the_table() {
        use crate::tokens::Vocab;
        let vocabs = [Vocab::O200kBase, Vocab::Cl100kBase, Vocab::Qwen];
        let probes: Vec<&[u8]> = vec![
            b"ab",
            b" the",
            b"\xe4\xb8",
            b"\xe4\xb8\xad",
            b"\xff\xfe",
            b"",
            b"1234567",
            b"12345678",
            b"0123456789abcde",
            b"0123456789abcdef",
            b"  ",
        ];
        for _ in 0..3 {
            for vocab in vocabs {
                let ranks = vocab.counting().ranks();
                ranks.with_cache(|cached| {
                    for probe in &probes {
                        assert_eq!(
                            cached.rank(probe),
                            rank_slots::lookup(ranks.table, ranks.slots, probe),
                            "{vocab:?} {probe:?}"
                        );
                    }
                });
            }
        }
    }
}

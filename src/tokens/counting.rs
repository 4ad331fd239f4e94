//! Counting with a tiktoken vocabulary, without building a tiktoken
//! `CoreBPE`: the same pre-tokenizer regex and the same merges, over a rank
//! table that build.rs decoded at build time and the binary embeds.
//!
//! Why: `CoreBPE::new` also builds a decoder and a sorted token list, and
//! the singletons first decode 200,000 base64 lines into 200,000 separate
//! allocations (80 ms and ~50 MB for `o200k_base`). Counting needs neither:
//! here build.rs also made the hash index over the table, so the load costs
//! nothing and no memory of its own (the pages a count touches are read
//! from the binary). Token ids are never needed to count.

use super::bpe::{self, Ranks};
use super::rank_slots;
use super::specials::Specials;
use fancy_regex::Regex;
use tiktoken_rs::Rank;

pub struct CountingBpe {
    ranks: StaticRanks,
    regex: Regex,
    /// The encoding's special tokens (tiktoken's `special_tokens_set`).
    specials: Specials,
}

impl CountingBpe {
    pub fn new(ranks: StaticRanks, pattern: &str, specials: Specials) -> CountingBpe {
        CountingBpe {
            ranks,
            // The patterns are constants, checked by the tests.
            regex: Regex::new(pattern).unwrap_or_else(|e| panic!("tokenizer pattern: {e}")),
            specials,
        }
    }

    pub fn ranks(&self) -> &StaticRanks {
        &self.ranks
    }

    /// The special tokens.
    pub fn specials(&self) -> &Specials {
        &self.specials
    }

    /// `len(encoding.encode(text, allowed_special="all"))` with `specials`,
    /// else `len(encoding.encode(text, disallowed_special=()))`: every
    /// special a piece of its own, or none; `None` when the regex gives up
    /// (its backtrack limit, on huge whitespace runs).
    pub fn count(&self, text: &str, specials: bool) -> Option<usize> {
        if specials {
            self.specials
                .split_count(text, &mut |piece| self.count_ordinary(piece))
        } else {
            self.count_ordinary(text)
        }
    }

    fn count_ordinary(&self, text: &str) -> Option<usize> {
        let mut n = 0;
        for piece in self.regex.find_iter(text) {
            let piece = piece.ok()?.as_str().as_bytes();
            n += match self.ranks.rank(piece) {
                Some(_) => 1,
                None => bpe::count(piece, &self.ranks),
            };
        }
        Some(n)
    }
}

/// A rank table embedded in the binary: build.rs's packed entries (see
/// src/tokens/rank_slots.rs) and its hash index over them.
#[derive(Clone, Copy)]
pub struct StaticRanks {
    table: &'static [u8],
    slots: &'static [u8],
}

impl StaticRanks {
    pub const fn new(table: &'static [u8], slots: &'static [u8]) -> StaticRanks {
        StaticRanks { table, slots }
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
}

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
use fancy_regex::Regex;
use tiktoken_rs::Rank;

pub struct CountingBpe {
    ranks: StaticRanks,
    regex: Regex,
    specials: Vec<String>,
}

impl CountingBpe {
    pub fn new(ranks: StaticRanks, pattern: &str, specials: Vec<String>) -> CountingBpe {
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

    /// The special tokens' texts.
    pub fn specials(&self) -> &[String] {
        &self.specials
    }

    /// `len(encoding.encode(text, allowed_special=allowed))`; `None` when
    /// the regex gives up (its backtrack limit, on huge whitespace runs).
    pub fn count(&self, text: &str, allowed: &[&str]) -> Option<usize> {
        let mut n = 0;
        let mut start = 0;
        loop {
            let special = next_special(text, start, allowed);
            let end = special.map_or(text.len(), |(at, _)| at);
            n += self.count_ordinary(&text[start..end])?;
            match special {
                Some((at, token)) => {
                    n += 1;
                    start = at + token.len();
                }
                None => return Some(n),
            }
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

/// The leftmost allowed special token at or after `from` (the longest of
/// those starting there), as tiktoken's special regex finds it.
fn next_special<'a>(text: &str, from: usize, allowed: &[&'a str]) -> Option<(usize, &'a str)> {
    if allowed.is_empty() || !text[from..].contains("<") {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for token in allowed {
        if let Some(pos) = text[from..].find(token) {
            let pos = from + pos;
            if best.is_none_or(|(p, t)| pos < p || (pos == p && token.len() > t.len())) {
                best = Some((pos, token));
            }
        }
    }
    best
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

    #[test]
    fn specials_split_the_text_and_count_one_each() {
        assert_eq!(
            next_special("a<|x|>b<|y|>", 0, &["<|y|>", "<|x|>"]),
            Some((1, "<|x|>"))
        );
        assert_eq!(
            next_special("a<|x|>b<|y|>", 6, &["<|y|>", "<|x|>"]),
            Some((7, "<|y|>"))
        );
        assert_eq!(next_special("a<|x|>b", 0, &[]), None);
    }
}

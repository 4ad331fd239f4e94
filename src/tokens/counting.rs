//! Counting with a tiktoken vocabulary, without building a tiktoken
//! `CoreBPE`: the same pre-tokenizer regex and the same merges, over a rank
//! table that build.rs decoded at build time and the binary embeds.
//!
//! Why: `CoreBPE::new` also builds a decoder and a sorted token list, and
//! the singletons first decode 200,000 base64 lines into 200,000 separate
//! allocations (80 ms and ~50 MB for `o200k_base`). Counting needs neither:
//! here the table's keys point into the embedded bytes and the whole load is
//! one hash map of slices. Token ids are never needed to count.

use super::bpe::{self, Ranks};
use fancy_regex::Regex;
use rustc_hash::FxHashMap;
use tiktoken_rs::Rank;

pub struct CountingBpe {
    ranks: FxHashMap<&'static [u8], Rank>,
    regex: Regex,
    specials: Vec<String>,
}

impl CountingBpe {
    /// `table`: build.rs's packed ranks (rank u32 LE, length u16 LE, bytes).
    pub fn new(table: &'static [u8], pattern: &str, specials: Vec<String>) -> CountingBpe {
        CountingBpe {
            ranks: rank_table(table),
            // The patterns are constants, checked by the tests.
            regex: Regex::new(pattern).unwrap_or_else(|e| panic!("tokenizer pattern: {e}")),
            specials,
        }
    }

    pub fn ranks(&self) -> &FxHashMap<&'static [u8], Rank> {
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

/// A packed rank table (rank u32 LE, length u16 LE, bytes) as a map whose
/// keys point into it.
pub fn rank_table(table: &'static [u8]) -> FxHashMap<&'static [u8], Rank> {
    // Sized exactly: one pass over the lengths first (a guess too large
    // doubles the table's memory).
    let mut tokens = 0;
    let mut at = 0;
    while at + 6 <= table.len() {
        at += 6 + u16::from_le_bytes([table[at + 4], table[at + 5]]) as usize;
        tokens += 1;
    }
    let mut ranks = FxHashMap::with_capacity_and_hasher(tokens, Default::default());
    let mut at = 0;
    while at + 6 <= table.len() {
        let rank = u32::from_le_bytes([table[at], table[at + 1], table[at + 2], table[at + 3]]);
        let len = u16::from_le_bytes([table[at + 4], table[at + 5]]) as usize;
        let Some(bytes) = table.get(at + 6..at + 6 + len) else {
            break;
        };
        ranks.insert(bytes, rank);
        at += 6 + len;
    }
    ranks
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

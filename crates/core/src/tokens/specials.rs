//! The strings a tokenizer reads as one token when they appear in text, and
//! how it finds them: leftmost first, the longest of those starting there.
//!
//! Each reference decides its own table, and typed text only ever matches
//! that table (what each vocabulary uses is said in `vocab.rs`):
//! - tiktoken's `encode(text, allowed_special=...)` splits the text at the
//!   allowed specials (a regex alternation, leftmost first) and encodes the
//!   pieces between them apart; `encode(text)` with its defaults raises on any
//!   of the encoding's specials instead (AgentScope's OpenAI counter).
//! - HF `tokenizers` splits at its added tokens with an Aho-Corasick automaton
//!   (leftmost-longest), the non-normalized ones over the raw text first and
//!   the normalized ones in the gaps after.
//!
//! For a tiktoken table no token is a prefix of another (checked by a test),
//! so at most one matches at any position and "leftmost first" and
//! "leftmost-longest" find the same ones whatever the alternation's order.

use aho_corasick::{AhoCorasick, MatchKind};

/// A special-token table and its automaton.
pub struct Specials {
    texts: Vec<String>,
    finder: Option<AhoCorasick>,
}

impl Specials {
    pub fn new(texts: Vec<String>) -> Specials {
        let texts: Vec<String> = texts.into_iter().filter(|t| !t.is_empty()).collect();
        let finder = (!texts.is_empty()).then(|| {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&texts)
                // The tables are ours (a few thousand short strings), not input.
                .unwrap_or_else(|e| panic!("special-token table: {e}"))
        });
        Specials { texts, finder }
    }

    pub fn from_strs(texts: &[&str]) -> Specials {
        Specials::new(texts.iter().map(|t| t.to_string()).collect())
    }

    /// The table's strings.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }

    /// The leftmost match in `text` (the longest starting there): its byte
    /// range and string.
    pub fn find<'t>(&self, text: &'t str) -> Option<(usize, usize, &'t str)> {
        let m = self.finder.as_ref()?.find(text)?;
        Some((m.start(), m.end(), &text[m.start()..m.end()]))
    }

    /// Counts `text` split at every match: one token per match, plus `gap`'s
    /// count of each piece between them (empty pieces are not asked about).
    /// `None` when `gap` gives up on a piece.
    pub fn split_count(
        &self,
        text: &str,
        gap: &mut dyn FnMut(&str) -> Option<usize>,
    ) -> Option<usize> {
        let Some(finder) = &self.finder else {
            return if text.is_empty() { Some(0) } else { gap(text) };
        };
        let mut n = 0;
        let mut last = 0;
        for m in finder.find_iter(text) {
            if m.start() > last {
                n += gap(&text[last..m.start()])?;
            }
            n += 1;
            last = m.end();
        }
        if last < text.len() {
            n += gap(&text[last..])?;
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leftmost_match_wins_then_the_longest() {
        let s = Specials::from_strs(&["<|y|>", "<|x|>", "<a>", "<a>b"]);
        assert_eq!(s.find("a<|x|>b<|y|>").map(|m| m.2), Some("<|x|>"));
        assert_eq!(s.find("<a>b").map(|m| m.2), Some("<a>b"));
        assert_eq!(s.find("<|z|>"), None);
        assert_eq!(Specials::new(Vec::new()).find("<|x|>"), None);
    }

    #[test]
    fn split_count_counts_each_match_once_and_the_gaps_apart() {
        let s = Specials::from_strs(&["<|x|>"]);
        let mut pieces = Vec::new();
        let n = s.split_count("a<|x|><|x|>bc<|x|>", &mut |p| {
            pieces.push(p.to_string());
            Some(p.len())
        });
        assert_eq!(n, Some(1 + 1 + 1 + 2 + 1));
        assert_eq!(pieces, ["a", "bc"]);
        assert_eq!(s.split_count("", &mut |_| None), Some(0));
        assert_eq!(s.split_count("a", &mut |_| None), None);
    }
}

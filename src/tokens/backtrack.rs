//! The `bpe` crate's backtracking encoder (github/rust-gems; bpe-openai's),
//! counting only, over tables build.rs computed (`backtrack_tables.rs`).
//!
//! Why: merging a piece byte pair by byte pair asks the rank table about
//! every adjacent pair, then again after every merge, in rank order through
//! a heap: a Chinese sentence is one piece of 30 to 300 bytes, and that was
//! most of the time of a count of Chinese. This encoder walks the piece
//! left to right instead, taking the longest token at each position and
//! checking that byte-pair merging would leave it beside the previous one
//! (`valid_pair`, which undoes the two tokens' merges: a few lookups);
//! when not, it tries the next shorter token there, and past the last one
//! steps back. Same tokens as tiktoken's merging (for the vocabularies
//! whose every token merging can make: `backtrack_tables` leaves the
//! others out, and the tests check each vocabulary), in about linear time.
//!
//! Runs of one character (a megabyte of spaces) take the same path, and
//! repeat themselves: in a piece that repeats with a period of up to four
//! bytes a string is fixed by where it starts modulo the period and its
//! length, so the longest token at a position and the pair checks are
//! remembered by that, not looked up again.

use super::backtrack_tables::{step, Links, SEED};
use super::bpe::Ranks;
use rustc_hash::FxHashMap;

/// Tokens in `piece` (at least two bytes), or None if the encoder found no
/// way to the end (not with our vocabularies; merging counts then).
///
/// Bounded: a step back closes the position it leaves for good (no token
/// ends there again), so there are at most as many as bytes, and as many
/// tokens taken as steps back plus the count; each tries at most the
/// token's prefixes.
pub fn count(
    piece: &[u8],
    links: &Links,
    ranks: &impl Ranks,
    period: Option<usize>,
) -> Option<usize> {
    let n = piece.len();
    let mut e = Encoder {
        piece,
        links,
        ranks,
        period,
        matches: FxHashMap::default(),
        pairs: FxHashMap::default(),
    };
    let mut tokens: Vec<u32> = Vec::with_capacity(n / 3 + 1);
    // Positions not yet known to be dead ends (a token ending there cannot
    // be followed to the end of the piece).
    let mut open = vec![u64::MAX; n / 64 + 1];
    let is_open = |open: &[u64], i: usize| open[i / 64] & (1 << (i % 64)) != 0;
    let mut pos = 0;
    let mut next = Some(e.longest(0));
    while let Some(mut token) = next {
        let last = tokens.last().copied();
        loop {
            let end = pos + links.len(token);
            if is_open(&open, end) && last.is_none_or(|l| e.valid_pair(pos, l, token)) {
                tokens.push(token);
                pos = end;
                next = (pos < n).then(|| e.longest(pos));
                break;
            } else if let Some(shorter) = links.next_prefix(token) {
                token = shorter;
            } else {
                open[pos / 64] &= !(1 << (pos % 64));
                let last = tokens.pop()?;
                pos -= links.len(last);
                next = Some(last);
                break;
            }
        }
    }
    (pos == n).then_some(tokens.len())
}

struct Encoder<'a, R> {
    piece: &'a [u8],
    links: &'a Links,
    ranks: &'a R,
    period: Option<usize>,
    /// For a periodic piece: the longest token at a start modulo the
    /// period, far enough from the end for it not to matter.
    matches: FxHashMap<usize, u32>,
    /// For a periodic piece: `valid_pair` by boundary modulo the period.
    pairs: FxHashMap<(usize, u32, u32), bool>,
}

impl<R: Ranks> Encoder<'_, R> {
    /// The longest token at `pos` (the byte's own at least).
    fn longest(&mut self, pos: usize) -> u32 {
        match self.period {
            Some(p) if self.piece.len() - pos > self.links.longest => {
                if let Some(&t) = self.matches.get(&(pos % p)) {
                    return t;
                }
                let t = self.search(pos);
                self.matches.insert(pos % p, t);
                t
            }
            _ => self.search(pos),
        }
    }

    /// Extends the string at `pos` a byte at a time while it may be a
    /// proper prefix of a token, asking the rank table where it may be one.
    fn search(&self, pos: usize) -> u32 {
        let piece = &self.piece[pos..];
        let mut best = self.links.byte(piece[0]);
        let mut h = step(SEED, piece[0]);
        let mut len = 1;
        while len < piece.len() && self.links.may_extend(h) {
            h = step(h, piece[len]);
            len += 1;
            if self.links.may_be_token(h) {
                if let Some(t) = self.ranks.rank(&piece[..len]) {
                    if self.links.knows(t) {
                        best = t;
                    }
                }
            }
        }
        best
    }

    /// Whether byte-pair merging leaves `t1`, ending at `at`, and `t2`,
    /// starting there, side by side: the `bpe` crate's
    /// `is_valid_token_pair`, with its pair map read from the text (the
    /// two are adjacent in it: the merged token is the text they cover).
    fn valid_pair(&mut self, at: usize, t1: u32, t2: u32) -> bool {
        let Some(p) = self.period else {
            return self.check_pair(at, t1, t2);
        };
        if let Some(&v) = self.pairs.get(&(at % p, t1, t2)) {
            return v;
        }
        let v = self.check_pair(at, t1, t2);
        self.pairs.insert((at % p, t1, t2), v);
        v
    }

    fn check_pair(&self, at: usize, mut t1: u32, mut t2: u32) -> bool {
        let links = self.links;
        let mut limit = u32::MAX;
        loop {
            let span = &self.piece[at - links.len(t1)..at + links.len(t2)];
            if let Some(c) = self.ranks.rank(span) {
                if c < limit && links.knows(c) && links.split(c) == (t1, t2) {
                    return false;
                }
            }
            if t1 > t2 {
                limit = t1;
                t1 = links.split(t1).1;
                if t1 == limit {
                    limit = t2 + 1;
                    t2 = links.split(t2).0;
                    if t2 + 1 == limit {
                        return true;
                    }
                }
            } else {
                limit = t2 + 1;
                t2 = links.split(t2).0;
                if t2 + 1 == limit {
                    limit = t1;
                    t1 = links.split(t1).1;
                    if t1 == limit {
                        return true;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::bpe::{merge_count, period};
    use crate::tokens::counting::StaticRanks;
    use crate::tokens::Vocab;

    fn vocabularies() -> Vec<(&'static str, StaticRanks)> {
        let mut v: Vec<(&'static str, StaticRanks)> = [
            Vocab::O200kBase,
            Vocab::Cl100kBase,
            Vocab::Qwen,
            Vocab::ClaudeLegacy,
        ]
        .into_iter()
        .map(|v| (v.name(), *v.counting().ranks()))
        .collect();
        v.push(("deepseek", crate::tokens::vocab::deepseek_ranks()));
        v
    }

    fn backtrack(piece: &[u8], ranks: &StaticRanks) -> Option<usize> {
        let links = ranks.links().expect("every vocabulary has the tables");
        ranks.with_cache(|cached| count(piece, &links, cached, period(piece)))
    }

    /// Every token the tables keep merges to itself, and every one they
    /// leave out does not: the condition under which backtracking finds
    /// merging's tokens.
    #[test]
    fn the_tables_keep_exactly_the_tokens_merging_makes() {
        for (name, ranks) in vocabularies() {
            let links = ranks.links().expect("tables");
            let mut left_out = 0;
            for (bytes, rank) in ranks.entries() {
                if bytes.len() < 2 || ranks.rank(bytes) != Some(rank) {
                    continue;
                }
                let merged = merge_count(bytes, &ranks);
                assert_eq!(links.knows(rank), merged == 1, "{name} {bytes:?}");
                assert_eq!(backtrack(bytes, &ranks), Some(merged), "{name} {bytes:?}");
                left_out += usize::from(merged != 1);
            }
            // Reported by `cargo test -- --nocapture`.
            println!("{name}: {left_out} tokens merging never makes");
        }
    }

    /// Random strings of Chinese, Japanese, English, digits, punctuation,
    /// whitespace, runs of one character and stray bytes: backtracking
    /// counts as merging does, on every vocabulary.
    #[test]
    fn backtracking_counts_as_merging_on_random_text() {
        const PARTS: [&str; 24] = [
            "中", "文", "的", "是", "人", "们", "在", "说", "。", "，", "の", "は", "テ", "the",
            " world", "ing", "0", "12", "!", "=", "\n", " ", "  ", "é",
        ];
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = |below: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % below
        };
        let vocabs = vocabularies();
        for case in 0..3000 {
            let mut piece = Vec::new();
            let len = 2 + next(if case % 10 == 0 { 2000 } else { 200 });
            while piece.len() < len {
                match next(10) {
                    0 => {
                        let part = PARTS[next(PARTS.len())];
                        for _ in 0..next(300) {
                            piece.extend_from_slice(part.as_bytes());
                        }
                    }
                    1 => piece.push(next(256) as u8),
                    _ => piece.extend_from_slice(PARTS[next(PARTS.len())].as_bytes()),
                }
            }
            for (name, ranks) in &vocabs {
                assert_eq!(
                    backtrack(&piece, ranks),
                    Some(merge_count(&piece, ranks)),
                    "{name} {:?}",
                    String::from_utf8_lossy(&piece)
                );
            }
        }
    }

    /// Runs of one character or a few, long and short (the memo by period).
    #[test]
    fn runs_count_as_merging_counts_them() {
        for (name, ranks) in vocabularies() {
            for unit in [
                " ", "a", "中", "0", "=", "\n", "ab", " a", "é", "abc", "\t ",
            ] {
                for reps in [1, 2, 3, 7, 100, 129, 1000, 1025, 5000] {
                    let piece = unit.repeat(reps);
                    if piece.len() < 2 {
                        continue;
                    }
                    assert_eq!(
                        backtrack(piece.as_bytes(), &ranks),
                        Some(merge_count(piece.as_bytes(), &ranks)),
                        "{name} {unit:?} × {reps}"
                    );
                }
            }
        }
    }
}

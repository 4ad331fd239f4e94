//! The `bpe` crate's backtracking encoder (github/rust-gems; bpe-openai's),
//! counting only, over tables crates/core/build.rs computed (`backtrack_tables.rs`).
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
//! repeat themselves: a stretch of a run of a unit of up to four bytes is
//! fixed by the unit and its length, so the longest token at a position,
//! which depends on the stretch within reach only, is remembered by that
//! (across pieces: whitespace between words is many short runs); a pair
//! check depends on its two tokens only and is remembered by them.

use super::backtrack_tables::{step, Links, SEED};
use super::ranks::Ranks;
use std::cell::{Cell, RefCell};

/// Tokens in `piece` (at least two bytes), or None when the encoder gave
/// up: it found no way to the end (not with our vocabularies), or it took
/// more than [`STEPS_PER_BYTE`] steps a byte. A step back closes the
/// position it leaves for good (no token ends there again), so the work is
/// bounded by the bytes times the longest token's prefixes; but some runs
/// come near that: a run of `-` takes o200k_base's encoder about 30 steps
/// a byte (bpe-openai's too: it is its slowest text), where merging, with
/// its memo for runs, is several times faster. Merging counts then.
pub fn count(piece: &[u8], links: &Links, ranks: &impl Ranks) -> Option<usize> {
    count_within(
        piece,
        links,
        ranks,
        STEPS_PER_BYTE * piece.len() + STEPS_AT_LEAST,
    )
}

/// [`count`], giving up after `budget` steps.
pub(super) fn count_within(
    piece: &[u8],
    links: &Links,
    ranks: &impl Ranks,
    budget: usize,
) -> Option<usize> {
    with_tokens(piece, links, ranks, budget, |tokens| tokens.len())
}

/// The tokens of `piece` (at least two bytes), by id (rank), each handed
/// to `f` once all are found, as [`count`] finds them; None (and no call)
/// where it gives up.
pub fn encode(piece: &[u8], links: &Links, ranks: &impl Ranks, f: impl FnMut(u32)) -> Option<()> {
    let budget = STEPS_PER_BYTE * piece.len() + STEPS_AT_LEAST;
    with_tokens(piece, links, ranks, budget, |tokens| {
        tokens.iter().copied().for_each(f)
    })
}

/// `then` of the tokens the encoder finds in `piece`, within `budget`
/// steps.
#[inline(always)]
fn with_tokens<T>(
    piece: &[u8],
    links: &Links,
    ranks: &impl Ranks,
    mut budget: usize,
    then: impl FnOnce(&[u32]) -> T,
) -> Option<T> {
    let n = piece.len();
    let e = Encoder {
        piece,
        links,
        ranks,
        run: Cell::new((0, 0, 0)),
        runs: has_run(piece),
        last: Cell::new(([0, 0], 0)),
        tables: tables_number(links),
    };
    // The buffers of the last piece (most pieces are short: allocating
    // two per piece was a twentieth of a count of Chinese).
    let (mut tokens, mut open) = BUFFERS.take();
    tokens.clear();
    open.clear();
    // Positions not yet known to be dead ends (a token ending there cannot
    // be followed to the end of the piece).
    open.resize(n / 64 + 1, u64::MAX);
    let is_open = |open: &[u64], i: usize| open[i / 64] & (1 << (i % 64)) != 0;
    let mut pos = 0;
    // A token and its length: the search knows it, and reading it from
    // the token's record instead was a cache miss a token.
    let mut next = Some(e.longest(0));
    while let Some((mut token, mut len)) = next {
        let last = tokens.last().copied();
        loop {
            budget = budget.checked_sub(1)?;
            let end = pos + len;
            if is_open(&open, end) && last.is_none_or(|l| e.valid_pair(pos, l, token)) {
                tokens.push(token);
                pos = end;
                next = (pos < n).then(|| e.longest(pos));
                break;
            } else if let Some(shorter) = links.next_prefix(token) {
                token = shorter;
                len = links.len(token);
            } else {
                open[pos / 64] &= !(1 << (pos % 64));
                let last = tokens.pop()?;
                len = links.len(last);
                pos -= len;
                next = Some((last, len));
                break;
            }
        }
    }
    let out = (pos == n).then(|| then(&tokens));
    // Kept for the next piece, unless a huge one grew them (a thread that
    // once showed a 100 MB word would hold its buffers for good).
    if tokens.capacity() <= KEEP && open.capacity() <= KEEP {
        BUFFERS.set((tokens, open));
    }
    out
}

/// The largest buffers (in items) kept from piece to piece.
const KEEP: usize = 1 << 16;

/// How many of the lengths that may be tokens [`Encoder::search`] keeps.
const CANDIDATES: usize = 16;

/// Steps (tokens tried) a byte before the encoder gives up: ordinary text
/// takes one or two (a megabyte of Chinese, of spaces, of `a`: about 1).
const STEPS_PER_BYTE: usize = 4;
/// And at least this many (a short run of spaces tries many of the
/// run's tokens at each position).
const STEPS_AT_LEAST: usize = 2048;

struct Encoder<'a, R> {
    piece: &'a [u8],
    links: &'a Links,
    ranks: &'a R,
    /// The last run found: `start..end` repeats a unit of `period` bytes.
    run: Cell<(usize, usize, usize)>,
    /// Whether the piece has a run long enough to look for.
    runs: bool,
    /// The last answer [`memo`] gave (in a run, the same question comes
    /// again and again).
    last: Cell<([u64; 2], u32)>,
    /// The tables' number in this thread ([`tables_number`]).
    tables: u64,
}

thread_local! {
    static BUFFERS: Cell<(Vec<u32>, Vec<u64>)> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// Whether `piece` has a stretch of [`RUN`] bytes or more that repeats a
/// unit of 1 to 4 bytes: else the runs are not looked for (one pass over
/// the piece instead of a check at every token of a Chinese sentence).
/// Such a stretch also repeats every 12 bytes (a multiple of each unit's
/// length), so one comparison a byte finds where to check the four.
pub(super) fn has_run(piece: &[u8]) -> bool {
    let mut same = 0;
    for (i, (a, b)) in piece[12.min(piece.len())..].iter().zip(piece).enumerate() {
        same = if a == b { same + 1 } else { 0 };
        if same >= RUN - 12 {
            let last = &piece[i + 13 - RUN..i + 13];
            if (1..=4).any(|p| last[p..] == last[..RUN - p]) {
                return true;
            }
        }
    }
    false
}

/// See [`has_run`].
pub(super) const RUN: usize = 16;

impl<R: Ranks> Encoder<'_, R> {
    /// The unit `piece[a..b]` repeats, if it is a run of a unit of 1 to 4
    /// bytes (shorter than it): the unit's bytes and length. The run it is
    /// in is found once, not for every window of it.
    fn unit(&self, a: usize, b: usize) -> Option<(u64, u64)> {
        if !self.runs {
            return None;
        }
        let (start, end, p) = self.run.get();
        let p = if start <= a && b <= end && p > 0 {
            p
        } else {
            let s = &self.piece[a..b];
            // The first bytes rule most out without a call to memcmp.
            let p = (1..=4).find(|&p| {
                s.len() > p
                    && s[p..].iter().zip(s).take(8).all(|(a, b)| a == b)
                    && s[p..] == s[..s.len() - p]
            })?;
            let mut end = b;
            while end < self.piece.len() && self.piece[end] == self.piece[end - p] {
                end += 1;
            }
            self.run.set((a, end, p));
            p
        };
        if b - a <= p {
            return None;
        }
        let mut u = [0u8; 4];
        u[..p].copy_from_slice(&self.piece[a..a + p]);
        Some((u32::from_le_bytes(u) as u64, p as u64))
    }

    /// The longest token at `pos` (the byte's own at least), and its
    /// length. In a run of a unit of up to four bytes, remembered by the
    /// unit and the length of the run within reach (what the answer
    /// depends on).
    fn longest(&self, pos: usize) -> (u32, usize) {
        let reach = self.piece.len().min(pos + self.links.longest);
        let Some((u, p)) = self.unit(pos, reach) else {
            return self.search(pos);
        };
        let key = [u | p << 32 | ((reach - pos) as u64) << 35 | 1 << 63, 0];
        let token = self.memo(key, || self.search(pos).0 + 1) - 1;
        (token, self.links.len(token))
    }

    /// Extends the string at `pos` a byte at a time while it may be a
    /// proper prefix of a token, noting the lengths where it may be one;
    /// then asks the rank table about those, longest first, until one is
    /// (usually the first: one lookup, not one per token on the way).
    fn search(&self, pos: usize) -> (u32, usize) {
        let piece = &self.piece[pos..];
        // The last `CANDIDATES` lengths that may be tokens, in a ring.
        let mut lens = [0usize; CANDIDATES];
        let mut found = 0;
        let mut h = step(SEED, piece[0]);
        let mut len = 1;
        while len < piece.len() && self.links.may_extend(h) {
            h = step(h, piece[len]);
            len += 1;
            if self.links.may_be_token(h) {
                lens[found % CANDIDATES] = len;
                found += 1;
            }
        }
        for k in (found.saturating_sub(CANDIDATES)..found).rev() {
            let len = lens[k % CANDIDATES];
            if let Some(t) = self.ranks.rank(&piece[..len]) {
                if self.links.knows(t) {
                    return (t, len);
                }
            }
        }
        if found > CANDIDATES {
            // All the last ones were false hits (not seen): the rest, in turn.
            for len in (2..lens[found % CANDIDATES]).rev() {
                if let Some(t) = self.ranks.rank(&piece[..len]) {
                    if self.links.knows(t) {
                        return (t, len);
                    }
                }
            }
        }
        (self.links.byte(piece[0]), 1)
    }

    /// [`memo`], asking the last answer first.
    fn memo(&self, key: [u64; 2], value: impl FnOnce() -> u32) -> u32 {
        let (last, answer) = self.last.get();
        if last == key && answer != 0 {
            return answer;
        }
        let answer = memo(self.links, key, value);
        self.last.set((key, answer));
        answer
    }

    /// Whether byte-pair merging leaves `t1`, ending at `at`, and `t2`,
    /// starting there, side by side: the `bpe` crate's
    /// `is_valid_token_pair`, with its pair map read from the text (the
    /// two are adjacent in it: the merged token is the text they cover).
    /// The answer depends on the two tokens only, and text repeats its
    /// pairs (a language's frequent words, a run's two tokens): it is
    /// remembered by them.
    fn valid_pair(&self, at: usize, t1: u32, t2: u32) -> bool {
        let key = t1 as u64 | (t2 as u64) << 24 | self.tables << 48 | USED;
        let i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - PAIR_BITS)) as usize;
        PAIRS.with(|pairs| {
            let entry = pairs[i].get();
            if entry & !VALID == key {
                return entry & VALID != 0;
            }
            let valid = self.check_pair(at, t1, t2);
            pairs[i].set(if valid { key | VALID } else { key });
            valid
        })
    }

    fn check_pair(&self, at: usize, mut t1: u32, mut t2: u32) -> bool {
        let links = self.links;
        let mut limit = u32::MAX;
        loop {
            if links.may_be_split(t1, t2) {
                let span = &self.piece[at - links.len(t1)..at + links.len(t2)];
                if let Some(c) = self.ranks.rank(span) {
                    if c < limit && links.knows(c) && links.split(c) == (t1, t2) {
                        return false;
                    }
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

/// The pairs' answers: a direct-mapped cache per thread of a word an
/// entry, kept from piece to piece. A pair is asked about at every token:
/// in [`MEMO`]'s entries of three words, its misses in the core's cache
/// were a tenth of a count of Chinese. A word packs the two tokens (24
/// bits each), the tables' number ([`tables_number`]), whether the pair
/// is valid, and a bit that marks the entry used. 32,768 entries (256 KB,
/// its pages touched as used): Chinese of 3,755 characters in a Zipf mix
/// counted 8% faster than with 8,192, the pairs of a language being many.
const PAIR_BITS: u32 = 15;
const USED: u64 = 1 << 63;
const VALID: u64 = 1 << 62;

thread_local! {
    static PAIRS: [Cell<u64>; 1 << PAIR_BITS] = const { [const { Cell::new(0) }; 1 << PAIR_BITS] };
    /// The tables this thread has counted with, by tag: an entry's
    /// number is its place here (a tag does not fit in a pair's word).
    static TABLES: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// This thread's number for `links` (below [`MAX_TABLES`]): a new one is
/// given the next; past the last, the pairs are forgotten and numbering
/// starts again (only tests make so many tables).
fn tables_number(links: &Links) -> u64 {
    let tag = links.tag();
    TABLES.with_borrow_mut(|tables| {
        if let Some(i) = tables.iter().position(|&t| t == tag) {
            return i as u64;
        }
        if tables.len() == MAX_TABLES {
            tables.clear();
            PAIRS.with(|pairs| pairs.iter().for_each(|p| p.set(0)));
        }
        tables.push(tag);
        tables.len() as u64 - 1
    })
}

/// See [`tables_number`]: 14 bits, between the tokens and the flags.
const MAX_TABLES: usize = 1 << 14;

/// The runs' answers: a direct-mapped cache per thread, shared by the
/// vocabularies (each entry says whose tables it came from) and kept from
/// piece to piece (whitespace between words is many short runs). A key
/// packs what the answer depends on; values are never 0, the empty mark.
const MEMO_BITS: u32 = 13;

#[derive(Clone, Copy)]
struct MemoEntry {
    key: [u64; 2],
    value: u32,
}

thread_local! {
    static MEMO: [Cell<MemoEntry>; 1 << MEMO_BITS] = const {
        [const { Cell::new(MemoEntry { key: [0, 0], value: 0 }) }; 1 << MEMO_BITS]
    };
}

fn memo(links: &Links, mut key: [u64; 2], value: impl FnOnce() -> u32) -> u32 {
    key[1] |= links.tag() as u64;
    let mix = (key[0] ^ key[1].rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let i = (mix >> (64 - MEMO_BITS)) as usize;
    MEMO.with(|memo| {
        let entry = memo[i].get();
        if entry.key == key && entry.value != 0 {
            return entry.value;
        }
        let value = value();
        memo[i].set(MemoEntry { key, value });
        value
    })
}

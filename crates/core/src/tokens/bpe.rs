//! Byte-pair merging for counting: tiktoken's own algorithm, in the form
//! that stays fast on long pieces. `tiktoken_rs::byte_pair_split` rescans
//! the piece after every merge (O(n²): one 80,000-letter word took
//! seconds, and the rescans were most of a count of Chinese, whose
//! sentences are pieces of 30 to 300 bytes); for pieces of 32 bytes or
//! more this keeps the candidate merges in a priority queue and the parts
//! in a linked list, as tiktoken's `_byte_pair_merge_large` does: a binary
//! heap up to a few thousand bytes, buckets past that (the heap was
//! n log n and cache-bound on a long run of one character: see `Queue`).
//! Same merges, same order (lowest rank first, leftmost on ties), so the
//! same count.
//!
//! Pieces that are no token go first to the `bpe` crate's backtracking
//! encoder (`backtrack.rs`) when the vocabulary has its tables (all of
//! ours embedded: not the `CoreBPE` ranks of `encoding.rs`); this merging
//! counts what it gives up on (a long run of `-`, where it takes tens of
//! steps a byte) and what has no tables.

use rustc_hash::FxHashMap;
use std::collections::BinaryHeap;
use tiktoken_rs::Rank;

pub use super::ranks::Ranks;

/// Tokens byte-pair merging makes of `piece`.
pub fn count(piece: &[u8], ranks: &impl Ranks) -> usize {
    let n = piece.len();
    if n < 2 {
        return n;
    }
    // A short piece asks the table first: most words are a token, and the
    // short-string cache answers.
    if n <= SHORT && ranks.rank(piece).is_some() {
        return 1;
    }
    // A longer one (a sentence of Chinese is one piece) skips that lookup
    // when the encoder would find the token itself: every token it makes
    // is its longest at the piece's start.
    let links = ranks.links();
    if n > SHORT && links.is_none_or(|links| n <= links.unmade) && ranks.rank(piece).is_some() {
        return 1;
    }
    match links {
        Some(links) => super::backtrack::count(piece, &links, ranks)
            .unwrap_or_else(|| merge_count(piece, ranks)),
        None => merge_count(piece, ranks),
    }
}

/// The longest string the short-string cache keeps (`counting::Cached`).
pub(crate) const SHORT: usize = 15;

/// [`count`] by merging (a piece of at least two bytes that is no token).
pub(crate) fn merge_count(piece: &[u8], ranks: &impl Ranks) -> usize {
    match piece.len() {
        n if n < 32 => count_small(piece, ranks),
        // Below a few thousand bytes a plain heap of (rank, start) is in
        // cache and cheapest; past that, the buckets (see `Queue`).
        n if n < 4096 => count_large::<Heap>(piece, ranks),
        _ => count_large::<Queue>(piece, ranks),
    }
}

/// tiktoken's `_byte_pair_merge` (rescanning for the lowest rank after
/// each merge: fastest on short pieces), counting the parts it leaves.
fn count_small(piece: &[u8], ranks: &impl Ranks) -> usize {
    small_parts(piece, ranks).len() - 1
}

/// [`count_small`]'s merging: the parts it leaves, (start, rank), and
/// `(piece.len(), Rank::MAX)` after them.
#[inline(always)]
fn small_parts(piece: &[u8], ranks: &impl Ranks) -> Vec<(usize, Rank)> {
    // (start, rank of the merge of this part with the next).
    let mut parts: Vec<(usize, Rank)> = Vec::with_capacity(piece.len() + 1);
    let mut min_rank: (Rank, usize) = (Rank::MAX, usize::MAX);
    for i in 0..piece.len() - 1 {
        let rank = ranks.rank(&piece[i..i + 2]).unwrap_or(Rank::MAX);
        if rank < min_rank.0 {
            min_rank = (rank, i);
        }
        parts.push((i, rank));
    }
    parts.push((piece.len() - 1, Rank::MAX));
    parts.push((piece.len(), Rank::MAX));
    let rank_at = |parts: &[(usize, Rank)], i: usize| -> Rank {
        if i + 3 < parts.len() {
            ranks
                .rank(&piece[parts[i].0..parts[i + 3].0])
                .unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        }
    };
    while min_rank.0 != Rank::MAX {
        let i = min_rank.1;
        if i > 0 {
            parts[i - 1].1 = rank_at(&parts, i - 1);
        }
        parts[i].1 = rank_at(&parts, i);
        parts.remove(i + 1);
        min_rank = (Rank::MAX, usize::MAX);
        for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank < min_rank.0 {
                min_rank = (rank, i);
            }
        }
    }
    parts
}

/// The candidate merges, popped lowest rank first and leftmost on ties,
/// as a heap of (rank, start) pops them, but in linear time on the pieces
/// that were slow: a long run of one character puts millions of
/// candidates of one rank in the heap at once, and every pop sifted
/// through all of them (n log n, and cache misses at every level).
///
/// Here each rank has a bucket of starts: a sorted queue, appended to
/// while starts come in increasing order (the initial pairs, and each
/// left-to-right wave of merges), and a small heap for the few that come
/// out of order. A heap of the ranks with candidates picks the bucket.
#[derive(Default)]
struct Queue {
    buckets: FxHashMap<Rank, Bucket>,
    ranks: BinaryHeap<std::cmp::Reverse<Rank>>,
}

/// A rank's starts: `first`, then `sorted`, in increasing order, and
/// `others` in any. Most ranks of a piece of prose or Chinese have one
/// candidate: `first` holds it without allocating.
#[derive(Default)]
struct Bucket {
    first: Option<u32>,
    sorted: std::collections::VecDeque<u32>,
    others: BinaryHeap<std::cmp::Reverse<u32>>,
}

/// The candidate merges of [`count_large`], popped lowest rank first and
/// leftmost on ties.
trait Candidates: Default {
    fn push(&mut self, rank: Rank, start: usize);
    fn pop(&mut self) -> Option<(Rank, usize)>;
}

/// (rank, start) in one word, in a min-heap.
#[derive(Default)]
struct Heap(BinaryHeap<std::cmp::Reverse<u64>>);

impl Candidates for Heap {
    #[inline]
    fn push(&mut self, rank: Rank, start: usize) {
        self.0
            .push(std::cmp::Reverse((rank as u64) << 32 | start as u64));
    }

    #[inline]
    fn pop(&mut self) -> Option<(Rank, usize)> {
        let std::cmp::Reverse(v) = self.0.pop()?;
        Some(((v >> 32) as Rank, (v & 0xffff_ffff) as usize))
    }
}

impl Candidates for Queue {
    fn push(&mut self, rank: Rank, start: usize) {
        let start = start as u32;
        let bucket = self.buckets.entry(rank).or_insert_with(|| {
            self.ranks.push(std::cmp::Reverse(rank));
            Bucket::default()
        });
        match (bucket.first, bucket.sorted.back()) {
            (None, None) => bucket.first = Some(start),
            (Some(last), None) | (_, Some(&last)) if last <= start => {
                bucket.sorted.push_back(start)
            }
            _ => bucket.others.push(std::cmp::Reverse(start)),
        }
    }

    /// The lowest rank's leftmost start.
    fn pop(&mut self) -> Option<(Rank, usize)> {
        loop {
            let &std::cmp::Reverse(rank) = self.ranks.peek()?;
            let Some(bucket) = self.buckets.get_mut(&rank) else {
                self.ranks.pop();
                continue;
            };
            let front = bucket.first.or(bucket.sorted.front().copied());
            let other = bucket.others.peek().map(|r| r.0);
            let start = match (front, other) {
                (Some(f), Some(o)) if o < f => bucket.others.pop().map(|r| r.0),
                (Some(_), _) => bucket.first.take().or_else(|| bucket.sorted.pop_front()),
                (None, Some(_)) => bucket.others.pop().map(|r| r.0),
                (None, None) => None,
            };
            match start {
                Some(start) => return Some((rank, start as usize)),
                None => {
                    self.buckets.remove(&rank);
                    self.ranks.pop();
                }
            }
        }
    }
}

/// A part of the piece: `start..end` is the part starting here (valid at
/// the start of a part), `next_end` the end of the part after it. `u32`
/// offsets (pieces are at most the session limit, 256 MB): 16 bytes per
/// byte of the piece instead of 32.
struct Part {
    prev: u32,
    end: u32,
    next_end: u32,
    next_rank: Rank,
}

fn count_large<Q: Candidates>(piece: &[u8], ranks: &impl Ranks) -> usize {
    let n = piece.len();
    if n >= u32::MAX as usize {
        // Unreachable from the CLI and the workbench (every input is at
        // most the 256 MB session limit); a library caller gets the sum of
        // the halves, an estimate, rather than an overflow.
        let half = n / 2;
        return count_large::<Q>(&piece[..half], ranks) + count_large::<Q>(&piece[half..], ranks);
    }
    merged::<Q>(piece, ranks).0
}

/// [`count_large`]'s merging of a piece shorter than `u32::MAX`: how many
/// parts it leaves, and the parts (a list linked by `Part::end` from 0).
fn merged<Q: Candidates>(piece: &[u8], ranks: &impl Ranks) -> (usize, Vec<Part>) {
    match period(piece) {
        // A run of one character (or of up to four bytes repeated):
        // `piece[a..b]` is then fixed by `a % p` and `b - a`, so each
        // string's rank is looked up once, not once per merge (the lookups,
        // hashing strings of up to twice the longest token, were a third
        // of the time on a megabyte of spaces).
        Some(p) => {
            let cap = piece.len().min(MEMO_LEN);
            let mut memo = vec![MEMO_EMPTY; (cap + 1) * p];
            merge::<Q>(piece, |a, b| {
                let len = b - a;
                if len > cap {
                    return ranks.rank(&piece[a..b]);
                }
                let slot = &mut memo[len * p + a % p];
                if *slot == MEMO_EMPTY {
                    *slot = ranks.rank(&piece[a..b]).map_or(MEMO_NONE, |r| r);
                }
                (*slot != MEMO_NONE).then_some(*slot)
            })
        }
        None => merge::<Q>(piece, |a, b| ranks.rank(&piece[a..b])),
    }
}

/// The memo's markers (ranks are below 2^24).
const MEMO_EMPTY: Rank = Rank::MAX;
const MEMO_NONE: Rank = Rank::MAX - 1;
/// Strings up to this long are memoised (tokens are shorter).
const MEMO_LEN: usize = 4096;

/// The shortest `p` of 1 to 4 with `piece[i] == piece[i % p]` throughout,
/// if any.
fn period(piece: &[u8]) -> Option<usize> {
    (1..=4).find(|&p| piece.len() > p && piece[p..].iter().zip(piece).all(|(a, b)| a == b))
}

/// [`count_large`]'s merging, with `rank_of(a, b)` the rank of
/// `piece[a..b]`: the parts left, and how many.
fn merge<Q: Candidates>(
    piece: &[u8],
    mut rank_of: impl FnMut(usize, usize) -> Option<Rank>,
) -> (usize, Vec<Part>) {
    let n = piece.len();
    let mut parts: Vec<Part> = (0..n)
        .map(|i| Part {
            prev: (i as u32).wrapping_sub(1),
            end: i as u32 + 1,
            next_end: i as u32 + 2,
            next_rank: Rank::MAX,
        })
        .collect();
    let mut queue = Q::default();
    for (i, part) in parts[..n - 1].iter_mut().enumerate() {
        if let Some(rank) = rank_of(i, i + 2) {
            queue.push(rank, i);
            part.next_rank = rank;
        }
    }
    let mut consider = |parts: &mut Vec<Part>, queue: &mut Q, start: usize, end: usize| {
        parts[start].next_end = end as u32;
        parts[start].next_rank = Rank::MAX;
        if end <= n {
            if let Some(rank) = rank_of(start, end) {
                queue.push(rank, start);
                parts[start].next_rank = rank;
            }
        }
    };
    let mut tokens = n;
    while let Some((rank, start)) = queue.pop() {
        if rank != parts[start].next_rank {
            continue; // superseded by a later merge
        }
        let right = parts[start].end as usize;
        let right_end = parts[start].next_end as usize;
        let right_next_end = parts[right].next_end as usize;
        parts[start].end = right_end as u32;
        tokens -= 1;
        consider(&mut parts, &mut queue, start, right_next_end);
        if right_end < n {
            parts[right_end].prev = start as u32;
        }
        if start > 0 {
            let prev = parts[start].prev as usize;
            consider(&mut parts, &mut queue, prev, right_end);
        }
        parts[right].next_rank = Rank::MAX;
    }
    (tokens, parts)
}

/// Where byte-pair merging ends the tokens of `piece` (at least one
/// byte), in order: the merges [`merge_count`] counts.
pub(crate) fn merge_ends(piece: &[u8], ranks: &impl Ranks) -> Vec<usize> {
    let n = piece.len();
    if n >= u32::MAX as usize {
        // As `count_large`: the halves, an estimate (unreachable here).
        let half = n / 2;
        let mut ends = merge_ends(&piece[..half], ranks);
        ends.extend(
            merge_ends(&piece[half..], ranks)
                .into_iter()
                .map(|e| e + half),
        );
        return ends;
    }
    let parts = match n {
        0 | 1 => return vec![n],
        n if n < 32 => return small_parts(piece, ranks)[1..].iter().map(|p| p.0).collect(),
        n if n < 4096 => merged::<Heap>(piece, ranks).1,
        _ => merged::<Queue>(piece, ranks).1,
    };
    let mut ends = Vec::new();
    let mut at = 0;
    while at < n {
        let end = parts.get(at).map_or(n, |p| p.end as usize);
        ends.push(end);
        at = end;
    }
    ends
}

/// One token: its id (rank) and the bytes of its text it covers.
pub type TokenSpan = (Rank, std::ops::Range<usize>);

/// The tokens of `piece` (at `base` in its text) with their ids, each
/// handed to `f`: what [`count`] counts, by the same path (the piece as
/// one token, else the backtracking encoder, else merging). None where a
/// part is no token (not with our vocabularies).
pub fn encode(
    piece: &[u8],
    base: usize,
    ranks: &impl Ranks,
    f: &mut impl FnMut(Rank, std::ops::Range<usize>),
) -> Option<()> {
    let n = piece.len();
    let links = ranks.links();
    // As `count`: a piece the encoder would find whole is not asked for.
    if n <= SHORT || links.is_none_or(|links| n <= links.unmade) {
        if let Some(id) = ranks.rank(piece) {
            f(id, base..base + n);
            return Some(());
        }
    }
    if let Some(links) = links.filter(|_| n >= 2) {
        let mut at = base;
        let found = super::backtrack::encode(piece, &links, ranks, |id| {
            let len = links.len(id);
            f(id, at..at + len);
            at += len;
        });
        if found.is_some() {
            return Some(());
        }
    }
    let mut start = 0;
    for end in merge_ends(piece, ranks) {
        let id = ranks.rank(piece.get(start..end)?)?;
        f(id, base + start..base + end);
        start = end;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(tokens: &[&str]) -> FxHashMap<Vec<u8>, Rank> {
        let mut r: FxHashMap<Vec<u8>, Rank> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, t) in tokens.iter().enumerate() {
            r.insert(t.as_bytes().to_vec(), 256 + i as Rank);
        }
        r
    }

    #[test]
    fn the_heap_merges_as_the_rescan_does() {
        let r = ranks(&["aa", "aaaa", "ab", "abab", "ba", "aab", " a", "  ", "    "]);
        let mut seed = 7u64;
        for len in [100, 101, 150, 257, 1000, 4096] {
            for _ in 0..20 {
                let piece: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        b"ab "[(seed >> 33) as usize % 3]
                    })
                    .collect();
                let want = tiktoken_rs::byte_pair_split(&piece, &r).len();
                assert_eq!(count_large::<Heap>(&piece, &r), want);
                assert_eq!(
                    count_large::<Queue>(&piece, &r),
                    want,
                    "{:?}",
                    String::from_utf8_lossy(&piece)
                );
            }
        }
        for len in 2..100 {
            let piece: Vec<u8> = (0..len).map(|i| b"ab a"[(i * 7 + len) % 4]).collect();
            assert_eq!(
                count_small(&piece, &r),
                tiktoken_rs::byte_pair_split(&piece, &r).len(),
                "{:?}",
                String::from_utf8_lossy(&piece)
            );
        }
        // Runs (memoised by period) and runs broken at the end or in the
        // middle (not periodic, merged as any piece).
        for unit in ["a", "ab", "ab ", " aab"] {
            for tail in ["", "b", "aa"] {
                let mut same = unit.repeat(5000 / unit.len()).into_bytes();
                same.extend_from_slice(tail.as_bytes());
                if tail == "aa" {
                    same[2500] = b'b';
                }
                assert_eq!(period(&same).is_some(), tail.is_empty() && unit.len() <= 4);
                let want = tiktoken_rs::byte_pair_split(&same, &r).len();
                assert_eq!(count_large::<Heap>(&same, &r), want, "{unit:?} {tail:?}");
                assert_eq!(count_large::<Queue>(&same, &r), want, "{unit:?} {tail:?}");
            }
        }
    }

    #[test]
    fn runs_of_one_character_merge_as_tiktoken_merges_them() {
        use crate::tokens::Vocab;
        for vocab in [Vocab::O200kBase, Vocab::Cl100kBase, Vocab::Qwen] {
            let ranks = vocab.counting().ranks();
            let map: FxHashMap<Vec<u8>, Rank> =
                ranks.entries().map(|(b, r)| (b.to_vec(), r)).collect();
            for unit in ["a", "中", "0", "=", "-", "ab", "é"] {
                for reps in [100, 101, 257, 1000, 2049] {
                    let piece = unit.repeat(reps);
                    let want = tiktoken_rs::byte_pair_split(piece.as_bytes(), &map).len();
                    assert_eq!(count_large::<Heap>(piece.as_bytes(), ranks), want);
                    assert_eq!(
                        count_large::<Queue>(piece.as_bytes(), ranks),
                        want,
                        "{vocab:?} {unit:?} × {reps}"
                    );
                }
            }
        }
    }
}

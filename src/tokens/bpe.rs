//! Byte-pair merging for counting: tiktoken's own algorithm, in the form
//! that stays fast on long pieces. `tiktoken_rs::byte_pair_split` rescans
//! the piece after every merge (O(n²): one 80,000-letter word took
//! seconds); for pieces of 100 bytes or more this keeps the candidate
//! merges in a priority queue and the parts in a linked list, as
//! tiktoken's `_byte_pair_merge_large` does (its binary heap was n log n
//! and cache-bound on a long run of one character: see `Queue`). Same
//! merges, same order (lowest rank first, leftmost on ties), so the same
//! count.

use rustc_hash::FxHashMap;
use std::collections::BinaryHeap;
use tiktoken_rs::Rank;

/// A vocabulary's ranks, however they are held.
pub trait Ranks {
    fn rank(&self, bytes: &[u8]) -> Option<Rank>;
}

impl Ranks for FxHashMap<Vec<u8>, Rank> {
    fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        self.get(bytes).copied()
    }
}

/// Tokens byte-pair merging makes of `piece`.
pub fn count(piece: &[u8], ranks: &impl Ranks) -> usize {
    match piece.len() {
        0 => 0,
        1 => 1,
        _ if ranks.rank(piece).is_some() => 1,
        n if n < 100 => count_small(piece, ranks),
        _ => count_large(piece, ranks),
    }
}

/// tiktoken's `_byte_pair_merge` (rescanning for the lowest rank after
/// each merge: fastest on short pieces), counting the parts it leaves.
fn count_small(piece: &[u8], ranks: &impl Ranks) -> usize {
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
    parts.len() - 1
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

#[derive(Default)]
struct Bucket {
    sorted: std::collections::VecDeque<u32>,
    others: BinaryHeap<std::cmp::Reverse<u32>>,
}

impl Queue {
    fn push(&mut self, rank: Rank, start: usize) {
        let start = start as u32;
        let bucket = self.buckets.entry(rank).or_insert_with(|| {
            self.ranks.push(std::cmp::Reverse(rank));
            Bucket::default()
        });
        if bucket.sorted.back().is_none_or(|&last| last <= start) {
            bucket.sorted.push_back(start);
        } else {
            bucket.others.push(std::cmp::Reverse(start));
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
            let front = bucket.sorted.front().copied();
            let other = bucket.others.peek().map(|r| r.0);
            let start = match (front, other) {
                (Some(f), Some(o)) if o < f => bucket.others.pop().map(|r| r.0),
                (Some(_), _) => bucket.sorted.pop_front(),
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

fn count_large(piece: &[u8], ranks: &impl Ranks) -> usize {
    let n = piece.len();
    if n >= u32::MAX as usize {
        // Unreachable from the CLI and the workbench (every input is at
        // most the 256 MB session limit); a library caller gets the sum of
        // the halves, an estimate, rather than an overflow.
        let half = n / 2;
        return count_large(&piece[..half], ranks) + count_large(&piece[half..], ranks);
    }
    let mut parts: Vec<Part> = (0..n)
        .map(|i| Part {
            prev: (i as u32).wrapping_sub(1),
            end: i as u32 + 1,
            next_end: i as u32 + 2,
            next_rank: Rank::MAX,
        })
        .collect();
    let mut queue = Queue::default();
    for i in 0..n - 1 {
        if let Some(rank) = ranks.rank(&piece[i..i + 2]) {
            queue.push(rank, i);
            parts[i].next_rank = rank;
        }
    }
    let consider = |parts: &mut Vec<Part>, queue: &mut Queue, start: usize, end: usize| {
        parts[start].next_end = end as u32;
        parts[start].next_rank = Rank::MAX;
        if end <= n {
            if let Some(rank) = ranks.rank(&piece[start..end]) {
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
    tokens
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
                assert_eq!(
                    count_large(&piece, &r),
                    tiktoken_rs::byte_pair_split(&piece, &r).len(),
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
        let same = vec![b'a'; 5000];
        assert_eq!(
            count_large(&same, &r),
            tiktoken_rs::byte_pair_split(&same, &r).len()
        );
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
                    assert_eq!(
                        count_large(piece.as_bytes(), ranks),
                        tiktoken_rs::byte_pair_split(piece.as_bytes(), &map).len(),
                        "{vocab:?} {unit:?} × {reps}"
                    );
                }
            }
        }
    }
}

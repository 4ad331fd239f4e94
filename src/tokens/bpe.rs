//! Byte-pair merging for counting: tiktoken's own algorithm, in the form
//! that stays fast on long pieces. `tiktoken_rs::byte_pair_split` rescans
//! the piece after every merge (O(n²): one 80,000-letter word took
//! seconds); for pieces of 100 bytes or more this keeps the candidate
//! merges in a heap and the parts in a linked list (O(n log n)), as
//! tiktoken's `_byte_pair_merge_large` does. Same merges, same order
//! (lowest rank first, leftmost on ties), so the same count.

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

#[derive(Eq, PartialEq, Clone, Copy)]
struct Merge {
    start: usize,
    rank: Rank,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // A max-heap: the lowest rank, then the leftmost, comes out first.
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A part of the piece: `start..end` is the part starting here (valid at
/// the start of a part), `next_end` the end of the part after it.
struct Part {
    prev: usize,
    end: usize,
    next_end: usize,
    next_rank: Rank,
}

fn count_large(piece: &[u8], ranks: &impl Ranks) -> usize {
    let n = piece.len();
    let mut parts: Vec<Part> = (0..n)
        .map(|i| Part {
            prev: i.wrapping_sub(1),
            end: i + 1,
            next_end: i + 2,
            next_rank: Rank::MAX,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(n);
    for i in 0..n - 1 {
        if let Some(rank) = ranks.rank(&piece[i..i + 2]) {
            heap.push(Merge { start: i, rank });
            parts[i].next_rank = rank;
        }
    }
    let consider =
        |parts: &mut Vec<Part>, heap: &mut BinaryHeap<Merge>, start: usize, end: usize| {
            parts[start].next_end = end;
            parts[start].next_rank = Rank::MAX;
            if end <= n {
                if let Some(rank) = ranks.rank(&piece[start..end]) {
                    heap.push(Merge { start, rank });
                    parts[start].next_rank = rank;
                }
            }
        };
    let mut tokens = n;
    while let Some(left) = heap.pop() {
        if left.rank != parts[left.start].next_rank {
            continue; // superseded by a later merge
        }
        let start = left.start;
        let right = parts[start].end;
        let right_end = parts[start].next_end;
        let right_next_end = parts[right].next_end;
        parts[start].end = right_end;
        tokens -= 1;
        consider(&mut parts, &mut heap, start, right_next_end);
        if right_end < n {
            parts[right_end].prev = start;
        }
        if start > 0 {
            let prev = parts[start].prev;
            consider(&mut parts, &mut heap, prev, right_end);
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
}

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

/// Tokens byte-pair merging makes of `piece`.
pub fn count(piece: &[u8], ranks: &FxHashMap<Vec<u8>, Rank>) -> usize {
    match piece.len() {
        0 => 0,
        1 => 1,
        _ if ranks.contains_key(piece) => 1,
        n if n < 100 => tiktoken_rs::byte_pair_split(piece, ranks).len(),
        _ => count_large(piece, ranks),
    }
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

fn count_large(piece: &[u8], ranks: &FxHashMap<Vec<u8>, Rank>) -> usize {
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
        if let Some(&rank) = ranks.get(&piece[i..i + 2]) {
            heap.push(Merge { start: i, rank });
            parts[i].next_rank = rank;
        }
    }
    let consider =
        |parts: &mut Vec<Part>, heap: &mut BinaryHeap<Merge>, start: usize, end: usize| {
            parts[start].next_end = end;
            parts[start].next_rank = Rank::MAX;
            if end <= n {
                if let Some(&rank) = ranks.get(&piece[start..end]) {
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
        let same = vec![b'a'; 5000];
        assert_eq!(
            count_large(&same, &r),
            tiktoken_rs::byte_pair_split(&same, &r).len()
        );
    }
}

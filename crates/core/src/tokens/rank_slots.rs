//! The open-addressing index over a packed rank table, shared by crates/core/build.rs
//! (which builds it) and the counters (which probe it): the same hash and
//! the same layout on both sides. crates/core/build.rs includes this file with
//! `#[path]`, so it depends on nothing but `core`.
//!
//! Table: for each token, its rank (u24 LE), its length (one byte under
//! 128, else two: the low seven bits with the top bit set, then the rest),
//! its bytes. Small headers, because a count touches pages all over the
//! table and every page touched is resident.
//!
//! Slots: a number of u32 LE, each 0 for empty, else one plus the offset of
//! the token's entry in the table in the low 22 bits and the hash's top 10
//! bits above (a probe that meets another token rarely reads the table).
//! A hash picks its first slot by multiplying (so the count need not be a
//! power of two), then probes linearly; two slots in three are used,
//! which keeps the index small and a miss a few slots long (a probe reads
//! one or two cache lines). At three in four, the misses' longer probes
//! made truncating 1,000 messages 8% slower for 0.1 MB less.

/// FxHash over the bytes (8 at a time), then the length: fast, and the
/// build and the lookup agree on it by construction.
pub fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h: u64 = 0;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(26) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(26) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h = (h.rotate_left(26) ^ bytes.len() as u64).wrapping_mul(K);
    // The high bits are the well-mixed ones.
    h ^ (h >> 29)
}

const OFFSET_BITS: u32 = 22;
const OFFSET_MASK: u32 = (1 << OFFSET_BITS) - 1;

fn tag(hash: u64) -> u32 {
    (hash >> (64 - (32 - OFFSET_BITS))) as u32
}

/// The number of slots for `tokens` entries (load ≤ 2/3).
#[allow(dead_code)] // crates/core/build.rs builds; the counters only look up
pub fn slot_count(tokens: usize) -> usize {
    tokens.max(1) * 3 / 2 + 1
}

/// The first slot of a hash among `n` slots.
fn first_slot(hash: u64, n: usize) -> usize {
    // The low half: the tag is the top bits, and slots next to each other
    // should not share it.
    (((hash & 0xffff_ffff) * n as u64) >> 32) as usize
}

/// Appends a token's entry to a table.
#[allow(dead_code)] // crates/core/build.rs and the tests write tables
pub fn push_entry(table: &mut Vec<u8>, rank: u32, bytes: &[u8]) {
    assert!(rank < 1 << 24, "ranks fit in 24 bits");
    assert!(bytes.len() < 1 << 15, "tokens are short");
    table.extend_from_slice(&rank.to_le_bytes()[..3]);
    if bytes.len() < 128 {
        table.push(bytes.len() as u8);
    } else {
        table.push(bytes.len() as u8 | 0x80);
        table.push((bytes.len() >> 7) as u8);
    }
    table.extend_from_slice(bytes);
}

/// The table's entry at `at`: its rank, its bytes, and where the next
/// entry starts.
pub fn entry(table: &[u8], at: usize) -> Option<(u32, &[u8], usize)> {
    let head = table.get(at..at + 4)?;
    let rank = u32::from_le_bytes([head[0], head[1], head[2], 0]);
    let (len, start) = if head[3] < 0x80 {
        (head[3] as usize, at + 4)
    } else {
        let high = *table.get(at + 4)? as usize;
        ((head[3] & 0x7f) as usize | high << 7, at + 5)
    };
    let bytes = table.get(start..start + len)?;
    Some((rank, bytes, start + len))
}

/// The slots of a packed table, as little-endian bytes.
#[allow(dead_code)] // crates/core/build.rs builds; the counters only look up
pub fn build(table: &[u8]) -> Vec<u8> {
    let mut offsets = Vec::new();
    let mut at = 0;
    while let Some((_, _, next)) = entry(table, at) {
        offsets.push(at);
        at = next;
    }
    assert!(
        table.len() < OFFSET_MASK as usize,
        "a rank table under 4 MB"
    );
    let n = slot_count(offsets.len());
    let mut slots = vec![0u32; n];
    for at in offsets {
        let Some((_, bytes, _)) = entry(table, at) else {
            continue;
        };
        let h = hash(bytes);
        let mut i = first_slot(h, n);
        // A token listed twice keeps its last rank, as a map insert would.
        while slots[i] != 0
            && entry(table, (slots[i] & OFFSET_MASK) as usize - 1).map(|e| e.1) != Some(bytes)
        {
            i = if i + 1 == n { 0 } else { i + 1 };
        }
        slots[i] = (tag(h) << OFFSET_BITS) | (at as u32 + 1);
    }
    slots.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// The rank of `bytes`, probing `slots` (from [`build`]) over `table`.
pub fn lookup(table: &[u8], slots: &[u8], bytes: &[u8]) -> Option<u32> {
    let n = slots.len() / 4;
    if n == 0 {
        return None;
    }
    let h = hash(bytes);
    let want = tag(h);
    let mut i = first_slot(h, n);
    loop {
        let s = &slots[i * 4..i * 4 + 4];
        let slot = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        if slot == 0 {
            return None;
        }
        if slot >> OFFSET_BITS == want {
            if let Some((rank, token, _)) = entry(table, (slot & OFFSET_MASK) as usize - 1) {
                if token == bytes {
                    return Some(rank);
                }
            }
        }
        i = if i + 1 == n { 0 } else { i + 1 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(tokens: &[(&[u8], u32)]) -> Vec<u8> {
        let mut t = Vec::new();
        for (bytes, rank) in tokens {
            push_entry(&mut t, *rank, bytes);
        }
        t
    }

    #[test]
    fn every_token_is_found_with_its_rank_and_nothing_else_is() {
        let table = pack(&[
            (b"a", 0),
            (b"b", 1),
            (b"ab", 2),
            (b"hello world!", 3),
            (b"", 4),
        ]);
        let slots = build(&table);
        assert_eq!(slots.len() / 4, slot_count(5));
        assert_eq!(lookup(&table, &slots, b"ab"), Some(2));
        assert_eq!(lookup(&table, &slots, b"hello world!"), Some(3));
        assert_eq!(lookup(&table, &slots, b""), Some(4));
        assert_eq!(lookup(&table, &slots, b"ba"), None);
        assert_eq!(lookup(&table, &slots, b"hello world"), None);
    }

    #[test]
    fn long_tokens_and_large_ranks_read_back() {
        let long = vec![b'x'; 1024];
        let edge = vec![b'y'; 128];
        let short = vec![b'z'; 127];
        let table = pack(&[(&long, 64_999), (&edge, 1), (&short, (1 << 24) - 1)]);
        let (rank, bytes, next) = entry(&table, 0).expect("first entry");
        assert_eq!((rank, bytes.len()), (64_999, 1024));
        let (rank, bytes, next) = entry(&table, next).expect("second entry");
        assert_eq!((rank, bytes), (1, &edge[..]));
        let (rank, bytes, next) = entry(&table, next).expect("third entry");
        assert_eq!(
            (rank, bytes, next),
            ((1 << 24) - 1, &short[..], table.len())
        );
        let slots = build(&table);
        assert_eq!(lookup(&table, &slots, &long), Some(64_999));
        assert_eq!(lookup(&table, &slots, &long[1..]), None);
    }

    #[test]
    fn the_index_is_at_most_two_thirds_full() {
        for tokens in [1, 2, 3, 100, 199_998] {
            let n = slot_count(tokens);
            assert!(tokens * 3 <= n * 2, "{tokens} tokens in {n} slots");
            assert!(n * 2 <= tokens * 3 + 2 * 2, "{tokens} tokens in {n} slots");
        }
    }

    #[test]
    fn a_token_listed_twice_keeps_its_last_rank() {
        let table = pack(&[(b"x", 7), (b"y", 8), (b"x", 9)]);
        let slots = build(&table);
        assert_eq!(lookup(&table, &slots, b"x"), Some(9));
        assert_eq!(lookup(&table, &slots, b"y"), Some(8));
    }
}

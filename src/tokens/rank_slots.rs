//! The open-addressing index over a packed rank table, shared by build.rs
//! (which builds it) and the counters (which probe it): the same hash and
//! the same layout on both sides. build.rs includes this file with
//! `#[path]`, so it depends on nothing but `core`.
//!
//! Layout: a power-of-two number of slots, each a u32 LE: 0 for empty, else
//! one plus the offset of the token's entry in the packed table (rank u32 LE,
//! length u16 LE, bytes) in the low 22 bits and the hash's top 10 bits above
//! (a probe that meets another token rarely reads the table). Linear
//! probing; at most half the slots are used.

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

/// The number of slots for `tokens` entries (a power of two, load ≤ 1/2).
#[allow(dead_code)] // build.rs builds; the counters only look up
pub fn slot_count(tokens: usize) -> usize {
    (tokens.max(1) * 2).next_power_of_two()
}

/// The packed table's entry at `at`: its rank and bytes.
pub fn entry(table: &[u8], at: usize) -> Option<(u32, &[u8])> {
    let head = table.get(at..at + 6)?;
    let rank = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let len = u16::from_le_bytes([head[4], head[5]]) as usize;
    Some((rank, table.get(at + 6..at + 6 + len)?))
}

/// The slots of a packed table, as little-endian bytes.
#[allow(dead_code)] // build.rs builds; the counters only look up
pub fn build(table: &[u8]) -> Vec<u8> {
    let mut offsets = Vec::new();
    let mut at = 0;
    while let Some((_, bytes)) = entry(table, at) {
        offsets.push(at);
        at += 6 + bytes.len();
    }
    assert!(
        table.len() < OFFSET_MASK as usize,
        "a rank table under 4 MB"
    );
    let n = slot_count(offsets.len());
    let mask = n - 1;
    let mut slots = vec![0u32; n];
    for at in offsets {
        let Some((_, bytes)) = entry(table, at) else {
            continue;
        };
        let h = hash(bytes);
        let mut i = h as usize & mask;
        // A token listed twice keeps its last rank, as a map insert would.
        while slots[i] != 0
            && entry(table, (slots[i] & OFFSET_MASK) as usize - 1).map(|e| e.1) != Some(bytes)
        {
            i = (i + 1) & mask;
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
    let mask = n - 1;
    let h = hash(bytes);
    let want = tag(h);
    let mut i = h as usize & mask;
    loop {
        let s = &slots[i * 4..i * 4 + 4];
        let slot = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        if slot == 0 {
            return None;
        }
        if slot >> OFFSET_BITS == want {
            if let Some((rank, token)) = entry(table, (slot & OFFSET_MASK) as usize - 1) {
                if token == bytes {
                    return Some(rank);
                }
            }
        }
        i = (i + 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(tokens: &[(&[u8], u32)]) -> Vec<u8> {
        let mut t = Vec::new();
        for (bytes, rank) in tokens {
            t.extend_from_slice(&rank.to_le_bytes());
            t.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
            t.extend_from_slice(bytes);
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
    fn a_token_listed_twice_keeps_its_last_rank() {
        let table = pack(&[(b"x", 7), (b"y", 8), (b"x", 9)]);
        let slots = build(&table);
        assert_eq!(lookup(&table, &slots, b"x"), Some(9));
        assert_eq!(lookup(&table, &slots, b"y"), Some(8));
    }
}

//! Decodes the tokenizer vocabularies in crates/core/assets/tokenizers (`base64 rank`
//! lines) into packed rank tables in OUT_DIR, so a process that counts
//! tokens reads a table embedded in the binary instead of decoding 200,000
//! base64 lines at start-up.
//!
//! Table format: for each token, in file order, its rank and length in a
//! small header, then its bytes; beside it NAME.slots, the hash index over
//! it (both described in crates/core/src/tokens/rank_slots.rs); and NAME.backtrack, the
//! backtracking encoder's tables (crates/core/src/tokens/backtrack_tables.rs).

use std::path::Path;

// The lookup half is for the counters.
#[allow(dead_code)]
#[path = "src/tokens/rank_slots.rs"]
mod rank_slots;
// The reading half is for the counters.
#[allow(dead_code)]
#[path = "src/tokens/backtrack_tables.rs"]
mod backtrack_tables;

const VOCABS: [&str; 5] = [
    "o200k_base",
    "cl100k_base",
    "qwen",
    "deepseek",
    "claude_legacy",
];

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for name in VOCABS {
        let source = format!("assets/tokenizers/{name}.tiktoken");
        println!("cargo:rerun-if-changed={source}");
        let text = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let mut table = Vec::with_capacity(text.len());
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut parts = line.split_whitespace();
            let (Some(token), Some(rank)) = (parts.next(), parts.next()) else {
                continue;
            };
            let bytes =
                decode_base64(token).unwrap_or_else(|| panic!("{source}:{}: bad base64", i + 1));
            let rank: u32 = rank
                .parse()
                .unwrap_or_else(|_| panic!("{source}:{}: bad rank", i + 1));
            rank_slots::push_entry(&mut table, rank, &bytes);
            entries.push((bytes, rank));
        }
        // The index over it, so a process probes the embedded table
        // directly instead of building a hash map of 200,000 keys.
        let slots = rank_slots::build(&table);
        std::fs::write(Path::new(&out_dir).join(format!("{name}.slots")), slots)
            .expect("OUT_DIR is writable");
        std::fs::write(Path::new(&out_dir).join(format!("{name}.ranks")), table)
            .expect("OUT_DIR is writable");
        // The backtracking encoder's tables (crates/core/src/tokens/backtrack.rs).
        std::fs::write(
            Path::new(&out_dir).join(format!("{name}.backtrack")),
            backtrack_tables::build(&entries),
        )
        .expect("OUT_DIR is writable");
    }
    std::fs::write(Path::new(&out_dir).join("char_classes.bin"), char_classes())
        .expect("OUT_DIR is writable");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/tokens/rank_slots.rs");
    println!("cargo:rerun-if-changed=src/tokens/backtrack_tables.rs");
}

/// The Unicode classes the pre-tokenizers ask about (crates/core/src/tokens/pretokenize.rs),
/// one bit each, for every code point: from regex-syntax, the Unicode tables
/// fancy-regex matched with, so the hand-written splitters and the patterns
/// agree on every character. Layout: `0x110000 / 128` u16 LE block numbers,
/// then the distinct 128-byte blocks.
fn char_classes() -> Vec<u8> {
    // Bit order as in pretokenize.rs's constants.
    const CLASSES: [&str; 8] = [
        r"\s",
        r"\p{L}",
        r"\p{N}",
        r"\p{M}",
        r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
        r"\p{P}",
        r"\p{S}",
    ];
    let mut bits = vec![0u8; 0x110000];
    for (bit, class) in CLASSES.iter().enumerate() {
        let hir = regex_syntax::parse(class).expect("a class");
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(set)) = hir.kind()
        else {
            panic!("{class} is not a Unicode class");
        };
        for range in set.ranges() {
            for b in &mut bits[range.start() as usize..=range.end() as usize] {
                *b |= 1 << bit;
            }
        }
    }
    let mut blocks: Vec<&[u8]> = Vec::new();
    let mut index = Vec::new();
    for block in bits.chunks(128) {
        let n = blocks.iter().position(|b| *b == block).unwrap_or_else(|| {
            blocks.push(block);
            blocks.len() - 1
        });
        index.extend_from_slice(&(n as u16).to_le_bytes());
    }
    index.extend(blocks.concat());
    index
}

/// Standard base64 with padding.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let full = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&full[..chunk.len().saturating_sub(1)]);
    }
    Some(out)
}

//! The backtracking encoder (backtrack.rs) against merging (bpe.rs) on
//! every vocabulary: in a file of their own, as they read both and the
//! vocabularies (a test module inside backtrack.rs would make the files
//! import each other).

use super::backtrack::*;
use super::ranks::Ranks;
use crate::tokens::bpe::merge_count;
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

/// The encoder's count, never giving up; and the count's, which does
/// when the encoder takes too long.
fn backtrack(piece: &[u8], ranks: &StaticRanks) -> Option<usize> {
    let links = ranks.links().expect("every vocabulary has the tables");
    let n = ranks.with_cache(|cached| count_within(piece, &links, cached, usize::MAX));
    assert_eq!(
        n,
        Some(ranks.with_cache(|cached| crate::tokens::bpe::count(piece, cached)))
    );
    n
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

/// `has_run` finds every stretch of 16 bytes or more that repeats a
/// unit of up to four bytes, wherever it is, and nothing else.
#[test]
fn runs_are_found_where_they_are() {
    for unit in ["a", "ab", "中", "abcd", " \n"] {
        for len in [15, 16, 17, 40] {
            for (before, after) in [("", ""), ("xyz我们今天", ""), ("", "qrs"), ("12345", "67")]
            {
                let run: Vec<u8> = unit.bytes().cycle().take(len).collect();
                let piece = [before.as_bytes(), &run, after.as_bytes()].concat();
                let brute = (0..piece.len()).any(|a| {
                    (a + RUN..=piece.len()).any(|b| {
                        let s = &piece[a..b];
                        (1..=4).any(|p| s[p..] == s[..s.len() - p])
                    })
                });
                assert_eq!(
                    has_run(&piece),
                    brute,
                    "{unit:?} {len} {before:?} {after:?}"
                );
            }
        }
    }
    assert!(!has_run("我们今天我们今天我们今天我们今天".as_bytes()));
}

/// Runs of one character or a few, long and short (the memo by unit).
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

/// A piece that is a token counts one, even one merging never makes
/// and longer than the short-string cache keeps: tiktoken asks the table
/// about the whole piece first. A vocabulary of its own, as ours have no
/// such token (the tables say so, and the count then skips that lookup).
#[test]
fn a_long_token_merging_never_makes_counts_one() {
    use crate::tokens::backtrack_tables;
    use crate::tokens::rank_slots;
    let leak = |v: Vec<u8>| -> &'static [u8] { Vec::leak(v) };
    let mut entries: Vec<(Vec<u8>, u32)> = (0..=255u8).map(|b| (vec![b], b as u32)).collect();
    for (i, bytes) in ["ab", "cd", "xx", "xxxx", "xxxxxxxx", "xxxxxxxxxxxxxxxx"]
        .iter()
        .enumerate()
    {
        entries.push((bytes.as_bytes().to_vec(), 256 + i as u32));
    }
    let unmade = b"abcdefghijklmnopqrst";
    entries.push((unmade.to_vec(), 300));
    let mut table = Vec::new();
    for (bytes, rank) in &entries {
        rank_slots::push_entry(&mut table, *rank, bytes);
    }
    let slots = rank_slots::build(&table);
    let links = backtrack_tables::build(&entries);
    let ranks = StaticRanks::new(leak(table), leak(slots), leak(links));
    assert_eq!(ranks.links().map(|l| l.unmade), Some(unmade.len()));
    let count = |piece: &[u8]| ranks.with_cache(|cached| crate::tokens::bpe::count(piece, cached));
    assert_eq!(count(unmade), 1);
    assert_eq!(
        count(b"abcdefghijklmnopqrstu"),
        merge_count(b"abcdefghijklmnopqrstu", &ranks)
    );
    assert_eq!(count(b"abcdefghijklmnopqrstu"), 19);
    assert_eq!(count(&[b'x'; 16]), 1);
    assert_eq!(count(&[b'x'; 17]), 2);
    // Our vocabularies: every token merging makes, so no lookup to skip.
    for (name, ranks) in vocabularies() {
        assert_eq!(ranks.links().map(|l| l.unmade), Some(0), "{name}");
    }
}

//! Where a text provably splits into parts that count on their own.
//!
//! Every pre-tokenizer we ship (tiktoken's patterns, Qwen's, DeepSeek's
//! three isolated splits, the GPT-2 style ones) cuts a text before a letter
//! or digit that follows a `"\n"`: no alternative of any of their patterns
//! matches a newline together with the letter or digit after it (the
//! optional leading character of the word alternatives excludes `\r` and
//! `\n`), and regex matching only looks ahead. The pieces before the cut
//! see past it only through `\s+(?!\S)`, which asks just whether a
//! non-space follows. No special or added token contains a newline, so none
//! spans the cut either. So for `b` and `c` both starting with such a
//! character, `count(a + "\n" + b) - count(b)` is the same as
//! `count(a + "\n" + c) - count(c)`: what `a` and its newline cost does not
//! depend on what follows. The truncation planner uses it to know that
//! dropping the first line of a `<history>` group never makes the group
//! cost more, so it can search inside the group instead of walking it; and
//! the budget counts a group's text a line at a time (each line with the
//! next one's first character, less that character) and learns each
//! member's share in the one count.

use super::Vocab;
use fancy_regex::Regex;
use std::sync::OnceLock;

fn letter_or_digit(c: char) -> bool {
    if c.is_ascii_alphanumeric() {
        return true;
    }
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\A[\p{L}\p{N}]\z").ok())
        .as_ref()
        .is_some_and(|re| {
            let mut buf = [0u8; 4];
            re.is_match(c.encode_utf8(&mut buf)).unwrap_or(false)
        })
}

/// Whether, for this vocabulary, a text splits right after a `"\n"` that is
/// followed by `first` (see the module comment).
pub fn splits_after_newline(vocab: Vocab, first: char) -> bool {
    match vocab {
        // NFKC can turn a letter into something that starts with a space
        // (U+037A becomes " \u{345}"): only ASCII is certain there.
        Vocab::ClaudeLegacy => first.is_ascii_alphanumeric(),
        // NFC never composes across a newline, and no other vocabulary
        // normalises.
        Vocab::O200kBase | Vocab::Cl100kBase | Vocab::O200kHarmony | Vocab::Qwen => {
            letter_or_digit(first)
        }
        Vocab::DeepSeek => letter_or_digit(first),
    }
}

/// The same for AgentScope's tiktoken encodings (all without
/// normalisation, all of the shapes above).
pub fn encoding_splits_after_newline(first: char) -> bool {
    letter_or_digit(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    const HEADS: [&str; 11] = [
        "",
        "tabs\t\t",
        "dots...  ",
        "two\n\n",
        "hello",
        "a.",
        "x  ",
        "<history>",
        "数字 123",
        "end\r",
        "emoji 👍🏽",
    ];
    const TAILS: [&str; 10] = [
        "Bob: hi there",
        "bob's turn",
        "Émile: ça va",
        "中文: 你好",
        "123 apples",
        "x\n\n  y",
        "Zoë: ok   \n",
        "ｆｕｌｌ: width",
        "A: <|im_end|> after",
        "q: 'tis \t tab",
    ];

    #[test]
    fn every_vocabulary_cuts_after_a_newline_before_a_letter_or_digit() {
        for vocab in Vocab::ALL {
            for head in HEADS {
                for tail in TAILS {
                    let first = tail.chars().next().unwrap_or(' ');
                    if !splits_after_newline(vocab, first) {
                        continue;
                    }
                    // What `head\n` costs is the same before "x" as before `tail`.
                    let a = format!("{head}\n");
                    assert_eq!(
                        vocab.count(&format!("{a}{tail}")) + vocab.count("x"),
                        vocab.count(&format!("{a}x")) + vocab.count(tail),
                        "{vocab:?}: {head:?} + {tail:?}"
                    );
                }
            }
        }
    }

    /// The budget's form of it (`budget::shares`): a text cut there counts
    /// as its two sides, the head counted with the cut's first character
    /// less that character (at the very end of a text, GPT-2's pattern
    /// splits a run of spaces and a newline differently).
    #[test]
    fn a_cut_text_counts_as_its_parts() {
        for vocab in Vocab::ALL {
            for head in HEADS {
                for tail in TAILS {
                    let Some(first) = tail.chars().next() else {
                        continue;
                    };
                    if !splits_after_newline(vocab, first) {
                        continue;
                    }
                    let a = format!("{head}\n");
                    let c = first.to_string();
                    assert_eq!(
                        vocab.count(&format!("{a}{tail}")),
                        vocab.count(&format!("{a}{c}")) - vocab.count(&c) + vocab.count(tail),
                        "{vocab:?}: {head:?} + {tail:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn agentscope_encodings_too() {
        for enc in [
            Encoding::O200kBase,
            Encoding::Cl100kBase,
            Encoding::P50kBase,
            Encoding::R50kBase,
        ] {
            for head in HEADS {
                for tail in TAILS.iter().filter(|t| !t.contains("<|")) {
                    let a = format!("{head}\n");
                    let count = |t: &str| enc.count(t).ok();
                    let left = count(&format!("{a}{tail}")).zip(count("x"));
                    let right = count(&format!("{a}x")).zip(count(tail));
                    assert_eq!(
                        left.map(|(p, q)| p + q),
                        right.map(|(p, q)| p + q),
                        "{enc:?}: {head:?} + {tail:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn punctuation_and_spaces_do_not_split() {
        assert!(!splits_after_newline(Vocab::O200kBase, ' '));
        assert!(!splits_after_newline(Vocab::Qwen, '<'));
        assert!(!splits_after_newline(Vocab::ClaudeLegacy, 'é'));
        assert!(splits_after_newline(Vocab::DeepSeek, '中'));
    }
}

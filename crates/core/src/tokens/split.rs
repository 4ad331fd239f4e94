//! A long text counted a part per core. Every pre-tokenizer we ship cuts a
//! text after a `"\n"` followed by a letter or digit, and what the part
//! before such a cut costs does not depend on what follows it
//! (`boundary.rs`): so the text is cut there into a few parts, each part
//! is counted with the next part's first character (its cost is that
//! count less the character's own), and the sum is the whole text's count.
//! 4 MB of prose counted on two cores took 58 ms in one piece.

use super::boundary::splits_after_newline;
use super::counting::CountingBpe;
use super::Vocab;
use rayon::prelude::*;

/// Texts shorter than this are counted in one piece: the callers that
/// count many texts (a request's messages) already spread them over the
/// cores, and the benches' per-core figures (texts of 1 MB) stay per core.
pub const SPLIT_FROM: usize = 2 << 20;

/// `bpe`'s count of `text` (with its specials when `specials`), in parts
/// of at least `min_part` bytes cut where `vocab` provably splits.
pub fn count(
    bpe: &CountingBpe,
    vocab: Vocab,
    text: &str,
    specials: bool,
    min_part: usize,
) -> usize {
    let parts = cuts(vocab, text, min_part);
    if parts.len() < 2 {
        return bpe.count(text, specials);
    }
    parts
        .par_iter()
        .enumerate()
        .map(|(k, &start)| match parts.get(k + 1) {
            Some(&next) => {
                // The part with the next one's first character, less it.
                let first = text[next..].chars().next().map_or(0, char::len_utf8);
                bpe.count(&text[start..next + first], specials)
                    - bpe.count(&text[next..next + first], specials)
            }
            None => bpe.count(&text[start..], specials),
        })
        .sum()
}

/// Where the parts start: 0, then after a `"\n"` whose next character
/// `vocab` splits before, about every `len / (2 × cores)` bytes.
fn cuts(vocab: Vocab, text: &str, min_part: usize) -> Vec<usize> {
    let size = (text.len() / (2 * rayon::current_num_threads())).max(min_part.max(1));
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut at = size;
    while at < text.len() {
        let Some(found) = memchr::memchr(b'\n', &bytes[at..]) else {
            break;
        };
        let next = at + found + 1;
        match text[next..].chars().next() {
            Some(c) if splits_after_newline(vocab, c) => {
                starts.push(next);
                at = next + size;
            }
            Some(_) => at = next,
            None => break,
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varied() -> String {
        let unit = concat!(
            "The library opens at nine.\nIt closes late on Fridays.\n\n",
            "我们一起去图书馆吧！\n今天天气很好。\n",
            "fn main() {\n    let x = 1;\n}\n",
            "   \n\t\n  leading spaces\n12345 numbers\n",
            "<|endoftext|>\n<|im_start|>user\nÀ l'école\n",
            "a\n\n\nb\r\nc\n-dash\n_under\n",
        );
        unit.repeat(40)
    }

    #[test]
    fn parts_count_as_the_whole_text_for_every_split_vocabulary() {
        let text = varied();
        for vocab in [
            Vocab::O200kBase,
            Vocab::Cl100kBase,
            Vocab::O200kHarmony,
            Vocab::Qwen,
        ] {
            let bpe = vocab.counting();
            for specials in [false, true] {
                let whole = bpe.count(&text, specials);
                for min_part in [1, 7, 64, 500] {
                    let parts = cuts(vocab, &text, min_part);
                    assert!(parts.len() > 2, "{vocab:?}: cut into parts");
                    assert_eq!(
                        count(bpe, vocab, &text, specials, min_part),
                        whole,
                        "{vocab:?} specials={specials} min_part={min_part}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_without_a_cut_is_one_part() {
        let text = "word ".repeat(1000);
        assert_eq!(cuts(Vocab::O200kBase, &text, 10), vec![0]);
    }
}

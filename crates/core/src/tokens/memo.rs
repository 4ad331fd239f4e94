//! Long texts counted a part at a time, each part's count kept by its
//! content, for a counter that counts the same long text again and again
//! with little changed. The truncation counter of a session that is one
//! `<history>` group counts the group after each edit, again with the
//! history prompt, and from each state a plan tries (the group less its
//! first lines): at 100,000 messages each was a count of 4 MB, 45-170 ms
//! on one core. With the parts kept, only the parts not seen are counted.
//!
//! The parts are cut where every pre-tokenizer provably splits
//! (`boundary.rs`: after a "\n" before a letter or digit), each counted
//! with the next part's first character, less that character, as
//! `split.rs` counts. Which of those lines start a part is decided by the
//! line's own first bytes, not by where it is, so an edit, or lines
//! dropped from the front, leave the other parts as they were. A part is
//! kept by a SHA-256 of its bytes: two texts that shared a key would share
//! a count, and no text can be made to share one.
//!
//! Why by hand: a memo of a pure function keyed by content, over cuts that
//! only this crate's `boundary.rs` proves.

use super::boundary::splits_after_newline;
use super::counting::CountingBpe;
use super::Vocab;
use rustc_hash::{FxHashMap, FxHasher};
use sha2::{Digest, Sha256};
use std::hash::Hasher;
use std::sync::{Arc, Mutex};

/// Texts shorter than this are counted whole: a message's text is counted
/// once, and only a group's runs to this size.
pub const MEMO_FROM: usize = 64 << 10;

/// About one line in this many starts a part (of lines that can): parts
/// of a few lines, so an edit counts again a few hundred bytes.
const ONE_IN: u64 = 16;

/// A part longer than this ends at the next line that can end it, whatever
/// its content (a text whose lines all start alike is still cut).
const LONGEST: usize = 64 << 10;

/// Parts' counts by content, for one counter: at most 2^18 parts, a few
/// hundred megabytes of distinct text (an afternoon of edits only adds
/// parts).
#[derive(Debug, Default)]
pub struct PartMemo {
    parts: Kept<u32, { 1 << 18 }>,
}

/// A part's or run's key: the first half of a SHA-256.
pub type Key = [u8; 16];

impl PartMemo {
    /// `bpe`'s count of `text` (its specials read as specials when
    /// `specials`), the parts it has counted before not counted again.
    pub fn count(&self, bpe: &CountingBpe, vocab: Vocab, text: &str, specials: bool) -> usize {
        if text.len() < MEMO_FROM {
            return bpe.count(text, specials);
        }
        let starts = part_starts(vocab, text);
        let tag = [vocab as u8, u8::from(specials)];
        let counted = crate::parallel::chunks_at(&starts, |at, chunk| {
            // Each part's counted bytes (with the next part's first
            // character) and their key.
            let parts: Vec<(&str, usize, Key)> = chunk
                .iter()
                .enumerate()
                .map(|(k, &from)| {
                    let (to, next) = match starts.get(at + k + 1) {
                        Some(&to) => (to, first_len(&text[to..])),
                        None => (text.len(), 0),
                    };
                    let bytes = &text[from..to + next];
                    (bytes, next, key(tag, bytes))
                })
                .collect();
            let known = self.parts.get_all(parts.iter().map(|(.., key)| key));
            let mut alone = [None; 128];
            let mut sum = 0;
            let mut learnt = Vec::new();
            for ((bytes, next, key), known) in parts.into_iter().zip(known) {
                let whole = match known {
                    Some(n) => n as usize,
                    None => {
                        let n = bpe.count(bytes, specials);
                        learnt.push((key, n as u32));
                        n
                    }
                };
                let after = &bytes[bytes.len() - next..];
                let after_alone = match after.chars().next() {
                    None => 0,
                    Some(c) => match alone.get_mut(c as usize) {
                        Some(known) => *known.get_or_insert_with(|| bpe.count(after, specials)),
                        None => bpe.count(after, specials),
                    },
                };
                sum += whole - after_alone;
            }
            (sum, learnt)
        });
        let mut total = 0;
        for (sum, learnt) in counted {
            total += sum;
            self.parts.learn(learnt);
        }
        total
    }

    /// How many parts it keeps.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The first 16 bytes of the SHA-256 of `tag` and `bytes`.
fn key(tag: impl AsRef<[u8]>, bytes: &str) -> Key {
    let digest = Sha256::new()
        .chain_update(tag)
        .chain_update(bytes.as_bytes())
        .finalize();
    let mut key = [0; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// Whether a line whose first bytes (up to 32) are `line` starts a part:
/// about one in [`ONE_IN`], decided by those bytes alone.
pub fn picks(line: &[u8]) -> bool {
    let mut hasher = FxHasher::default();
    hasher.write(&line[..line.len().min(32)]);
    hasher.finish().is_multiple_of(ONE_IN)
}

/// Each part's count in a run of parts, by the run's content: what a
/// count of a long `<history>` group a line at a time keeps
/// (`budget/shares.rs`), so that after an edit it counts the runs the edit
/// changed only. One per counter: the tokenizer is part of the key. At
/// most 2^22 parts' counts (32 MB): a run holds up to a few hundred, so
/// the runs are bounded by their parts, not their number.
#[derive(Debug, Default)]
pub struct RunMemo {
    runs: Kept<Arc<[i64]>, { 1 << 22 }>,
}

impl RunMemo {
    /// The key of a run whose counted bytes are `bytes` (its parts, and
    /// the first character after them), under tokenizer `tokenizer`.
    pub fn key(tokenizer: &str, bytes: &str) -> Key {
        key(tokenizer, bytes)
    }

    /// The counts kept for each key.
    pub fn get_all(&self, keys: &[Key]) -> Vec<Option<Arc<[i64]>>> {
        self.runs.get_all(keys.iter())
    }

    /// Keeps these runs' counts.
    pub fn learn(&self, learnt: Vec<(Key, Arc<[i64]>)>) {
        self.runs.learn(learnt);
    }

    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How many parts' counts a kept value holds.
trait Parts {
    fn parts(&self) -> usize;
}

impl Parts for u32 {
    fn parts(&self) -> usize {
        1
    }
}

impl Parts for Arc<[i64]> {
    fn parts(&self) -> usize {
        self.len()
    }
}

/// Values by key, shared by the threads of a count, holding at most
/// `MOST` parts' counts: past that they start again.
#[derive(Debug, Default)]
struct Kept<V, const MOST: usize> {
    kept: Mutex<(FxHashMap<Key, V>, usize)>,
}

impl<V: Parts + Clone, const MOST: usize> Kept<V, MOST> {
    /// The value kept for each key.
    fn get_all<'k>(&self, keys: impl Iterator<Item = &'k Key>) -> Vec<Option<V>> {
        let kept = self.lock();
        keys.map(|key| kept.0.get(key).cloned()).collect()
    }

    fn learn(&self, learnt: Vec<(Key, V)>) {
        let mut kept = self.lock();
        let more: usize = learnt.iter().map(|(_, v)| v.parts()).sum();
        if kept.1 + more > MOST {
            *kept = (FxHashMap::default(), 0);
        }
        kept.1 += more;
        kept.0.extend(learnt);
    }

    fn len(&self) -> usize {
        self.lock().0.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (FxHashMap<Key, V>, usize)> {
        // A panic while the map was held leaves whole entries only.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The length of `text`'s first character (0 for an empty text).
fn first_len(text: &str) -> usize {
    text.chars().next().map_or(0, char::len_utf8)
}

/// Where the parts start: 0, then after each `"\n"` that `vocab` splits
/// after whose line's first bytes pick it (one in [`ONE_IN`]), or that
/// ends a part of [`LONGEST`] bytes.
fn part_starts(vocab: Vocab, text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    for newline in memchr::memchr_iter(b'\n', bytes) {
        let next = newline + 1;
        let Some(&last) = starts.last() else { break };
        let line = &bytes[next..(next + 32).min(bytes.len())];
        if line.is_empty() {
            break;
        }
        let picked = next - last >= LONGEST || picks(line);
        if picked
            && text[next..]
                .chars()
                .next()
                .is_some_and(|c| splits_after_newline(vocab, c))
        {
            starts.push(next);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of every kind, many of them: prose, Chinese, code, blank and
    /// indented lines, specials, a line that starts with no letter.
    fn varied(n: usize) -> String {
        let kinds = [
            "Alice: The library opens at nine and closes late on Fridays.",
            "Bob: 我们一起去图书馆吧！今天天气很好。",
            "Carol: fn main() {\n    let x = 1;\n}",
            "",
            "  leading spaces\n\t\ttabs",
            "Dave: <|endoftext|> and <|im_start|>user",
            "_under: À l'école\r\nnext",
            "12345 numbers -dash",
        ];
        (0..n)
            .map(|i| format!("{} {i}", kinds[i % kinds.len()]))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_long_text_counts_as_the_whole_for_every_vocabulary() {
        let text = varied(4000);
        assert!(text.len() > MEMO_FROM);
        for vocab in [
            Vocab::O200kBase,
            Vocab::Cl100kBase,
            Vocab::O200kHarmony,
            Vocab::Qwen,
        ] {
            let bpe = vocab.counting();
            for specials in [false, true] {
                let memo = PartMemo::default();
                let whole = bpe.count(&text, specials);
                assert_eq!(memo.count(bpe, vocab, &text, specials), whole, "{vocab:?}");
                assert!(memo.len() > 20, "{vocab:?}: only {} parts", memo.len());
                // Again, every part known.
                assert_eq!(memo.count(bpe, vocab, &text, specials), whole, "{vocab:?}");
            }
        }
    }

    #[test]
    fn an_edited_text_counts_only_its_new_parts_and_as_the_whole() {
        let vocab = Vocab::O200kBase;
        let bpe = vocab.counting();
        let memo = PartMemo::default();
        let text = varied(6000);
        memo.count(bpe, vocab, &text, false);
        let before = memo.len();
        let lines: Vec<&str> = text.split('\n').collect();
        // A line changed, lines dropped from the front, a line inserted.
        let mut edited = lines.clone();
        edited[3000] = "Bob: an edited line, longer than it was";
        let dropped = lines[1234..].join("\n");
        let mut inserted = lines.clone();
        inserted.insert(4321, "Eve: a new line");
        for text in [edited.join("\n"), dropped, inserted.join("\n")] {
            let n = memo.len();
            assert_eq!(
                memo.count(bpe, vocab, &text, false),
                bpe.count(&text, false)
            );
            assert!(
                memo.len() - n <= 3,
                "{} new parts of {before}",
                memo.len() - n
            );
        }
    }

    #[test]
    fn parts_keep_their_starts_when_the_front_changes() {
        let text = varied(3000);
        let starts = part_starts(Vocab::O200kBase, &text);
        let cut = starts[5];
        let shorter = &text[cut..];
        let again = part_starts(Vocab::O200kBase, shorter);
        let moved: Vec<usize> = starts[5..].iter().map(|s| s - cut).collect();
        assert_eq!(again, moved);
    }

    #[test]
    fn a_text_whose_lines_never_pick_a_part_is_still_cut() {
        let text = "word\n".repeat(40_000);
        let starts = part_starts(Vocab::O200kBase, &text);
        assert!(starts.len() > 2, "{} parts", starts.len());
        assert!(starts.windows(2).all(|w| w[1] - w[0] <= LONGEST + 5));
    }

    /// AgentScope's counter that keeps parts counts what it counts without
    /// them, a history group edited and cut from the front, and raises
    /// where it raises.
    #[test]
    fn a_remembering_counter_counts_and_raises_as_agentscopes() {
        use crate::media::NoNetwork;
        use crate::tokens::OpenAiTokenCounter;
        let plain = OpenAiTokenCounter::new("gpt-4o");
        let remembering = OpenAiTokenCounter::remembering("gpt-4o");
        let group = |text: &str| {
            serde_json::json!({"role": "user", "name": "history", "content": [
                {"type": "text", "text": format!("<history>\n{text}\n</history>")}
            ]})
        };
        let text = varied(5000);
        let lines: Vec<&str> = text.split('\n').collect();
        let mut edited = lines.clone();
        edited[2500] = "Bob: changed";
        let texts = [
            text.clone(),
            edited.join("\n"),
            lines[777..].join("\n"),
            lines[778..].join("\n"),
        ];
        for text in &texts {
            let message = group(text);
            let expected = plain.message_tokens(&message, &NoNetwork);
            assert!(expected.is_err(), "the lines hold specials");
            let got = remembering.message_tokens(&message, &NoNetwork);
            assert_eq!(
                got.map_err(|e| e.to_string()),
                expected.map_err(|e| e.to_string())
            );
            let clean = group(&text.replace("<|", "<"));
            let expected = plain.message_tokens(&clean, &NoNetwork).expect("counts");
            for _ in 0..2 {
                let got = remembering.message_tokens(&clean, &NoNetwork);
                assert_eq!(got.expect("counts"), expected);
            }
        }
    }
}

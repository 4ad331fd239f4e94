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
use std::ops::Range;
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
    /// The last text counted by runs, with its runs (taken while a count
    /// reads it).
    last: Mutex<Option<LastRuns>>,
}

/// A text counted a run at a time, and each run's place in it and parts'
/// counts, in order: the next count of an edit of it finds the runs in
/// the bytes before and after the edit here, by place, not by a hash of
/// their content (hashing a one-group session's 18 MB each edit was a
/// seventh of its recount).
#[derive(Debug, Default)]
pub struct LastRuns {
    text: String,
    runs: Vec<(Range<usize>, Arc<[i64]>)>,
}

/// What an edit left of the last text: its bytes up to `prefix` and its
/// last `suffix` bytes, in the new text of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unchanged {
    prefix: usize,
    suffix: usize,
    len: usize,
    last_len: usize,
}

impl LastRuns {
    /// What `text` has of this text where it was, at its start and end.
    pub fn unchanged_in(&self, text: &str) -> Unchanged {
        let (a, b) = (self.text.as_bytes(), text.as_bytes());
        let mut prefix = common_prefix(a, b);
        // Whole characters only: two characters may differ in their last
        // byte (the record is patched as a `str` there).
        while !(self.text.is_char_boundary(prefix) && text.is_char_boundary(prefix)) {
            prefix -= 1;
        }
        let most = a.len().min(b.len()) - prefix;
        let mut suffix = common_suffix(&a[a.len() - most..], &b[b.len() - most..]);
        while !(self.text.is_char_boundary(a.len() - suffix)
            && text.is_char_boundary(b.len() - suffix))
        {
            suffix -= 1;
        }
        Unchanged {
            prefix,
            suffix,
            len: b.len(),
            last_len: a.len(),
        }
    }

    /// The parts' counts of the run at `range` of the new text, where this
    /// text had a run of the same bytes there, before the edit or after it.
    pub fn find(&self, unchanged: &Unchanged, range: &Range<usize>) -> Option<Arc<[i64]>> {
        let start = if range.end <= unchanged.prefix {
            range.start
        } else if range.start >= unchanged.len - unchanged.suffix {
            range.start + unchanged.last_len - unchanged.len
        } else {
            return None;
        };
        let end = start + range.len();
        let at = self
            .runs
            .binary_search_by_key(&start, |(r, _)| r.start)
            .ok()?;
        let (run, counts) = &self.runs[at];
        (run.end == end).then(|| Arc::clone(counts))
    }

    /// This made the record of `text` and its `runs` (in order), its
    /// buffer written over where the two differ.
    pub fn remake(
        mut self,
        unchanged: Option<&Unchanged>,
        text: &str,
        runs: Vec<(Range<usize>, Arc<[i64]>)>,
    ) -> LastRuns {
        match unchanged {
            Some(u) => self.text.replace_range(
                u.prefix..u.last_len - u.suffix,
                &text[u.prefix..u.len - u.suffix],
            ),
            None => {
                self.text.clear();
                self.text.push_str(text);
            }
        }
        debug_assert_eq!(self.text, text);
        self.runs = runs;
        self
    }
}

/// How many bytes `a` and `b` start with alike (compared a block at a
/// time, as `memcmp` compares).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..n]
        .iter()
        .zip(&b[at..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with alike.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut at = n;
    while at >= BLOCK && a[at - BLOCK..at] == b[at - BLOCK..at] {
        at -= BLOCK;
    }
    n - at
        + a[..at]
            .iter()
            .rev()
            .zip(b[..at].iter().rev())
            .take_while(|(x, y)| x == y)
            .count()
}

impl RunMemo {
    /// The last text counted by runs, taken (`None` while another count
    /// has it, or before the first).
    pub fn take_last(&self) -> Option<LastRuns> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Keeps `last` for the next count.
    pub fn keep_last(&self, last: LastRuns) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(last);
    }

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

    /// A run is found where the last text had it, before an edit and
    /// (moved) after it, never across it; the record remade is the new
    /// text's.
    #[test]
    fn runs_are_found_where_the_last_text_had_them_and_never_across_an_edit() {
        let text = varied(3000);
        let runs: Vec<(Range<usize>, Arc<[i64]>)> = (0..text.len())
            .step_by(1000)
            .map(|start| {
                let range = start..(start + 1000).min(text.len());
                let counts: Arc<[i64]> = Arc::from(vec![start as i64]);
                (range, counts)
            })
            .collect();
        let last = LastRuns {
            text: text.clone(),
            runs: runs.clone(),
        };
        let edit = 20_500;
        let edited = format!("{}Eve: a line put in\n{}", &text[..edit], &text[edit..]);
        let unchanged = last.unchanged_in(&edited);
        assert_eq!(unchanged.prefix, edit);
        assert_eq!(unchanged.suffix, text.len() - edit);
        let shift = edited.len() - text.len();
        assert_eq!(
            last.find(&unchanged, &(1000..2000)).as_deref(),
            Some(&[1000][..])
        );
        assert_eq!(
            last.find(&unchanged, &(20_000..21_000)),
            None,
            "across the edit"
        );
        let moved = 30_000 + shift..31_000 + shift;
        assert_eq!(
            last.find(&unchanged, &moved).as_deref(),
            Some(&[30_000][..])
        );
        assert_eq!(
            last.find(&unchanged, &(1000..1500)),
            None,
            "another run there"
        );
        let remade = last.remake(Some(&unchanged), &edited, Vec::new());
        assert_eq!(remade.text, edited);
        // Characters that differ in their last byte only, in the middle
        // and at both ends: the record is patched on whole characters.
        let remade = LastRuns::default().remake(None, "aé中x中é", Vec::new());
        for other in ["aè中x中é", "aé中y中è", "bé中x中ê", "aé中x中éé", "é中x中é"]
        {
            let unchanged = remade.unchanged_in(other);
            let copy = LastRuns {
                text: remade.text.clone(),
                runs: Vec::new(),
            };
            assert_eq!(copy.remake(Some(&unchanged), other, Vec::new()).text, other);
        }
        // Nothing alike: nothing found, and the record is the new text.
        let other = "Zed: another text\n".repeat(100);
        let unchanged = remade.unchanged_in(&other);
        assert_eq!(remade.find(&unchanged, &(0..10)), None);
        assert_eq!(remade.remake(Some(&unchanged), &other, runs).text, other);
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

//! Huge whitespace runs, counted exactly.
//!
//! The pre-tokenizer regexes still on fancy-regex (DeepSeek's main split,
//! and the encodings kept on tiktoken-rs's `CoreBPE`; the others are split
//! by hand, `pretokenize`, and never give up) have a backtracking stack that
//! overflows on a stretch of about a million spaces or tabs with no newline
//! (`\s+(?!\S)` keeps a backtrack point per character); shorter stretches,
//! and newline runs of any length, are fine. When the regex gives up, the
//! text is cut where every pattern we ship cuts it anyway, and the huge
//! pieces are counted by byte-pair merging directly:
//!
//! - In a maximal whitespace run `[a, b)`, the tiktoken-style patterns
//!   (o200k, cl100k, Qwen, DeepSeek's main split) end a piece right after
//!   the run's last newline (`\s*[\r\n]+`, or a punctuation piece's
//!   `[\r\n]*`); the GPT-2 style pattern (legacy Claude) has no newline
//!   branch, so its stretch starts at `a`. Call that point `s`.
//! - From `s`, `\s+(?!\S)` takes the stretch up to the run's last character
//!   (or to the end of the text, where nothing follows): one piece. The last
//!   character then starts the next piece (a word's or punctuation's
//!   optional leading space), and matching there depends only on what
//!   follows, so the rest of the text counts on its own.
//!
//! So: the text before `s` (the regex, as usual), the stretch (merged
//! directly), and the text from the run's last character on (the regex
//! again, after cutting its own huge stretches the same way).

/// How a pattern splits whitespace runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// A piece ends after a run's last newline (tiktoken's patterns, Qwen,
    /// DeepSeek's main split).
    NewlinesApart,
    /// Newlines are whitespace like any other (the GPT-2 style pattern).
    Plain,
}

/// Stretches at least this long (bytes) are counted without the regex;
/// the regex handles a hundred thousand without trouble.
const HUGE: usize = 16 * 1024;

/// Tokens of `text`, given `regex_count` (the pattern and byte-pair merging
/// as usual; `None` when the regex gives up) and `merge` (byte-pair merging
/// of one piece).
pub fn count(
    text: &str,
    runs: Runs,
    regex_count: &dyn Fn(&str) -> Option<usize>,
    merge: &dyn Fn(&[u8]) -> usize,
) -> Option<usize> {
    let mut total = 0;
    let mut cursor = 0;
    for (s, end, at_end) in huge_stretches(text, runs) {
        total += regex_count(&text[cursor..s])?;
        total += merge(&text.as_bytes()[s..end]);
        cursor = end;
        if at_end {
            break;
        }
    }
    total += regex_count(&text[cursor..])?;
    Some(total)
}

/// The huge stretches `(s, end, at_end)`: `text[s..end]` is one piece, and
/// `at_end` when it runs to the end of the text.
fn huge_stretches(text: &str, runs: Runs) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((a, c)) = chars.next() {
        if !c.is_whitespace() {
            continue;
        }
        // The maximal run [a, b), its last newline and its last character.
        let mut b = a + c.len_utf8();
        let mut after_newline = matches!(c, '\r' | '\n').then_some(b);
        let mut last = a;
        while let Some(&(i, d)) = chars.peek() {
            if !d.is_whitespace() {
                break;
            }
            chars.next();
            last = i;
            b = i + d.len_utf8();
            if matches!(d, '\r' | '\n') {
                after_newline = Some(b);
            }
        }
        let s = match runs {
            Runs::NewlinesApart => after_newline.unwrap_or(a),
            Runs::Plain => a,
        };
        let at_end = b == text.len();
        let end = if at_end { b } else { last };
        if end > s && end - s >= HUGE {
            out.push((s, end, at_end));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_start_after_the_last_newline_and_leave_the_last_character() {
        let text = format!("a.\n\n{}\n{}x", " ".repeat(10), " ".repeat(HUGE + 5));
        let s = text.rfind('\n').unwrap() + 1;
        let last = text.len() - 2;
        assert_eq!(
            huge_stretches(&text, Runs::NewlinesApart),
            vec![(s, last, false)]
        );
        // GPT-2 style: the whole run but its last character.
        assert_eq!(huge_stretches(&text, Runs::Plain), vec![(2, last, false)]);
        // At the end of the text the stretch takes everything.
        let tail = format!("x{}", "\t".repeat(HUGE));
        assert_eq!(
            huge_stretches(&tail, Runs::Plain),
            vec![(1, tail.len(), true)]
        );
        assert!(huge_stretches("short   runs\n\n only", Runs::Plain).is_empty());
    }
}

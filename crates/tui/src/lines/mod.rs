//! The lines a view lays out: one string and where each line ends.
//!
//! A 10,000-message request is about 80,000 lines; holding them as one
//! text with a `u32` end per line costs the text plus four bytes a line,
//! against a `String` each (24 bytes and an allocation a line). A line is
//! a slice of the text, so drawing a screen copies nothing.

mod pretty;

use formatscope_core::json::Json;
pub use pretty::{Media, STOP_EVERY};
use std::fmt;
use std::ops::Range;

#[derive(Clone, Default, PartialEq, Eq)]
pub struct Lines {
    text: String,
    /// `ends[i]`: where line `i` ends in `text`.
    ends: Vec<u32>,
}

impl Lines {
    pub const fn new() -> Lines {
        Lines {
            text: String::new(),
            ends: Vec::new(),
        }
    }

    pub fn push(&mut self, line: &str) {
        self.push_parts(&[line]);
    }

    /// A line made of `parts`, without joining them first.
    pub fn push_parts(&mut self, parts: &[&str]) {
        for part in parts {
            self.text.push_str(part);
        }
        self.ends.push(self.text_len());
    }

    /// Adds `more` to the end of the last line (a comma once another
    /// element follows).
    pub fn append_to_last(&mut self, more: &str) {
        if let Some(last) = self.ends.len().checked_sub(1) {
            self.text.push_str(more);
            self.ends[last] = self.text_len();
        }
    }

    fn text_len(&self) -> u32 {
        // Session files are capped far below 4 GB (files::SESSION_LIMIT).
        u32::try_from(self.text.len()).unwrap_or(u32::MAX)
    }

    /// Room for `bytes` more text in `lines` more lines.
    pub fn reserve(&mut self, bytes: usize, lines: usize) {
        self.text.reserve(bytes);
        self.ends.reserve(lines);
    }

    /// The bytes of all the lines' text.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Pretty JSON of `value` (serde_json's layout), its long media
    /// strings printed as `media` says, each line with `indent` before it,
    /// written straight into these lines ([`pretty`]). `false`, the lines
    /// as they were, once `stop()` says so: it is asked every
    /// [`STOP_EVERY`] bytes.
    pub fn push_pretty<'a>(
        &mut self,
        value: impl Json<'a>,
        media: Media,
        indent: &str,
        stop: &dyn Fn() -> bool,
    ) -> bool {
        let (text, lines) = (self.text.len(), self.ends.len());
        self.text.push_str(indent);
        let mut printer = pretty::Printer {
            lines: self,
            indent,
            media,
            stop,
            asked_at: text,
        };
        if printer.value(value, 0).is_err() {
            self.text.truncate(text);
            self.ends.truncate(lines);
            return false;
        }
        self.ends.push(self.text_len());
        true
    }

    /// `other`'s lines after these.
    pub fn append(&mut self, other: &Lines) {
        let offset = self.text_len();
        self.text.push_str(&other.text);
        self.ends
            .extend(other.ends.iter().map(|end| end.saturating_add(offset)));
    }

    /// `other`'s lines `range` (clamped to its lines) after these.
    pub fn append_range(&mut self, other: &Lines, range: Range<usize>) {
        let end = range.end.min(other.len());
        let start = range.start.min(end);
        let from = match start {
            0 => 0,
            _ => other.ends[start - 1],
        };
        let to = match end {
            0 => 0,
            _ => other.ends[end - 1],
        };
        let Some(text) = other.text.get(from as usize..to as usize) else {
            return;
        };
        let offset = self.text_len();
        self.text.push_str(text);
        self.ends.extend(
            other.ends[start..end]
                .iter()
                .map(|e| (e - from).saturating_add(offset)),
        );
    }

    /// Takes `suffix` off the end of the last line, when it ends so.
    pub fn strip_last(&mut self, suffix: &str) {
        if let Some(last) = self.ends.len().checked_sub(1) {
            let start = match last {
                0 => 0,
                _ => self.ends[last - 1] as usize,
            };
            if self.text[start..].ends_with(suffix) {
                self.text.truncate(self.text.len() - suffix.len());
                self.ends[last] = self.text_len();
            }
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        self.text.get(start..end)
    }

    pub fn iter(&self) -> Iter<'_> {
        self.range(0..self.len())
    }

    /// Lines `range` (clamped to the lines there are).
    pub fn range(&self, range: Range<usize>) -> Iter<'_> {
        let end = range.end.min(self.len());
        Iter {
            lines: self,
            next: range.start.min(end),
            end,
        }
    }

    pub fn join(&self, sep: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + sep.len() * self.len());
        for (i, line) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(line);
        }
        out
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }

    /// Lets go of spare capacity once the lines are complete.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// The lines of a range, in order.
#[derive(Clone)]
pub struct Iter<'a> {
    lines: &'a Lines,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.next >= self.end {
            return None;
        }
        self.next += 1;
        self.lines.get(self.next - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl fmt::Debug for Lines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Lines {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Lines {
        let mut lines = Lines::new();
        lines.extend(iter);
        lines
    }
}

impl<S: AsRef<str>> Extend<S> for Lines {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for line in iter {
            self.push(line.as_ref());
        }
    }
}

impl From<Vec<String>> for Lines {
    fn from(lines: Vec<String>) -> Lines {
        lines.into_iter().collect()
    }
}

/// `text` broken into lines of at most `width` columns at spaces, as a
/// person would: words are never glued together nor cut, except a word
/// longer than a whole line, which is cut at the edge (a path, a URL).
/// Runs of spaces between words collapse to one at a break.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        let mut used = 0;
        for word in paragraph.split(' ').filter(|w| !w.is_empty()) {
            let w = UnicodeWidthStr::width(word);
            if used > 0 && used + 1 + w <= width {
                line.push(' ');
                line.push_str(word);
                used += 1 + w;
                continue;
            }
            if used > 0 {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
            if w <= width {
                line.push_str(word);
                used = w;
                continue;
            }
            // Longer than a line: cut at the edge, the rest goes on.
            for c in word.chars() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if used + cw > width && used > 0 {
                    out.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += cw;
            }
        }
        out.push(line);
    }
    out
}

/// The first of `candidates` (longest first) that [`wrap_words`] lays out
/// in `height` lines of `width` columns, wrapped; the last one, wrapped
/// and cut to `height` lines, when none does.
pub fn first_fitting<S: AsRef<str>>(candidates: &[S], width: usize, height: usize) -> Vec<String> {
    let mut last = Vec::new();
    for c in candidates {
        last = wrap_words(c.as_ref(), width);
        if last.len() <= height {
            return last;
        }
    }
    last.truncate(height);
    last
}

/// Items of text (sentences), the most needed first, each in its forms
/// longest first, joined by spaces and wrapped ([`wrap_words`]) into at
/// most `height` lines of `width` columns: items are shortened (the least
/// needed first), then the least needed left out, until the rest fits.
/// The items keep their order.
pub fn fit_items<S: AsRef<str>>(items: &[Vec<S>], width: usize, height: usize) -> Vec<String> {
    let joined = |forms: &[Option<usize>]| {
        let text = items
            .iter()
            .zip(forms)
            .filter_map(|(f, k)| k.map(|k| f[k].as_ref()))
            .collect::<Vec<_>>()
            .join(" ");
        wrap_words(&text, width)
    };
    let forms = shortened(items, |forms| joined(forms).len() <= height);
    let mut lines = joined(&forms);
    lines.truncate(height);
    lines
}

/// [`fit_items`], each item a paragraph of its own: its lines, none for
/// an item left out.
pub fn fit_paragraphs<S: AsRef<str>>(
    items: &[Vec<S>],
    width: usize,
    height: usize,
) -> Vec<Vec<String>> {
    let laid = |forms: &[Option<usize>]| -> Vec<Vec<String>> {
        items
            .iter()
            .zip(forms)
            .map(|(f, k)| k.map_or_else(Vec::new, |k| wrap_words(f[k].as_ref(), width)))
            .collect()
    };
    let rows = |laid: &[Vec<String>]| laid.iter().map(Vec::len).sum::<usize>();
    let forms = shortened(items, |forms| rows(&laid(forms)) <= height);
    let mut out = laid(&forms);
    // Still too tall (the most needed item alone): cut its lines.
    let mut room = height;
    for lines in &mut out {
        lines.truncate(room);
        room -= lines.len();
    }
    out
}

/// The form of each item (None: left out) for [`fit_items`] and
/// [`fit_paragraphs`]: shorter forms first, the least needed item's
/// first; then the least needed items go; the most needed one stays.
fn shortened<S>(items: &[Vec<S>], fits: impl Fn(&[Option<usize>]) -> bool) -> Vec<Option<usize>> {
    let mut forms: Vec<Option<usize>> =
        items.iter().map(|f| (!f.is_empty()).then_some(0)).collect();
    loop {
        if fits(&forms) {
            break;
        }
        let shorter = (0..items.len())
            .rev()
            .find(|&i| forms[i].is_some_and(|k| k + 1 < items[i].len()));
        if let Some(i) = shorter {
            forms[i] = forms[i].map(|k| k + 1);
            continue;
        }
        match forms.iter().rposition(Option::is_some) {
            Some(last) if forms.iter().filter(|f| f.is_some()).count() > 1 => forms[last] = None,
            _ => return forms,
        }
    }
    // What an item left out freed goes back to the most needed items'
    // longer forms.
    for i in 0..forms.len() {
        while let Some(k) = forms[i].filter(|k| *k > 0) {
            let mut longer = forms.clone();
            longer[i] = Some(k - 1);
            if !fits(&longer) {
                break;
            }
            forms = longer;
        }
    }
    forms
}

/// `text`'s first characters that take at most `cols` columns.
pub fn cut_to_columns(text: &str, cols: usize) -> String {
    let mut used = 0;
    text.chars()
        .take_while(|c| {
            used += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
            used <= cols
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_lines_is_copied_whole_and_a_trailing_comma_comes_off() {
        let from: Lines = ["[", "  {", "    \"a\": 1", "  },", "]"]
            .into_iter()
            .collect();
        let mut to: Lines = ["x"].into_iter().collect();
        to.append_range(&from, 1..4);
        assert_eq!(to.to_vec(), ["x", "  {", "    \"a\": 1", "  },"]);
        to.strip_last(",");
        to.strip_last(",");
        assert_eq!(to.get(3), Some("  }"), "one comma, once");
        to.push("y");
        assert_eq!(to.to_vec(), ["x", "  {", "    \"a\": 1", "  }", "y"]);
        to.append_range(&from, 4..9);
        assert_eq!(to.get(5), Some("]"), "a range past the end is clamped");
        to.append_range(&from, 0..0);
        assert_eq!(to.len(), 6);
    }

    #[test]
    fn words_wrap_at_spaces_and_are_never_glued_or_cut() {
        assert_eq!(
            wrap_words("ask to send at 20000 tokens", 14),
            ["ask to send at", "20000 tokens"]
        );
        assert_eq!(wrap_words("a  b", 10), ["a b"]);
        assert_eq!(wrap_words("", 10), [""]);
        assert_eq!(wrap_words("one\ntwo three", 5), ["one", "two", "three"]);
        // A word wider than the line is cut at the edge.
        assert_eq!(wrap_words("x abcdefgh", 4), ["x", "abcd", "efgh"]);
        // Wide characters take two columns.
        assert_eq!(wrap_words("图书馆 ab", 6), ["图书馆", "ab"]);
        assert_eq!(
            first_fitting(&["a long text that wraps", "short"], 10, 1),
            ["short"]
        );
        assert_eq!(first_fitting(&["a b c d e f"], 3, 2), ["a b", "c d"]);
    }

    #[test]
    fn items_are_shortened_then_left_out_least_needed_first() {
        let items = vec![
            vec!["242 tokens by the provider's tokenizer.", "242 tokens."],
            vec!["Its own estimate: 223.", "est. 223."],
            vec!["V goes on to the next release."],
        ];
        assert_eq!(
            fit_items(&items, 100, 1),
            ["242 tokens by the provider's tokenizer. Its own estimate: 223. V goes on to the next release."]
        );
        assert_eq!(
            fit_items(&items, 40, 3),
            [
                "242 tokens by the provider's tokenizer.",
                "Its own estimate: 223. V goes on to the",
                "next release."
            ]
        );
        assert_eq!(
            fit_items(&items, 40, 2),
            [
                "242 tokens by the provider's tokenizer.",
                "est. 223. V goes on to the next release."
            ]
        );
        assert_eq!(fit_items(&items, 30, 1), ["242 tokens. est. 223."]);
        assert_eq!(fit_items(&items, 5, 1), ["242"]);
        assert_eq!(cut_to_columns("图书馆", 5), "图书");
        let paragraphs = fit_paragraphs(&items, 40, 3);
        assert_eq!(
            paragraphs,
            [
                vec!["242 tokens by the provider's tokenizer.".to_string()],
                vec!["Its own estimate: 223.".to_string()],
                vec!["V goes on to the next release.".to_string()],
            ]
        );
        let paragraphs = fit_paragraphs(&items, 30, 2);
        assert_eq!(paragraphs[0], ["242 tokens."]);
        assert_eq!(paragraphs[1], ["Its own estimate: 223."]);
        assert!(paragraphs[2].is_empty());
    }

    #[test]
    fn lines_read_back_as_pushed() {
        let mut l: Lines = ["[", "  {", "", "  }"].into_iter().collect();
        l.append_to_last(",");
        l.push_parts(&["]", ""]);
        assert_eq!(l.len(), 5);
        assert_eq!(l.to_vec(), ["[", "  {", "", "  },", "]"]);
        assert_eq!(l.get(2), Some(""));
        assert_eq!(l.get(5), None);
        assert_eq!(l.range(3..9).collect::<Vec<_>>(), ["  },", "]"]);
        assert_eq!(l.range(7..9).count(), 0);
        assert_eq!(l.join("\n"), "[\n  {\n\n  },\n]");
        assert!(Lines::new().is_empty());
        assert_eq!(l.clone(), l);
    }
}

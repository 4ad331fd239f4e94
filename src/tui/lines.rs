//! The lines a view lays out: one string and where each line ends.
//!
//! A 10,000-message request is about 80,000 lines; holding them as one
//! text with a `u32` end per line costs the text plus four bytes a line,
//! against a `String` each (24 bytes and an allocation a line). A line is
//! a slice of the text, so drawing a screen copies nothing.

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

    /// `other`'s lines after these.
    pub fn append(&mut self, other: &Lines) {
        let offset = self.text_len();
        self.text.push_str(&other.text);
        self.ends
            .extend(other.ends.iter().map(|end| end.saturating_add(offset)));
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

#[cfg(test)]
mod tests {
    use super::*;

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

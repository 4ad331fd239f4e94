//! The lines a view lays out, held as one string and where each line
//! starts. A 10,000-message request is about 25,000 lines; as a
//! `Vec<String>` each line is an allocation of its own and 24 bytes more,
//! a third again on top of the text.

use std::ops::{Index, Range};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lines {
    text: String,
    /// `ends[i]`: where line `i` ends in `text` (it starts where line
    /// `i - 1` ends).
    ends: Vec<usize>,
}

impl Lines {
    pub const fn new() -> Lines {
        Lines {
            text: String::new(),
            ends: Vec::new(),
        }
    }

    pub fn push(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    /// A line made of `parts`, without joining them first.
    pub fn push_parts(&mut self, parts: &[&str]) {
        for part in parts {
            self.text.push_str(part);
        }
        self.ends.push(self.text.len());
    }

    /// Adds `more` to the end of the last line (a comma once another
    /// element follows).
    pub fn append_to_last(&mut self, more: &str) {
        if let Some(end) = self.ends.last_mut() {
            self.text.push_str(more);
            *end = self.text.len();
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + Clone + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Lines `range` (clamped to the lines there are).
    pub fn range(&self, range: Range<usize>) -> impl Iterator<Item = &str> + Clone + '_ {
        let end = range.end.min(self.len());
        (range.start.min(end)..end).filter_map(|i| self.get(i))
    }

    pub fn join(&self, sep: &str) -> String {
        self.iter().collect::<Vec<_>>().join(sep)
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

impl Index<usize> for Lines {
    type Output = str;

    /// Line `i`; panics past the end, as a slice does.
    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(line) => line,
            None => panic!("line {i} of {}", self.len()),
        }
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
        l.push("]");
        assert_eq!(l.len(), 5);
        assert_eq!(l.to_vec(), ["[", "  {", "", "  },", "]"]);
        assert_eq!(&l[2], "");
        assert_eq!(l.get(5), None);
        assert_eq!(l.range(3..9).collect::<Vec<_>>(), ["  },", "]"]);
        assert_eq!(l.join("\n"), "[\n  {\n\n  },\n]");
        assert!(Lines::new().is_empty());
    }
}

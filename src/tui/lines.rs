//! The lines a view lays out, held compressed in blocks.
//!
//! A 10,000-message request is about 80,000 lines and as much text as the
//! session itself, while a frame shows forty of them. So every
//! [`BLOCK`] lines are compressed together (lz4: pretty JSON shrinks about
//! four to one) and read back when asked for; the last block read stays
//! open, so drawing a screen or walking the lines in order decompresses
//! each block once. The lines still being added stay as plain text.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Lines per compressed block: a screen or two, a few kilobytes.
const BLOCK: usize = 128;

/// A finished block: its lines' ends (u32 LE each, relative to the text
/// after them) then its text, lz4-compressed.
struct Block {
    compressed: Box<[u8]>,
    len: usize,
}

/// A block read back: its bytes, and where each line ends in them.
struct Opened {
    bytes: Vec<u8>,
}

impl Opened {
    fn line(&self, k: usize) -> Option<&str> {
        let head = BLOCK * 4;
        let end_at = |k: usize| -> Option<usize> {
            let b = self.bytes.get(k * 4..k * 4 + 4)?;
            Some(head + u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        let start = if k == 0 { head } else { end_at(k - 1)? };
        let end = end_at(k)?;
        std::str::from_utf8(self.bytes.get(start..end)?).ok()
    }
}

pub struct Lines {
    blocks: Vec<Block>,
    /// The lines after the last block, as text (`BLOCK` at most; the last
    /// line is always here, so a comma can still be added to it).
    tail: String,
    /// `tail_ends[i]`: where tail line `i` ends in `tail`.
    tail_ends: Vec<u32>,
    /// The block read last.
    open: Mutex<Option<(usize, Arc<Opened>)>>,
}

impl Lines {
    pub const fn new() -> Lines {
        Lines {
            blocks: Vec::new(),
            tail: String::new(),
            tail_ends: Vec::new(),
            open: Mutex::new(None),
        }
    }

    pub fn push(&mut self, line: &str) {
        self.push_parts(&[line]);
    }

    /// A line made of `parts`, without joining them first.
    pub fn push_parts(&mut self, parts: &[&str]) {
        if self.tail_ends.len() == BLOCK {
            self.seal();
        }
        for part in parts {
            self.tail.push_str(part);
        }
        self.tail_ends.push(self.tail_len());
    }

    /// Adds `more` to the end of the last line (a comma once another
    /// element follows).
    pub fn append_to_last(&mut self, more: &str) {
        if let Some(end) = self.tail_ends.len().checked_sub(1) {
            self.tail.push_str(more);
            self.tail_ends[end] = self.tail_len();
        }
    }

    fn tail_len(&self) -> u32 {
        // Session files are capped far below 4 GB (files::SESSION_LIMIT).
        u32::try_from(self.tail.len()).unwrap_or(u32::MAX)
    }

    /// Compresses the tail (a full block) into a block of its own.
    fn seal(&mut self) {
        let mut bytes = Vec::with_capacity(BLOCK * 4 + self.tail.len());
        for end in &self.tail_ends {
            bytes.extend_from_slice(&end.to_le_bytes());
        }
        bytes.extend_from_slice(self.tail.as_bytes());
        self.blocks.push(Block {
            compressed: lz4_flex::block::compress(&bytes).into_boxed_slice(),
            len: bytes.len(),
        });
        self.tail.clear();
        self.tail_ends.clear();
    }

    pub fn len(&self) -> usize {
        self.blocks.len() * BLOCK + self.tail_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn tail_line(&self, k: usize) -> Option<&str> {
        let end = *self.tail_ends.get(k)? as usize;
        let start = if k == 0 {
            0
        } else {
            self.tail_ends[k - 1] as usize
        };
        self.tail.get(start..end)
    }

    fn read_block(&self, b: usize) -> Option<Arc<Opened>> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, opened)) = open.as_ref() {
            if *at == b {
                return Some(Arc::clone(opened));
            }
        }
        let block = self.blocks.get(b)?;
        let bytes = lz4_flex::block::decompress(&block.compressed, block.len).ok()?;
        let opened = Arc::new(Opened { bytes });
        *open = Some((b, Arc::clone(&opened)));
        Some(opened)
    }

    pub fn get(&self, i: usize) -> Option<Cow<'_, str>> {
        let b = i / BLOCK;
        if b == self.blocks.len() {
            return self.tail_line(i % BLOCK).map(Cow::Borrowed);
        }
        let opened = self.read_block(b)?;
        opened.line(i % BLOCK).map(|l| Cow::Owned(l.to_owned()))
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
            opened: None,
        }
    }

    pub fn join(&self, sep: &str) -> String {
        let mut out = String::new();
        for (i, line) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(&line);
        }
        out
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(Cow::into_owned).collect()
    }

    /// Lets go of spare capacity once the lines are complete.
    pub fn shrink_to_fit(&mut self) {
        self.blocks.shrink_to_fit();
        self.tail.shrink_to_fit();
        self.tail_ends.shrink_to_fit();
    }
}

/// The lines of a range in order, each block read once (through the
/// lines' open block: a screen's lines, read one range at a time by the
/// highlighter, decompress their block once).
#[derive(Clone)]
pub struct Iter<'a> {
    lines: &'a Lines,
    next: usize,
    end: usize,
    opened: Option<(usize, Arc<Opened>)>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, str>;

    fn next(&mut self) -> Option<Cow<'a, str>> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let b = i / BLOCK;
        if b == self.lines.blocks.len() {
            return self.lines.tail_line(i % BLOCK).map(Cow::Borrowed);
        }
        if self.opened.as_ref().is_none_or(|(at, _)| *at != b) {
            self.opened = Some((b, self.lines.read_block(b)?));
        }
        let (_, opened) = self.opened.as_ref()?;
        opened.line(i % BLOCK).map(|l| Cow::Owned(l.to_owned()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
}

impl Default for Lines {
    fn default() -> Lines {
        Lines::new()
    }
}

impl Clone for Lines {
    fn clone(&self) -> Lines {
        Lines {
            blocks: self
                .blocks
                .iter()
                .map(|b| Block {
                    compressed: b.compressed.clone(),
                    len: b.len,
                })
                .collect(),
            tail: self.tail.clone(),
            tail_ends: self.tail_ends.clone(),
            open: Mutex::new(None),
        }
    }
}

impl PartialEq for Lines {
    fn eq(&self, other: &Lines) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Lines {}

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
        l.push("]");
        assert_eq!(l.len(), 5);
        assert_eq!(l.to_vec(), ["[", "  {", "", "  },", "]"]);
        assert_eq!(l.get(2).as_deref(), Some(""));
        assert_eq!(l.get(5), None);
        assert_eq!(l.range(3..9).collect::<Vec<_>>(), ["  },", "]"]);
        assert_eq!(l.join("\n"), "[\n  {\n\n  },\n]");
        assert!(Lines::new().is_empty());
    }

    #[test]
    fn many_lines_read_back_in_any_order_and_take_less_than_their_text() {
        let text: Vec<String> = (0..10 * BLOCK + 7)
            .map(|i| match i % 5 {
                0 => String::new(),
                1 => format!("      \"text\": \"line {i} — ünïcode\""),
                _ => format!("    {{\"role\": \"user\", \"n\": {i}}}"),
            })
            .collect();
        let mut l = Lines::new();
        for (i, t) in text.iter().enumerate() {
            l.push_parts(&[t.as_str()]);
            // A comma added to whichever line is last, even a block's last.
            if i % BLOCK == BLOCK - 1 {
                l.append_to_last(",");
            }
        }
        let expect: Vec<String> = text
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i % BLOCK == BLOCK - 1 {
                    format!("{t},")
                } else {
                    t.clone()
                }
            })
            .collect();
        assert_eq!(l.len(), expect.len());
        assert_eq!(l.to_vec(), expect);
        for i in [0, BLOCK * 3 + 1, 5, BLOCK * 10 + 6, BLOCK - 1, BLOCK] {
            assert_eq!(l.get(i).as_deref(), Some(expect[i].as_str()), "line {i}");
        }
        assert_eq!(l.get(expect.len()), None);
        let mid = BLOCK * 2 - 3..BLOCK * 4 + 2;
        assert_eq!(l.range(mid.clone()).collect::<Vec<_>>(), expect[mid]);
        assert_eq!(l.clone(), l);
        let held: usize = l.blocks.iter().map(|b| b.compressed.len()).sum::<usize>() + l.tail.len();
        let text_len: usize = expect.iter().map(String::len).sum();
        assert!(held * 2 < text_len, "{held} bytes held for {text_len}");
    }
}

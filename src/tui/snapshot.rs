//! A file's text as the workbench last read or saved it, held compressed.
//!
//! The document keeps it for the rare moments that need it (a save splices
//! the edits into it, a reload or a recovery compares with it, an error
//! points into it) while the session itself is held parsed. Holding it as
//! plain text cost as much memory as the file; JSON sessions compress about
//! four to one, and lz4 reads a 3 MB session back in a few milliseconds.

use std::fmt;
use std::sync::Arc;

#[derive(Clone)]
pub struct Snapshot {
    compressed: Arc<[u8]>,
    len: usize,
}

impl Snapshot {
    pub fn new(text: &str) -> Snapshot {
        Snapshot {
            compressed: lz4_flex::block::compress(text.as_bytes()).into(),
            len: text.len(),
        }
    }

    /// The text, read back.
    pub fn text(&self) -> Arc<str> {
        // Both were made from a `&str` by `new`: neither step can fail
        // short of memory corruption.
        let bytes = lz4_flex::block::decompress(&self.compressed, self.len)
            .expect("a snapshot decompresses to what it was made from");
        String::from_utf8(bytes)
            .expect("a snapshot was made from UTF-8 text")
            .into()
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether this is the text `text`.
    pub fn is(&self, text: &str) -> bool {
        self.len == text.len() && *self.text() == *text
    }
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.len == other.len
            && (self.compressed == other.compressed || self.text() == other.text())
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Snapshot({} bytes in {})",
            self.len,
            self.compressed.len()
        )
    }
}

impl From<&str> for Snapshot {
    fn from(text: &str) -> Snapshot {
        Snapshot::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back_exactly_and_smaller() {
        let text: String = (0..2_000)
            .map(|i| format!("  {{\"role\": \"user\", \"content\": \"message {i} — ünïcode\"}},\n"))
            .collect();
        let s = Snapshot::new(&text);
        assert_eq!(&*s.text(), text.as_str());
        assert_eq!(s.len(), text.len());
        assert!(
            s.compressed.len() * 3 < text.len(),
            "{} bytes held for {}",
            s.compressed.len(),
            text.len()
        );
        assert!(s.is(&text));
        assert!(!s.is(&text[1..]));
        assert!(!s.is(&text.replace("message 7 ", "message 8 ")));
        assert_eq!(s, Snapshot::new(&text));
        assert_ne!(s, Snapshot::new(&text.replace("user", "resu")));
        assert!(Snapshot::new("").is(""));
        assert!(Snapshot::new("").is_empty());
    }
}

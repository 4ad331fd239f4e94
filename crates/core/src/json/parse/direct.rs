//! A message read straight into its packed bytes. The tree path builds a
//! `serde_json::Value` (an ordered map per object, its keys hashed, a
//! string allocated per key and text), rewrites its numbers, packs it and
//! frees it: at 100,000 messages that was most of reading a session. Here
//! the same grammar writes the packed bytes as it reads, so each message
//! is one allocation. A key repeated in one object sends a message back
//! to the tree path, which keeps the last value where the first stood and
//! reports the key, as Python's `json` does; so does an object of more
//! than [`MAX_KEYS`] members, whose keys a map checks faster than a scan.

use super::super::packed::Writer;
use super::{NumberText, Parse, Parser};
use std::ops::Range;

/// The most members an object read here may have (each new key is
/// compared with those before it).
const MAX_KEYS: usize = 64;

/// What a message is read with: the bytes so far, a decoded string's
/// buffer and each open object's keys (where they are in the bytes).
pub(super) struct Direct {
    rewrite: NumberText,
    writer: Writer,
    text: String,
    keys: Vec<Range<usize>>,
}

impl Direct {
    pub(super) fn new(rewrite: NumberText) -> Direct {
        Direct {
            rewrite,
            writer: Writer::new(),
            text: String::new(),
            keys: Vec::new(),
        }
    }
}

impl Parser<'_> {
    /// The value here, packed as the tree path packs it after rewriting its
    /// numbers; `None` when an object repeats a key or has more than
    /// [`MAX_KEYS`] members, with the parser back where it was (the tree
    /// path then reads that value).
    pub(super) fn pack_direct(
        &mut self,
        direct: &mut Direct,
    ) -> Parse<Option<super::super::Packed>> {
        let (start, depth, surrogates) = (self.pos, self.depth, self.lone_surrogates.len());
        direct.writer.reset();
        direct.keys.clear();
        if self.direct_value(direct)? {
            return Ok(Some(direct.writer.packed()));
        }
        self.pos = start;
        self.depth = depth;
        self.lone_surrogates.truncate(surrogates);
        Ok(None)
    }

    /// False when the tree path must read the value (see `pack_direct`).
    fn direct_value(&mut self, direct: &mut Direct) -> Parse<bool> {
        match self.peek() {
            Some(b'{') => self.direct_object(direct),
            Some(b'[') => self.direct_array(direct),
            Some(b'"') => {
                direct.text.clear();
                self.string_into(&mut direct.text)?;
                direct.writer.string(&direct.text);
                Ok(true)
            }
            // Scalars own no allocation but a number's text: the tree
            // path's own reading, and its rewrite.
            _ => {
                let (value, _) = self.value()?;
                match value.as_number().and_then(|n| (direct.rewrite)(n.as_str())) {
                    Some(text) => direct.writer.number(&text),
                    None => direct.writer.scalar(&value),
                }
                Ok(true)
            }
        }
    }

    fn direct_array(&mut self, direct: &mut Direct) -> Parse<bool> {
        self.enter()?;
        self.pos += 1; // [
        let at = direct.writer.open(false);
        let mut n = 0;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                if !self.direct_value(direct)? {
                    return Ok(false);
                }
                n += 1;
                if self.next_or_end(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        direct.writer.close(at, n);
        Ok(true)
    }

    fn direct_object(&mut self, direct: &mut Direct) -> Parse<bool> {
        self.enter()?;
        self.pos += 1; // {
        let at = direct.writer.open(true);
        let first_key = direct.keys.len();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                direct.text.clear();
                self.key_into(&mut direct.text)?;
                let key = direct.writer.key(&direct.text);
                let written = direct.writer.written(key.clone());
                let before = &direct.keys[first_key..];
                if before.len() == MAX_KEYS
                    || before
                        .iter()
                        .any(|k| direct.writer.written(k.clone()) == written)
                {
                    return Ok(false);
                }
                direct.keys.push(key);
                if !self.direct_value(direct)? {
                    return Ok(false);
                }
                if self.next_or_end(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        let n = direct.keys.len() - first_key;
        direct.keys.truncate(first_key);
        direct.writer.close(at, n);
        Ok(true)
    }
}

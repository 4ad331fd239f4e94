//! Text from a session shown to a person. A speaker's name, a model name or
//! a URL can hold terminal control sequences (ESC sequences that move the
//! cursor or rewrite the screen, OSC 52 clipboard writes, BEL) or a newline
//! that forges a table row; every human-readable output goes through
//! [`escape_control`] first. JSON escapes C0 controls itself but writes
//! C1 controls (U+0080–U+009F: U+009B is CSI, a whole escape sequence in
//! one character), DEL and the bidirectional overrides raw: JSON printed
//! to a terminal goes through [`SafeJson`], which writes them as `\uXXXX`
//! (the same JSON value).

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls, DEL,
/// and the Unicode bidirectional controls (which reorder what is shown).
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character written as an escape: `\n`, `\t`,
/// `\r`, `\e` (ESC), `\x07`, `\u{202e}`. Text without one is returned as is.
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x1b' => out.push_str("\\e"),
            c if is_unsafe(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A combining mark with no character before it to combine with (at the
/// start, or after a space or a control): a terminal draws it over
/// whatever stands there, or not at all.
fn is_lone_mark(prev: Option<char>, c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
        && prev.is_none_or(|p| p.is_whitespace() || is_unsafe(p))
}

/// One line of text as a person should see it: controls as escapes
/// ([`escape_control`]: a tab is `\t`, ESC `\e`, BEL `\x07`) and a dotted
/// circle `◌` before a combining mark that has nothing to combine with.
/// For display only: the text itself is never changed.
pub fn visible(s: &str) -> Cow<'_, str> {
    let mut prev = None;
    let lone = s.chars().any(|c| {
        let lone = is_lone_mark(prev, c);
        prev = Some(c);
        lone
    });
    if !lone {
        return escape_control(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = None;
    for c in s.chars() {
        if is_lone_mark(prev, c) {
            out.push('\u{25cc}');
        }
        let mut buf = [0u8; 4];
        out.push_str(&escape_control(c.encode_utf8(&mut buf)));
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// `s`'s lines as [`visible`] shows them: split at newlines only, so a
/// `\r`, a tab, ESC or BEL is shown where it stands instead of being
/// dropped or obeyed by the terminal (as the JSON view escapes them).
pub fn visible_lines(s: &str) -> impl Iterator<Item = Cow<'_, str>> {
    s.strip_suffix('\n').unwrap_or(s).split('\n').map(visible)
}

/// The first character of `s` a plain text editor would hide or drop (a
/// control other than the newline, or a lone combining mark), as
/// [`visible`] writes it.
pub fn first_hidden(s: &str) -> Option<String> {
    let mut prev = None;
    for c in s.chars() {
        if (c != '\n' && is_unsafe(c)) || is_lone_mark(prev, c) {
            return Some(if is_unsafe(c) {
                let mut buf = [0u8; 4];
                escape_control(c.encode_utf8(&mut buf)).into_owned()
            } else {
                format!(
                    "\u{25cc}{c} (U+{:04X}, a combining mark on its own)",
                    c as u32
                )
            });
        }
        prev = Some(c);
    }
    None
}

/// Whether JSON writes `c` raw although it must not reach a terminal so.
fn json_leaves_raw(c: char) -> bool {
    is_unsafe(c) && c >= '\u{7f}'
}

/// `text` (JSON text, or a piece of a JSON string) with the characters JSON
/// leaves raw written as `\uXXXX`. They can only stand inside strings, so
/// the result is the same JSON value.
pub fn escape_json_controls(text: &str) -> Cow<'_, str> {
    // Every such character's UTF-8 holds DEL or the lead byte 0xC2 (the C1
    // controls) or 0xE2 (the marks and isolates from U+200E): without them,
    // a scan at memory speed says so (read a character at a time, Chinese
    // text cost 2% of `format --count`'s instructions).
    if memchr::memchr3(0x7f, 0xc2, 0xe2, text.as_bytes()).is_none()
        || !text.chars().any(json_leaves_raw)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 12);
    for c in text.chars() {
        if json_leaves_raw(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// serde_json's pretty formatter (two spaces an indent), but every string
/// fragment goes through [`escape_json_controls`]: command output that is
/// JSON stays safe to print, streamed without a second copy of the text.
/// Written out rather than wrapped so it can start at a depth: an item of
/// a long list is written in place, indented as the list's item, not
/// written alone and then copied a line at a time to indent it (6% of
/// `format --count`'s instructions at 25,000 messages).
#[derive(Default)]
pub struct SafeJson {
    depth: usize,
    has_value: bool,
}

impl SafeJson {
    /// Writing a value that stands at `depth` (its lines after the first
    /// indented `depth` levels more than it).
    fn at(depth: usize) -> SafeJson {
        SafeJson {
            depth,
            has_value: false,
        }
    }
}

fn indent<W: ?Sized + std::io::Write>(w: &mut W, depth: usize) -> std::io::Result<()> {
    for _ in 0..depth {
        w.write_all(INDENT)?;
    }
    Ok(())
}

impl SafeJson {
    /// An array or object opens: one level deeper, nothing in it yet.
    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, mark: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(mark)
    }

    /// It closes: on a line of its own at its depth, unless it was empty.
    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, mark: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.depth)?;
        }
        w.write_all(mark)
    }

    /// An item or a member begins, on a line of its own.
    fn item<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.depth)
    }
}

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        writer.write_all(escape_json_controls(fragment).as_bytes())
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` as pretty JSON into `writer`, safe for a terminal ([`SafeJson`]).
pub fn write_json<W: std::io::Write, T: serde::Serialize + ?Sized>(
    writer: W,
    value: &T,
) -> serde_json::Result<()> {
    write_json_at(writer, value, 0)
}

/// [`write_json`] of a value standing at `depth`.
fn write_json_at<W: std::io::Write, T: serde::Serialize + ?Sized>(
    writer: W,
    value: &T,
    depth: usize,
) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(writer, SafeJson::at(depth));
    value.serialize(&mut ser)
}

/// [`write_json`] of a JSON value, its long lists (a request's messages)
/// written on every core: each item is written alone, starting at its
/// depth, which is what the pretty formatter writes for it in place, so the
/// bytes are the same.
pub fn write_json_value<W: std::io::Write>(
    mut writer: W,
    value: &serde_json::Value,
) -> std::io::Result<()> {
    write_at(&mut writer, value, 0)
}

const INDENT: &[u8] = b"  ";

fn write_at<W: std::io::Write>(
    w: &mut W,
    value: &serde_json::Value,
    depth: usize,
) -> std::io::Result<()> {
    use serde_json::Value;
    let long =
        |v: &Value| matches!(v, Value::Array(items) if items.len() >= crate::parallel::MIN_ITEMS);
    match value {
        Value::Array(items) if long(value) => {
            w.write_all(b"[")?;
            // A batch at a time: the text of a few thousand items is held,
            // never the whole list's.
            for (b, batch) in items.chunks(4_096).enumerate() {
                let pieces = crate::parallel::chunks(batch, |chunk| {
                    let mut out = Vec::new();
                    for (k, item) in chunk.iter().enumerate() {
                        if k > 0 {
                            out.push(b',');
                        }
                        out.push(b'\n');
                        // Into memory: nothing to fail but a value's own
                        // `Serialize`, which a JSON value's never does.
                        let _ = indent(&mut out, depth + 1);
                        let _ = write_json_at(&mut out, item, depth + 1);
                    }
                    out
                });
                for (k, piece) in pieces.iter().enumerate() {
                    if b > 0 || k > 0 {
                        w.write_all(b",")?;
                    }
                    w.write_all(piece)?;
                }
            }
            w.write_all(b"\n")?;
            indent(w, depth)?;
            w.write_all(b"]")
        }
        Value::Object(map) if !map.is_empty() && map.values().any(long) => {
            w.write_all(b"{")?;
            for (k, (key, item)) in map.iter().enumerate() {
                w.write_all(if k > 0 { b",\n" } else { b"\n" })?;
                indent(w, depth + 1)?;
                w.write_all(json_text(key).as_bytes())?;
                w.write_all(b": ")?;
                write_at(w, item, depth + 1)?;
            }
            w.write_all(b"\n")?;
            indent(w, depth)?;
            w.write_all(b"}")
        }
        _ => write_json_at(w, value, depth).map_err(std::io::Error::from),
    }
}

/// `value` as pretty JSON text, safe for a terminal ([`SafeJson`]).
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let _ = write_json(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

/// `value` as one line of JSON (JSON lines: `send --json`, `history
/// --json`), safe for a terminal as [`json_text`] is: the controls JSON
/// leaves raw written as `\uXXXX` by [`escape_json_controls`].
pub fn json_line<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    escape_json_controls(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_written_on_every_core_are_the_bytes_written_on_one() {
        use serde_json::json;
        let item = |i: usize| match i % 4 {
            0 => {
                json!({"role": "user", "content": [{"type": "text", "text": format!("a\nb\u{9b} {i}")}]})
            }
            1 => json!([]),
            2 => json!({}),
            _ => json!({"nested": [1, 2, {"deep": [i]}], "s": "\u{202e}"}),
        };
        let list: Vec<serde_json::Value> = (0..9_000).map(item).collect();
        for value in [
            json!({"messages": list, "count": 5, "empty": {}, "more": [list.clone(), []]}),
            json!([list.clone(), {"inner": list.clone()}]),
            serde_json::Value::Array(list.clone()),
            json!({"small": [1, 2], "n": null}),
            json!("plain"),
            json!({}),
        ] {
            let mut one = Vec::new();
            write_json(&mut one, &value).expect("writes");
            let mut every = Vec::new();
            write_json_value(&mut every, &value).expect("writes");
            assert_eq!(
                String::from_utf8_lossy(&every),
                String::from_utf8_lossy(&one)
            );
        }
    }

    /// The bytes [`escape_json_controls`] looks for first are in every
    /// character it escapes.
    #[test]
    fn every_character_json_leaves_raw_holds_a_byte_looked_for() {
        let mut raw = 0;
        for c in (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|c| json_leaves_raw(*c))
        {
            raw += 1;
            let mut buf = [0; 4];
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            assert!(memchr::memchr3(0x7f, 0xc2, 0xe2, bytes).is_some(), "{c:?}");
            assert_eq!(
                escape_json_controls(&format!("中{c}")),
                format!("中\\u{:04x}", c as u32)
            );
        }
        assert!(raw > 40, "{raw}");
    }

    #[test]
    fn controls_become_visible_escapes() {
        assert!(matches!(escape_control("Bob é 中"), Cow::Borrowed(_)));
        assert_eq!(
            escape_control("a\x1b]52;c;ZXZpbA==\x07b\nc\u{9b}2J\u{202e}"),
            "a\\e]52;c;ZXZpbA==\\x07b\\nc\\x9b2J\\u{202e}"
        );
        assert_eq!(escape_control("\x7f\t\r"), "\\x7f\\t\\r");
    }

    #[test]
    fn text_shows_tabs_escapes_bel_and_lone_combining_marks() {
        assert_eq!(visible("a\tb\x1b[2J\x07"), "a\\tb\\e[2J\\x07");
        // A mark after a letter combines; at the start or after a space it
        // gets a dotted circle to stand on.
        assert!(matches!(visible("e\u{301}"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{301}x \u{301}"),
            "\u{25cc}\u{301}x \u{25cc}\u{301}"
        );
        assert_eq!(first_hidden("ok\nfine é"), None);
        assert_eq!(first_hidden("a\tb").as_deref(), Some("\\t"));
        assert!(first_hidden("\u{301}").is_some_and(|h| h.contains("U+0301")));
    }

    #[test]
    fn json_for_a_terminal_escapes_what_json_leaves_raw_and_keeps_the_value() {
        let value =
            serde_json::json!({"name": "a\u{9b}2J\u{202e}b\u{7f}", "n": [1, 2.50], "é": "中\n"});
        let text = json_text(&value);
        assert!(text.contains("a\\u009b2J\\u202eb\\u007f"), "{text}");
        assert!(!text.chars().any(json_leaves_raw), "{text}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).ok(),
            Some(value.clone())
        );
        // Otherwise the same text as serde_json's pretty printer.
        for plain in [
            serde_json::json!({"é": "中\n", "n": [1, {"a": []}]}),
            serde_json::json!([[], {}, [[1], {"b": {}}], null, "x"]),
            serde_json::json!({"a": {"b": {"c": [true, false, 1.5]}}, "d": []}),
            serde_json::json!([]),
            serde_json::json!({}),
            serde_json::json!(7),
        ] {
            assert_eq!(
                json_text(&plain),
                serde_json::to_string_pretty(&plain).unwrap_or_default()
            );
        }
    }
}

/// `n` with a comma every three digits (`91,650`), for counts in messages.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// [`thousands`] of a signed count (`-12,345`).
pub fn thousands_signed(n: i64) -> String {
    let digits = thousands(n.unsigned_abs());
    if n < 0 {
        format!("-{digits}")
    } else {
        digits
    }
}

/// `one` for a count of one, else `many`: "1 note", "2 notes", "0 notes".
pub fn plural<'a>(n: i64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A count and its noun, the count with separators: `1 note`,
/// `12,345 tokens`.
pub fn count_of(n: i64, one: &str, many: &str) -> String {
    format!("{} {}", thousands_signed(n), plural(n, one, many))
}

#[cfg(test)]
mod thousands_tests {
    #[test]
    fn groups_of_three() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(91_650), "91,650");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
        assert_eq!(super::thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn signed_counts_and_nouns() {
        assert_eq!(super::thousands_signed(-1_234), "-1,234");
        assert_eq!(super::thousands_signed(-12), "-12");
        assert_eq!(
            super::thousands_signed(i64::MIN),
            "-9,223,372,036,854,775,808"
        );
        assert_eq!(super::count_of(1, "note", "notes"), "1 note");
        assert_eq!(super::count_of(0, "note", "notes"), "0 notes");
        assert_eq!(super::count_of(20_000, "token", "tokens"), "20,000 tokens");
        assert_eq!(super::count_of(-1, "step", "steps"), "-1 steps");
    }
}

//! Pretty JSON written straight into [`Lines`], byte for byte as
//! serde_json's `to_writer_pretty` prints it (two spaces a level, `": "`
//! after a key, `[]` and `{}` when empty, its string escapes).
//!
//! Why by hand: serde_json escapes a string a byte at a time and hands the
//! result to an `io::Write`, whose bytes a line writer had to check as
//! UTF-8 again before it could keep them as text. A one-group session of
//! 100,000 messages is one string of 18 MB: printing it so was a quarter
//! of an edit's time to the request pane's new lines. Here a string's
//! bytes are searched a block at a time for the few that need an escape,
//! and the runs between are copied whole, as the `str` slices they are.

use super::Lines;
use formatscope_core::compare::media_label;
use formatscope_core::json::{Json, Kind};

/// How a request's long media strings are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// Whole.
    Raw,
    /// As the label the compare views show (`<image/png 34 KB>`).
    Short,
}

/// How many bytes are printed between two asks whether to stop (a
/// millisecond or less of printing).
pub const STOP_EVERY: usize = 1 << 20;

/// The printing was cut short.
pub(super) struct Stopped;

pub(super) struct Printer<'a> {
    pub(super) lines: &'a mut Lines,
    /// Put before every line.
    pub(super) indent: &'a str,
    pub(super) media: Media,
    pub(super) stop: &'a dyn Fn() -> bool,
    /// The text's length when `stop` was last asked.
    pub(super) asked_at: usize,
}

impl Printer<'_> {
    /// `value` at nesting `level`, on the line begun.
    pub(super) fn value<'a, J: Json<'a>>(&mut self, value: J, level: usize) -> Result<(), Stopped> {
        match value.kind() {
            Kind::Scalar(text) => self.lines.text.push_str(text),
            Kind::String(s) => match self.media {
                Media::Short => match media_label(s) {
                    Some(label) => self.string(&label)?,
                    None => self.string(s)?,
                },
                Media::Raw => self.string(s)?,
            },
            Kind::Array(items) if items.len() == 0 => self.lines.text.push_str("[]"),
            Kind::Object(members) if members.len() == 0 => self.lines.text.push_str("{}"),
            Kind::Array(items) => {
                self.lines.text.push('[');
                for (i, item) in items.enumerate() {
                    if i > 0 {
                        self.lines.text.push(',');
                    }
                    self.next_line(level + 1);
                    self.value(item, level + 1)?;
                }
                self.next_line(level);
                self.lines.text.push(']');
            }
            Kind::Object(members) => {
                self.lines.text.push('{');
                for (i, (key, item)) in members.enumerate() {
                    if i > 0 {
                        self.lines.text.push(',');
                    }
                    self.next_line(level + 1);
                    self.string(key)?;
                    self.lines.text.push_str(": ");
                    self.value(item, level + 1)?;
                }
                self.next_line(level);
                self.lines.text.push('}');
            }
        }
        self.ask()
    }

    /// Ends the line and begins the next at nesting `level`.
    fn next_line(&mut self, level: usize) {
        self.lines.ends.push(self.lines.text_len());
        self.lines.text.push_str(self.indent);
        for _ in 0..level {
            self.lines.text.push_str("  ");
        }
    }

    /// `s` quoted and escaped as serde_json escapes it: `"`, `\` and the
    /// control characters below U+0020 (`\n`, `\t` and the like by name,
    /// the rest as `\u00xx`); everything else as it is.
    fn string(&mut self, s: &str) -> Result<(), Stopped> {
        // Room for a few escapes too: growing the text past its room in
        // the middle of an 18 MB string had copied all of it again.
        self.lines.text.reserve(s.len() + s.len() / 32 + 2);
        self.lines.text.push('"');
        let mut rest = s;
        while let Some(at) = first_to_escape(rest.as_bytes()) {
            self.lines.text.push_str(&rest[..at]);
            push_escape(&mut self.lines.text, rest.as_bytes()[at]);
            // The byte escaped is ASCII: the rest starts on a character.
            rest = &rest[at + 1..];
            self.ask()?;
        }
        self.lines.text.push_str(rest);
        self.lines.text.push('"');
        Ok(())
    }

    /// Asks whether to stop, once [`STOP_EVERY`] bytes were printed since
    /// it last asked.
    fn ask(&mut self) -> Result<(), Stopped> {
        let printed = self.lines.text.len();
        if printed - self.asked_at < STOP_EVERY {
            return Ok(());
        }
        self.asked_at = printed;
        if (self.stop)() {
            return Err(Stopped);
        }
        Ok(())
    }
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Where the first byte that needs an escape is: 32 bytes are looked at
/// together (the compiler makes it a few vector instructions), most
/// blocks of text hold none.
fn first_to_escape(bytes: &[u8]) -> Option<usize> {
    const BLOCK: usize = 32;
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut at = 0;
    for block in &mut blocks {
        if block.iter().fold(false, |any, &b| any | needs_escape(b)) {
            return block.iter().position(|&b| needs_escape(b)).map(|p| at + p);
        }
        at += BLOCK;
    }
    let rest = blocks.remainder();
    rest.iter().position(|&b| needs_escape(b)).map(|p| at + p)
}

/// serde_json's escape of `b` (one of [`needs_escape`]'s).
fn push_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        _ => {
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn printed(value: &Value, media: Media) -> Vec<String> {
        let mut lines = Lines::new();
        lines.push("[");
        assert!(lines.push_pretty(value, media, "  ", &|| false));
        lines.to_vec()
    }

    /// The same, printed from the value packed, read in place.
    fn printed_packed(value: &Value, media: Media) -> Vec<String> {
        let packed = formatscope_core::json::Packed::pack_one(value);
        let view = packed.view_one().expect("one value");
        let mut lines = Lines::new();
        lines.push("[");
        assert!(lines.push_pretty(view, media, "  ", &|| false));
        lines.to_vec()
    }

    fn serde_printed(value: &Value) -> Vec<String> {
        let text = serde_json::to_string_pretty(value).expect("prints");
        std::iter::once("[".to_string())
            .chain(text.split('\n').map(|l| format!("  {l}")))
            .collect()
    }

    #[test]
    fn every_escape_and_layout_is_serde_jsons() {
        let every_byte: String = (0u8..0x80).map(char::from).collect();
        let value = json!([
            {"role": "user", "content": "line one\nline two\r\n\u{1}\ttab, 中文 \"quoted\" \\ /"},
            {"n": 1.50, "big": 123456789012345678901234567890u128, "neg": -0.0, "e": 1e300},
            {"empty": [], "map": {}, "nested": [[{"deep": null, "t": true, "f": false}]]},
            every_byte,
            "\u{7f}\u{80}\u{2028}\u{1F600}",
        ]);
        assert_eq!(printed(&value, Media::Raw), serde_printed(&value));
        assert_eq!(printed_packed(&value, Media::Raw), serde_printed(&value));
    }

    #[test]
    fn short_media_prints_as_the_shortened_copy() {
        let png = format!("data:image/png;base64,{}", "iVBORw0KGgo".repeat(40));
        let long_text = "Not base64 at all, with spaces: ".repeat(10);
        let v = json!([{
            "role": "user",
            "content": [
                {"type": "text", "text": long_text},
                {"type": "image_url", "image_url": {"url": png}},
                {"data": "QUJD".repeat(80), "n": 1.50, "ok": true, "none": null},
            ],
        }]);
        let shortened = formatscope_core::compare::shorten_media(&v);
        let lines = printed(&v, Media::Short);
        assert_eq!(lines, serde_printed(&shortened));
        assert_eq!(printed_packed(&v, Media::Short), lines);
        assert!(lines.iter().any(|l| l.contains("<image/png")));
        assert!(lines.iter().any(|l| l.contains(&long_text)));
    }

    #[test]
    fn a_long_string_is_cut_short_when_asked_and_leaves_the_lines_as_they_were() {
        let big = json!({"text": "word\n\"quoted\" ".repeat(STOP_EVERY / 4)});
        let asked = std::cell::Cell::new(0);
        let mut lines = Lines::new();
        lines.push("before");
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() > 2
        };
        assert!(!lines.push_pretty(&big, Media::Raw, "  ", &stop));
        assert_eq!(asked.get(), 3, "asked within the string");
        assert_eq!(lines.to_vec(), ["before"]);
        assert_eq!(lines.bytes(), "before".len());
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".*".prop_map(Value::String),
            "[\\x00-\\x7f]{0,80}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[\\x00-\\x7f]{0,8}|.{0,4}", inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_prints_as_serde_json_prints_it(value in any_json()) {
            let expected = serde_printed(&value);
            prop_assert_eq!(printed(&value, Media::Raw), expected.clone());
            prop_assert_eq!(printed_packed(&value, Media::Raw), expected);
        }
    }
}

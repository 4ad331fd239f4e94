//! A one-pass JSON parser into `serde_json::Value`, with spans and
//! duplicate keys. Error messages use serde_json's words (users and the
//! README already know them) with the position as `line:column`.

use super::{line_col, pointer_token, DuplicateKey, Member, Node, NodeKind, NumberText, Packed};
use serde_json::{Map, Number, Value};
use std::ops::Range;

mod direct;
mod every_core;

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Build the span tree (`Parsed::tree`).
    pub spans: bool,
    /// Pack the messages as they are read: the items of a top-level array,
    /// or of the top-level object's `"messages"` array, their numbers'
    /// text rewritten by this function, packed into `Parsed::packed` (the
    /// array is left empty in `value`). A large session is then never a
    /// whole tree: a long list's messages are packed straight from the
    /// text, and the others are a tree only until they are packed.
    pub pack_messages: Option<NumberText>,
}

impl Options {
    /// Only the span tree (what saving and diffing need).
    pub fn with_spans() -> Options {
        Options {
            spans: true,
            pack_messages: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Value,
    pub tree: Option<Node>,
    /// Keys repeated in one object, in file order.
    pub duplicates: Vec<DuplicateKey>,
    /// Byte offsets of `\uXXXX` escapes of lone surrogates, which Python's
    /// `json` accepts and keeps but no UTF-8 text can hold: each is read as
    /// U+FFFD.
    pub lone_surrogates: Vec<usize>,
    /// With `Options::pack_messages`: the messages array's items, packed
    /// (the last such array, as the last of duplicate keys wins).
    pub packed: Option<Vec<Packed>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct SyntaxError {
    /// Byte offset of the problem.
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// As deep as serde_json lets a document nest: deeper input is an error,
/// never a stack overflow.
const MAX_DEPTH: usize = 128;

/// Parses one JSON document (surrounding whitespace allowed).
pub fn parse(bytes: &[u8], options: Options) -> Result<Parsed, SyntaxError> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(error_at(
            bytes,
            0,
            "the file starts with a UTF-8 byte-order mark (U+FEFF), which JSON does not allow; \
             save it as UTF-8 without a BOM"
                .into(),
        ));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.valid_up_to();
            return Err(error_at(
                bytes,
                at,
                format!(
                    "invalid UTF-8 (byte 0x{:02x}); a session file must be UTF-8 text",
                    bytes[at]
                ),
            ));
        }
    };
    let mut parser = Parser::new(text, bytes, 0);
    parser.spans = options.spans;
    parser.pack = options.pack_messages;
    parser.skip_ws();
    let (value, tree) = parser.value()?;
    parser.skip_ws();
    if parser.pos < bytes.len() {
        return Err(parser.err("trailing characters"));
    }
    Ok(Parsed {
        value,
        tree,
        duplicates: parser.duplicates,
        lone_surrogates: parser.lone_surrogates,
        packed: parser.packed,
    })
}

fn error_at(bytes: &[u8], offset: usize, message: String) -> SyntaxError {
    let (line, column) = line_col(bytes, offset);
    SyntaxError {
        offset,
        line,
        column,
        message,
    }
}

/// Where the parser is, for the pointer of a duplicate key.
#[derive(Clone)]
enum PathStep {
    /// A member's key, as its span in the text (decoded only when needed).
    Key(Range<usize>),
    Index(usize),
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    spans: bool,
    pack: Option<NumberText>,
    depth: usize,
    path: Vec<PathStep>,
    duplicates: Vec<DuplicateKey>,
    lone_surrogates: Vec<usize>,
    packed: Option<Vec<Packed>>,
}

type Parse<T> = Result<T, SyntaxError>;

impl<'a> Parser<'a> {
    /// A parser at `pos` of `text` (`bytes` is the same text): no spans,
    /// nothing packed, at the top level.
    fn new(text: &'a str, bytes: &'a [u8], pos: usize) -> Parser<'a> {
        Parser {
            text,
            bytes,
            pos,
            spans: false,
            pack: None,
            depth: 0,
            path: Vec::new(),
            duplicates: Vec::new(),
            lone_surrogates: Vec::new(),
            packed: None,
        }
    }

    fn err(&self, message: &str) -> SyntaxError {
        error_at(self.bytes, self.pos, message.to_string())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn node(&self, start: usize, kind: NodeKind) -> Option<Node> {
        self.spans.then_some(Node {
            span: start..self.pos,
            kind,
        })
    }

    fn value(&mut self) -> Parse<(Value, Option<Node>)> {
        let start = self.pos;
        let value = match self.peek() {
            None => return Err(self.err("EOF while parsing a value")),
            Some(b'{') => return self.object(),
            Some(b'[') => return self.array(),
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.ident("true", Value::Bool(true))?,
            Some(b'f') => self.ident("false", Value::Bool(false))?,
            Some(b'n') => self.ident("null", Value::Null)?,
            // Python's `json` reads these three (JSON itself does not).
            Some(b'N') => self.ident("NaN", Value::Number(number_from_text("NaN")))?,
            Some(b'I') => self.ident("Infinity", Value::Number(number_from_text("Infinity")))?,
            Some(b'-') if self.bytes.get(self.pos + 1) == Some(&b'I') => {
                self.pos += 1;
                self.ident("Infinity", Value::Number(number_from_text("-Infinity")))?
            }
            Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
            Some(_) => return Err(self.err("expected value")),
        };
        Ok((value, self.node(start, NodeKind::Scalar)))
    }

    fn ident(&mut self, word: &str, value: Value) -> Parse<Value> {
        for expected in word.bytes() {
            match self.peek() {
                None => return Err(self.err("EOF while parsing a value")),
                Some(b) if b == expected => self.pos += 1,
                Some(_) => return Err(self.err("expected ident")),
            }
        }
        Ok(value)
    }

    fn enter(&mut self) -> Parse<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("recursion limit exceeded"));
        }
        Ok(())
    }

    fn array(&mut self) -> Parse<(Value, Option<Node>)> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1; // [
        let mut items = Vec::new();
        let mut nodes = Vec::new();
        let pack = self.pack.filter(|_| self.at_messages());
        if let Some(rewrite) = pack.filter(|_| !self.spans) {
            if let Some(packed) = self.pack_on_every_core(rewrite) {
                self.depth -= 1;
                self.packed = Some(packed);
                return Ok((Value::Array(Vec::new()), None));
            }
        }
        let mut packed = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                // Packed items are not in `items`: count both.
                self.path.push(PathStep::Index(items.len() + packed.len()));
                let (v, n) = self.value()?;
                self.path.pop();
                match pack {
                    Some(rewrite) => packed.push(pack_tree(v, rewrite)),
                    None => items.push(v),
                }
                nodes.extend(n);
                if self.next_or_end(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        if pack.is_some() {
            packed.shrink_to_fit();
            self.packed = Some(packed);
        }
        // Growth leaves up to half a list unused; a session is held for
        // as long as it is open, so it keeps only what it holds.
        items.shrink_to_fit();
        Ok((
            Value::Array(items),
            self.node(start, NodeKind::Array(nodes)),
        ))
    }

    fn object(&mut self) -> Parse<(Value, Option<Node>)> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1; // {
        let mut map = Map::new();
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let mut key = String::new();
                let key_span = self.key_into(&mut key)?;
                self.path.push(PathStep::Key(key_span.clone()));
                let (v, n) = self.value()?;
                self.path.pop();
                if let Some(n) = n {
                    members.push(Member {
                        key: key.clone(),
                        key_span: key_span.clone(),
                        value: n,
                    });
                }
                if map.insert(key.clone(), v).is_some() {
                    self.duplicates.push(DuplicateKey {
                        key,
                        offset: key_span.start,
                        pointer: self.pointer(),
                    });
                }
                if self.next_or_end(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        // The same for a map (serde_json's cannot shrink): its entries
        // move into one of exactly their number.
        let mut exact = Map::with_capacity(map.len());
        exact.extend(map);
        Ok((
            Value::Object(exact),
            self.node(start, NodeKind::Object(members)),
        ))
    }

    /// An object's key and the `:` after it, decoded onto `out`: the key's
    /// bytes (quotes included); the parser is then at the value.
    fn key_into(&mut self, out: &mut String) -> Parse<Range<usize>> {
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.err("EOF while parsing an object")),
            Some(_) => return Err(self.err("key must be a string")),
        }
        let start = self.pos;
        self.string_into(out)?;
        let span = start..self.pos;
        self.skip_ws();
        match self.peek() {
            Some(b':') => self.pos += 1,
            None => return Err(self.err("EOF while parsing an object")),
            Some(_) => return Err(self.err("expected `:`")),
        }
        self.skip_ws();
        Ok(span)
    }

    /// After an item of a list (`close` is `]`) or a member of an object
    /// (`}`): past the `,`, or past `close`, which ends it (`true`). JSON
    /// has no trailing comma.
    fn next_or_end(&mut self, close: u8) -> Parse<bool> {
        let list = close == b']';
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some(close) {
                    return Err(self.err("trailing comma"));
                }
                Ok(false)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(true)
            }
            None if list => Err(self.err("EOF while parsing a list")),
            None => Err(self.err("EOF while parsing an object")),
            Some(_) if list => Err(self.err("expected `,` or `]`")),
            Some(_) => Err(self.err("expected `,` or `}`")),
        }
    }

    /// The array just entered is a session's messages: the top level, or
    /// the top-level object's `"messages"` (its key written plainly).
    fn at_messages(&self) -> bool {
        match (self.depth, self.path.as_slice()) {
            (1, []) => true,
            (2, [PathStep::Key(key)]) => &self.text[key.clone()] == "\"messages\"",
            _ => false,
        }
    }

    /// The JSON pointer of the container being parsed.
    fn pointer(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            out.push('/');
            match step {
                PathStep::Index(i) => out.push_str(&i.to_string()),
                PathStep::Key(span) => {
                    // Already parsed once, so it decodes.
                    let key = Parser::new(self.text, self.bytes, span.start)
                        .string()
                        .unwrap_or_default();
                    out.push_str(&pointer_token(&key));
                }
            }
        }
        out
    }

    fn string(&mut self) -> Parse<String> {
        let mut out = String::new();
        self.string_into(&mut out)?;
        // Escapes grew it piecewise: keep only what it holds.
        out.shrink_to_fit();
        Ok(out)
    }

    /// The string that starts here, decoded onto the end of `out`.
    fn string_into(&mut self, out: &mut String) -> Parse<()> {
        self.pos += 1; // "
        loop {
            // Up to the next quote or backslash at once; no control
            // character may come before it.
            let rest = &self.bytes[self.pos..];
            let Some(n) = memchr::memchr2(b'"', b'\\', rest) else {
                return Err(self.control_before(rest.len()).unwrap_or_else(|| {
                    self.pos = self.bytes.len();
                    self.err("EOF while parsing a string")
                }));
            };
            if let Some(e) = self.control_before(n) {
                return Err(e);
            }
            out.push_str(&self.text[self.pos..self.pos + n]);
            self.pos += n + 1;
            if rest[n] == b'"' {
                return Ok(());
            }
            self.escape(out)?;
        }
    }

    /// The error at the first control character of the next `n` bytes.
    fn control_before(&mut self, n: usize) -> Option<SyntaxError> {
        let run = &self.bytes[self.pos..self.pos + n];
        // Without an early exit the look at every byte is vectorised; the
        // position is sought only when there is one.
        if !run.iter().fold(false, |seen, b| seen | (*b < 0x20)) {
            return None;
        }
        let at = run.iter().position(|b| *b < 0x20)?;
        self.pos += at;
        Some(self.err("control character (\\u0000-\\u001F) found while parsing a string"))
    }

    fn escape(&mut self, out: &mut String) -> Parse<()> {
        let Some(b) = self.peek() else {
            return Err(self.err("EOF while parsing a string"));
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(out),
            _ => {
                self.pos -= 1;
                return Err(self.err("invalid escape"));
            }
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Parse<u16> {
        let mut n: u16 = 0;
        for _ in 0..4 {
            let Some(b) = self.peek() else {
                return Err(self.err("EOF while parsing a string"));
            };
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.err("invalid escape")),
            };
            n = n * 16 + digit as u16;
            self.pos += 1;
        }
        Ok(n)
    }

    /// After `\u`: a code point, a surrogate pair, or (as Python's `json`
    /// reads them) a lone surrogate, kept here as U+FFFD and reported.
    fn unicode_escape(&mut self, out: &mut String) -> Parse<()> {
        let escape_start = self.pos - 2;
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                let pair_start = self.pos;
                let second = if self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                    self.pos += 2;
                    Some(self.hex4()?)
                } else {
                    None
                };
                match second {
                    Some(low @ 0xDC00..=0xDFFF) => {
                        0x10000 + (((first as u32) - 0xD800) << 10) + ((low as u32) - 0xDC00)
                    }
                    _ => {
                        // Not a pair: the next escape, if any, stands alone.
                        self.pos = pair_start;
                        self.lone_surrogates.push(escape_start);
                        0xFFFD
                    }
                }
            }
            0xDC00..=0xDFFF => {
                self.lone_surrogates.push(escape_start);
                0xFFFD
            }
            n => n as u32,
        };
        match char::from_u32(code) {
            Some(c) => {
                out.push(c);
                Ok(())
            }
            None => Err(self.err("invalid unicode code point")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Parse<Number> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None => return Err(self.err("EOF while parsing a value")),
            Some(_) => return Err(self.err("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err(if self.peek().is_none() {
                    "EOF while parsing a value"
                } else {
                    "invalid number"
                }));
            }
        }
        Ok(number_from_text(&self.text[start..self.pos]))
    }
}

/// A message read as a tree, packed with its numbers rewritten (what
/// `Options::pack_messages` asks of each message).
fn pack_tree(mut message: Value, rewrite: NumberText) -> Packed {
    super::rewrite_numbers(&mut message, rewrite);
    Packed::pack_one(&message)
}

/// A number that keeps its text exactly as written (`1E+05` stays
/// `1E+05`; serde_json's own parser would write `1e+05`). The text has
/// already been checked against JSON's number grammar.
fn number_from_text(text: &str) -> Number {
    Number::from_string_unchecked(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        parse(text.as_bytes(), Options::default()).unwrap().value
    }

    fn error(text: &str) -> String {
        parse(text.as_bytes(), Options::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn messages_are_packed_as_they_are_read_and_nothing_else_is() {
        fn tenfold(text: &str) -> Option<String> {
            (text != "1").then(|| format!("{text}0"))
        }
        let options = Options {
            pack_messages: Some(tenfold),
            ..Default::default()
        };
        let unpacked = |p: &Parsed| -> Vec<Value> {
            let list = p.packed.as_ref().expect("packed");
            list.iter().map(Packed::unpack_one).collect()
        };
        let text = r#"{"tools": [{"a": 1}], "messages": [{"n": 1, "l": [{"x": 2}]}, {"n": 2.50}]}"#;
        let p = parse(text.as_bytes(), options).expect("parses");
        assert_eq!(
            unpacked(&p),
            [
                serde_json::json!({"n": 1, "l": [{"x": 20}]}),
                value(r#"{"n": 2.500}"#)
            ]
        );
        // The list is left empty; the rest of the document is as it was.
        assert_eq!(p.value["messages"], serde_json::json!([]));
        assert_eq!(p.value["tools"], serde_json::json!([{"a": 1}]));
        // A bare list of messages, and no list at all.
        let p = parse(br#"[{"n": 7}]"#, options).expect("parses");
        assert_eq!(unpacked(&p), [serde_json::json!({"n": 70})]);
        let p = parse(br#"{"content": [{"n": 1}]}"#, options).expect("parses");
        assert!(p.packed.is_none());
        // A key written with an escape is left to the caller.
        let p = parse(br#"{"messag\u0065s": [{"n": 1}]}"#, options).expect("parses");
        assert!(p.packed.is_none());
        assert_eq!(p.value["messages"], serde_json::json!([{"n": 1}]));
        // A repeated key is placed in the message that repeats it.
        let text = br#"{"messages": [{"n": 1}, {"n": 2}, {"n": 3, "n": 4}]}"#;
        let p = parse(text, options).expect("parses");
        assert_eq!(p.duplicates.len(), 1);
        assert_eq!(p.duplicates[0].pointer, "/messages/2");
    }

    #[test]
    fn values_equal_serde_jsons_and_keep_number_text() {
        let text = r#" {"a": [1, -2.50, 1E+05, 1e5, 123456789012345678901234567890, true, false, null],
            "s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 é", "o": {}, "l": []} "#;
        let ours = value(text);
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours["s"], theirs["s"]);
        assert_eq!(ours["o"], theirs["o"]);
        assert_eq!(ours["a"][2].to_string(), "1E+05");
        assert_eq!(ours["a"][3].to_string(), "1e5");
        assert_eq!(ours["a"][1].as_f64(), Some(-2.5));
        assert_eq!(ours["a"][4].to_string(), "123456789012345678901234567890");
    }

    #[test]
    fn errors_name_line_column_and_serde_jsons_words() {
        assert_eq!(
            error("{\n  \"messages\": [\n    {,}\n  ]\n}"),
            "3:6: key must be a string"
        );
        assert_eq!(error("[1,]"), "1:4: trailing comma");
        assert_eq!(error("[1 2]"), "1:4: expected `,` or `]`");
        assert_eq!(error("{\"a\" 1}"), "1:6: expected `:`");
        assert_eq!(error("[\"a"), "1:4: EOF while parsing a string");
        assert_eq!(error("[1] x"), "1:5: trailing characters");
        assert_eq!(error("[01]"), "1:3: expected `,` or `]`");
        assert_eq!(error("[1.]"), "1:4: invalid number");
        assert_eq!(error("[tru]"), "1:5: expected ident");
        assert_eq!(error("\"\\x\""), "1:3: invalid escape");
        assert_eq!(
            error("\"a\nb\""),
            "1:3: control character (\\u0000-\\u001F) found while parsing a string"
        );
        assert_eq!(error(""), "1:1: EOF while parsing a value");
        assert_eq!(error(&"[".repeat(200)), "1:129: recursion limit exceeded");
    }

    #[test]
    fn pythons_extensions_are_read_as_python_reads_them() {
        let v = value("[NaN, Infinity, -Infinity, 1e400, -1]");
        let texts: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(texts, ["NaN", "Infinity", "-Infinity", "1e400", "-1"]);
        assert_eq!(error("[Inf]"), "1:5: expected ident");
        assert_eq!(error("[-I]"), "1:4: expected ident");
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_are_reported() {
        let text =
            r#"["a\ud800b", "\udc00", "\ud83d\ude00", "\ud800\ud83d\ude00", "\ud800\u0041"]"#;
        let parsed = parse(text.as_bytes(), Options::default()).unwrap();
        let strings: Vec<&str> = parsed
            .value
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(
            strings,
            [
                "a\u{fffd}b",
                "\u{fffd}",
                "\u{1f600}",
                "\u{fffd}\u{1f600}",
                "\u{fffd}A"
            ]
        );
        assert_eq!(parsed.lone_surrogates, vec![3, 14, 40, 62]);
        assert_eq!(&text[40..46], "\\ud800");
    }

    #[test]
    fn a_byte_order_mark_and_invalid_utf8_are_named_with_a_position() {
        assert!(
            error("\u{feff}{}").starts_with("1:1: the file starts with a UTF-8 byte-order mark")
        );
        let bad = parse(b"{\"a\":\n \"\xff\"}", Options::default()).unwrap_err();
        assert_eq!((bad.line, bad.column), (2, 3));
        assert!(bad.message.contains("invalid UTF-8 (byte 0xff)"));
    }

    #[test]
    fn duplicate_keys_are_reported_and_the_last_one_wins() {
        let parsed = parse(
            br#"{"messages": [{"name": "a", "role": "user", "name": "b"}]}"#,
            Options::default(),
        )
        .unwrap();
        assert_eq!(parsed.value["messages"][0]["name"], "b");
        assert_eq!(
            parsed.duplicates,
            vec![DuplicateKey {
                key: "name".into(),
                offset: 44,
                pointer: "/messages/0".into()
            }]
        );
    }

    #[test]
    fn spans_cover_each_value_exactly() {
        let text = r#"{ "a" : [1, {"b": "c"}], "d": null }"#;
        let parsed = parse(text.as_bytes(), Options::with_spans()).unwrap();
        let tree = parsed.tree.unwrap();
        assert_eq!(&text[tree.span.clone()], text);
        let NodeKind::Object(members) = &tree.kind else {
            panic!()
        };
        assert_eq!(&text[members[0].key_span.clone()], "\"a\"");
        assert_eq!(&text[members[0].value.span.clone()], r#"[1, {"b": "c"}]"#);
        let NodeKind::Array(items) = &members[0].value.kind else {
            panic!()
        };
        assert_eq!(&text[items[1].span.clone()], r#"{"b": "c"}"#);
        assert_eq!(&text[members[1].value.span.clone()], "null");
    }
}

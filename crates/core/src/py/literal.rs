//! Python literals as `repr()` writes them, read back into JSON values, and
//! the `Msg(...)` repr that AgentScope 1.0.21's `format` spans carry
//! (live-tracing.md §2.4, §2.7).
//!
//! This is the inverse of [`super::py_repr`]: for every value `v` the project
//! holds, `literal_lenient(&py_repr(&v))` gives `v` back, key order and
//! number text included (and `literal` too when `v` has no NaN/infinity).
//!
//! Hand-written because no crate fits. `py_literal` (0.4, a pest grammar)
//! parses into its own `Value` (num-bigint integers, `f64` floats, sets,
//! complex numbers), so a float's written digits (`1e+16`, `-0.0`) and the
//! key order are not what we would get back without a second conversion,
//! and it describes itself as a subset of `ast.literal_eval`.
//! `rustpython-literal` only writes escapes (repr/unparse helpers), and needs
//! Rust 1.93. Neither reads the Msg repr, whose `id`, `name`, `timestamp`
//! and `invocation_id` are written raw between single quotes.
//!
//! Decisions:
//! - Numbers keep their text exactly (`Number::from_string_unchecked`, as
//!   `normalize_numbers` does), so big ints and `1e+16` survive.
//! - `nan`, `inf`, `-inf` are not literals. [`literal`] rejects them
//!   ([`LiteralErrorKind::NonFinite`]); [`literal_lenient`] keeps them as the
//!   numbers `NaN`, `Infinity`, `-Infinity`: the project's own convention
//!   (`normalize_numbers` makes them, `py_repr` prints them back as `nan`,
//!   `dumps` writes them as `json.dumps` does).
//! - A lone surrogate (`\ud800`) cannot be in a Rust `String`. [`literal`]
//!   rejects it; [`literal_lenient`] writes U+FFFD and counts it. An escaped
//!   high surrogate directly followed by an escaped low one becomes the one
//!   character they encode, as the JSON `"\ud83d\ude00"` that `json.dumps`
//!   writes for that Python string reads back.
//! - Dict keys become strings as `json.dumps` makes them: an int or float
//!   as written, `nan`/`inf` as `NaN`/`Infinity`, `True` → `true`, `False`
//!   → `false`, `None` → `null`; a tuple or bytes key is an error. Two keys
//!   that stringify alike keep the first's place and the last's value, as
//!   `json.loads(json.dumps(d))` does.
//! - Tuples become arrays; `b'..'` becomes `{"$bytes": base64}`, the shape
//!   `py_repr` writes as bytes. Sets, complex numbers and `\N{...}` are
//!   errors (repr of a Msg never holds them).
//! - Nesting is bounded ([`MAX_DEPTH`]) so hostile input cannot overflow the
//!   stack; no input panics.

use base64::Engine;
use serde_json::{Map, Number, Value};

/// How deep lists, tuples and dicts may nest: as deep as the project's JSON
/// reader (and serde_json) lets a session nest, so no deeper value is made
/// than a session could hold.
const MAX_DEPTH: usize = 128;

/// A literal that could not be read: where (a byte offset into the text
/// given) and why. Displays as `at 37: expected ',' or ']'`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {offset}: {kind}")]
pub struct LiteralError {
    pub offset: usize,
    pub kind: LiteralErrorKind,
}

/// Why a literal could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralErrorKind {
    /// The text is not what `repr()` writes here.
    #[error("expected {0}")]
    Expected(&'static str),
    /// A backslash escape Python would reject, or that we do not support.
    #[error("{0}")]
    BadEscape(&'static str),
    /// `\ud800`-style escape with no partner ([`literal`] only).
    #[error("lone surrogate \\u{0:04x} is not UTF-8")]
    LoneSurrogate(u32),
    /// `nan`, `inf` or `-inf` ([`literal`] only).
    #[error("{0} is not a JSON number")]
    NonFinite(&'static str),
    /// A tuple, bytes, list or dict as a dict key: `json.dumps` refuses it.
    #[error("a dict key must be a str, int, float, bool or None")]
    BadKey,
    /// Nested deeper than 128 (the JSON reader's bound).
    #[error("nested deeper than {MAX_DEPTH}")]
    TooDeep,
}

/// [`literal_lenient`]'s answer: the value and how many lone surrogates in
/// its strings were written as U+FFFD.
#[derive(Debug, Clone, PartialEq)]
pub struct LenientLiteral {
    pub value: Value,
    pub replaced_surrogates: usize,
}

/// Reads one Python literal, as `repr()` writes it, into JSON. Strict: only
/// what standard JSON can hold, so `nan`/`inf` and lone surrogates are
/// errors. Spaces around the literal and between its tokens are allowed.
pub fn literal(text: &str) -> Result<Value, LiteralError> {
    whole(text, false).map(|l| l.value)
}

/// As [`literal`], but `nan`, `inf`, `-inf` become the numbers `NaN`,
/// `Infinity`, `-Infinity` and lone surrogates become U+FFFD (counted).
pub fn literal_lenient(text: &str) -> Result<LenientLiteral, LiteralError> {
    whole(text, true)
}

fn whole(text: &str, lenient: bool) -> Result<LenientLiteral, LiteralError> {
    let mut p = Parser::new(text, 0, lenient);
    p.skip_ws();
    let value = p.value()?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(fail(
            p.pos,
            LiteralErrorKind::Expected("the end of the literal"),
        ));
    }
    Ok(LenientLiteral {
        value,
        replaced_surrogates: p.replaced,
    })
}

fn fail(offset: usize, kind: LiteralErrorKind) -> LiteralError {
    LiteralError { offset, kind }
}

fn expected_at(offset: usize, what: &'static str) -> LiteralError {
    fail(offset, LiteralErrorKind::Expected(what))
}

/// A word or number, before it becomes a value or a dict key.
enum Atom<'a> {
    Number(&'a str),
    /// Python's word and the JSON text `json.dumps` writes for it.
    NonFinite(&'static str, &'static str),
    Bool(bool),
    Null,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    lenient: bool,
    replaced: usize,
    /// An escaped high surrogate, and where, waiting for a low one.
    high: Option<(u32, usize)>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, pos: usize, lenient: bool) -> Self {
        Parser {
            text,
            pos,
            depth: 0,
            lenient,
            replaced: 0,
            high: None,
        }
    }

    fn expected(&self, what: &'static str) -> LiteralError {
        expected_at(self.pos, what)
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// One value starting exactly at `pos`; `pos` ends just after it (no
    /// trailing spaces skipped, so a Msg field's end is exact).
    fn value(&mut self) -> Result<Value, LiteralError> {
        let start = self.pos;
        match self.peek() {
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'b') if matches!(self.peek_at(1), Some(b'\'' | b'"')) => self.bytes(),
            Some(b'[') => self.items(b']').map(|(items, _)| Value::Array(items)),
            Some(b'(') => self.tuple(),
            Some(b'{') => self.dict(),
            Some(b'-' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_') => {
                Ok(match self.atom()? {
                    Atom::Number(text) => number(text),
                    Atom::NonFinite(_, json) if self.lenient => number(json),
                    Atom::NonFinite(word, _) => {
                        return Err(fail(start, LiteralErrorKind::NonFinite(word)));
                    }
                    Atom::Bool(b) => Value::Bool(b),
                    Atom::Null => Value::Null,
                })
            }
            _ => Err(self.expected("a value")),
        }
    }

    /// A number (JSON's grammar, which every int and float repr fits), or
    /// one of the words `True`, `False`, `None`, `nan`, `inf`, `-inf`.
    fn atom(&mut self) -> Result<Atom<'a>, LiteralError> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        if matches!(self.peek(), Some(b'0'..=b'9')) {
            return self.number_text(start).map(Atom::Number);
        }
        let word_start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
            self.pos += 1;
        }
        let word = self.text.get(word_start..self.pos).unwrap_or_default();
        Ok(match (negative, word) {
            (false, "True") => Atom::Bool(true),
            (false, "False") => Atom::Bool(false),
            (false, "None") => Atom::Null,
            (false, "nan") => Atom::NonFinite("nan", "NaN"),
            (false, "inf") => Atom::NonFinite("inf", "Infinity"),
            (true, "inf") => Atom::NonFinite("-inf", "-Infinity"),
            // A name (`datetime`, an object's repr): not a literal.
            _ => {
                return Err(fail(
                    start,
                    LiteralErrorKind::Expected(if negative { "a number" } else { "a value" }),
                ));
            }
        })
    }

    /// The digits of a number whose sign (if any) is already consumed.
    fn number_text(&mut self, start: usize) -> Result<&'a str, LiteralError> {
        // No leading zeros: `01` is a syntax error in Python too.
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else {
            self.digits("a digit")?;
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits("a digit after '.'")?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits("an exponent")?;
        }
        // `1j`, `0x1f`, `1_000`, `01`: Python, but never what repr writes.
        if matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
            return Err(self.expected("a number as repr() writes it"));
        }
        Ok(self.text.get(start..self.pos).unwrap_or_default())
    }

    fn digits(&mut self, what: &'static str) -> Result<(), LiteralError> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.expected(what));
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<(), LiteralError> {
        if self.depth >= MAX_DEPTH {
            return Err(fail(self.pos, LiteralErrorKind::TooDeep));
        }
        self.depth += 1;
        Ok(())
    }

    /// `[a, b]` or `(a, b)` from its opening bracket: the items and whether
    /// any comma was seen (`(a)` is `a`, `(a,)` a tuple).
    fn items(&mut self, close: u8) -> Result<(Vec<Value>, bool), LiteralError> {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                break;
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    comma = true;
                }
                Some(c) if c == close => break,
                _ if close == b']' => return Err(self.expected("',' or ']'")),
                _ => return Err(self.expected("',' or ')'")),
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok((items, comma))
    }

    fn tuple(&mut self) -> Result<Value, LiteralError> {
        let (mut items, comma) = self.items(b')')?;
        // `(x)` is `x` in Python: repr never writes it, but it is a literal.
        Ok(match items.len() {
            1 if !comma => items.pop().unwrap_or_default(),
            _ => Value::Array(items),
        })
    }

    fn dict(&mut self) -> Result<Value, LiteralError> {
        self.enter()?;
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                break;
            }
            let key = self.key()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.expected("':'"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            // A repeated key keeps its first place and takes the last value,
            // as json.loads does with the duplicate json.dumps can write
            // (`{'1': 'a', 1: 'b'}`).
            map.insert(key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => break,
                _ => return Err(self.expected("',' or '}'")),
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(Value::Object(map))
    }

    /// A dict key, made a string as `json.dumps` makes it.
    fn key(&mut self) -> Result<String, LiteralError> {
        let start = self.pos;
        match self.peek() {
            Some(b'\'' | b'"') => self.string(),
            Some(b'b') if matches!(self.peek_at(1), Some(b'\'' | b'"')) => {
                Err(fail(start, LiteralErrorKind::BadKey))
            }
            Some(b'-' | b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_') => {
                Ok(match self.atom()? {
                    Atom::Number(text) => text.to_string(),
                    Atom::NonFinite(_, json) => json.to_string(),
                    Atom::Bool(true) => "true".into(),
                    Atom::Bool(false) => "false".into(),
                    Atom::Null => "null".into(),
                })
            }
            Some(b'(' | b'[' | b'{') => Err(fail(start, LiteralErrorKind::BadKey)),
            _ => Err(self.expected("a dict key")),
        }
    }

    /// A `str` literal from its opening quote.
    fn string(&mut self) -> Result<String, LiteralError> {
        let quote = self.peek().unwrap_or(b'\'');
        self.pos += 1;
        let mut out = String::new();
        self.high = None;
        loop {
            let rest = self.text.get(self.pos..).unwrap_or_default();
            let run = rest
                .bytes()
                .position(|c| c == quote || c == b'\\' || c == b'\n' || c == b'\r')
                .ok_or_else(|| expected_at(self.text.len(), "a closing quote"))?;
            if run > 0 {
                self.lone(&mut out)?;
                // `run` stops at an ASCII byte, so this is a char boundary.
                out.push_str(rest.get(..run).unwrap_or_default());
                self.pos += run;
            }
            let at = self.pos;
            match self.peek() {
                Some(b'\\') => {
                    self.pos += 1;
                    match self.escape(b'u')? {
                        Escaped::Code(code) => self.code_point(&mut out, code, at)?,
                        Escaped::Char(c) => {
                            self.lone(&mut out)?;
                            out.push(c);
                        }
                        Escaped::Nothing => {}
                    }
                }
                Some(c) if c == quote => {
                    self.lone(&mut out)?;
                    self.pos += 1;
                    return Ok(out);
                }
                // A raw line break ends a one-line string: a syntax error.
                _ => return Err(self.expected("a closing quote before the line break")),
            }
        }
    }

    /// Appends a code point from a `\x`, `\u`, `\U` or octal escape.
    fn code_point(&mut self, out: &mut String, code: u32, at: usize) -> Result<(), LiteralError> {
        match code {
            0xD800..=0xDBFF => {
                self.lone(out)?;
                self.high = Some((code, at));
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some((h, _)) => {
                    let joined = 0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00);
                    out.push(char::from_u32(joined).unwrap_or('\u{FFFD}'));
                }
                None => self.surrogate(out, code, at)?,
            },
            _ => {
                self.lone(out)?;
                let c = char::from_u32(code).ok_or_else(|| {
                    fail(at, LiteralErrorKind::BadEscape("escape beyond U+10FFFF"))
                })?;
                out.push(c);
            }
        }
        Ok(())
    }

    /// A waiting high surrogate that no low one followed.
    fn lone(&mut self, out: &mut String) -> Result<(), LiteralError> {
        match self.high.take() {
            Some((code, at)) => self.surrogate(out, code, at),
            None => Ok(()),
        }
    }

    fn surrogate(&mut self, out: &mut String, code: u32, at: usize) -> Result<(), LiteralError> {
        if !self.lenient {
            return Err(fail(at, LiteralErrorKind::LoneSurrogate(code)));
        }
        self.replaced += 1;
        out.push('\u{FFFD}');
        Ok(())
    }

    /// The escape after a backslash (already consumed). `unicode` is `b'u'`
    /// in a str, where `\u`/`\U` are escapes, and `0` in bytes, where they
    /// are not.
    fn escape(&mut self, unicode: u8) -> Result<Escaped, LiteralError> {
        let at = self.pos - 1;
        let Some(c) = self.peek() else {
            return Err(self.expected("a closing quote"));
        };
        self.pos += 1;
        let simple = match c {
            // A backslash at the end of a line continues the string.
            b'\n' => return Ok(Escaped::Nothing),
            b'\r' => {
                if self.peek() == Some(b'\n') {
                    self.pos += 1;
                }
                return Ok(Escaped::Nothing);
            }
            b'\\' | b'\'' | b'"' => c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut code = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            code = code * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                return Ok(Escaped::Code(code));
            }
            b'x' => {
                return self
                    .hex(2, at, "\\x needs two hex digits")
                    .map(Escaped::Code);
            }
            b'u' if unicode == b'u' => {
                return self
                    .hex(4, at, "\\u needs four hex digits")
                    .map(Escaped::Code);
            }
            b'U' if unicode == b'u' => {
                return self
                    .hex(8, at, "\\U needs eight hex digits")
                    .map(Escaped::Code);
            }
            b'N' if unicode == b'u' => {
                return Err(fail(
                    at,
                    LiteralErrorKind::BadEscape("\\N{...} is not supported"),
                ));
            }
            // Any other escape keeps its backslash (Python warns, and keeps
            // it); the character after is read as ordinary text.
            _ => {
                self.pos -= 1;
                return Ok(Escaped::Char('\\'));
            }
        };
        Ok(Escaped::Char(char::from(simple)))
    }

    fn hex(&mut self, n: usize, at: usize, why: &'static str) -> Result<u32, LiteralError> {
        let digits = self.text.as_bytes().get(self.pos..self.pos + n);
        let code = digits.and_then(|d| {
            d.iter()
                .try_fold(0u32, |acc, &b| Some(acc * 16 + char::from(b).to_digit(16)?))
        });
        match code {
            Some(code) => {
                self.pos += n;
                Ok(code)
            }
            None => Err(fail(at, LiteralErrorKind::BadEscape(why))),
        }
    }

    /// A `bytes` literal (`b'..'`, its `b` at `pos`): `{"$bytes": base64}`.
    fn bytes(&mut self) -> Result<Value, LiteralError> {
        let quote = self.peek_at(1).unwrap_or(b'\'');
        self.pos += 2;
        let mut out = Vec::new();
        loop {
            let at = self.pos;
            match self.peek() {
                None => return Err(self.expected("a closing quote")),
                Some(c) if c == quote => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.escape(0)? {
                        Escaped::Code(code) => {
                            let byte = u8::try_from(code).map_err(|_| {
                                fail(at, LiteralErrorKind::BadEscape("octal escape above \\377"))
                            })?;
                            out.push(byte);
                        }
                        // Simple escapes and the kept backslash are ASCII.
                        Escaped::Char(c) => out.push(u8::try_from(c).unwrap_or(b'?')),
                        Escaped::Nothing => {}
                    }
                }
                Some(b'\n' | b'\r') => {
                    return Err(self.expected("a closing quote before the line break"));
                }
                Some(c) if c.is_ascii() => {
                    out.push(c);
                    self.pos += 1;
                }
                Some(_) => return Err(self.expected("ASCII in a bytes literal")),
            }
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(&out);
        let mut map = Map::new();
        map.insert("$bytes".into(), Value::String(b64));
        Ok(Value::Object(map))
    }
}

/// What one backslash escape stands for.
enum Escaped {
    /// A code point from `\x`, `\u`, `\U` or octal: may be a surrogate.
    Code(u32),
    Char(char),
    /// A line continuation.
    Nothing,
}

/// A number from text already checked against JSON's number grammar (or
/// the project's `NaN`/`Infinity`), kept as written.
fn number(text: &str) -> Value {
    Value::Number(Number::from_string_unchecked(text.to_string()))
}

/// One Msg, read from its repr (live-tracing.md §2.4):
/// `Msg(id='ID', name='NAME', content=CONTENT, role='ROLE',
/// metadata=METADATA, timestamp='TS', invocation_id='INV')`.
#[derive(Debug, Clone, PartialEq)]
pub struct MsgRepr {
    pub id: String,
    pub name: String,
    pub content: Value,
    pub role: String,
    /// `None` when METADATA is not a literal (it holds a `datetime`, say).
    pub metadata: Option<Value>,
    pub timestamp: String,
    /// `None` when written `'None'` (a string "None" reads the same).
    pub invocation_id: Option<String>,
    /// Lone surrogates in CONTENT and METADATA written as U+FFFD.
    pub replaced_surrogates: usize,
}

impl MsgRepr {
    /// The session message (§2.7): `id`, `name`, `role`, `content`,
    /// `metadata`, `timestamp` in that order, then `invocation_id` unless it
    /// was `'None'`. Metadata that is not a literal becomes `{}`: what a Msg
    /// without metadata holds, so the field stays a dict, and it never
    /// reaches a request.
    pub fn to_session_message(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), Value::String(self.id.clone()));
        m.insert("name".into(), Value::String(self.name.clone()));
        m.insert("role".into(), Value::String(self.role.clone()));
        m.insert("content".into(), self.content.clone());
        let metadata = self
            .metadata
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        m.insert("metadata".into(), metadata);
        m.insert("timestamp".into(), Value::String(self.timestamp.clone()));
        if let Some(inv) = &self.invocation_id {
            m.insert("invocation_id".into(), Value::String(inv.clone()));
        }
        Value::Object(m)
    }
}

/// How many places each raw field may end at before we give up: a real name
/// holds `', content=` once at most, and hostile text must stay linear-ish.
const MAX_SPLITS: usize = 16;

/// Reads a Msg repr. The raw fields (ID, NAME, ROLE, TS, INV) may hold any
/// text, quotes and line breaks included; each ends at the first place its
/// closing delimiter is followed by a text that reads as the rest of a Msg.
/// CONTENT must be a literal (lenient: NaN and lone surrogates kept as
/// [`literal_lenient`] keeps them); METADATA may be anything.
pub fn msg_repr(text: &str) -> Result<MsgRepr, LiteralError> {
    const HEAD: &str = "Msg(id='";
    if !text.starts_with(HEAD) {
        return Err(expected_at(0, "\"Msg(id='\""));
    }
    let Some(end) = text.strip_suffix("')").map(str::len) else {
        return Err(expected_at(text.len(), "\"')\" at the end"));
    };
    // The error of the attempt that got furthest.
    let mut best = expected_at(HEAD.len(), "\"', name='\"");
    let mut keep = |e: LiteralError| {
        if e.offset >= best.offset {
            best = e;
        }
    };
    // A split whose role is not one Msg allows is kept only in case no
    // other split reads: `name='a', content='x', role='b'` is a name.
    let mut odd_role = None;
    for id_end in find_all(text, "', name='", HEAD.len(), end).take(MAX_SPLITS) {
        let name_start = id_end + "', name='".len();
        let mut names = find_all(text, "', content=", name_start, end).peekable();
        if names.peek().is_none() {
            keep(expected_at(name_start, "\"', content=\""));
        }
        for name_end in names.take(MAX_SPLITS) {
            match msg_after_name(text, name_end + "', content=".len(), end) {
                Ok(mut msg) => {
                    msg.id = slice(text, HEAD.len(), id_end);
                    msg.name = slice(text, name_start, name_end);
                    if matches!(msg.role.as_str(), "user" | "assistant" | "system") {
                        return Ok(msg);
                    }
                    odd_role.get_or_insert(msg);
                }
                Err(e) => keep(e),
            }
        }
    }
    odd_role.ok_or(best)
}

/// The rest of a Msg repr from CONTENT's first byte; `end` is where the
/// closing `')` starts.
fn msg_after_name(text: &str, start: usize, end: usize) -> Result<MsgRepr, LiteralError> {
    let mut p = Parser::new(text, start, true);
    let content = p.value()?;
    const ROLE: &str = ", role='";
    if !text.get(p.pos..).unwrap_or_default().starts_with(ROLE) {
        return Err(expected_at(p.pos, "\", role='\""));
    }
    let role_start = p.pos + ROLE.len();
    let role_end = find_all(text, "', metadata=", role_start, end)
        .next()
        .ok_or_else(|| expected_at(role_start, "\"', metadata=\""))?;
    let meta_start = role_end + "', metadata=".len();
    let (metadata, replaced, meta_end) = read_metadata(text, meta_start, end)
        .ok_or_else(|| expected_at(meta_start, "\", timestamp='\" after the metadata"))?;
    let ts_start = meta_end + ", timestamp='".len();
    let ts_end = find_all(text, "', invocation_id='", ts_start, end)
        .next()
        .ok_or_else(|| expected_at(ts_start, "\"', invocation_id='\""))?;
    let inv = slice(text, ts_end + "', invocation_id='".len(), end);
    Ok(MsgRepr {
        id: String::new(),
        name: String::new(),
        content,
        role: slice(text, role_start, role_end),
        metadata,
        timestamp: slice(text, ts_start, ts_end),
        invocation_id: (inv != "None").then_some(inv),
        replaced_surrogates: p.replaced + replaced,
    })
}

/// METADATA from `start`: the value if it is a literal, the surrogates it
/// replaced, and where `, timestamp='` starts. A literal ends where it
/// ends; anything else (`datetime.datetime(2020, 1, 1, 0, 0)`) at the first
/// `, timestamp='` outside brackets and quotes, else at the first at all.
fn read_metadata(text: &str, start: usize, end: usize) -> Option<(Option<Value>, usize, usize)> {
    const TS: &[u8] = b", timestamp='";
    let bytes = text.as_bytes().get(..end)?;
    let mut p = Parser::new(text, start, true);
    if let Ok(v) = p.value() {
        if bytes.get(p.pos..).is_some_and(|rest| rest.starts_with(TS)) {
            return Some((Some(v), p.replaced, p.pos));
        }
    }
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'\'' | b'"' => {
                // Skip a quoted string in an object's repr.
                i += 1;
                while let Some(&d) = bytes.get(i) {
                    if d == c {
                        break;
                    }
                    i += if d == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => break,
            },
            b',' if depth == 0 && bytes.get(i..).is_some_and(|r| r.starts_with(TS)) => {
                return Some((None, 0, i));
            }
            _ => {}
        }
        i += 1;
    }
    find_all(text, ", timestamp='", start, end)
        .next()
        .map(|i| (None, 0, i))
}

/// Where `needle` occurs in `text[from..to]`, as offsets into `text`.
fn find_all<'t>(
    text: &'t str,
    needle: &'t str,
    from: usize,
    to: usize,
) -> impl Iterator<Item = usize> + 't {
    text.get(from..to)
        .unwrap_or_default()
        .match_indices(needle)
        .map(move |(i, _)| from + i)
}

/// `text[from..to]` as a String; the bounds always sit next to an ASCII
/// delimiter, and a bad one gives "" rather than a panic.
fn slice(text: &str, from: usize, to: usize) -> String {
    text.get(from..to).unwrap_or_default().to_string()
}

#[cfg(test)]
#[path = "literal_tests.rs"]
mod tests;

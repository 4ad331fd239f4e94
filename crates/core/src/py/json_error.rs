//! Why Python's `json.loads` refuses a text, in its own words
//! (`JSONDecodeError`: "Expecting ',' delimiter: line 1 column 9 (char
//! 8)"). AgentScope puts that message in what it tells the model
//! (`ToolJSONDecodeError`) and xai-sdk raises it, so the words must be
//! Python's: written by hand because no crate reproduces CPython's C
//! scanner (`_json.c`) message by message. Positions count characters, as
//! Python's `str` does.

/// The message `json.loads(text)` raises, or `None` when it parses.
pub fn loads_error(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser { s: &chars };
    let start = p.ws(0);
    let outcome = match p.value(start) {
        Ok(end) => {
            let end = p.ws(end);
            (end != chars.len()).then_some(("Extra data", end))
        }
        Err(Stop::Expecting(at)) => Some(("Expecting value", at)),
        Err(Stop::Error(what, at)) => Some((what, at)),
    };
    outcome.map(|(what, at)| located(&chars, what, at))
}

/// `JSONDecodeError.__str__`: the message, line, column and index.
fn located(chars: &[char], what: &str, at: usize) -> String {
    let before = &chars[..at.min(chars.len())];
    let line = before.iter().filter(|c| **c == '\n').count() + 1;
    let column = match before.iter().rposition(|c| *c == '\n') {
        Some(nl) => at - nl,
        None => at + 1,
    };
    format!("{what}: line {line} column {column} (char {at})")
}

enum Stop {
    /// `StopIteration(idx)`: no value starts here.
    Expecting(usize),
    /// A `JSONDecodeError` with its message.
    Error(&'static str, usize),
}

struct Parser<'a> {
    s: &'a [char],
}

impl Parser<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.s.get(i), Some(' ' | '\t' | '\n' | '\r')) {
            i += 1;
        }
        i
    }

    fn starts(&self, i: usize, word: &str) -> bool {
        let w: Vec<char> = word.chars().collect();
        self.s.get(i..i + w.len()) == Some(&w[..])
    }

    /// `scan_once`: the end of the value at `i`.
    fn value(&mut self, i: usize) -> Result<usize, Stop> {
        match self.s.get(i) {
            None => Err(Stop::Expecting(i)),
            Some('"') => self.string(i + 1),
            Some('{') => self.object(i + 1),
            Some('[') => self.array(i + 1),
            Some('n') if self.starts(i, "null") => Ok(i + 4),
            Some('t') if self.starts(i, "true") => Ok(i + 4),
            Some('f') if self.starts(i, "false") => Ok(i + 5),
            Some('N') if self.starts(i, "NaN") => Ok(i + 3),
            Some('I') if self.starts(i, "Infinity") => Ok(i + 8),
            Some('-') if self.starts(i, "-Infinity") => Ok(i + 9),
            Some(_) => self.number(i).ok_or(Stop::Expecting(i)),
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`.
    fn number(&self, i: usize) -> Option<usize> {
        let digit = |j: usize| self.s.get(j).is_some_and(char::is_ascii_digit);
        let mut j = i;
        if self.s.get(j) == Some(&'-') {
            j += 1;
        }
        match self.s.get(j) {
            Some('0') => j += 1,
            Some('1'..='9') => {
                while digit(j) {
                    j += 1;
                }
            }
            _ => return None,
        }
        if self.s.get(j) == Some(&'.') && digit(j + 1) {
            j += 1;
            while digit(j) {
                j += 1;
            }
        }
        if matches!(self.s.get(j), Some('e' | 'E')) {
            let mut k = j + 1;
            if matches!(self.s.get(k), Some('+' | '-')) {
                k += 1;
            }
            if digit(k) {
                while digit(k) {
                    k += 1;
                }
                j = k;
            }
        }
        Some(j)
    }

    /// `scanstring` from just after the opening quote at `begin - 1`.
    fn string(&self, begin: usize) -> Result<usize, Stop> {
        let mut i = begin;
        loop {
            match self.s.get(i) {
                None => return Err(Stop::Error("Unterminated string starting at", begin - 1)),
                Some('"') => return Ok(i + 1),
                Some('\\') => match self.s.get(i + 1) {
                    None => return Err(Stop::Error("Unterminated string starting at", begin - 1)),
                    Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => i += 2,
                    Some('u') => {
                        let hex = self.s.get(i + 2..i + 6);
                        if !hex.is_some_and(|h| h.iter().all(char::is_ascii_hexdigit)) {
                            return Err(Stop::Error("Invalid \\uXXXX escape", i + 1));
                        }
                        i += 6;
                    }
                    Some(_) => return Err(Stop::Error("Invalid \\escape", i)),
                },
                Some(c) if (*c as u32) < 0x20 => {
                    return Err(Stop::Error("Invalid control character at", i))
                }
                Some(_) => i += 1,
            }
        }
    }

    fn object(&mut self, start: usize) -> Result<usize, Stop> {
        let mut i = self.ws(start);
        if self.s.get(i) == Some(&'}') {
            return Ok(i + 1);
        }
        loop {
            if self.s.get(i) != Some(&'"') {
                return Err(Stop::Error(
                    "Expecting property name enclosed in double quotes",
                    i,
                ));
            }
            i = self.ws(self.string(i + 1)?);
            if self.s.get(i) != Some(&':') {
                return Err(Stop::Error("Expecting ':' delimiter", i));
            }
            i = self.ws(i + 1);
            i = match self.value(i) {
                Ok(end) => end,
                Err(Stop::Expecting(at)) => return Err(Stop::Error("Expecting value", at)),
                Err(e) => return Err(e),
            };
            i = self.ws(i);
            match self.s.get(i) {
                Some('}') => return Ok(i + 1),
                Some(',') => i = self.ws(i + 1),
                _ => return Err(Stop::Error("Expecting ',' delimiter", i)),
            }
        }
    }

    fn array(&mut self, start: usize) -> Result<usize, Stop> {
        let mut i = self.ws(start);
        if self.s.get(i) == Some(&']') {
            return Ok(i + 1);
        }
        loop {
            i = match self.value(i) {
                Ok(end) => end,
                Err(Stop::Expecting(at)) => return Err(Stop::Error("Expecting value", at)),
                Err(e) => return Err(e),
            };
            i = self.ws(i);
            match self.s.get(i) {
                Some(']') => return Ok(i + 1),
                Some(',') => i = self.ws(i + 1),
                _ => return Err(Stop::Error("Expecting ',' delimiter", i)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::loads_error;

    /// Each message as CPython 3.11's `json.loads` writes it.
    #[test]
    fn python_says_why_it_refuses_a_text() {
        for (text, said) in [
            ("", "Expecting value: line 1 column 1 (char 0)"),
            ("   ", "Expecting value: line 1 column 4 (char 3)"),
            (
                "{\"q\": \"partial",
                "Unterminated string starting at: line 1 column 7 (char 6)",
            ),
            (
                "{\"a\": 1,}",
                "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)",
            ),
            ("[1,]", "Expecting value: line 1 column 4 (char 3)"),
            (
                "{\"a\" 1}",
                "Expecting ':' delimiter: line 1 column 6 (char 5)",
            ),
            (
                "{\"a\": 1 \"b\": 2}",
                "Expecting ',' delimiter: line 1 column 9 (char 8)",
            ),
            ("{}x", "Extra data: line 1 column 3 (char 2)"),
            ("01", "Extra data: line 1 column 2 (char 1)"),
            (
                "{\n  \"a\": tru\n}",
                "Expecting value: line 2 column 8 (char 9)",
            ),
            ("\"a\\qb\"", "Invalid \\escape: line 1 column 3 (char 2)"),
            (
                "\"a\\u12\"",
                "Invalid \\uXXXX escape: line 1 column 4 (char 3)",
            ),
            (
                "\"a\nb\"",
                "Invalid control character at: line 1 column 3 (char 2)",
            ),
            (
                "{'a': 1}",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            ("é x", "Expecting value: line 1 column 1 (char 0)"),
            ("[\"é\", x]", "Expecting value: line 1 column 7 (char 6)"),
            ("-", "Expecting value: line 1 column 1 (char 0)"),
            ("1.", "Extra data: line 1 column 2 (char 1)"),
            ("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
            ("{\"a\":", "Expecting value: line 1 column 6 (char 5)"),
            ("[", "Expecting value: line 1 column 2 (char 1)"),
            (
                "{",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            ),
            (
                "\"\\",
                "Unterminated string starting at: line 1 column 1 (char 0)",
            ),
            ("1e", "Extra data: line 1 column 2 (char 1)"),
            ("tru", "Expecting value: line 1 column 1 (char 0)"),
        ] {
            assert_eq!(loads_error(text).as_deref(), Some(said), "{text:?}");
        }
        for ok in [
            "{}",
            "[1, -2.5e3, NaN, -Infinity]",
            " {\"a\": [null, true]} ",
            "\"\\u00e9\"",
        ] {
            assert_eq!(loads_error(ok), None, "{ok:?}");
        }
    }
}

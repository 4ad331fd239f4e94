//! Text from a session shown to a person. A speaker's name, a model name or
//! a URL can hold terminal control sequences (ESC sequences that move the
//! cursor or rewrite the screen, OSC 52 clipboard writes, BEL) or a newline
//! that forges a table row; every human-readable output goes through
//! [`escape_control`] first. JSON output needs nothing: it escapes them.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes() {
        assert!(matches!(escape_control("Bob é 中"), Cow::Borrowed(_)));
        assert_eq!(
            escape_control("a\x1b]52;c;ZXZpbA==\x07b\nc\u{9b}2J\u{202e}"),
            "a\\e]52;c;ZXZpbA==\\x07b\\nc\\x9b2J\\u{202e}"
        );
        assert_eq!(escape_control("\x7f\t\r"), "\\x7f\\t\\r");
    }
}

/// `n` with a comma every three digits (`91,650`), for counts in messages.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
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
    }
}

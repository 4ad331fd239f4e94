//! `parser_parenthesized.py`: Python tuples and grouped values.

use super::parser::{JsonParser, STRING_DELIMITERS};
use super::pystr::{isdigit, isspace};

/// A scan over bracketed text that skips quoted parts, as both functions
/// below do it.
struct Nesting {
    parens: isize,
    squares: isize,
    braces: isize,
}

impl Nesting {
    fn top(&self) -> bool {
        self.parens == 0 && self.squares == 0 && self.braces == 0
    }
}

impl JsonParser {
    /// `parenthesized_is_explicit_tuple`: the current `(` starts a tuple
    /// (a top-level comma, or `()`); `(1)` is a grouped value.
    pub fn parenthesized_is_explicit_tuple(&self) -> bool {
        let mut i = self.index + 1;
        let n = self.len();
        let mut nest = Nesting {
            parens: 0,
            squares: 0,
            braces: 0,
        };
        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;
        let mut saw_top_level_content = false;

        while i < n {
            let Some(ch) = self.char_at_abs(i) else {
                break;
            };
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if ch == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
                backslashes = 0;
                i += 1;
                continue;
            }
            if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
                in_quote = Some(ch);
                saw_top_level_content = saw_top_level_content || nest.top();
                backslashes = 0;
                i += 1;
                continue;
            }
            backslashes = 0;

            if !isspace(ch) && ch != ',' && ch != ')' && nest.top() {
                saw_top_level_content = true;
            }
            match ch {
                '(' => nest.parens += 1,
                ')' => {
                    if nest.top() {
                        return !saw_top_level_content;
                    }
                    if nest.parens > 0 {
                        nest.parens -= 1;
                    }
                }
                '[' => nest.squares += 1,
                ']' if nest.squares > 0 => nest.squares -= 1,
                '{' => nest.braces += 1,
                '}' if nest.braces > 0 => nest.braces -= 1,
                ',' if nest.top() => return true,
                _ => {}
            }
            i += 1;
        }
        !saw_top_level_content
    }

    /// `top_level_parenthesized_can_start_value`: a top-level `(` alone on
    /// its line and holding a value, not prose like `foo (note): {...}`.
    pub fn top_level_parenthesized_can_start_value(&self) -> bool {
        let mut i = self.index - 1;
        while i >= 0 {
            let Some(ch) = self.char_at_abs(i) else {
                break;
            };
            if ch == '\n' || ch == '\r' {
                break;
            }
            if !isspace(ch) {
                return false;
            }
            i -= 1;
        }

        let idx = self.scroll_whitespaces(1);
        let Some(first_inner_char) = self.get_char_at(idx) else {
            return false;
        };
        let at = self.index + idx;
        let word4 = self.slice(at, at + 4);
        let word5 = self.slice(at, at + 5);
        if !matches!(first_inner_char, ')' | '{' | '[' | '(')
            && !STRING_DELIMITERS.contains(&first_inner_char)
            && !isdigit(first_inner_char)
            && first_inner_char != '-'
            && first_inner_char != '.'
            && !super::pystr::eq(word4, "true")
            && !super::pystr::eq(word4, "null")
            && !super::pystr::eq(word5, "false")
        {
            return false;
        }

        let mut i = self.index + 1;
        let n = self.len();
        let mut nest = Nesting {
            parens: 0,
            squares: 0,
            braces: 0,
        };
        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;

        while i < n {
            let Some(ch) = self.char_at_abs(i) else {
                break;
            };
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if ch == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
                backslashes = 0;
                i += 1;
                continue;
            }
            if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
                in_quote = Some(ch);
                backslashes = 0;
                i += 1;
                continue;
            }
            backslashes = 0;

            match ch {
                '(' => nest.parens += 1,
                ')' => {
                    if nest.top() {
                        i += 1;
                        while i < n {
                            let Some(trailer) = self.char_at_abs(i) else {
                                break;
                            };
                            if trailer == '\n' || trailer == '\r' {
                                return true;
                            }
                            if !isspace(trailer) {
                                return false;
                            }
                            i += 1;
                        }
                        return true;
                    }
                    // Python decrements without a check here: it can go
                    // negative.
                    nest.parens -= 1;
                }
                '[' => nest.squares += 1,
                ']' if nest.squares > 0 => nest.squares -= 1,
                '{' => nest.braces += 1,
                '}' if nest.braces > 0 => nest.braces -= 1,
                _ => {}
            }
            i += 1;
        }
        true
    }
}

//! Python's Unicode-aware one-character `str` predicates, and the few `str`
//! operations the parser uses on its input (a `Vec<char>`).

use super::unicode_tables::{ALNUM, ALPHA, DIGIT, SPACE};

fn in_table(table: &[(u32, u32)], cp: u32) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `c.isspace()`.
pub fn isspace(c: char) -> bool {
    isspace_cp(u32::from(c))
}

/// `c.isspace()` for a code point (lone surrogates included).
pub fn isspace_cp(cp: u32) -> bool {
    match cp {
        0x09..=0x0D | 0x1C..=0x20 => true,
        0..=0x7F => false,
        _ => in_table(SPACE, cp),
    }
}

/// `c.isalpha()`.
pub fn isalpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_table(ALPHA, u32::from(c))
}

/// `c.isdigit()` (not `isnumeric`: `'²'` is a digit, `'½'` is not).
pub fn isdigit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_table(DIGIT, u32::from(c))
}

/// `c.isalnum()`.
pub fn isalnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    in_table(ALNUM, u32::from(c))
}

/// `s.lstrip()`.
pub fn lstrip(s: &[char]) -> &[char] {
    let start = s.iter().position(|&c| !isspace(c)).unwrap_or(s.len());
    &s[start..]
}

/// `s.startswith(prefix)`.
pub fn starts_with(s: &[char], prefix: &str) -> bool {
    let p: Vec<char> = prefix.chars().collect();
    s.len() >= p.len() && s[..p.len()] == p[..]
}

/// `needle in s`.
pub fn contains(s: &[char], needle: &str) -> bool {
    let n: Vec<char> = needle.chars().collect();
    if n.is_empty() {
        return true;
    }
    s.windows(n.len()).any(|w| w == &n[..])
}

/// `s.replace(old, new)`: left to right, without overlaps.
pub fn replace(s: &[char], old: &str, new: &str) -> Vec<char> {
    let old: Vec<char> = old.chars().collect();
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if !old.is_empty() && s[i..].starts_with(&old) {
            out.extend(new.chars());
            i += old.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// `s == text`.
pub fn eq(s: &[char], text: &str) -> bool {
    s.iter().copied().eq(text.chars())
}

/// The bounds of Python's `s[start:stop]` (step 1) on a sequence of `len`.
pub fn slice_bounds(start: Option<isize>, stop: Option<isize>, len: usize) -> (usize, usize) {
    let n = len as isize;
    let norm = |i: isize| -> usize {
        let j = if i < 0 { i + n } else { i };
        j.clamp(0, n) as usize
    };
    let a = start.map_or(0, norm);
    let b = stop.map_or(len, norm);
    (a, b.max(a))
}

/// Python's `s[start:stop]`.
pub fn slice(s: &[char], start: Option<isize>, stop: Option<isize>) -> &[char] {
    let (a, b) = slice_bounds(start, stop, s.len());
    &s[a..b]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_match_python() {
        assert!(isspace('\u{1c}') && isspace('\u{85}') && isspace('\u{3000}'));
        assert!(!isspace('\u{200b}'));
        assert!(isalpha('é') && isalpha('中') && !isalpha('\u{0903}'));
        assert!(isdigit('²') && !isdigit('½') && isalnum('½'));
        assert!(!isalnum('_'));
    }

    #[test]
    fn slices_like_python() {
        let s: Vec<char> = "abcdef".chars().collect();
        assert!(eq(slice(&s, Some(-2), None), "ef"));
        assert!(eq(slice(&s, None, Some(-1)), "abcde"));
        assert!(eq(slice(&s, Some(4), Some(2)), ""));
        assert!(eq(slice(&s, Some(3), Some(100)), "def"));
        assert!(eq(&replace(&s, "cd", "X"), "abXef"));
    }
}

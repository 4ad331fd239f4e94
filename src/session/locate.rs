//! Finds where a JSON pointer's value starts in the source text, so errors
//! about a value (not a syntax error) can still say `file:line:col`.

/// 1-based (line, column) of the value at `pointer` (`""` is the root,
/// `/messages/3/content` a nested one), or `None` if it is not there.
pub fn locate_pointer(text: &str, pointer: &str) -> Option<(usize, usize)> {
    let tokens: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    for token in &tokens {
        pos = child_start(bytes, pos, token)?;
    }
    Some(line_col(text, pos))
}

fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let before = &text[..pos.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Index just past the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            Some(j)
        }
    }
}

fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

fn child_start(b: &[u8], i: usize, token: &str) -> Option<usize> {
    match *b.get(i)? {
        b'{' => {
            let mut j = skip_ws(b, i + 1);
            while j < b.len() && b[j] != b'}' {
                let key_end = skip_string(b, j)?;
                let key: String = serde_json::from_slice(&b[j..key_end]).ok()?;
                j = skip_ws(b, key_end);
                if b.get(j) != Some(&b':') {
                    return None;
                }
                j = skip_ws(b, j + 1);
                if key == token {
                    return Some(j);
                }
                j = skip_ws(b, skip_value(b, j)?);
                if b.get(j) == Some(&b',') {
                    j = skip_ws(b, j + 1);
                }
            }
            None
        }
        b'[' => {
            let index: usize = token.parse().ok()?;
            let mut j = skip_ws(b, i + 1);
            for _ in 0..index {
                j = skip_ws(b, skip_value(b, j)?);
                if b.get(j) != Some(&b',') {
                    return None;
                }
                j = skip_ws(b, j + 1);
            }
            (j < b.len() && b[j] != b']').then_some(j)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values() {
        let text = "{\n  \"a\": 1,\n  \"messages\": [\n    {\"x\": \"}\"},\n    {\"content\": null}\n  ]\n}";
        assert_eq!(locate_pointer(text, ""), Some((1, 1)));
        assert_eq!(locate_pointer(text, "/messages"), Some((3, 15)));
        assert_eq!(locate_pointer(text, "/messages/1"), Some((5, 5)));
        assert_eq!(locate_pointer(text, "/messages/1/content"), Some((5, 17)));
        assert_eq!(locate_pointer(text, "/messages/2"), None);
    }
}

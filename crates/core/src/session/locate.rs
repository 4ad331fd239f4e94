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

/// Where the child `token` of the container at `i` starts (an object's
/// first key of that name; an array's index).
fn child_start(b: &[u8], i: usize, token: &str) -> Option<usize> {
    let kids = children(b, i)?;
    if *b.get(i)? == b'[' {
        return kids.get(token.parse::<usize>().ok()?).map(|(_, j)| *j);
    }
    kids.into_iter().find(|(k, _)| k == token).map(|(_, j)| j)
}

/// Many pointers into one text: what `locate_pointer` does for each, with
/// the work shared. A lint finding per message located each from the
/// start of the file (quadratic in findings × size); here every container
/// passed through keeps its children's offsets, and lines are counted
/// from the nearest checkpoint.
pub struct Locator<'a> {
    text: &'a str,
    /// Per block of `BLOCK` bytes: the line and column at its start.
    checkpoints: Vec<(usize, usize)>,
    /// A container's offset → its children's (key, value offset); arrays
    /// have empty keys.
    children: std::collections::HashMap<usize, Vec<(String, usize)>>,
}

const BLOCK: usize = 4096;

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Locator<'a> {
        let bytes = text.as_bytes();
        let mut checkpoints = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let (mut line, mut col) = (1, 1);
        for block in bytes.chunks(BLOCK) {
            checkpoints.push((line, col));
            for &b in block {
                if b == b'\n' {
                    line += 1;
                    col = 1;
                } else if (b & 0xC0) != 0x80 {
                    col += 1;
                }
            }
        }
        Locator {
            text,
            checkpoints,
            children: std::collections::HashMap::new(),
        }
    }

    /// The same answer as `locate_pointer(text, pointer)`.
    pub fn locate(&mut self, pointer: &str) -> Option<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let mut pos = skip_ws(bytes, 0);
        if !pointer.is_empty() {
            for token in pointer.strip_prefix('/')?.split('/') {
                let token = token.replace("~1", "/").replace("~0", "~");
                let kids = match self.children.entry(pos) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => e.insert(children(bytes, pos)?),
                };
                pos = match bytes.get(pos) {
                    Some(b'[') => kids.get(token.parse::<usize>().ok()?)?.1,
                    _ => kids.iter().find(|(k, _)| *k == token)?.1,
                };
            }
        }
        Some(self.line_col(pos.min(bytes.len())))
    }

    fn line_col(&self, pos: usize) -> (usize, usize) {
        let block = pos / BLOCK;
        let Some(&(mut line, mut col)) = self.checkpoints.get(block) else {
            return line_col(self.text, pos);
        };
        for &b in &self.text.as_bytes()[block * BLOCK..pos] {
            if b == b'\n' {
                line += 1;
                col = 1;
            } else if (b & 0xC0) != 0x80 {
                col += 1;
            }
        }
        (line, col)
    }
}

/// The children of the container at `i`, in order: (key, value offset);
/// `None` when it is not a container or is malformed.
fn children(b: &[u8], i: usize) -> Option<Vec<(String, usize)>> {
    let mut out = Vec::new();
    match *b.get(i)? {
        b'{' => {
            let mut seen = std::collections::HashSet::new();
            let mut j = skip_ws(b, i + 1);
            while j < b.len() && b[j] != b'}' {
                let key_end = skip_string(b, j)?;
                let key: String = serde_json::from_slice(&b[j..key_end]).ok()?;
                j = skip_ws(b, key_end);
                if b.get(j) != Some(&b':') {
                    return None;
                }
                j = skip_ws(b, j + 1);
                // The first of duplicate keys, as `child_start` finds it.
                if seen.insert(key.clone()) {
                    out.push((key, j));
                }
                j = skip_ws(b, skip_value(b, j)?);
                if b.get(j) == Some(&b',') {
                    j = skip_ws(b, j + 1);
                }
            }
        }
        b'[' => {
            let mut j = skip_ws(b, i + 1);
            while j < b.len() && b[j] != b']' {
                out.push((String::new(), j));
                j = skip_ws(b, skip_value(b, j)?);
                if b.get(j) != Some(&b',') {
                    break;
                }
                j = skip_ws(b, j + 1);
            }
        }
        _ => return None,
    }
    Some(out)
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

    #[test]
    fn the_locator_agrees_with_locate_pointer() {
        let text = "{\n  \"a\": 1, \"a\": [\"é\", {\"b\": 2}],\n  \"messages\": [\n    {\"x\": \"}\"},\n    {\"content\": null}\n  ]\n}";
        let mut loc = Locator::new(text);
        for p in [
            "",
            "/a",
            "/a/0",
            "/a/1/b",
            "/messages",
            "/messages/0",
            "/messages/0/x",
            "/messages/1",
            "/messages/1/content",
            "/messages/2",
            "/nope",
            "/a/x",
        ] {
            assert_eq!(loc.locate(p), locate_pointer(text, p), "{p}");
        }
        let long = format!("[{}\"é\"]", "1,\n".repeat(5000));
        let mut loc = Locator::new(&long);
        for i in [0, 1, 1234, 4999, 5000, 5001] {
            let p = format!("/{i}");
            assert_eq!(loc.locate(&p), locate_pointer(&long, &p), "{p}");
        }
    }
}

//! A save of a large session that reads only what was edited: the
//! messages are compared with those the file was loaded with (packed
//! bytes, no trees), and only the stretch between the first and the last
//! changed message is parsed and spliced; every other byte is copied. The
//! result is the whole-document splice's (`render_saved`), which it falls
//! back to whenever the shortcut does not apply.

use super::{render_saved, InputShape, SaveError, Session};
use std::ops::Range;

/// `original` (the text `base` was parsed from) with `session`'s edits, in
/// the file's style: the same text as `render_saved(original, session)`.
pub fn render_saved_over(
    original: &str,
    base: &Session,
    session: &Session,
) -> Result<String, SaveError> {
    let shortcut = base.shape == session.shape
        && matches!(session.shape, InputShape::Session | InputShape::BareArray)
        && base.settings == session.settings
        && base.tools == session.tools;
    let items = shortcut
        .then(|| message_spans(original, session.shape))
        .flatten()
        .filter(|items| !items.is_empty() && items.len() == base.messages.len());
    let Some(items) = items else {
        return render_saved(original, session);
    };
    let (old, new) = (&base.messages, &session.messages);
    let same_start = old
        .iter()
        .zip(new.iter())
        .take_while(|(a, b)| a == b)
        .count();
    if same_start == old.len() && old.len() == new.len() {
        return Ok(original.to_string());
    }
    let same_end = old[same_start..]
        .iter()
        .rev()
        .zip(new[same_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    // One unchanged message on each side stays in the part parsed, so the
    // separators and indentation around the change are the file's.
    let lo = same_start.saturating_sub(1);
    let hi = (old.len() - same_end + 1).min(old.len());
    let kept_after = old.len() - hi;
    let head = &original[..items[0].start];
    let tail = &original[items[items.len() - 1].end..];
    let part = &original[items[lo].start..items[hi - 1].end];
    let reduced = format!("{head}{part}{tail}");
    let cut = Session {
        path: None,
        shape: session.shape,
        messages: new[lo..new.len() - kept_after].to_vec().into(),
        tools: session.tools.clone(),
        settings: session.settings.clone(),
        warnings: Vec::new(),
    };
    // Escaping non-ASCII text is the whole file's style, not the part's.
    let ensure_ascii = original.is_ascii() && original.contains("\\u");
    let spliced = super::save::render_saved_styled(&reduced, &cut, Some(ensure_ascii))?;
    let Some(after) = spliced
        .strip_prefix(head)
        .and_then(|s| s.strip_suffix(tail))
    else {
        return render_saved(original, session);
    };
    let mut out = String::with_capacity(original.len() + after.len());
    out.push_str(&original[..items[lo].start]);
    out.push_str(after);
    out.push_str(&original[items[hi - 1].end..]);
    Ok(out)
}

/// The byte spans of the messages in `text`: the items of the top-level
/// array, or of the top-level object's last `"messages"` array (the one a
/// parser keeps). `None` when that is not plain (a key with an escape, a
/// syntax error): the caller then parses the whole document.
fn message_spans(text: &str, shape: InputShape) -> Option<Vec<Range<usize>>> {
    let b = text.as_bytes();
    let mut at = ws(b, 0);
    match shape {
        InputShape::BareArray => array_items(b, at).map(|(items, _)| items),
        InputShape::Session => {
            if b.get(at) != Some(&b'{') {
                return None;
            }
            at = ws(b, at + 1);
            let mut found = None;
            if b.get(at) == Some(&b'}') {
                return None;
            }
            loop {
                let key_end = string_end(b, at)?;
                let key = &text[at + 1..key_end - 1];
                if key.contains('\\') {
                    return None;
                }
                at = ws(b, key_end);
                if b.get(at) != Some(&b':') {
                    return None;
                }
                at = ws(b, at + 1);
                if key == "messages" {
                    let (items, end) = array_items(b, at)?;
                    found = Some(items);
                    at = end;
                } else {
                    at = value_end(b, at)?;
                }
                at = ws(b, at);
                match b.get(at) {
                    Some(b',') => at = ws(b, at + 1),
                    Some(b'}') => return found,
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

fn ws(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end (one past the closing quote) of the string starting at `at`.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting at `at` (containers by their brackets,
/// strings by their quotes, scalars up to a delimiter).
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at)? {
        b'"' => string_end(b, at),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < b.len() && !matches!(b[i], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

/// The spans of the items of the array starting at `at`, and its end.
fn array_items(b: &[u8], at: usize) -> Option<(Vec<Range<usize>>, usize)> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let mut items = Vec::new();
    let mut i = ws(b, at + 1);
    if b.get(i) == Some(&b']') {
        return Some((items, i + 1));
    }
    loop {
        let end = value_end(b, i)?;
        items.push(i..end);
        i = ws(b, end);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b']') => return Some((items, i + 1)),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse_session;
    use serde_json::json;

    const TEXT: &str = "{\"title\": \"t\",\n  \"messages\": [\n    {\"name\": \"a\", \"role\": \"user\", \"content\": \"1\", \"n\": 1e5},\n    {\"name\": \"b\", \"role\": \"user\", \"content\": \"2\"},\n    {\"name\": \"c\", \"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"3\"}]},\n    {\"name\": \"d\", \"role\": \"user\", \"content\": \"4\"}\n  ],\n  \"max_tokens\": 10\n}\n";

    /// Every kind of edit gives the whole-document splice's text.
    #[test]
    fn the_shortcut_writes_what_the_whole_splice_writes() {
        let m = |name: &str| json!({"name": name, "role": "assistant", "content": "new"});
        type Edit<'a> = Box<dyn Fn(&mut Session) + 'a>;
        let edits: Vec<Edit> = vec![
            Box::new(|_| {}),
            Box::new(|s| s.messages_mut()[0] = m("x").into()),
            Box::new(|s| s.messages_mut()[1] = m("x").into()),
            Box::new(|s| s.messages_mut()[3] = m("x").into()),
            Box::new(|s| {
                s.messages_mut()[1] = m("x").into();
                s.messages_mut()[2] = m("y").into();
            }),
            Box::new(|s| {
                s.messages_mut().remove(0);
            }),
            Box::new(|s| {
                s.messages_mut().remove(2);
            }),
            Box::new(|s| {
                s.messages_mut().pop();
            }),
            Box::new(|s| s.messages_mut().push(m("z").into())),
            Box::new(|s| s.messages_mut().insert(0, m("z").into())),
            Box::new(|s| s.messages_mut().insert(2, m("z").into())),
            Box::new(|s| s.messages_mut().clear()),
            Box::new(|s| {
                s.settings.insert("model".into(), json!("qwen-max"));
            }),
        ];
        for (i, edit) in edits.iter().enumerate() {
            for text in [
                TEXT.to_string(),
                TEXT.replace("\n    ", "").replace("\n  ", ""),
            ] {
                let base = parse_session(&text, "s").unwrap();
                let mut session = base.clone();
                edit(&mut session);
                assert_eq!(
                    render_saved_over(&text, &base, &session).unwrap(),
                    render_saved(&text, &session).unwrap(),
                    "edit {i} of {text}"
                );
            }
        }
        let array = "[{\"name\": \"a\"},\n {\"name\": \"b\"}]";
        let base = parse_session(array, "s").unwrap();
        let mut session = base.clone();
        session.messages_mut()[1] = m("x").into();
        assert_eq!(
            render_saved_over(array, &base, &session).unwrap(),
            render_saved(array, &session).unwrap()
        );
    }

    #[test]
    fn the_spans_are_the_messages_the_parser_keeps() {
        let text = "{\"messages\": [1], \"x\": {\"messages\": [9]}, \"messages\": [{\"a\": \"]}\\\"\"}, 2]}";
        let spans = message_spans(text, InputShape::Session).unwrap();
        let items: Vec<&str> = spans.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(items, ["{\"a\": \"]}\\\"\"}", "2"]);
        assert_eq!(
            message_spans("{\"messag\\u0065s\": []}", InputShape::Session),
            None
        );
    }
}

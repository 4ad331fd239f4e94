//! Writing a changed document back over its original text: every value
//! that did not change keeps its bytes (indentation, number text, escapes,
//! duplicate keys, the final newline); only what changed is written anew,
//! in the file's own style.

use super::{Node, NodeKind};
use serde_json::{Map, Value};

/// How the file writes JSON, so new parts look like the old ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// One level of indentation; `None` when the file is on one line.
    pub indent: Option<String>,
    /// Between array items or object members on one line: `", "` or `","`.
    pub item_sep: String,
    /// Between a key and its value: `": "` or `":"`.
    pub key_sep: String,
    /// The file escapes every non-ASCII character (`\u00e9`), as Python's
    /// `json.dump` does by default.
    pub ensure_ascii: bool,
}

impl Style {
    /// The style of `text`, read off its first containers.
    pub fn detect(text: &str, tree: &Node) -> Style {
        let mut style = Style {
            indent: None,
            item_sep: ", ".into(),
            key_sep: ": ".into(),
            ensure_ascii: text.is_ascii() && text.contains("\\u"),
        };
        let mut key_sep_found = false;
        let mut item_sep_found = false;
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            let children: Vec<&Node> = match &node.kind {
                NodeKind::Scalar => continue,
                NodeKind::Array(items) => items.iter().collect(),
                NodeKind::Object(members) => {
                    if let Some(m) = members.first() {
                        if !key_sep_found {
                            let between = &text[m.key_span.end..m.value.span.start];
                            style.key_sep = between.trim_matches(['\n', '\r']).to_string();
                            key_sep_found = true;
                        }
                    }
                    members.iter().map(|m| &m.value).collect()
                }
            };
            if let Some(first) = children.first() {
                let opening =
                    &text[node.span.start + 1..first_start(node).unwrap_or(first.span.start)];
                if style.indent.is_none() && opening.contains('\n') {
                    let child = indent_of_line(text, first_start(node).unwrap_or(first.span.start));
                    let own = indent_of_line(text, node.span.start);
                    if let Some(unit) = child.strip_prefix(own).filter(|u| !u.is_empty()) {
                        style.indent = Some(unit.to_string());
                    }
                }
                if !item_sep_found && children.len() > 1 && !opening.contains('\n') {
                    let end = first.span.end;
                    let next = second_start(node).unwrap_or(end);
                    style.item_sep = text[end..next].to_string();
                    item_sep_found = true;
                }
            }
            stack.extend(children.iter().rev());
        }
        if !item_sep_found && style.key_sep == ":" {
            // No list to read it from: compact files use "," with ":".
            style.item_sep = ",".into();
        }
        style
    }
}

/// Where a container's first child starts (its key, for an object).
fn first_start(node: &Node) -> Option<usize> {
    match &node.kind {
        NodeKind::Scalar => None,
        NodeKind::Array(items) => items.first().map(|n| n.span.start),
        NodeKind::Object(members) => members.first().map(|m| m.key_span.start),
    }
}

fn second_start(node: &Node) -> Option<usize> {
    match &node.kind {
        NodeKind::Scalar => None,
        NodeKind::Array(items) => items.get(1).map(|n| n.span.start),
        NodeKind::Object(members) => members.get(1).map(|m| m.key_span.start),
    }
}

/// The whitespace that starts the line holding byte `at`.
fn indent_of_line(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..at];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// `original` (which parsed to `old`, with `tree` its spans) rewritten so
/// that it parses to `new`.
pub fn splice(original: &str, tree: &Node, old: &Value, new: &Value, style: &Style) -> String {
    let mut r = Renderer {
        text: original,
        style,
        out: String::with_capacity(original.len()),
    };
    r.out.push_str(&original[..tree.span.start]);
    let indent = indent_of_line(original, tree.span.start).to_string();
    r.value(tree, old, new, &indent);
    r.out.push_str(&original[tree.span.end..]);
    r.out
}

/// Whether two values are the same document value. Numbers compare as the
/// formatters see them (`1e5` and `100000.0` are one float, as Python's
/// `json` reads them), but an integer never equals a float.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_str(), y.as_str());
            if x == y {
                return true;
            }
            let float = |s: &str| s.contains(['.', 'e', 'E']);
            match (float(x), float(y)) {
                (true, true) => match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => p.to_bits() == q.to_bits(),
                    _ => false,
                },
                (false, false) => int_text(x) == int_text(y),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

/// `-0` is `0` to Python.
fn int_text(s: &str) -> &str {
    if s == "-0" {
        "0"
    } else {
        s
    }
}

struct Renderer<'a> {
    text: &'a str,
    style: &'a Style,
    out: String,
}

impl Renderer<'_> {
    fn verbatim(&mut self, node: &Node) {
        self.out.push_str(&self.text[node.span.clone()]);
    }

    /// Writes `new` where `node` (which held `old`) was; `indent` is the
    /// indentation of the line the value starts on.
    fn value(&mut self, node: &Node, old: &Value, new: &Value, indent: &str) {
        if same(old, new) {
            return self.verbatim(node);
        }
        match (&node.kind, old, new) {
            (NodeKind::Object(members), Value::Object(om), Value::Object(nm))
                if !members.is_empty() && keeps_order(members, nm) =>
            {
                self.object(node, members, om, nm, indent)
            }
            (NodeKind::Array(items), Value::Array(oa), Value::Array(na)) if !items.is_empty() => {
                self.array(node, items, oa, na, indent)
            }
            _ => self.fresh(new, indent),
        }
    }

    /// The separator to put between two new neighbours in a container whose
    /// first child follows `opening` (the text after `{` or `[`).
    fn default_sep(&self, opening: &str, original_sep: Option<&str>) -> String {
        match original_sep {
            Some(sep) => sep.to_string(),
            None if opening.contains('\n') => format!(",{opening}"),
            None => self.style.item_sep.clone(),
        }
    }

    fn object(
        &mut self,
        node: &Node,
        members: &[super::Member],
        om: &Map<String, Value>,
        nm: &Map<String, Value>,
        indent: &str,
    ) {
        let text = self.text;
        let first = &members[0];
        let last = &members[members.len() - 1];
        let opening = &text[node.span.start + 1..first.key_span.start];
        let closing = &text[last.value.span.end..node.span.end - 1];
        let seps: Vec<&str> = members
            .windows(2)
            .map(|w| &text[w[0].value.span.end..w[1].key_span.start])
            .collect();
        let default_sep = self.default_sep(opening, seps.first().copied());
        let key_sep = text[first.key_span.end..first.value.span.start].to_string();
        let child_indent = if opening.contains('\n') {
            indent_of_line(text, first.key_span.start).to_string()
        } else {
            indent.to_string()
        };
        self.out.push('{');
        self.out.push_str(opening);
        let mut wrote_any = false;
        let mut pending_sep: Option<String> = None;
        for (i, m) in members.iter().enumerate() {
            let Some(new_value) = nm.get(&m.key) else {
                continue;
            };
            if let Some(sep) = pending_sep.take() {
                self.out.push_str(&sep);
            }
            let is_last_occurrence = members[i + 1..].iter().all(|later| later.key != m.key);
            if is_last_occurrence {
                self.out
                    .push_str(&text[m.key_span.start..m.value.span.start]);
                let old_value = om.get(&m.key).unwrap_or(&Value::Null);
                let line_indent = indent_of_line(text, m.value.span.start).to_string();
                self.value(&m.value, old_value, new_value, &line_indent);
            } else {
                // An earlier duplicate: ignored by every reader, kept as written.
                self.out.push_str(&text[m.key_span.start..m.value.span.end]);
            }
            wrote_any = true;
            pending_sep = Some(seps.get(i).map_or(default_sep.clone(), |s| s.to_string()));
        }
        for (key, value) in nm {
            if om.contains_key(key) {
                continue;
            }
            if wrote_any {
                self.out.push_str(&default_sep);
            }
            self.string(key);
            self.out.push_str(&key_sep);
            self.fresh(value, &child_indent);
            wrote_any = true;
        }
        if wrote_any {
            self.out.push_str(closing);
        }
        self.out.push('}');
    }

    fn array(&mut self, node: &Node, items: &[Node], oa: &[Value], na: &[Value], indent: &str) {
        let text = self.text;
        let opening = &text[node.span.start + 1..items[0].span.start];
        let closing = &text[items[items.len() - 1].span.end..node.span.end - 1];
        let seps: Vec<&str> = items
            .windows(2)
            .map(|w| &text[w[0].span.end..w[1].span.start])
            .collect();
        let default_sep = self.default_sep(opening, seps.first().copied());
        let child_indent = if opening.contains('\n') {
            indent_of_line(text, items[0].span.start).to_string()
        } else {
            indent.to_string()
        };
        // Old items kept at the front and the back, then the middle paired up.
        let n_old = oa.len().min(items.len());
        let mut prefix = 0;
        while prefix < n_old && prefix < na.len() && same(&oa[prefix], &na[prefix]) {
            prefix += 1;
        }
        let mut suffix = 0;
        while suffix < n_old - prefix
            && suffix < na.len() - prefix
            && same(&oa[n_old - 1 - suffix], &na[na.len() - 1 - suffix])
        {
            suffix += 1;
        }
        let old_middle = prefix..n_old - suffix;
        let new_middle = prefix..na.len() - suffix;
        // What each new item is written from: an old item kept as is, an old
        // item edited in place, or nothing (written fresh).
        enum From {
            Kept(usize),
            Edited(usize),
            Fresh,
        }
        let mut used = vec![false; n_old];
        let search = old_middle.len() * new_middle.len() <= 10_000;
        let mut plan: Vec<From> = (0..prefix).map(From::Kept).collect();
        for j in new_middle.clone() {
            let moved = search
                .then(|| {
                    old_middle
                        .clone()
                        .find(|&k| !used[k] && same(&oa[k], &na[j]))
                })
                .flatten();
            let from = match moved {
                Some(k) => From::Kept(k),
                None => {
                    let k = j; // the same position
                    if old_middle.contains(&k) && !used[k] {
                        From::Edited(k)
                    } else {
                        From::Fresh
                    }
                }
            };
            if let From::Kept(k) | From::Edited(k) = from {
                used[k] = true;
            }
            plan.push(from);
        }
        plan.extend((n_old - suffix..n_old).map(From::Kept));
        if plan.is_empty() {
            self.out.push_str("[]");
            return;
        }
        self.out.push('[');
        self.out.push_str(opening);
        let mut previous: Option<usize> = None;
        for (j, from) in plan.iter().enumerate() {
            let source = match from {
                From::Kept(k) | From::Edited(k) => Some(*k),
                From::Fresh => None,
            };
            if j > 0 {
                let sep = match (previous, source) {
                    (Some(p), Some(k)) if k == p + 1 => seps[p].to_string(),
                    _ => default_sep.clone(),
                };
                self.out.push_str(&sep);
            }
            match from {
                From::Kept(k) => self.verbatim(&items[*k]),
                From::Edited(k) => {
                    let line_indent = indent_of_line(text, items[*k].span.start).to_string();
                    self.value(&items[*k], &oa[*k], &na[j], &line_indent)
                }
                From::Fresh => self.fresh(&na[j], &child_indent),
            }
            previous = source;
        }
        self.out.push_str(closing);
        self.out.push(']');
    }

    /// `value` written in the file's style, starting on a line indented by
    /// `indent`.
    fn fresh(&mut self, value: &Value, indent: &str) {
        match value {
            Value::Array(items) if !items.is_empty() => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let inner = self.open_line(indent, i);
                    self.fresh(item, &inner);
                }
                self.close_line(indent);
                self.out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                self.out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let inner = self.open_line(indent, i);
                    self.string(key);
                    let key_sep = self.style.key_sep.clone();
                    self.out.push_str(&key_sep);
                    self.fresh(item, &inner);
                }
                self.close_line(indent);
                self.out.push('}');
            }
            Value::Array(_) => self.out.push_str("[]"),
            Value::Object(_) => self.out.push_str("{}"),
            Value::String(s) => self.string(s),
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// Before the `i`th child: a new line one level in, or the one-line
    /// separator's space. Returns the child's indentation.
    fn open_line(&mut self, indent: &str, i: usize) -> String {
        match &self.style.indent {
            Some(unit) => {
                let inner = format!("{indent}{unit}");
                self.out.push('\n');
                self.out.push_str(&inner);
                inner
            }
            None => {
                if i > 0 {
                    // The separator minus its comma, already written.
                    let space = self.style.item_sep.trim_start_matches(',').to_string();
                    self.out.push_str(&space);
                }
                indent.to_string()
            }
        }
    }

    fn close_line(&mut self, indent: &str) {
        if self.style.indent.is_some() {
            self.out.push('\n');
            self.out.push_str(indent);
        }
    }

    fn string(&mut self, s: &str) {
        let quoted = Value::String(s.to_string()).to_string();
        if !self.style.ensure_ascii || quoted.is_ascii() {
            self.out.push_str(&quoted);
            return;
        }
        for c in quoted.chars() {
            if c.is_ascii() {
                self.out.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    self.out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
}

/// Whether the keys `new` shares with the old members come in the old
/// order (else the object is rewritten whole).
fn keeps_order(members: &[super::Member], new: &Map<String, Value>) -> bool {
    let mut last = 0;
    for key in new.keys() {
        // The position that counts is a key's last occurrence (the one read).
        if let Some(pos) = members.iter().rposition(|m| &m.key == key) {
            if pos < last {
                return false;
            }
            last = pos;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, Options};

    fn resave(text: &str, edit: impl FnOnce(&mut Value)) -> String {
        let parsed = parse(text.as_bytes(), Options::with_spans()).unwrap();
        let tree = parsed.tree.unwrap();
        let mut new = parsed.value.clone();
        edit(&mut new);
        let style = Style::detect(text, &tree);
        let out = splice(text, &tree, &parsed.value, &new, &style);
        let back = parse(out.as_bytes(), Options::default()).unwrap().value;
        assert!(same(&back, &new), "{out}");
        out
    }

    const ONE_SPACE: &str = "{\n \"title\": \"t\",\n \"n\": 1e5,\n \"messages\": [\n  {\"name\": \"a\", \"role\": \"user\", \"content\": \"hi\", \"x\": 1.50},\n  {\"name\": \"b\", \"role\": \"user\", \"content\": \"yo\"}\n ]\n}";

    #[test]
    fn an_unchanged_document_is_written_back_byte_for_byte() {
        assert_eq!(resave(ONE_SPACE, |_| {}), ONE_SPACE);
    }

    #[test]
    fn an_edit_changes_only_its_own_bytes() {
        let out = resave(ONE_SPACE, |v| {
            v["messages"][1]["content"] = "changed".into()
        });
        assert_eq!(out, ONE_SPACE.replace("\"yo\"", "\"changed\""));
    }

    #[test]
    fn a_deleted_item_takes_its_separator_with_it() {
        let out = resave(ONE_SPACE, |v| {
            v["messages"].as_array_mut().unwrap().remove(0);
        });
        assert_eq!(
            out,
            "{\n \"title\": \"t\",\n \"n\": 1e5,\n \"messages\": [\n  {\"name\": \"b\", \"role\": \"user\", \"content\": \"yo\"}\n ]\n}"
        );
        let out = resave(ONE_SPACE, |v| {
            v["messages"].as_array_mut().unwrap().remove(1);
        });
        assert!(out.contains("\"x\": 1.50}\n ]\n}"), "{out}");
    }

    #[test]
    fn new_items_and_keys_take_the_files_indentation() {
        let out = resave(ONE_SPACE, |v| {
            v["messages"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"name": "c", "content": ["é"]}));
            v["max_tokens"] = 10.into();
        });
        assert!(
            out.ends_with(
                "  {\n   \"name\": \"c\",\n   \"content\": [\n    \"é\"\n   ]\n  }\n ],\n \"max_tokens\": 10\n}"
            ),
            "{out}"
        );
    }

    #[test]
    fn numbers_that_read_the_same_keep_their_text() {
        let out = resave(ONE_SPACE, |v| {
            v["n"] = serde_json::from_str("100000.0").unwrap();
            v["messages"][0]["x"] = serde_json::from_str("1.5").unwrap();
        });
        assert_eq!(out, ONE_SPACE);
        let out = resave("[1, 2.0]", |v| v[0] = serde_json::from_str("1.0").unwrap());
        assert_eq!(out, "[1.0, 2.0]", "an int that becomes a float is an edit");
    }

    #[test]
    fn duplicate_keys_outside_the_edit_are_kept() {
        let text = r#"{"a": 1, "a": 2, "b": "x"}"#;
        assert_eq!(
            resave(text, |v| v["b"] = "y".into()),
            r#"{"a": 1, "a": 2, "b": "y"}"#
        );
    }

    #[test]
    fn swapped_items_move_with_their_bytes() {
        let text = "[\n  {\"a\":  1},\n  {\"b\":   2}\n]\n";
        let out = resave(text, |v| v.as_array_mut().unwrap().swap(0, 1));
        assert_eq!(out, "[\n  {\"b\":   2},\n  {\"a\":  1}\n]\n");
    }

    #[test]
    fn compact_and_ascii_only_files_stay_so() {
        let text = r#"{"messages":[{"content":"caf\u00e9"}]}"#;
        let out = resave(text, |v| {
            v["messages"]
                .as_array_mut()
                .unwrap()
                .push(serde_json::json!({"content": "naïve"}))
        });
        assert_eq!(
            out,
            r#"{"messages":[{"content":"caf\u00e9"},{"content":"na\u00efve"}]}"#
        );
    }
}

//! Two requests side by side (the compare view): each side is cut into
//! parts that know their source messages, the parts are aligned by source
//! message (message 4 on the left faces message 4 on the right, however
//! many lines each takes), and every line carries the mark of the
//! structural diff `formatscope diff` prints for the same two documents
//! (added, removed, changed, renamed, moved), so the view and the command
//! count the same changes. The workbench's compare pane and the HTML
//! handout draw the same rows.

use crate::diff::align::{align, Step};
use crate::diff::{marks_tallied, Mark, Tally};
use crate::formatter::Span;
use serde_json::Value;
use std::ops::Range;

#[path = "compare_sources.rs"]
mod sources;
use sources::borrow_sources;

/// A piece of a request: the value at `pointer` in the side's document,
/// and the input messages it came from (`None`: not from a message, such
/// as a wire body's `model` or `tools`).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub pointer: String,
    pub source: Option<Range<usize>>,
}

/// One side: a label, the document (`{"messages": [...]}` for the
/// formatter's output, the body for the wire) and its parts in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub label: String,
    pub doc: Value,
    pub parts: Vec<Part>,
    /// Why there is no request on this side (AgentScope raised, ...).
    pub note: Option<String>,
    /// Each source message's identity, when the two sides come from two
    /// versions of the session (last save / now): messages then face their
    /// counterparts by identity, not by index. Empty: by index.
    pub identities: Vec<Identity>,
}

/// Who a session message is: its `id` when it has one, else its content;
/// and its role, so that an edited message without an id still faces its
/// old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub key: u64,
    pub role: u64,
}

impl Identity {
    pub fn of(message: &Value) -> Identity {
        let id = message.get("id").filter(|v| v.is_string() || v.is_number());
        Identity {
            key: match id {
                Some(id) => crate::diff::moves::hash(&crate::json!({ "id": id })),
                None => crate::diff::moves::hash(message),
            },
            role: crate::diff::moves::hash(message.get("role").unwrap_or(&Value::Null)),
        }
    }
}

/// Keys a wire body holds the conversation under, in the order tried.
const MESSAGE_ARRAYS: [&str; 3] = ["/messages", "/input/messages", "/contents"];
/// Top-level keys a model class moves the system prompt to.
const SYSTEM_KEYS: [&str; 3] = ["system", "systemInstruction", "system_instruction"];

impl Side {
    /// The formatter's output, with the spans of the formatting
    /// (`(input messages, output messages)`, as the budget model gives).
    pub fn formatted(label: impl Into<String>, messages: Vec<Value>, spans: &[Span]) -> Side {
        let mut parts = Vec::with_capacity(messages.len());
        let mut covered = vec![false; messages.len()];
        for (input, output) in spans {
            for k in output.clone() {
                if let Some(c) = covered.get_mut(k) {
                    *c = true;
                    parts.push(Part {
                        pointer: format!("/messages/{k}"),
                        source: Some(input.clone()),
                    });
                }
            }
        }
        // Without spans (or past them), output messages stand alone.
        for (k, c) in covered.iter().enumerate() {
            if !c {
                parts.push(Part {
                    pointer: format!("/messages/{k}"),
                    source: None,
                });
            }
        }
        Side {
            label: label.into(),
            doc: crate::json!({ "messages": messages }),
            parts,
            note: None,
            identities: Vec::new(),
        }
    }

    /// The side with its source messages' identities.
    pub fn with_identities(mut self, identities: Vec<Identity>) -> Side {
        self.identities = identities;
        self
    }

    /// A wire body built from the formatted messages whose spans are
    /// given: the body's conversation array is matched to them (one for
    /// one, or after a system prompt the model class moved to a top-level
    /// key); every other top-level key is a part of its own.
    pub fn wire(
        label: impl Into<String>,
        body: Value,
        formatted: &[Value],
        spans: &[Span],
    ) -> Side {
        let source_of_output = |k: usize| {
            spans
                .iter()
                .find(|(_, out)| out.contains(&k))
                .map(|(input, _)| input.clone())
        };
        let array = MESSAGE_ARRAYS
            .iter()
            .find(|p| body.pointer(p).is_some_and(Value::is_array))
            .copied();
        let len = array
            .and_then(|p| body.pointer(p))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let system_first = formatted
            .first()
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            == Some("system");
        // How far the body's array is behind the formatter's list.
        let shift = if len == formatted.len() {
            Some(0)
        } else if system_first && len + 1 == formatted.len() {
            Some(1)
        } else {
            None
        };
        let mut parts = Vec::new();
        if let Value::Object(top) = &body {
            for key in top.keys() {
                let pointer = format!("/{}", key.replace('~', "~0").replace('/', "~1"));
                let holds_array =
                    array.is_some_and(|a| a == pointer || a.starts_with(&format!("{pointer}/")));
                if holds_array {
                    let Some(a) = array else { continue };
                    // Siblings of the array inside its container (DashScope's
                    // `input`) stay with the container's other keys.
                    if a != pointer {
                        if let Some(Value::Object(inner)) = body.pointer(&pointer) {
                            for k in inner.keys() {
                                let p = format!("{pointer}/{k}");
                                if p != a {
                                    parts.push(Part {
                                        pointer: p,
                                        source: None,
                                    });
                                }
                            }
                        }
                    }
                    for k in 0..len {
                        let source = shift.and_then(|s| source_of_output(k + s));
                        parts.push(Part {
                            pointer: format!("{a}/{k}"),
                            source,
                        });
                    }
                } else {
                    let source = (shift == Some(1) && SYSTEM_KEYS.contains(&key.as_str()))
                        .then(|| source_of_output(0))
                        .flatten();
                    parts.push(Part { pointer, source });
                }
            }
        }
        Side {
            label: label.into(),
            doc: body,
            parts,
            note: None,
            identities: Vec::new(),
        }
    }

    /// A side with nothing to show but why.
    pub fn failed(label: impl Into<String>, why: impl Into<String>) -> Side {
        Side {
            label: label.into(),
            doc: Value::Null,
            parts: Vec::new(),
            note: Some(why.into()),
            identities: Vec::new(),
        }
    }

    /// The source messages of the part holding `pointer`.
    pub fn source_of(&self, pointer: &str) -> Option<Range<usize>> {
        self.parts
            .iter()
            .filter(|p| within(pointer, &p.pointer))
            .max_by_key(|p| p.pointer.len())
            .and_then(|p| p.source.clone())
    }
}

/// `pointer` is `at` or inside it.
fn within(pointer: &str, at: &str) -> bool {
    pointer == at
        || (pointer.starts_with(at) && pointer.as_bytes().get(at.len()) == Some(&b'/'))
        || at.is_empty()
}

/// One line of one side.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    /// The value the line belongs to.
    pub pointer: String,
    pub mark: Option<Mark>,
}

/// A row of the aligned view: a group's heading, or a line on either
/// side (`None`: padding where the other side is longer).
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    Heading(String),
    Lines(Option<Line>, Option<Line>),
}

/// The operations of the diff between the two sides, as
/// `formatscope diff` counts them ([`Tally`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub renamed: usize,
    pub moved: usize,
}

impl From<Tally> for Counts {
    fn from(t: Tally) -> Counts {
        Counts {
            added: t.added,
            removed: t.removed,
            changed: t.changed,
            renamed: t.renamed,
            moved: t.moved,
        }
    }
}

impl Counts {
    /// The changes `formatscope diff` lists for the same two requests.
    pub fn changes(&self) -> usize {
        self.added + self.removed + self.changed + self.renamed
    }

    pub fn summary(&self) -> String {
        if *self == Counts::default() {
            return "identical".into();
        }
        let mut out = Vec::new();
        for (n, what) in [
            (self.added, "added"),
            (self.removed, "removed"),
            (self.changed, "changed"),
            (self.renamed, "renamed"),
            (self.moved, "moved"),
        ] {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        }
        out.join(" · ")
    }
}

/// Two sides aligned.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    pub left: String,
    pub right: String,
    pub rows: Vec<Row>,
    /// Marked nodes, counted once per side's mark.
    pub counts: Counts,
    /// Each group's source messages and its heading row.
    pub groups: Vec<(Option<Range<usize>>, usize)>,
}

/// Groups of parts that face each other.
struct Group {
    source: Option<Range<usize>>,
    title: String,
    left: Vec<usize>,
    right: Vec<usize>,
}

/// The two sides aligned and marked as `formatscope diff` diffs them: one
/// walk over the two documents gives every line's mark and the counts
/// (so the view and the command say the same), and the rows face each
/// other by source message. A part with no source message of its own (a
/// release that reports no spans, what AgentScope recorded) takes the
/// source of the part the diff aligns it with.
pub fn compare(left: &Side, right: &Side) -> Compared {
    let (marks, counts) = side_marks(left, right);
    let borrowed = borrow_sources(left, right);
    let (left, right) = match &borrowed {
        Some((l, r)) => (l, r),
        None => (left, right),
    };
    let order = Order::of(left, right);
    let groups = groups(left, right, &order);
    let mut rows = Vec::new();
    let mut heads = Vec::new();
    for side in [left, right] {
        if let Some(n) = &side.note {
            rows.push(Row::Heading(format!("{}: {n}", side.label)));
        }
    }
    for g in groups {
        heads.push((g.source.clone(), rows.len()));
        rows.push(Row::Heading(g.title.clone()));
        let l = side_lines(left, &g.left, &marks.left);
        let r = side_lines(right, &g.right, &marks.right);
        for k in 0..l.len().max(r.len()) {
            rows.push(Row::Lines(l.get(k).cloned(), r.get(k).cloned()));
        }
    }
    Compared {
        left: left.label.clone(),
        right: right.label.clone(),
        rows,
        counts,
        groups: heads,
    }
}

/// Each side's marks (pointers into its own document) and the counts:
/// the diff of the two documents; a side with no request (it raised)
/// leaves every part of the other marked added or removed.
fn side_marks(left: &Side, right: &Side) -> (crate::diff::Marks, Counts) {
    let whole = |side: &Side, mark: Mark| -> Vec<(String, Mark)> {
        side.parts
            .iter()
            .map(|p| (p.pointer.clone(), mark))
            .collect()
    };
    let mut marks = crate::diff::Marks::default();
    let mut counts = Counts::default();
    match (left.doc.is_null(), right.doc.is_null()) {
        (true, true) => {}
        (true, false) => {
            marks.right = whole(right, Mark::Added);
            counts.added = marks.right.len();
        }
        (false, true) => {
            marks.left = whole(left, Mark::Removed);
            counts.removed = marks.left.len();
        }
        (false, false) => {
            let (m, tally) = marks_tallied(&left.doc, &right.doc);
            (marks, counts) = (m, Counts::from(tally));
        }
    }
    (marks, counts)
}

/// Both sides' source messages on one scale: a message and its
/// counterpart on the other side get one position, a message only on one
/// side a position of its own between its neighbours. Without identities
/// (one version of the session on both sides), a message's index.
struct Order {
    left: Vec<usize>,
    right: Vec<usize>,
    /// Each position's message on each side.
    names: Vec<Pair>,
}

/// A position's message on the left and on the right.
type Pair = (Option<usize>, Option<usize>);

impl Order {
    fn of(left: &Side, right: &Side) -> Order {
        let (a, b) = (&left.identities, &right.identities);
        if a.is_empty() || b.is_empty() {
            return Order {
                left: Vec::new(),
                right: Vec::new(),
                names: Vec::new(),
            };
        }
        let (ka, kb): (Vec<u64>, Vec<u64>) = (
            a.iter().map(|x| x.key).collect(),
            b.iter().map(|x| x.key).collect(),
        );
        let steps = align(&ka, &kb, &|_, _| true, &|i, j| a[i].role == b[j].role);
        let mut order = Order {
            left: vec![0; a.len()],
            right: vec![0; b.len()],
            names: Vec::with_capacity(steps.len()),
        };
        for (p, step) in steps.into_iter().enumerate() {
            let (i, j) = match step {
                Step::Same(i, j) | Step::Inside(i, j) => (Some(i), Some(j)),
                Step::Removed(i) => (Some(i), None),
                Step::Added(j) => (None, Some(j)),
            };
            if let Some(i) = i {
                order.left[i] = p;
            }
            if let Some(j) = j {
                order.right[j] = p;
            }
            order.names.push((i, j));
        }
        order
    }

    fn by_index(&self) -> bool {
        self.names.is_empty()
    }

    /// A side's source range on the common scale.
    fn place(&self, is_left: bool, r: &Range<usize>) -> Range<usize> {
        if self.by_index() {
            return r.clone();
        }
        let map = if is_left { &self.left } else { &self.right };
        let at = |i: usize| map.get(i).copied().unwrap_or(self.names.len() + i);
        if r.is_empty() {
            let p = at(r.start);
            return p..p;
        }
        at(r.start)..at(r.end - 1) + 1
    }

    /// The right side's messages at positions `r` (the workbench's own
    /// numbering: the right side is the session on screen), else the
    /// left's.
    fn numbers(&self, r: &Range<usize>) -> (Option<Range<usize>>, Option<Range<usize>>) {
        if self.by_index() {
            return (Some(r.clone()), Some(r.clone()));
        }
        let span = |pick: fn(&Pair) -> Option<usize>| {
            let found: Vec<usize> = self
                .names
                .get(r.start..r.end.min(self.names.len()))
                .unwrap_or_default()
                .iter()
                .filter_map(pick)
                .collect();
            Some(*found.iter().min()?..*found.iter().max()? + 1)
        };
        (span(|n| n.0), span(|n| n.1))
    }

    /// A group's heading and the source messages it shows (in the right
    /// side's numbering).
    fn title(&self, r: &Range<usize>) -> (String, Option<Range<usize>>) {
        let name = |r: &Range<usize>| {
            if r.len() <= 1 {
                format!("message {}", r.start)
            } else {
                format!("messages {}–{}", r.start, r.end - 1)
            }
        };
        match self.numbers(r) {
            (_, Some(right)) => (name(&right), Some(right)),
            (Some(left), None) => (format!("{} · left only", name(&left)), None),
            (None, None) => (name(r), None),
        }
    }
}

/// Parts grouped by overlapping source messages, in message order; parts
/// from no message after them, matched by pointer.
fn groups(left: &Side, right: &Side, order: &Order) -> Vec<Group> {
    let sources = |is_left: bool, side: &Side| -> Vec<Option<Range<usize>>> {
        side.parts
            .iter()
            .map(|p| p.source.as_ref().map(|r| order.place(is_left, r)))
            .collect()
    };
    let placed = [sources(true, left), sources(false, right)];
    let mut ranges: Vec<Range<usize>> = placed.iter().flatten().flatten().cloned().collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(m) if r.start < m.end.max(m.start + 1) => m.end = m.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let mut out: Vec<(Range<usize>, Group)> = merged
        .into_iter()
        .map(|r| {
            let (title, source) = order.title(&r);
            (
                r,
                Group {
                    title,
                    source,
                    left: Vec::new(),
                    right: Vec::new(),
                },
            )
        })
        .collect();
    let mut others: Vec<Group> = Vec::new();
    for (is_left, side, placed) in [(true, left, &placed[0]), (false, right, &placed[1])] {
        for (i, p) in side.parts.iter().enumerate() {
            let group = match &placed[i] {
                // The groups are sorted and apart: the last one starting
                // at or before this part's messages holds them.
                Some(s) => out
                    .partition_point(|(r, _)| r.start <= s.start)
                    .checked_sub(1)
                    .map(|k| &mut out[k])
                    .filter(|(r, _)| s.start < r.end.max(r.start + 1))
                    .map(|(_, g)| g),
                None => {
                    let key = last_token(&p.pointer);
                    let at = others.iter().position(|g| g.title == key);
                    Some(match at {
                        Some(k) => &mut others[k],
                        None => {
                            others.push(Group {
                                source: None,
                                title: key,
                                left: Vec::new(),
                                right: Vec::new(),
                            });
                            let n = others.len() - 1;
                            &mut others[n]
                        }
                    })
                }
            };
            if let Some(g) = group {
                if is_left {
                    g.left.push(i);
                } else {
                    g.right.push(i);
                }
            }
        }
    }
    let mut out: Vec<Group> = out.into_iter().map(|(_, g)| g).collect();
    out.retain(|g| !g.left.is_empty() || !g.right.is_empty());
    out.extend(others);
    out
}

/// A part's name: its key (`model`, `system`) or, for an array element
/// outside the conversation, its pointer.
fn last_token(pointer: &str) -> String {
    let last = pointer.rsplit('/').next().unwrap_or(pointer);
    if last.parse::<usize>().is_ok() {
        pointer.to_string()
    } else {
        last.replace("~1", "/").replace("~0", "~")
    }
}

/// The lines of a group's parts on one side, marked. `marks` point into
/// the side's own document.
fn side_lines(side: &Side, idx: &[usize], marks: &[(String, Mark)]) -> Vec<Line> {
    let mut out = Vec::new();
    for i in idx {
        let part = &side.parts[*i];
        let Some(value) = side.doc.pointer(&part.pointer) else {
            continue;
        };
        // The part's own marks (an ancestor's, such as a renamed
        // `messages`, would colour every line of it).
        let own: Vec<&(String, Mark)> = marks
            .iter()
            .filter(|(p, _)| within(p, &part.pointer))
            .collect();
        let key = (!last_token(&part.pointer).starts_with('/'))
            .then(|| last_token(&part.pointer))
            .filter(|_| !is_index(&part.pointer));
        let mut lines = Vec::new();
        pretty(value, key.as_deref(), &part.pointer, 0, false, &mut lines);
        for (text, pointer) in lines {
            let mark = own
                .iter()
                .filter(|(p, _)| within(&pointer, p))
                .max_by_key(|(p, _)| p.len())
                .map(|(_, m)| *m);
            out.push(Line {
                text,
                pointer,
                mark,
            });
        }
    }
    out
}

fn is_index(pointer: &str) -> bool {
    pointer
        .rsplit('/')
        .next()
        .is_some_and(|t| t.parse::<usize>().is_ok())
}

/// serde_json's pretty layout (two spaces), one line per scalar, member
/// or bracket, each with the pointer of the value it belongs to.
pub fn pretty(
    value: &Value,
    key: Option<&str>,
    pointer: &str,
    depth: usize,
    comma: bool,
    out: &mut Vec<(String, String)>,
) {
    let indent = "  ".repeat(depth);
    let head = match key {
        Some(k) => format!(
            "{indent}{}: ",
            serde_json::to_string(k).unwrap_or_else(|_| format!("\"{k}\""))
        ),
        None => indent.clone(),
    };
    let tail = if comma { "," } else { "" };
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push((format!("{head}{{"), pointer.to_string()));
            let n = m.len();
            for (i, (k, v)) in m.iter().enumerate() {
                let p = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
                pretty(v, Some(k), &p, depth + 1, i + 1 < n, out);
            }
            out.push((format!("{indent}}}{tail}"), pointer.to_string()));
        }
        Value::Array(a) if !a.is_empty() => {
            out.push((format!("{head}["), pointer.to_string()));
            let n = a.len();
            for (i, v) in a.iter().enumerate() {
                pretty(
                    v,
                    None,
                    &format!("{pointer}/{i}"),
                    depth + 1,
                    i + 1 < n,
                    out,
                );
            }
            out.push((format!("{indent}]{tail}"), pointer.to_string()));
        }
        scalar => out.push((
            format!(
                "{head}{}{tail}",
                serde_json::to_string(scalar).unwrap_or_default()
            ),
            pointer.to_string(),
        )),
    }
}

/// Strings of base64 (data URLs, `data` fields, Ollama images) longer than
/// 200 characters become `<image/png 34 KB>`.
pub fn shorten_media(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(media_label(s).unwrap_or_else(|| s.clone())),
        Value::Array(items) => Value::Array(items.iter().map(shorten_media).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), shorten_media(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What [`shorten_media`] shows string `s` as, where it shortens it: a
/// label for base64 media longer than 200 characters.
pub fn media_label(s: &str) -> Option<String> {
    (s.len() > 200).then(|| short_label(s)).flatten()
}

fn short_label(s: &str) -> Option<String> {
    let (mime, data) = match s.strip_prefix("data:") {
        Some(rest) => {
            let (head, data) = rest.split_once(',')?;
            (head.split(';').next().unwrap_or("data").to_string(), data)
        }
        None => ("base64".to_string(), s),
    };
    let is_b64 = data
        .bytes()
        .take(400)
        .all(|b| b.is_ascii_alphanumeric() || b"+/=\n\r".contains(&b));
    if !is_b64 {
        return None;
    }
    let bytes = data.len() * 3 / 4;
    let size = if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    };
    Some(format!("<{mime} {size}>"))
}

#[cfg(test)]
#[path = "compare_tests.rs"]
mod tests;

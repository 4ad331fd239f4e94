//! A structural JSON diff between two requests (the compare view's first
//! part): JSON Patch operations (RFC 6902 `add`, `remove`, `replace`) whose
//! paths are JSON pointers into the left request and which, applied in
//! order, turn it into the right one.
//!
//! Arrays are aligned by identity, not position ([`align`]: content
//! hashes anchor the alignment, then elements of one kind face each
//! other), in linear time, so one inserted message is one `add` and a
//! deleted one leaves the rest paired. A key renamed in place
//! (`function_call` → `functionCall`, `messages` → `contents`) is one
//! rename, its value compared inside. A value that left one place for
//! another place of the same role ([`moves::role`]: a message's text, the
//! system prompt, a tool schema's description) is marked as moved, beside
//! the operations that still apply; a tool call's name is never "moved"
//! to a tool schema.

pub mod align;
pub mod cache;
pub mod moves;

pub use cache::{
    cache_prefix, first_difference, prompt_prefix, CachePrefix, PromptPrefix, Version,
};

use crate::json;
use align::Step;
use moves::{hash, parts, path_to, tokens, Role};
use serde_json::{Map, Value};
use std::collections::{HashMap, VecDeque};

/// One operation. `moved` names where the value (or its part `part`)
/// went or came from, as a pointer into the other side's document;
/// `renamed` pairs the `remove` and the `add` of a renamed key.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: &'static str,
    pub path: String,
    pub value: Option<Value>,
    pub moved: Option<String>,
    /// The moved part inside `value` (`None`: the whole value moved).
    pub part: Option<String>,
    pub renamed: Option<String>,
}

impl Op {
    fn new(op: &'static str, path: String, value: &Value) -> Op {
        Op {
            op,
            path,
            value: Some(value.clone()),
            moved: None,
            part: None,
            renamed: None,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("op".into(), self.op.into());
        m.insert("path".into(), self.path.clone().into());
        if let Some(v) = &self.value {
            m.insert("value".into(), v.clone());
        }
        let add = self.op == "add";
        if let Some(other) = &self.moved {
            let key = if add { "moved_from" } else { "moved_to" };
            m.insert(key.into(), other.clone().into());
            if let Some(part) = &self.part {
                m.insert("moved_part".into(), part.clone().into());
            }
        }
        if let Some(other) = &self.renamed {
            let key = if add { "renamed_from" } else { "renamed_to" };
            m.insert(key.into(), other.clone().into());
        }
        Value::Object(m)
    }

    /// One line for people (`+ /system (moved from /messages/0/content)`),
    /// or `None` for the `remove` half of a rename (its `add` says it).
    pub fn summary(&self) -> Option<String> {
        if self.renamed.is_some() {
            return (self.op == "add").then(|| {
                format!(
                    "~ {} (renamed from {})",
                    self.path,
                    self.renamed.as_deref().unwrap_or_default()
                )
            });
        }
        let sign = match self.op {
            "add" => "+",
            "remove" => "-",
            _ => "~",
        };
        let shown = || preview(self.value.as_ref().unwrap_or(&Value::Null));
        let what = match (&self.moved, &self.part, self.op) {
            (Some(from), None, "add") => format!(" (moved from {from})"),
            (Some(to), None, _) => format!(" (moved to {to})"),
            (Some(from), Some(part), "add") => {
                format!(": {} (its {part} moved from {from})", shown())
            }
            (Some(to), Some(part), _) => format!(" (its {part} moved to {to})"),
            (None, _, "replace" | "add") => format!(": {}", shown()),
            _ => String::new(),
        };
        Some(format!("{sign} {}{what}", self.path))
    }
}

fn preview(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// `~` and `/` escaped for a JSON pointer token.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// What the walk finds, with the patch path (where the operation applies,
/// as the operations before it have left the document) and each side's
/// own pointer (for marks and roles).
enum Event<'a> {
    Removed {
        path: String,
        left: String,
        value: &'a Value,
    },
    Added {
        path: String,
        right: String,
        value: &'a Value,
    },
    Changed {
        path: String,
        left: String,
        right: String,
        value: &'a Value,
    },
    /// A key renamed in place: the old value is put under the new key, and
    /// the walk goes on inside.
    Renamed {
        from: String,
        to: String,
        left: String,
        right: String,
        value: &'a Value,
    },
}

/// A value that left the left side's place `from` (inside removed event
/// `removed`) for the right side's place `to` (inside added event `added`).
struct Move {
    removed: usize,
    added: usize,
    from: String,
    to: String,
    /// The moved value's path inside each event's value ("" = whole).
    from_part: String,
    to_part: String,
}

/// Where the documents' values sit in the requests they came from, for
/// roles: `None` when the document is the request; for the compare view's
/// groups, element `k` of the document array is at `at[k]`.
#[derive(Clone, Copy)]
pub struct Places<'b> {
    pub left: Option<&'b [String]>,
    pub right: Option<&'b [String]>,
}

impl Places<'_> {
    const REQUEST: Places<'static> = Places {
        left: None,
        right: None,
    };
}

/// The pointer into the request of `pointer` into the document.
fn placed(at: Option<&[String]>, pointer: &str) -> String {
    let Some(at) = at else {
        return pointer.to_string();
    };
    let rest = pointer.strip_prefix('/').unwrap_or(pointer);
    let (first, tail) = rest.split_once('/').map_or((rest, ""), |(f, t)| (f, t));
    match first.parse::<usize>().ok().and_then(|k| at.get(k)) {
        Some(base) if tail.is_empty() => base.clone(),
        Some(base) => format!("{base}/{tail}"),
        None => pointer.to_string(),
    }
}

/// The operations that turn `left` into `right`.
pub fn diff(left: &Value, right: &Value) -> Vec<Op> {
    let mut events = Vec::new();
    walk(left, right, "", "", "", &mut events);
    let moved = moves(&events, Places::REQUEST);
    let mut ops = Vec::with_capacity(events.len());
    // Event index -> its op (a rename makes two).
    let mut at = Vec::with_capacity(events.len());
    for e in &events {
        at.push(ops.len());
        match e {
            Event::Removed { path, value, .. } => ops.push(Op::new("remove", path.clone(), value)),
            Event::Added { path, value, .. } => ops.push(Op::new("add", path.clone(), value)),
            Event::Changed { path, value, .. } => ops.push(Op::new("replace", path.clone(), value)),
            Event::Renamed {
                from,
                to,
                left,
                right,
                value,
            } => {
                let mut remove = Op::new("remove", from.clone(), value);
                remove.renamed = Some(right.clone());
                let mut add = Op::new("add", to.clone(), value);
                add.renamed = Some(left.clone());
                ops.push(remove);
                ops.push(add);
            }
        }
    }
    let part = |p: &str| (!p.is_empty()).then(|| p.to_string());
    for m in moved {
        let r = &mut ops[at[m.removed]];
        r.moved = Some(m.to.clone());
        r.part = part(&m.from_part);
        let a = &mut ops[at[m.added]];
        a.moved = Some(m.from.clone());
        a.part = part(&m.to_part);
    }
    ops
}

fn walk<'a>(
    left: &'a Value,
    right: &'a Value,
    path: &str,
    lp: &str,
    rp: &str,
    out: &mut Vec<Event<'a>>,
) {
    if left == right {
        return;
    }
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            // Keys only on one side, and the renames among them.
            let gone: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
            let new: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
            let mut renamed: HashMap<&str, &str> = HashMap::new();
            let mut taken = vec![false; new.len()];
            for old in &gone {
                let found = (0..new.len()).find(|n| {
                    !taken[*n]
                        && moves::renamed(path.is_empty(), old, new[*n], &a[*old], &b[new[*n]])
                });
                if let Some(n) = found {
                    taken[n] = true;
                    renamed.insert(old.as_str(), new[n].as_str());
                }
            }
            for (k, v) in a {
                let p = format!("{path}/{}", token(k));
                let l = format!("{lp}/{}", token(k));
                if let Some(w) = b.get(k) {
                    walk(v, w, &p, &l, &format!("{rp}/{}", token(k)), out);
                } else if let Some(to) = renamed.get(k.as_str()) {
                    let (tp, r) = (
                        format!("{path}/{}", token(to)),
                        format!("{rp}/{}", token(to)),
                    );
                    out.push(Event::Renamed {
                        from: p,
                        to: tp.clone(),
                        left: l.clone(),
                        right: r.clone(),
                        value: v,
                    });
                    walk(v, &b[*to], &tp, &l, &r, out);
                } else {
                    out.push(Event::Removed {
                        path: p,
                        left: l,
                        value: v,
                    });
                }
            }
            for (n, k) in new.iter().enumerate() {
                if !taken[n] {
                    out.push(Event::Added {
                        path: format!("{path}/{}", token(k)),
                        right: format!("{rp}/{}", token(k)),
                        value: &b[*k],
                    });
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            // Where the next element sits in the array as the operations
            // so far have left it: everything before it is final.
            let mut k = 0usize;
            for step in align_values(a, b) {
                match step {
                    Step::Same(..) => k += 1,
                    Step::Inside(i, j) => {
                        walk(
                            &a[i],
                            &b[j],
                            &format!("{path}/{k}"),
                            &format!("{lp}/{i}"),
                            &format!("{rp}/{j}"),
                            out,
                        );
                        k += 1;
                    }
                    Step::Removed(i) => out.push(Event::Removed {
                        path: format!("{path}/{k}"),
                        left: format!("{lp}/{i}"),
                        value: &a[i],
                    }),
                    Step::Added(j) => {
                        out.push(Event::Added {
                            path: format!("{path}/{k}"),
                            right: format!("{rp}/{j}"),
                            value: &b[j],
                        });
                        k += 1;
                    }
                }
            }
        }
        _ => out.push(Event::Changed {
            path: path.to_string(),
            left: lp.to_string(),
            right: rp.to_string(),
            value: right,
        }),
    }
}

/// Two arrays of values aligned by content hash, then by kind. Equal ends
/// are matched first, by comparison alone: an edit in a long request
/// hashes only the middle where the arrays differ.
fn align_values(a: &[Value], b: &[Value]) -> Vec<Step> {
    let (n, m) = (a.len(), b.len());
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[head..n - tail], &b[head..m - tail]);
    let (ka, kb): (Vec<u64>, Vec<u64>) = (
        a_mid.iter().map(hash).collect(),
        b_mid.iter().map(hash).collect(),
    );
    let mid = align::align(&ka, &kb, &|i, j| a_mid[i] == b_mid[j], &|i, j| {
        similar(&a_mid[i], &b_mid[j])
    });
    let mut steps: Vec<Step> = (0..head).map(|i| Step::Same(i, i)).collect();
    steps.extend(mid.into_iter().map(|s| match s {
        Step::Same(i, j) => Step::Same(i + head, j + head),
        Step::Inside(i, j) => Step::Inside(i + head, j + head),
        Step::Removed(i) => Step::Removed(i + head),
        Step::Added(j) => Step::Added(j + head),
    }));
    steps.extend((0..tail).map(|t| Step::Same(n - tail + t, m - tail + t)));
    steps
}

/// The same kind of element: both objects with the same `role` and
/// `type` (messages, blocks), or both of one JSON type.
fn similar(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Object(p), Value::Object(q)) => {
            p.get("role") == q.get("role") && p.get("type") == q.get("type")
        }
        (Value::Array(_), Value::Array(_))
        | (Value::String(_), Value::String(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// Values that left a removed place for an added place of the same role:
/// each removed and each added value pairs once, the largest part first.
/// Parts of removed values are indexed by (hash, role), so the search is
/// linear in the size of what changed.
fn moves(events: &[Event], places: Places) -> Vec<Move> {
    type Bucket<'v> = VecDeque<(usize, &'v Value)>;
    let mut index: HashMap<(u64, Role), Bucket> = HashMap::new();
    let mut found = Vec::new();
    for (e, event) in events.iter().enumerate() {
        if let Event::Removed { left, value, .. } = event {
            parts(value, &tokens(&placed(places.left, left)), &mut found);
            for (h, r, v) in found.drain(..) {
                index.entry((h, r)).or_default().push_back((e, v));
            }
        }
    }
    let mut paired = vec![false; events.len()];
    let mut out = Vec::new();
    for (e, event) in events.iter().enumerate() {
        let Event::Added { right, value, .. } = event else {
            continue;
        };
        parts(value, &tokens(&placed(places.right, right)), &mut found);
        for (h, r, v) in found.drain(..) {
            let Some(bucket) = index.get_mut(&(h, r)) else {
                continue;
            };
            while bucket.front().is_some_and(|(x, _)| paired[*x]) {
                bucket.pop_front();
            }
            let Some((x, w)) = bucket.front().copied() else {
                continue;
            };
            let Event::Removed {
                left, value: whole, ..
            } = &events[x]
            else {
                continue;
            };
            if w != v {
                continue;
            }
            // Where the two sit inside their events' values (a search by
            // address: once per pair).
            let (Some(from_part), Some(to_part)) = (path_to(whole, w), path_to(value, v)) else {
                continue;
            };
            paired[x] = true;
            out.push(Move {
                removed: x,
                added: e,
                from: format!("{left}{from_part}"),
                to: format!("{right}{to_part}"),
                from_part,
                to_part,
            });
            break;
        }
        found.clear();
    }
    out
}

/// What a compare view colours: a node only on the left (removed), only
/// on the right (added), on both sides but different (changed), a value
/// that left one place for another (moved), or a key renamed in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Added,
    Removed,
    Changed,
    Moved,
    Renamed,
}

/// The marks of a diff on each side, as JSON pointers into that side's
/// own document (unlike [`Op`] paths, which follow the patch as it is
/// applied). A deeper pointer's mark wins over its ancestor's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    pub left: Vec<(String, Mark)>,
    pub right: Vec<(String, Mark)>,
}

/// Both sides' marks for `left` → `right`, aligned as [`diff`] aligns.
pub fn marks(left: &Value, right: &Value) -> Marks {
    marks_in(left, right, Places::REQUEST)
}

/// How many operations of each kind [`diff`] gives for two documents:
/// `formatscope diff` prints one line per addition, removal, change and
/// rename (`changes`); `moved` counts the pairs of a removal and an
/// addition that are one value moving.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub renamed: usize,
    pub moved: usize,
}

impl Tally {
    /// The lines `formatscope diff` prints: one per operation (a rename's
    /// two operations are one line).
    pub fn changes(&self) -> usize {
        self.added + self.removed + self.changed + self.renamed
    }
}

/// [`marks`] and the [`Tally`] of the same walk: the compare view's
/// colours and counts come from the alignment `formatscope diff` uses.
pub fn marks_tallied(left: &Value, right: &Value) -> (Marks, Tally) {
    let mut events = Vec::new();
    walk(left, right, "", "", "", &mut events);
    let mut tally = Tally::default();
    for e in &events {
        match e {
            Event::Removed { .. } => tally.removed += 1,
            Event::Added { .. } => tally.added += 1,
            Event::Changed { .. } => tally.changed += 1,
            Event::Renamed { .. } => tally.renamed += 1,
        }
    }
    let marks = marks_of(&events, Places::REQUEST);
    tally.moved = marks.left.iter().filter(|(_, m)| *m == Mark::Moved).count();
    (marks, tally)
}

/// Two arrays aligned as [`diff`] aligns them (by content hash, then by
/// kind): which element faces which.
pub fn aligned(a: &[Value], b: &[Value]) -> Vec<Step> {
    align_values(a, b)
}

/// [`marks`] of documents whose values sit at `places` in their requests
/// (the compare view's groups of parts).
pub fn marks_in(left: &Value, right: &Value, places: Places) -> Marks {
    let mut events = Vec::new();
    walk(left, right, "", "", "", &mut events);
    marks_of(&events, places)
}

fn marks_of(events: &[Event], places: Places) -> Marks {
    let mut out = Marks::default();
    for e in events {
        match e {
            Event::Removed { left, .. } => out.left.push((left.clone(), Mark::Removed)),
            Event::Added { right, .. } => out.right.push((right.clone(), Mark::Added)),
            Event::Changed { left, right, .. } => {
                out.left.push((left.clone(), Mark::Changed));
                out.right.push((right.clone(), Mark::Changed));
            }
            Event::Renamed { left, right, .. } => {
                out.left.push((left.clone(), Mark::Renamed));
                out.right.push((right.clone(), Mark::Renamed));
            }
        }
    }
    for m in moves(events, places) {
        out.left.push((m.from, Mark::Moved));
        out.right.push((m.to, Mark::Moved));
    }
    out
}

/// Why a JSON Patch operation does not apply; each names the op's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// A path that does not start with `/`.
    #[error("bad path {0}")]
    BadPath(String),
    /// `remove` of the path `""`.
    #[error("cannot remove the whole document")]
    RemoveWholeDocument,
    /// An object on the way with no such key.
    #[error("no {key} in {path}")]
    NoKey { key: String, path: String },
    /// An array index that is not a number (or `-` where it cannot be).
    #[error("bad index in {0}")]
    BadIndex(String),
    /// An array on the way shorter than the index.
    #[error("no index {index} in {path}")]
    NoIndex { index: usize, path: String },
    /// A number, string, boolean or null on the way.
    #[error("{0} goes through a scalar")]
    ThroughScalar(String),
    /// `remove` of a key that is not there.
    #[error("nothing at {0}")]
    NothingAt(String),
    /// The last index past the array's end.
    #[error("index out of range at {0}")]
    OutOfRange(String),
    /// The target's parent is not an object or an array.
    #[error("{0} is not in a container")]
    NotInContainer(String),
}

/// Applies `ops` to `doc` (RFC 6902 `add`, `remove`, `replace`).
pub fn apply(doc: &mut Value, ops: &[Op]) -> Result<(), PatchError> {
    for op in ops {
        let tokens: Vec<String> = if op.path.is_empty() {
            Vec::new()
        } else {
            op.path
                .strip_prefix('/')
                .ok_or_else(|| PatchError::BadPath(op.path.clone()))?
                .split('/')
                .map(|t| t.replace("~1", "/").replace("~0", "~"))
                .collect()
        };
        let Some((last, parents)) = tokens.split_last() else {
            match op.op {
                "replace" | "add" => *doc = op.value.clone().unwrap_or(Value::Null),
                _ => return Err(PatchError::RemoveWholeDocument),
            }
            continue;
        };
        let mut target = &mut *doc;
        for t in parents {
            target = match target {
                Value::Object(m) => m.get_mut(t).ok_or_else(|| PatchError::NoKey {
                    key: t.clone(),
                    path: op.path.clone(),
                })?,
                Value::Array(a) => {
                    let i: usize = t
                        .parse()
                        .map_err(|_| PatchError::BadIndex(op.path.clone()))?;
                    a.get_mut(i).ok_or_else(|| PatchError::NoIndex {
                        index: i,
                        path: op.path.clone(),
                    })?
                }
                _ => return Err(PatchError::ThroughScalar(op.path.clone())),
            };
        }
        let value = op.value.clone().unwrap_or(Value::Null);
        match (target, op.op) {
            (Value::Object(m), "add" | "replace") => {
                m.insert(last.clone(), value);
            }
            (Value::Object(m), "remove") => {
                m.shift_remove(last)
                    .ok_or_else(|| PatchError::NothingAt(op.path.clone()))?;
            }
            (Value::Array(a), op_name) => {
                let i: usize = if last == "-" {
                    a.len()
                } else {
                    last.parse()
                        .map_err(|_| PatchError::BadIndex(op.path.clone()))?
                };
                match op_name {
                    "add" if i <= a.len() => a.insert(i, value),
                    "remove" if i < a.len() => {
                        a.remove(i);
                    }
                    "replace" if i < a.len() => a[i] = value,
                    _ => return Err(PatchError::OutOfRange(op.path.clone())),
                }
            }
            _ => return Err(PatchError::NotInContainer(op.path.clone())),
        }
    }
    Ok(())
}

/// The operations as JSON (`--json`).
pub fn to_json(ops: &[Op]) -> Value {
    json!(ops.iter().map(Op::to_json).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(left: Value, right: Value) -> Vec<Op> {
        let ops = diff(&left, &right);
        let mut doc = left.clone();
        apply(&mut doc, &ops).expect("applies");
        assert_eq!(doc, right, "{ops:?}");
        ops
    }

    #[test]
    fn the_cache_prefix_ends_where_the_bodies_part() {
        let a = r#"{"system": "You are Friday.", "messages": [{"role": "user", "content": "hi"}]}"#;
        let b =
            r#"{"system": "You are Friday.", "messages": [{"role": "user", "content": "hello"}]}"#;
        let p = cache_prefix(a, b);
        assert_eq!(&b[..p.bytes], &a[..p.bytes]);
        assert_eq!(p.breaks_at.as_deref(), Some("/messages/0/content"));
        assert_eq!(cache_prefix(a, a).breaks_at, None);
    }

    #[test]
    fn an_inserted_message_is_one_add() {
        let m = |t: &str| json!({"role": "user", "content": t});
        let ops = check(
            json!([m("a"), m("b"), m("c")]),
            json!([m("a"), m("new"), m("b"), m("c")]),
        );
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].op, "add");
        assert_eq!(ops[0].path, "/1");
    }

    #[test]
    fn the_system_prompt_leaving_messages_is_a_move() {
        let ops = check(
            json!({"messages": [{"role": "system", "content": "You are Friday, a librarian."}, {"role": "user", "content": "hi"}]}),
            json!({"system": "You are Friday, a librarian.", "messages": [{"role": "user", "content": "hi"}]}),
        );
        let moved: Vec<String> = ops.iter().filter_map(Op::summary).collect();
        assert!(
            moved
                .iter()
                .any(|s| s.starts_with("+ /system (moved from /messages/0")),
            "{moved:?}"
        );
    }

    #[test]
    fn changes_removals_and_escapes_apply() {
        check(
            json!({"a/b": 1, "t~": [1, 2, 3, 4], "x": {"y": [true]}}),
            json!({"a/b": 2, "t~": [2, 4, 5], "x": {"y": [false, null]}}),
        );
        check(json!([1, 2, 3]), json!([]));
        check(json!([]), json!([1, 2]));
        check(json!(1), json!("one"));
    }
}

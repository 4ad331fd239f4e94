//! A structural JSON diff between two requests (issue 12's compare, first
//! part): JSON Patch operations (RFC 6902 `add`, `remove`, `replace`) whose
//! paths are JSON pointers into the left request and which, applied in
//! order, turn it into the right one. Arrays are aligned by their longest
//! common subsequence, so one inserted message is one `add`, not a change
//! of every message after it; a removed value that reappears elsewhere is
//! marked as moved (Anthropic's system prompt leaving `messages` for the
//! top-level `system`), beside the operations that still apply.

use serde_json::{json, Map, Value};

/// One operation; `moved` pairs a `remove` with the `add` of the same value
/// (each names the other's path).
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: &'static str,
    pub path: String,
    pub value: Option<Value>,
    pub moved: Option<String>,
}

impl Op {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("op".into(), self.op.into());
        m.insert("path".into(), self.path.clone().into());
        if let Some(v) = &self.value {
            m.insert("value".into(), v.clone());
        }
        if let Some(other) = &self.moved {
            let key = if self.op == "add" {
                "moved_from"
            } else {
                "moved_to"
            };
            m.insert(key.into(), other.clone().into());
        }
        Value::Object(m)
    }

    /// One line for people: `+ /system (moved from /messages/0/content)`.
    pub fn summary(&self) -> String {
        let sign = match self.op {
            "add" => "+",
            "remove" => "-",
            _ => "~",
        };
        let what = match (&self.moved, self.op) {
            (Some(from), "add") => format!(" (moved from {from})"),
            (Some(to), _) => format!(" (moved to {to})"),
            (None, "replace") => {
                format!(": {}", preview(self.value.as_ref().unwrap_or(&Value::Null)))
            }
            (None, "add") => format!(": {}", preview(self.value.as_ref().unwrap_or(&Value::Null))),
            _ => String::new(),
        };
        format!("{sign} {}{what}", self.path)
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

/// The operations that turn `left` into `right`.
pub fn diff(left: &Value, right: &Value) -> Vec<Op> {
    let mut ops = Vec::new();
    walk(left, right, "", &mut ops);
    mark_moves(&mut ops);
    ops
}

fn walk(left: &Value, right: &Value, path: &str, ops: &mut Vec<Op>) {
    if left == right {
        return;
    }
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{path}/{}", token(k));
                match b.get(k) {
                    Some(w) => walk(v, w, &p, ops),
                    None => ops.push(Op {
                        op: "remove",
                        path: p,
                        value: Some(v.clone()),
                        moved: None,
                    }),
                }
            }
            for (k, w) in b {
                if !a.contains_key(k) {
                    ops.push(Op {
                        op: "add",
                        path: format!("{path}/{}", token(k)),
                        value: Some(w.clone()),
                        moved: None,
                    });
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => walk_array(a, b, path, ops),
        _ => ops.push(Op {
            op: "replace",
            path: path.to_string(),
            value: Some(right.clone()),
            moved: None,
        }),
    }
}

/// How two arrays line up: elements equal on both sides, elements of the
/// same kind facing each other (diffed inside), and the rest removed from
/// the left or added from the right, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Same(usize, usize),
    Inside(usize, usize),
    Removed(usize),
    Added(usize),
}

/// Arrays aligned by their longest common subsequence; a run of removed
/// elements facing a run of added ones is paired element by element
/// (changed messages), the rest added or removed.
fn align(a: &[Value], b: &[Value]) -> Vec<Step> {
    let (n, m) = (a.len(), b.len());
    // Equal ends are matched first, so the table below covers only the
    // middle where the arrays differ (an edit in a long request).
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (&a[head..n - tail], &b[head..m - tail]);
    let mut steps: Vec<Step> = (0..head).map(|i| Step::Same(i, i)).collect();
    for step in align_middle(a_mid, b_mid) {
        steps.push(match step {
            Step::Same(i, j) => Step::Same(i + head, j + head),
            Step::Inside(i, j) => Step::Inside(i + head, j + head),
            Step::Removed(i) => Step::Removed(i + head),
            Step::Added(j) => Step::Added(j + head),
        });
    }
    steps.extend((0..tail).map(|t| Step::Same(n - tail + t, m - tail + t)));
    steps
}

fn align_middle(a: &[Value], b: &[Value]) -> Vec<Step> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the LCS length of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut steps = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            steps.push(Step::Same(i, j));
            i += 1;
            j += 1;
            continue;
        }
        // The run of unmatched elements on each side, up to the next match.
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        while (i < n || j < m) && !(i < n && j < m && a[i] == b[j]) {
            if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
                added.push(j);
                j += 1;
            } else {
                removed.push(i);
                i += 1;
            }
        }
        // Within the run, elements of the same kind (a message of the same
        // role, a block of the same type) face each other and are diffed
        // inside; the others are removed or added.
        let (r, q) = (removed.len(), added.len());
        let similar = |x: usize, y: usize| similar(&a[removed[x]], &b[added[y]]);
        let mut best = vec![vec![0u32; q + 1]; r + 1];
        for x in (0..r).rev() {
            for y in (0..q).rev() {
                best[x][y] = if similar(x, y) {
                    best[x + 1][y + 1] + 1
                } else {
                    best[x + 1][y].max(best[x][y + 1])
                };
            }
        }
        let (mut x, mut y) = (0, 0);
        while x < r || y < q {
            if x < r && y < q && similar(x, y) && best[x][y] == best[x + 1][y + 1] + 1 {
                steps.push(Step::Inside(removed[x], added[y]));
                x += 1;
                y += 1;
            } else if x < r && (y == q || best[x + 1][y] >= best[x][y + 1]) {
                steps.push(Step::Removed(removed[x]));
                x += 1;
            } else {
                steps.push(Step::Added(added[y]));
                y += 1;
            }
        }
    }
    steps
}

fn walk_array(a: &[Value], b: &[Value], path: &str, ops: &mut Vec<Op>) {
    // Where the next element sits in the array as the operations so far
    // have left it: everything before it is final.
    let mut k = 0usize;
    for step in align(a, b) {
        match step {
            Step::Same(..) => k += 1,
            Step::Inside(i, j) => {
                walk(&a[i], &b[j], &format!("{path}/{k}"), ops);
                k += 1;
            }
            Step::Removed(i) => ops.push(Op {
                op: "remove",
                path: format!("{path}/{k}"),
                value: Some(a[i].clone()),
                moved: None,
            }),
            Step::Added(j) => {
                ops.push(Op {
                    op: "add",
                    path: format!("{path}/{k}"),
                    value: Some(b[j].clone()),
                    moved: None,
                });
                k += 1;
            }
        }
    }
}

/// What a compare view colours: a node only on the left (removed), only
/// on the right (added), on both sides but different (changed), or a
/// value that left one place for another (moved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    Added,
    Removed,
    Changed,
    Moved,
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
    let mut out = Marks::default();
    let mut removed = Vec::new();
    let mut added = Vec::new();
    mark_walk(left, right, "", "", &mut out, &mut removed, &mut added);
    // A removed value found inside an added one (or the other way round
    // for its parts) moved: both ends say so.
    for (to, value) in &added {
        let mut candidates = Vec::new();
        parts(value, String::new(), &mut candidates);
        let found = candidates.iter().find_map(|(inner, needle)| {
            removed.iter().find_map(|(from, hay): &(String, &Value)| {
                find(hay, needle, String::new()).map(|at| (format!("{from}{at}"), inner))
            })
        });
        if let Some((from, inner)) = found {
            out.left.push((from, Mark::Moved));
            out.right.push((format!("{to}{inner}"), Mark::Moved));
        }
    }
    out
}

fn mark_walk<'a>(
    left: &'a Value,
    right: &'a Value,
    lp: &str,
    rp: &str,
    out: &mut Marks,
    removed: &mut Vec<(String, &'a Value)>,
    added: &mut Vec<(String, &'a Value)>,
) {
    if left == right {
        return;
    }
    match (left, right) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{lp}/{}", token(k));
                match b.get(k) {
                    Some(w) => {
                        mark_walk(v, w, &p, &format!("{rp}/{}", token(k)), out, removed, added)
                    }
                    None => {
                        out.left.push((p.clone(), Mark::Removed));
                        removed.push((p, v));
                    }
                }
            }
            for (k, w) in b {
                if !a.contains_key(k) {
                    let p = format!("{rp}/{}", token(k));
                    out.right.push((p.clone(), Mark::Added));
                    added.push((p, w));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for step in align(a, b) {
                match step {
                    Step::Same(..) => {}
                    Step::Inside(i, j) => mark_walk(
                        &a[i],
                        &b[j],
                        &format!("{lp}/{i}"),
                        &format!("{rp}/{j}"),
                        out,
                        removed,
                        added,
                    ),
                    Step::Removed(i) => {
                        let p = format!("{lp}/{i}");
                        out.left.push((p.clone(), Mark::Removed));
                        removed.push((p, &a[i]));
                    }
                    Step::Added(j) => {
                        let p = format!("{rp}/{j}");
                        out.right.push((p.clone(), Mark::Added));
                        added.push((p, &b[j]));
                    }
                }
            }
        }
        _ => {
            // A whole value replaced by another kind (a message's text
            // turned into a list of blocks): removed here, added there,
            // so that a part of it can still be found moved.
            if worth(left)
                && worth(right)
                && std::mem::discriminant(left) != std::mem::discriminant(right)
            {
                out.left.push((lp.to_string(), Mark::Removed));
                removed.push((lp.to_string(), left));
                out.right.push((rp.to_string(), Mark::Added));
                added.push((rp.to_string(), right));
            } else {
                out.left.push((lp.to_string(), Mark::Changed));
                out.right.push((rp.to_string(), Mark::Changed));
            }
        }
    }
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

/// Pairs what an `add` puts in with a `remove`d value that held it (the
/// whole value, or a part: a system message's text moved to a top-level
/// `system` field), for values worth naming (objects, arrays, strings of 12
/// characters or more).
fn mark_moves(ops: &mut [Op]) {
    for a in 0..ops.len() {
        if ops[a].op != "add" || ops[a].moved.is_some() {
            continue;
        }
        let Some(added) = ops[a].value.clone() else {
            continue;
        };
        // The added value, then its parts, largest first.
        let mut candidates = Vec::new();
        parts(&added, String::new(), &mut candidates);
        let found = candidates.iter().find_map(|(inner, needle)| {
            ops.iter().enumerate().find_map(|(r, o)| {
                if o.op != "remove" || o.moved.is_some() {
                    return None;
                }
                let at = find(o.value.as_ref()?, needle, String::new())?;
                Some((
                    r,
                    format!("{}{at}", o.path),
                    format!("{}{inner}", ops[a].path),
                ))
            })
        });
        if let Some((r, from, to)) = found {
            ops[r].moved = Some(to);
            ops[a].moved = Some(from);
        }
    }
}

fn worth(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::String(s) => s.chars().count() >= 12,
        _ => false,
    }
}

/// `v` and its parts worth naming, with their paths inside `v`.
fn parts(v: &Value, at: String, out: &mut Vec<(String, Value)>) {
    if !worth(v) {
        return;
    }
    out.push((at.clone(), v.clone()));
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                parts(x, format!("{at}/{}", token(k)), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                parts(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Where `needle` sits inside `hay`, as a path.
fn find(hay: &Value, needle: &Value, at: String) -> Option<String> {
    if hay == needle {
        return Some(at);
    }
    match hay {
        Value::Object(m) => m
            .iter()
            .find_map(|(k, x)| find(x, needle, format!("{at}/{}", token(k)))),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| find(x, needle, format!("{at}/{i}"))),
        _ => None,
    }
}

/// Applies `ops` to `doc` (RFC 6902 `add`, `remove`, `replace`).
pub fn apply(doc: &mut Value, ops: &[Op]) -> Result<(), String> {
    for op in ops {
        let tokens: Vec<String> = if op.path.is_empty() {
            Vec::new()
        } else {
            op.path
                .strip_prefix('/')
                .ok_or_else(|| format!("bad path {}", op.path))?
                .split('/')
                .map(|t| t.replace("~1", "/").replace("~0", "~"))
                .collect()
        };
        let Some((last, parents)) = tokens.split_last() else {
            match op.op {
                "replace" | "add" => *doc = op.value.clone().unwrap_or(Value::Null),
                _ => return Err("cannot remove the whole document".into()),
            }
            continue;
        };
        let mut target = &mut *doc;
        for t in parents {
            target = match target {
                Value::Object(m) => m
                    .get_mut(t)
                    .ok_or_else(|| format!("no {t} in {}", op.path))?,
                Value::Array(a) => {
                    let i: usize = t.parse().map_err(|_| format!("bad index in {}", op.path))?;
                    a.get_mut(i)
                        .ok_or_else(|| format!("no index {i} in {}", op.path))?
                }
                _ => return Err(format!("{} goes through a scalar", op.path)),
            };
        }
        let value = op.value.clone().unwrap_or(Value::Null);
        match (target, op.op) {
            (Value::Object(m), "add" | "replace") => {
                m.insert(last.clone(), value);
            }
            (Value::Object(m), "remove") => {
                m.shift_remove(last)
                    .ok_or_else(|| format!("nothing at {}", op.path))?;
            }
            (Value::Array(a), op_name) => {
                let i: usize = if last == "-" {
                    a.len()
                } else {
                    last.parse()
                        .map_err(|_| format!("bad index in {}", op.path))?
                };
                match op_name {
                    "add" if i <= a.len() => a.insert(i, value),
                    "remove" if i < a.len() => {
                        a.remove(i);
                    }
                    "replace" if i < a.len() => a[i] = value,
                    _ => return Err(format!("index out of range at {}", op.path)),
                }
            }
            _ => return Err(format!("{} is not in a container", op.path)),
        }
    }
    Ok(())
}

/// The longest identical prefix of two serialised requests: what a
/// provider's prompt cache can reuse between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachePrefix {
    /// Bytes in common (on a character boundary).
    pub bytes: usize,
    /// The right request's length.
    pub of: usize,
    /// Where the right request stops matching: the deepest value holding
    /// that byte, as a JSON pointer (`None` when one is a prefix of the
    /// other).
    pub breaks_at: Option<String>,
}

pub fn cache_prefix(left: &str, right: &str) -> CachePrefix {
    let mut n = left
        .bytes()
        .zip(right.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !right.is_char_boundary(n) {
        n -= 1;
    }
    let breaks_at = (n < left.len() && n < right.len()).then(|| {
        crate::json::parse(right.as_bytes(), crate::json::Options::with_spans())
            .ok()
            .and_then(|p| p.tree)
            .map(|tree| pointer_at(&tree, n, String::new()))
            .unwrap_or_default()
    });
    CachePrefix {
        bytes: n,
        of: right.len(),
        breaks_at,
    }
}

/// The pointer of the deepest value whose bytes hold `offset`.
fn pointer_at(node: &crate::json::Node, offset: usize, at: String) -> String {
    use crate::json::NodeKind;
    match &node.kind {
        NodeKind::Object(members) => members
            .iter()
            .find(|m| m.key_span.start <= offset && offset < m.value.span.end)
            .map(|m| pointer_at(&m.value, offset, format!("{at}/{}", token(&m.key))))
            .unwrap_or(at),
        NodeKind::Array(items) => items
            .iter()
            .enumerate()
            .find(|(_, x)| x.span.contains(&offset))
            .map(|(i, x)| pointer_at(x, offset, format!("{at}/{i}")))
            .unwrap_or(at),
        NodeKind::Scalar => at,
    }
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
        let moved: Vec<String> = ops.iter().map(Op::summary).collect();
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

//! Source messages for a side whose conversation reported none (2.0.11's
//! multi-agent request): borrowed from the part the diff faces it with,
//! or from a neighbour.

use super::*;

/// The conversation array of a side: its pointer and, for each of its
/// elements, the part holding it.
fn conversation(side: &Side) -> Option<(String, Vec<Option<usize>>)> {
    let array = side.parts.iter().find_map(|p| {
        let (parent, last) = p.pointer.rsplit_once('/')?;
        last.parse::<usize>().ok()?;
        MESSAGE_ARRAYS.contains(&parent).then(|| parent.to_string())
    })?;
    let len = side.doc.pointer(&array).and_then(Value::as_array)?.len();
    let mut parts = vec![None; len];
    for (i, p) in side.parts.iter().enumerate() {
        let k = p
            .pointer
            .strip_prefix(array.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|k| k.parse::<usize>().ok());
        if let Some(slot) = k.and_then(|k| parts.get_mut(k)) {
            *slot = Some(i);
        }
    }
    Some((array, parts))
}

/// The two sides with a source message for every part of their
/// conversations, when a side's had none: a part facing a part of the
/// other side (as the diff aligns the two conversations) takes that
/// part's source; one only on its side joins its neighbour's (the one
/// before it, else the one after). `None` when nothing was missing (or
/// the sides are two versions of the session, faced by identity).
pub(super) fn borrow_sources(left: &Side, right: &Side) -> Option<(Side, Side)> {
    if !left.identities.is_empty() || !right.identities.is_empty() {
        return None;
    }
    let (la, lparts) = conversation(left)?;
    let (ra, rparts) = conversation(right)?;
    let missing = |side: &Side, parts: &[Option<usize>]| {
        parts
            .iter()
            .flatten()
            .any(|i| side.parts[*i].source.is_none())
    };
    if !missing(left, &lparts) && !missing(right, &rparts) {
        return None;
    }
    let values = |side: &Side, a: &str| -> Vec<Value> {
        side.doc
            .pointer(a)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let steps = crate::diff::aligned(&values(left, &la), &values(right, &ra));
    let source = |side: &Side, parts: &[Option<usize>], k: usize| {
        parts
            .get(k)
            .copied()
            .flatten()
            .and_then(|i| side.parts[i].source.clone())
    };
    // Each step's source: its own, or the part it faces.
    let mut found: Vec<Option<Range<usize>>> = steps
        .iter()
        .map(|step| match *step {
            Step::Same(i, j) | Step::Inside(i, j) => {
                source(left, &lparts, i).or_else(|| source(right, &rparts, j))
            }
            Step::Removed(i) => source(left, &lparts, i),
            Step::Added(j) => source(right, &rparts, j),
        })
        .collect();
    // Steps still without one join a neighbour: the last message of the
    // one before, or (at the start) the first of the one after.
    let mut before: Option<Range<usize>> = None;
    for f in found.iter_mut() {
        match f {
            Some(r) => before = Some(r.clone()),
            None => *f = before.as_ref().map(|r| r.end.saturating_sub(1)..r.end),
        }
    }
    let first = found.iter().flatten().next().map(|r| r.start..r.start + 1);
    for f in found.iter_mut().filter(|f| f.is_none()) {
        f.clone_from(&first);
    }
    let (mut l, mut r) = (left.clone(), right.clone());
    let give = |side: &mut Side, parts: &[Option<usize>], k: usize, s: &Option<Range<usize>>| {
        if let Some(i) = parts.get(k).copied().flatten() {
            if side.parts[i].source.is_none() {
                side.parts[i].source.clone_from(s);
            }
        }
    };
    for (step, s) in steps.iter().zip(&found) {
        match *step {
            Step::Same(i, j) | Step::Inside(i, j) => {
                give(&mut l, &lparts, i, s);
                give(&mut r, &rparts, j, s);
            }
            Step::Removed(i) => give(&mut l, &lparts, i, s),
            Step::Added(j) => give(&mut r, &rparts, j, s),
        }
    }
    Some((l, r))
}

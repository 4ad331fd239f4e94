//! A `<history>` group's count split among its members, learnt in the
//! count itself.
//!
//! A group is one message whose text holds its members' lines (`name:
//! text`, one per text block, joined by "\n"). Each member's share is what
//! its lines cost in that text. Where a line starts with a letter or digit,
//! every pre-tokenizer we ship cuts the text there and the part before the
//! cut counts the same alone (`tokens/boundary.rs`), so counting the text a
//! line at a time gives the same total and each member's part of it in the
//! one pass. Counting the members' lines apart after the group, as this did
//! before, was as much byte-pair encoding again as the count itself (a
//! fifth of a cold count at 100,000 messages).
//!
//! So a member's own count is what its lines, each with its newline, cost
//! before a next line, as if counted apart (the last line's part that runs
//! on into the closing tag is counted again without it: one line a
//! group); the first member's
//! share also carries what is no line (the message's framing, the history
//! prompt and tags). Where the lines cannot be found in one text, or one
//! starts where the counter does not cut (media between the lines, a name
//! starting with `_`), they are counted apart: the same figures.

use crate::formatter::{Unit, UnitKind, UnitOutput};
use crate::py::{self, PyErr};
use crate::session::{MsgItem, Texts};
use crate::tokens::{Cost, MessageCounter, ProviderCounter};
use crate::truncate::{self, UnitCost};
use std::borrow::Cow;
use std::ops::Range;

/// A group's lines, each `name: text` with the offset of its member in
/// the group (borrowed from the packed messages where it can be).
pub(super) struct Lines<'a> {
    lines: Vec<(usize, Line<'a>)>,
    members: usize,
}

struct Line<'a> {
    name: Cow<'a, str>,
    text: Cow<'a, str>,
}

impl Line<'_> {
    fn len(&self) -> usize {
        self.name.len() + 2 + self.text.len()
    }

    /// Whether `text` starts with this line.
    fn starts(&self, text: &str) -> bool {
        text.strip_prefix(&*self.name)
            .and_then(|rest| rest.strip_prefix(": "))
            .is_some_and(|rest| rest.starts_with(&*self.text))
    }
}

impl<'a> Lines<'a> {
    /// The lines the formatter wrote of its members' `texts`.
    fn written(texts: &[Texts<'a>]) -> Lines<'a> {
        let lines = texts.iter().enumerate();
        Lines {
            lines: lines
                .flat_map(|(member, found)| texts_lines(member, found))
                .collect(),
            members: texts.len(),
        }
    }

    /// The lines of the messages `range`, as the history formatters write
    /// them (`history_line`); `None` when a message does not unpack or a
    /// text block has no text (formatting the group has raised then).
    pub(super) fn of(msgs: &'a [MsgItem], range: Range<usize>) -> Option<Lines<'a>> {
        let mut lines = Vec::new();
        for (member, i) in range.clone().enumerate() {
            let item = msgs.get(i)?;
            match item.texts() {
                // Read in place: a message unpacked is a tree of allocations.
                Some(found) => lines.extend(texts_lines(member, &found)),
                None => {
                    let msg = item.msg().ok()?;
                    for block in msg.blocks() {
                        if py::get_item(block, "type").ok()?.as_str() == Some("text") {
                            let line = Line {
                                name: Cow::Owned(py::py_str(msg.name())),
                                text: Cow::Owned(py::py_str(py::get_item(block, "text").ok()?)),
                            };
                            lines.push((member, line));
                        }
                    }
                }
            }
        }
        Some(Lines {
            lines,
            members: range.len(),
        })
    }

    /// Where each line starts in `text`, when they are all there, one
    /// after another with a "\n" between.
    fn locate(&self, text: &str) -> Option<Vec<usize>> {
        let (_, first) = self.lines.first()?;
        // The first line's first places (a history prompt could hold it).
        text.match_indices(&*first.name)
            .map(|(at, _)| at)
            .filter(|&at| first.starts(&text[at..]))
            .take(4)
            .find_map(|start| {
                let mut starts = Vec::with_capacity(self.lines.len());
                let mut at = start;
                for (k, (_, line)) in self.lines.iter().enumerate() {
                    if k > 0 {
                        if !text[at..].starts_with('\n') {
                            return None;
                        }
                        at += 1;
                    }
                    if !line.starts(&text[at..]) {
                        return None;
                    }
                    starts.push(at);
                    at += line.len();
                }
                Some(starts)
            })
    }

    /// `text`'s raw count, counted a cut at a time, and each member's raw
    /// part of it: when the lines are in `text` and each starts at a cut.
    fn count(&self, text: &str, counter: &ProviderCounter) -> Option<(i64, Vec<i64>)> {
        let starts = self.locate(text)?;
        let bytes = text.as_bytes();
        let cuts_at = |p: usize| {
            p == 0
                || (bytes[p - 1] == b'\n'
                    && text[p..]
                        .chars()
                        .next()
                        .is_some_and(|c| counter.splits_after_newline(c)))
        };
        // The first line may run on from the history tag (Gemini's has no
        // newline): what it costs there is the first member's anyway, as
        // the rest of the group is.
        if !starts[1..].iter().all(|&s| cuts_at(s)) {
            return None;
        }
        let last = self.lines.len() - 1;
        let end_of_lines = starts[last] + self.lines[last].1.len();
        let raw = |t: &str| counter.info.tokenizer.raw(t) as i64;
        let mut own = vec![0; self.members];
        let mut total = 0;
        // The line the next part starts in (parts come in order).
        let mut line = 0;
        // An ASCII character's count alone, counted once: the characters
        // after the cuts are the first of the names, which repeat.
        let mut alone = [None; 128];
        let mut count_part = |from: usize, to: usize| {
            while line < last && starts[line + 1] <= from {
                line += 1;
            }
            let in_lines = from >= starts[0] && from < end_of_lines;
            let with_newline = to == end_of_lines + 1 && bytes[end_of_lines] == b'\n';
            // The last line's part runs on past its newline (the closing
            // tag, the group's): the line's own is counted too, beside it,
            // the pieces the two share counted once.
            let runs_on = in_lines && line == last && to >= end_of_lines && !with_newline;
            // A part before a cut is counted with the character after it,
            // less that character's count: at the very end of a text GPT-2's
            // pattern ends a run of spaces and newlines differently.
            let (counted, next_alone) = match text[to..].chars().next() {
                Some(next) => {
                    let after = to + next.len_utf8();
                    let next_alone = match alone.get_mut(next as usize) {
                        Some(known) => *known.get_or_insert_with(|| raw(&text[to..after])),
                        None => raw(&text[to..after]),
                    };
                    (&text[from..after], next_alone)
                }
                None => (&text[from..to], 0),
            };
            let (whole, line_alone) = if runs_on {
                let (whole, alone) = line_cost_beside(counter, &text[from..end_of_lines], counted);
                (whole, Some(alone))
            } else {
                (raw(counted), None)
            };
            let n = whole - next_alone;
            total += n;
            if in_lines {
                own[self.lines[line].0] += line_alone.unwrap_or(n);
            }
        };
        let mut from = 0;
        for newline in memchr::memchr_iter(b'\n', bytes) {
            let cut = newline + 1;
            if cut < bytes.len() && cuts_at(cut) {
                count_part(from, cut);
                from = cut;
            }
        }
        count_part(from, bytes.len());
        Some((total, own))
    }

    /// Each member's lines counted apart (scaled).
    fn counted_apart(&self, counter: &ProviderCounter) -> Vec<i64> {
        let mut own = vec![0; self.members];
        for (member, line) in &self.lines {
            own[*member] += line_cost(counter, &format!("{}: {}", line.name, line.text));
        }
        own.into_iter()
            .map(|n| counter.info.tokenizer.scale(n))
            .collect()
    }
}

/// Member `member`'s lines, one per text it `found` read in place.
fn texts_lines<'a, 'b>(
    member: usize,
    found: &'b Texts<'a>,
) -> impl Iterator<Item = (usize, Line<'a>)> + 'b {
    found.texts.iter().map(move |text| {
        let line = Line {
            name: Cow::Borrowed(found.name),
            text: Cow::Borrowed(*text),
        };
        (member, line)
    })
}

/// What `line` and its newline cost raw in a group's text when a line
/// follows: `line + "\n" + x` less `x`, for any `x` the counter cuts
/// before (`tokens/boundary.rs`).
fn line_cost(counter: &ProviderCounter, line: &str) -> i64 {
    let raw = |t: &str| counter.info.tokenizer.raw(t) as i64;
    raw(&format!("{line}\nx")) - raw("x")
}

/// `other`'s raw count and [`line_cost`] of `line`, counted together:
/// `other` starts with `line` (the pieces both start with are counted once).
fn line_cost_beside(counter: &ProviderCounter, line: &str, other: &str) -> (i64, i64) {
    let tokenizer = &counter.info.tokenizer;
    let (other, line) = tokenizer.raw_two(other, &format!("{line}\nx"));
    (other as i64, line as i64 - tokenizer.raw("x") as i64)
}

/// A unit's cost, and for a `<history>` group of several members each
/// one's own count (scaled as the counter scales), found in the count when
/// it can be (see the module comment).
pub(super) fn cost_unit(
    counter: &ProviderCounter,
    msgs: &[MsgItem],
    unit: &Unit,
) -> Result<(UnitCost, Option<Vec<i64>>), PyErr> {
    let out = UnitOutput {
        messages: unit.formatted.unpack(),
        texts: None,
    };
    cost_formatted(counter, msgs, unit, &out)
}

/// [`cost_unit`] given the unit's output (unpacked, or the tree it was
/// packed from, with the members' texts its lines were written of).
pub(super) fn cost_formatted(
    counter: &ProviderCounter,
    msgs: &[MsgItem],
    unit: &Unit,
    out: &UnitOutput<'_>,
) -> Result<(UnitCost, Option<Vec<i64>>), PyErr> {
    let messages = &out.messages;
    let lines = (unit.kind == UnitKind::AgentGroup && unit.range.len() > 1)
        .then(|| match &out.texts {
            Some(texts) => Some(Lines::written(texts)),
            None => Lines::of(msgs, unit.range.clone()),
        })
        .flatten();
    let Some(lines) = lines else {
        let formatted = truncate::cost_of(counter, messages)?;
        return Ok((truncate::cost_variants(counter, unit, formatted)?, None));
    };
    let mut own = None;
    let mut formatted = Cost::default();
    for message in messages {
        formatted += counter.message_with(message, &mut |text| {
            if own.is_none() {
                if let Some((raw, parts)) = lines.count(text, counter) {
                    own = Some(parts);
                    return raw;
                }
            }
            counter.info.tokenizer.raw(text) as i64
        })?;
    }
    let tokenizer = &counter.info.tokenizer;
    let own = own.map(|raw| raw.into_iter().map(|n| tokenizer.scale(n)).collect());
    Ok((truncate::cost_variants(counter, unit, formatted)?, own))
}

/// Members' own counts for a group whose count did not give them.
pub(super) fn counted_apart(
    counter: &ProviderCounter,
    msgs: &[MsgItem],
    range: Range<usize>,
) -> Vec<i64> {
    match Lines::of(msgs, range.clone()) {
        Some(lines) => lines.counted_apart(counter),
        None => vec![0; range.len()],
    }
}

/// A group's `total` split, in place, by its members' own counts `own`:
/// what the members' lines do not account for (the group's framing) goes
/// to the first; when the lines count more than the group (an estimate's
/// rounding), in proportion.
pub(super) fn shares_of(own: &mut [i64], total: i64) {
    let sum: i64 = own.iter().sum();
    if sum <= total {
        own[0] += total - sum;
    } else {
        let mut left = total;
        for s in own.iter_mut().skip(1) {
            *s = *s * total / sum.max(1);
            left -= *s;
        }
        own[0] = left;
    }
}

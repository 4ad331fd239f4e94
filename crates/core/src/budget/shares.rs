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
//!
//! The parts between cuts are counted on every core when there are many,
//! and what the parts within the lines cost is kept ([`Tail`]): the first
//! group is sent with the history prompt before its lines, and that form
//! is counted from its own head and end with the rest taken from there.

use crate::formatter::{Unit, UnitKind, UnitOutput};
use crate::py::{self, PyErr};
use crate::session::{MsgItem, Texts};
use crate::tokens::{memo, Cost, MessageCounter, ProviderCounter, RunMemo};
use crate::truncate::{self, UnitCost};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

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
        // Sized first (a flattened list grows and is copied as it goes).
        let mut lines = Vec::with_capacity(texts.iter().map(|t| t.texts.len()).sum());
        for (member, found) in texts.iter().enumerate() {
            lines.extend(texts_lines(member, found));
        }
        Lines {
            lines,
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
    /// after another with a "\n" between. Where each would start follows
    /// from the first's place and the lines' lengths; that each is there
    /// is checked on every core (a one-group session of 100,000 messages
    /// is 18 MB to compare, twice an edit).
    fn locate(&self, text: &str) -> Option<Vec<usize>> {
        let (_, first) = self.lines.first()?;
        let bytes = text.as_bytes();
        // The first line's first places (a history prompt could hold it).
        text.match_indices(&*first.name)
            .map(|(at, _)| at)
            .filter(|&at| first.starts(&text[at..]))
            .take(4)
            .find_map(|start| {
                let mut starts = Vec::with_capacity(self.lines.len());
                let mut at = start;
                for (_, line) in &self.lines {
                    starts.push(at);
                    at += line.len() + 1;
                }
                let there =
                    crate::parallel::chunks_at(&self.lines, |from, chunk| {
                        chunk.iter().zip(&starts[from..]).enumerate().all(
                            |(k, ((_, line), &at))| {
                                (from + k == 0 || bytes.get(at.wrapping_sub(1)) == Some(&b'\n'))
                                    && text.get(at..).is_some_and(|rest| line.starts(rest))
                            },
                        )
                    });
                there.into_iter().all(|all| all).then_some(starts)
            })
    }

    /// `text`'s raw count, counted a cut at a time, each member's raw part
    /// of it, and what the parts within its lines cost ([`Tail`]): when
    /// the lines are in `text` and each starts at a cut. The parts are
    /// counted on every core when there are many (a session without tool
    /// calls is one group: 100,000 lines counted on one core were most of
    /// its cold count).
    fn count(&self, text: &str, counter: &ProviderCounter) -> Option<LineCount> {
        let starts = self.locate(text)?;
        let bytes = text.as_bytes();
        // The first line may run on from the history tag (Gemini's has no
        // newline): what it costs there is the first member's anyway, as
        // the rest of the group is.
        if !starts[1..].iter().all(|&s| cuts_at(text, s, counter)) {
            return None;
        }
        let last = self.lines.len() - 1;
        let end_of_lines = starts[last] + self.lines[last].1.len();
        let raw = |t: &str| counter.info.tokenizer.raw(t) as i64;
        // Where each part starts: the text's start, then each cut (found
        // in stretches of the text on every core).
        let stretch = bytes.len().div_ceil(STRETCHES).max(STRETCH_FROM);
        let stretches: Vec<usize> = (0..bytes.len()).step_by(stretch).collect();
        let found = crate::parallel::chunks(&stretches, |chunk| {
            let mut cuts = Vec::new();
            for &from in chunk {
                let to = (from + stretch).min(bytes.len());
                let newlines = memchr::memchr_iter(b'\n', &bytes[from..to]);
                cuts.extend(
                    newlines
                        .map(|newline| from + newline + 1)
                        .filter(|&cut| cut < bytes.len() && cuts_at(text, cut, counter)),
                );
            }
            cuts
        });
        let mut cuts = Vec::with_capacity(1 + found.iter().map(Vec::len).sum::<usize>());
        cuts.push(0);
        cuts.extend(found.into_iter().flatten());
        // Each part's count, and the member and figure it adds to that
        // member's own, if it is in the lines; the parts' counts `known`
        // where a run of them was counted before.
        let count_parts = |at: usize, parts: &[usize], known: Option<&[i64]>| {
            let mut out = Vec::with_capacity(parts.len());
            // The line the next part starts in (parts come in order).
            let first = parts.first().copied().unwrap_or_default();
            let mut line = starts.partition_point(|&s| s <= first).saturating_sub(1);
            // An ASCII character's count alone, counted once: the
            // characters after the cuts are the first of the names, which
            // repeat.
            let mut alone = [None; 128];
            for (k, &from) in parts.iter().enumerate() {
                let to = cuts.get(at + k + 1).copied().unwrap_or(bytes.len());
                while line < last && starts[line + 1] <= from {
                    line += 1;
                }
                let in_lines = from >= starts[0] && from < end_of_lines;
                let with_newline = to == end_of_lines + 1 && bytes[end_of_lines] == b'\n';
                // The last line's part runs on past its newline (the
                // closing tag, the group's): the line's own is counted
                // too, beside it, the pieces the two share counted once.
                let runs_on = in_lines && line == last && to >= end_of_lines && !with_newline;
                // Counted before, in a run of the same bytes.
                if let Some(&n) = known.and_then(|known| known.get(k)).filter(|_| !runs_on) {
                    let own = in_lines.then(|| (self.lines[line].0, n));
                    out.push((n, own));
                    continue;
                }
                // A part before a cut is counted with the character after
                // it, less that character's count: at the very end of a
                // text GPT-2's pattern ends a run of spaces and newlines
                // differently.
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
                    let (whole, alone) =
                        line_cost_beside(counter, &text[from..end_of_lines], counted);
                    (whole, Some(alone))
                } else {
                    (raw(counted), None)
                };
                let n = whole - next_alone;
                let own = in_lines.then(|| (self.lines[line].0, line_alone.unwrap_or(n)));
                out.push((n, own));
            }
            out
        };
        let counted = if self.lines.len() >= RUNS_FROM {
            by_runs(text, &cuts, counter, &count_parts)
        } else {
            crate::parallel::chunks_at(&cuts, |at, parts| count_parts(at, parts, None))
        };
        let mut own = vec![0; self.members];
        let mut total = 0;
        // The totals before the second line and before the last cut
        // within the lines.
        let mut before_second = None;
        let mut before_last_cut = (0, 0);
        for (&from, (n, part_own)) in cuts.iter().zip(counted.into_iter().flatten()) {
            if from > 0 && from <= end_of_lines {
                before_last_cut = (from, total);
                if starts.get(1) == Some(&from) {
                    before_second = Some(total);
                }
            }
            total += n;
            if let Some((member, n)) = part_own {
                own[member] += n;
            }
        }
        let (last_cut, at_last_cut) = before_last_cut;
        let tail = before_second.map(|at_second| Tail {
            last_cut: last_cut - starts[0],
            middle: at_last_cut - at_second,
        });
        Some(LineCount { total, own, tail })
    }

    /// `text`'s raw count, where `text` holds these lines as the text
    /// whose count gave `tail` did, with another head and end (the first
    /// history group with the prompt before its lines, and counted
    /// without): its head to the second line and its end from the last
    /// cut are counted, the parts between are `tail`'s. `None` where the
    /// lines are not in `text` at cuts as they were.
    fn count_knowing(&self, text: &str, counter: &ProviderCounter, tail: Tail) -> Option<i64> {
        let starts = self.locate(text)?;
        let second = *starts.get(1)?;
        let last = self.lines.len() - 1;
        let end_of_lines = starts[last] + self.lines[last].1.len();
        let cut = starts[0].checked_add(tail.last_cut)?;
        let at_cuts = second <= cut && cut <= end_of_lines && cut < text.len();
        if !at_cuts || !cuts_at(text, second, counter) || !cuts_at(text, cut, counter) {
            return None;
        }
        let raw = |t: &str| counter.info.tokenizer.raw(t) as i64;
        // The head as a part before a cut: counted with the character
        // after it, less that character's count (as in `count`).
        let next = text[second..].chars().next()?;
        let after = second + next.len_utf8();
        let head = raw(&text[..after]) - raw(&text[second..after]);
        Some(head + tail.middle + raw(&text[cut..]))
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

/// Groups of this many lines and more are counted a run of lines at a
/// time, each run's counts kept by its content ([`RunMemo`]): an edit of a
/// member of a one-group session of 100,000 messages counted all its
/// lines again (150-210 ms); smaller groups are counted whole again, in
/// less time than keeping their runs costs.
const RUNS_FROM: usize = 1024;

/// A group's text is searched for its cuts in this many stretches, spread
/// over the cores when there are enough of them
/// ([`crate::parallel::MIN_ITEMS`]): a text of megabytes.
const STRETCHES: usize = 512;

/// The shortest stretch: a short text is one, searched where it is (a
/// cold count of 100,000 messages counts thousands of small groups, each
/// already on a core of its own; with each group's search spread too, it
/// took half as long again).
const STRETCH_FROM: usize = 16 << 10;

/// The most parts in a run, whatever its lines' content picks.
const LONGEST_RUN: usize = 256;

/// A part's count, and the member and figure it adds to that member's own.
type PartCount = (i64, Option<(usize, i64)>);

/// Counts the parts `cuts[at..]` given, those of a run counted before
/// from their counts then.
type CountParts<'a> = dyn Fn(usize, &[usize], Option<&[i64]>) -> Vec<PartCount> + Sync + 'a;

/// [`Lines::count`]'s parts counted a run at a time, the runs starting at
/// lines their content picks (`tokens/memo.rs`), so that an edit leaves
/// the other runs as they were: a run counted before is read from
/// `counter.runs`, where the last text had it (before or after the edit)
/// or else by its content's key. The parts' counts in order, as
/// `count_parts` gives them.
fn by_runs(
    text: &str,
    cuts: &[usize],
    counter: &ProviderCounter,
    count_parts: &CountParts<'_>,
) -> Vec<Vec<PartCount>> {
    let bytes = text.as_bytes();
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for k in 1..cuts.len() {
        if k - start >= LONGEST_RUN || memo::picks(&bytes[cuts[k]..]) {
            runs.push(start..k);
            start = k;
        }
    }
    runs.push(start..cuts.len());
    let tokenizer = counter.info.tokenizer.name;
    // The runs before and after an edit of the last text are found where
    // they were; the others by their content's key.
    let last = counter.runs.take_last();
    let unchanged = last.as_ref().map(|last| last.unchanged_in(text));
    let where_last = |range: &Range<usize>| {
        let (last, unchanged) = (last.as_ref()?, unchanged.as_ref()?);
        last.find(unchanged, range)
    };
    let counted = crate::parallel::chunks(&runs, |chunk| {
        // Each run's counted bytes: its parts and the character after.
        let ranges: Vec<Range<usize>> = chunk
            .iter()
            .map(|run| {
                let end = cuts.get(run.end).map_or(text.len(), |&to| {
                    to + text[to..].chars().next().map_or(0, char::len_utf8)
                });
                cuts[run.start]..end
            })
            .collect();
        let mut known: Vec<Option<Arc<[i64]>>> = ranges.iter().map(where_last).collect();
        let keys: Vec<Option<memo::Key>> = ranges
            .iter()
            .zip(&known)
            .map(|(range, known)| {
                known
                    .is_none()
                    .then(|| RunMemo::key(tokenizer, &text[range.clone()]))
            })
            .collect();
        let wanted: Vec<memo::Key> = keys.iter().flatten().copied().collect();
        let mut found = counter.runs.get_all(&wanted).into_iter();
        for (known, key) in known.iter_mut().zip(&keys) {
            if key.is_some() {
                *known = found.next().flatten();
            }
        }
        let mut learnt = Vec::new();
        let mut kept = Vec::with_capacity(chunk.len());
        let runs = chunk.iter().zip(keys).zip(known).zip(ranges);
        let counted: Vec<PartCount> = runs
            .flat_map(|(((run, key), known), range)| {
                let parts = count_parts(run.start, &cuts[run.clone()], known.as_deref());
                let counts = known.unwrap_or_else(|| {
                    let counts: Arc<[i64]> = parts.iter().map(|(n, _)| *n).collect();
                    if let Some(key) = key {
                        learnt.push((key, Arc::clone(&counts)));
                    }
                    counts
                });
                kept.push((range, counts));
                parts
            })
            .collect();
        counter.runs.learn(learnt);
        (counted, kept)
    });
    let mut out = Vec::with_capacity(counted.len());
    let mut kept = Vec::with_capacity(runs.len());
    for (counted, runs) in counted {
        out.push(counted);
        kept.extend(runs);
    }
    let last = last.unwrap_or_default();
    counter
        .runs
        .keep_last(last.remake(unchanged.as_ref(), text, kept));
    out
}

/// Whether a count may cut `text` at byte `p`: its start, or after a
/// newline before a character the counter cuts before
/// (`tokens/boundary.rs`).
fn cuts_at(text: &str, p: usize, counter: &ProviderCounter) -> bool {
    p == 0
        || (text.as_bytes().get(p.wrapping_sub(1)) == Some(&b'\n')
            && text
                .get(p..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| counter.splits_after_newline(c)))
}

/// A group's text counted a cut at a time ([`Lines::count`]).
struct LineCount {
    /// The raw count.
    total: i64,
    /// Each member's raw part.
    own: Vec<i64>,
    /// What the parts within the lines cost; `None` for one line.
    tail: Option<Tail>,
}

/// What the parts of a group's text from its second line's start to the
/// last cut within its lines cost raw: the same lines with another head
/// (the first group's history prompt) cost the same there, so the first
/// group's prompted form is counted from its head and end alone
/// ([`prompted_cost`]). Counting a one-group session of 100,000 messages
/// with the prompt had been as much BPE again as its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tail {
    /// That cut, from the first line's start.
    last_cut: usize,
    middle: i64,
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
) -> Result<Costed, PyErr> {
    let out = UnitOutput {
        messages: unit.formatted.unpack(),
        texts: None,
        prompted: None,
    };
    cost_formatted(counter, msgs, unit, &out)
}

/// A unit's cost and, for a `<history>` group of several members, its
/// members' own counts (scaled) and what its lines cost ([`Tail`]), when
/// its count found them.
pub(super) struct Costed {
    pub cost: UnitCost,
    pub own: Option<Vec<i64>>,
    pub tail: Option<Tail>,
}

/// [`cost_unit`] given the unit's output (unpacked, or the tree it was
/// packed from, with the members' texts its lines were written of).
pub(super) fn cost_formatted(
    counter: &ProviderCounter,
    msgs: &[MsgItem],
    unit: &Unit,
    out: &UnitOutput<'_>,
) -> Result<Costed, PyErr> {
    let messages = &out.messages;
    let lines = (unit.kind == UnitKind::AgentGroup && unit.range.len() > 1)
        .then(|| match &out.texts {
            Some(texts) => Some(Lines::written(texts)),
            None => Lines::of(msgs, unit.range.clone()),
        })
        .flatten();
    let Some(lines) = lines else {
        let formatted = truncate::cost_of(counter, messages)?;
        let cost = truncate::cost_variants(counter, unit, formatted)?;
        return Ok(Costed {
            cost,
            own: None,
            tail: None,
        });
    };
    let mut counted = None;
    let formatted = cost_with_first(counter, messages, |text| {
        let count = lines.count(text, counter)?;
        Some(counted.insert(count).total)
    })?;
    let tokenizer = &counter.info.tokenizer;
    let tail = counted.as_ref().and_then(|c| c.tail);
    let own = counted.map(|c| c.own.into_iter().map(|n| tokenizer.scale(n)).collect());
    // The first group's form with the prompt, where it was formatted with
    // it: counted from its head and end with these lines (where it raises,
    // counted whole, which raises the same).
    // (Unpacked from the unit only when there is a tail to count it by.)
    let prompted = tail.and_then(|tail| {
        let prompted = match out.prompted.as_deref() {
            Some(tree) => Cow::Borrowed(tree),
            None => Cow::Owned(unit.prompted.get()?.unpack()),
        };
        cost_with_first(counter, &prompted, |text| {
            lines.count_knowing(text, counter, tail)
        })
        .ok()
    });
    let cost = match prompted {
        // A history group has no front form.
        Some(prompted) => UnitCost {
            formatted,
            front: None,
            prompted: Some(prompted),
        },
        None => truncate::cost_variants(counter, unit, formatted)?,
    };
    Ok(Costed { cost, own, tail })
}

/// The cost of `prompted`, the first group's output with the history
/// prompt: its text counted from its head and end alone, the rest what
/// the group's count without the prompt learnt (`tail`); as a whole
/// where its lines are not found as they were. The same figure either
/// way (see [`Tail`]).
pub(super) fn prompted_cost(
    counter: &ProviderCounter,
    msgs: &[MsgItem],
    unit: &Unit,
    prompted: &[Value],
    tail: Tail,
) -> Result<Cost, PyErr> {
    let Some(lines) = Lines::of(msgs, unit.range.clone()) else {
        return truncate::cost_of(counter, prompted);
    };
    cost_with_first(counter, prompted, |text| {
        lines.count_knowing(text, counter, tail)
    })
}

/// The cost of `messages`, the first of their texts that `first` counts
/// (the group's, holding its lines) counted so, every other text raw.
fn cost_with_first(
    counter: &ProviderCounter,
    messages: &[Value],
    mut first: impl FnMut(&str) -> Option<i64>,
) -> Result<Cost, PyErr> {
    let mut found = false;
    let mut cost = Cost::default();
    for message in messages {
        cost += counter.message_with(message, &mut |text| {
            if !found {
                if let Some(n) = first(text) {
                    found = true;
                    return n;
                }
            }
            counter.info.tokenizer.raw(text) as i64
        })?;
    }
    Ok(cost)
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

//! A formatted request cut into the pieces that truncation adds and removes:
//! the pinned system prompt, then one unit per message (chat mode, and each
//! message of a multi-agent tool run) or per `<history>` group. Formatting a
//! list equals the units' output concatenated, which is what lets counts be
//! cached per unit and truncation be planned without re-formatting.
//!
//! Two outputs depend on their neighbours, and units keep both variants:
//! Anthropic keeps the `system` role only at index 0 of what it formats
//! ("front"), and only the first `<history>` group carries the history
//! prompt ("prompted").

mod format;

use super::shared::{history_line, Group};
use super::{
    every_core, history_message, system_message, tool_runs, FormatOptions, FormatterId, Mode,
    Provider,
};
use crate::json::Packed;
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::session::{Msg, MsgItem, PackedMessage, Role};
pub use format::UnitOutput;
use format::{chat_one, format_unit, history_of, Fresh};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitKind {
    /// A chat-mode message.
    Message,
    /// A message of a multi-agent tool run; `run_start` when it opens the run.
    ToolMessage { run_start: bool },
    /// A multi-agent run of ordinary messages, wrapped in `<history>`.
    AgentGroup,
}

#[derive(Debug)]
pub struct Unit {
    pub kind: UnitKind,
    /// The input messages it comes from.
    pub range: Range<usize>,
    /// Its output in the middle of a request (not first, no history
    /// prompt). Outputs are held packed: a large request's units would
    /// otherwise hold several times its text in JSON trees.
    pub formatted: Packed,
    /// Its output at the front, where that differs (Anthropic `system` role).
    pub front: Option<Packed>,
    /// A history group's output when it is the first one (with the prompt),
    /// formatted when first asked for ([`Segmented::prompted`]).
    pub prompted: OnceLock<Packed>,
    /// Content key: the unit's messages and kind. Equal keys, equal output.
    pub key: u64,
    /// Chat mode promoted media after this message (see `rewrites_list`).
    pub inserts: bool,
}

/// Why a request cannot be cut into units.
#[derive(Debug)]
pub enum SegmentError {
    /// Chat formatters that promote tool-result media insert messages into
    /// the list being truncated (AgentScope's side effect); only the
    /// reference loop reproduces that.
    Promotion,
    Format(PyErr),
}

impl From<PyErr> for SegmentError {
    fn from(e: PyErr) -> Self {
        SegmentError::Format(e)
    }
}

/// Provenance: `(input message range, output message range)`.
pub type Span = (Range<usize>, Range<usize>);

/// [`Segmented::replace_message`]'s answer for the pinned system prompt.
pub const SYSTEM_UNIT: usize = usize::MAX;

/// What [`Segmented::build_counting`] cuts and formats: the arguments of
/// [`Segmented::build_with`], the list shared.
#[derive(Clone, Copy)]
pub struct Build<'a> {
    pub id: FormatterId,
    pub options: &'a FormatOptions,
    pub list: &'a Arc<Vec<MsgItem>>,
    pub keys: &'a [u64],
    /// The request before, whose units are reused where their messages are.
    pub previous: Option<&'a Segmented>,
    pub allow_promotion: bool,
}

#[derive(Debug, Clone)]
pub struct Segmented {
    pub id: FormatterId,
    pub options: FormatOptions,
    /// The input messages (a workbench's packed, unpacked when read),
    /// shared: a budget model reads its messages here, and a copy of the
    /// request (the truncation counter's) costs no copy of the list.
    pub msgs: Arc<Vec<MsgItem>>,
    /// `msgs[0]` is a system message: kept by every truncation step.
    pub pinned: bool,
    pub system: Vec<Value>,
    pub units: Vec<Arc<Unit>>,
    /// Message index -> unit index (`usize::MAX` for the pinned system).
    pub unit_of: Vec<usize>,
    /// A chat formatter promoted tool-result media: it inserts messages
    /// into the list AgentScope truncates, which units do not model.
    pub rewrites_list: bool,
}

impl Drop for Segmented {
    /// The units and, when this holds the last of it, the message list
    /// dropped on every core (`parallel::drop_all`): a provider switch and
    /// a model made afresh drop the request before.
    fn drop(&mut self) {
        crate::parallel::drop_all(std::mem::take(&mut self.units));
        if let Some(list) = Arc::get_mut(&mut self.msgs) {
            crate::parallel::drop_all(std::mem::take(list));
        }
    }
}

impl Segmented {
    /// No messages: what a budget model holds before its first cut.
    pub fn empty(id: FormatterId, options: FormatOptions) -> Segmented {
        Segmented {
            id,
            options,
            msgs: Arc::default(),
            pinned: false,
            system: Vec::new(),
            units: Vec::new(),
            unit_of: Vec::new(),
            rewrites_list: false,
        }
    }

    /// Cuts `msgs` into units. `keys` are content hashes of the messages (see
    /// [`PackedMessage::key`]); units whose key is in `previous` are reused, not
    /// formatted again.
    pub fn build(
        id: FormatterId,
        options: &FormatOptions,
        msgs: &[MsgItem],
        keys: &[u64],
        env: &MediaEnv,
        previous: Option<&Segmented>,
    ) -> Result<Segmented, SegmentError> {
        Self::build_with(id, options, msgs, keys, env, previous, false)
    }

    /// [`Segmented::build`]; with `allow_promotion` a chat formatter's
    /// promoted media stay in their message's unit (right for counting a
    /// request; truncation must then run the reference loop) and
    /// `rewrites_list` says so.
    pub fn build_with(
        id: FormatterId,
        options: &FormatOptions,
        msgs: &[MsgItem],
        keys: &[u64],
        env: &MediaEnv,
        previous: Option<&Segmented>,
        allow_promotion: bool,
    ) -> Result<Segmented, SegmentError> {
        let list = Arc::new(msgs.to_vec());
        let build = Build {
            id,
            options,
            list: &list,
            keys,
            previous,
            allow_promotion,
        };
        Self::build_counting(build, env, &|_, _| ()).map(|(seg, _)| seg)
    }

    /// [`Segmented::build_with`] of a list the caller shares (no copy),
    /// with `count` run on each unit it
    /// formats while the unit's output is still a tree: its result by
    /// unit, `None` for a unit reused from `previous` or one that may read
    /// media (those keep formatting before any counting, so a count never
    /// comes between two reads). A budget counted each unit from its packed
    /// output after the build, unpacking it again: at 100,000 messages the
    /// unpacking and freeing were about a tenth of a cold count.
    pub fn build_counting<T: Send>(
        build: Build<'_>,
        env: &MediaEnv,
        count: &(dyn Fn(&Unit, &UnitOutput<'_>) -> T + Sync),
    ) -> Result<(Segmented, Vec<Option<T>>), SegmentError> {
        let Build {
            id,
            options,
            list,
            keys,
            previous,
            allow_promotion,
        } = build;
        let msgs: &[MsgItem] = list;
        let previous = previous.filter(|p| p.id == id && p.options == *options);
        let mut places = previous.map(|p| UnitPlaces::new(&p.units));
        let mut reuse = |at: usize, len: usize, key: u64| -> Option<&Arc<Unit>> {
            let p = previous?;
            p.units.get(places.as_mut()?.find(at, len, key)?)
        };
        let pinned = msgs.first().is_some_and(|m| m.role() == Role::System);
        let start = usize::from(pinned);
        let provider = id.provider;
        let mut rewrites_list = false;
        let system = match (pinned, id.mode) {
            (false, _) => Vec::new(),
            (true, Mode::Chat) => {
                let (out, inserted) = chat_one(provider, options, &msgs[0].msg()?, true, env)?;
                rewrites_list |= inserted;
                out
            }
            (true, Mode::MultiAgent) => vec![system_message(provider, &*msgs[0].msg()?)?],
        };
        // Cut first (which units, from which messages), then format what
        // is not reused, on every core when it reads no media. A message
        // whose tool blocks cannot be told raises after the units cut
        // before it are formatted, as cutting and formatting in one pass did.
        let mut cut: Vec<(UnitKind, Range<usize>)> = Vec::new();
        let cut_error = match id.mode {
            Mode::Chat => {
                cut.extend((start..msgs.len()).map(|i| (UnitKind::Message, i..i + 1)));
                None
            }
            Mode::MultiAgent => {
                // One unit per message of a tool run, one per history group.
                let (runs, error) = tool_runs(&msgs[start..], MsgItem::has_tool_blocks);
                for (is_tool, run) in runs {
                    let run = run.start + start..run.end + start;
                    if is_tool {
                        cut.extend(run.clone().map(|j| {
                            (
                                UnitKind::ToolMessage {
                                    run_start: j == run.start,
                                },
                                j..j + 1,
                            )
                        }));
                    } else {
                        cut.push((UnitKind::AgentGroup, run));
                    }
                }
                error.map(SegmentError::Format)
            }
        };
        let reads_media =
            |range: &Range<usize>| msgs[range.clone()].iter().any(MsgItem::may_read_media);
        let first_group = cut
            .iter()
            .position(|(kind, _)| *kind == UnitKind::AgentGroup);
        let mut fresh: Vec<(usize, Fresh)> = Vec::new();
        let mut slots: Vec<Option<Arc<Unit>>> = Vec::with_capacity(cut.len());
        let len = cut.len();
        for (kind, range) in cut {
            let key = unit_key(kind, &keys[range.clone()]);
            let unit = match reuse(slots.len(), len, key) {
                Some(u) if u.range == range => Some(Arc::clone(u)),
                Some(u) if u.range.len() == range.len() => Some(Arc::new(Unit {
                    kind,
                    range: range.clone(),
                    formatted: u.formatted.clone(),
                    front: u.front.clone(),
                    prompted: u.prompted.clone(),
                    key,
                    inserts: u.inserts,
                })),
                _ => None,
            };
            if unit.is_none() {
                // A group that reads media is formatted with the prompt
                // when asked for, after every unit before it read theirs.
                let prompted_too = first_group == Some(slots.len()) && !reads_media(&range);
                let unit = Fresh {
                    kind,
                    range,
                    key,
                    prompted_too,
                };
                fresh.push((slots.len(), unit));
            }
            slots.push(unit);
        }
        let formatted = every_core::in_order(
            &fresh,
            env,
            |(_, unit)| reads_media(&unit.range),
            |(_, unit), env| {
                let (unit, out) = format_unit(id, options, msgs, unit.clone(), env)?;
                let counted = (!reads_media(&unit.range)).then(|| count(&unit, &out));
                Ok::<_, SegmentError>((unit, counted))
            },
        )?;
        let mut counts: Vec<Option<T>> = Vec::new();
        counts.resize_with(slots.len(), || None);
        for ((slot, ..), (unit, counted)) in fresh.iter().zip(formatted) {
            slots[*slot] = Some(Arc::new(unit));
            counts[*slot] = counted;
        }
        if let Some(e) = cut_error {
            return Err(e);
        }
        let units: Vec<Arc<Unit>> = slots.into_iter().flatten().collect();
        let mut unit_of = vec![usize::MAX; msgs.len()];
        for (u, unit) in units.iter().enumerate() {
            for i in unit.range.clone() {
                unit_of[i] = u;
            }
        }
        let rewrites_list = rewrites_list || units.iter().any(|u| u.inserts);
        if rewrites_list && !allow_promotion {
            return Err(SegmentError::Promotion);
        }
        let seg = Segmented {
            id,
            options: options.clone(),
            msgs: Arc::clone(list),
            pinned,
            system,
            units,
            rewrites_list,
            unit_of,
        };
        Ok((seg, counts))
    }

    /// Replaces message `i` where the units keep their shape, re-formatting
    /// only the unit that holds it. Returns the unit's index
    /// ([`SYSTEM_UNIT`] for the pinned system prompt), or `None` when the
    /// edit changes the shape (a message gains or loses tool blocks in
    /// multi-agent mode, or the system prompt's role changes): rebuild then.
    pub fn replace_message(
        &mut self,
        i: usize,
        item: MsgItem,
        keys: &[u64],
        env: &MediaEnv,
    ) -> Result<Option<usize>, SegmentError> {
        let Some(old) = self.msgs.get(i) else {
            return Ok(None);
        };
        let is_system = item.role() == Role::System;
        if i == 0 && (self.pinned != is_system) {
            return Ok(None);
        }
        if self.id.mode == Mode::MultiAgent && old.has_tool_blocks()? != item.has_tool_blocks()? {
            return Ok(None);
        }
        let system = (i == 0 && self.pinned).then(|| item.msg()).transpose()?;
        Arc::make_mut(&mut self.msgs)[i] = item;
        if let Some(msg) = system {
            self.system = match self.id.mode {
                Mode::Chat => {
                    let (out, inserted) =
                        chat_one(self.id.provider, &self.options, &msg, true, env)?;
                    self.rewrites_list |= inserted;
                    out
                }
                Mode::MultiAgent => vec![system_message(self.id.provider, &msg)?],
            };
            return Ok(Some(SYSTEM_UNIT));
        }
        let u = self.unit_of[i];
        let (kind, range) = (self.units[u].kind, self.units[u].range.clone());
        let first_group = self
            .units
            .iter()
            .position(|u| u.kind == UnitKind::AgentGroup);
        let prompted_too =
            first_group == Some(u) && !self.msgs[range.clone()].iter().any(MsgItem::may_read_media);
        let unit = Fresh {
            kind,
            key: unit_key(kind, &keys[range.clone()]),
            range,
            prompted_too,
        };
        let (unit, _) = format_unit(self.id, &self.options, &self.msgs, unit, env)?;
        self.rewrites_list |= unit.inserts;
        self.units[u] = Arc::new(unit);
        Ok(Some(u))
    }

    /// The formatted request from unit `first` on (after the system
    /// prompt), as the formatter would produce it for that list.
    pub fn assemble(&self, first: usize, env: &MediaEnv) -> Result<Vec<Value>, PyErr> {
        self.assemble_with_spans(first, env).map(|(out, _)| out)
    }

    /// [`Segmented::assemble`], and which output messages each unit (its
    /// input messages) produced: `(input range, output range)` in order,
    /// the pinned system prompt first.
    pub fn assemble_with_spans(
        &self,
        first: usize,
        env: &MediaEnv,
    ) -> Result<(Vec<Value>, Vec<Span>), PyErr> {
        let pieces = self.pieces(first, env)?;
        let mut out = Vec::new();
        let mut spans = Vec::with_capacity(pieces.list().len());
        for piece in pieces.list() {
            let start = out.len();
            out.extend(pieces.values(piece).into_owned());
            spans.push((piece.input.clone(), start..out.len()));
        }
        Ok((out, spans))
    }

    /// The request from unit `first` on, a piece at a time: the pinned
    /// system prompt's output, then each unit's in the form its place
    /// takes, with the input messages it came from; each piece told apart
    /// by its unit and [`Placement`], its output still packed. A view of a
    /// large request reads them on every core, never holding all of it
    /// unpacked, and keeps the lines of a piece it laid out before while
    /// the piece's unit is the same. The first history group's prompted
    /// output, which may read media, is made here on `env`.
    pub fn pieces(&self, first: usize, env: &MediaEnv) -> Result<Pieces<'_>, PyErr> {
        let mut list = Vec::with_capacity(self.units.len() + 1);
        if self.pinned {
            list.push(Piece {
                input: 0..1,
                unit: None,
                placement: Placement::System,
            });
        }
        let mut prompted = None;
        let mut first_group = true;
        for (k, unit) in self.units.iter().enumerate().skip(first) {
            let placement = if unit.kind == UnitKind::AgentGroup && first_group {
                first_group = false;
                // Made now where it was not (it is kept packed too).
                if unit.prompted.get().is_none() {
                    prompted = Some(self.prompted(unit, env)?);
                }
                Placement::Prompted
            } else {
                self.placement(k - first, unit)
            };
            list.push(Piece {
                input: unit.range.clone(),
                unit: Some(k),
                placement,
            });
        }
        Ok(Pieces {
            seg: self,
            list,
            prompted,
        })
    }

    /// Where the `k`th unit of what is assembled sits (the first history
    /// group's prompted output aside): at the front where its front form
    /// differs and it is there.
    fn placement(&self, k: usize, unit: &Unit) -> Placement {
        let at_front = match unit.kind {
            UnitKind::Message => k == 0 && !self.pinned,
            UnitKind::ToolMessage { run_start } => k == 0 || run_start,
            UnitKind::AgentGroup => false,
        };
        if at_front && unit.front.is_some() {
            Placement::Front
        } else {
            Placement::Middle
        }
    }

    /// A history group's output as the first group (with the prompt).
    pub fn prompted(&self, unit: &Unit, env: &MediaEnv) -> Result<Vec<Value>, PyErr> {
        if let Some(p) = unit.prompted.get() {
            return Ok(p.unpack());
        }
        let members = &self.msgs[unit.range.clone()];
        let out = history_of(
            self.id.provider,
            env,
            members,
            self.options.history_prompt(),
        )?;
        let _ = unit.prompted.set(Packed::pack(&out));
        Ok(out)
    }

    /// When every line of a history group follows a `"\n"` (each provider's
    /// `<history>\n` tag but Gemini's `<history>`) and its members are text
    /// only: the first character of each member's first line, in order.
    /// Dropping members from the front then only removes whole lines.
    pub fn member_line_starts(&self, unit: &Unit) -> Option<Vec<char>> {
        if unit.kind != UnitKind::AgentGroup || self.id.provider == Provider::Gemini {
            return None;
        }
        self.msgs[unit.range.clone()]
            .iter()
            .map(|item| {
                // Read in place where the member is packed text: unpacking
                // each member was most of a plan of a one-group session
                // (100,000 members: about 100 ms a plan, on one core).
                // Its first line is `name: text`.
                if let Some(name) = item.one_text_name() {
                    return Some(name.chars().next().unwrap_or(':'));
                }
                if let Some(texts) = item.texts().filter(|t| t.only_texts) {
                    texts.texts.first()?;
                    return Some(texts.name.chars().next().unwrap_or(':'));
                }
                let msg = item.msg().ok()?;
                let blocks = msg.blocks();
                let text_only = blocks
                    .iter()
                    .all(|b| b.get("type").and_then(Value::as_str) == Some("text"));
                let first = blocks.first().filter(|_| text_only)?;
                history_line(&msg, first).ok()?.chars().next()
            })
            .collect()
    }

    /// A history group formatted from message `from` on (a truncation step
    /// ended inside it), with the prompt as the first group.
    pub fn partial_group(
        &self,
        unit: &Unit,
        from: usize,
        env: &MediaEnv,
    ) -> Result<Vec<Value>, PyErr> {
        let members = &self.msgs[from..unit.range.end];
        history_of(
            self.id.provider,
            env,
            members,
            self.options.history_prompt(),
        )
    }

    /// Any members, formatted as the history group that takes the prompt.
    pub fn group_of(&self, members: &[Arc<Msg>], env: &MediaEnv) -> Result<Vec<Value>, PyErr> {
        history_message(
            self.id.provider,
            env,
            Group::Msgs(members),
            self.options.history_prompt(),
        )
    }
}

/// Where the units of a request before an edit are in the request cut
/// again after it: a unit at the same place, from the start or from the
/// end (an insert or delete before it); by content key, from a map made on
/// first use, only one that moved.
pub struct UnitPlaces<'a> {
    units: &'a [Arc<Unit>],
    moved: Option<FxHashMap<u64, usize>>,
}

impl<'a> UnitPlaces<'a> {
    pub fn new(units: &'a [Arc<Unit>]) -> UnitPlaces<'a> {
        UnitPlaces { units, moved: None }
    }

    /// The place of unit `at` of `len` units now, whose key is `key`.
    pub fn find(&mut self, at: usize, len: usize, key: u64) -> Option<usize> {
        let units = self.units;
        let from_end = (at + units.len()).checked_sub(len);
        let here = [Some(at), from_end]
            .into_iter()
            .flatten()
            .find(|&j| units.get(j).is_some_and(|u| u.key == key));
        here.or_else(|| {
            let moved = self
                .moved
                .get_or_insert_with(|| units.iter().enumerate().map(|(j, u)| (u.key, j)).collect());
            moved.get(&key).copied()
        })
    }
}

/// The formatted request and where each part came from.
#[derive(Debug, Clone, PartialEq)]
pub struct FormattedRequest {
    pub messages: Vec<Value>,
    /// `(input message range, output message range)`, in order.
    pub spans: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
}

/// [`PackedMessage::key`] of each of a session's messages, in order.
pub fn message_keys(messages: &[PackedMessage]) -> Vec<u64> {
    messages.iter().map(PackedMessage::key).collect()
}

fn unit_key(kind: UnitKind, keys: &[u64]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    kind.hash(&mut hasher);
    keys.hash(&mut hasher);
    hasher.finish()
}

/// Which of its outputs a piece of an assembled request takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The pinned system prompt's output (no unit).
    System,
    /// The first history group's, with the history prompt.
    Prompted,
    /// A unit's front form (Anthropic's `system` role at index 0).
    Front,
    /// Any other unit's output.
    Middle,
}

/// One piece of an assembled request ([`Segmented::pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The input messages it comes from.
    pub input: Range<usize>,
    /// Its unit's index (`None` for the pinned system prompt).
    unit: Option<usize>,
    pub placement: Placement,
}

/// The pieces of an assembled request, in order, read on any thread.
pub struct Pieces<'a> {
    seg: &'a Segmented,
    list: Vec<Piece>,
    /// The first history group's output with the prompt, where it was
    /// made for these pieces (else its unit keeps it packed).
    prompted: Option<Vec<Value>>,
}

impl Pieces<'_> {
    pub fn list(&self) -> &[Piece] {
        &self.list
    }

    /// The unit a piece comes from: while it is the same `Arc`, the
    /// piece's output (in its placement) is the same.
    pub fn unit(&self, piece: &Piece) -> Option<&Arc<Unit>> {
        piece.unit.and_then(|k| self.seg.units.get(k))
    }

    /// A piece's output messages (those held here lent, not copied: the
    /// first group's with the prompt is a one-group session's whole text).
    pub fn values(&self, piece: &Piece) -> Cow<'_, [Value]> {
        if let (Placement::Prompted, Some(prompted)) = (piece.placement, &self.prompted) {
            return Cow::Borrowed(prompted);
        }
        match self.packed(piece) {
            Some(packed) => Cow::Owned(packed.unpack()),
            None if piece.unit.is_none() => Cow::Borrowed(&self.seg.system),
            None => Cow::Borrowed(&[]),
        }
    }

    /// A piece's output messages as its unit keeps them packed (`None`
    /// for the pinned system prompt's): read in place, a one-group
    /// session's 18 MB of text is printed without being unpacked first.
    pub fn packed(&self, piece: &Piece) -> Option<&Packed> {
        let unit = self.unit(piece)?;
        match (piece.placement, &unit.front) {
            (Placement::Prompted, _) => unit.prompted.get(),
            (Placement::Front, Some(front)) => Some(front),
            _ => Some(&unit.formatted),
        }
    }
}

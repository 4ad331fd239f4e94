//! One unit of a segmented request formatted: a chat message, a message
//! of a multi-agent tool run, or a `<history>` group (the first one with
//! the history prompt too, on another core).

use super::{SegmentError, Unit, UnitKind};
use crate::formatter::shared::{member_texts, Group};
use crate::formatter::{
    anthropic, chat, history_message, FormatOptions, FormatterId, Mode, Provider,
};
use crate::json::Packed;
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::session::{msgs_of, Msg, MsgItem, Role, Texts};
use serde_json::Value;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// A history group of `members`: from their lines read in place where
/// they are packed texts, else from their `Msg`s.
pub(super) fn history_of(
    provider: Provider,
    env: &MediaEnv,
    members: &[MsgItem],
    prompt: &str,
) -> Result<Vec<Value>, PyErr> {
    history_with_texts(provider, env, members, prompt).map(|out| out.messages)
}

/// [`history_of`], with the members' texts where its lines were written
/// of them.
fn history_with_texts<'a>(
    provider: Provider,
    env: &MediaEnv,
    members: &'a [MsgItem],
    prompt: &str,
) -> Result<UnitOutput<'a>, PyErr> {
    Ok(match member_texts(members) {
        Some(texts) => UnitOutput {
            messages: history_message(provider, env, Group::Texts(&texts), prompt)?,
            texts: Some(texts),
            prompted: None,
        },
        None => UnitOutput {
            messages: history_message(provider, env, Group::Msgs(&msgs_of(members)?), prompt)?,
            texts: None,
            prompted: None,
        },
    })
}

/// A unit's output while it is still a tree, as a count reads it.
pub struct UnitOutput<'a> {
    /// The output messages.
    pub messages: Vec<Value>,
    /// A history group's members' texts, in order, as its lines were
    /// written of them (a count finds each member's share by them); `None`
    /// where the group was formatted from its `Msg`s, and for any other
    /// unit.
    pub texts: Option<Vec<Texts<'a>>>,
    /// The first history group's output with the history prompt, where it
    /// was formatted beside its output without (the unit keeps it packed
    /// too): the first group is sent so, and its count with the prompt is
    /// learnt from its count without ([`Unit::prompted`]).
    pub prompted: Option<Vec<Value>>,
}

/// A unit to format: what it is, from which messages, its content key,
/// and whether it is the request's first history group, whose output with
/// the history prompt is made beside its output without, on another core
/// (it reads no media): the request sends that form, and formatting it
/// after was a third of an edit of a one-group session of 100,000
/// messages.
#[derive(Clone)]
pub(super) struct Fresh {
    pub(super) kind: UnitKind,
    pub(super) range: Range<usize>,
    pub(super) key: u64,
    pub(super) prompted_too: bool,
}

pub(super) fn format_unit<'a>(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &'a [MsgItem],
    unit: Fresh,
    env: &MediaEnv,
) -> Result<(Unit, UnitOutput<'a>), SegmentError> {
    let Fresh {
        kind,
        range,
        key,
        prompted_too,
    } = unit;
    let provider = id.provider;
    let mut inserted = false;
    let mut prompted = None;
    // The output packed where it was packed beside the prompted form.
    let mut packed = None;
    let (out, front) = match kind {
        UnitKind::AgentGroup if prompted_too => {
            let members = &msgs[range.clone()];
            let run = env.runs().run();
            let prompt = options.history_prompt();
            // Each side packs its own output too: packing the plain one
            // after both were made had kept one core waiting.
            let (plain, (with_prompt, run)) = crate::parallel::beside(
                || {
                    history_with_texts(provider, env, members, "")
                        .map(|out| (Packed::pack(&out.messages), out))
                },
                move || {
                    let out = history_of(provider, &run, members, prompt);
                    (out.map(|out| (Packed::pack(&out), out)), run)
                },
            );
            env.absorb(run);
            let (plain_packed, mut plain) = plain?;
            packed = Some(plain_packed);
            // Where it raises, it is made when asked for, and raises there.
            if let Ok((packed, out)) = with_prompt {
                prompted = Some(packed);
                plain.prompted = Some(out);
            }
            (plain, None)
        }
        UnitKind::AgentGroup => (
            history_with_texts(provider, env, &msgs[range.clone()], "")?,
            None,
        ),
        UnitKind::Message | UnitKind::ToolMessage { .. } => {
            let msg = &msgs[range.start].msg()?;
            let chat_options = match id.mode {
                Mode::Chat => options.clone(),
                Mode::MultiAgent => FormatOptions {
                    history_prompt: None,
                    ..options.clone()
                },
            };
            let (formatted, ins) = chat_one(provider, &chat_options, msg, false, env)?;
            // Multi-agent tool runs are formatted on a copy: promoted media
            // stay inside the run's output, the list is not rewritten.
            inserted = ins && id.mode == Mode::Chat;
            let front = (provider == Provider::Anthropic && msg.role == Role::System)
                .then(|| chat_one(provider, &chat_options, msg, true, env).map(|(f, _)| f))
                .transpose()?;
            let out = UnitOutput {
                messages: formatted,
                texts: None,
                prompted: None,
            };
            (out, front)
        }
    };
    let unit = Unit {
        kind,
        range,
        formatted: packed.unwrap_or_else(|| Packed::pack(&out.messages)),
        front: front.as_deref().map(Packed::pack),
        prompted: prompted.map(OnceLock::from).unwrap_or_default(),
        key,
        inserts: inserted,
    };
    Ok((unit, out))
}

/// One message through the chat formatter, at the front of the list or
/// not; and whether the formatter inserted promoted messages after it.
pub(super) fn chat_one(
    provider: Provider,
    options: &FormatOptions,
    msg: &Arc<Msg>,
    front: bool,
    env: &MediaEnv,
) -> Result<(Vec<Value>, bool), SegmentError> {
    if provider == Provider::Anthropic {
        let offset = if front { 0 } else { 1 };
        let out = anthropic::chat_at(env, std::slice::from_ref(msg), offset)?;
        return Ok((out, false));
    }
    let mut list = vec![Arc::clone(msg)];
    let out = chat(provider, options, &mut list, env)?;
    Ok((out, list.len() != 1))
}

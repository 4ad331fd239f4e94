//! The messages view's lines, laid out a piece (a unit's output) at a
//! time, on every core for a large request, and remembered from one job to
//! the next: a piece whose unit the budget model kept (an edit touches one
//! message) is copied from the last layout's lines instead of unpacked and
//! printed again. The last layout's lines are the preview on screen, so
//! remembering them costs an `Arc`, not a copy.

use super::request::PrettyRequest;
use super::*;
use formatscope_core::formatter::{Piece, Placement, Unit};
use formatscope_core::py::PyErr;
use std::collections::HashMap;
use std::sync::Weak;

/// The last layout kept: its lines, each output message's lines there, and
/// each piece's output messages, by the piece's unit and placement.
#[derive(Default)]
pub struct LastLayout {
    raw: bool,
    plain: Arc<Lines>,
    messages: Vec<Range<usize>>,
    /// Keyed by the unit's address: the `Weak` keeps the address from
    /// being taken by another unit while the entry lives.
    pieces: HashMap<(usize, Placement), (Weak<Unit>, Range<usize>)>,
}

impl LastLayout {
    /// Each output message's lines in [`Self::plain`] of `unit` in
    /// `placement`, when this layout holds them with the same `raw`.
    fn find(
        &self,
        unit: Option<&Arc<Unit>>,
        placement: Placement,
        raw: bool,
    ) -> Option<&[Range<usize>]> {
        let unit = unit?;
        if raw != self.raw {
            return None;
        }
        let (_, messages) = self.pieces.get(&(Arc::as_ptr(unit) as usize, placement))?;
        self.messages.get(messages.clone())
    }
}

/// The messages view's lines, their spans and each output message's lines.
pub(super) type Laid = (Arc<Lines>, Vec<Span>, Vec<Range<usize>>);

/// The messages view of `model`'s request, on every core when `spread`,
/// each piece `last` holds copied from there; `None` once `stop()` cut it
/// short. With `keep`, `last` becomes this layout.
pub(super) fn messages_view(
    model: &BudgetModel,
    last: &mut LastLayout,
    raw: bool,
    spread: bool,
    keep: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<Laid>, PyErr> {
    let pieces = model.pieces()?;
    let list = pieces.list();
    let before = &*last;
    let run = |first: bool, chunk: &[Piece]| {
        let mut request = if first {
            PrettyRequest::new(raw)
        } else {
            PrettyRequest::piece(raw)
        };
        for piece in chunk {
            match before.find(pieces.unit(piece), piece.placement, raw) {
                Some(messages) => request.push_copied(piece.input.clone(), &before.plain, messages),
                // A piece may be a one-group session's whole text: its
                // printing stops too.
                None => {
                    // Printed from the packed output in place where the
                    // unit keeps it so (not unpacked first).
                    let input = piece.input.clone();
                    let printed = match pieces.packed(piece) {
                        Some(packed) => request.push_unit(input, packed.views(), stop),
                        None => request.push_unit(input, pieces.values(piece).iter(), stop),
                    };
                    if !printed {
                        return None;
                    }
                }
            }
        }
        Some(request)
    };
    let runs = if spread {
        formatscope_core::parallel::chunks_until(list, stop, |at, chunk| run(at == 0, chunk))
    } else {
        vec![(!stop()).then(|| run(true, list))]
    };
    let Some(runs) = runs
        .into_iter()
        .map(Option::flatten)
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    if stop() {
        return Ok(None);
    }
    let request = PrettyRequest::joined(runs);
    let outputs: Vec<Range<usize>> = request.unit_messages().collect();
    let (plain, spans, messages) = request.finish_units();
    let plain = Arc::new(plain);
    if keep {
        let pieces = list
            .iter()
            .zip(outputs)
            .filter_map(|(piece, out)| {
                let unit = pieces.unit(piece)?;
                let at = (Arc::as_ptr(unit) as usize, piece.placement);
                Some((at, (Arc::downgrade(unit), out)))
            })
            .collect();
        *last = LastLayout {
            raw,
            plain: Arc::clone(&plain),
            messages: messages.clone(),
            pieces,
        };
    }
    Ok(Some((plain, spans, messages)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use formatscope_core::formatter::{Mode, Provider};
    use formatscope_core::tokens::models;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A one-group session whose one message is over a megabyte: its
    /// printing stops for a newer job, within the message.
    #[test]
    fn a_newer_job_stops_the_layout_inside_a_one_group_sessions_message() {
        let messages: Vec<PackedMessage> = (0..3000)
            .map(|i| {
                let text = format!("Message {i}: {}", "words and more words ".repeat(20));
                PackedMessage::new(&serde_json::json!({
                    "name": "Alice", "role": "user", "content": text,
                }))
            })
            .collect();
        let id = FormatterId {
            provider: Provider::OpenAi,
            mode: Mode::MultiAgent,
        };
        let env = MediaEnv::new(PathBuf::from("."), Arc::new(NoNetwork));
        let info = models::resolve(id.provider, None);
        let model = BudgetModel::new(id, FormatOptions::default(), info, messages, None, env)
            .expect("counts");
        let asked = AtomicUsize::new(0);
        // Not stopped before the layout begins; stopped when asked again.
        let stop = || asked.fetch_add(1, Ordering::Relaxed) > 0;
        let mut last = LastLayout::default();
        let cut = messages_view(&model, &mut last, false, false, true, &stop).expect("lays out");
        assert!(cut.is_none(), "the layout went on to the end");
        assert!(
            asked.load(Ordering::Relaxed) >= 2,
            "asked inside the message"
        );
        let laid = messages_view(&model, &mut last, false, false, true, &|| false)
            .expect("lays out")
            .expect("not stopped");
        assert!(laid.0.len() > 3, "the request's lines");
    }
}

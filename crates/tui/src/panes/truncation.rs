//! The truncation preview: what AgentScope's FIFO truncation would drop to
//! fit the budget, or why it cannot.

use super::{columns, pane_block};
use crate::lines::fit_paragraphs;
use crate::theme::Palette;
use crate::worker::Preview;
use formatscope_core::text::{count_of, thousands, thousands_signed};
use formatscope_core::tokens::CounterSpec;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// The truncation panel: no state and no keys, drawn from the preview
/// (and whether nothing is being formatted).
pub struct Truncation;

impl super::Component for Truncation {
    type Context<'a> = ();
    type Props<'a> = (Option<&'a Preview>, bool);

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, (preview, idle): Self::Props<'_>) {
        draw(frame, area, ui, preview, idle)
    }
}

fn draw(frame: &mut Frame, area: Rect, ui: &Palette, preview: Option<&Preview>, idle: bool) {
    // AgentScope truncates with the agent's token counter: say which (the
    // counter before the words around it, when the title is cut short).
    let room = (area.width as usize).saturating_sub(2);
    let title = match preview.map(|p| p.truncation_label.as_str()) {
        Some(label) if !label.is_empty() => [
            format!(" Truncation (FIFO as AgentScope · {label}) "),
            format!(" Truncation · {label} "),
            format!(" {label} "),
            " Truncation ".to_string(),
        ]
        .into_iter()
        .find(|t| columns(t) <= room)
        .unwrap_or_default(),
        _ => " Truncation (FIFO as AgentScope) ".to_string(),
    };
    let block = pane_block(ui, Line::from(title), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let muted = Style::default().fg(ui.muted);
    let Some(preview) = preview else {
        let text = if idle { "no session" } else { "formatting…" };
        frame.render_widget(Paragraph::new(text).style(muted), inner);
        return;
    };
    // Each paragraph in its forms, the longest first, with its style; the
    // most needed first.
    let paragraphs: Vec<(Vec<String>, Style)> = if let Some(r) = &preview.release {
        vec![(
            vec![
                format!(
                    "{} has no truncation here: {}; every message is sent.",
                    r.title,
                    r.no_budget
                        .unwrap_or("it does not truncate in the formatter")
                ),
                format!("{} does not truncate here: every message is sent.", r.title),
                "No truncation in this release: every message is sent.".to_string(),
            ],
            muted,
        )]
    } else if let (Some(_), None) = (&preview.error, &preview.plan) {
        vec![(
            vec![
                "No truncation preview: the request does not format.".to_string(),
                "No preview: the request does not format.".to_string(),
            ],
            muted,
        )]
    } else {
        plan_paragraphs(ui, preview)
    };
    let forms: Vec<Vec<String>> = paragraphs.iter().map(|(f, _)| f.clone()).collect();
    let laid = fit_paragraphs(&forms, inner.width as usize, inner.height as usize);
    let lines: Vec<Line> = laid
        .into_iter()
        .zip(paragraphs.iter().map(|(_, style)| *style))
        .flat_map(|(lines, style)| lines.into_iter().map(move |l| Line::styled(l, style)))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// What the plan says, as paragraphs in their forms, longest first.
fn plan_paragraphs(ui: &Palette, preview: &Preview) -> Vec<(Vec<String>, Style)> {
    let muted = Style::default().fg(ui.muted);
    let tokens = |n: i64| count_of(n, "token", "tokens");
    match (&preview.plan, preview.budget) {
        (_, None) => vec![
            (
                vec![
                    "No budget: set \"max_tokens\" in the session to preview truncation."
                        .to_string(),
                    "No budget: set \"max_tokens\" to preview truncation.".to_string(),
                    "No budget (\"max_tokens\").".to_string(),
                ],
                muted,
            ),
            (
                vec![
                    "The meter shows the request against the model's context window."
                        .to_string(),
                    "The meter shows the model's context window.".to_string(),
                ],
                muted,
            ),
        ],
        (Some(Ok(plan)), Some(budget)) if plan.fits() && plan.dropped.is_empty() => {
            let after = thousands_signed(plan.tokens_after.unwrap_or_default());
            let budget = thousands_signed(budget);
            vec![(
                vec![
                    format!("Fits: {after} tokens of {budget}; nothing is dropped."),
                    format!("Fits: {after} of {budget}; nothing dropped."),
                ],
                Style::default().fg(ui.ok),
            )]
        }
        (Some(Ok(plan)), Some(budget)) if plan.fits() => {
            let first = plan.dropped.first().copied().unwrap_or_default();
            let last = plan.dropped.last().copied().unwrap_or_default();
            let which = if first == last {
                format!("#{first}")
            } else {
                format!("#{first}–#{last}")
            };
            let dropped = plan.dropped.len() as i64;
            let of = thousands((plan.kept.len() + plan.dropped.len()) as u64);
            let before = thousands_signed(plan.tokens_before);
            let after = thousands_signed(plan.tokens_after.unwrap_or_default());
            let budget = thousands_signed(budget);
            let steps = count_of(plan.steps as i64, "step", "steps");
            vec![
                (
                    vec![
                        format!(
                            "Drops {} of {of} messages ({which}) in {steps}: {before} → {} (budget {budget}).",
                            thousands_signed(dropped),
                            tokens(plan.tokens_after.unwrap_or_default()),
                        ),
                        format!(
                            "Drops {} of {of} ({which}): {before} → {after} tokens (budget {budget}).",
                            thousands_signed(dropped)
                        ),
                        format!(
                            "Drops {} of {of} ({which}): {before} → {after}.",
                            thousands_signed(dropped)
                        ),
                    ],
                    Style::default().fg(ui.warning),
                ),
                (
                    vec![
                        "Dropped messages are crossed out in the list.".to_string(),
                        "Crossed out in the list.".to_string(),
                    ],
                    muted,
                ),
            ]
        }
        (Some(Ok(plan)), Some(budget)) => {
            let reason = plan.reason().unwrap_or_default();
            let budget = tokens(budget);
            let (kind, message) = plan
                .error
                .as_ref()
                .map_or(("Error", ""), |e| (e.kind, e.message.trim()));
            vec![
                (
                    vec![
                        format!("Cannot fit in {budget}: {reason}."),
                        format!("Cannot fit in {budget}."),
                    ],
                    Style::default().fg(ui.error),
                ),
                (
                    vec![
                        format!("AgentScope raises {kind}: {message}"),
                        format!("AgentScope raises {kind}."),
                    ],
                    muted,
                ),
            ]
        }
        (Some(Err(e)), _) => vec![
            (vec![e.clone()], Style::default().fg(ui.error)),
            // AgentScope's OpenAI counter raises on other providers' shapes.
            (
                vec![
                    format!(
                        "AgentScope's truncation raises this with the agent's token counter. Another one can be set in the session: \"token_counter\": {}.",
                        CounterSpec::CHOICES
                    ),
                    "AgentScope's truncation raises this with the agent's token counter; set another with \"token_counter\" in the session (see `formatscope truncate --help`).".to_string(),
                    "AgentScope's truncation raises this with the agent's token counter (\"token_counter\" in the session sets another).".to_string(),
                    "The agent's token counter raises this (see \"token_counter\").".to_string(),
                    "Another counter: \"token_counter\".".to_string(),
                ],
                muted,
            ),
        ],
        (None, Some(_)) => vec![(vec!["planning the truncation…".to_string()], muted)],
    }
}

//! The truncation preview: what AgentScope's FIFO truncation would drop to
//! fit the budget, or why it cannot.

use super::pane_block;
use crate::tokens::CounterSpec;
use crate::tui::theme::Palette;
use crate::tui::worker::Preview;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, area: Rect, ui: &Palette, preview: Option<&Preview>, idle: bool) {
    // AgentScope truncates with the agent's token counter: say which.
    let title = match preview.map(|p| p.truncation_label.as_str()) {
        Some(label) if !label.is_empty() => format!(" Truncation (FIFO as AgentScope · {label}) "),
        _ => " Truncation (FIFO as AgentScope) ".to_string(),
    };
    let block = pane_block(ui, Line::from(title), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(preview) = preview else {
        let text = if idle { "no session" } else { "formatting…" };
        frame.render_widget(
            Paragraph::new(text).style(Style::default().fg(ui.muted)),
            inner,
        );
        return;
    };
    if let Some(r) = &preview.release {
        frame.render_widget(
            Paragraph::new(format!(
                "{} has no truncation here: {}; every message is sent.",
                r.title,
                r.no_budget
                    .unwrap_or("it does not truncate in the formatter")
            ))
            .style(Style::default().fg(ui.muted))
            .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    if let (Some(_), None) = (&preview.error, &preview.plan) {
        frame.render_widget(
            Paragraph::new("No truncation preview: the request does not format.")
                .style(Style::default().fg(ui.muted)),
            inner,
        );
        return;
    }
    let lines: Vec<Line> = match (&preview.plan, preview.budget) {
        (_, None) => vec![
            Line::styled(
                "No budget: set \"max_tokens\" in the session to preview truncation.",
                Style::default().fg(ui.muted),
            ),
            Line::styled(
                "The meter shows the request against the model's context window.",
                Style::default().fg(ui.muted),
            ),
        ],
        (Some(Ok(plan)), Some(budget)) if plan.fits() && plan.dropped.is_empty() => {
            vec![Line::styled(
                format!(
                    "Fits: {} tokens of {budget}; nothing is dropped.",
                    plan.tokens_after.unwrap_or_default()
                ),
                Style::default().fg(ui.ok),
            )]
        }
        (Some(Ok(plan)), Some(budget)) if plan.fits() => {
            let first = plan.dropped.first().copied().unwrap_or_default();
            let last = plan.dropped.last().copied().unwrap_or_default();
            vec![
                Line::styled(
                    format!(
                        "Drops {} of {} messages (#{first}–#{last}) in {} steps: {} → {} tokens (budget {budget}).",
                        plan.dropped.len(),
                        plan.kept.len() + plan.dropped.len(),
                        plan.steps,
                        plan.tokens_before,
                        plan.tokens_after.unwrap_or_default()
                    ),
                    Style::default().fg(ui.warning),
                ),
                Line::styled("Dropped messages are crossed out in the list.", Style::default().fg(ui.muted)),
            ]
        }
        (Some(Ok(plan)), Some(budget)) => vec![
            Line::styled(
                format!(
                    "Cannot fit in {budget} tokens: {}.",
                    plan.reason().unwrap_or_default()
                ),
                Style::default().fg(ui.error),
            ),
            Line::styled(
                format!(
                    "AgentScope raises {}: {}",
                    plan.error.as_ref().map(|e| e.kind).unwrap_or("Error"),
                    plan.error.as_ref().map(|e| e.message.trim()).unwrap_or("")
                ),
                Style::default().fg(ui.muted),
            ),
        ],
        (Some(Err(e)), _) => vec![
            Line::styled(e.clone(), Style::default().fg(ui.error)),
            // AgentScope's OpenAI counter raises on other providers' shapes.
            Line::styled(
                format!(
                    "AgentScope's truncation raises this with the agent's token counter. Another one can be set in the session: \"token_counter\": {}.",
                    CounterSpec::CHOICES
                ),
                Style::default().fg(ui.muted),
            ),
        ],
        (None, Some(_)) => vec![Line::styled(
            "planning the truncation…",
            Style::default().fg(ui.muted),
        )],
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

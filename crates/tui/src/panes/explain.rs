//! The explain panel (`w`): the rules that fired for the request on screen,
//! each with the messages it fired on, what it does and where it lives in
//! AgentScope. Rules behind the lines on screen come first, in bold.

use super::pane_block;
use crate::theme::Palette;
use crate::worker::Explanation;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// What the explain panel draws: the explanation, the provider on screen
/// and the rules behind the request lines on screen.
pub struct ExplainView<'a> {
    pub why: Option<&'a Explanation>,
    pub provider: formatscope_core::formatter::Provider,
    pub on_screen: &'a [&'static str],
}

/// The explain panel: no state and no keys (whether it is open is the
/// request pane's, which `w` toggles).
pub struct Explain;

impl super::Component for Explain {
    type Context<'a> = ();
    type Props<'a> = &'a ExplainView<'a>;

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &ExplainView<'_>) {
        draw(frame, area, ui, view.why, view.provider, view.on_screen)
    }
}

fn draw(
    frame: &mut Frame,
    area: Rect,
    ui: &Palette,
    why: Option<&Explanation>,
    provider: formatscope_core::formatter::Provider,
    on_screen: &[&'static str],
) {
    let title = match why {
        None => " Rules (finding them…) ".to_string(),
        Some(w) => format!(
            " Rules: {} fired for this request · w closes ",
            w.fired.len()
        ),
    };
    let block = pane_block(ui, Line::from(title), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(why) = why else { return };
    let mut lines = Vec::new();
    if let Some(note) = &why.note {
        lines.push(Line::styled(
            formatscope_core::text::escape_control(note).into_owned(),
            Style::default().fg(ui.muted),
        ));
    }
    let mut fired: Vec<_> = why.fired.iter().collect();
    fired.sort_by_key(|(r, _)| !on_screen.contains(&r.id));
    for (r, on) in fired {
        let mut head = Style::default().fg(ui.focus);
        if on_screen.contains(&r.id) {
            head = head.add_modifier(Modifier::BOLD);
        }
        let on = match on.as_slice() {
            [] => String::new(),
            [one] => format!(" #{one}"),
            many => format!(
                " #{}",
                many.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", #")
            ),
        };
        lines.push(Line::from(vec![
            Span::styled(r.id, head),
            Span::styled(on, Style::default().fg(ui.muted)),
            Span::styled(format!("  {}", r.text), Style::default().fg(ui.text)),
        ]));
        lines.push(Line::styled(
            format!("    {} · {}", r.agentscope, r.api_for(provider)),
            Style::default().fg(ui.muted),
        ));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

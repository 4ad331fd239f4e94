//! The status line: the search being typed, the file's error, or the last
//! event; and the focused pane's key hints.

use crate::tui::keymap::{self, Scope};
use crate::tui::theme::Palette;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub struct StatusView<'a> {
    pub search_input: Option<&'a str>,
    pub load_error: Option<&'a str>,
    pub last_reload: Option<&'a str>,
    pub status: &'a str,
    /// Whose keys the footer shows.
    pub scope: Scope,
}

pub fn draw(frame: &mut Frame, area: Rect, ui: &Palette, view: &StatusView<'_>) {
    let mut left: Vec<Span> = Vec::new();
    if let Some(input) = view.search_input {
        left.push(Span::styled(
            format!("/{input}█"),
            Style::default().fg(ui.focus),
        ));
    } else if let Some(e) = view.load_error {
        left.push(Span::styled(
            format!("{e} (showing the last good version)"),
            Style::default().fg(ui.error),
        ));
    } else {
        if let Some(t) = view.last_reload {
            left.push(Span::styled(
                format!("reloaded {t} · "),
                Style::default().fg(ui.muted),
            ));
        }
        left.push(Span::styled(
            view.status.to_string(),
            Style::default().fg(ui.text),
        ));
    }
    let hints: Vec<Span> = keymap::footer(view.scope)
        .into_iter()
        .flat_map(|(k, what)| {
            [
                Span::styled(format!(" {k}"), Style::default().fg(ui.focus)),
                Span::styled(format!(" {what}"), Style::default().fg(ui.muted)),
            ]
        })
        .collect();
    // The status comes first (an error's file:line:col must be readable);
    // the hints take what is left, up to half the line.
    let hint_width: usize = hints.iter().map(|s| s.content.chars().count()).sum();
    let left_width: usize = left.iter().map(|s| s.content.chars().count()).sum();
    let width = area.width as usize;
    let hint_room = hint_width
        .min(width / 2)
        .min(width.saturating_sub(left_width + 1));
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Min(10), Constraint::Length(hint_room as u16)])
        .split(area);
    frame.render_widget(Paragraph::new(Line::from(left)), cols[0]);
    frame.render_widget(Paragraph::new(Line::from(hints)), cols[1]);
}

/// What `y` did: the text went to the terminal as an OSC 52 sequence, and
/// whether it reached the clipboard is the terminal's choice, which the
/// workbench cannot see. tmux drops it under its default
/// `set-clipboard external`: say how to enable it, inside tmux only.
pub fn copied_note(view: &str, lines: usize, in_tmux: bool) -> String {
    let mut note =
        format!("sent {lines} lines of the {view} view to the terminal's clipboard (OSC 52)");
    if in_tmux {
        note.push_str("; inside tmux this needs `set -g set-clipboard on`");
    } else {
        note.push_str("; the terminal must allow OSC 52 clipboard writes");
    }
    note
}

#[cfg(test)]
mod tests {
    use super::copied_note;

    #[test]
    fn y_says_where_the_text_went_and_the_tmux_setting_inside_tmux() {
        let tmux = copied_note("wire", 12, true);
        assert_eq!(
            tmux,
            "sent 12 lines of the wire view to the terminal's clipboard (OSC 52); inside tmux this needs `set -g set-clipboard on`"
        );
        let plain = copied_note("wire", 12, false);
        assert!(
            !plain.contains("tmux") && !plain.contains("copied"),
            "{plain}"
        );
    }
}

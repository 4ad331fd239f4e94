//! The status line: the search being typed, the file's error, or the last
//! event; and the focused pane's key hints.

use super::columns;
use crate::keymap::{self, Scope};
use crate::theme::Palette;
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

/// The status line: no state and no keys (the app owns the status text,
/// which every part of the workbench writes).
pub struct Status;

impl super::Component for Status {
    type Context<'a> = ();
    type Props<'a> = &'a StatusView<'a>;

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &StatusView<'_>) {
        draw(frame, area, ui, view)
    }
}

fn draw(frame: &mut Frame, area: Rect, ui: &Palette, view: &StatusView<'_>) {
    let width = area.width as usize;
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
        let status = view.status.to_string();
        // The time of the reload goes first when the status needs the room.
        if let Some(t) = view
            .last_reload
            .filter(|t| columns(t) + 12 + columns(&status) <= width)
        {
            left.push(Span::styled(
                format!("reloaded {t} · "),
                Style::default().fg(ui.muted),
            ));
        }
        left.push(Span::styled(status, Style::default().fg(ui.text)));
    }
    // The status comes first (an error's file:line:col must be readable);
    // a status wider than the line ends in `…`, never cut unmarked.
    let left_width: usize = left.iter().map(|s| columns(&s.content)).sum();
    if left_width > width {
        let mut room = width.saturating_sub(1);
        for span in left.iter_mut() {
            let cut = crate::lines::cut_to_columns(&span.content, room);
            room -= columns(&cut);
            span.content = cut.into();
        }
        left.push(Span::raw("…"));
    }
    let left_width: usize = left.iter().map(|s| columns(&s.content)).sum();
    // The hints take what is left, up to half the line, whole (a key and
    // its word) or not at all.
    let room = (width / 2).min(width.saturating_sub(left_width + 1));
    let (hints, hint_width) = hints(ui, view.scope, room);
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Min(0), Constraint::Length(hint_width as u16)])
        .split(area);
    frame.render_widget(Paragraph::new(Line::from(left)), cols[0]);
    frame.render_widget(Paragraph::new(Line::from(hints)), cols[1]);
}

/// The focused pane's key hints that fit whole in `room` columns, in the
/// keymap's order, and the columns they take.
fn hints(ui: &Palette, scope: Scope, room: usize) -> (Vec<Span<'static>>, usize) {
    let mut spans = Vec::new();
    let mut used = 0;
    for (k, what) in keymap::footer(scope) {
        let (k, what) = (format!(" {k}"), format!(" {what}"));
        let w = columns(&k) + columns(&what);
        if used + w > room {
            break;
        }
        used += w;
        spans.push(Span::styled(k, Style::default().fg(ui.focus)));
        spans.push(Span::styled(what, Style::default().fg(ui.muted)));
    }
    (spans, used)
}

/// What `y` did: the text went to the terminal as an OSC 52 sequence, and
/// whether it reached the clipboard is the terminal's choice, which the
/// workbench cannot see. tmux drops it under its default
/// `set-clipboard external`: say how to enable it, inside tmux only.
pub fn copied_note(view: &str, lines: usize, in_tmux: bool) -> String {
    let mut note = format!(
        "sent {} of the {view} view to the terminal's clipboard (OSC 52)",
        formatscope_core::text::count_of(lines as i64, "line", "lines")
    );
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
        assert!(copied_note("wire", 1, false).starts_with("sent 1 line of"));
        assert!(copied_note("wire", 12_345, false).starts_with("sent 12,345 lines of"));
        let plain = copied_note("wire", 12, false);
        assert!(
            !plain.contains("tmux") && !plain.contains("copied"),
            "{plain}"
        );
    }
}

//! The workbench's panes. Each owns its state, its keys and its drawing;
//! `app.rs` routes messages between them and the open document.

pub mod budget;
pub mod compare;
pub mod editor;
pub mod explain;
pub mod header;
pub mod history;
pub mod lint;
pub mod list;
pub mod picker;
pub mod popup;
pub mod reply;
pub mod request;
pub mod settings;
pub mod status;
pub mod tokens;
pub mod truncation;

use super::theme::Palette;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders};

/// What a pane did with an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not this pane's: the app carries it out.
    Pass,
    /// Taken; what the rest of the workbench should do about it.
    Taken(Effect),
}

/// What a pane asks of the workbench after taking an action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effect {
    /// A line for the status bar.
    pub status: Option<String>,
    /// What the request view shows changed: compute it again.
    pub reformat: bool,
    /// The pane wants the focus (a search found a line in it).
    pub focus: bool,
    /// Text for the clipboard.
    pub clipboard: Option<String>,
}

impl Outcome {
    /// Taken, with nothing else to do.
    pub fn done() -> Outcome {
        Outcome::Taken(Effect::default())
    }

    /// Taken; the status bar says `status`.
    pub fn say(status: impl Into<String>) -> Outcome {
        Outcome::Taken(Effect {
            status: Some(status.into()),
            ..Effect::default()
        })
    }

    /// Taken; the request is computed again, and the status bar says
    /// `status` when there is one.
    pub fn reformat(status: Option<String>) -> Outcome {
        Outcome::Taken(Effect {
            status,
            reformat: true,
            ..Effect::default()
        })
    }
}

/// A pane's frame: thick and coloured when it has the focus.
pub fn pane_block<'a>(ui: &Palette, title: Line<'a>, focused: bool) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(Style::default().fg(if focused { ui.focus } else { ui.border }))
        .title(title)
}

/// A `width`×`height` box in the middle of `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2));
    let h = height.min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Columns `text` takes on screen (CJK and emoji take two).
pub(super) fn columns(text: &str) -> usize {
    use unicode_width::UnicodeWidthChar;
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

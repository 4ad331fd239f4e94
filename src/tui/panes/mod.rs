//! The workbench's panes. Each owns its state, its keys and its drawing;
//! `app.rs` routes messages between them and the open document.

pub mod budget;
pub mod compare;
pub mod editor;
pub mod header;
pub mod lint;
pub mod list;
pub mod popup;
pub mod reply;
pub mod request;
pub mod rules;
pub mod settings;
pub mod status;
pub mod truncation;

use super::theme::Palette;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders};

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

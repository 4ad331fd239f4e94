//! The workbench's panes. Each owns its state, its keys and its drawing,
//! behind one trait ([`Component`]); `app` routes keys to them and carries
//! out what they pass up, and `view` lays them out and draws each.

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

use super::keymap::Action;
use super::theme::Palette;
use formatscope_core::reference::{Family, Mode as ReleaseMode};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Borders};
use ratatui::Frame;
use serde_json::Value;
use std::path::PathBuf;

/// One shape for every pane, as gitui's `Component`/`DrawableComponent`
/// and slumber's `Component`/`Draw`: keys in, an [`Outcome`] out, and a
/// drawing of its own state. The app offers a key to the panes that may
/// own it (the popup when one is open, else the focused pane and the
/// panels that take keys from anywhere) and carries out what they pass up
/// or ask for; it never reaches into a pane to scroll, select or toggle.
/// What a pane reads but does not own (the preview, the messages, the
/// provider on screen) comes in as its `Context` or `Props`, so a pane
/// needs no `App` and can be tested alone.
///
/// Panes without state (the header, the status line, the meter, ...) are
/// unit structs: their `draw` is all there is, and `handle` passes.
pub trait Component {
    /// What the pane reads, besides its own state, to take a key (often
    /// `()`).
    type Context<'a>;
    /// What it reads, besides its own state, to draw (a view the app
    /// builds).
    type Props<'a>;

    /// Takes a key: `Outcome::Pass` when it is not this pane's.
    fn handle(&mut self, _key: Key, _cx: Self::Context<'_>) -> Outcome {
        Outcome::Pass
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, props: Self::Props<'_>);
}

/// A key offered to a pane: the key pressed, and the action the keymap
/// binds it to where the focus is. Panes that type (the editor, the
/// picker, the settings form, the search) and popups read the key; the
/// others the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub event: KeyEvent,
    pub action: Option<Action>,
}

impl Key {
    pub fn new(event: KeyEvent, action: Option<Action>) -> Key {
        Key { event, action }
    }

    /// An action without a key behind it (the mouse wheel scrolls the
    /// list as ↑/↓ would): panes that read keys see none.
    pub fn action(action: Action) -> Key {
        Key {
            event: KeyEvent::new(KeyCode::Null, KeyModifiers::NONE),
            action: Some(action),
        }
    }

    pub fn code(&self) -> KeyCode {
        self.event.code
    }
}

/// What a pane did with a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Not this pane's: the app carries it out.
    Pass,
    /// Taken; what the rest of the workbench should do about it.
    Taken(Effect),
}

/// What a pane asks of the workbench after taking a key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effect {
    /// A line for the status bar.
    pub status: Option<String>,
    /// What the request view shows changed: compute it again.
    pub reformat: bool,
    /// The pane wants the focus (a search found a line in it).
    pub focus: bool,
    /// Text for the clipboard.
    pub clipboard: Option<String>,
    /// The popup is done: it closes.
    pub close: bool,
    /// What only the workbench can do (it touches the document, the files
    /// or another pane, or makes commands).
    pub then: Option<Then>,
}

/// What a pane asks the workbench to do that it cannot do itself: each
/// touches the document, the disk, the network or other panes. One
/// variant per request the panes make; a new one only when no existing
/// one says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Then {
    /// The list: select message `i` (the app asks first when a draft in
    /// the editor would be left behind, and the other panes follow).
    Select(usize),
    /// The editor's text changed: it goes into the session when it parses.
    Edited,
    /// Leave the editor for the list.
    LeaveEditor,
    /// Switch the editor between JSON and text (asking first about a draft).
    EditorText,
    /// Save the session (C-s).
    Save,
    /// Quit (asking first about unsaved edits).
    Quit,
    /// Open this file (the picker's choice), as `]` would.
    Open(PathBuf),
    /// The history: read send `index` whole; `compare`: then put its reply
    /// beside the latest.
    ReadSend { index: usize, compare: bool },
    /// The history: put send `i`'s reply beside the latest.
    CompareSend(usize),
    /// The settings form's values go into the session.
    ApplySettings(Vec<(String, Option<Value>)>),
    /// The formatter picker's choice.
    PickFormatter(&'static Family, ReleaseMode),
    /// Send to these providers at once (`P`).
    SendTo(Vec<&'static Family>),
    /// Cancel these sends (Esc).
    Cancel(Vec<u64>),
}

impl Outcome {
    /// Taken, with nothing else to do.
    pub fn done() -> Outcome {
        Outcome::Taken(Effect::default())
    }

    /// Taken; the workbench does `then`.
    pub fn then(then: Then) -> Outcome {
        Outcome::Taken(Effect {
            then: Some(then),
            ..Effect::default()
        })
    }

    /// Taken; the popup closes (saying `status` when there is one) and the
    /// workbench does `then` when there is one.
    pub fn close(status: Option<&str>, then: Option<Then>) -> Outcome {
        Outcome::Taken(Effect {
            status: status.map(str::to_string),
            close: true,
            then,
            ..Effect::default()
        })
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

//! The editor: the selected message as JSON, or its text alone. Every
//! edit that parses replaces the message at once; text that does not parse
//! yet is a draft, an unsaved edit like any other (it is never dropped
//! without asking, and goes into recovery files).

use super::{pane_block, Outcome, Then};
use crate::keymap::{self, Action, Scope};
use crate::theme::Palette;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::Frame;
use ratatui_textarea::{TextArea, WrapMode};
use serde_json::Value;

pub struct EditorPane {
    pub area: TextArea<'static>,
    /// The message the editor holds.
    pub for_index: Option<usize>,
    /// Edit the message's text alone (no JSON escaping).
    pub text_mode: bool,
    /// The text does not parse: `editor:line:col: what`.
    pub error: Option<String>,
    /// The focus the styles were last set for (`None`: a new text area).
    styled_focus: Option<bool>,
    /// Soft wrap as the user set it (M-w); `None`: on for text, off for
    /// JSON (whose lines are short and whose indent a wrap would hide).
    pub wrap: Option<bool>,
}

impl Default for EditorPane {
    fn default() -> Self {
        let mut area = TextArea::default();
        area.set_placeholder_text("select a message and press e to edit it as JSON");
        EditorPane {
            area,
            for_index: None,
            text_mode: false,
            error: None,
            styled_focus: None,
            wrap: None,
        }
    }
}

impl EditorPane {
    /// Holds text that does not parse: an unsaved draft.
    pub fn has_draft(&self) -> bool {
        self.error.is_some()
    }

    /// The draft, for a recovery file: the message and the text.
    pub fn draft(&self) -> Option<(usize, String)> {
        self.error.as_ref()?;
        Some((self.for_index?, self.text()))
    }

    /// A new, empty editor that keeps the text/JSON choice.
    pub fn cleared(&self) -> EditorPane {
        EditorPane {
            text_mode: self.text_mode,
            wrap: self.wrap,
            ..EditorPane::default()
        }
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Loads message `index` (or nothing). Returns a note when text mode
    /// had to fall back to JSON.
    pub fn load(&mut self, message: Option<&Value>, index: usize) -> Option<String> {
        self.styled_focus = None;
        self.error = None;
        let Some(message) = message else {
            *self = self.cleared();
            return None;
        };
        let mut note = None;
        if self.text_mode && text_of(message).is_none() {
            self.text_mode = false;
            note = Some("this message has no single text to edit: editing it as JSON".into());
        }
        // The text area shows a tab as spaces and lets the terminal have
        // ESC, BEL and a lone combining mark: such text is edited as JSON,
        // where each is an escape, so nothing is hidden or lost.
        if let Some(hidden) = text_of(message)
            .filter(|_| self.text_mode)
            .and_then(formatscope_core::text::first_hidden)
        {
            self.text_mode = false;
            note = Some(format!(
                "the text holds {hidden}, which the text editor cannot show: editing it as JSON (escaped there)"
            ));
        }
        let text = match (self.text_mode, text_of(message)) {
            (true, Some(t)) => t.to_string(),
            // JSON for a terminal: C1 controls and bidi overrides escaped too
            // (the same value, so parsing it back changes nothing).
            _ => formatscope_core::text::json_text(message),
        };
        // Split at each newline: a final newline is an empty last line, and
        // joining the lines gives the exact text back.
        self.set_lines(&text);
        self.for_index = Some(index);
        note
    }

    /// Whether long lines wrap on screen.
    pub fn wraps(&self) -> bool {
        self.wrap.unwrap_or(self.text_mode)
    }

    /// A new text area holding `text` exactly (split at each newline: a
    /// final newline is an empty last line), wrapped as set. The text
    /// area wraps its display lines itself (ratatui-textarea 0.9's
    /// `WrapMode`); the text is not changed by it.
    fn set_lines(&mut self, text: &str) {
        self.area = TextArea::new(text.split('\n').map(String::from).collect());
        self.apply_wrap();
    }

    fn apply_wrap(&mut self) {
        self.area.set_wrap_mode(if self.wraps() {
            WrapMode::WordOrGlyph
        } else {
            WrapMode::None
        });
    }

    /// Text from elsewhere (the external editor) for message `index`, in
    /// the mode it was edited in; the app parses it as any edit.
    pub fn set_text(&mut self, index: usize, text: &str, text_mode: bool) {
        self.styled_focus = None;
        self.text_mode = text_mode;
        self.set_lines(text);
        self.for_index = Some(index);
    }

    /// A draft from a recovery file.
    pub fn restore_draft(&mut self, index: usize, text: &str, json_mode: bool) {
        self.styled_focus = None;
        if json_mode {
            self.text_mode = false;
        }
        self.area = TextArea::new(text.lines().map(String::from).collect());
        self.apply_wrap();
        self.for_index = Some(index);
    }

    /// The message the text makes of `current`, or why it does not parse
    /// (also remembered as the draft's error).
    pub fn parse(&mut self, current: &Value) -> Result<Value, String> {
        let text = self.text();
        let parsed = if self.text_mode {
            Ok(with_text(current, text))
        } else {
            serde_json::from_str::<Value>(&text).map_err(|e| {
                format!(
                    "editor:{}:{}: {}",
                    e.line(),
                    e.column(),
                    strip_position(&e.to_string())
                )
            })
        };
        self.error = parsed.as_ref().err().cloned();
        parsed
    }

    pub fn paste(&mut self, text: &str) {
        self.area.insert_str(text);
    }

    /// The theme's text colour, and a cursor only with the focus (set when
    /// the focus changes, not every frame).
    pub fn style(&mut self, ui: &Palette, focused: bool) {
        if self.styled_focus == Some(focused) {
            return;
        }
        self.area.set_style(Style::default().fg(ui.text));
        self.area.set_cursor_line_style(Style::default());
        self.area.set_cursor_style(if focused {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        });
        self.styled_focus = Some(focused);
    }
}

/// What the editor draws besides its own state: who wrote the message
/// (` · Bob (user)`), and whether it has the focus.
#[derive(Clone, Copy)]
pub struct EditorView<'a> {
    pub who: &'a str,
    pub focused: bool,
}

/// The editor takes every key while it has the focus: its own (leave,
/// text or JSON, wrap) and the text area's; what it cannot do alone (put
/// the text in the session, save, quit, leave) it asks of the app.
impl super::Component for EditorPane {
    type Context<'a> = ();
    type Props<'a> = EditorView<'a>;

    fn handle(&mut self, key: super::Key, _: ()) -> Outcome {
        let key = key.event;
        // Tab indents here; Shift-Tab (which the text area would take as
        // another Tab) leaves, as Esc does.
        if key.code == KeyCode::BackTab {
            return Outcome::then(Then::LeaveEditor);
        }
        match keymap::action_for(&key, Scope::Editor) {
            Some(Action::LeaveEditor) => return Outcome::then(Then::LeaveEditor),
            Some(Action::ToggleEditorText) => return Outcome::then(Then::EditorText),
            Some(Action::ToggleEditorWrap) => {
                self.wrap = Some(!self.wraps());
                self.apply_wrap();
                return Outcome::say(if self.wraps() {
                    "soft wrap on: long lines wrap (the text is unchanged)"
                } else {
                    "soft wrap off"
                });
            }
            Some(Action::Save) => return Outcome::then(Then::Save),
            Some(Action::Quit) => return Outcome::then(Then::Quit),
            _ => {}
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let changed = match key.code {
            KeyCode::Char('z') if ctrl => self.area.undo(),
            KeyCode::Char('r') if ctrl => self.area.redo(),
            _ => self.area.input(key),
        };
        if changed {
            Outcome::then(Then::Edited)
        } else {
            // Nothing on screen changed.
            Outcome::Pass
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: EditorView<'_>) {
        let EditorView { who, focused } = view;
        let what = if self.text_mode { "text" } else { "JSON" };
        let title = match (self.for_index, &self.error) {
            (Some(i), None) => format!(" Message #{i}{who} · {what} "),
            (Some(i), Some(_)) => format!(" Message #{i}{who} · {what}, unsaved draft "),
            (None, _) => " Editor ".to_string(),
        };
        let mut block = pane_block(ui, Line::from(title), focused);
        if let Some(e) = &self.error {
            block = block.title_bottom(Line::styled(
                format!(" {e} "),
                Style::default().fg(ui.error),
            ));
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(&self.area, inner);
    }
}

/// A message's one text: its string content, or its only text block's text.
pub fn text_of(message: &Value) -> Option<&str> {
    match message.get("content")? {
        Value::String(s) => Some(s),
        Value::Array(blocks) => {
            let mut texts = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"));
            let only = texts.next()?;
            if texts.next().is_some() {
                return None;
            }
            only.get("text")?.as_str()
        }
        _ => None,
    }
}

/// `message` with its one text replaced.
fn with_text(message: &Value, text: String) -> Value {
    let mut m = message.clone();
    match m.get_mut("content") {
        Some(Value::String(s)) => *s = text,
        Some(Value::Array(blocks)) => {
            if let Some(b) = blocks
                .iter_mut()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            {
                b["text"] = Value::String(text);
            }
        }
        _ => {}
    }
    m
}

/// serde_json's message without its " at line L column C" tail.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

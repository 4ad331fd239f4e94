//! The workbench's state and `update`: messages in, commands out, no I/O.
//! The runtime (mod.rs) executes commands and feeds their results back.

use super::keymap::{self, Action, Scope};
use super::theme::Theme;
use super::worker::{Job, Preview};
use crate::formatter::{FormatterId, Mode, Provider};
use crate::pipeline::formatter_for_session;
use crate::session::{parse_session, Session};
use crate::tokens::models;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use ratatui_textarea::TextArea;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Events, past tense.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resized(u16, u16),
    /// Files in the watched folder were created, changed or removed.
    FilesChanged(Vec<PathBuf>),
    /// A file was read (for a reload or an open).
    FileRead {
        path: PathBuf,
        text: Result<String, String>,
    },
    /// The folder's session files, listed.
    FolderListed(Vec<PathBuf>),
    Written {
        path: PathBuf,
        text: String,
        result: Result<(), String>,
        then_quit: bool,
    },
    PreviewReady(Box<Preview>),
}

/// Things for the runtime to do, imperative.
#[derive(Debug)]
pub enum Command {
    Reformat(Box<Job>),
    Read(PathBuf),
    ListFolder(PathBuf),
    Write {
        path: PathBuf,
        text: String,
        then_quit: bool,
    },
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Editor,
    Output,
}

#[derive(Debug)]
pub enum Popup {
    Help,
    /// The formatter picker, at this row.
    Formatter(usize),
    /// The file changed on disk while the editor held unsaved edits.
    Conflict(Box<Session>),
    QuitConfirm,
}

/// The screen areas of the panes, for mouse hits (computed by `view::layout`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub list: Rect,
    pub editor: Rect,
    pub output: Rect,
}

pub struct App {
    /// Session files (one, or a folder's).
    pub files: Vec<PathBuf>,
    pub folder: Option<PathBuf>,
    pub current: usize,
    /// The last good session, with the workbench's edits.
    pub session: Option<Session>,
    /// The text last read from or written to disk (a reload that reads the
    /// same text, like the echo of our own save, does nothing).
    pub disk_text: Option<String>,
    pub unsaved: bool,
    /// The file on disk does not parse: file:line:col: what is wrong.
    pub load_error: Option<String>,
    pub formatter: FormatterId,
    pub selected: usize,
    pub focus: Focus,
    pub editor: TextArea<'static>,
    /// The message the editor holds, and whether its text was changed.
    pub editor_for: Option<usize>,
    pub editor_error: Option<String>,
    /// Edit the message's text alone (no JSON escaping) instead of the
    /// whole message as JSON. Toggled with C-t in the editor or `T`.
    pub editor_text_mode: bool,
    /// The focus the editor's styles were last set for (`None`: a new editor).
    editor_styled_focus: Option<bool>,
    pub output_scroll: usize,
    pub show_tools: bool,
    pub raw_media: bool,
    /// Typing a search (`/`): the text so far.
    pub search_input: Option<String>,
    pub search: Option<String>,
    pub popup: Option<Popup>,
    pub preview: Option<Preview>,
    pub generation: u64,
    pub status: String,
    pub last_reload: Option<String>,
    undo: Vec<Vec<Value>>,
    redo: Vec<Vec<Value>>,
    /// The message whose editor session already has an undo entry: typing
    /// adds one entry per message edited, not one per key.
    undo_group: Option<usize>,
    pub theme: Theme,
    syntax: Arc<syntect::highlighting::Theme>,
    pub size: (u16, u16),
    pub areas: Areas,
    pub quit: bool,
    /// Something on screen changed since the last draw.
    pub dirty: bool,
    /// A clock for the status line (injected so tests are stable).
    pub clock: fn() -> String,
}

/// `HH:MM:SS` (UTC) now.
pub fn wall_clock() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    )
}

impl App {
    pub fn new(files: Vec<PathBuf>, folder: Option<PathBuf>, theme: Theme) -> App {
        let syntax = Arc::new(theme.syntax.clone());
        let mut editor = TextArea::default();
        editor.set_placeholder_text("select a message and press e to edit it as JSON");
        App {
            files,
            folder,
            current: 0,
            session: None,
            disk_text: None,
            unsaved: false,
            load_error: None,
            formatter: FormatterId::new(Provider::OpenAi, Mode::Chat),
            selected: 0,
            focus: Focus::List,
            editor,
            editor_for: None,
            editor_text_mode: false,
            editor_styled_focus: None,
            editor_error: None,
            output_scroll: 0,
            show_tools: false,
            raw_media: false,
            search_input: None,
            search: None,
            popup: None,
            preview: None,
            generation: 0,
            status: "loading…".into(),
            last_reload: None,
            undo: Vec::new(),
            redo: Vec::new(),
            undo_group: None,
            theme,
            syntax,
            size: (120, 40),
            areas: Areas::default(),
            quit: false,
            dirty: true,
            clock: wall_clock,
        }
    }

    /// The commands to run first: read the session (or list the folder).
    pub fn start(&self) -> Vec<Command> {
        match (&self.folder, self.files.first()) {
            (Some(dir), _) => vec![Command::ListFolder(dir.clone())],
            (None, Some(path)) => vec![Command::Read(path.clone())],
            (None, None) => Vec::new(),
        }
    }

    pub fn path(&self) -> Option<&PathBuf> {
        self.files.get(self.current)
    }

    pub fn messages(&self) -> &[Value] {
        self.session
            .as_ref()
            .map(|s| s.messages.as_slice())
            .unwrap_or(&[])
    }

    /// The session's budget: its `max_tokens`.
    pub fn budget(&self) -> Option<i64> {
        self.session.as_ref().and_then(|s| s.max_tokens())
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Command> {
        let cmds = self.handle(msg);
        self.style_editor();
        cmds
    }

    /// The editor's look: the theme's text colour, and a cursor only when
    /// it has the focus.
    fn style_editor(&mut self) {
        use ratatui::style::Style;
        let focused = self.focus == Focus::Editor;
        if self.editor_styled_focus == Some(focused) {
            return;
        }
        self.editor
            .set_style(Style::default().fg(self.theme.ui.text));
        self.editor.set_cursor_line_style(Style::default());
        self.editor.set_cursor_style(if focused {
            Style::default().add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            Style::default()
        });
        self.editor_styled_focus = Some(focused);
    }

    fn handle(&mut self, msg: Msg) -> Vec<Command> {
        self.dirty = true;
        match msg {
            Msg::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Msg::Key(_) => {
                self.dirty = false;
                Vec::new()
            }
            Msg::Mouse(mouse) => self.on_mouse(mouse),
            Msg::Paste(text) => {
                if self.focus == Focus::Editor {
                    self.editor.insert_str(text);
                    return self.editor_changed();
                }
                Vec::new()
            }
            Msg::Resized(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Msg::FilesChanged(paths) => self.on_files_changed(paths),
            Msg::FolderListed(files) => self.on_folder_listed(files),
            Msg::FileRead { path, text } => self.on_file_read(path, text),
            Msg::Written {
                path,
                text,
                result,
                then_quit,
            } => self.on_written(path, text, result, then_quit),
            Msg::PreviewReady(preview) => {
                if preview.generation < self.generation {
                    self.dirty = false;
                    return Vec::new(); // a newer request is on its way
                }
                self.preview = Some(*preview);
                self.scroll_selection_into_view();
                Vec::new()
            }
        }
    }

    // ---- files ------------------------------------------------------------

    fn on_folder_listed(&mut self, files: Vec<PathBuf>) -> Vec<Command> {
        let current = self.path().cloned();
        self.files = files;
        if self.files.is_empty() {
            self.status = "no .json session files in this folder".into();
            return Vec::new();
        }
        match current.and_then(|c| self.files.iter().position(|f| *f == c)) {
            Some(i) => {
                self.current = i;
                if self.session.is_none() && self.load_error.is_none() {
                    // Nothing shown yet (the first listing).
                    return vec![Command::Read(self.files[i].clone())];
                }
                Vec::new()
            }
            None => {
                self.current = 0;
                vec![Command::Read(self.files[0].clone())]
            }
        }
    }

    fn on_files_changed(&mut self, paths: Vec<PathBuf>) -> Vec<Command> {
        let mut cmds = Vec::new();
        if let Some(dir) = &self.folder {
            let listed_changed = paths.iter().any(|p| p.exists() != self.files.contains(p));
            if listed_changed {
                cmds.push(Command::ListFolder(dir.clone()));
            }
        }
        if let Some(current) = self.path() {
            if paths.iter().any(|p| p == current) && current.exists() {
                cmds.push(Command::Read(current.clone()));
            }
        }
        if cmds.is_empty() {
            self.dirty = false;
        }
        cmds
    }

    fn on_file_read(&mut self, path: PathBuf, text: Result<String, String>) -> Vec<Command> {
        if Some(&path) != self.path() {
            return Vec::new();
        }
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                self.load_error = Some(e);
                return Vec::new();
            }
        };
        if self.disk_text.as_deref() == Some(text.as_str()) {
            self.dirty = false;
            return Vec::new(); // our own save, or a touch
        }
        let name = path.display().to_string();
        match parse_session(&text, &name) {
            Err(e) => {
                // Keep the last good output on screen, marked stale.
                self.load_error = Some(e.to_string());
                self.disk_text = Some(text);
                Vec::new()
            }
            Ok(mut session) => {
                session.path = Some(path);
                self.disk_text = Some(text);
                self.load_error = None;
                if self.unsaved && self.session.is_some() {
                    self.popup = Some(Popup::Conflict(Box::new(session)));
                    return Vec::new();
                }
                self.install(session)
            }
        }
    }

    /// A freshly loaded session replaces the current one.
    fn install(&mut self, session: Session) -> Vec<Command> {
        let first = self.session.is_none();
        if let Ok(id) = formatter_for_session(&session) {
            if first || self.session.as_ref().and_then(|s| s.path.clone()) != session.path {
                self.formatter = id;
            }
        }
        self.session = Some(session);
        self.unsaved = false;
        self.undo.clear();
        self.redo.clear();
        self.selected = self.selected.min(self.messages().len().saturating_sub(1));
        self.last_reload = Some((self.clock)());
        self.status = format!("loaded {}", self.file_name());
        self.load_editor();
        self.reformat()
    }

    pub fn file_name(&self) -> String {
        self.path()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "(no file)".into())
    }

    fn on_written(
        &mut self,
        path: PathBuf,
        text: String,
        result: Result<(), String>,
        then_quit: bool,
    ) -> Vec<Command> {
        match result {
            Ok(()) => {
                if Some(&path) == self.path() {
                    self.disk_text = Some(text);
                    self.unsaved = false;
                }
                self.status = format!("saved {}", path.display());
                if then_quit {
                    self.quit = true;
                    return vec![Command::Quit];
                }
            }
            Err(e) => self.status = format!("save failed: {e}"),
        }
        Vec::new()
    }

    // ---- formatting -------------------------------------------------------

    /// Asks the worker for a new preview of the current state.
    pub fn reformat(&mut self) -> Vec<Command> {
        let Some(session) = &self.session else {
            return Vec::new();
        };
        self.generation += 1;
        let own_model = (formatter_for_session(session).ok().map(|f| f.provider)
            == Some(self.formatter.provider))
        .then(|| session.model())
        .flatten();
        let job = Job {
            generation: self.generation,
            formatter: self.formatter,
            model: models::resolve(self.formatter.provider, own_model),
            messages: session.messages.clone(),
            tools: session.tools.clone(),
            base_dir: session.base_dir(),
            budget: session.max_tokens(),
            raw_media: self.raw_media,
            syntax: Arc::clone(&self.syntax),
        };
        vec![Command::Reformat(Box::new(job))]
    }

    fn set_formatter(&mut self, id: FormatterId) -> Vec<Command> {
        if id == self.formatter {
            return Vec::new();
        }
        self.formatter = id;
        self.status = format!("{id}");
        self.reformat()
    }

    // ---- keys ---------------------------------------------------------------

    fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if let Some(popup) = self.popup.take() {
            return self.on_popup_key(popup, key);
        }
        if let Some(input) = self.search_input.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let query = std::mem::take(input);
                    self.search_input = None;
                    self.search = (!query.is_empty()).then_some(query);
                    self.jump_to_match(true, true);
                }
                KeyCode::Esc => self.search_input = None,
                KeyCode::Backspace => {
                    input.pop();
                }
                KeyCode::Char(c) => input.push(c),
                _ => {}
            }
            return Vec::new();
        }
        if self.focus == Focus::Editor {
            // The editor's own bindings, then save; every other key types.
            match keymap::action_for(&key, Scope::Editor) {
                Some(Action::LeaveEditor) => {
                    self.focus = Focus::List;
                    return Vec::new();
                }
                Some(Action::ToggleEditorText) => {
                    self.editor_text_mode = !self.editor_text_mode;
                    self.load_editor();
                    return Vec::new();
                }
                _ => {}
            }
            if keymap::action_for(&key, Scope::Global) == Some(Action::Save) {
                return self.save(false);
            }
            if key.code == KeyCode::Char('z') && key.modifiers.contains(KeyModifiers::CONTROL) {
                self.editor.undo();
                return self.editor_changed();
            }
            if key.code == KeyCode::Char('r') && key.modifiers.contains(KeyModifiers::CONTROL) {
                self.editor.redo();
                return self.editor_changed();
            }
            if self.editor.input(key) {
                return self.editor_changed();
            }
            return Vec::new();
        }
        let scope = match self.focus {
            Focus::List => Scope::List,
            _ => Scope::Output,
        };
        match keymap::action_for(&key, scope) {
            Some(action) => self.act(action),
            None => {
                self.dirty = false;
                Vec::new()
            }
        }
    }

    fn act(&mut self, action: Action) -> Vec<Command> {
        match action {
            Action::Quit => {
                if self.unsaved {
                    self.popup = Some(Popup::QuitConfirm);
                    return Vec::new();
                }
                self.quit = true;
                return vec![Command::Quit];
            }
            Action::Help => self.popup = Some(Popup::Help),
            Action::NextPane | Action::PrevPane => {
                let order = [Focus::List, Focus::Editor, Focus::Output];
                let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
                let step = if action == Action::NextPane { 1 } else { 2 };
                self.focus = order[(i + step) % 3];
                if self.focus == Focus::Editor && self.editor_for.is_none() {
                    self.load_editor();
                }
            }
            Action::Provider(i) => {
                let mode = self.formatter.mode;
                return self.set_formatter(FormatterId::new(Provider::ALL[i], mode));
            }
            Action::ToggleMode => {
                let mode = match self.formatter.mode {
                    Mode::Chat => Mode::MultiAgent,
                    Mode::MultiAgent => Mode::Chat,
                };
                return self.set_formatter(FormatterId::new(self.formatter.provider, mode));
            }
            Action::PickFormatter => {
                let i = FormatterId::all()
                    .position(|f| f == self.formatter)
                    .unwrap_or(0);
                self.popup = Some(Popup::Formatter(i));
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => self.navigate(action),
            Action::Edit => {
                self.load_editor();
                self.focus = Focus::Editor;
            }
            Action::EditText => {
                self.editor_text_mode = true;
                self.load_editor();
                self.focus = Focus::Editor;
            }
            Action::Save => return self.save(false),
            Action::AddMessage => {
                let m = serde_json::json!({"name": "user", "role": "user", "content": [{"type": "text", "text": ""}]});
                let at = (self.selected + 1).min(self.messages().len());
                return self.edit_messages(|msgs| msgs.insert(at, m), Some(at));
            }
            Action::Duplicate => {
                let i = self.selected;
                let Some(m) = self.messages().get(i).cloned() else {
                    return Vec::new();
                };
                return self.edit_messages(|msgs| msgs.insert(i + 1, m), Some(i + 1));
            }
            Action::Delete => {
                let i = self.selected;
                if i >= self.messages().len() {
                    return Vec::new();
                }
                let next = i.min(self.messages().len().saturating_sub(2));
                return self.edit_messages(
                    |msgs| {
                        msgs.remove(i);
                    },
                    Some(next),
                );
            }
            Action::MoveUp | Action::MoveDown => {
                let i = self.selected;
                let j = if action == Action::MoveUp {
                    i.checked_sub(1)
                } else {
                    Some(i + 1)
                };
                let Some(j) = j.filter(|j| *j < self.messages().len()) else {
                    return Vec::new();
                };
                return self.edit_messages(|msgs| msgs.swap(i, j), Some(j));
            }
            // Only bound inside the editor, which handles them itself.
            Action::LeaveEditor | Action::ToggleEditorText => {}
            Action::Undo => return self.undo_redo(true),
            Action::Redo => return self.undo_redo(false),
            Action::Search => self.search_input = Some(String::new()),
            Action::NextMatch => self.jump_to_match(true, false),
            Action::PrevMatch => self.jump_to_match(false, false),
            Action::ToggleTools => {
                self.show_tools = !self.show_tools;
                self.output_scroll = 0;
            }
            Action::ToggleRaw => {
                self.raw_media = !self.raw_media;
                return self.reformat();
            }
            Action::NextFile | Action::PrevFile => {
                if self.files.len() < 2 {
                    return Vec::new();
                }
                if self.unsaved {
                    self.status = "save (C-s) or undo your edits before switching files".into();
                    return Vec::new();
                }
                let n = self.files.len();
                self.current = if action == Action::NextFile {
                    (self.current + 1) % n
                } else {
                    (self.current + n - 1) % n
                };
                self.session = None;
                self.disk_text = None;
                self.preview = None;
                self.selected = 0;
                self.output_scroll = 0;
                return vec![Command::Read(self.files[self.current].clone())];
            }
        }
        Vec::new()
    }

    fn on_popup_key(&mut self, popup: Popup, key: KeyEvent) -> Vec<Command> {
        match popup {
            Popup::Help => {
                if !matches!(
                    key.code,
                    KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Enter
                ) {
                    self.popup = Some(Popup::Help);
                }
                Vec::new()
            }
            Popup::Formatter(i) => {
                let n = FormatterId::all().count();
                match key.code {
                    KeyCode::Up | KeyCode::Char('k') => {
                        self.popup = Some(Popup::Formatter((i + n - 1) % n))
                    }
                    KeyCode::Down | KeyCode::Char('j') => {
                        self.popup = Some(Popup::Formatter((i + 1) % n))
                    }
                    KeyCode::Enter => {
                        if let Some(id) = FormatterId::all().nth(i) {
                            return self.set_formatter(id);
                        }
                    }
                    KeyCode::Esc | KeyCode::Char('q') => {}
                    _ => self.popup = Some(Popup::Formatter(i)),
                }
                Vec::new()
            }
            Popup::Conflict(disk) => match key.code {
                KeyCode::Char('r') => {
                    self.unsaved = false;
                    self.install(*disk)
                }
                KeyCode::Char('k') | KeyCode::Esc => {
                    self.status =
                        "kept your edits; the file on disk differs (C-s overwrites it)".into();
                    Vec::new()
                }
                KeyCode::Char('s') => {
                    let Some(path) = self.path().cloned() else {
                        return Vec::new();
                    };
                    let mine = self
                        .session
                        .as_ref()
                        .map(|s| s.to_session_text())
                        .unwrap_or_default();
                    let stem = path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let target = path.with_file_name(format!("{stem}.mine.json"));
                    self.unsaved = false;
                    let mut cmds = vec![Command::Write {
                        path: target.clone(),
                        text: mine,
                        then_quit: false,
                    }];
                    cmds.extend(self.install(*disk));
                    self.status = format!(
                        "your edits were saved as {}; showing the file from disk",
                        target.display()
                    );
                    cmds
                }
                _ => {
                    self.popup = Some(Popup::Conflict(disk));
                    Vec::new()
                }
            },
            Popup::QuitConfirm => match key.code {
                KeyCode::Char('s') => self.save(true),
                KeyCode::Char('q') | KeyCode::Char('y') => {
                    self.quit = true;
                    vec![Command::Quit]
                }
                _ => Vec::new(),
            },
        }
    }

    fn navigate(&mut self, action: Action) {
        let page = self.size.1.saturating_sub(12).max(1) as usize;
        if self.focus == Focus::Output {
            let n = self.output_len();
            self.output_scroll = match action {
                Action::Up => self.output_scroll.saturating_sub(1),
                Action::Down => self.output_scroll + 1,
                Action::PageUp => self.output_scroll.saturating_sub(page),
                Action::PageDown => self.output_scroll + page,
                Action::Top => 0,
                _ => n,
            }
            .min(n.saturating_sub(1));
            return;
        }
        let n = self.messages().len();
        if n == 0 {
            return;
        }
        let before = self.selected;
        self.selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => self.selected + 1,
            Action::PageUp => self.selected.saturating_sub(page),
            Action::PageDown => self.selected + page,
            Action::Top => 0,
            _ => n - 1,
        }
        .min(n - 1);
        if self.selected != before {
            self.load_editor();
            self.scroll_selection_into_view();
        }
    }

    pub fn output_len(&self) -> usize {
        match (&self.preview, self.show_tools) {
            (Some(p), false) => p.plain.len(),
            (Some(p), true) => p.tool_plain.len(),
            _ => 0,
        }
    }

    /// The request lines that came from the selected message.
    pub fn selected_lines(&self) -> Option<std::ops::Range<usize>> {
        let p = self.preview.as_ref()?;
        p.spans
            .iter()
            .find(|(msgs, _)| msgs.contains(&self.selected))
            .map(|(_, lines)| lines.clone())
    }

    fn scroll_selection_into_view(&mut self) {
        if self.show_tools {
            return;
        }
        let Some(lines) = self.selected_lines() else {
            return;
        };
        let height = self.areas.output.height.saturating_sub(2).max(1) as usize;
        if lines.start < self.output_scroll || lines.start >= self.output_scroll + height {
            self.output_scroll = lines.start.saturating_sub(1);
        }
    }

    fn jump_to_match(&mut self, forward: bool, from_current: bool) {
        let Some(query) = self.search.clone().map(|q| q.to_lowercase()) else {
            return;
        };
        let Some(p) = &self.preview else { return };
        let lines = if self.show_tools {
            &p.tool_plain
        } else {
            &p.plain
        };
        let n = lines.len();
        if n == 0 {
            return;
        }
        let start = if from_current {
            self.output_scroll
        } else if forward {
            self.output_scroll + 1
        } else {
            self.output_scroll + n - 1
        };
        let hit = (0..n)
            .map(|k| {
                if forward {
                    (start + k) % n
                } else {
                    (start + n - k) % n
                }
            })
            .find(|&i| lines[i].to_lowercase().contains(&query));
        match hit {
            Some(i) => {
                self.output_scroll = i;
                self.focus = Focus::Output;
                self.status = format!("/{query}: line {}", i + 1);
            }
            None => self.status = format!("/{query}: not found"),
        }
    }

    // ---- editing ----------------------------------------------------------

    /// Loads the selected message into the editor: its text (text mode,
    /// when it has exactly one text) or the whole message as pretty JSON.
    pub fn load_editor(&mut self) {
        self.undo_group = None;
        self.editor_styled_focus = None;
        let Some(message) = self.messages().get(self.selected).cloned() else {
            self.editor = TextArea::default();
            self.editor_for = None;
            return;
        };
        let message = &message;
        if self.editor_text_mode && text_of(message).is_none() {
            self.editor_text_mode = false;
            self.status = "this message has no single text to edit: editing it as JSON".into();
        }
        let text = match (self.editor_text_mode, text_of(message)) {
            (true, Some(t)) => t.to_string(),
            _ => serde_json::to_string_pretty(message).unwrap_or_default(),
        };
        self.editor = TextArea::new(text.lines().map(String::from).collect());
        self.editor_for = Some(self.selected);
        self.editor_error = None;
    }

    /// The editor's text changed: a valid message replaces the selected one.
    fn editor_changed(&mut self) -> Vec<Command> {
        let Some(i) = self.editor_for else {
            return Vec::new();
        };
        let text = self.editor.lines().join("\n");
        let parsed = if self.editor_text_mode {
            match self.messages().get(i) {
                Some(m) => Ok(with_text(m, text)),
                None => return Vec::new(),
            }
        } else {
            serde_json::from_str::<Value>(&text)
        };
        match parsed {
            Ok(value) => {
                self.editor_error = None;
                if self.messages().get(i) == Some(&value) {
                    return Vec::new();
                }
                let snapshot = self.messages().to_vec();
                let Some(session) = self.session.as_mut() else {
                    return Vec::new();
                };
                let mut msgs = snapshot.clone();
                let Some(slot) = msgs.get_mut(i) else {
                    return Vec::new();
                };
                *slot = value;
                let _ = session.set_messages(msgs);
                if self.undo_group != Some(i) {
                    self.push_undo(snapshot);
                    self.undo_group = Some(i);
                }
                self.redo.clear();
                self.unsaved = true;
                self.reformat()
            }
            Err(e) => {
                self.editor_error = Some(format!(
                    "editor:{}:{}: {}",
                    e.line(),
                    e.column(),
                    strip_position(&e.to_string())
                ));
                Vec::new()
            }
        }
    }

    fn edit_messages(
        &mut self,
        edit: impl FnOnce(&mut Vec<Value>),
        select: Option<usize>,
    ) -> Vec<Command> {
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        let before = session.messages.clone();
        let mut msgs = before.clone();
        edit(&mut msgs);
        let _ = session.set_messages(msgs);
        self.push_undo(before);
        self.redo.clear();
        self.unsaved = true;
        if let Some(s) = select {
            self.selected = s.min(self.messages().len().saturating_sub(1));
        }
        self.load_editor();
        self.reformat()
    }

    /// Remembers a state to undo to (at most `UNDO_DEPTH`).
    fn push_undo(&mut self, state: Vec<Value>) {
        const UNDO_DEPTH: usize = 200;
        self.undo.push(state);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
        self.undo_group = None;
    }

    fn undo_redo(&mut self, undo: bool) -> Vec<Command> {
        let (from, to) = if undo {
            (&mut self.undo, &mut self.redo)
        } else {
            (&mut self.redo, &mut self.undo)
        };
        let Some(state) = from.pop() else {
            self.status = if undo {
                "nothing to undo"
            } else {
                "nothing to redo"
            }
            .into();
            return Vec::new();
        };
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        to.push(session.messages.clone());
        let _ = session.set_messages(state);
        self.unsaved = true;
        self.selected = self.selected.min(self.messages().len().saturating_sub(1));
        self.load_editor();
        self.reformat()
    }

    fn save(&mut self, then_quit: bool) -> Vec<Command> {
        let (Some(session), Some(path)) = (self.session.as_ref(), self.path().cloned()) else {
            return Vec::new();
        };
        if let Some(e) = &self.editor_error {
            self.status = format!("not saved: the editor's JSON is invalid ({e})");
            return Vec::new();
        }
        let mut copy = session.clone();
        if let Err(e) = copy.set_messages(session.messages.clone()) {
            self.status = format!("not saved: {e}");
            return Vec::new();
        }
        vec![Command::Write {
            path,
            text: copy.to_text(),
            then_quit,
        }]
    }

    // ---- mouse ------------------------------------------------------------

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
        let at = Position::new(mouse.column, mouse.row);
        let pane = if self.areas.list.contains(at) {
            Some(Focus::List)
        } else if self.areas.editor.contains(at) {
            Some(Focus::Editor)
        } else if self.areas.output.contains(at) {
            Some(Focus::Output)
        } else {
            None
        };
        match mouse.kind {
            MouseEventKind::Down(_) => {
                if let Some(p) = pane {
                    self.focus = p;
                    if p == Focus::List {
                        let row = mouse.row.saturating_sub(self.areas.list.y + 1) as usize;
                        let first = super::view::list_offset(self, self.areas.list.height);
                        if first + row < self.messages().len() {
                            self.selected = first + row;
                            self.load_editor();
                            self.scroll_selection_into_view();
                        }
                    }
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                match pane {
                    Some(Focus::Output) => {
                        let n = self.output_len();
                        self.output_scroll = if down {
                            (self.output_scroll + 3).min(n.saturating_sub(1))
                        } else {
                            self.output_scroll.saturating_sub(3)
                        };
                    }
                    Some(Focus::List) => {
                        let saved = self.focus;
                        self.focus = Focus::List;
                        self.navigate(if down { Action::Down } else { Action::Up });
                        self.focus = saved;
                    }
                    _ => self.dirty = false,
                }
            }
            _ => self.dirty = false,
        }
        Vec::new()
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

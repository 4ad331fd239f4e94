//! The session picker's side in the app: Ctrl-p (and the first listing of
//! a folder) opens it and asks the I/O thread to list; Enter opens the
//! chosen file through the same door as `]` (the unsaved-edits question
//! first); every file opened goes first in the recent list.

use super::*;
use crate::tui::panes::picker::{PickerKey, PickerPane};

impl App {
    /// Opens the picker over the folder shown (or the open file's
    /// folder) and asks for its listing.
    pub(super) fn open_picker(&mut self) -> Vec<Command> {
        let dir = self.folder.clone().or_else(|| {
            self.path()
                .and_then(|p| p.parent())
                .filter(|d| !d.as_os_str().is_empty())
                .map(Path::to_path_buf)
        });
        self.popup = Some(Popup::Picker(Box::new(PickerPane::new(dir.clone()))));
        vec![Command::ListPicker {
            dir,
            recent: self.recent_path.clone(),
        }]
    }

    /// The listing landed: the picker shows it (and the screen is drawn
    /// again: `update` keeps the frame owed whatever comes behind it).
    pub(super) fn on_picker_listed(
        &mut self,
        dir: Option<PathBuf>,
        files: Vec<PathBuf>,
        recent: Vec<PathBuf>,
    ) -> Vec<Command> {
        match self.popup.as_mut() {
            Some(Popup::Picker(pane)) if pane.dir == dir => pane.listed(files, recent),
            // Closed (or another listing) meanwhile.
            _ => self.dirty = false,
        }
        Vec::new()
    }

    pub(super) fn on_picker_key(
        &mut self,
        mut pane: Box<PickerPane>,
        key: KeyEvent,
    ) -> Vec<Command> {
        match pane.on_key(key) {
            PickerKey::Open => {
                self.popup = Some(Popup::Picker(pane));
                Vec::new()
            }
            PickerKey::Closed => Vec::new(),
            PickerKey::Chosen(path) => self.open_picked(path),
        }
    }

    /// Opens `path` as `]` would: a file from outside the folder's list
    /// joins it (so the unsaved-edits question can name it by index).
    fn open_picked(&mut self, path: PathBuf) -> Vec<Command> {
        if self.doc.as_ref().is_some_and(|d| d.path == path) {
            self.status = format!("{} is open", self.file_name());
            return Vec::new();
        }
        let index = match self.files.iter().position(|f| *f == path) {
            Some(i) => i,
            None => {
                self.files.push(path.clone());
                self.files.len() - 1
            }
        };
        if self.unsaved() {
            self.popup = Some(Popup::Unsaved(Pending::Open(index)));
            return Vec::new();
        }
        self.open(path)
    }

    /// The command that puts a file just opened first in the recent list.
    pub(super) fn remember_recent(&self, path: &Path) -> Vec<Command> {
        match &self.recent_path {
            Some(list) => vec![Command::RememberRecent {
                list: list.clone(),
                session: path.to_path_buf(),
            }],
            None => Vec::new(),
        }
    }

    /// The first listing of a folder opened from the command line shows
    /// the picker (over the first session, which opens meanwhile) when
    /// there is a choice to make, and the user has not started on
    /// something else: a key pressed before it clears `pick_on_folder`
    /// (the picker opening seconds later took the keys typed meanwhile:
    /// `]` landed in its filter).
    pub(super) fn pick_on_first_listing(&mut self) -> Vec<Command> {
        if !std::mem::take(&mut self.pick_on_folder) || self.files.len() < 2 || self.popup.is_some()
        {
            return Vec::new();
        }
        self.open_picker()
    }
}

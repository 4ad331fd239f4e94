//! The session picker's side in the app: Ctrl-p (and the start on a
//! folder, from the first frame) opens it and asks for its listing, which
//! comes in batches; Enter opens the
//! chosen file through the same door as `]` (the unsaved-edits question
//! first); every file opened goes first in the recent list.

use super::*;
use crate::panes::picker::PickerPane;

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
        let pane = PickerPane::new(dir.clone());
        let listing = pane.listing;
        self.popup = Some(Popup::Picker(Box::new(pane)));
        vec![Command::ListPicker {
            dir,
            recent: self.recent_path.clone(),
            listing,
        }]
    }

    /// The start on a folder: the picker is up from the first frame,
    /// "listing…" (it came up seconds later, once the folder was listed
    /// twice, and took the keys typed meanwhile); it goes away by itself
    /// if the folder turns out to hold fewer than two sessions.
    pub(super) fn pick_on_start(&mut self) -> Vec<Command> {
        if !std::mem::take(&mut self.pick_on_folder) || self.popup.is_some() {
            return Vec::new();
        }
        let cmds = self.open_picker();
        if let Some(Popup::Picker(pane)) = self.popup.as_mut() {
            pane.auto = true;
        }
        cmds
    }

    /// The whole listing landed: the picker shows it (and the screen is
    /// drawn again: `update` keeps the frame owed whatever comes behind it).
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
        self.close_empty_picker();
        Vec::new()
    }

    /// A batch of the listing landed: the picker adds it.
    pub(super) fn on_picker_found(
        &mut self,
        listing: u64,
        files: Vec<PathBuf>,
        recent: Vec<PathBuf>,
        done: bool,
    ) -> Vec<Command> {
        match self.popup.as_mut() {
            Some(Popup::Picker(pane)) if pane.listing == listing => pane.found(files, recent, done),
            _ => self.dirty = false,
        }
        self.close_empty_picker();
        Vec::new()
    }

    /// The picker the start on a folder opened goes once its listing shows
    /// no choice to make.
    fn close_empty_picker(&mut self) {
        if let Some(Popup::Picker(pane)) = &self.popup {
            if pane.nothing_to_pick() {
                self.popup = None;
            }
        }
    }

    /// Opens `path` as `]` would: a file from outside the folder's list
    /// joins it (so the unsaved-edits question can name it by index).
    pub(super) fn open_picked(&mut self, path: PathBuf) -> Vec<Command> {
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
}

//! The session picker (Ctrl-p, and on opening a folder): the folder's
//! session-shaped files and the recent ones, recent first, filtered as
//! you type by fuzzy matching (`nucleo-matcher`, as Helix matches paths).
//! The files are listed off the UI thread (`Command::ListPicker`), and
//! come in batches as the folder is read: the popup is up at once, says
//! "listing…" until the first come, and fills as they do.

use super::{centered, pane_block};
use crate::theme::Palette;
use formatscope_core::text::escape_control;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct PickerPane {
    /// The folder listed (names under it are shown relative to it).
    pub dir: Option<PathBuf>,
    /// Recent first, then the folder's files by name; `None` until the
    /// first of them come.
    pub entries: Option<Vec<Entry>>,
    pub query: String,
    /// The entries that match the query (indices), best first.
    pub shown: Vec<usize>,
    /// The query's score of each of `shown` (empty without a query).
    scores: Vec<u32>,
    pub cursor: usize,
    /// Which listing this picker waits for (`Command::ListPicker`).
    pub listing: u64,
    /// The listing has ended.
    pub done: bool,
    /// Opened by the workbench on a folder (not by Ctrl-p): it goes away
    /// by itself if the folder holds no choice to make.
    pub auto: bool,
    /// How many of the entries are the folder's own files.
    pub folder_files: usize,
    /// The paths listed so far, each once whichever batch it came in, and
    /// whether the folder's listing has named it.
    seen: HashMap<PathBuf, bool>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    /// What is shown and matched: the name under the folder, else the
    /// whole path.
    pub label: String,
    pub recent: bool,
}

/// What a key did to the picker.
#[derive(Debug, PartialEq, Eq)]
pub enum PickerKey {
    Open,
    Closed,
    Chosen(PathBuf),
}

/// The picker takes every key while it is up: typing filters, the arrows
/// move; opening the file chosen is the app's (it may ask about unsaved
/// edits first).
impl super::Component for PickerPane {
    type Context<'a> = ();
    type Props<'a> = ();

    fn handle(&mut self, key: super::Key, _: ()) -> super::Outcome {
        use super::{Outcome, Then};
        match self.on_key(key.event) {
            PickerKey::Open => Outcome::done(),
            PickerKey::Closed => Outcome::close(None, None),
            PickerKey::Chosen(path) => Outcome::close(None, Some(Then::Open(path))),
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, _: ()) {
        self.render(frame, area, ui)
    }
}

impl PickerPane {
    pub fn new(dir: Option<PathBuf>) -> PickerPane {
        static LISTINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        PickerPane {
            dir,
            listing: LISTINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ..PickerPane::default()
        }
    }

    /// The whole listing came: recent files first (in the order they were
    /// opened), then the rest of the folder by name, each once.
    pub fn listed(&mut self, files: Vec<PathBuf>, recent: Vec<PathBuf>) {
        self.entries = None;
        self.seen.clear();
        self.folder_files = 0;
        self.shown.clear();
        self.scores.clear();
        self.found(files, recent, true);
        self.cursor = 0;
    }

    /// A batch of the listing came: its recent files, then its folder
    /// files, each added once (the paths seen are a set: each entry looked
    /// up among all the others froze the keys for 21 s at 20,000
    /// sessions). Only the new entries are matched against the query, and
    /// the cursor stays on the entry the user moved it to.
    pub fn found(&mut self, files: Vec<PathBuf>, recent: Vec<PathBuf>, done: bool) {
        self.done |= done;
        // The entry the user moved to stays chosen (unmoved, the best
        // match stays first).
        let on = (self.cursor > 0)
            .then(|| self.chosen().map(|e| e.path.clone()))
            .flatten();
        let mut entries = self.entries.take().unwrap_or_default();
        let first_new = entries.len();
        entries.reserve(files.len() + recent.len());
        let marked = recent
            .into_iter()
            .map(|p| (p, true))
            .chain(files.into_iter().map(|p| (p, false)));
        for (path, recent) in marked {
            match self.seen.get_mut(&path) {
                None => {
                    self.seen.insert(path.clone(), !recent);
                    self.folder_files += usize::from(!recent);
                    entries.push(self.entry(path, recent));
                }
                // A recent file of this folder, met again in its listing.
                Some(in_folder) if !recent && !*in_folder => {
                    *in_folder = true;
                    self.folder_files += 1;
                }
                Some(_) => {}
            }
        }
        self.entries = Some(entries);
        self.add_shown(first_new);
        if let Some(path) = on {
            if let Some(row) = self.shown.iter().position(|&i| {
                self.entries
                    .as_ref()
                    .is_some_and(|e| e.get(i).is_some_and(|e| e.path == path))
            }) {
                self.cursor = row;
            }
        }
    }

    /// Whether the picker has nothing to offer a folder opened without
    /// asking for it: the listing is over, nothing was typed, and the
    /// folder holds fewer than two sessions.
    pub fn nothing_to_pick(&self) -> bool {
        self.auto && self.done && self.query.is_empty() && self.folder_files < 2
    }

    fn entry(&self, path: PathBuf, recent: bool) -> Entry {
        let label = match self.dir.as_deref().and_then(|d| path.strip_prefix(d).ok()) {
            Some(rel) => rel.display().to_string(),
            None => path.display().to_string(),
        };
        Entry {
            label: escape_control(&label).into_owned(),
            path,
            recent,
        }
    }

    /// Keeps the entries that match the query, best first; equal scores
    /// keep their order (recent first).
    fn filter(&mut self) {
        self.cursor = 0;
        self.shown.clear();
        self.scores.clear();
        self.add_shown(0);
    }

    /// Matches the entries from `first` on and merges them into `shown`,
    /// as [`filter`](Self::filter) would place them: by score, ties in
    /// entry order (the new ones come after every old one).
    fn add_shown(&mut self, first: usize) {
        let entries = self.entries.as_deref().unwrap_or_default();
        if self.query.is_empty() {
            self.shown.extend(first..entries.len());
            return;
        }
        let pattern = Pattern::parse(&self.query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut buf = Vec::new();
        let mut scored: Vec<(usize, u32)> = entries
            .iter()
            .enumerate()
            .skip(first)
            .filter_map(|(i, e)| {
                pattern
                    .score(Utf32Str::new(&e.label, &mut buf), &mut matcher)
                    .map(|s| (i, s))
            })
            .collect();
        // A stable sort: ties stay recent first.
        scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        if self.shown.is_empty() {
            self.scores = scored.iter().map(|&(_, s)| s).collect();
            self.shown = scored.into_iter().map(|(i, _)| i).collect();
            return;
        }
        let old = std::mem::take(&mut self.shown)
            .into_iter()
            .zip(std::mem::take(&mut self.scores));
        let mut new = scored.into_iter().peekable();
        for (i, s) in old {
            while let Some(&(j, t)) = new.peek() {
                if t > s {
                    self.shown.push(j);
                    self.scores.push(t);
                    new.next();
                } else {
                    break;
                }
            }
            self.shown.push(i);
            self.scores.push(s);
        }
        for (j, t) in new {
            self.shown.push(j);
            self.scores.push(t);
        }
    }

    /// The entry under the cursor.
    pub fn chosen(&self) -> Option<&Entry> {
        let i = *self.shown.get(self.cursor)?;
        self.entries.as_ref()?.get(i)
    }

    /// The labels shown, in order (for tests).
    pub fn labels(&self) -> Vec<&str> {
        let Some(entries) = &self.entries else {
            return Vec::new();
        };
        self.shown
            .iter()
            .filter_map(|&i| entries.get(i))
            .map(|e| e.label.as_str())
            .collect()
    }

    pub fn on_key(&mut self, key: KeyEvent) -> PickerKey {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let n = self.shown.len();
        match key.code {
            KeyCode::Esc => return PickerKey::Closed,
            KeyCode::Enter => {
                return match self.chosen() {
                    Some(e) => PickerKey::Chosen(e.path.clone()),
                    None => PickerKey::Open,
                }
            }
            KeyCode::Up => self.cursor = self.cursor.checked_sub(1).unwrap_or(n.saturating_sub(1)),
            KeyCode::Char('p') if ctrl => {
                self.cursor = self.cursor.checked_sub(1).unwrap_or(n.saturating_sub(1))
            }
            KeyCode::Down => {
                self.cursor = if self.cursor + 1 < n {
                    self.cursor + 1
                } else {
                    0
                }
            }
            KeyCode::Char('n') if ctrl => {
                self.cursor = if self.cursor + 1 < n {
                    self.cursor + 1
                } else {
                    0
                }
            }
            KeyCode::Backspace => {
                self.query.pop();
                self.filter();
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.query.push(c);
                self.filter();
            }
            _ => {}
        }
        PickerKey::Open
    }

    fn render(&self, frame: &mut Frame, area: Rect, ui: &Palette) {
        let rows = self.entries.as_ref().map_or(1, Vec::len);
        let height = (area.height.saturating_sub(4) as usize).min(rows.max(6) + 4) as u16;
        let rect = centered(area, area.width.saturating_sub(16).clamp(40, 100), height);
        frame.render_widget(Clear, rect);
        let where_ = self
            .dir
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| format!(" in {}", escape_control(&n.to_string_lossy())))
            .unwrap_or_default();
        let listing = if self.done { "" } else { " · listing…" };
        let title =
            format!(" Open a session{where_}{listing} · type to filter · Enter opens · Esc ");
        let block = pane_block(ui, Line::from(title), true);
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let muted = Style::default().fg(ui.muted);
        let mut lines = vec![Line::from(vec![
            Span::styled("> ", Style::default().fg(ui.focus)),
            Span::raw(escape_control(&self.query).into_owned()),
        ])];
        match &self.entries {
            None => lines.push(Line::styled("listing…", muted)),
            Some(entries) if entries.is_empty() && !self.done => {
                lines.push(Line::styled("listing…", muted))
            }
            Some(entries) if entries.is_empty() => lines.push(Line::styled(
                "no session files here (sessions are known by their content: a JSON object with \"messages\", or a list of messages)",
                muted,
            )),
            Some(_) if self.shown.is_empty() => {
                lines.push(Line::styled("nothing matches", muted))
            }
            Some(entries) => {
                let visible = inner.height.saturating_sub(1).max(1) as usize;
                let first = self.cursor.saturating_sub(visible - 1);
                for (row, &i) in self.shown.iter().enumerate().skip(first).take(visible) {
                    let Some(e) = entries.get(i) else { continue };
                    let mut style = Style::default().fg(ui.text);
                    // A mark as well as a colour: it shows in any terminal.
                    let mark = if row == self.cursor {
                        style = style.bg(ui.selected_bg).add_modifier(Modifier::BOLD);
                        "› "
                    } else {
                        "  "
                    };
                    let mut spans = vec![Span::styled(format!("{mark}{}", e.label), style)];
                    if e.recent {
                        spans.push(Span::styled("  recent", muted));
                    }
                    lines.push(Line::from(spans));
                }
            }
        }
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    fn pane(files: &[&str], recent: &[&str]) -> PickerPane {
        let mut p = PickerPane::new(Some(PathBuf::from("/s")));
        p.listed(
            files.iter().map(|f| PathBuf::from("/s").join(f)).collect(),
            recent.iter().map(PathBuf::from).collect(),
        );
        p
    }

    #[test]
    fn recent_files_come_first_then_the_folder_by_name() {
        let p = pane(
            &["a.json", "b.json", "c.json"],
            &["/s/c.json", "/elsewhere/d.json"],
        );
        assert_eq!(
            p.labels(),
            ["c.json", "/elsewhere/d.json", "a.json", "b.json"]
        );
    }

    #[test]
    fn typing_filters_fuzzily_best_match_first_and_enter_opens_it() {
        let mut p = pane(
            &["chat_plain.json", "library_trip.json", "multimodal.json"],
            &[],
        );
        for c in "lbtrp".chars() {
            assert_eq!(p.on_key(key(c)), PickerKey::Open);
        }
        assert_eq!(p.labels(), ["library_trip.json"]);
        p.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        p.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
        p.on_key(key('m'));
        // "multimodal" starts with m; the others only hold one inside.
        assert_eq!(p.labels().first(), Some(&"multimodal.json"));
        assert_eq!(
            p.on_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
            PickerKey::Chosen(PathBuf::from("/s/multimodal.json"))
        );
        assert_eq!(
            p.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
            PickerKey::Closed
        );
    }

    #[test]
    fn a_path_listed_twice_is_one_entry() {
        let p = pane(
            &["a.json", "b.json", "a.json", "c.json"],
            &["/s/b.json", "/s/b.json", "/e/d.json"],
        );
        assert_eq!(p.labels(), ["b.json", "/e/d.json", "a.json", "c.json"]);
        let recent: Vec<bool> = p.entries.iter().flatten().map(|e| e.recent).collect();
        assert_eq!(recent, [true, true, false, false]);
    }

    #[test]
    fn a_tie_keeps_the_recent_file_first() {
        let mut p = pane(&["a1.json", "a2.json"], &["/s/a2.json"]);
        p.on_key(key('a'));
        assert_eq!(p.labels(), ["a2.json", "a1.json"]);
    }
}

//! The session picker (Ctrl-p, and on opening a folder): the folder's
//! session-shaped files and the recent ones, recent first, filtered as
//! you type by fuzzy matching (`nucleo-matcher`, as Helix matches paths).
//! The files are listed off the UI thread (`Command::ListPicker`); the
//! popup shows "listing…" until they come.

use super::{centered, pane_block};
use crate::text::escape_control;
use crate::tui::theme::Palette;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct PickerPane {
    /// The folder listed (names under it are shown relative to it).
    pub dir: Option<PathBuf>,
    /// Recent first, then the folder's files by name; `None` while they
    /// are being listed.
    pub entries: Option<Vec<Entry>>,
    pub query: String,
    /// The entries that match the query (indices), best first.
    pub shown: Vec<usize>,
    pub cursor: usize,
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

impl PickerPane {
    pub fn new(dir: Option<PathBuf>) -> PickerPane {
        PickerPane {
            dir,
            ..PickerPane::default()
        }
    }

    /// The listing came: recent files first (in the order they were
    /// opened), then the rest of the folder by name, each once. The paths
    /// seen are a set: each entry looked up among all the others froze the
    /// keys for 21 s at 20,000 sessions.
    pub fn listed(&mut self, files: Vec<PathBuf>, recent: Vec<PathBuf>) {
        let mut seen: HashSet<PathBuf> = HashSet::with_capacity(files.len() + recent.len());
        let mut entries: Vec<Entry> = Vec::with_capacity(files.len() + recent.len());
        let marked = recent
            .into_iter()
            .map(|p| (p, true))
            .chain(files.into_iter().map(|p| (p, false)));
        for (path, recent) in marked {
            if seen.insert(path.clone()) {
                entries.push(self.entry(path, recent));
            }
        }
        self.entries = Some(entries);
        self.filter();
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
        let entries = self.entries.as_deref().unwrap_or_default();
        self.cursor = 0;
        if self.query.is_empty() {
            self.shown = (0..entries.len()).collect();
            return;
        }
        let pattern = Pattern::parse(&self.query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut buf = Vec::new();
        let mut scored: Vec<(usize, u32)> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                pattern
                    .score(Utf32Str::new(&e.label, &mut buf), &mut matcher)
                    .map(|s| (i, s))
            })
            .collect();
        // A stable sort: ties stay recent first.
        scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        self.shown = scored.into_iter().map(|(i, _)| i).collect();
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

    pub fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette) {
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
        let title = format!(" Open a session{where_} · type to filter · Enter opens · Esc ");
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

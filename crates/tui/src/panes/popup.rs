//! Popups: help, the formatter picker, and the questions the workbench asks
//! before it could lose an edit or read what a session names.

use super::settings::SettingsForm;
use super::{centered, pane_block, Component, Key, Outcome, Then};
use crate::keymap;
use crate::msg::{AfterSave, Allow, FileResult, SaveQuestion};
use crate::recovery::Recovery;
use crate::theme::Palette;
use formatscope_core::media::Access;
use formatscope_core::reference::{Family, Mode as ReleaseMode};
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;
use std::path::PathBuf;

/// What waits for an answer about unsaved edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    Quit,
    /// Open the file at this index of the folder's list.
    Open(usize),
}

#[derive(Debug)]
pub enum Popup {
    /// The session picker (Ctrl-p).
    Picker(Box<super::picker::PickerPane>),
    /// The keys, scrolled this far.
    Help(usize),
    /// The formatter picker of the release at this index of
    /// `reference::ALL`, at this row of its [`classes`].
    Formatter { release: usize, row: usize },
    /// The file changed on disk (or cannot be read) while there are
    /// unsaved edits. `error`: why the last answer did not work.
    Conflict {
        disk: FileResult,
        error: Option<String>,
    },
    /// A save found the file deleted: make it again?
    Recreate,
    /// A save needs the user's word first (`allow`: what they agreed to).
    SaveAsk {
        question: SaveQuestion,
        allow: Allow,
        then: AfterSave,
    },
    /// Unsaved edits stand in the way of quitting or opening another file.
    Unsaved(Pending),
    /// The editor holds text that does not parse, and the selection is
    /// about to move away from it.
    Draft,
    /// Edits from an earlier run were kept in a recovery file.
    Recovery {
        recovery: Box<Recovery>,
        /// The file changed on disk since those edits were made.
        disk_changed: bool,
    },
    /// The session wants to read files outside its folder or to download.
    Consent {
        session: PathBuf,
        wanted: Vec<Access>,
    },
    /// A send would take the key to a host only the session names.
    SendHost {
        host: formatscope_net::hosts::Host,
        /// The sends it stopped, to make again on a yes.
        providers: Vec<formatscope_core::formatter::Provider>,
        /// Or the sends under the release on screen it stopped (its
        /// providers), made again on a yes.
        families: Vec<&'static Family>,
    },
    /// Model, budget and token counter (`s`).
    Settings(Box<SettingsForm>),
    /// Which providers to send to at once (`P`): the providers of release
    /// `release` (an index into `reference::ALL`), in its order.
    SendTo {
        release: usize,
        cursor: usize,
        chosen: Vec<bool>,
    },
    /// A large request: where it goes and its size, before `S` / `P` send.
    ConfirmSend(Box<ConfirmSend>),
    /// The open session's sends (`H`).
    History(Box<super::history::HistoryPane>),
}

/// The question before a large send.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmSend {
    pub providers: Vec<formatscope_core::formatter::Provider>,
    /// One line per provider: provider, host, model.
    pub targets: Vec<String>,
    /// The meter's count of the request on screen, and whether it is exact.
    pub tokens: i64,
    pub exact: bool,
    /// The threshold it reached.
    pub at: u64,
    /// Or the providers of the release on screen (`V`) it sends to.
    pub families: Vec<&'static Family>,
}

/// What a key did to one of the popups that only move and pick (help,
/// the formatter picker, the providers to send to).
#[derive(Debug)]
pub enum Picked<T> {
    /// Still open, as it now stands.
    Open(Popup),
    Closed,
    Chosen(T),
}

/// A key in the help (`?`): scrolls, or closes it.
pub fn help_key(scroll: usize, code: KeyCode) -> Picked<()> {
    let n = keymap::help().len();
    Picked::Open(Popup::Help(match code {
        KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Enter => {
            return Picked::Closed
        }
        KeyCode::Down | KeyCode::Char('j') => (scroll + 1).min(n),
        KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => (scroll + 10).min(n),
        KeyCode::PageUp => scroll.saturating_sub(10),
        KeyCode::Home | KeyCode::Char('g') => 0,
        // The drawing stops at the last screenful.
        KeyCode::End | KeyCode::Char('G') => n,
        _ => scroll,
    }))
}

/// The formatter classes of a release, each provider in each of its modes:
/// what the picker (`p`) lists, as (provider, mode).
pub fn classes(release: usize) -> Vec<(&'static Family, ReleaseMode)> {
    let r = formatscope_core::reference::ALL[release % formatscope_core::reference::ALL.len()];
    r.families()
        .iter()
        .flat_map(|f| r.modes().iter().map(move |m| (f, *m)))
        .collect()
}

/// A key in the formatter picker (`p`).
pub fn formatter_key(
    release: usize,
    row: usize,
    code: KeyCode,
) -> Picked<(&'static Family, ReleaseMode)> {
    let all = classes(release);
    let n = all.len().max(1);
    let at = |row| Picked::Open(Popup::Formatter { release, row });
    match code {
        KeyCode::Up | KeyCode::Char('k') => at((row + n - 1) % n),
        KeyCode::Down | KeyCode::Char('j') => at((row + 1) % n),
        KeyCode::Home | KeyCode::Char('g') => at(0),
        KeyCode::End | KeyCode::Char('G') => at(n - 1),
        KeyCode::Enter => all.get(row).copied().map_or(Picked::Closed, Picked::Chosen),
        KeyCode::Esc | KeyCode::Char('q') => Picked::Closed,
        _ => at(row),
    }
}

/// A key in the providers popup (`P`): Space or a digit picks, Enter
/// sends to those picked (none picked: it stays open). What is picked is
/// the release's providers, by their place in its list.
pub fn send_to_key(
    release: usize,
    cursor: usize,
    mut chosen: Vec<bool>,
    code: KeyCode,
) -> Picked<Vec<&'static Family>> {
    let families = formatscope_core::reference::ALL
        [release % formatscope_core::reference::ALL.len()]
    .families();
    let n = chosen.len().min(families.len()).max(1);
    let open = |cursor, chosen| {
        Picked::Open(Popup::SendTo {
            release,
            cursor,
            chosen,
        })
    };
    match code {
        KeyCode::Up | KeyCode::Char('k') => open((cursor + n - 1) % n, chosen),
        KeyCode::Down | KeyCode::Char('j') => open((cursor + 1) % n, chosen),
        KeyCode::Char(' ') | KeyCode::Char('x') => {
            if let Some(on) = chosen.get_mut(cursor) {
                *on = !*on;
            }
            open(cursor, chosen)
        }
        KeyCode::Char(c @ '1'..='9') => {
            let i = c as usize - '1' as usize;
            match chosen.get_mut(i) {
                Some(on) => {
                    *on = !*on;
                    open(i, chosen)
                }
                None => open(cursor, chosen),
            }
        }
        KeyCode::Enter => {
            let picked: Vec<&'static Family> = families
                .iter()
                .zip(&chosen)
                .filter(|(_, on)| **on)
                .map(|(f, _)| f)
                .collect();
            if picked.is_empty() {
                return open(cursor, chosen);
            }
            Picked::Chosen(picked)
        }
        KeyCode::Esc | KeyCode::Char('q') => Picked::Closed,
        _ => open(cursor, chosen),
    }
}

/// Popups take every key while one is up. The ones that only move and
/// pick (help, the formatter picker, the providers to send to) and the
/// panes shown as popups (session picker, settings, history) take theirs
/// here; the questions (unsaved edits, conflicts, consent, recovery, ...)
/// pass theirs to the app, whose answers touch the files, the document and
/// the sends.
impl Component for Popup {
    type Context<'a> = ();
    /// The open file's name, which the questions name.
    type Props<'a> = &'a str;

    fn handle(&mut self, key: Key, _: ()) -> Outcome {
        let code = key.code();
        match self {
            Popup::Picker(pane) => pane.handle(key, ()),
            Popup::Settings(form) => form.handle(key, ()),
            Popup::History(pane) => pane.handle(key, ()),
            Popup::Help(scroll) => match help_key(*scroll, code) {
                Picked::Open(p) => {
                    *self = p;
                    Outcome::done()
                }
                Picked::Closed | Picked::Chosen(()) => Outcome::close(None, None),
            },
            Popup::Formatter { release, row } => match formatter_key(*release, *row, code) {
                Picked::Open(p) => {
                    *self = p;
                    Outcome::done()
                }
                Picked::Chosen((family, mode)) => {
                    Outcome::close(None, Some(Then::PickFormatter(family, mode)))
                }
                Picked::Closed => Outcome::close(None, None),
            },
            Popup::SendTo {
                release,
                cursor,
                chosen,
            } => match send_to_key(*release, *cursor, std::mem::take(chosen), code) {
                Picked::Open(p) => {
                    *self = p;
                    if code == KeyCode::Enter {
                        Outcome::say("no provider picked: Space picks one")
                    } else {
                        Outcome::done()
                    }
                }
                Picked::Chosen(families) => Outcome::close(None, Some(Then::SendTo(families))),
                Picked::Closed => Outcome::close(Some("nothing sent"), None),
            },
            _ => Outcome::Pass,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, file: &str) {
        draw(frame, area, ui, self, file)
    }
}

fn draw(frame: &mut Frame, area: Rect, ui: &Palette, popup: &Popup, file: &str) {
    match popup {
        Popup::Help(scroll) => draw_help(frame, area, ui, *scroll),
        Popup::Settings(form) => form.draw(frame, area, ui, ()),
        Popup::Formatter { release, row } => draw_picker(frame, area, ui, *release, *row),
        Popup::SendTo {
            release,
            cursor,
            chosen,
        } => draw_send_to(frame, area, ui, *release, *cursor, chosen),
        Popup::History(pane) => pane.draw(frame, area, ui, ()),
        Popup::Picker(pane) => pane.draw(frame, area, ui, ()),
        Popup::Conflict { disk, error } => {
            let what = match disk {
                FileResult::Text { .. } => {
                    format!("{file} changed on disk while you have unsaved edits.")
                }
                FileResult::Missing => {
                    format!("{file} was deleted on disk while you have unsaved edits.")
                }
                FileResult::Failed(e) => {
                    format!("{file} cannot be read ({e}) while you have unsaved edits.")
                }
            };
            let mut lines = vec![what, String::new()];
            if matches!(disk, FileResult::Text { .. }) {
                lines.push("r  reload from disk (drop your edits)".into());
            }
            lines.push("k  keep your edits (C-s then replaces the file on disk)".into());
            lines.push(
                "s  save yours beside it as NAME.mine.json, then show the file on disk".into(),
            );
            if let Some(e) = error {
                lines.push(String::new());
                lines.push(format!("! {e}"));
            }
            draw_dialog(frame, area, ui, "File changed on disk", &lines);
        }
        Popup::SaveAsk { question, .. } => {
            let esc = |p: &std::path::Path| {
                formatscope_core::text::escape_control(&p.display().to_string()).into_owned()
            };
            let (title, lines) = match question {
                SaveQuestion::Repointed { link, was, now } => (
                    "Link re-pointed",
                    vec![
                        format!("The link {} now points to {}.", esc(link), esc(now)),
                        format!("Your edits came from {}.", esc(was)),
                        String::new(),
                        format!("o  save to {} (the file your edits came from)", esc(was)),
                        "Esc  cancel (your edits stay here, unsaved)".into(),
                    ],
                ),
                SaveQuestion::ReadOnly { file, mode } => (
                    "Read-only file",
                    vec![
                        format!("{} is read-only ({mode}).", esc(file)),
                        String::new(),
                        "y  replace it anyway (it stays read-only)".into(),
                        "Esc  cancel (your edits stay here, unsaved)".into(),
                    ],
                ),
            };
            draw_dialog(frame, area, ui, title, &lines)
        }
        Popup::Recreate => draw_dialog(
            frame,
            area,
            ui,
            "File deleted",
            &[
                format!("{file} was deleted on disk."),
                String::new(),
                "y  create it again with your edits".into(),
                "Esc  not now (your edits stay here, unsaved)".into(),
            ],
        ),
        Popup::Unsaved(pending) => {
            let then = match pending {
                Pending::Quit => "quit",
                Pending::Open(_) => "open the other file",
            };
            draw_dialog(
                frame,
                area,
                ui,
                "Unsaved edits",
                &[
                    format!("{file} has unsaved edits."),
                    String::new(),
                    format!("s  save, then {then}"),
                    format!("d  drop the edits, then {then}"),
                    "Esc  stay".into(),
                ],
            )
        }
        Popup::Draft => draw_dialog(
            frame,
            area,
            ui,
            "Unsaved draft",
            &[
                "The editor holds text that does not parse yet.".into(),
                String::new(),
                "e  keep editing it".into(),
                "d  drop the text (the message stays as it was)".into(),
            ],
        ),
        Popup::Recovery {
            recovery,
            disk_changed,
        } => {
            let mut lines = vec![
                format!(
                    "Unsaved edits to {file} were kept when the workbench stopped ({}, {} UTC).",
                    recovery.reason, recovery.written
                ),
                String::new(),
            ];
            if *disk_changed {
                lines.push(
                    "The file changed on disk since: restoring and saving replaces that version."
                        .into(),
                );
                lines.push(String::new());
            }
            lines.push("r  restore them (unsaved until you save)".into());
            lines.push("d  drop them (delete the recovery file)".into());
            lines.push("Esc  decide later (the recovery file stays)".into());
            draw_dialog(frame, area, ui, "Recover unsaved edits", &lines);
        }
        Popup::ConfirmSend(ask) => {
            let mut lines = vec![format!(
                "{file}: the request is {}{} tokens (you are asked from {} on).",
                if ask.exact { "" } else { "≈" },
                ask.tokens,
                ask.at
            )];
            lines.extend(
                ask.targets
                    .iter()
                    .map(|t| format!("  {}", formatscope_core::text::escape_control(t))),
            );
            lines.push(String::new());
            lines.push("y  send".into());
            lines.push("n  do not send (s sets the threshold: ask to send at)".into());
            draw_dialog(frame, area, ui, "Send this large request?", &lines);
        }
        Popup::SendHost {
            host,
            providers,
            families,
        } => {
            let plain = host.plain_http();
            let host = formatscope_core::text::escape_control(&host.to_string()).into_owned();
            let mut names: Vec<String> = providers.iter().map(|p| p.to_string()).collect();
            names.extend(families.iter().map(|f| f.title.to_string()));
            let mut lines = vec![
                format!("{file} sends the {} request to {host}.", names.join(", ")),
                format!("Only the session names {host}: your API key would go there."),
            ];
            if plain {
                lines.push("It is plain HTTP: the key would travel in clear text.".into());
            }
            lines.extend([
                String::new(),
                format!("a  send to {host} (until you quit)"),
                "d  do not send (not asked again)".into(),
            ]);
            draw_dialog(frame, area, ui, "Send your key there?", &lines);
        }
        Popup::Consent { wanted, .. } => {
            let reads = wanted
                .iter()
                .filter(|a| matches!(a, Access::Read(_)))
                .count();
            let fetches = wanted.len() - reads;
            let mut lines = vec![
                format!(
                    "{file} wants to {}:",
                    match (reads, fetches) {
                        (_, 0) => "read files outside its folder",
                        (0, _) => "download from the network",
                        _ => "read files outside its folder and download",
                    }
                ),
                String::new(),
            ];
            for access in wanted.iter().take(8) {
                lines.push(format!(
                    "  {}",
                    formatscope_core::text::escape_control(&access.to_string())
                ));
            }
            if wanted.len() > 8 {
                lines.push(format!("  … and {} more", wanted.len() - 8));
            }
            lines.extend([
                String::new(),
                "a  allow, for this file (until you quit)".into(),
                "d  deny (requests that need them show AgentScope's error)".into(),
                "A  always allow sessions in this folder".into(),
            ]);
            draw_dialog(frame, area, ui, "Read or fetch?", &lines);
        }
    }
}

/// The help, scrolled by `scroll` rows when it does not fit.
fn draw_help(frame: &mut Frame, area: Rect, ui: &Palette, scroll: usize) {
    let help = keymap::help();
    let width = area.width.min(96);
    // Key column, description (wrapped to fit), where the key applies.
    let (key_w, scope_w) = (9usize, 10usize);
    let what_w = (width as usize)
        .saturating_sub(2 + key_w + scope_w + 1)
        .max(16);
    let mut rows: Vec<Line> = Vec::new();
    for (k, what, scope) in help {
        for (i, part) in wrap_words(&what, what_w).into_iter().enumerate() {
            let (key, scope) = if i == 0 {
                (k.as_str(), scope)
            } else {
                ("", "")
            };
            rows.push(Line::from(vec![
                Span::styled(format!(" {key:<8}"), Style::default().fg(ui.focus)),
                Span::styled(format!("{part:<what_w$} "), Style::default().fg(ui.text)),
                Span::styled(scope.to_string(), Style::default().fg(ui.muted)),
            ]));
        }
    }
    let total = rows.len();
    let rect = centered(area, width, total as u16 + 2);
    let visible = rect.height.saturating_sub(2) as usize;
    let scroll = scroll.min(total.saturating_sub(visible));
    let title = if visible < total {
        format!(
            " Keys {}–{} of {total} (j/k PgUp/PgDn g/G scroll, Esc closes) ",
            scroll + 1,
            (scroll + visible).min(total)
        )
    } else {
        " Keys (Esc closes) ".to_string()
    };
    let lines: Vec<Line> = rows.into_iter().skip(scroll).take(visible).collect();
    frame.render_widget(Clear, rect);
    let block = pane_block(ui, Line::from(title), true);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// `text` cut into lines of at most `width` characters at spaces (a word
/// longer than that is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(String::new());
        }
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines
        .into_iter()
        .flat_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            chars
                .chunks(width.max(1))
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn draw_picker(frame: &mut Frame, area: Rect, ui: &Palette, release: usize, selected: usize) {
    let r = formatscope_core::reference::ALL[release % formatscope_core::reference::ALL.len()];
    let all = classes(release);
    let rect = centered(area, 48, all.len() as u16 + 2);
    // The selected row stays on screen when the list is taller than it.
    let skip = selected.saturating_sub(rect.height.saturating_sub(3) as usize);
    let lines: Vec<Line> = all
        .iter()
        .enumerate()
        .skip(skip)
        .map(|(i, (f, m))| {
            let style = if i == selected {
                Style::default()
                    .bg(ui.selected_bg)
                    .fg(ui.text)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(ui.text)
            };
            Line::styled(format!(" {}", r.call(f, *m)), style)
        })
        .collect();
    frame.render_widget(Clear, rect);
    let title = format!(" {} formatters (Enter picks) ", r.title());
    let block = pane_block(ui, Line::from(title), true);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

fn draw_send_to(
    frame: &mut Frame,
    area: Rect,
    ui: &Palette,
    release: usize,
    cursor: usize,
    chosen: &[bool],
) {
    let r = formatscope_core::reference::ALL[release % formatscope_core::reference::ALL.len()];
    let families = r.families();
    let title = if release == 0 {
        " Send to several providers ".to_string()
    } else {
        format!(" Send to several providers ({}) ", r.title())
    };
    let width = (title.chars().count() as u16 + 2).max(46);
    let rect = centered(area, width, families.len() as u16 + 4);
    let mut lines: Vec<Line> = families
        .iter()
        .zip(chosen)
        .enumerate()
        .map(|(i, (f, on))| {
            let style = if i == cursor {
                Style::default()
                    .bg(ui.selected_bg)
                    .fg(ui.text)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(ui.text)
            };
            // Digits pick the first nine; the rest by Space.
            let key = if i < 9 {
                (i + 1).to_string()
            } else {
                " ".into()
            };
            Line::styled(
                format!(" [{}] {key} {}", if *on { "x" } else { " " }, f.title),
                style,
            )
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        " Space picks · Enter sends to each · Esc",
        Style::default().fg(ui.muted),
    ));
    frame.render_widget(Clear, rect);
    let block = pane_block(ui, Line::from(title), true);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

fn draw_dialog(frame: &mut Frame, area: Rect, ui: &Palette, title: &str, lines: &[String]) {
    let width = 76u16;
    // Long lines wrap: count the rows they take.
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines
        .iter()
        .map(|l| l.chars().count().max(1).div_ceil(inner))
        .sum();
    let rect = centered(area, width, rows as u16 + 2);
    frame.render_widget(Clear, rect);
    let block = pane_block(ui, Line::from(format!(" {title} ")), true);
    let text: Vec<Line> = lines.iter().map(|l| Line::raw(l.clone())).collect();
    frame.render_widget(
        Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
        rect,
    );
}

#[cfg(test)]
mod key_tests {
    use super::*;
    use formatscope_core::formatter::Provider;

    /// The pickers own their keys: a digit toggles a provider, Enter with
    /// none picked stays open, Enter with some sends to them in order.
    #[test]
    fn the_providers_popup_picks_and_sends_only_what_was_picked() {
        let none = vec![false; 6];
        let Picked::Open(Popup::SendTo { cursor, chosen, .. }) =
            send_to_key(0, 0, none.clone(), KeyCode::Char('3'))
        else {
            panic!("stays open")
        };
        assert_eq!(
            (cursor, chosen.clone()),
            (2, vec![false, false, true, false, false, false])
        );
        assert!(matches!(
            send_to_key(0, 0, none.clone(), KeyCode::Enter),
            Picked::Open(_)
        ));
        let Picked::Chosen(p) = send_to_key(0, 2, chosen, KeyCode::Enter) else {
            panic!("sends")
        };
        let providers: Vec<_> = p.iter().map(|f| f.provider).collect();
        assert_eq!(providers, vec![Some(Provider::DashScope)]);
        assert!(matches!(
            send_to_key(0, 0, none, KeyCode::Esc),
            Picked::Closed
        ));
        // Under 2.0.11 the popup lists its eleven providers: a digit past
        // them does nothing, the cursor reaches the eleventh.
        let v2 = formatscope_core::reference::ALL
            .iter()
            .position(|r| r.version() == "2.0.11")
            .expect("2.0.11 is a release");
        let eleven = vec![false; 11];
        let Picked::Open(Popup::SendTo { cursor, chosen, .. }) =
            send_to_key(v2, 9, eleven, KeyCode::Down)
        else {
            panic!("stays open")
        };
        let Picked::Open(Popup::SendTo { cursor, chosen, .. }) =
            send_to_key(v2, cursor, chosen, KeyCode::Char(' '))
        else {
            panic!("stays open")
        };
        let Picked::Chosen(p) = send_to_key(v2, cursor, chosen, KeyCode::Enter) else {
            panic!("sends")
        };
        let ids: Vec<_> = p.iter().map(|f| f.id).collect();
        assert_eq!(
            ids,
            vec![formatscope_core::reference::ALL[v2].families()[10].id]
        );
        let n = classes(0).len();
        assert_eq!(n, 12, "1.0.21: six providers, two modes");
        assert!(
            matches!(formatter_key(0, 0, KeyCode::Up), Picked::Open(Popup::Formatter { row, .. }) if row == n - 1)
        );
        // 2.0.11 lists its eleven providers' classes, the last Volcengine's.
        let last = classes(v2).len() - 1;
        let Picked::Chosen((f, _)) = formatter_key(v2, last, KeyCode::Enter) else {
            panic!("picks")
        };
        assert_eq!(f.id, "volcengine");
        assert!(matches!(help_key(3, KeyCode::Char('?')), Picked::Closed));
    }
}

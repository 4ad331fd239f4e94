//! The history popup (`H`): the open session's sends, newest first, from
//! the history file (read off the UI thread; see `Command::ListHistory`).
//! Enter shows one whole; `c` puts its reply beside the latest reply in
//! the compare view ("what did the model say before I changed the
//! prompt").

use super::{centered, pane_block};
use crate::theme::Palette;
use formatscope_core::compare::{compare, Compared, Side};
use formatscope_core::text::escape_control;
use formatscope_history::Send;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Debug, Default)]
pub struct HistoryPane {
    /// The session whose sends are listed.
    pub session: PathBuf,
    /// Newest first; `None` while they are being read.
    pub sends: Option<Vec<Send>>,
    /// Why they could not be read.
    pub error: Option<String>,
    pub cursor: usize,
    /// The send at the cursor is shown whole.
    pub showing: bool,
    pub scroll: usize,
    /// The hash of the open session's messages now: sends of this very
    /// conversation are marked `=` (the others were before an edit).
    pub current_hash: Option<String>,
    /// The send being read whole (a list holds no request bodies), and
    /// whether its reply goes to the compare view once read.
    pub reading: Option<(i64, bool)>,
}

/// What a key did to the popup.
#[derive(Debug, PartialEq, Eq)]
pub enum HistoryKey {
    Open,
    Closed,
    /// Compare this send's reply (index in `sends`) with the latest.
    Compare(usize),
    /// Show this send (index in `sends`), which must be read whole first.
    Read(usize),
}

/// The history popup moves through its list and shows a send on its own;
/// reading a send whole and comparing replies are the app's (the history
/// file, the replies and the compare view are not the popup's).
impl super::Component for HistoryPane {
    type Context<'a> = ();
    type Props<'a> = ();

    fn handle(&mut self, key: super::Key, _: ()) -> super::Outcome {
        use super::{Outcome, Then};
        match self.on_key(key.code()) {
            HistoryKey::Open => Outcome::done(),
            HistoryKey::Closed => Outcome::close(None, None),
            HistoryKey::Read(index) => Outcome::then(Then::ReadSend {
                index,
                compare: false,
            }),
            // A reply too large for the list is read before it is compared.
            HistoryKey::Compare(index)
                if self
                    .sends
                    .as_ref()
                    .and_then(|s| s.get(index))
                    .is_some_and(|s| s.reply_left_out()) =>
            {
                Outcome::then(Then::ReadSend {
                    index,
                    compare: true,
                })
            }
            HistoryKey::Compare(index) => Outcome::then(Then::CompareSend(index)),
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, _: ()) {
        self.render(frame, area, ui)
    }
}

impl HistoryPane {
    pub fn new(session: PathBuf) -> HistoryPane {
        HistoryPane {
            session,
            ..HistoryPane::default()
        }
    }

    pub fn chosen(&self) -> Option<&Send> {
        self.sends.as_ref()?.get(self.cursor)
    }

    pub fn on_key(&mut self, code: KeyCode) -> HistoryKey {
        let n = self.sends.as_ref().map_or(0, Vec::len);
        match code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('H') if self.showing => {
                self.showing = false;
                self.scroll = 0;
            }
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('H') => return HistoryKey::Closed,
            KeyCode::Enter if n > 0 => {
                self.showing = !self.showing;
                self.scroll = 0;
                if self.showing && self.chosen().is_some_and(|s| !s.whole) {
                    return HistoryKey::Read(self.cursor);
                }
            }
            KeyCode::Char('c') if n > 0 => return HistoryKey::Compare(self.cursor),
            KeyCode::Down | KeyCode::Char('j') if self.showing => self.scroll += 1,
            KeyCode::Up | KeyCode::Char('k') if self.showing => {
                self.scroll = self.scroll.saturating_sub(1)
            }
            KeyCode::Down | KeyCode::Char('j') => self.cursor = (self.cursor + 1).min(n.max(1) - 1),
            KeyCode::Up | KeyCode::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => self.cursor = 0,
            KeyCode::End | KeyCode::Char('G') => self.cursor = n.saturating_sub(1),
            _ => {}
        }
        HistoryKey::Open
    }

    fn render(&self, frame: &mut Frame, area: Rect, ui: &Palette) {
        let n = self.sends.as_ref().map_or(0, Vec::len);
        // The list is as tall as its sends; a send shown whole takes all.
        let rows = if self.showing { usize::MAX } else { n + 5 };
        let height = (area.height.saturating_sub(4) as usize).min(rows.max(8)) as u16;
        let rect = centered(area, area.width.saturating_sub(8).max(40), height);
        frame.render_widget(Clear, rect);
        let inner_width = rect.width.saturating_sub(2) as usize;
        let name = self
            .session
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let muted = Style::default().fg(ui.muted);
        let (title, lines) = match (&self.sends, &self.error, self.chosen()) {
            (_, Some(e), _) => (
                format!(" History of {name} "),
                vec![
                    Line::styled(
                        escape_control(e).into_owned(),
                        Style::default().fg(ui.error),
                    ),
                    Line::raw(""),
                    Line::styled(
                        "Formatting and sending go on without it. Esc closes.",
                        muted,
                    ),
                ],
            ),
            (None, _, _) => (
                format!(" History of {name} "),
                vec![Line::styled("reading the history…", muted)],
            ),
            (Some(sends), _, _) if sends.is_empty() => (
                format!(" History of {name} "),
                vec![
                    Line::raw("No sends of this session yet: S sends, and each send is kept."),
                    Line::raw(""),
                    Line::styled("Esc closes", muted),
                ],
            ),
            (Some(_), _, Some(send)) if self.showing => (
                format!(
                    " Send #{} of {name} · c compare with the latest · Esc back ",
                    send.id
                ),
                detail(send, ui).into_iter().skip(self.scroll).collect(),
            ),
            (Some(sends), _, _) => {
                let mut lines = vec![Line::styled(
                    "     #  time (UTC)           provider · model          in→out  status  reply",
                    muted.add_modifier(Modifier::BOLD),
                )];
                let rows = rect.height.saturating_sub(4) as usize;
                let first = self.cursor.saturating_sub(rows.saturating_sub(1));
                for (i, s) in sends.iter().enumerate().skip(first).take(rows) {
                    let style = if i == self.cursor {
                        Style::default()
                            .bg(ui.selected_bg)
                            .fg(ui.text)
                            .add_modifier(Modifier::BOLD)
                    } else {
                        Style::default().fg(ui.text)
                    };
                    let same = self.current_hash.as_deref() == Some(&s.send.messages_hash);
                    let text = format!("{}{}", if same { "=" } else { " " }, row(s));
                    lines.push(Line::styled(fit(&text, inner_width), style));
                }
                lines.push(Line::raw(""));
                lines.push(Line::styled(
                    " = the conversation as it is now · ↑↓ pick · Enter shows it · c compares its reply with the latest · Esc",
                    muted,
                ));
                let plural = if sends.len() == 1 { "" } else { "s" };
                let n = sends.len();
                (
                    format!(" History of {name} · {n} send{plural}, newest first "),
                    lines,
                )
            }
        };
        let block = pane_block(ui, Line::from(title), true);
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false }),
            rect,
        );
    }
}

/// `text` cut to `width` columns (the list's rows never wrap).
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    text.chars()
        .take(width.saturating_sub(1))
        .collect::<String>()
        + "…"
}

fn row(s: &Send) -> String {
    let (input, output) = s.tokens();
    let n = |t: Option<u64>| t.map_or("-".to_string(), |t| t.to_string());
    let who = format!("{} · {}", s.send.provider, s.send.model);
    let tokens = format!("{}→{}", n(input), n(output));
    escape_control(&format!(
        "{:>5}  {}  {who:<24.24}  {tokens:>7}  {:<6}  {}",
        s.id,
        s.time(),
        s.send.status,
        s.first_line()
    ))
    .into_owned()
}

/// A send whole: where it went, the reply, then the request body.
fn detail(s: &Send, ui: &Palette) -> Vec<Line<'static>> {
    let bold = Style::default().fg(ui.text).add_modifier(Modifier::BOLD);
    let mut out = vec![
        Line::raw(escape_control(&row(s)).into_owned()),
        Line::raw(format!(
            "AgentScope {} · {} · {} ms{}",
            s.send.reference,
            escape_control(&s.send.host),
            s.send.elapsed_ms,
            s.send
                .first_token_ms
                .map(|t| format!(" · first token {t} ms"))
                .unwrap_or_default()
        )),
        Line::raw(""),
        Line::styled("Reply", bold),
    ];
    let text = s.reply_text();
    let text = match (&s.send.error, text.is_empty()) {
        _ if s.reply_left_out() => "reading the reply…".into(),
        (Some(e), true) => format!("error: {e}"),
        (_, true) => "(no reply)".into(),
        _ => text,
    };
    out.extend(
        text.lines()
            .map(|l| Line::raw(escape_control(l).into_owned())),
    );
    out.push(Line::raw(""));
    out.push(Line::styled("Request body", bold));
    let body = match serde_json::from_slice::<Value>(&s.send.request) {
        // A listed send holds no body: it is being read whole.
        _ if !s.whole => "reading the request body…".into(),
        Ok(v) => formatscope_core::text::json_text(&v),
        Err(_) => String::from_utf8_lossy(&s.send.request).into_owned(),
    };
    out.extend(
        body.lines()
            .map(|l| Line::raw(escape_control(l).into_owned())),
    );
    out
}

/// The compare view's rows for an old reply (left) and the latest (right),
/// each as the assistant message it would join the session as.
pub fn compare_replies(old: &Send, old_label: String, new: &Value, new_label: String) -> Compared {
    let message = |reply: Option<&Value>| {
        json!({
            "role": "assistant",
            "content": reply.and_then(|r| r.get("content")).cloned().unwrap_or(Value::Null),
        })
    };
    let left = Side::formatted(old_label, vec![message(old.send.reply.as_ref())], &[]);
    let right = Side::formatted(new_label, vec![message(Some(new))], &[]);
    compare(&left, &right)
}

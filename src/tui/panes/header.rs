//! The header: file, unsaved mark, provider and mode, model, budget, and
//! the release's provider tabs (the digit keys).

use crate::formatter::{FormatterId, Mode};
use crate::reference::Family;
use crate::tui::theme::Palette;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub struct HeaderView<'a> {
    pub file: &'a str,
    pub unsaved: bool,
    /// The file was deleted on disk.
    pub deleted: bool,
    /// Position in the folder's list, and its length.
    pub position: Option<(usize, usize)>,
    pub formatter: FormatterId,
    pub model: Option<String>,
    pub budget: Option<i64>,
    /// Another release's title and call when `V` is on it.
    pub release: Option<String>,
    /// The release's providers, in digit-key order, and the one on screen.
    pub providers: &'static [Family],
    pub family: &'static Family,
    /// The agent's call this session is, when `listen` wrote it.
    pub call: Option<Traced>,
}

/// A call `formatscope listen` recorded: which, whose, and whether
/// formatscope formats it as AgentScope did.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced {
    pub number: u64,
    pub agent: Option<String>,
    pub turn: Option<u64>,
    /// "same", "differs at $[3].content", or "-" (nothing recorded).
    pub recorded: String,
}

impl Traced {
    /// From a session's `listen` object.
    pub fn of(settings: &serde_json::Map<String, serde_json::Value>) -> Option<Traced> {
        let listen = settings.get("listen")?;
        Some(Traced {
            number: listen.get("call")?.as_u64()?,
            agent: listen
                .get("agent")
                .and_then(|a| a.as_str())
                .map(|a| crate::text::escape_control(a).into_owned()),
            turn: listen.get("turn").and_then(|t| t.as_u64()),
            recorded: listen
                .get("recorded")
                .and_then(|r| r.as_str())
                .unwrap_or("-")
                .to_string(),
        })
    }
}

pub fn draw(frame: &mut Frame, area: Rect, ui: &Palette, view: &HeaderView<'_>) {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let mut spans = vec![
        Span::styled(" formatscope ", base.add_modifier(Modifier::BOLD)),
        Span::styled(format!("│ {}", view.file), base),
    ];
    if view.unsaved {
        spans.push(Span::styled(" ●", base.fg(ui.warning)));
    }
    if view.deleted {
        spans.push(Span::styled(" (deleted on disk)", base.fg(ui.error)));
    }
    if let Some((i, n)) = view.position.filter(|(_, n)| *n > 1) {
        spans.push(Span::styled(format!(" ({}/{n})", i + 1), base.fg(ui.muted)));
    }
    if let Some(call) = &view.call {
        let who = match (&call.agent, call.turn) {
            (Some(a), Some(t)) => format!(" · {a}, turn {t}"),
            (Some(a), None) => format!(" · {a}"),
            _ => String::new(),
        };
        spans.push(Span::styled(
            format!(" │ call #{}{who}", call.number),
            base.add_modifier(Modifier::BOLD),
        ));
        if call.recorded.starts_with("differs") {
            spans.push(Span::styled(
                format!(" ≠ AgentScope ({})", call.recorded),
                base.fg(ui.error).add_modifier(Modifier::BOLD),
            ));
        } else if call.recorded == "same" {
            spans.push(Span::styled(" = AgentScope", base.fg(ui.muted)));
        }
    }
    let mode = match view.formatter.mode {
        Mode::Chat => "chat",
        Mode::MultiAgent => "multi-agent",
    };
    match &view.release {
        Some(call) => spans.push(Span::styled(
            format!(" │ {call}"),
            base.fg(ui.warning).add_modifier(Modifier::BOLD),
        )),
        None => spans.push(Span::styled(
            format!(" │ {} · {mode}", view.formatter.provider),
            base.add_modifier(Modifier::BOLD),
        )),
    }
    if let Some(model) = &view.model {
        spans.push(Span::styled(format!(" │ {model}"), base));
    }
    match view.budget {
        Some(b) => spans.push(Span::styled(format!(" │ budget {b}"), base)),
        None => spans.push(Span::styled(" │ no budget", base.fg(ui.muted))),
    }
    spans.push(Span::styled(" │ ", base));
    for (i, p) in view.providers.iter().enumerate() {
        let style = if p == view.family {
            base.fg(ui.focus)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            base.fg(ui.muted)
        };
        // Keys 1–9 and 0; the rest are the picker's (p).
        let label = match i {
            0..=8 => format!("{}:{}", i + 1, p.title),
            9 => format!("0:{}", p.title),
            _ => p.title.to_string(),
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::styled(" ", base));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base), area);
}

//! The lint panel (`L`): the linter's findings for the request on screen,
//! the selected message's first, each with its rule, place and fix. The
//! message list marks the messages that have findings whether the panel is
//! open or not (on sessions small enough to lint on every edit).

use super::pane_block;
use crate::theme::Palette;
use formatscope_core::lint::{Finding, Severity};
use formatscope_core::text::count_of;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// Sessions up to this many messages are linted on every edit; larger ones
/// only while the panel is open (linting formats the request again).
pub const ALWAYS_UP_TO: usize = 2_000;

#[derive(Debug, Default)]
pub struct LintPane {
    pub open: bool,
}

pub fn colour(ui: &Palette, s: Severity) -> Color {
    match s {
        Severity::Error => ui.error,
        Severity::Warning => ui.warning,
        Severity::Info => ui.muted,
    }
}

/// The worst finding about message `i`.
pub fn worst(findings: &[Finding], i: usize) -> Option<Severity> {
    findings
        .iter()
        .filter(|f| f.message == Some(i))
        .map(|f| f.severity)
        .min()
}

/// What the lint panel draws besides its own state: the findings (`None`:
/// still checking) and the message selected in the list.
#[derive(Clone, Copy)]
pub struct LintView<'a> {
    pub findings: Option<&'a [Finding]>,
    pub selected: usize,
}

/// The lint panel's one key opens and closes it (`L`); the app keeps it
/// and the explain panel, which share a place, from both being open.
impl super::Component for LintPane {
    type Context<'a> = ();
    type Props<'a> = LintView<'a>;

    fn handle(&mut self, key: super::Key, _: ()) -> super::Outcome {
        if key.action != Some(crate::keymap::Action::ToggleLint) {
            return super::Outcome::Pass;
        }
        self.open = !self.open;
        super::Outcome::reformat(Some(if self.open {
            "lint: findings for the request on screen (L closes)".into()
        } else {
            "lint panel closed".into()
        }))
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: LintView<'_>) {
        self.render(frame, area, ui, view.findings, view.selected)
    }
}

impl LintPane {
    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        ui: &Palette,
        findings: Option<&[Finding]>,
        selected: usize,
    ) {
        let title = match findings {
            None => " Lint (checking…) ".to_string(),
            Some(f) => {
                let n = |s| f.iter().filter(|x| x.severity == s).count() as i64;
                let counts = format!(
                    "{}, {}, {}",
                    count_of(n(Severity::Error), "error", "errors"),
                    count_of(n(Severity::Warning), "warning", "warnings"),
                    count_of(n(Severity::Info), "note", "notes")
                );
                // Whole or not at all: the key hint goes first.
                let room = (area.width as usize).saturating_sub(2);
                [
                    format!(" Lint: {counts} · L closes "),
                    format!(" Lint: {counts} "),
                    " Lint ".to_string(),
                ]
                .into_iter()
                .find(|t| super::columns(t) <= room)
                .unwrap_or_default()
            }
        };
        let block = pane_block(ui, Line::from(title), false);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(findings) = findings else { return };
        if findings.is_empty() {
            frame.render_widget(
                Paragraph::new(
                    "no findings: nothing this provider or AgentScope would reject or drop",
                )
                .style(Style::default().fg(ui.ok)),
                inner,
            );
            return;
        }
        // The selected message's findings first, then the rest in order.
        let mut order: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.message == Some(selected))
            .collect();
        order.extend(findings.iter().filter(|f| f.message != Some(selected)));
        let mut lines = Vec::new();
        for f in order {
            let at = match (f.message, f.block, f.line_col) {
                (Some(m), Some(b), Some((l, c))) => format!("#{m}.{b} {l}:{c}"),
                (Some(m), None, Some((l, c))) => format!("#{m} {l}:{c}"),
                (Some(m), _, None) => format!("#{m}"),
                (None, _, Some((l, c))) => format!("{l}:{c}"),
                _ => "request".to_string(),
            };
            let mut head = Style::default().fg(colour(ui, f.severity));
            if f.message == Some(selected) {
                head = head.add_modifier(Modifier::BOLD);
            }
            lines.push(Line::from(vec![
                Span::styled(format!("{} ", f.severity.as_str()), head),
                Span::styled(format!("{at} "), Style::default().fg(ui.muted)),
                Span::styled(format!("[{}] ", f.rule), Style::default().fg(ui.muted)),
                // Findings quote the session (names, ids): no control
                // character reaches the terminal.
                Span::styled(
                    formatscope_core::text::escape_control(&f.text).into_owned(),
                    Style::default().fg(ui.text),
                ),
            ]));
            lines.push(Line::styled(
                format!("    fix: {}", f.fix),
                Style::default().fg(ui.muted),
            ));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

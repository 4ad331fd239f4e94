//! The request pane: the formatter's output (or the provider's tool
//! schemas), scrolled and searched here, highlighted as it comes on screen
//! (a message at a time, cached). The lines that came from the selected
//! message are marked.

use super::pane_block;
use crate::formatter::FormatterId;
use crate::tui::highlight::LazyLines;
use crate::tui::keymap::Action;
use crate::tui::theme::Palette;
use crate::tui::worker::Preview;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use std::ops::Range;

#[derive(Debug, Default)]
pub struct RequestPane {
    pub scroll: usize,
    /// Show the provider's tool schemas instead of the messages.
    pub show_tools: bool,
    /// Show base64 media in full instead of `<image/png 34 KB>`.
    pub raw_media: bool,
    /// Typing a search (`/`): the text so far.
    pub search_input: Option<String>,
    pub search: Option<String>,
    /// The request's lines highlighted so far.
    pub highlighted: LazyLines,
}

/// What the pane draws besides its own state.
pub struct RequestView<'a> {
    pub preview: Option<&'a Preview>,
    /// Nothing is being formatted, and why (no file could be shown).
    pub idle: Option<&'a str>,
    pub formatter: FormatterId,
    /// The lines of the selected message.
    pub selected: Option<Range<usize>>,
    /// The file on disk does not parse (the request is the last good one).
    pub stale: bool,
    /// A newer preview is being computed.
    pub updating: bool,
    pub focused: bool,
    /// The syntax theme the request is highlighted with.
    pub syntax: &'a syntect::highlighting::Theme,
}

impl RequestPane {
    pub fn lines<'a>(&self, preview: Option<&'a Preview>) -> &'a [String] {
        match (preview, self.show_tools) {
            (Some(p), false) => &p.plain,
            (Some(p), true) => &p.tool_plain,
            _ => &[],
        }
    }

    pub fn scroll_by(&mut self, action: Action, n: usize, page: usize) {
        self.scroll = match action {
            Action::Up => self.scroll.saturating_sub(1),
            Action::Down => self.scroll + 1,
            Action::PageUp => self.scroll.saturating_sub(page),
            Action::PageDown => self.scroll + page,
            Action::Top => 0,
            _ => n,
        }
        .min(n.saturating_sub(1));
    }

    pub fn wheel(&mut self, down: bool, n: usize) {
        self.scroll = if down {
            (self.scroll + 3).min(n.saturating_sub(1))
        } else {
            self.scroll.saturating_sub(3)
        };
    }

    /// Brings `lines` into a view `height` rows high.
    pub fn reveal(&mut self, lines: Range<usize>, height: usize) {
        if lines.start < self.scroll || lines.start >= self.scroll + height {
            self.scroll = lines.start.saturating_sub(1);
        }
    }

    /// Moves to the next (or previous) line holding the search; the status
    /// line to show.
    pub fn jump(&mut self, lines: &[String], forward: bool, from_current: bool) -> Option<String> {
        let query = self.search.clone()?.to_lowercase();
        let n = lines.len();
        if n == 0 {
            return None;
        }
        let start = if from_current {
            self.scroll
        } else if forward {
            self.scroll + 1
        } else {
            self.scroll + n - 1
        };
        let hits: Vec<usize> = (0..n)
            .filter(|&i| lines[i].to_lowercase().contains(&query))
            .collect();
        let next = (0..n)
            .map(|k| {
                if forward {
                    (start + k) % n
                } else {
                    (start + n - k) % n
                }
            })
            .find(|i| hits.binary_search(i).is_ok());
        Some(match next {
            Some(i) => {
                self.scroll = i;
                let which = hits.binary_search(&i).map_or(0, |k| k + 1);
                format!("/{query}: {which} of {} (line {})", hits.len(), i + 1)
            }
            None => format!("/{query}: not found"),
        })
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &RequestView<'_>) {
        let (what, plain): (&str, &[String]) = match view.preview {
            Some(p) if self.show_tools => ("tool schemas", &p.tool_plain),
            Some(p) => ("request", &p.plain),
            None => ("request", &[]),
        };
        // Only the lines on screen are highlighted (the tool schemas, small,
        // come highlighted from the worker).
        let line_at = |i: usize| -> Line<'static> {
            match view.preview {
                Some(p) if self.show_tools => p.tool_lines.get(i).cloned().unwrap_or_default(),
                Some(p) => self.highlighted.line(&p.plain, &p.chunks, i, view.syntax),
                None => Line::default(),
            }
        };
        let formatter = view.preview.map_or(view.formatter, |p| p.formatter);
        let mut title = vec![Span::raw(format!(" {formatter} · {what} "))];
        if view.stale {
            title.push(Span::styled(
                " STALE ",
                Style::default().fg(ui.error).add_modifier(Modifier::BOLD),
            ));
        } else if view.updating {
            title.push(Span::styled(" updating… ", Style::default().fg(ui.muted)));
        }
        let block = pane_block(ui, Line::from(title), view.focused);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if let Some(err) = view.preview.and_then(|p| p.error.as_ref()) {
            let mut text = vec![
                Line::styled(
                    "AgentScope raises here:",
                    Style::default().fg(ui.error).add_modifier(Modifier::BOLD),
                ),
                Line::raw(""),
                Line::styled(err.clone(), Style::default().fg(ui.error)),
            ];
            if let Some((_, why)) = view.preview.and_then(|p| p.rejected.as_ref()) {
                text.push(Line::raw(""));
                text.push(Line::styled(
                    format!("Why: {why}."),
                    Style::default().fg(ui.text),
                ));
            }
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
            return;
        }
        if view.preview.is_none() {
            let text = view.idle.unwrap_or("formatting and counting…");
            frame.render_widget(
                Paragraph::new(text)
                    .style(Style::default().fg(ui.muted))
                    .wrap(Wrap { trim: true }),
                inner,
            );
            return;
        }
        let selected = if self.show_tools {
            None
        } else {
            view.selected.clone()
        };
        let query = self.search.as_ref().map(|q| q.to_lowercase());
        let height = inner.height as usize;
        let start = self.scroll.min(plain.len().saturating_sub(1));
        let mut shown = Vec::with_capacity(height);
        for i in (start..plain.len()).take(height) {
            let line = line_at(i);
            let in_selected = selected.as_ref().is_some_and(|r| r.contains(&i));
            let gutter = if in_selected {
                Span::styled("▌", Style::default().fg(ui.provenance_mark))
            } else {
                Span::raw(" ")
            };
            let mut spans = vec![gutter];
            let hit = query
                .as_ref()
                .is_some_and(|q| plain.get(i).is_some_and(|l| l.to_lowercase().contains(q)));
            for s in &line.spans {
                let mut style = s.style;
                if in_selected {
                    style = style.bg(ui.provenance_bg);
                }
                if hit {
                    style = style.bg(ui.search_bg);
                }
                spans.push(Span::styled(s.content.clone(), style));
            }
            shown.push(Line::from(spans));
        }
        frame.render_widget(Paragraph::new(shown), inner);
    }
}

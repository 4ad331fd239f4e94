//! The request pane: the formatter's output (or the provider's tool
//! schemas), scrolled and searched here, highlighted as it comes on screen
//! (a message at a time, cached). The lines that came from the selected
//! message are marked.

use super::{columns, pane_block, Component, Effect, Outcome};
use crate::highlight::{clip, LazyLines};
use crate::keymap::Action;
use crate::lines::Lines;
use crate::theme::Palette;
use crate::worker::{Preview, Shown};
use formatscope_core::formatter::FormatterId;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use std::cell::Cell;
use std::ops::Range;
use unicode_width::UnicodeWidthChar;

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
    /// Long lines wrap (`W`) instead of scrolling sideways.
    pub wrap: bool,
    /// Columns scrolled sideways (`h`/`l`, `←`/`→`) when not wrapping.
    pub hscroll: usize,
    /// The text area's width at the last draw (a search match is brought
    /// into it).
    pub width: Cell<usize>,
    /// Which view of the request is asked for (`v`).
    pub shown: Shown,
    /// The rule behind each line is shown beside it (`w`).
    pub explain: bool,
    /// The token view's cursor (`h`/`l`, `j`/`k` in that view).
    pub token: super::tokens::TokenCursor,
}

/// Columns one sideways step moves.
const SIDEWAYS_STEP: usize = 8;

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

/// What the request pane reads to take a key: the preview, the lines a
/// page scrolls, and its frame on screen (`G` puts the last line at its
/// bottom).
#[derive(Clone, Copy)]
pub struct RequestContext<'a> {
    pub preview: Option<&'a Preview>,
    pub page: usize,
    pub area: Rect,
}

impl super::Component for RequestPane {
    type Context<'a> = RequestContext<'a>;
    type Props<'a> = &'a RequestView<'a>;

    /// The search being typed takes every key; else the pane's actions
    /// ([`RequestPane::on_action`]).
    fn handle(&mut self, key: super::Key, cx: RequestContext<'_>) -> Outcome {
        if self.search_input.is_some() {
            return self.on_search_key(key.code(), cx.preview);
        }
        let Some(action) = key.action else {
            return Outcome::Pass;
        };
        let outcome = self.on_action(action, cx.preview, cx.page);
        // `G`: the last line at the bottom of the pane, not alone at its
        // top (the token view scrolls its own rows).
        if action == Action::Bottom
            && outcome != Outcome::Pass
            && (self.shown != Shown::Tokens || self.show_tools)
        {
            self.scroll = self.last_page(cx.preview, cx.area);
        }
        outcome
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &RequestView<'_>) {
        self.render(frame, area, ui, view)
    }
}

impl RequestPane {
    pub fn lines<'a>(&self, preview: Option<&'a Preview>) -> &'a Lines {
        Self::lines_of(preview, self.show_tools)
    }

    /// [`RequestPane::lines`] without borrowing the pane (to search the
    /// lines while the pane moves its cursor).
    pub fn lines_of(preview: Option<&Preview>, show_tools: bool) -> &Lines {
        static NONE: Lines = Lines::new();
        match (preview, show_tools) {
            (Some(p), false) => &p.plain,
            (Some(p), true) => &p.tool_plain,
            _ => &NONE,
        }
    }

    /// Takes the request pane's own actions: scrolling (when it has the
    /// focus), search, the tool schemas, wrapping, sideways scrolling,
    /// copying, the view cycle, raw media and the explain panel.
    pub fn on_action(&mut self, action: Action, preview: Option<&Preview>, page: usize) -> Outcome {
        // The token view moves its cursor with the keys that scroll here.
        if self.shown == Shown::Tokens && !self.show_tools {
            let cx = super::tokens::TokenContext {
                scroll: &mut self.scroll,
                width: &self.width,
                preview,
            };
            let outcome = self.token.handle(super::Key::action(action), cx);
            if outcome != Outcome::Pass {
                return outcome;
            }
        }
        let lines = Self::lines_of(preview, self.show_tools);
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                self.scroll_by(action, lines.len(), page);
                Outcome::done()
            }
            Action::Search => {
                self.search_input = Some(String::new());
                Outcome::done()
            }
            Action::NextMatch | Action::PrevMatch => {
                self.found(lines, action == Action::NextMatch, false)
            }
            Action::ToggleTools => {
                self.show_tools = !self.show_tools;
                self.scroll = 0;
                Outcome::done()
            }
            Action::Left | Action::Right => {
                self.sideways(action == Action::Right, lines);
                Outcome::done()
            }
            Action::ToggleWrap => {
                self.toggle_wrap();
                Outcome::say(if self.wrap {
                    "long request lines wrap (W: scroll sideways instead)"
                } else {
                    "long request lines scroll sideways with h/l or ←/→ (W: wrap)"
                })
            }
            Action::Copy if lines.is_empty() => Outcome::say("nothing to copy yet"),
            Action::Copy => Outcome::Taken(Effect {
                status: Some(super::status::copied_note(
                    self.shown.label(),
                    lines.len(),
                    std::env::var_os("TMUX").is_some(),
                )),
                clipboard: Some(lines.join("\n")),
                ..Effect::default()
            }),
            Action::CycleView => {
                self.shown = self.shown.next();
                self.scroll = 0;
                self.hscroll = 0;
                Outcome::reformat(Some(format!("request view: {}", self.shown.label())))
            }
            Action::ToggleRaw => {
                self.raw_media = !self.raw_media;
                Outcome::reformat(None)
            }
            // The explain panel shows the rule behind each line of this
            // pane's (the app closes the lint panel, which shares its place).
            Action::Explain => {
                self.explain = !self.explain;
                Outcome::reformat(Some(if self.explain {
                    "explain: the rule behind each line at the right, the rules that fired below (w closes)".into()
                } else {
                    "explain closed".into()
                }))
            }
            _ => Outcome::Pass,
        }
    }

    /// A key while a search is typed (`/`): Enter searches, Esc gives up.
    /// `Pass` when no search is being typed.
    pub fn on_search_key(&mut self, code: KeyCode, preview: Option<&Preview>) -> Outcome {
        let Some(input) = self.search_input.as_mut() else {
            return Outcome::Pass;
        };
        match code {
            KeyCode::Enter => {
                let query = std::mem::take(input);
                self.search_input = None;
                self.search = (!query.is_empty()).then_some(query);
                let lines = Self::lines_of(preview, self.show_tools);
                return self.found(lines, true, true);
            }
            KeyCode::Esc => self.search_input = None,
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) => input.push(c),
            _ => {}
        }
        Outcome::done()
    }

    /// Moves to the next match of the search; the pane takes the focus
    /// when there is one.
    fn found(&mut self, lines: &Lines, forward: bool, from_current: bool) -> Outcome {
        match self.jump(lines, forward, from_current) {
            Some(status) => Outcome::Taken(Effect {
                focus: !status.ends_with("not found"),
                status: Some(status),
                ..Effect::default()
            }),
            None => Outcome::done(),
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

    /// Scrolls sideways (`Action::Left`/`Right`); wrapping stops it.
    pub fn sideways(&mut self, right: bool, lines: &Lines) {
        if self.wrap {
            return;
        }
        let widest = lines.iter().map(columns).max().unwrap_or(0);
        let last = widest.saturating_sub(self.width.get().max(1));
        self.hscroll = if right {
            (self.hscroll + SIDEWAYS_STEP).min(last)
        } else {
            self.hscroll.saturating_sub(SIDEWAYS_STEP)
        };
    }

    pub fn toggle_wrap(&mut self) {
        self.wrap = !self.wrap;
        self.hscroll = 0;
    }

    /// Brings columns `cols` of a line into view (sideways).
    fn reveal_columns(&mut self, cols: Range<usize>) {
        let width = self.width.get().max(1);
        if self.wrap || (cols.start >= self.hscroll && cols.end <= self.hscroll + width) {
            return;
        }
        self.hscroll = cols.start.saturating_sub(width / 4);
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
    pub fn jump(&mut self, lines: &Lines, forward: bool, from_current: bool) -> Option<String> {
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
        let hits: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&query))
            .map(|(i, _)| i)
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
                let line = lines.get(i).unwrap_or_default();
                if let Some(hit) = matches(line, &query).first() {
                    let before = columns(&line[..hit.start]);
                    self.reveal_columns(before..before + columns(&line[hit.clone()]));
                }
                let which = hits.binary_search(&i).map_or(0, |k| k + 1);
                format!("/{query}: {which} of {} (line {})", hits.len(), i + 1)
            }
            None => format!("/{query}: not found"),
        })
    }

    /// The first line of the request's last page in a pane at `area`: the
    /// scroll that puts its last line on the pane's last row (wrapped
    /// lines counted).
    pub fn last_page(&self, preview: Option<&Preview>, area: Rect) -> usize {
        let lines = self.lines(preview);
        let n = lines.len();
        let rows = area.height.saturating_sub(2).max(1) as usize;
        if !self.wrap {
            return n.saturating_sub(rows);
        }
        // A line takes its columns and the gutter's one, wrapped at the
        // pane's inner width.
        let width = area.width.saturating_sub(2).max(1) as usize;
        let (mut first, mut used) = (n, 0);
        while first > 0 {
            let cols = 1 + lines.get(first - 1).map_or(0, columns);
            let taken = cols.div_ceil(width).max(1);
            if used + taken > rows {
                break;
            }
            used += taken;
            first -= 1;
        }
        first.min(n.saturating_sub(1))
    }

    fn render(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &RequestView<'_>) {
        let plain = self.lines(view.preview);
        let what = match view.preview {
            Some(_) if self.show_tools => "tool schemas",
            Some(p) => p.shown.label(),
            None => "request",
        };
        // Only the lines on screen are highlighted (the tool schemas, small,
        // come highlighted from the worker).
        // Each line's first `columns` columns: a pane shows a screen of a
        // line that can be megabytes (a one-group session's history).
        let line_at = |i: usize, columns: usize| -> Line<'static> {
            match view.preview {
                Some(p) if self.show_tools => p
                    .tool_lines
                    .get(i)
                    .map(|line| clip(line, columns))
                    .unwrap_or_default(),
                Some(p) => self
                    .highlighted
                    .line(&p.plain, &p.chunks, i, view.syntax, columns),
                None => Line::default(),
            }
        };
        let formatter = view.preview.map_or(view.formatter, |p| p.formatter);
        let mut title = vec![Span::raw(
            match view.preview.and_then(|p| p.release.as_ref()) {
                Some(r) => format!(" {} {} · messages ", r.title, r.call),
                None => format!(" {formatter} · {what} "),
            },
        )];
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
            use formatscope_core::reference::java::reference::NOT_BUILT;
            // A panic the worker caught is ours, not AgentScope's; so is a
            // request formatscope does not build (Java's vendor SDKs).
            let (head, err) = if err.starts_with(crate::worker::INTERNAL_ERROR) {
                ("formatscope failed here (not AgentScope):", err.as_str())
            } else if let Some(at) = err.find(NOT_BUILT) {
                (
                    "Not built by formatscope (not an AgentScope error):",
                    &err[at..],
                )
            } else {
                ("AgentScope raises here:", err.as_str())
            };
            let mut text = vec![
                Line::styled(
                    head,
                    Style::default().fg(ui.error).add_modifier(Modifier::BOLD),
                ),
                Line::raw(""),
                Line::styled(err.to_string(), Style::default().fg(ui.error)),
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
        if let Some(tokens) = super::tokens::shown(view.preview).filter(|_| !self.show_tools) {
            self.token.draw(
                frame,
                inner,
                ui,
                super::tokens::TokenProps {
                    scroll: self.scroll,
                    width_seen: &self.width,
                    view: tokens,
                    plain,
                    provider: formatter.provider,
                },
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
        // What a line can show: wrapped, a row of the pane's width for each
        // row (and one more); else from the horizontal scroll on.
        let width = inner.width as usize;
        let columns = if self.wrap {
            (height + 1) * width
        } else {
            self.hscroll + width + 1
        };
        let mut shown = Vec::with_capacity(height);
        for i in (start..plain.len()).take(height) {
            let line = line_at(i, columns);
            let in_selected = selected.as_ref().is_some_and(|r| r.contains(&i));
            let gutter = if in_selected {
                Span::styled("▌", Style::default().fg(ui.provenance_mark))
            } else {
                Span::raw(" ")
            };
            // The highlighted spans spell the plain line (what of it is
            // shown); if they ever did not, the whole line is marked rather
            // than cut wrongly.
            let spelled: usize = line.spans.iter().map(|s| s.content.len()).sum();
            let text = plain.get(i).map(|l| l.get(..spelled).unwrap_or(l));
            let mut hits = match (&query, &text) {
                (Some(q), Some(l)) => matches(l, q),
                _ => Vec::new(),
            };
            if !hits.is_empty() && Some(spelled) != text.as_ref().map(|l| l.len()) {
                hits = std::iter::once(0..spelled).collect();
            }
            let mut spans = vec![gutter];
            let mut at = 0;
            for s in &line.spans {
                let mut style = s.style;
                if in_selected {
                    style = style.bg(ui.provenance_bg);
                }
                // Only the matched text is marked, not its whole line.
                let text = s.content.as_ref();
                let mut from = 0;
                for cut in cuts(at..at + text.len(), &hits) {
                    let Some(piece) = text.get(from..cut - at) else {
                        break;
                    };
                    let in_hit = hits.iter().any(|h| h.contains(&(at + from)));
                    let style = if in_hit {
                        style.bg(ui.search_bg)
                    } else {
                        style
                    };
                    spans.push(Span::styled(piece.to_string(), style));
                    from = cut - at;
                }
                at += text.len();
            }
            let spans = if self.wrap {
                spans
            } else {
                skip_columns(spans, 1, self.hscroll)
            };
            shown.push(Line::from(spans));
        }
        self.width.set((inner.width as usize).saturating_sub(1));
        let paragraph = Paragraph::new(shown);
        let paragraph = if self.wrap {
            paragraph.wrap(Wrap { trim: false })
        } else {
            paragraph
        };
        frame.render_widget(paragraph, inner);
        // The rule behind each line, at the right edge (not when wrapping:
        // rows and lines part ways).
        let why = view.preview.and_then(|p| p.explanation.as_deref());
        if let (true, false, false, Some(why)) = (self.explain, self.wrap, self.show_tools, why) {
            for row in 0..height {
                let Some(Some(rule)) = why.line_rules.get(start + row) else {
                    continue;
                };
                let label = format!(" {rule} ");
                let w = (label.chars().count() as u16).min(inner.width);
                let area = Rect::new(inner.right() - w, inner.y + row as u16, w, 1);
                frame.render_widget(
                    Paragraph::new(label).style(Style::default().fg(ui.muted).bg(ui.header_bg)),
                    area,
                );
            }
        }
    }
}

/// Byte ranges of `line` where `query` (lower case) matches, ignoring
/// case. Lines whose lower case changes their length are marked whole.
fn matches(line: &str, query: &str) -> Vec<Range<usize>> {
    if query.is_empty() {
        return Vec::new();
    }
    let lower = line.to_lowercase();
    if lower.len() != line.len() {
        return if lower.contains(query) {
            std::iter::once(0..line.len()).collect()
        } else {
            Vec::new()
        };
    }
    lower
        .match_indices(query)
        .map(|(start, m)| start..start + m.len())
        .filter(|r| line.is_char_boundary(r.start) && line.is_char_boundary(r.end))
        .collect()
}

/// Where a span covering `span` must be cut so that each piece is wholly
/// inside or outside the hits: the cut points, ending with `span.end`.
fn cuts(span: Range<usize>, hits: &[Range<usize>]) -> Vec<usize> {
    let mut points: Vec<usize> = hits
        .iter()
        .flat_map(|h| [h.start, h.end])
        .filter(|p| *p > span.start && *p < span.end)
        .collect();
    points.push(span.end);
    points.sort_unstable();
    points.dedup();
    points
}

/// The line without its first `skip` columns after the first `keep` spans
/// (the gutter stays).
fn skip_columns(spans: Vec<Span<'static>>, keep: usize, skip: usize) -> Vec<Span<'static>> {
    let mut out = Vec::with_capacity(spans.len());
    let mut left = skip;
    for (i, span) in spans.into_iter().enumerate() {
        if i < keep || left == 0 {
            out.push(span);
            continue;
        }
        let mut cut = 0;
        for (at, c) in span.content.char_indices() {
            if left == 0 {
                break;
            }
            left = left.saturating_sub(c.width().unwrap_or(0));
            cut = at + c.len_utf8();
        }
        if cut < span.content.len() {
            out.push(Span::styled(span.content[cut..].to_string(), span.style));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pane takes its own actions without the app: a view change asks
    /// for a new request, copying with nothing shown says so, and an
    /// action of another pane passes up.
    #[test]
    fn the_pane_takes_its_own_actions_and_passes_the_rest_up() {
        let mut pane = RequestPane::default();
        assert_eq!(
            pane.on_action(Action::CycleView, None, 10),
            Outcome::reformat(Some("request view: wire".into()))
        );
        assert_eq!(pane.shown, Shown::Wire);
        assert_eq!(
            pane.on_action(Action::Copy, None, 10),
            Outcome::say("nothing to copy yet")
        );
        assert_eq!(pane.on_action(Action::Search, None, 10), Outcome::done());
        assert_eq!(pane.search_input.as_deref(), Some(""));
        assert_eq!(
            pane.on_search_key(KeyCode::Char('x'), None),
            Outcome::done()
        );
        assert_eq!(pane.on_search_key(KeyCode::Esc, None), Outcome::done());
        assert_eq!(pane.on_search_key(KeyCode::Char('y'), None), Outcome::Pass);
        assert_eq!(pane.on_action(Action::Delete, None, 10), Outcome::Pass);
    }

    #[test]
    fn matches_are_found_ignoring_case_and_cut_out_of_spans() {
        assert_eq!(matches("  \"Role\": \"role\"", "role"), vec![3..7, 11..15]);
        let hit = std::iter::once(3..7).collect::<Vec<_>>();
        assert_eq!(cuts(0..10, &hit), vec![3, 7, 10]);
        assert_eq!(cuts(5..10, &hit), vec![7, 10]);
        assert_eq!(cuts(0..3, &hit), vec![3]);
    }

    /// The pane shows each line clipped to what it can show: a line of
    /// thousands of words, wrapped or scrolled sideways, renders as the
    /// whole line renders.
    #[test]
    fn a_long_line_clipped_to_the_pane_renders_as_the_whole_line() {
        use ratatui::backend::TestBackend;
        use ratatui::style::Color;
        use ratatui::Terminal;
        let words: String = (0..3000).map(|i| format!("w{i} 中文 ")).collect();
        let line = Line::from(vec![
            Span::raw(" "),
            Span::styled(words, Style::default().fg(Color::Green)),
        ]);
        let render = |w: u16, h: u16, line: Line<'static>, wrap: bool| {
            let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
            terminal
                .draw(|f| {
                    let paragraph = Paragraph::new(vec![line]);
                    let paragraph = if wrap {
                        paragraph.wrap(Wrap { trim: false })
                    } else {
                        paragraph
                    };
                    f.render_widget(paragraph, f.area());
                })
                .expect("draw");
            terminal.backend().buffer().clone()
        };
        for (w, h) in [(40u16, 10u16), (17, 5)] {
            let columns = (h as usize + 1) * w as usize;
            assert_eq!(
                render(w, h, clip(&line, columns), true),
                render(w, h, line.clone(), true)
            );
            for hscroll in [0, 7, 100] {
                let columns = hscroll + w as usize + 1;
                let whole = skip_columns(line.spans.clone(), 1, hscroll);
                let clipped = skip_columns(clip(&line, columns).spans, 1, hscroll);
                assert_eq!(
                    render(w, h, Line::from(clipped), false),
                    render(w, h, Line::from(whole), false)
                );
            }
        }
    }

    #[test]
    fn columns_are_skipped_after_the_gutter_counting_wide_characters() {
        let spans = vec![Span::raw("▌"), Span::raw("ab"), Span::raw("中文x")];
        let text: String = skip_columns(spans, 1, 4)
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(text, "▌文x");
    }
}

//! The header: file, unsaved mark, provider and mode, model, budget, and
//! the release's provider tabs (the digit keys).

use super::columns;
use crate::theme::Palette;
use formatscope_core::formatter::{FormatterId, Mode};
use formatscope_core::reference::Family;
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
    /// Another release's title and call when `V` is on it
    /// ("AgentScope 2.0.11", "MiniMaxMultiAgentFormatter.format").
    pub release: Option<(String, String)>,
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
                .map(|a| formatscope_core::text::escape_control(a).into_owned()),
            turn: listen.get("turn").and_then(|t| t.as_u64()),
            recorded: listen
                .get("recorded")
                .and_then(|r| r.as_str())
                .unwrap_or("-")
                .to_string(),
        })
    }
}

/// The header line: no state and no keys, drawn from the view the app
/// builds.
pub struct Header;

impl super::Component for Header {
    type Context<'a> = ();
    type Props<'a> = &'a HeaderView<'a>;

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &HeaderView<'_>) {
        draw(frame, area, ui, view)
    }
}

fn draw(frame: &mut Frame, area: Rect, ui: &Palette, view: &HeaderView<'_>) {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let line = header_line(ui, view, area.width as usize);
    frame.render_widget(Paragraph::new(line).style(base), area);
}

/// How much of the header is shown: each step of [`header_line`] drops or
/// shortens one item, the least needed first.
#[derive(Clone, Copy)]
struct Shown {
    brand: bool,
    position: bool,
    /// The traced call: 2 whole, 1 without the agent and turn, 0 none.
    call: u8,
    /// The provider and mode (or the release's call): 2 whole, 1 short
    /// (the mode alone, the selected tab names the provider; the release's
    /// call without "AgentScope"), 0 the call alone (releases).
    provider: u8,
    /// The model: 2 whole, 1 without "(default)", 0 none.
    model: u8,
    budget: bool,
}

impl Shown {
    const ALL: Shown = Shown {
        brand: true,
        position: true,
        call: 2,
        provider: 2,
        model: 2,
        budget: true,
    };

    /// The next smaller header, or None at the smallest.
    fn smaller(self) -> Option<Shown> {
        let mut s = self;
        if s.brand {
            s.brand = false;
        } else if s.position {
            s.position = false;
        } else if s.call == 2 {
            s.call = 1;
        } else if s.model == 2 {
            s.model = 1;
        } else if s.provider == 2 {
            s.provider = 1;
        } else if s.model == 1 {
            s.model = 0;
        } else if s.provider == 1 {
            s.provider = 0;
        } else if s.budget {
            s.budget = false;
        } else if s.call == 1 {
            s.call = 0;
        } else {
            return None;
        }
        Some(s)
    }
}

/// The header in `width` columns. Items are whole or left out, never cut
/// (a budget of 400 is never shown as `budget 4`): the least needed go
/// first (the name, the position, details, the model, the budget), and the
/// provider tabs scroll so the selected one stays in view. Only a file
/// name too long for the line is cut, with `…`.
pub fn header_line(ui: &Palette, view: &HeaderView<'_>, width: usize) -> Line<'static> {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let mut shown = Shown::ALL;
    loop {
        let items = items(ui, view, shown);
        let used: usize = items.iter().map(|s| columns(&s.content)).sum();
        let tabs = tabs(ui, view, width.saturating_sub(used + 3));
        if let Some(tabs) = tabs {
            let mut spans = items;
            if !tabs.is_empty() {
                spans.push(Span::styled(" │ ", base));
                spans.extend(tabs);
            }
            return Line::from(spans);
        }
        match shown.smaller() {
            Some(s) => shown = s,
            None => break,
        }
    }
    // Nothing left to drop (the brand is gone, the file name is the first
    // item): the file name gives way, the selected tab stays.
    let selected = selected_tab(ui, view);
    let tab_width: usize = selected.iter().map(|s| columns(&s.content)).sum();
    let mut items = items(ui, view, shown);
    let used: usize = items.iter().map(|s| columns(&s.content)).sum();
    let over = (used + 3 + tab_width).saturating_sub(width);
    if let Some(file) = items.get_mut(0) {
        let keep = columns(&file.content).saturating_sub(over + 1);
        file.content = format!("{}…", crate::lines::cut_to_columns(&file.content, keep)).into();
    }
    items.push(Span::styled(" │ ", base));
    items.extend(selected);
    Line::from(items)
}

/// The header's items before the tabs, as much of them as `shown` says:
/// the brand when shown, then the file name.
fn items(ui: &Palette, view: &HeaderView<'_>, shown: Shown) -> Vec<Span<'static>> {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let mut spans = vec![Span::styled(
        if shown.brand {
            format!("│ {}", view.file)
        } else {
            format!(" {}", view.file)
        },
        base,
    )];
    if view.unsaved {
        spans.push(Span::styled(" ●", base.fg(ui.warning)));
    }
    if view.deleted {
        spans.push(Span::styled(" (deleted on disk)", base.fg(ui.error)));
    }
    if let Some((i, n)) = view.position.filter(|(_, n)| *n > 1 && shown.position) {
        spans.push(Span::styled(
            format!(
                " ({}/{})",
                formatscope_core::text::thousands(i as u64 + 1),
                formatscope_core::text::thousands(n as u64)
            ),
            base.fg(ui.muted),
        ));
    }
    if let Some(call) = view.call.as_ref().filter(|_| shown.call > 0) {
        let who = match (&call.agent, call.turn) {
            (Some(a), Some(t)) if shown.call == 2 => format!(" · {a}, turn {t}"),
            (Some(a), None) if shown.call == 2 => format!(" · {a}"),
            _ => String::new(),
        };
        spans.push(Span::styled(
            format!(" │ call #{}{who}", call.number),
            base.add_modifier(Modifier::BOLD),
        ));
        if call.recorded.starts_with("differs") {
            spans.push(Span::styled(
                if shown.call == 2 {
                    format!(" ≠ AgentScope ({})", call.recorded)
                } else {
                    " ≠ AgentScope".to_string()
                },
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
        Some((title, call)) => {
            let text = match shown.provider {
                2 => format!(" │ {title} {call}"),
                1 => format!(
                    " │ {} {call}",
                    title.strip_prefix("AgentScope ").unwrap_or(title)
                ),
                _ => format!(" │ {call}"),
            };
            spans.push(Span::styled(
                text,
                base.fg(ui.warning).add_modifier(Modifier::BOLD),
            ));
        }
        None => spans.push(Span::styled(
            if shown.provider == 2 {
                format!(" │ {} · {mode}", view.formatter.provider)
            } else {
                format!(" │ {mode}")
            },
            base.add_modifier(Modifier::BOLD),
        )),
    }
    if let Some(model) = view.model.as_ref().filter(|_| shown.model > 0) {
        let model = match shown.model {
            2 => model.as_str(),
            _ => model.strip_suffix(" (default)").unwrap_or(model),
        };
        spans.push(Span::styled(format!(" │ {model}"), base));
    }
    if shown.budget {
        match view.budget {
            Some(b) => spans.push(Span::styled(
                format!(" │ budget {}", formatscope_core::text::thousands_signed(b)),
                base,
            )),
            None => spans.push(Span::styled(" │ no budget", base.fg(ui.muted))),
        }
    }
    if shown.brand {
        spans.insert(
            0,
            Span::styled(" formatscope ", base.add_modifier(Modifier::BOLD)),
        );
    }
    spans
}

/// A tab's label: keys 1–9 and 0; the rest are the picker's (p).
fn tab_label(i: usize, p: &Family) -> String {
    match i {
        0..=8 => format!("{}:{}", i + 1, p.title),
        9 => format!("0:{}", p.title),
        _ => p.title.to_string(),
    }
}

/// The selected tab alone.
fn selected_tab(ui: &Palette, view: &HeaderView<'_>) -> Vec<Span<'static>> {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    view.providers
        .iter()
        .position(|p| p == view.family)
        .map(|i| {
            vec![Span::styled(
                tab_label(i, &view.providers[i]),
                base.fg(ui.focus)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            )]
        })
        .unwrap_or_default()
}

/// The provider tabs in `room` columns: as many as fit, scrolled so the
/// selected one shows, `‹`/`›` where tabs are out of view. None when the
/// selected tab does not fit.
fn tabs(ui: &Palette, view: &HeaderView<'_>, room: usize) -> Option<Vec<Span<'static>>> {
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let labels: Vec<String> = view
        .providers
        .iter()
        .enumerate()
        .map(|(i, p)| tab_label(i, p))
        .collect();
    if labels.is_empty() {
        return Some(Vec::new());
    }
    let selected = view.providers.iter().position(|p| p == view.family);
    let (from, to) = tab_window(
        &labels.iter().map(|l| columns(l)).collect::<Vec<_>>(),
        selected.unwrap_or(0),
        room,
    )?;
    let mut spans = Vec::new();
    if from > 0 {
        spans.push(Span::styled("‹ ", base.fg(ui.muted)));
    }
    for (i, label) in labels.iter().enumerate().take(to + 1).skip(from) {
        let style = if Some(i) == selected {
            base.fg(ui.focus)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            base.fg(ui.muted)
        };
        if i > from {
            spans.push(Span::styled(" ", base));
        }
        spans.push(Span::styled(label.clone(), style));
    }
    if to + 1 < labels.len() {
        spans.push(Span::styled(" ›", base.fg(ui.muted)));
    }
    Some(spans)
}

/// The tabs `from..=to` of `widths` shown in `room` columns (a space
/// between two, `‹ ` and ` ›` where some are out of view): from the first
/// as far as they fit, or, when the selected one would be out of view,
/// ending at it. None when the selected one does not fit at all.
fn tab_window(widths: &[usize], selected: usize, room: usize) -> Option<(usize, usize)> {
    let n = widths.len();
    let selected = selected.min(n.checked_sub(1)?);
    let span = |from: usize, to: usize| -> usize {
        let tabs: usize = widths[from..=to].iter().sum::<usize>() + (to - from);
        tabs + if from > 0 { 2 } else { 0 } + if to + 1 < n { 2 } else { 0 }
    };
    // From the first tab, as many as fit.
    let mut to = 0;
    while to + 1 < n && span(0, to + 1) <= room {
        to += 1;
    }
    if span(0, to) <= room && selected <= to {
        return Some((0, to));
    }
    // Scrolled: the selected tab last, as many before it as fit.
    if span(selected, selected) > room {
        return None;
    }
    let mut from = selected;
    while from > 0 && span(from - 1, selected) <= room {
        from -= 1;
    }
    let mut to = selected;
    while to + 1 < n && span(from, to + 1) <= room {
        to += 1;
    }
    Some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item whole or left out at every width, a traced call and a
    /// long file name included; the selected tab always in view.
    #[test]
    fn a_header_fits_every_width_with_whole_items() {
        let ui = crate::theme::Theme::load("dark").expect("theme").ui;
        let release = formatscope_core::reference::ALL[1];
        let families = release.families();
        let view = HeaderView {
            file: "a-session-with-a-rather-long-name.json",
            unsaved: true,
            deleted: false,
            position: Some((1_233, 4_000)),
            formatter: FormatterId::new(
                formatscope_core::formatter::Provider::Anthropic,
                Mode::MultiAgent,
            ),
            model: Some("claude-sonnet-4-6 (default)".into()),
            budget: Some(123_456),
            release: None,
            providers: families,
            family: &families[families.len() - 1],
            call: Some(Traced {
                number: 12,
                agent: Some("Friday".into()),
                turn: Some(3),
                recorded: "differs at $[3].content".into(),
            }),
        };
        for width in 40..=260 {
            let line: String = header_line(&ui, &view, width)
                .spans
                .iter()
                .map(|s| s.content.to_string())
                .collect();
            assert!(columns(&line) <= width, "{width}: {line}");
            assert!(
                line.contains(families[families.len() - 1].title),
                "{width}: {line}"
            );
            assert!(
                !line.contains("budget") || line.contains("budget 123,456 "),
                "{width}: {line}"
            );
            assert!(
                !line.contains("4,0") || line.contains(" (1,234/4,000) "),
                "{width}: {line}"
            );
        }
    }

    #[test]
    fn the_tab_window_keeps_the_selected_tab_in_view() {
        let widths = [8, 11, 11, 8, 8, 10, 8, 9, 10, 5, 10];
        // Everything fits.
        assert_eq!(tab_window(&widths, 10, 200), Some((0, 10)));
        // The first ones fit; the selected is among them.
        assert_eq!(tab_window(&widths, 1, 40), Some((0, 2)));
        // The last is selected: the strip scrolls to end at it.
        let (from, to) = tab_window(&widths, 10, 40).expect("fits");
        assert_eq!(to, 10);
        assert!(from > 0);
        // Room for the selected tab and its arrows only.
        assert_eq!(tab_window(&widths, 5, 14), Some((5, 5)));
        assert_eq!(tab_window(&widths, 5, 13), None);
        assert_eq!(tab_window(&[], 0, 10), None);
    }
}

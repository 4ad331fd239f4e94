//! The message list: index, speaker, role, a summary of the blocks, tokens;
//! tool calls paired with their results, messages truncation would drop
//! crossed out.

use super::pane_block;
use crate::keymap::Action;
use crate::theme::Palette;
use crate::worker::Preview;
use formatscope_core::session::PackedMessage;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

#[derive(Debug, Default)]
pub struct ListPane {
    pub selected: usize,
    /// What the rows on screen show, by message index, with the message it
    /// was read from: a frame unpacks only a row whose message changed (a
    /// message may hold megabytes of inline media).
    rows: RefCell<HashMap<usize, (PackedMessage, Row)>>,
}

/// One message as its row shows it.
#[derive(Debug, Clone)]
struct Row {
    name: String,
    role: String,
    summary: String,
    call: Option<String>,
    result: Option<String>,
}

impl Row {
    fn of(message: &PackedMessage) -> Row {
        let m = message.value();
        let (summary, call, result) = summary(&m);
        Row {
            name: m
                .get("name")
                .map(formatscope_core::py::py_str)
                .unwrap_or_default(),
            role: m
                .get("role")
                .map(formatscope_core::py::py_str)
                .unwrap_or_default(),
            summary,
            call,
            result,
        }
    }
}

/// What the list reads to take a key: the number of messages, and the
/// rows a page moves.
#[derive(Debug, Clone, Copy)]
pub struct ListContext {
    pub messages: usize,
    pub page: usize,
}

/// What the list draws besides its own state.
pub struct ListView<'a> {
    pub messages: &'a [PackedMessage],
    pub preview: Option<&'a Preview>,
    pub focused: bool,
}

impl super::Component for ListPane {
    type Context<'a> = ListContext;
    type Props<'a> = ListView<'a>;

    /// The moves of the selection; the app makes the move (a draft in the
    /// editor may stop it, and the editor and the request follow it).
    fn handle(&mut self, key: super::Key, cx: ListContext) -> super::Outcome {
        use Action::*;
        let Some(action @ (Up | Down | PageUp | PageDown | Top | Bottom)) = key.action else {
            return super::Outcome::Pass;
        };
        let mut probe = ListPane::at(self.selected);
        if probe.navigate(action, cx.messages, cx.page) {
            super::Outcome::then(super::Then::Select(probe.selected))
        } else {
            super::Outcome::done()
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: ListView<'_>) {
        self.render(frame, area, ui, view.messages, view.preview, view.focused)
    }
}

impl ListPane {
    /// A list with message `selected` selected.
    pub fn at(selected: usize) -> ListPane {
        ListPane {
            selected,
            ..ListPane::default()
        }
    }

    /// Moves the selection; `page` rows a page. Returns whether it moved.
    pub fn navigate(&mut self, action: Action, n: usize, page: usize) -> bool {
        if n == 0 {
            return false;
        }
        let before = self.selected;
        self.selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => self.selected + 1,
            Action::PageUp => self.selected.saturating_sub(page),
            Action::PageDown => self.selected + page,
            Action::Top => 0,
            _ => n - 1,
        }
        .min(n - 1);
        self.selected != before
    }

    /// Keeps the selection inside a list of `n` messages.
    pub fn clamp(&mut self, n: usize) {
        self.selected = self.selected.min(n.saturating_sub(1));
    }

    /// The first row shown in a pane `height` rows high.
    pub fn offset(&self, height: u16) -> usize {
        let rows = height.saturating_sub(2).max(1) as usize;
        self.selected.saturating_sub(rows.saturating_sub(1))
    }

    /// Message `i`'s name and role, as its row shows them.
    pub fn speaker(&self, i: usize, message: &PackedMessage) -> (String, String) {
        let row = self.row(i, message);
        (row.name, row.role)
    }

    /// Message `i`'s row, read again only when the message changed.
    fn row(&self, i: usize, message: &PackedMessage) -> Row {
        let mut rows = self.rows.borrow_mut();
        match rows.get(&i) {
            Some((m, row)) if m.same(message) => row.clone(),
            _ => {
                let row = Row::of(message);
                rows.insert(i, (message.clone(), row.clone()));
                row
            }
        }
    }

    /// The message under screen row `y` of the pane at `area`.
    pub fn row_at(&self, area: Rect, y: u16, n: usize) -> Option<usize> {
        let row = y.checked_sub(area.y + 1)? as usize;
        let i = self.offset(area.height) + row;
        (i < n && row < area.height.saturating_sub(2) as usize).then_some(i)
    }

    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        ui: &Palette,
        messages: &[PackedMessage],
        preview: Option<&Preview>,
        focused: bool,
    ) {
        let report = preview.and_then(|p| p.report.as_ref());
        // Sorted indices: looked up by binary search, never copied per frame.
        let dropped: &[usize] = preview
            .and_then(|p| p.plan.as_ref())
            .and_then(|p| p.as_ref().ok())
            .filter(|p| p.fits())
            .map_or(&[], |p| p.dropped.as_slice());
        let offset = self.offset(area.height);
        let rows = area.height.saturating_sub(2) as usize;
        let width = area.width.saturating_sub(2) as usize;
        // Narrow lists drop the role column first; wide ones give names room.
        let (name_w, role_w) = match width {
            w if w >= 64 => (16, 10),
            w if w >= 40 => (10, 10),
            _ => (8, 0),
        };
        let index_w = messages.len().saturating_sub(1).to_string().len().max(3);
        // As wide as the widest count (a shared "~" and the separators
        // included), never cut.
        let tokens_w = report
            .and_then(|r| {
                r.messages
                    .iter()
                    // Digits counted, not printed: 100,000 messages a frame.
                    .map(|t| digits(t.tokens) + usize::from(t.shared))
                    .max()
            })
            .unwrap_or(0)
            .max(4)
            + 1;
        let fixed = 1 + index_w + 1 + 1 + name_w + role_w + tokens_w;
        let sum_width = width.saturating_sub(fixed);
        let mut lines = Vec::with_capacity(rows);
        // Rows scrolled away are forgotten.
        self.rows
            .borrow_mut()
            .retain(|i, _| (offset..offset + rows).contains(i));
        for (i, m) in messages.iter().enumerate().skip(offset).take(rows) {
            let Row {
                name,
                role,
                summary: sum,
                call,
                result,
            } = self.row(i, m);
            // The report lists the messages in order, one entry each.
            let tokens = report
                .and_then(|r| r.messages.get(i).filter(|t| t.index == i))
                .map(|t| {
                    format!(
                        "{}{}",
                        if t.shared { "~" } else { "" },
                        formatscope_core::text::thousands_signed(t.tokens)
                    )
                })
                .unwrap_or_default();
            let is_dropped = dropped.binary_search(&i).is_ok();
            let pair = match (&call, &result) {
                (Some(id), _) => Span::styled("┌", Style::default().fg(pair_colour(id))),
                (_, Some(id)) => Span::styled("└", Style::default().fg(pair_colour(id))),
                _ => Span::raw(" "),
            };
            let mut style = Style::default().fg(ui.text);
            if is_dropped {
                style = style.fg(ui.dropped).add_modifier(Modifier::CROSSED_OUT);
            }
            if i == self.selected {
                style = style.bg(ui.selected_bg).add_modifier(Modifier::BOLD);
            }
            // Dropped by truncation first, else the worst lint finding.
            let lint = preview
                .and_then(|p| p.lint.as_deref())
                .and_then(|f| super::lint::worst(f, i));
            let mark = match (is_dropped, lint) {
                (true, _) => Span::styled("✗", Style::default().fg(ui.error)),
                (false, Some(s)) => {
                    Span::styled("●", Style::default().fg(super::lint::colour(ui, s)))
                }
                _ => Span::raw(" "),
            };
            lines.push(Line::from(vec![
                mark,
                Span::styled(format!("{i:>index_w$} "), style),
                pair,
                Span::styled(fit(&name, name_w), style),
                Span::styled(fit(&role, role_w), style),
                Span::styled(fit(&sum, sum_width), style),
                Span::styled(format!("{tokens:>tokens_w$}"), style.fg(ui.muted)),
            ]));
        }
        let title = Line::from(format!(" Messages ({}) ", messages.len()));
        let block = pane_block(ui, title, focused);
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// `text` in exactly `width` columns: cut with `…` (keeping a space
/// before the next column), or padded.
/// Counts display columns: a CJK character or an emoji takes two.
fn fit(text: &str, width: usize) -> String {
    if width == 0 {
        return String::new();
    }
    let text: String = text.chars().filter(|c| !c.is_control()).collect();
    let cols = UnicodeWidthStr::width(text.as_str());
    if cols < width {
        return format!("{text}{}", " ".repeat(width - cols));
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width.saturating_sub(2) {
            break;
        }
        cut.push(c);
        used += w;
    }
    format!("{cut}…{}", " ".repeat(width - used - 1))
}

/// A compact summary of a message's blocks, and the ids of its tool call
/// or tool result.
pub fn summary(message: &Value) -> (String, Option<String>, Option<String>) {
    let mut parts: Vec<String> = Vec::new();
    let (mut call, mut result) = (None, None);
    match message.get("content") {
        Some(Value::String(s)) => parts.push(format!("text {}", s.chars().count())),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let typ = b.get("type").and_then(Value::as_str).unwrap_or("?");
                match typ {
                    "text" => {
                        let n = b
                            .get("text")
                            .and_then(Value::as_str)
                            .map(|t| t.chars().count())
                            .unwrap_or(0);
                        parts.push(format!("text {n}"));
                    }
                    "tool_use" => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                        parts.push(format!("call {name}"));
                        call = b.get("id").map(formatscope_core::py::py_str);
                    }
                    "tool_result" => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                        parts.push(format!("result {name}"));
                        result = b.get("id").map(formatscope_core::py::py_str);
                    }
                    other => parts.push(other.to_string()),
                }
            }
        }
        _ => parts.push("empty".into()),
    }
    (parts.join("·"), call, result)
}

fn pair_colour(id: &str) -> Color {
    const COLOURS: [Color; 6] = [
        Color::Cyan,
        Color::Magenta,
        Color::Yellow,
        Color::Green,
        Color::Blue,
        Color::LightRed,
    ];
    let h = id
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    COLOURS[h as usize % COLOURS.len()]
}

/// How many characters `n` takes printed with separators (`12,345`).
fn digits(n: i64) -> usize {
    let magnitude = n
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |d| d as usize + 1);
    magnitude + (magnitude - 1) / 3 + usize::from(n < 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_cut_with_an_ellipsis_and_never_run_together() {
        assert_eq!(fit("Bob", 6), "Bob   ");
        assert_eq!(fit("Bartholomew", 6), "Bart… ");
        assert_eq!(fit("a\x1b[2Jb", 6), "a[2Jb ");
        // Wide characters take two columns: a name never runs into the role.
        assert_eq!(fit("图书馆管理员小王", 10), "图书馆管… ");
        assert_eq!(fit("图书馆", 10), "图书馆    ");
        assert_eq!(fit("a图书馆管理", 6), "a图…  ");
    }

    #[test]
    fn digits_are_the_printed_width() {
        for n in [
            0,
            7,
            9,
            10,
            99,
            100,
            999,
            1_000,
            123_456,
            1_234_567,
            -1,
            -10,
            -1_000,
            i64::MAX,
            i64::MIN,
        ] {
            assert_eq!(
                super::digits(n),
                formatscope_core::text::thousands_signed(n).len(),
                "{n}"
            );
        }
    }
}

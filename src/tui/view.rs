//! Drawing: a pure function of the app state. Nothing here formats, counts
//! or highlights; it slices what the worker prepared.

use super::app::{App, Areas, Focus, Popup};
use super::keymap;
use crate::formatter::{FormatterId, Mode, Provider};
use crate::tokens::Category;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Gauge, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::Value;

/// Smallest usable terminal.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// The pane rectangles for a terminal of `area`.
pub fn layout(area: Rect) -> (Rect, Areas, Rect, Rect, Rect) {
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(8),
            Constraint::Length(6),
            Constraint::Length(1),
        ])
        .split(area);
    let left_width = if area.width >= 110 {
        46
    } else {
        (area.width * 2 / 5).max(28)
    };
    let body = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Length(left_width), Constraint::Min(20)])
        .split(rows[1]);
    let left = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
        .split(body[0]);
    let bottom = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Length(left_width), Constraint::Min(20)])
        .split(rows[2]);
    (
        rows[0],
        Areas {
            list: left[0],
            editor: left[1],
            output: body[1],
        },
        bottom[0],
        bottom[1],
        rows[3],
    )
}

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = format!(
            "formatscope needs a terminal of at least {}×{} (this one is {}×{}).\nEnlarge it, or press q to quit.",
            MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let (header, areas, budget, truncation, status) = layout(area);
    draw_header(frame, app, header);
    draw_list(frame, app, areas.list);
    draw_editor(frame, app, areas.editor);
    draw_output(frame, app, areas.output);
    draw_budget(frame, app, budget);
    draw_truncation(frame, app, truncation);
    draw_status(frame, app, status);
    match &app.popup {
        Some(Popup::Help) => draw_help(frame, app, area),
        Some(Popup::Formatter(i)) => draw_picker(frame, app, area, *i),
        Some(Popup::Conflict(_)) => draw_dialog(
            frame,
            app,
            area,
            "File changed on disk",
            &[
                &format!(
                    "{} changed on disk while you have unsaved edits.",
                    app.file_name()
                ),
                "",
                "r  reload from disk (drop your edits)",
                "k  keep your edits (C-s then overwrites the file)",
                "s  save yours as NAME.mine.json, then show the file from disk",
            ],
        ),
        Some(Popup::QuitConfirm) => draw_dialog(
            frame,
            app,
            area,
            "Unsaved edits",
            &["s  save, then quit", "q  quit without saving", "Esc  stay"],
        ),
        None => {}
    }
}

fn pane_block<'a>(app: &App, title: Line<'a>, focused: bool) -> Block<'a> {
    let ui = &app.theme.ui;
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(Style::default().fg(if focused { ui.focus } else { ui.border }))
        .title(title)
}

fn draw_header(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let base = Style::default().bg(ui.header_bg).fg(ui.header_fg);
    let mut spans = vec![Span::styled(
        " formatscope ",
        base.add_modifier(Modifier::BOLD),
    )];
    spans.push(Span::styled(format!("│ {}", app.file_name()), base));
    if app.unsaved {
        spans.push(Span::styled(" ●", base.fg(ui.warning)));
    }
    if app.files.len() > 1 {
        spans.push(Span::styled(
            format!(" ({}/{})", app.current + 1, app.files.len()),
            base.fg(ui.muted),
        ));
    }
    let mode = match app.formatter.mode {
        Mode::Chat => "chat",
        Mode::MultiAgent => "multi-agent",
    };
    spans.push(Span::styled(
        format!(" │ {} · {mode}", app.formatter.provider),
        base.add_modifier(Modifier::BOLD),
    ));
    if let Some(p) = &app.preview {
        spans.push(Span::styled(format!(" │ {}", p.model.model), base));
    }
    match app.budget() {
        Some(b) => spans.push(Span::styled(format!(" │ budget {b}"), base)),
        None => spans.push(Span::styled(" │ no budget", base.fg(ui.muted))),
    }
    spans.push(Span::styled(" │ ", base));
    for (i, p) in Provider::ALL.iter().enumerate() {
        let style = if *p == app.formatter.provider {
            base.fg(ui.focus)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            base.fg(ui.muted)
        };
        spans.push(Span::styled(
            format!("{}:{}", i + 1, p.class_prefix()),
            style,
        ));
        spans.push(Span::styled(" ", base));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base), area);
}

/// A compact summary of a message's blocks.
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
                        call = b.get("id").map(crate::py::py_str);
                    }
                    "tool_result" => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("?");
                        parts.push(format!("result {name}"));
                        result = b.get("id").map(crate::py::py_str);
                    }
                    other => parts.push(other.to_string()),
                }
            }
        }
        _ => parts.push("empty".into()),
    }
    (parts.join("·"), call, result)
}

/// The first message row shown, keeping the selection in view.
pub fn list_offset(app: &App, height: u16) -> usize {
    let rows = height.saturating_sub(2).max(1) as usize;
    app.selected.saturating_sub(rows.saturating_sub(1))
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

fn draw_list(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let messages = app.messages();
    let report = app.preview.as_ref().and_then(|p| p.report.as_ref());
    // Sorted indices: looked up by binary search, never copied per frame.
    let dropped: &[usize] = app
        .preview
        .as_ref()
        .and_then(|p| p.plan.as_ref())
        .and_then(|p| p.as_ref().ok())
        .filter(|p| p.fits())
        .map_or(&[], |p| p.dropped.as_slice());
    let offset = list_offset(app, area.height);
    let rows = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    let mut lines = Vec::with_capacity(rows);
    for (i, m) in messages.iter().enumerate().skip(offset).take(rows) {
        let name = m.get("name").map(crate::py::py_str).unwrap_or_default();
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        let (sum, call, result) = summary(m);
        // The report lists the messages in order, one entry each.
        let tokens = report
            .and_then(|r| r.messages.get(i).filter(|t| t.index == i))
            .map(|t| format!("{}{}", if t.shared { "~" } else { "" }, t.tokens))
            .unwrap_or_default();
        let is_dropped = dropped.binary_search(&i).is_ok();
        let mark = if is_dropped { "✗" } else { " " };
        let pair = match (&call, &result) {
            (Some(id), _) => Span::styled("┌", Style::default().fg(pair_colour(id))),
            (_, Some(id)) => Span::styled("└", Style::default().fg(pair_colour(id))),
            _ => Span::raw(" "),
        };
        // Narrow lists drop the role column first.
        let (name_w, role_w) = if width >= 40 { (9, 10) } else { (8, 0) };
        let fixed = 4 + 1 + name_w + role_w + 7 + 1;
        let sum_width = width.saturating_sub(fixed);
        let sum: String = sum.chars().take(sum_width).collect();
        let mut style = Style::default().fg(ui.text);
        if is_dropped {
            style = style.fg(ui.dropped).add_modifier(Modifier::CROSSED_OUT);
        }
        if i == app.selected {
            style = style.bg(ui.selected_bg).add_modifier(Modifier::BOLD);
        }
        lines.push(Line::from(vec![
            Span::styled(mark, Style::default().fg(ui.error)),
            Span::styled(format!("{i:>3} "), style),
            pair,
            Span::styled(
                format!("{name:<name_w$.name_w$}{role:<role_w$.role_w$}"),
                style,
            ),
            Span::styled(format!("{sum:<sum_width$}"), style),
            Span::styled(format!("{tokens:>7}"), style.fg(ui.muted)),
        ]));
    }
    let title = Line::from(format!(" Messages ({}) ", messages.len()));
    let block = pane_block(app, title, app.focus == Focus::List);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_editor(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let what = if app.editor_text_mode { "text" } else { "JSON" };
    let who = app
        .editor_for
        .and_then(|i| app.messages().get(i))
        .map(|m| {
            let name = m.get("name").map(crate::py::py_str).unwrap_or_default();
            let role = m.get("role").map(crate::py::py_str).unwrap_or_default();
            format!(" · {name} ({role})")
        })
        .unwrap_or_default();
    let title = match (app.editor_for, &app.editor_error) {
        (Some(i), None) => format!(" Message #{i}{who} · {what} "),
        (Some(i), Some(_)) => format!(" Message #{i}{who} · {what}, invalid "),
        (None, _) => " Editor ".to_string(),
    };
    let focused = app.focus == Focus::Editor;
    let mut block = pane_block(app, Line::from(title), focused);
    if let Some(e) = &app.editor_error {
        block = block.title_bottom(Line::styled(
            format!(" {e} "),
            Style::default().fg(ui.error),
        ));
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Styles are set by the app (`App::style_editor`), not per frame.
    frame.render_widget(&app.editor, inner);
}

fn draw_output(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let (what, lines, plain): (&str, &[Line<'static>], &[String]) = match &app.preview {
        Some(p) if app.show_tools => ("tool schemas", &p.tool_lines, &p.tool_plain),
        Some(p) => ("request", &p.lines, &p.plain),
        None => ("request", &[], &[]),
    };
    let formatter: FormatterId = app
        .preview
        .as_ref()
        .map(|p| p.formatter)
        .unwrap_or(app.formatter);
    let stale = app.load_error.is_some()
        || app
            .preview
            .as_ref()
            .is_some_and(|p| p.generation < app.generation);
    let mut title = vec![Span::raw(format!(" {formatter} · {what} "))];
    if app.load_error.is_some() {
        title.push(Span::styled(
            " STALE ",
            Style::default().fg(ui.error).add_modifier(Modifier::BOLD),
        ));
    } else if stale {
        title.push(Span::styled(" updating… ", Style::default().fg(ui.muted)));
    }
    let block = pane_block(app, Line::from(title), app.focus == Focus::Output);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(err) = app.preview.as_ref().and_then(|p| p.error.as_ref()) {
        let text = vec![
            Line::styled(
                "AgentScope raises here:",
                Style::default().fg(ui.error).add_modifier(Modifier::BOLD),
            ),
            Line::raw(""),
            Line::styled(err.clone(), Style::default().fg(ui.error)),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
        return;
    }
    if app.preview.is_none() {
        frame.render_widget(
            Paragraph::new("formatting and counting…").style(Style::default().fg(ui.muted)),
            inner,
        );
        return;
    }
    let selected = if app.show_tools {
        None
    } else {
        app.selected_lines()
    };
    let query = app.search.as_ref().map(|q| q.to_lowercase());
    let height = inner.height as usize;
    let start = app.output_scroll.min(lines.len().saturating_sub(1));
    let mut shown = Vec::with_capacity(height);
    for (i, line) in lines.iter().enumerate().skip(start).take(height) {
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

fn draw_budget(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let block = pane_block(app, Line::from(" Budget "), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(report) = app.preview.as_ref().and_then(|p| p.report.as_ref()) else {
        frame.render_widget(
            Paragraph::new("counting…").style(Style::default().fg(ui.muted)),
            inner,
        );
        return;
    };
    let (used, limit, what) = match app.budget() {
        Some(b) if b > 0 => (report.messages_total, b, "max_tokens"),
        _ => (report.total, report.model.context_window as i64, "context"),
    };
    let ratio = if limit > 0 {
        used as f64 / limit as f64
    } else {
        0.0
    };
    let colour = if ratio < 0.7 {
        ui.budget_low
    } else if ratio < 0.9 {
        ui.budget_mid
    } else {
        ui.budget_high
    };
    let exact = if app.budget().is_some_and(|b| b > 0) {
        report.messages_exact
    } else {
        report.exact
    };
    let approx = if exact { "" } else { "≈" };
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(1),
        ])
        .split(inner);
    let gauge = Gauge::default()
        .gauge_style(Style::default().fg(colour))
        .ratio(ratio.clamp(0.0, 1.0))
        .label(format!(
            "{approx}{used} / {limit} {what} ({:.0}%)",
            ratio * 100.0
        ));
    frame.render_widget(gauge, rows[0]);
    let tokenizer = format!(
        "{} {}",
        report.model.tokenizer.describe(),
        if report.exact {
            "· exact"
        } else {
            "· estimate"
        }
    );
    frame.render_widget(
        Paragraph::new(tokenizer).style(Style::default().fg(ui.muted)),
        rows[1],
    );
    let mut parts: Vec<Span> = Vec::new();
    for cat in Category::ALL {
        let n = report.by_category.get(cat);
        if n == 0 && cat == Category::Media {
            continue;
        }
        let exact = report
            .exact_categories
            .iter()
            .find(|(c, _)| *c == cat)
            .is_some_and(|(_, e)| *e);
        parts.push(Span::styled(
            format!("{} ", cat.label()),
            Style::default().fg(ui.muted),
        ));
        parts.push(Span::styled(
            format!("{}{n}  ", if exact { "" } else { "≈" }),
            Style::default().fg(ui.text),
        ));
    }
    parts.push(Span::styled("tool schemas ", Style::default().fg(ui.muted)));
    parts.push(Span::styled(
        format!(
            "{}{}",
            if report.tool_schemas_exact { "" } else { "≈" },
            report.tool_schemas
        ),
        Style::default().fg(ui.text),
    ));
    frame.render_widget(
        Paragraph::new(Line::from(parts)).wrap(Wrap { trim: true }),
        rows[2],
    );
}

fn draw_truncation(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let block = pane_block(app, Line::from(" Truncation (FIFO, as AgentScope) "), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(preview) = &app.preview else { return };
    let lines: Vec<Line> = match (&preview.plan, preview.budget) {
        (_, None) => vec![
            Line::styled(
                "No budget: set \"max_tokens\" in the session to preview truncation.",
                Style::default().fg(ui.muted),
            ),
            Line::styled(
                "The meter shows the request against the model's context window.",
                Style::default().fg(ui.muted),
            ),
        ],
        (Some(Ok(plan)), Some(budget)) if plan.fits() && plan.dropped.is_empty() => {
            vec![Line::styled(
                format!(
                    "Fits: {} tokens of {budget}; nothing is dropped.",
                    plan.tokens_after.unwrap_or_default()
                ),
                Style::default().fg(ui.ok),
            )]
        }
        (Some(Ok(plan)), Some(budget)) if plan.fits() => {
            let first = plan.dropped.first().copied().unwrap_or_default();
            let last = plan.dropped.last().copied().unwrap_or_default();
            vec![
                Line::styled(
                    format!(
                        "Drops {} of {} messages (#{first}–#{last}) in {} steps: {} → {} tokens (budget {budget}).",
                        plan.dropped.len(),
                        plan.kept.len() + plan.dropped.len(),
                        plan.steps,
                        plan.tokens_before,
                        plan.tokens_after.unwrap_or_default()
                    ),
                    Style::default().fg(ui.warning),
                ),
                Line::styled("Dropped messages are crossed out in the list.", Style::default().fg(ui.muted)),
            ]
        }
        (Some(Ok(plan)), Some(budget)) => vec![
            Line::styled(
                format!(
                    "Cannot fit in {budget} tokens: {}.",
                    plan.reason().unwrap_or_default()
                ),
                Style::default().fg(ui.error),
            ),
            Line::styled(
                format!(
                    "AgentScope raises {}: {}",
                    plan.error.as_ref().map(|e| e.kind).unwrap_or("Error"),
                    plan.error.as_ref().map(|e| e.message.trim()).unwrap_or("")
                ),
                Style::default().fg(ui.muted),
            ),
        ],
        (Some(Err(e)), _) => vec![Line::styled(e.clone(), Style::default().fg(ui.error))],
        (None, Some(_)) => vec![Line::raw("")],
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

fn draw_status(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let mut left: Vec<Span> = Vec::new();
    if let Some(input) = &app.search_input {
        left.push(Span::styled(
            format!("/{input}█"),
            Style::default().fg(ui.focus),
        ));
    } else if let Some(e) = &app.load_error {
        left.push(Span::styled(
            format!("{e} (showing the last good version)"),
            Style::default().fg(ui.error),
        ));
    } else {
        if let Some(t) = &app.last_reload {
            left.push(Span::styled(
                format!("reloaded {t} · "),
                Style::default().fg(ui.muted),
            ));
        }
        left.push(Span::styled(
            app.status.clone(),
            Style::default().fg(ui.text),
        ));
    }
    let hints: Vec<Span> = keymap::footer()
        .into_iter()
        .flat_map(|(k, what)| {
            [
                Span::styled(format!(" {k}"), Style::default().fg(ui.focus)),
                Span::styled(format!(" {what}"), Style::default().fg(ui.muted)),
            ]
        })
        .collect();
    let hint_width: usize = hints.iter().map(|s| s.content.chars().count()).sum();
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([
            Constraint::Min(10),
            Constraint::Length(hint_width.min(area.width as usize / 2) as u16),
        ])
        .split(area);
    frame.render_widget(Paragraph::new(Line::from(left)), cols[0]);
    frame.render_widget(Paragraph::new(Line::from(hints)), cols[1]);
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2));
    let h = height.min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(frame: &mut Frame, app: &App, area: Rect) {
    let ui = &app.theme.ui;
    let help = keymap::help();
    let rect = centered(area, 76, help.len() as u16 + 2);
    let lines: Vec<Line> = help
        .into_iter()
        .map(|(k, what, scope)| {
            Line::from(vec![
                Span::styled(format!(" {k:<8}"), Style::default().fg(ui.focus)),
                Span::styled(format!("{what:<52}"), Style::default().fg(ui.text)),
                Span::styled(scope.to_string(), Style::default().fg(ui.muted)),
            ])
        })
        .collect();
    frame.render_widget(Clear, rect);
    let block = pane_block(app, Line::from(" Keys (Esc closes) "), true);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

fn draw_picker(frame: &mut Frame, app: &App, area: Rect, selected: usize) {
    let ui = &app.theme.ui;
    let all: Vec<FormatterId> = FormatterId::all().collect();
    let rect = centered(area, 40, all.len() as u16 + 2);
    let lines: Vec<Line> = all
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let style = if i == selected {
                Style::default()
                    .bg(ui.selected_bg)
                    .fg(ui.text)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(ui.text)
            };
            Line::styled(format!(" {}", f.class_name()), style)
        })
        .collect();
    frame.render_widget(Clear, rect);
    let block = pane_block(app, Line::from(" Formatter (Enter picks) "), true);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

fn draw_dialog(frame: &mut Frame, app: &App, area: Rect, title: &str, lines: &[&str]) {
    let rect = centered(area, 70, lines.len() as u16 + 2);
    frame.render_widget(Clear, rect);
    let block = pane_block(app, Line::from(format!(" {title} ")), true);
    let text: Vec<Line> = lines.iter().map(|l| Line::raw(l.to_string())).collect();
    frame.render_widget(
        Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
        rect,
    );
}

//! Drawing: a pure function of the app state, laid out here and drawn by
//! each pane through `Component::draw`, with the view it reads built
//! here. Nothing here formats, counts or highlights; it slices what the
//! worker prepared.

use super::app::{App, Areas, Focus};
use super::panes::compare::CompareView;
use super::panes::editor::EditorView;
use super::panes::explain::{Explain, ExplainView};
use super::panes::header::{self, Header, HeaderView};
use super::panes::lint::LintView;
use super::panes::list::ListView;
use super::panes::request::RequestView;
use super::panes::status::{Status, StatusView};
use super::panes::truncation::Truncation;
use super::panes::{budget, Component};
use crate::document::Disk;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// Smallest usable terminal.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// The pane rectangles for a terminal of `area`: header, panes, budget,
/// truncation, status.
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
    // Wide terminals give the list and editor room too (46 at 110 columns,
    // 60 at 200, at most 72), the request keeps the rest.
    let left_width = if area.width >= 110 {
        (area.width * 3 / 10).clamp(46, 72)
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
    let ui = &app.theme.ui;
    let (header_area, areas, budget_area, truncation_area, status_area) = layout(area);
    let file = app.file_name();
    let doc = app.doc.as_ref();
    let preview = app.preview.as_ref();
    Header.draw(
        frame,
        header_area,
        ui,
        &HeaderView {
            file: &file,
            unsaved: app.unsaved(),
            deleted: doc.is_some_and(|d| matches!(d.disk, Disk::Missing { .. })),
            position: app.position().map(|i| (i, app.files.len())),
            formatter: app.formatter,
            // A provider 1.0.21 lacks has no model of ours to count with.
            model: preview
                .filter(|_| app.family().provider.is_some())
                .map(|p| p.model.label()),
            budget: app.budget(),
            // What the release called, once it has (Java's DashScope call
            // depends on the model's endpoint); what it will call till then.
            release: app.release_call().map(|call| {
                match preview.and_then(|p| p.release.as_ref()) {
                    Some(r) => (
                        r.title.clone(),
                        format!(
                            "{}{}",
                            r.call,
                            r.branch.map(|b| format!(" → {b}")).unwrap_or_default()
                        ),
                    ),
                    None => {
                        let title = app.reference().title();
                        let call = call
                            .strip_prefix(&title)
                            .map_or(call.clone(), |c| c.trim_start().to_string());
                        (title, call)
                    }
                }
            }),
            providers: app.reference().families(),
            family: app.family(),
            call: doc.and_then(|d| header::Traced::of(&d.session.settings)),
        },
    );
    app.list.draw(
        frame,
        areas.list,
        ui,
        ListView {
            messages: app.messages(),
            preview,
            focused: app.focus == Focus::List,
        },
    );
    let who = app
        .editor
        .for_index
        .and_then(|i| app.messages().get(i).map(|m| (i, m)))
        .map(|(i, m)| {
            let (name, role) = app.list.speaker(i, m);
            format!(" · {name} ({role})")
        })
        .unwrap_or_default();
    app.editor.draw(
        frame,
        areas.editor,
        ui,
        EditorView {
            who: &who,
            focused: app.focus == Focus::Editor,
        },
    );
    let idle = app.idle_reason();
    let load_error = doc.and_then(|d| d.load_error.as_deref());
    // The lint panel takes the lower part of the request's column.
    let (request_column, lint_area) = if app.lint.open || app.request.explain {
        let split = Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Percentage(60), Constraint::Percentage(40)])
            .split(areas.output);
        (split[0], Some(split[1]))
    } else {
        (areas.output, None)
    };
    if let (Some(area), true) = (lint_area, app.request.explain) {
        // The rules behind the lines on screen come first.
        let top = app.request.scroll;
        let on_screen: Vec<&'static str> = preview
            .and_then(|p| p.explanation.as_deref())
            .map(|w| {
                w.line_rules
                    .iter()
                    .skip(top)
                    .take(request_column.height as usize)
                    .flatten()
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        Explain.draw(
            frame,
            area,
            ui,
            &ExplainView {
                why: preview.and_then(|p| p.explanation.as_deref()),
                provider: app.formatter.provider,
                on_screen: &on_screen,
            },
        );
    } else if let Some(area) = lint_area {
        app.lint.draw(
            frame,
            area,
            ui,
            LintView {
                findings: preview.and_then(|p| p.lint.as_deref()).map(Vec::as_slice),
                selected: app.list.selected,
            },
        );
    }
    // A live reply takes the lower part of the request's column.
    let (output_area, reply_area) = if app.replies.visible() {
        let split = Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
            .split(request_column);
        (split[0], Some(split[1]))
    } else {
        (request_column, None)
    };
    if let Some(area) = reply_area {
        app.replies.draw(frame, area, ui, ());
    }
    if app.compare.open {
        let compared = app.compare.shown(preview.and_then(|p| p.compare.clone()));
        app.compare.draw(
            frame,
            output_area,
            ui,
            CompareView {
                compared: compared.as_deref(),
                focused: app.focus == Focus::Output,
                updating: preview.is_some_and(|p| p.generation < app.generation),
            },
        );
    } else {
        app.request.draw(
            frame,
            output_area,
            ui,
            &RequestView {
                preview,
                formatter: app.formatter,
                selected: app.selected_lines(),
                stale: load_error.is_some() && doc.is_some(),
                updating: preview.is_some_and(|p| p.generation < app.generation),
                focused: app.focus == Focus::Output,
                syntax: &app.syntax,
                idle: idle.as_deref(),
            },
        );
    }
    app.meter.draw(
        frame,
        budget_area,
        ui,
        &budget::BudgetView {
            preview,
            budget: app.budget(),
            idle: idle.is_some(),
            prices: &app.prices,
        },
    );
    Truncation.draw(frame, truncation_area, ui, (preview, idle.is_some()));
    Status.draw(
        frame,
        status_area,
        ui,
        &StatusView {
            search_input: app.request.search_input.as_deref(),
            load_error,
            last_reload: app.last_reload.as_deref(),
            status: &app.status,
            scope: app.footer_scope(),
        },
    );
    if let Some(p) = &app.popup {
        p.draw(frame, area, ui, &file);
    }
}

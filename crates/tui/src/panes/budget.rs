//! The budget meter: the request's tokens against the session's budget (or
//! the model's context window), the tokenizer, the input's cost at the
//! price table's rate (`tokens::cost`), and the breakdown.

use super::{columns, pane_block};
use crate::lines::fit_items;
use crate::theme::Palette;
use crate::worker::{CacheLine, Preview, ReleaseInfo};
use formatscope_core::formatter::Provider;
use formatscope_core::text::{count_of, plural, thousands, thousands_signed};
use formatscope_core::tokens::cost::PriceTable;
use formatscope_core::tokens::Category;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

/// What the budget pane draws, besides its own state.
#[derive(Clone, Copy)]
pub struct BudgetView<'a> {
    pub preview: Option<&'a Preview>,
    pub budget: Option<i64>,
    pub idle: bool,
    /// The price table the cost is read from.
    pub prices: &'a Result<PriceTable, String>,
}

/// The budget meter. Its one piece of state is the provider's own count
/// (`R`): for which preview generation and provider, and the count or why
/// not. Only the meter shows it, so it lives here, not in the app.
#[derive(Debug, Default)]
pub struct BudgetPane {
    pub remote: Option<(u64, Provider, Result<u64, String>)>,
}

impl super::Component for BudgetPane {
    type Context<'a> = ();
    type Props<'a> = &'a BudgetView<'a>;

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: &BudgetView<'_>) {
        // The remote count holds for the request it counted only.
        let remote = self
            .remote
            .as_ref()
            .filter(|(g, p, _)| {
                view.preview
                    .is_some_and(|pv| pv.generation == *g && pv.formatter.provider == *p)
            })
            .map(|(_, _, r)| r);
        draw(frame, area, ui, view, remote)
    }
}

fn draw(
    frame: &mut Frame,
    area: Rect,
    ui: &Palette,
    view: &BudgetView<'_>,
    remote: Option<&Result<u64, String>>,
) {
    let BudgetView {
        preview,
        budget,
        idle,
        prices,
    } = *view;
    let block = pane_block(ui, Line::from(" Budget "), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (width, height) = (inner.width as usize, inner.height as usize);
    if let Some(r) = preview.and_then(|p| p.release.as_ref()) {
        let lines = release_note(r, width, height);
        frame.render_widget(
            Paragraph::new(lines.into_iter().map(Line::from).collect::<Vec<_>>())
                .style(Style::default().fg(ui.muted)),
            inner,
        );
        return;
    }
    let Some(report) = preview.and_then(|p| p.report.as_ref()) else {
        // Counted or failed: a preview without a report will never get one.
        let text = match preview {
            None if idle => "no session",
            None => "counting…",
            Some(_) => "no count: the request does not format (see the request pane)",
        };
        frame.render_widget(
            Paragraph::new(text)
                .style(Style::default().fg(ui.muted))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    };
    let (used, limit, what) = match budget {
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
    let exact = if budget.is_some_and(|b| b > 0) {
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
            Constraint::Length(u16::from(preview.is_some_and(|p| p.cache.is_some()))),
        ])
        .split(inner);
    if let Some(cache) = preview.and_then(|p| p.cache.as_ref()) {
        let price = prices
            .as_ref()
            .ok()
            .and_then(|t| t.price_for(report.formatter.provider, &report.model.model));
        frame.render_widget(
            cache_line(ui, cache, price.as_ref(), rows[3].width as usize),
            rows[3],
        );
    }
    // The longest label that fits: figures are dropped whole, never cut.
    let (used, limit) = (thousands_signed(used), thousands_signed(limit));
    let percent = format!("{:.0}%", ratio * 100.0);
    let label = [
        format!(
            "{approx}{used} / {limit} {what} ({percent}) · {}",
            cost_text(report, prices)
        ),
        format!("{approx}{used} / {limit} {what} ({percent})"),
        format!("{approx}{used} / {limit} ({percent})"),
        format!("{approx}{used}/{limit}"),
        percent,
    ]
    .into_iter()
    .find(|l| columns(l) <= width)
    .unwrap_or_default();
    let gauge = Gauge::default()
        .gauge_style(Style::default().fg(colour))
        .ratio(ratio.clamp(0.0, 1.0))
        .label(label);
    frame.render_widget(gauge, rows[0]);
    let tokenizer = tokenizer_line(report, remote, width);
    frame.render_widget(
        Paragraph::new(tokenizer).style(Style::default().fg(ui.muted)),
        rows[1],
    );
    frame.render_widget(
        Paragraph::new(breakdown(ui, report, width, rows[2].height as usize)),
        rows[2],
    );
}

/// What another release's request is counted at, and why it has no
/// budget, in the pane's lines (the truncation pane says why in full).
fn release_note(r: &ReleaseInfo, width: usize, height: usize) -> Vec<String> {
    let short_title = r.title.strip_prefix("AgentScope ").unwrap_or(&r.title);
    let mut items: Vec<Vec<String>> = Vec::new();
    match &r.counted {
        Some((Ok(n), model)) => items.push(vec![
            format!(
                "{} by the provider's tokenizer ({model}).",
                count_of(*n, "token", "tokens")
            ),
            format!(
                "{} by the provider's tokenizer.",
                count_of(*n, "token", "tokens")
            ),
            format!(
                "{} (provider's tokenizer).",
                count_of(*n, "token", "tokens")
            ),
        ]),
        Some((Err(e), _)) => items.push(vec![
            format!("Not counted: {e}."),
            "Not counted here.".to_string(),
        ]),
        None => {}
    }
    if let Some(e) = r.estimate {
        let e = thousands(e);
        items.push(vec![
            format!("{}'s own estimate: {e} tokens.", r.title),
            format!("{short_title}'s own estimate: {e}."),
            format!("Its own estimate: {e}."),
        ]);
    }
    if !r.lost.is_empty() {
        let n = r.lost.len() as i64;
        let blocks = count_of(n, "block", "blocks");
        let are = plural(n, "is", "are");
        items.push(vec![
            format!("{blocks} it cannot hold {are} left out (listed in the request)."),
            format!("{blocks} left out (see the request)."),
        ]);
    }
    items.push(vec![
        format!(
            "No budget: {}.",
            r.no_budget.unwrap_or("it does not count here")
        ),
        "No budget in this release (see Truncation).".to_string(),
        "No budget here.".to_string(),
    ]);
    items.push(vec!["V goes on to the next release.".to_string()]);
    fit_items(&items, width, height)
}

/// What counted the request, and exactly what of it is an estimate, in
/// `width` columns; or the provider's own count (`R`).
fn tokenizer_line(
    report: &formatscope_core::budget::TokenReport,
    remote: Option<&Result<u64, String>>,
    width: usize,
) -> String {
    let ours = format!(
        "{}{}",
        if report.exact { "" } else { "≈" },
        thousands_signed(report.total)
    );
    let candidates: Vec<String> = match remote {
        // The provider's own counter: exact, beside ours.
        Some(Ok(n)) => {
            let n = thousands(*n);
            let p = report.formatter.provider;
            vec![
                format!("{p} counts {n} · exact (ours {ours})"),
                format!("{p}: {n} exact (ours {ours})"),
                format!("{p}: {n} exact"),
            ]
        }
        Some(Err(e)) => vec![format!("remote count failed: {e}")],
        None => {
            let spec = &report.model.tokenizer;
            let mut estimated: Vec<&str> = report
                .exact_categories
                .iter()
                .filter(|(c, exact)| !exact && report.by_category.get(*c) != 0)
                .map(|(c, _)| c.label())
                .collect();
            if !report.tool_schemas_exact && report.tool_schemas != 0 {
                estimated.push("tool schemas");
            }
            let name = spec.name;
            let describe = spec.describe();
            if !spec.exact_count() || (!report.exact && estimated.is_empty()) {
                // The tokenizer itself is an estimate: every figure is.
                vec![
                    format!("provider tokenizer {describe} · estimate"),
                    format!("tokenizer {describe}"),
                    format!("tokenizer ≈ {name} · estimate"),
                    format!("≈ {name} · estimate"),
                ]
            } else if estimated.is_empty() {
                vec![
                    format!("provider tokenizer {describe} · exact"),
                    format!("tokenizer {name} · exact"),
                    format!("{name} · exact"),
                ]
            } else {
                let which = estimated.join(", ");
                let short = estimated
                    .iter()
                    .map(|l| short_label(l))
                    .collect::<Vec<_>>()
                    .join(", ");
                vec![
                    format!("provider tokenizer {name} · exact, {which} ≈ estimated"),
                    format!("tokenizer {name} · exact, {which} ≈"),
                    format!("{name} · exact, {which} ≈"),
                    format!("{name} · exact, {short} ≈"),
                    format!("{name} · ≈ in part"),
                ]
            }
        }
    };
    let last = candidates.last().cloned().unwrap_or_default();
    candidates
        .into_iter()
        .find(|c| columns(c) <= width)
        .unwrap_or_else(|| {
            format!(
                "{}…",
                crate::lines::cut_to_columns(&last, width.saturating_sub(1))
            )
        })
}

/// The short label of a category, for a narrow pane.
fn short_label(label: &'static str) -> &'static str {
    match label {
        "system prompt" => "system",
        "conversation" => "conv.",
        "tool calls" => "calls",
        "tool results" => "results",
        "tool schemas" => "schemas",
        other => other,
    }
}

/// The tokens by category, each label with its figure on one line (never
/// a label on one line and its figure on the next), in `height` lines of
/// `width` columns: without the empty categories, then with shorter
/// labels, when they do not fit. A zero is exact (no `≈0`).
fn breakdown(
    ui: &Palette,
    report: &formatscope_core::budget::TokenReport,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let mut items: Vec<(&'static str, String)> = Vec::new();
    for cat in Category::ALL {
        let n = report.by_category.get(cat);
        if n == 0 && cat == Category::Media {
            continue;
        }
        let exact = n == 0
            || report
                .exact_categories
                .iter()
                .find(|(c, _)| *c == cat)
                .is_some_and(|(_, e)| *e);
        items.push((
            cat.label(),
            format!("{}{}", if exact { "" } else { "≈" }, thousands_signed(n)),
        ));
    }
    let schemas_exact = report.tool_schemas_exact || report.tool_schemas == 0;
    items.push((
        "tool schemas",
        format!(
            "{}{}",
            if schemas_exact { "" } else { "≈" },
            thousands_signed(report.tool_schemas)
        ),
    ));
    let lay_out = |short: bool, nonzero: bool| -> Vec<Vec<(String, String)>> {
        let mut lines: Vec<Vec<(String, String)>> = vec![Vec::new()];
        let mut used = 0;
        for (label, n) in &items {
            if nonzero && n == "0" {
                continue;
            }
            let label = if short { short_label(label) } else { label };
            let w = columns(label) + 1 + columns(n);
            let gap = if used > 0 { 2 } else { 0 };
            if used > 0 && used + gap + w > width {
                lines.push(Vec::new());
                used = 0;
            }
            let gap = if used > 0 { 2 } else { 0 };
            used += gap + w;
            if let Some(line) = lines.last_mut() {
                line.push((label.to_string(), n.clone()));
            }
        }
        lines
    };
    let mut lines = lay_out(false, false);
    for (short, nonzero) in [(false, true), (true, false), (true, true)] {
        if lines.len() <= height {
            break;
        }
        lines = lay_out(short, nonzero);
    }
    lines.truncate(height);
    lines
        .into_iter()
        .map(|line| {
            let mut spans = Vec::new();
            for (k, (label, n)) in line.into_iter().enumerate() {
                if k > 0 {
                    spans.push(Span::raw("  "));
                }
                spans.push(Span::styled(
                    format!("{label} "),
                    Style::default().fg(ui.muted),
                ));
                spans.push(Span::styled(n, Style::default().fg(ui.text)));
            }
            Line::from(spans)
        })
        .collect()
}

/// The whole request's input cost (`$0.000714`, `≈` when its count is an
/// estimate; all of it, tool schemas too, even when the gauge shows the
/// messages against `max_tokens`), or why there is no price: never a guess.
fn cost_text(
    report: &formatscope_core::budget::TokenReport,
    prices: &Result<PriceTable, String>,
) -> String {
    let approx = if report.exact { "" } else { "≈" };
    let tokens = u64::try_from(report.total).unwrap_or(0);
    match prices {
        Err(_) => "price file error (see `formatscope count`)".to_string(),
        Ok(table) => match table.price_for(report.formatter.provider, &report.model.model) {
            Some(p) => format!("{approx}${:.6}", p.cost(tokens, 0, 0).total()),
            None => "price unknown".to_string(),
        },
    }
}

/// How much of the prompt a provider's prompt cache can reuse since the
/// earlier version (as `formatscope diff --right-session` counts it), and
/// where it breaks.
fn cache_line<'a>(
    ui: &Palette,
    cache: &Result<CacheLine, String>,
    price: Option<&formatscope_core::tokens::cost::Price>,
    width: usize,
) -> Paragraph<'a> {
    use formatscope_core::diff::cache::Break;
    let c = match cache {
        Ok(c) => c,
        Err(e) => {
            return Paragraph::new(format!("prompt cache: {e}"))
                .style(Style::default().fg(ui.muted))
        }
    };
    let p = &c.prompt;
    let approx = if p.exact { "" } else { "≈" };
    let (tokens, of) = (thousands_signed(p.tokens), thousands_signed(p.of));
    let whole = p.breaks.is_none();
    // The long form when it fits, else a short one (the pane is narrow).
    let (long, short) = match &p.breaks {
        None => (
            format!(
                "prompt cache since {}: all {approx}{of} prompt tokens reusable, nothing changed",
                c.against
            ),
            format!("cache since {}: all {approx}{of} tok", c.against),
        ),
        Some(Break::Model { before, now }) => (
            format!(
                "prompt cache since {}: nothing reusable, the model changed ({before} → {now})",
                c.against
            ),
            "cache: 0 tok · model changed".to_string(),
        ),
        Some(Break::Tools) => (
            format!(
                "prompt cache since {}: nothing reusable, the tool schemas changed",
                c.against
            ),
            "cache: 0 tok · tools changed".to_string(),
        ),
        Some(Break::PackedMessage {
            message, pointer, ..
        }) => (
            format!(
                "prompt cache since {}: {approx}{tokens} of {approx}{of} prompt tokens reusable · breaks at message {message} ({pointer})",
                c.against
            ),
            format!("cache: {approx}{tokens}/{of} tok · breaks at #{message}"),
        ),
    };
    // What reading the reusable prefix from the cache saves, at the price
    // table's cached rate (no cached price: no saving claimed).
    let saving = price
        .and_then(|pr| pr.cache_saving(u64::try_from(p.tokens).unwrap_or(0)))
        .filter(|x| *x > 0.0)
        .map(|x| format!(" · saves {approx}${x:.6}"))
        .unwrap_or_default();
    // The longest that fits, the saving kept longest after the figures.
    let compact = match &p.breaks {
        Some(Break::PackedMessage { message, .. }) => {
            format!("cache {approx}{tokens}/{of} · breaks #{message}")
        }
        _ => short.clone(),
    };
    let tiny = short
        .split(" · breaks")
        .next()
        .unwrap_or(&short)
        .to_string();
    let candidates = [
        format!("{long}{saving}"),
        format!("{short}{saving}"),
        format!("{compact}{saving}"),
        format!("{tiny}{saving}"),
        compact,
    ];
    // None fits: the shortest, its figures whole, cut at a word's end.
    let text = candidates
        .iter()
        .find(|c| columns(c) <= width)
        .cloned()
        .unwrap_or_else(|| {
            crate::lines::wrap_words(&tiny, width)
                .into_iter()
                .next()
                .unwrap_or_default()
        });
    Paragraph::new(text).style(Style::default().fg(if whole { ui.ok } else { ui.warning }))
}

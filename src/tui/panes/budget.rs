//! The budget meter: the request's tokens against the session's budget (or
//! the model's context window), the tokenizer, the input's cost at the
//! price table's rate (`tokens::cost`), and the breakdown.

use super::pane_block;
use crate::tokens::cost::PriceTable;
use crate::tokens::Category;
use crate::tui::theme::Palette;
use crate::tui::worker::{CacheLine, Preview};
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};
use ratatui::Frame;

/// What the budget pane draws.
#[derive(Clone, Copy)]
pub struct BudgetView<'a> {
    pub preview: Option<&'a Preview>,
    pub budget: Option<i64>,
    pub idle: bool,
    /// The provider's own count of the request on screen (`R`).
    pub remote: Option<&'a Result<u64, String>>,
    /// The price table the cost is read from.
    pub prices: &'a Result<PriceTable, String>,
}

pub fn draw(frame: &mut Frame, area: Rect, ui: &Palette, view: &BudgetView<'_>) {
    let BudgetView {
        preview,
        budget,
        idle,
        remote,
        prices,
    } = *view;
    let block = pane_block(ui, Line::from(" Budget "), false);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(r) = preview.and_then(|p| p.release.as_ref()) {
        let mut text = String::new();
        match &r.counted {
            Some((Ok(n), model)) => text.push_str(&format!(
                "{n} tokens by the provider's tokenizer ({model}). "
            )),
            Some((Err(e), _)) => text.push_str(&format!("not counted: {e}. ")),
            None => {}
        }
        if let Some(e) = r.estimate {
            text.push_str(&format!("{}'s own estimate: {e}. ", r.title));
        }
        text.push_str(&format!(
            "{} ({}) has no budget: {}. V goes on to the next release.",
            r.title,
            r.call,
            r.no_budget.unwrap_or("it does not count here")
        ));
        if !r.lost.is_empty() {
            text.push_str(&format!(
                " {} block(s) it cannot hold are left out (listed in the request).",
                r.lost.len()
            ));
        }
        frame.render_widget(
            Paragraph::new(text)
                .style(Style::default().fg(ui.muted))
                .wrap(Wrap { trim: true }),
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
    let gauge = Gauge::default()
        .gauge_style(Style::default().fg(colour))
        .ratio(ratio.clamp(0.0, 1.0))
        .label(format!(
            "{approx}{used} / {limit} {what} ({:.0}%) · {}",
            ratio * 100.0,
            cost_text(report, prices)
        ));
    frame.render_widget(gauge, rows[0]);
    let tokenizer = match remote {
        // The provider's own counter: exact, beside ours.
        Some(Ok(n)) => format!(
            "{} counts {n} · exact (ours {}{})",
            report.formatter.provider,
            if report.exact { "" } else { "≈" },
            report.total
        ),
        Some(Err(e)) => format!("remote count failed: {e}"),
        None => format!(
            "provider tokenizer {} {}",
            report.model.tokenizer.describe(),
            if report.exact {
                "· exact"
            } else {
                "· estimate"
            }
        ),
    };
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

/// The whole request's input cost (`$0.000714`, `≈` when its count is an
/// estimate; all of it, tool schemas too, even when the gauge shows the
/// messages against `max_tokens`), or why there is no price: never a guess.
fn cost_text(report: &crate::budget::TokenReport, prices: &Result<PriceTable, String>) -> String {
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
    price: Option<&crate::tokens::cost::Price>,
    width: usize,
) -> Paragraph<'a> {
    use crate::diff::cache::Break;
    let c = match cache {
        Ok(c) => c,
        Err(e) => {
            return Paragraph::new(format!("prompt cache: {e}"))
                .style(Style::default().fg(ui.muted))
        }
    };
    let p = &c.prompt;
    let approx = if p.exact { "" } else { "≈" };
    let whole = p.breaks.is_none();
    // The long form when it fits, else a short one (the pane is narrow).
    let (long, short) = match &p.breaks {
        None => (
            format!(
                "prompt cache since {}: all {approx}{} prompt tokens reusable, nothing changed",
                c.against, p.of
            ),
            format!("cache since {}: all {approx}{} tok", c.against, p.of),
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
                "prompt cache since {}: {approx}{} of {approx}{} prompt tokens reusable · breaks at message {message} ({pointer})",
                c.against, p.tokens, p.of
            ),
            format!("cache: {approx}{}/{} tok · breaks at #{message}", p.tokens, p.of),
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
            format!("cache {approx}{}/{} · breaks #{message}", p.tokens, p.of)
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
    ];
    let text = candidates
        .into_iter()
        .find(|c| c.chars().count() <= width)
        .unwrap_or(short);
    Paragraph::new(text).style(Style::default().fg(if whole { ui.ok } else { ui.warning }))
}

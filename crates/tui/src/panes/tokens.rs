//! The request pane's token view (`v` → tokens): each message's text with
//! its tokens in alternating shades, spaces as `·` and newlines as `↵`, a
//! head line per message with its count, and the token under the cursor
//! (`h`/`l` a token, `j`/`k` a line) with its id and bytes in the last
//! row. The worker tokenised the request once; this only draws the rows
//! on screen and moves the cursor.

use super::columns;
use super::Outcome;
use crate::keymap::Action;
use crate::lines::Lines;
use crate::theme::Palette;
use crate::worker::{Preview, Shown, TokenRow, TokenView};
use formatscope_core::formatter::Provider;
use formatscope_core::tokens::offsets::{has_offsets, push_visible, visible};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell;
use unicode_width::UnicodeWidthChar;

/// The token under the cursor, counted across the whole request.
#[derive(Debug, Default)]
pub struct TokenCursor {
    pub at: usize,
    /// Rows of text at the last draw (the cursor is kept among them).
    pub height: Cell<usize>,
}

/// The token view of `preview`, when that is what it lays out.
pub fn shown(preview: Option<&Preview>) -> Option<&TokenView> {
    preview
        .filter(|p| p.shown == Shown::Tokens)
        .and_then(|p| p.tokens.as_deref())
}

/// What the token view reads to take a key: the request pane's scroll
/// (which it moves to keep the cursor on screen), the width it was drawn
/// at, and the preview.
pub struct TokenContext<'a> {
    pub scroll: &'a mut usize,
    pub width: &'a Cell<usize>,
    pub preview: Option<&'a Preview>,
}

/// What it draws besides its cursor: the request pane's scroll, the width
/// to remember, the token view, the request's lines and the provider.
pub struct TokenProps<'a> {
    pub scroll: usize,
    pub width_seen: &'a Cell<usize>,
    pub view: &'a TokenView,
    pub plain: &'a Lines,
    pub provider: Provider,
}

/// The token view, a view of the request pane: its state is its cursor.
impl super::Component for TokenCursor {
    type Context<'a> = TokenContext<'a>;
    type Props<'a> = TokenProps<'a>;

    fn handle(&mut self, key: super::Key, cx: TokenContext<'_>) -> Outcome {
        key.action
            .and_then(|action| handle(self, cx.scroll, cx.width, action, cx.preview))
            .unwrap_or(Outcome::Pass)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, p: TokenProps<'_>) {
        draw(
            self,
            p.scroll,
            p.width_seen,
            frame,
            area,
            ui,
            p.view,
            p.plain,
            p.provider,
        )
    }
}

/// The token view's own keys: `h`/`l` move a token, `j`/`k` a line (when
/// the pane has the focus, as they scroll it in the other views). `None`
/// for the keys it leaves to the pane.
fn handle(
    token: &mut TokenCursor,
    scroll: &mut usize,
    width: &Cell<usize>,
    action: Action,
    preview: Option<&Preview>,
) -> Option<Outcome> {
    let view = shown(preview)?;
    let last = view.total_tokens.checked_sub(1)?;
    let at = token.at.min(last);
    // Scrolled away from the cursor (page keys, the wheel, a search): it
    // starts again from the first token on screen.
    if matches!(
        action,
        Action::Left | Action::Right | Action::Up | Action::Down
    ) {
        if let Some(first) = first_on_screen(token, *scroll, view, at) {
            token.at = first;
            return Some(Outcome::done());
        }
    }
    token.at = match action {
        Action::Left => at.saturating_sub(1),
        Action::Right => (at + 1).min(last),
        Action::Up | Action::Down => vertical(view, at, action == Action::Down),
        _ => return None,
    };
    reveal(token, scroll, width, view);
    Some(Outcome::done())
}

/// The first token on screen, when the cursor's row is not on it.
fn first_on_screen(
    token: &TokenCursor,
    scroll: usize,
    view: &TokenView,
    at: usize,
) -> Option<usize> {
    let height = token.height.get();
    let row = view.locate(at).and_then(|(m, i)| view.row_of(m, i))?;
    if height == 0 || (scroll..scroll + height).contains(&row) {
        return None;
    }
    view.rows
        .iter()
        .enumerate()
        .skip(scroll)
        .take(height)
        .find_map(|(_, r)| match r {
            TokenRow::Text { message, token, .. } => {
                let m = view.messages.get(*message)?;
                m.spans.as_ref().map(|_| m.first + token)
            }
            _ => None,
        })
}

/// The token a line below (or above) the cursor, at about its column.
fn vertical(view: &TokenView, at: usize, down: bool) -> usize {
    let Some((m, i)) = view.locate(at) else {
        return at;
    };
    let Some(row) = view.row_of(m, i) else {
        return at;
    };
    let col = start_column(view, row, m, i);
    let mut r = row;
    loop {
        r = match (down, r.checked_sub(1)) {
            (true, _) => r + 1,
            (false, Some(up)) => up,
            (false, None) => return at,
        };
        let Some(found) = view.rows.get(r) else {
            return at;
        };
        let TokenRow::Text {
            message,
            bytes,
            token,
        } = found
        else {
            continue;
        };
        let msg = &view.messages[*message];
        let Some(spans) = msg.spans.as_ref() else {
            continue;
        };
        // The last token on the row that starts at or left of the column,
        // the columns summed as the tokens go (not counted from the row's
        // start for each).
        let mut pick = *token;
        let (mut from, mut at_col) = (bytes.start, 0);
        for (k, (_, span)) in spans.iter().enumerate().skip(*token) {
            if span.start >= bytes.end {
                break;
            }
            if span.start > bytes.start {
                let mut cut = span.start;
                while !msg.text.is_char_boundary(cut) {
                    cut -= 1;
                }
                if let Some(t) = msg.text.get(from..cut) {
                    at_col += columns(&visible(t, "↵"));
                    from = cut;
                }
                if at_col > col {
                    break;
                }
            }
            pick = k;
        }
        let n = msg.first + pick;
        if n != at {
            return n;
        }
    }
}

/// Columns on its row before token `i` of message `m` (row `row`).
fn start_column(view: &TokenView, row: usize, m: usize, i: usize) -> usize {
    let (Some(TokenRow::Text { bytes, .. }), Some(msg)) =
        (view.rows.get(row), view.messages.get(m))
    else {
        return 0;
    };
    let start = msg
        .spans
        .as_ref()
        .and_then(|s| s.get(i))
        .map_or(bytes.start, |(_, r)| r.start.max(bytes.start));
    // A token may start inside a character (Qwen's byte pieces): count to
    // the character's start.
    let mut cut = start;
    while !msg.text.is_char_boundary(cut) {
        cut -= 1;
    }
    msg.text
        .get(bytes.start..cut)
        .map_or(0, |t| columns(&visible(t, "↵")))
}

/// Scrolls the cursor's row into view. Rows wrap at the pane's width, so
/// the rows from the top to the cursor's must fit the pane's height.
fn reveal(token: &TokenCursor, scroll: &mut usize, width: &Cell<usize>, view: &TokenView) {
    let Some((m, i)) = view.locate(token.at) else {
        return;
    };
    let Some(row) = view.row_of(m, i) else {
        return;
    };
    let (height, width) = (token.height.get(), width.get());
    if height == 0 || width == 0 {
        // Never drawn: nothing is on screen to keep the cursor in.
        return;
    }
    if row < *scroll {
        // The message's head line too, when the cursor is on its first line.
        let head = matches!(
            view.rows.get(row.wrapping_sub(1)),
            Some(TokenRow::Header(_))
        );
        *scroll = if head { row - 1 } else { row };
        return;
    }
    // A row taller than the pane counts as one line more than it: its
    // columns are counted that far only (a 10 MB line is not measured
    // whole at every key).
    let cap = (height + 1).saturating_mul(width);
    let tall = |r: usize| row_columns(view, r, cap).div_ceil(width).max(1);
    let mut used: usize = (*scroll..=row).map(tall).sum();
    while used > height && *scroll < row {
        used -= tall(*scroll);
        *scroll += 1;
    }
}

/// Columns row `r` takes unwrapped, counted up to `cap`.
fn row_columns(view: &TokenView, r: usize, cap: usize) -> usize {
    match view.rows.get(r) {
        Some(TokenRow::Text { message, bytes, .. }) => view
            .messages
            .get(*message)
            .and_then(|m| m.text.get(bytes.clone()))
            .map_or(0, |t| capped_columns(t, cap)),
        Some(TokenRow::Note(n)) => columns(n),
        // Head lines are cut, not wrapped.
        _ => 1,
    }
}

/// Columns `text` takes drawn (`visible`), counted until `cap`.
fn capped_columns(text: &str, cap: usize) -> usize {
    within(text, cap).1
}

/// The bytes of `text` that take `cap` columns drawn (or all of it), and
/// the columns they take.
fn within(text: &str, cap: usize) -> (usize, usize) {
    let mut used = 0;
    let mut drawn = String::new();
    for (i, c) in text.char_indices() {
        if used >= cap {
            return (i, used);
        }
        drawn.clear();
        let mut buf = [0u8; 4];
        push_visible(&mut drawn, c.encode_utf8(&mut buf), "↵");
        used += columns(&drawn);
    }
    (text.len(), used)
}

/// Why a view has no tokens to show, when its vocabulary gives no ids:
/// what counts instead and where the counts are.
pub fn no_ids(view: &TokenView, provider: Provider) -> Option<String> {
    if has_offsets(view.spec.vocab) {
        return None;
    }
    let spec = &view.spec;
    let vocab = spec.vocab.name();
    let why = if spec.exact_count() {
        format!(
            "formatscope counts with {provider}'s own tokenizer ({}) but cannot show its token ids here.",
            spec.name
        )
    } else {
        format!(
            "formatscope has no {provider} tokenizer: its counts are an estimate ({}: the {vocab} vocabulary ×{}), and that vocabulary's token ids cannot be shown here.",
            spec.name, spec.factor
        )
    };
    let remote = if matches!(provider, Provider::Anthropic | Provider::Gemini) {
        format!(" R asks {provider} for its own count.")
    } else {
        String::new()
    };
    Some(format!(
        "No token view for {provider}: {why} The counts{} are in the budget pane and beside each message in the list.{remote}",
        if spec.exact_count() { "" } else { " (≈)" }
    ))
}

/// The line over an estimate's tokens, in its forms, longest first: they
/// are the borrowed vocabulary's, not the provider's.
fn estimate_note(view: &TokenView, provider: Provider) -> Option<Vec<String>> {
    let spec = &view.spec;
    let vocab = spec.vocab.name();
    let factor = spec.factor;
    (!spec.exact_count()).then(|| {
        vec![
            format!("≈ these are {vocab}'s tokens, which the estimate scales ×{factor}: not {provider}'s own tokens"),
            format!("≈ {vocab}'s tokens (the estimate's, ×{factor}), not {provider}'s own"),
            format!("≈ {vocab}'s tokens, not {provider}'s"),
            format!("≈ not {provider}'s tokens"),
        ]
    })
}

/// Draws the rows on screen and the cursor's line under them; or, for a
/// vocabulary without ids, why there are none.
#[allow(clippy::too_many_arguments)]
fn draw(
    token: &TokenCursor,
    scroll: usize,
    width_seen: &Cell<usize>,
    frame: &mut Frame,
    area: Rect,
    ui: &Palette,
    view: &TokenView,
    plain: &Lines,
    provider: Provider,
) {
    if let Some(why) = no_ids(view, provider) {
        token.height.set(0);
        let lines: Vec<Line> =
            crate::lines::wrap_words(&why, (area.width as usize).saturating_sub(1))
                .into_iter()
                .map(|l| Line::styled(format!(" {l}"), Style::default().fg(ui.muted)))
                .collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let note = estimate_note(view, provider);
    let (area, note_area) = match &note {
        Some(_) if area.height > 2 => (
            Rect {
                y: area.y + 1,
                height: area.height - 1,
                ..area
            },
            Some(Rect { height: 1, ..area }),
        ),
        _ => (area, None),
    };
    if let (Some(note), Some(at)) = (&note, note_area) {
        let width = (at.width as usize).saturating_sub(1);
        let text = note
            .iter()
            .find(|n| columns(n) <= width)
            .or(note.last())
            .cloned()
            .unwrap_or_default();
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(" {text}"),
                Style::default().fg(ui.warning),
            )),
            at,
        );
    }
    let height = (area.height as usize).saturating_sub(1);
    let width = (area.width as usize).saturating_sub(1);
    token.height.set(height);
    width_seen.set(width);
    let cursor = view
        .total_tokens
        .checked_sub(1)
        .and_then(|last| view.locate(token.at.min(last)));
    let start = scroll.min(view.rows.len().saturating_sub(1));
    let mut lines = Vec::with_capacity(area.height as usize);
    for r in start..view.rows.len() {
        if lines.len() >= height {
            break;
        }
        let spans = match &view.rows[r] {
            TokenRow::Header(_) => vec![vec![
                Span::raw(" "),
                Span::styled(
                    plain.get(r).unwrap_or_default().to_string(),
                    Style::default()
                        .fg(ui.header_fg)
                        .add_modifier(Modifier::BOLD),
                ),
            ]],
            TokenRow::Note(note) => wrap(
                vec![Span::styled(note.clone(), Style::default().fg(ui.muted))],
                width,
            ),
            TokenRow::Text {
                message,
                bytes,
                token,
            } => {
                // What fits in the lines left: a long line is drawn as far
                // as the pane shows it, not whole at every frame.
                let room = (height - lines.len()).saturating_mul(width.max(1));
                let row = text_row(view, *message, bytes.clone(), *token, cursor, ui, room);
                wrap(row, width)
            }
        };
        lines.extend(spans.into_iter().map(Line::from));
    }
    lines.truncate(height);
    while lines.len() < height {
        lines.push(Line::default());
    }
    lines.push(footer(view, cursor, ui, area.width as usize));
    frame.render_widget(Paragraph::new(lines), area);
}

/// A row's spans cut into lines of `width` columns, each after a
/// one-column gutter (a token cut by the edge goes on in the next line,
/// in its shade).
fn wrap(spans: Vec<Span<'static>>, width: usize) -> Vec<Vec<Span<'static>>> {
    let width = width.max(1);
    let mut lines = vec![vec![Span::raw(" ")]];
    let mut used = 0;
    for span in spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !piece.is_empty() {
                    let done = std::mem::take(&mut piece);
                    if let Some(line) = lines.last_mut() {
                        line.push(Span::styled(done, span.style));
                    }
                }
                lines.push(vec![Span::raw(" ")]);
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if let Some(line) = lines.last_mut().filter(|_| !piece.is_empty()) {
            line.push(Span::styled(piece, span.style));
        }
    }
    lines
}

/// One line of a message's text, token by token, as far as `room`
/// columns. A token that ends inside a character is drawn with the next
/// one (as `tokenize --show` does).
fn text_row(
    view: &TokenView,
    message: usize,
    bytes: std::ops::Range<usize>,
    token: usize,
    cursor: Option<(usize, usize)>,
    ui: &Palette,
    room: usize,
) -> Vec<Span<'static>> {
    let msg = &view.messages[message];
    let mut out = Vec::new();
    let base = Style::default().fg(ui.text);
    let Some(spans) = msg.spans.as_ref() else {
        let line = msg.text.get(bytes).unwrap_or_default();
        let end = within(line, room).0;
        out.push(Span::styled(visible(&line[..end], "↵"), base));
        return out;
    };
    let mut from = bytes.start;
    let mut used = 0;
    for (k, (_, r)) in spans.iter().enumerate().skip(token) {
        if from >= bytes.end || used > room {
            break;
        }
        let end = r.end.min(bytes.end);
        if end <= from || !msg.text.is_char_boundary(end) {
            continue;
        }
        let style = if cursor == Some((message, k)) {
            base.bg(ui.token_cursor).add_modifier(Modifier::BOLD)
        } else if k % 2 == 0 {
            base.bg(ui.token_a)
        } else {
            base.bg(ui.token_b)
        };
        let piece = visible(msg.text.get(from..end).unwrap_or_default(), "↵");
        used += columns(&piece);
        out.push(Span::styled(piece, style));
        from = end;
    }
    out
}

/// `message 3 · token 41 · id 1734 · bytes 201..205 · ' the'`, and the
/// request's total with its tokenizer, in `width` columns: shorter forms
/// of each when they do not fit, never a figure cut.
fn footer(
    view: &TokenView,
    cursor: Option<(usize, usize)>,
    ui: &Palette,
    width: usize,
) -> Line<'static> {
    let approx = if view.spec.exact_count() { "" } else { "≈" };
    let total: i64 = view.messages.iter().map(|m| m.count).sum();
    let total = formatscope_core::text::count_of(total, "token", "tokens");
    let totals = [
        format!("  {approx}{total} ({})", view.spec.name),
        format!("  {approx}{total}"),
        String::new(),
    ];
    let at: Vec<String> = cursor
        .and_then(|(m, i)| {
            let msg = view.messages.get(m)?;
            let (id, r) = msg.spans.as_ref()?.get(i)?;
            let text = String::from_utf8_lossy(msg.text.as_bytes().get(r.clone())?);
            let text = formatscope_core::text::escape_control(&text);
            let (start, end) = (r.start, r.end);
            Some(vec![
                format!(" message {m} · token {i} · id {id} · bytes {start}..{end} · '{text}'"),
                format!(" token {i} · id {id} · bytes {start}..{end} · '{text}'"),
                format!(" id {id} · '{text}'"),
            ])
        })
        .unwrap_or_else(|| {
            vec![
                " no token under the cursor".to_string(),
                " no token".to_string(),
            ]
        });
    let pairs = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (2, 2)];
    let (at, total) = pairs
        .iter()
        .filter_map(|&(a, t)| Some((at.get(a)?.clone(), totals[t].clone())))
        .find(|(a, t)| columns(a) + columns(t) <= width)
        .unwrap_or_else(|| {
            let last = at.last().cloned().unwrap_or_default();
            let cut = crate::lines::cut_to_columns(&last, width.saturating_sub(1));
            (format!("{cut}…"), String::new())
        });
    Line::from(vec![
        Span::styled(at, Style::default().fg(ui.header_fg).bg(ui.header_bg)),
        Span::styled(total, Style::default().fg(ui.muted)),
    ])
}

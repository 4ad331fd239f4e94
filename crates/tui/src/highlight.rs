//! JSON highlighting for the request pane, with syntect and the theme's
//! `.tmTheme`. A request is highlighted a message at a time, when a message
//! is first on screen ([`LazyLines`]), so a 10,000-message request costs
//! what is seen, not what is there. Huge pieces (more than
//! `SYNTECT_MAX_LINES`) are coloured line by line with the same theme's
//! scope colours, which is exact for pretty-printed JSON and fast.

use super::lines::Lines;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Highlighter, Theme};
use syntect::parsing::{Scope, SyntaxSet};

const SYNTECT_MAX_LINES: usize = 20_000;

/// A line's bytes the request pane may show: its start (the pane clips
/// each line to its width).
const SHOWN_BYTES: usize = 64 << 10;

/// `line` to [`SHOWN_BYTES`] (to a character's end), a string it cuts
/// closed there, so the highlighter reads the lines after it as it would
/// have (the closing quote is never on screen). Two lines that differ
/// only after the cut show the same, so they may share a highlighting.
fn shown_part(line: &str) -> Cow<'_, str> {
    if line.len() <= SHOWN_BYTES {
        return Cow::Borrowed(line);
    }
    let mut end = SHOWN_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let head = &line[..end];
    let (mut in_string, mut escaped) = (false, false);
    for b in head.bytes() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ => {}
        }
    }
    match (in_string, escaped) {
        // A cut right after a backslash: the escape's own character goes.
        (true, true) => Cow::Owned(format!("{}\"", &head[..head.len() - 1])),
        (true, false) => Cow::Owned(format!("{head}\"")),
        _ => Cow::Borrowed(head),
    }
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_nonewlines)
}

fn to_style(s: syntect::highlighting::Style) -> Style {
    let c = s.foreground;
    let mut style = Style::default().fg(Color::Rgb(c.r, c.g, c.b));
    if s.font_style.contains(FontStyle::BOLD) {
        style = style.add_modifier(Modifier::BOLD);
    }
    if s.font_style.contains(FontStyle::ITALIC) {
        style = style.add_modifier(Modifier::ITALIC);
    }
    style
}

/// Styled lines for pretty-printed JSON.
pub fn highlight_json(lines: &[String], theme: &Theme) -> Vec<Line<'static>> {
    if lines.len() > SYNTECT_MAX_LINES {
        return lines.iter().map(|l| fast_line(l, theme)).collect();
    }
    let set = syntaxes();
    let Some(syntax) = set.find_syntax_by_extension("json") else {
        return lines.iter().map(|l| Line::raw(l.clone())).collect();
    };
    let mut h = HighlightLines::new(syntax, theme);
    lines
        .iter()
        .map(|line| match h.highlight_line(line, set) {
            Ok(ranges) => Line::from(
                ranges
                    .into_iter()
                    .map(|(style, text)| Span::styled(text.to_string(), to_style(style)))
                    .collect::<Vec<_>>(),
            ),
            Err(_) => Line::raw(line.clone()),
        })
        .collect()
}

/// One pretty-printed JSON line coloured by token class with the theme's
/// colours for the same scopes syntect would give them.
fn fast_line(line: &str, theme: &Theme) -> Line<'static> {
    type Cached = std::sync::Mutex<Option<(String, [Style; 5])>>;
    static STYLES: OnceLock<Cached> = OnceLock::new();
    let styles = {
        let cell = STYLES.get_or_init(|| std::sync::Mutex::new(None));
        let mut guard = cell.lock().unwrap_or_else(|e| e.into_inner());
        let name = theme.name.clone().unwrap_or_default();
        match guard.as_ref() {
            Some((n, s)) if *n == name => *s,
            _ => {
                let h = Highlighter::new(theme);
                let style = |scope: &str| {
                    let scopes: Vec<Scope> = scope
                        .split(' ')
                        .filter_map(|s| Scope::new(s).ok())
                        .collect();
                    to_style(h.style_for_stack(&scopes))
                };
                let s = [
                    style("source.json meta.structure.dictionary.json meta.structure.dictionary.key.json string.quoted.double.json"),
                    style("source.json string.quoted.double.json"),
                    style("source.json constant.numeric.json"),
                    style("source.json constant.language.json"),
                    style("source.json punctuation.separator.json"),
                ];
                *guard = Some((name, s));
                s
            }
        }
    };
    let [key, string, number, language, punct] = styles;
    let mut spans = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let style = if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            if line[i..].trim_start().starts_with(':') {
                key
            } else {
                string
            }
        } else if c == b'-' || c.is_ascii_digit() {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || b"+-.".contains(&bytes[i]))
            {
                i += 1;
            }
            number
        } else if c.is_ascii_alphabetic() {
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            language
        } else {
            // One character (pretty JSON is ASCII outside strings, but be safe).
            i += line[i..].chars().next().map_or(1, char::len_utf8);
            if c.is_ascii_whitespace() {
                Style::default()
            } else {
                punct
            }
        };
        let end = i.min(line.len());
        if let Some(text) = line.get(start..end) {
            spans.push(Span::styled(text.to_string(), style));
        }
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::Theme as UiTheme;

    /// A clipped line keeps its first columns across spans, wide
    /// characters counted twice, zero-width ones kept with the character
    /// before, and its styles.
    #[test]
    fn a_line_is_clipped_to_its_first_columns() {
        let red = Style::default().fg(Color::Red);
        let line = Line::from(vec![
            Span::raw("ab"),
            Span::styled("中文e\u{301}xyz", red),
            Span::raw("tail"),
        ]);
        let text = |line: &Line<'static>| -> String {
            line.spans.iter().map(|s| s.content.as_ref()).collect()
        };
        assert_eq!(text(&clip(&line, 0)), "");
        assert_eq!(text(&clip(&line, 2)), "ab");
        assert_eq!(text(&clip(&line, 5)), "ab中");
        assert_eq!(text(&clip(&line, 7)), "ab中文e\u{301}");
        assert_eq!(text(&clip(&line, 100)), "ab中文e\u{301}xyztail");
        assert_eq!(clip(&line, 5).spans[1].style, red);
    }

    /// Within a frame a chunk's lines are highlighted once; a new frame
    /// reads the request it is given, not the last frame's.
    #[test]
    fn a_new_request_reads_its_own_lines_where_the_last_had_the_same_chunks() {
        let theme = UiTheme::load("dark").expect("dark");
        let request = |text: &str| {
            Lines::from(vec![
                "[".to_string(),
                "  {".to_string(),
                format!("    \"content\": \"{text}\""),
                "  }".to_string(),
                "]".to_string(),
            ])
        };
        let text = |line: Line<'static>| -> String {
            line.spans.iter().map(|s| s.content.as_ref()).collect()
        };
        let lazy = LazyLines::default();
        let chunks = vec![Range { start: 1, end: 4 }];
        let (old, new) = (Arc::new(request("old")), Arc::new(request("new")));
        assert!(text(lazy.line(&old, &chunks, 2, &theme.syntax, 80)).contains("old"));
        assert!(text(lazy.line(&old, &chunks, 3, &theme.syntax, 80)).contains('}'));
        assert!(text(lazy.line(&new, &chunks, 2, &theme.syntax, 80)).contains("new"));
    }

    #[test]
    fn a_line_of_megabytes_shows_its_start_coloured_as_a_short_one() {
        let theme = UiTheme::load("dark").expect("dark");
        let text = |line: Line<'static>| -> Vec<(String, Style)> {
            line.spans
                .iter()
                .map(|s| (s.content.to_string(), s.style))
                .collect()
        };
        let request = |text: &str| {
            Arc::new(Lines::from(vec![
                "[".to_string(),
                "  {".to_string(),
                format!("    \"content\": \"{text}\""),
                "  }".to_string(),
                "]".to_string(),
            ]))
        };
        let chunks = vec![Range { start: 1, end: 4 }];
        let long = request(&"中文 words ".repeat(1 << 18));
        let short = request("中文 words 中文 words 中文 words ");
        let lazy = LazyLines::default();
        let shown = |r: &Arc<Lines>, i| text(lazy.line(r, &chunks, i, &theme.syntax, 40));
        assert_eq!(shown(&long, 2), shown(&short, 2));
        assert_eq!(shown(&long, 3), shown(&short, 3), "the line after it");
    }

    #[test]
    fn keys_strings_and_numbers_get_different_colours() {
        let theme = UiTheme::load("dark").expect("dark");
        let lines = vec![
            "{".to_string(),
            "  \"role\": \"user\",".into(),
            "  \"n\": 3".into(),
            "}".into(),
        ];
        for styled in [
            highlight_json(&lines, &theme.syntax),
            lines.iter().map(|l| fast_line(l, &theme.syntax)).collect(),
        ] {
            let line = &styled[1];
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            assert_eq!(text, lines[1]);
            let key = line
                .spans
                .iter()
                .find(|s| s.content.contains("role"))
                .expect("key")
                .style;
            let value = line
                .spans
                .iter()
                .find(|s| s.content.contains("user"))
                .expect("value")
                .style;
            assert_ne!(key.fg, value.fg);
        }
    }
}

/// The first `columns` display columns of `line`, copied (the rest of a
/// long line is never on screen).
pub fn clip(line: &Line<'static>, columns: usize) -> Line<'static> {
    let mut left = columns;
    let mut spans = Vec::new();
    for span in &line.spans {
        let text = span.content.as_ref();
        let mut cut = text.len();
        for (at, c) in text.char_indices() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if w > left {
                cut = at;
                break;
            }
            left -= w;
        }
        spans.push(Span::styled(text[..cut].to_string(), span.style));
        if cut < text.len() {
            break;
        }
    }
    let mut out = Line::from(spans);
    out.style = line.style;
    out.alignment = line.alignment;
    out
}

/// The highlighted lines of a pretty-printed request, made on demand: each
/// message's lines (a `chunk`) are highlighted on their own (each starts at
/// the same depth after the array's `[`), cached by content and theme, so
/// scrolling back and forth and unchanged messages cost nothing again.
#[derive(Debug, Default)]
pub struct LazyLines {
    cache: RefCell<HashMap<u64, Arc<Vec<Line<'static>>>>>,
    /// The request last drawn (held, so that no other request takes its
    /// address while it is kept) and its chunks found so far, by their
    /// lines: finding a chunk in the cache hashes all of it, and a session
    /// that is one `<history>` group sends its history as one line of
    /// megabytes. Hashing it for each line on screen was half of a key's
    /// frame (100,000 messages: 113 -> 52 ms); hashing it once a frame was
    /// still most of one (9 ms), so the same request drawn again hashes
    /// nothing.
    shown: RefCell<Option<Shown>>,
}

/// A request's chunks found by [`LazyLines::line`] (the few on screen).
#[derive(Debug)]
struct Shown {
    plain: Arc<Lines>,
    chunks: Vec<(Range<usize>, Chunk)>,
}

/// Chunks of one request [`Shown`] keeps (more than a screen's).
const SHOWN_CHUNKS: usize = 256;

/// A chunk's lines, highlighted.
type Chunk = Arc<Vec<Line<'static>>>;

/// Chunks kept before the cache starts again (a few screens of huge
/// requests; each chunk is one message).
const LAZY_CACHE_CHUNKS: usize = 4096;

impl LazyLines {
    /// Line `i` of `plain`, highlighted; `chunks` are the messages' line
    /// ranges, in order.
    pub fn line(
        &self,
        plain: &Arc<Lines>,
        chunks: &[Range<usize>],
        i: usize,
        theme: &Theme,
        columns: usize,
    ) -> Line<'static> {
        let Some(text) = plain.get(i) else {
            return Line::raw("");
        };
        let at = chunks.partition_point(|c| c.end <= i);
        let Some(chunk) = chunks.get(at).filter(|c| c.contains(&i)) else {
            // The array's own brackets.
            let line = highlight_json(&[text.to_owned()], theme).pop();
            return line.map(|l| clip(&l, columns)).unwrap_or_default();
        };
        let mut shown = self.shown.borrow_mut();
        let shown = match &mut *shown {
            Some(kept) if Arc::ptr_eq(&kept.plain, plain) => kept,
            other => other.insert(Shown {
                plain: Arc::clone(plain),
                chunks: Vec::new(),
            }),
        };
        let known = shown.chunks.iter().find(|(range, _)| range == chunk);
        let lines = match known {
            Some((_, lines)) => Arc::clone(lines),
            None => {
                let lines = self.chunk(plain.range(chunk.clone()).collect(), theme);
                if shown.chunks.len() >= SHOWN_CHUNKS {
                    shown.chunks.clear();
                }
                shown.chunks.push((chunk.clone(), Arc::clone(&lines)));
                lines
            }
        };
        lines
            .get(i - chunk.start)
            .map(|line| clip(line, columns))
            .unwrap_or_default()
    }

    fn chunk(&self, lines: Vec<&str>, theme: &Theme) -> Arc<Vec<Line<'static>>> {
        use std::hash::{Hash, Hasher};
        // Only a line's start is ever on screen (the pane clips, and no
        // pane is `SHOWN_BYTES` wide): a longer one is hashed and
        // highlighted to there. A one-group session's
        // history is one line of 18 MB, which each new request had hashed,
        // copied twice and highlighted whole.
        let lines: Vec<Cow<'_, str>> = lines.into_iter().map(shown_part).collect();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for line in &lines {
            line.hash(&mut h);
        }
        theme.name.hash(&mut h);
        let key = h.finish();
        if let Some(hit) = self.cache.borrow().get(&key) {
            return Arc::clone(hit);
        }
        let mut text = vec!["[".to_string()];
        text.extend(lines.into_iter().map(Cow::into_owned));
        let mut styled = highlight_json(&text, theme);
        styled.remove(0);
        let styled = Arc::new(styled);
        let mut cache = self.cache.borrow_mut();
        if cache.len() >= LAZY_CACHE_CHUNKS {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&styled));
        styled
    }

    /// How many messages are highlighted (for tests).
    pub fn cached(&self) -> usize {
        self.cache.borrow().len()
    }
}

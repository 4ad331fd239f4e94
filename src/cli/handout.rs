//! The handout (`diff --html`, `explain --html`): one self-contained HTML
//! page a teacher can put on a slide or share. Two requests side by side,
//! aligned by source message, coloured by the structural diff, JSON
//! highlighted, with the rule behind each node and the lint findings of
//! each message beside the lines. No network at view time: the styles are
//! inline and there is no script.

use formatscope::compare::{Compared, Row, Side};
use formatscope::diff::Mark;
use formatscope::explain::Explained;
use formatscope::formatter::FormatterId;
use formatscope::lint::Finding;
use formatscope::session::Session;
use serde_json::Value;
use std::fmt::Write;
use std::ops::Range;

/// What to write beside the lines: the rule that built the node at a
/// pointer (on the left side or the right), and the findings about a
/// range of source messages.
pub(crate) trait Notes {
    /// `(rule id, one-line explanation)` for a node that a rule built
    /// directly (not inherited from its parent).
    fn rule(&self, right: bool, pointer: &str) -> Option<(String, String)>;
    /// `(severity, text)` of the findings about these messages.
    fn findings(&self, messages: &Range<usize>) -> Vec<(String, String)>;
    /// Findings about no message in particular (the request, the budget).
    fn general(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1d1f23; background: #fff; }
h1 { font-size: 1.3rem; margin: 0 0 .3rem 0; }
p.sub { color: #555; margin: 0 0 1rem 0; }
table.compare { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.compare td { vertical-align: top; padding: 0 .4rem; }
td.code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; white-space: pre; overflow: hidden; text-overflow: ellipsis; }
td.sign { width: 1.2rem; font-family: monospace; font-size: 12px; color: #777; text-align: center; }
td.note { width: 16rem; font-size: 11px; color: #444; }
th.side { text-align: left; font-size: 1rem; padding: .4rem; background: #f3f4f6; border-bottom: 2px solid #d0d4da; }
tr.heading td { background: #eef1f6; color: #3a4250; font-weight: 600; font-size: 12px; padding: .25rem .4rem; border-top: 1px solid #d0d4da; }
td.added { background: #e6f6ea; } td.removed { background: #fdeaea; }
td.changed { background: #fff5d6; } td.moved, td.renamed { background: #e8efff; }
span.rule { display: inline-block; background: #eef0ff; color: #2b3a8c; border-radius: 3px; padding: 0 .3rem; font-family: monospace; font-size: 11px; margin-right: .3rem; }
div.finding { margin: .15rem 0; } span.sev { font-weight: 700; text-transform: uppercase; font-size: 10px; margin-right: .3rem; }
span.error { color: #b3261e; } span.warning { color: #a15c00; } span.info { color: #2b5fa8; }
ul.legend { list-style: none; padding: 0; display: flex; gap: 1rem; font-size: 12px; }
ul.legend li span { display: inline-block; width: .9rem; height: .9rem; vertical-align: middle; margin-right: .3rem; border: 1px solid #ccc; }
"#;

/// The whole page.
pub(crate) fn page(title: &str, subtitle: &str, compared: &Compared, notes: &dyn Notes) -> String {
    let left = highlight(compared, false);
    let right = highlight(compared, true);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(title)
    );
    let _ = write!(
        out,
        "<h1>{}</h1>\n<p class=\"sub\">{} · {}</p>\n",
        escape(title),
        escape(subtitle),
        escape(&compared.counts.summary())
    );
    out.push_str("<ul class=\"legend\"><li><span style=\"background:#e6f6ea\"></span>added</li><li><span style=\"background:#fdeaea\"></span>removed</li><li><span style=\"background:#fff5d6\"></span>changed</li><li><span style=\"background:#e8efff\"></span>moved</li></ul>\n");
    let general = notes.general();
    if !general.is_empty() {
        out.push_str("<div class=\"general\">");
        for (sev, text) in &general {
            finding(&mut out, sev, text);
        }
        out.push_str("</div>\n");
    }
    let _ = write!(
        out,
        "<table class=\"compare\"><colgroup><col style=\"width:1.2rem\"><col><col style=\"width:14rem\"><col style=\"width:1.2rem\"><col><col style=\"width:14rem\"></colgroup>\n<tr><th class=\"side left\" colspan=\"3\">{}</th><th class=\"side right\" colspan=\"3\">{}</th></tr>\n",
        escape(&compared.left),
        escape(&compared.right)
    );
    let mut group = 0usize;
    let (mut li, mut ri) = (0usize, 0usize);
    for (k, row) in compared.rows.iter().enumerate() {
        match row {
            Row::Heading(h) => {
                let source = compared
                    .groups
                    .iter()
                    .find(|(_, at)| *at == k)
                    .and_then(|(s, _)| s.clone());
                let _ = write!(
                    out,
                    "<tr class=\"heading\" id=\"g{group}\"><td colspan=\"6\">{}",
                    escape(h)
                );
                group += 1;
                if let Some(range) = source {
                    for (sev, text) in notes.findings(&range) {
                        finding(&mut out, &sev, &text);
                    }
                }
                out.push_str("</td></tr>\n");
            }
            Row::Lines(l, r) => {
                out.push_str("<tr>");
                for (is_right, cell, html, i) in
                    [(false, l, &left, &mut li), (true, r, &right, &mut ri)]
                {
                    match cell {
                        None => out.push_str("<td class=\"sign\"></td><td class=\"code\"></td><td class=\"note\"></td>"),
                        Some(line) => {
                            let class = match line.mark {
                                Some(Mark::Added) => " added",
                                Some(Mark::Removed) => " removed",
                                Some(Mark::Changed) => " changed",
                                Some(Mark::Moved) => " moved",
                                Some(Mark::Renamed) => " renamed",
                                None => "",
                            };
                            let sign = match line.mark {
                                Some(Mark::Added) => "+",
                                Some(Mark::Removed) => "−",
                                Some(Mark::Changed) => "~",
                                Some(Mark::Moved) => "→",
                                Some(Mark::Renamed) => "»",
                                None => "",
                            };
                            let code = html.get(*i).cloned().unwrap_or_else(|| escape(&line.text));
                            *i += 1;
                            // A rule is written where its node starts: on
                            // the line that opens it.
                            let rule = notes
                                .rule(is_right, &line.pointer)
                                .filter(|_| opens(&line.text));
                            let note = match rule {
                                Some((id, why)) => format!(
                                    "<span class=\"rule\" title=\"{}\">{}</span>",
                                    escape(&why),
                                    escape(&id)
                                ),
                                None => String::new(),
                            };
                            let _ = write!(
                                out,
                                "<td class=\"sign{class}\">{sign}</td><td class=\"code{class}\" title=\"{}\">{code}</td><td class=\"note\">{note}</td>",
                                escape(&line.pointer)
                            );
                        }
                    }
                }
                out.push_str("</tr>\n");
            }
        }
    }
    out.push_str(&format!(
        "</table>\n<p class=\"sub\">Made by formatscope: the requests as {} formats them. Hover a line for its JSON pointer, a rule for its explanation.</p>\n</body></html>\n",
        formatscope::reference::default().title()
    ));
    out
}

/// A line that opens a node (not a closing bracket).
fn opens(text: &str) -> bool {
    let t = text.trim_start();
    !(t.starts_with('}') || t.starts_with(']'))
}

fn finding(out: &mut String, severity: &str, text: &str) {
    let _ = write!(
        out,
        "<div class=\"finding\"><span class=\"sev {}\">{}</span>{}</div>",
        escape(severity),
        escape(severity),
        escape(text)
    );
}

/// Each side's lines as highlighted HTML, in row order (one side's lines
/// are highlighted as one JSON text, so strings spanning a state carry).
fn highlight(compared: &Compared, right: bool) -> Vec<String> {
    let lines: Vec<&str> = compared
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Lines(l, r) => (if right { r } else { l })
                .as_ref()
                .map(|x| x.text.as_str()),
            Row::Heading(_) => None,
        })
        .collect();
    highlight_lines(&lines)
}

fn highlight_lines(lines: &[&str]) -> Vec<String> {
    use syntect::easy::HighlightLines;
    use syntect::html::{styled_line_to_highlighted_html, IncludeBackground};
    use syntect::parsing::SyntaxSet;
    let syntaxes = SyntaxSet::load_defaults_nonewlines();
    let Ok(theme) = formatscope::tui::theme::Theme::load("light") else {
        return lines.iter().map(|l| escape(l)).collect();
    };
    let Some(syntax) = syntaxes.find_syntax_by_extension("json") else {
        return lines.iter().map(|l| escape(l)).collect();
    };
    let mut h = HighlightLines::new(syntax, &theme.syntax);
    lines
        .iter()
        .map(|line| {
            h.highlight_line(line, &syntaxes)
                .ok()
                .and_then(|regions| {
                    styled_line_to_highlighted_html(&regions, IncludeBackground::No).ok()
                })
                .unwrap_or_else(|| escape(line))
        })
        .collect()
}

/// A side of a handout with the attribution of its nodes.
pub(crate) struct Annotated {
    pub side: Side,
    pub explained: Explained,
}

/// The request `value` (the formatter's `{"messages": [...]}` or a wire
/// body, as `diff --json` diffs it) cut into parts that know their source
/// messages, and the rule behind each node.
pub(crate) fn annotated_side(
    session: &Session,
    formatter: FormatterId,
    wire: bool,
    value: &Value,
    env: &formatscope::media::MediaEnv,
    raw: bool,
) -> Annotated {
    use formatscope::compare::shorten_media;
    let label = format!(
        "{}{}",
        formatter.class_name(),
        if wire { " · wire" } else { "" }
    );
    let shown = |v: &Value| if raw { v.clone() } else { shorten_media(v) };
    let msgs = formatscope::pipeline::build_msgs(session);
    let formatted = msgs.as_ref().map_err(Clone::clone).and_then(|msgs| {
        let keys = formatscope::formatter::message_keys(&session.messages);
        formatscope::budget::formatted_with_spans(formatter, &Default::default(), msgs, &keys, env)
    });
    let (msgs, formatted) = match (msgs, formatted) {
        (Ok(m), Ok(f)) => (m, f),
        (Err(e), _) | (_, Err(e)) => {
            return Annotated {
                side: Side::failed(label, format!("{}: {}", e.kind, e.message)),
                explained: Explained::default(),
            }
        }
    };
    if wire {
        let plain = formatscope::explain::formatted(formatter, &msgs, &formatted, "");
        let explained = formatscope::explain::wire(formatter, value, &formatted, &plain);
        let messages: Vec<Value> = formatted.messages.iter().map(shown).collect();
        Annotated {
            side: Side::wire(label, shown(value), &messages, &formatted.spans),
            explained,
        }
    } else {
        let explained = formatscope::explain::formatted(formatter, &msgs, &formatted, "/messages");
        let messages = value
            .get("messages")
            .and_then(Value::as_array)
            .map(|m| m.iter().map(shown).collect())
            .unwrap_or_default();
        Annotated {
            side: Side::formatted(label, messages, &formatted.spans),
            explained,
        }
    }
}

/// A side another AgentScope release formatted: its messages aligned by
/// the spans the release reports, with no rule attribution (the rules
/// catalogue attributes 1.0.21's nodes only).
pub(crate) fn release_side(
    label: String,
    value: &Value,
    spans: &[formatscope::formatter::Span],
    raw: bool,
) -> Annotated {
    use formatscope::compare::shorten_media;
    let messages = value
        .get("messages")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .map(|v| if raw { v.clone() } else { shorten_media(v) })
                .collect()
        })
        .unwrap_or_default();
    Annotated {
        side: Side::formatted(label, messages, spans),
        explained: Explained::default(),
    }
}

/// The lint findings for these formatters (each once).
pub(crate) fn findings(
    session: &Session,
    formatters: &[FormatterId],
    env: &formatscope::media::MediaEnv,
) -> Vec<Finding> {
    let mut ids: Vec<FormatterId> = formatters.to_vec();
    ids.dedup();
    let env = env.another_run();
    formatscope::lint::lint(&formatscope::lint::Input::new(session, None, ids, &env))
}

/// Rules from the two sides' attributions, findings by message.
struct Annotations<'a> {
    left: &'a Explained,
    right: &'a Explained,
    findings: Vec<Finding>,
}

impl Notes for Annotations<'_> {
    fn rule(&self, right: bool, pointer: &str) -> Option<(String, String)> {
        let ex = if right { self.right } else { self.left };
        let node = ex.direct(pointer)?;
        let r = formatscope::explain::rule(node.rule)?;
        Some((r.id.to_string(), format!("{} ({})", r.text, r.agentscope)))
    }

    fn findings(&self, messages: &Range<usize>) -> Vec<(String, String)> {
        self.findings
            .iter()
            .filter(|f| {
                f.message
                    .is_some_and(|m| messages.contains(&m) || m == messages.start)
            })
            .map(|f| {
                (
                    f.severity.as_str().to_string(),
                    format!("[{}] {} (fix: {})", f.rule, f.text, f.fix),
                )
            })
            .collect()
    }

    fn general(&self) -> Vec<(String, String)> {
        self.findings
            .iter()
            .filter(|f| f.message.is_none())
            .map(|f| {
                (
                    f.severity.as_str().to_string(),
                    format!("[{}] {} (fix: {})", f.rule, f.text, f.fix),
                )
            })
            .collect()
    }
}

/// Compares two annotated sides and writes the page.
pub(crate) fn write(
    path: &std::path::Path,
    title: &str,
    subtitle: &str,
    left: &Annotated,
    right: &Annotated,
    findings: Vec<Finding>,
) -> std::io::Result<()> {
    let compared = formatscope::compare::compare(&left.side, &right.side);
    let notes = Annotations {
        left: &left.explained,
        right: &right.explained,
        findings,
    };
    std::fs::write(path, page(title, subtitle, &compared, &notes))
}

//! `formatscope send`'s text output: a growing reply printed as it comes,
//! each response's new thinking and text only, its tool calls at the end.
//! A stream of n chunks prints in time linear in n: the new text is the
//! suffix past what was shown (the parser's text only grows), found without
//! building the response or comparing what was shown before; only a
//! response that may not extend the last one (think tags split, the extra
//! one at the end) is compared whole.

use super::redact::StreamRedactor;
use super::ApiKey;
use formatscope_core::response::Yielded;
use formatscope_core::text::escape_control;
use serde_json::Value;
use std::io::Write;

/// A reply's text for the terminal: its lines and tabs kept, any other
/// control character shown as an escape (a reply cannot drive the
/// terminal).
pub fn printable(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            line.split('\t')
                .map(|part| escape_control(part).into_owned())
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints a growing reply to `out`: each snapshot's new text only, the
/// key of the send (if given) replaced even when split across chunks.
pub struct Printer<W: Write> {
    out: W,
    redactor: StreamRedactor,
    thinking: String,
    text: String,
    in_thinking: bool,
    last_tools: Vec<Value>,
}

impl<W: Write> Printer<W> {
    pub fn new(out: W) -> Self {
        Printer::redacting(out, None)
    }

    /// A printer that never shows `key` (a server may echo it in a reply,
    /// as an error quoting the header that carried it).
    pub fn redacting(out: W, key: Option<&ApiKey>) -> Self {
        Printer {
            out,
            redactor: StreamRedactor::new(key),
            thinking: String::new(),
            text: String::new(),
            in_thinking: false,
            last_tools: Vec::new(),
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Writes `text`, past the key filter.
    fn put(&mut self, text: &str) {
        let shown = self.redactor.push(text);
        if !shown.is_empty() {
            let _ = self.out.write_all(shown.as_bytes());
        }
    }

    pub fn show(&mut self, r: &Yielded<'_>) {
        if r.is_again() {
            return;
        }
        let (thinking, text) = r.texts();
        let appends = r.appends();
        if let Some(new) = new_part(&self.thinking, &thinking, appends) {
            if !new.is_empty() {
                if !self.in_thinking {
                    self.put("[thinking] ");
                    self.in_thinking = true;
                }
                self.put(&printable(new));
            }
            self.thinking.push_str(new);
        } else {
            self.thinking = thinking.into_owned();
        }
        match new_part(&self.text, &text, appends) {
            Some(new) => {
                if !new.is_empty() {
                    if self.in_thinking {
                        self.put("\n[/thinking]\n");
                        self.in_thinking = false;
                    }
                    self.put(&printable(new));
                }
                self.text.push_str(new);
            }
            None => {
                self.put(&format!("\n{}", printable(&text)));
                self.text = text.into_owned();
            }
        }
        let _ = self.out.flush();
        self.last_tools = r.tool_calls();
    }

    pub fn end(&mut self) {
        if self.in_thinking {
            self.put("\n[/thinking]\n");
        }
        if !self.text.is_empty() {
            self.put("\n");
        }
        for call in std::mem::take(&mut self.last_tools) {
            let line = format!(
                "[tool_use {} id={}] {}\n",
                escape_control(call.get("name").and_then(Value::as_str).unwrap_or("?")),
                escape_control(call.get("id").and_then(Value::as_str).unwrap_or("")),
                escape_control(
                    &serde_json::to_string(call.get("input").unwrap_or(&Value::Null))
                        .unwrap_or_default()
                )
            );
            self.put(&line);
        }
        // The end of the reply: what was held back as a key's possible
        // start is not one.
        let rest = self.redactor.finish();
        let _ = self.out.write_all(rest.as_bytes());
        let _ = self.out.flush();
    }
}

/// What `now` adds to `shown`, or `None` if it does not extend it. When the
/// stream only appends, `shown` is a prefix of `now` by construction: no
/// comparison (it would cost the reply so far, per chunk).
fn new_part<'a>(shown: &str, now: &'a str, appends: bool) -> Option<&'a str> {
    if appends {
        if let Some(new) = now.get(shown.len()..) {
            return Some(new);
        }
    }
    now.strip_prefix(shown)
}

//! The request view's lines: the formatter's messages pretty-printed a
//! message at a time with the lines each came from, the wire body, the
//! text view and the request after truncation.

use super::*;
use formatscope_core::json::Json;

/// What the request pane shows of the request (`v` cycles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shown {
    /// The formatter's output: AgentScope's message list.
    #[default]
    Messages,
    /// What goes on the wire: method, URL, headers (key redacted), body.
    Wire,
    /// Every string of the request unescaped, so a `<history>` prompt
    /// reads as text.
    Text,
    /// The request the truncation preview would leave (the budget's).
    Truncated,
    /// Each message's text with its token boundaries, counted with the
    /// model's tokenizer.
    Tokens,
}

impl Shown {
    pub fn next(self) -> Shown {
        match self {
            Shown::Messages => Shown::Wire,
            Shown::Wire => Shown::Text,
            Shown::Text => Shown::Truncated,
            Shown::Truncated => Shown::Tokens,
            Shown::Tokens => Shown::Messages,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Shown::Messages => "messages",
            Shown::Wire => "wire",
            Shown::Text => "text",
            Shown::Truncated => "after truncation",
            Shown::Tokens => "tokens",
        }
    }
}

/// The "after truncation" view: what the formatter gives for the messages
/// the plan keeps, or why there is nothing to show.
pub(super) fn truncated_lines(
    model: &BudgetModel,
    plan: Option<&Result<TruncationPlan, String>>,
    raw: bool,
) -> Lines {
    let one = |line: String| Lines::from_iter([line]);
    let plan = match plan {
        None => return one("// no budget: set max_tokens (s) to see what truncation keeps".into()),
        Some(Err(e)) => return one(format!("// the truncation cannot be planned: {e}")),
        Some(Ok(plan)) => plan,
    };
    if let Some(reason) = plan.reason() {
        return one(format!(
            "// AgentScope cannot fit the request in {} tokens: {reason}",
            plan.max_tokens
        ));
    }
    match model.formatted_kept(&plan.kept) {
        Ok(messages) => {
            let mut lines = one(format!(
                "// {} of {} messages kept, {} tokens of {}",
                plan.kept.len(),
                plan.kept.len() + plan.dropped.len(),
                plan.tokens_after.unwrap_or_default(),
                plan.max_tokens
            ));
            let refs: Vec<&Value> = messages.iter().collect();
            let (plain, _, _) = pretty_with_spans(&refs, &[], raw);
            lines.extend(plain.iter());
            lines
        }
        Err(e) => one(format!("// AgentScope raises {}: {}", e.kind, e.message)),
    }
}

/// Highlighting units for a view without messages: 200 lines each, so a
/// large request is highlighted as it comes on screen, not all at once.
pub(super) fn chunks_of(lines: usize) -> Vec<Range<usize>> {
    (0..lines)
        .step_by(200)
        .map(|start| start..(start + 200).min(lines))
        .collect()
}

/// The wire view: the HTTP request the provider's SDK would send (the key
/// as `<API_KEY>`), or why AgentScope or the SDK would raise first.
pub(super) fn wire_lines(job: &Job, messages: Vec<Value>, raw: bool) -> Vec<String> {
    let settings = match job.settings(job.formatter.provider) {
        Ok(s) => s,
        Err(e) => return vec![format!("// the session's \"request\" object: {e}")],
    };
    let mut warnings = Vec::new();
    let built = wire::build(
        job.formatter,
        messages,
        job.tools.as_ref(),
        settings,
        &mut |w| warnings.push(w),
    );
    let mut lines = Vec::new();
    match built {
        Ok(w) => {
            lines.push(format!(
                "// {} · {}",
                w.sdk_call,
                if w.stream { "stream" } else { "no stream" }
            ));
            for warning in &warnings {
                lines.push(format!("// warning: {warning}"));
            }
            let shown = if raw {
                w.body.clone()
            } else {
                shorten_media(&w.body)
            };
            let value = match w.sdk_error {
                None => formatscope_core::json!({
                    "method": w.method,
                    "url": w.url,
                    "headers": w.headers,
                    "body": shown,
                }),
                Some(e) => formatscope_core::json!({
                    "kwargs": w.kwargs,
                    "the SDK raises": format!("{}: {}", e.kind, e.message),
                }),
            };
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            lines.extend(text.lines().map(String::from));
        }
        Err(rejected) => {
            let (_, failure) = *rejected;
            let e = match failure {
                wire::Failure::ModelInit(e) | wire::Failure::Model(e) => e,
            };
            lines.push(format!(
                "// AgentScope's model class raises {}: {}",
                e.kind, e.message
            ));
        }
    }
    lines
}

/// The text view: each message's role, then every string in it unescaped
/// (a `<history>` prompt reads as the model reads it).
pub(super) fn text_lines(messages: &[Value]) -> Vec<String> {
    fn strings(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            // Roles head each message; block types say nothing to read.
            Value::String(s) if path != "role" && path != "type" && !path.ends_with(".type") => {
                out.push(format!(
                    "  {}:",
                    formatscope_core::text::escape_control(path)
                ));
                out.extend(formatscope_core::text::visible_lines(s).map(|l| format!("    {l}")));
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    strings(item, &format!("{path}[{i}]"), out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    strings(item, &p, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        out.push(format!("── message {i} · {role} ──"));
        strings(&shorten_media(m), "", &mut out);
    }
    out
}

/// Pretty JSON of the request array, and per unit the lines it spans.
/// Long base64 payloads are shown short unless `raw`.
pub fn pretty_with_spans(
    messages: &[&Value],
    spans: &[Span],
    raw: bool,
) -> (Lines, Vec<Span>, Vec<Range<usize>>) {
    let mut pretty = PrettyRequest::new(raw);
    for m in messages {
        pretty.push(m);
    }
    pretty.finish(spans)
}

/// [`pretty_with_spans`] one message at a time, so a large request is laid
/// out without all of its messages in memory at once; or a piece at a time
/// on every core, the pieces then joined in order ([`PrettyRequest::append`]).
pub struct PrettyRequest {
    lines: Lines,
    message_lines: Vec<Range<usize>>,
    raw: bool,
    /// Input messages -> output messages, as pushed with [`Self::push_unit`].
    spans: Vec<Span>,
}

impl PrettyRequest {
    pub fn new(raw: bool) -> PrettyRequest {
        let mut request = PrettyRequest::piece(raw);
        request.lines.push("[");
        request
    }

    /// A part of a request's layout, to [`append`](Self::append) to one.
    pub fn piece(raw: bool) -> PrettyRequest {
        PrettyRequest {
            lines: Lines::new(),
            message_lines: Vec::new(),
            raw,
            spans: Vec::new(),
        }
    }

    /// The output messages of the input messages `input`; `false` once
    /// `stop()` cut them short ([`Self::push_until`]).
    pub fn push_unit<'a, J: Json<'a>>(
        &mut self,
        input: Range<usize>,
        values: impl IntoIterator<Item = J>,
        stop: &dyn Fn() -> bool,
    ) -> bool {
        let start = self.messages();
        for v in values {
            if !self.push_until(v, stop) {
                return false;
            }
        }
        self.spans.push((input, start..self.messages()));
        true
    }

    /// The output messages of the input messages `input`, copied from
    /// `lines`, where an earlier layout put them (`messages`: each one's
    /// lines there), instead of printed again.
    pub fn push_copied(&mut self, input: Range<usize>, lines: &Lines, messages: &[Range<usize>]) {
        let start = self.messages();
        for message in messages {
            if !self.message_lines.is_empty() {
                self.lines.append_to_last(",");
            }
            let first = self.lines.len();
            self.lines.append_range(lines, message.clone());
            // The comma that followed it there (a JSON value's own last
            // line never ends in one).
            self.lines.strip_last(",");
            self.message_lines.push(first..self.lines.len());
        }
        self.spans.push((input, start..self.messages()));
    }

    /// The output messages of each unit pushed, in order.
    pub fn unit_messages(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.spans.iter().map(|(_, out)| out.clone())
    }

    /// A request laid out from its `pieces`, in order: the first (made
    /// with [`Self::new`]) and the rest appended to it.
    pub fn joined(pieces: Vec<PrettyRequest>) -> PrettyRequest {
        let mut pieces = pieces.into_iter();
        let Some(mut request) = pieces.next() else {
            return PrettyRequest::new(false);
        };
        let rest: Vec<PrettyRequest> = pieces.collect();
        // Room for all of it at once: 23 MB at 100,000 messages, grown
        // piece by piece, was copied over and over.
        let (bytes, lines) = rest.iter().fold((2, 2), |(b, l), p| {
            (b + p.lines.bytes() + 1, l + p.lines.len())
        });
        request.lines.reserve(bytes, lines);
        request
            .message_lines
            .reserve(rest.iter().map(|p| p.messages()).sum());
        for piece in rest {
            request.append(piece);
        }
        request
    }

    /// `piece`'s messages (and units) after these.
    pub fn append(&mut self, piece: PrettyRequest) {
        if piece.message_lines.is_empty() {
            self.spans.extend(piece.spans);
            return;
        }
        if !self.message_lines.is_empty() {
            self.lines.append_to_last(",");
        }
        let (lines, messages) = (self.lines.len(), self.messages());
        self.lines.append(&piece.lines);
        self.message_lines.extend(
            piece
                .message_lines
                .into_iter()
                .map(|r| r.start + lines..r.end + lines),
        );
        self.spans.extend(
            piece
                .spans
                .into_iter()
                .map(|(input, out)| (input, out.start + messages..out.end + messages)),
        );
    }

    /// [`Self::finish`] with the spans pushed with [`Self::push_unit`].
    pub fn finish_units(mut self) -> (Lines, Vec<Span>, Vec<Range<usize>>) {
        let spans = std::mem::take(&mut self.spans);
        self.finish(&spans)
    }

    /// Messages laid out so far.
    pub fn messages(&self) -> usize {
        self.message_lines.len()
    }

    pub fn push(&mut self, m: &Value) {
        self.push_until(m, &|| false);
    }

    /// [`Self::push`], cut short once `stop()` says so (`false`; the
    /// request is then to be dropped): a one-group session's one message
    /// is 18 MB of text, whose printing a newer job had waited for.
    pub fn push_until<'a>(&mut self, m: impl Json<'a>, stop: &dyn Fn() -> bool) -> bool {
        if !self.message_lines.is_empty() {
            self.lines.append_to_last(",");
        }
        let start = self.lines.len();
        let media = if self.raw { Media::Raw } else { Media::Short };
        let printed = self.lines.push_pretty(m, media, "  ", stop);
        self.message_lines.push(start..self.lines.len());
        printed
    }

    /// The lines, and `spans` (input messages -> output messages) as line
    /// ranges.
    pub fn finish(mut self, spans: &[Span]) -> (Lines, Vec<Span>, Vec<Range<usize>>) {
        self.lines.push("]");
        self.lines.shrink_to_fit();
        let message_lines = self.message_lines;
        let line_spans = spans
            .iter()
            .filter(|(_, out)| !out.is_empty())
            .filter_map(|(msgs, out)| {
                let start = message_lines.get(out.start)?.start;
                let end = message_lines.get(out.end - 1)?.end;
                Some((msgs.clone(), start..end))
            })
            .collect();
        (self.lines, line_spans, message_lines)
    }
}

/// The wire body a formatted request becomes, with the job's settings
/// (or the earlier session's own "request" object).
pub(super) fn wire_body(
    formatter: FormatterId,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &wire::Settings,
) -> Result<Value, String> {
    let built = wire::build(formatter, messages, tools, settings, &mut |_| {});
    match built {
        Ok(w) => match w.sdk_error {
            None => Ok(w.body),
            Some(e) => Err(format!("the SDK raises {}: {}", e.kind, e.message)),
        },
        Err(rejected) => {
            let (_, failure) = *rejected;
            let (wire::Failure::ModelInit(e) | wire::Failure::Model(e)) = failure;
            Err(format!(
                "AgentScope's model class raises {}: {}",
                e.kind, e.message
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spans_point_at_the_lines_of_each_message() {
        let messages = vec![
            json!({"role": "system", "content": "a"}),
            json!({"role": "user", "content": "b"}),
        ];
        let spans = vec![(0..1, 0..1), (1..2, 1..2)];
        let (lines, line_spans, _) =
            pretty_with_spans(&messages.iter().collect::<Vec<_>>(), &spans, false);
        let whole: Value = serde_json::from_str(&lines.join("\n")).expect("valid JSON");
        assert_eq!(whole, Value::Array(messages));
        assert!(lines
            .get(line_spans[1].1.start)
            .unwrap_or_default()
            .contains('{'));
        assert!(lines
            .range(line_spans[1].1.clone())
            .collect::<String>()
            .contains("\"b\""));
    }

    #[test]
    fn a_request_joined_from_pieces_is_the_one_laid_out_whole() {
        // Units of 0 to 2 output messages; pieces cut at every place.
        let units: Vec<(Range<usize>, Vec<Value>)> = (0..7)
            .map(|i| {
                let values = (0..i % 3)
                    .map(|k| json!({"role": "user", "content": format!("{i}.{k}\nline")}))
                    .collect();
                (i..i + 1, values)
            })
            .collect();
        let all: Vec<Value> = units.iter().flat_map(|(_, v)| v.clone()).collect();
        let mut spans = Vec::new();
        let mut at = 0;
        for (input, values) in &units {
            spans.push((input.clone(), at..at + values.len()));
            at += values.len();
        }
        let whole = pretty_with_spans(&all.iter().collect::<Vec<_>>(), &spans, false);
        for cut in 0..=units.len() {
            let pieces = [(true, &units[..cut]), (false, &units[cut..])].map(|(first, part)| {
                let mut piece = if first {
                    PrettyRequest::new(false)
                } else {
                    PrettyRequest::piece(false)
                };
                for (input, values) in part {
                    piece.push_unit(input.clone(), values, &|| false);
                }
                piece
            });
            let joined = PrettyRequest::joined(pieces.into()).finish_units();
            assert_eq!(joined, whole, "cut at unit {cut}");
        }
    }

    #[test]
    fn a_unit_over_a_megabyte_stops_printing_when_asked() {
        let big = json!({"role": "user", "content": "a line\n".repeat(1 << 18)});
        let mut request = PrettyRequest::new(false);
        assert!(!request.push_unit(0..1, std::slice::from_ref(&big), &|| true));
        let mut request = PrettyRequest::new(false);
        assert!(request.push_unit(0..1, std::slice::from_ref(&big), &|| false));
        assert_eq!(request.messages(), 1);
    }

    #[test]
    fn base64_is_shown_short_unless_raw() {
        let data = format!("data:image/png;base64,{}", "A".repeat(40_000));
        let m = json!({"image_url": {"url": data}});
        assert_eq!(shorten_media(&m)["image_url"]["url"], "<image/png 30 KB>");
        let text = "x ".repeat(300);
        assert_eq!(
            shorten_media(&json!(text)),
            json!(text),
            "prose is not base64"
        );
    }
}

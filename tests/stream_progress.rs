//! Stream progress without building every response: the
//! text printer of `formatscope send` prints, byte for byte, what it printed
//! when every cumulative response was built, for every recorded stream; the
//! workbench's relay builds a few responses of a long stream, not one per
//! chunk, and its last one is the stream's latest. Counts, not timings.

use formatscope::net::printer::{printable, Printer};
use formatscope::response::{Api, ChatResponse, Event, Options, StreamParser, Yielded};
use formatscope::text::escape_control;
use formatscope::tui::panes::reply::ReplyUpdate;
use formatscope::tui::sender::{Relay, PACE};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

fn read(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v = formatscope::json::parse(&bytes, Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .value;
    formatscope::py::normalize_numbers(&mut v);
    v
}

/// The printer as it was: every response built, its whole thinking and text
/// compared with what was shown.
#[derive(Default)]
struct OldPrinter {
    out: Vec<u8>,
    thinking: String,
    text: String,
    in_thinking: bool,
    last_tools: Vec<Value>,
}

impl OldPrinter {
    fn show(&mut self, r: &ChatResponse) {
        let out = &mut self.out;
        let thinking = r.thinking();
        if let Some(new) = thinking.strip_prefix(self.thinking.as_str()) {
            if !new.is_empty() {
                if !self.in_thinking {
                    let _ = write!(out, "[thinking] ");
                    self.in_thinking = true;
                }
                let _ = write!(out, "{}", printable(new));
            }
        }
        self.thinking = thinking;
        let text = r.text();
        if let Some(new) = text.strip_prefix(self.text.as_str()) {
            if !new.is_empty() {
                if self.in_thinking {
                    let _ = writeln!(out, "\n[/thinking]");
                    self.in_thinking = false;
                }
                let _ = write!(out, "{}", printable(new));
            }
        } else {
            let _ = write!(out, "\n{}", printable(&text));
        }
        self.text = text;
        self.last_tools = r.tool_calls().cloned().collect();
    }

    fn end(&mut self) {
        let out = &mut self.out;
        if self.in_thinking {
            let _ = writeln!(out, "\n[/thinking]");
        }
        if !self.text.is_empty() {
            let _ = writeln!(out);
        }
        for call in &self.last_tools {
            let _ = writeln!(
                out,
                "[tool_use {} id={}] {}",
                escape_control(call.get("name").and_then(Value::as_str).unwrap_or("?")),
                escape_control(call.get("id").and_then(Value::as_str).unwrap_or("")),
                escape_control(
                    &serde_json::to_string(call.get("input").unwrap_or(&Value::Null))
                        .unwrap_or_default()
                )
            );
        }
    }
}

/// Both printers over one recorded stream, as `send` feeds them.
fn print_both(api: Api, events: &[Value], opts: &Options) -> (Vec<u8>, Vec<u8>) {
    let mut parser = StreamParser::new(api, opts, Instant::now());
    let mut old = OldPrinter::default();
    let mut new = Printer::new(Vec::new());
    let mut show = |parser: &StreamParser| {
        old.show(&parser.latest().expect("a yield"));
        new.show(&Yielded::stream(parser));
    };
    for ev in events {
        match parser.push(&Event::from(ev.clone())) {
            Ok(true) => show(&parser),
            Ok(false) => {}
            Err(_) => break,
        }
        if parser.stopped() {
            break;
        }
    }
    if parser.finish() == Ok(true) {
        show(&parser);
    }
    new.show(&Yielded::again(&parser));
    old.end();
    new.end();
    (old.out, new.into_inner())
}

#[test]
fn the_printer_prints_what_it_printed_when_every_response_was_built() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses");
    let manifest = read(&root.join("manifest.json"));
    let (mut streams, mut thinking_text_tools) = (0, 0);
    for case in manifest["cases"].as_array().expect("cases") {
        let command = case["command"].as_str().expect("command");
        let words: Vec<&str> = command.split_whitespace().collect();
        if !words.contains(&"--stream") {
            continue;
        }
        let api = Api::from_id(words[4]).expect("provider");
        let data = read(&root.join(words[2].trim_start_matches("shared/golden/responses/")));
        let Some(events) = data.as_array() else {
            continue;
        };
        let mut variants = vec![Options::new(api)];
        if api.has_stream_tool_parsing() {
            let mut off = Options::new(api);
            off.stream_tool_parsing = false;
            variants.push(off);
        }
        if matches!(api, Api::DashScope | Api::Ollama) {
            let mut split = Options::new(api);
            split.split_think_tags = true;
            variants.push(split);
        }
        for opts in &variants {
            let (old, new) = print_both(api, events, opts);
            let (old, new) = (String::from_utf8_lossy(&old), String::from_utf8_lossy(&new));
            assert_eq!(new, old, "{command} {opts:?}");
            streams += 1;
            if old.contains("[thinking]")
                && old.contains("[/thinking]\n")
                && old.contains("[tool_use")
            {
                thinking_text_tools += 1;
            }
        }
    }
    assert!(streams >= 20, "{streams} streams printed");
    assert!(
        thinking_text_tools >= 1,
        "no stream with thinking, text and tool calls"
    );
}

/// An OpenAI stream of `n` text deltas, then its usage.
fn openai_events(n: usize) -> Vec<Value> {
    let mut events: Vec<Value> = (0..n)
        .map(|i| json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": format!("w{i} ")}}]}))
        .collect();
    events.push(
        json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": n}}),
    );
    events
}

#[test]
fn the_workbench_relay_builds_a_few_responses_of_a_long_stream() {
    let n = 20_000;
    let events = openai_events(n);
    let mut parser = StreamParser::new(Api::OpenAi, &Options::new(Api::OpenAi), Instant::now());
    let mut relay = Relay::default();
    let mut updates = Vec::new();
    let started = Instant::now();
    let mut yields = 0;
    for ev in &events {
        if parser.push(&Event::from(ev.clone())).expect("parses") {
            yields += 1;
            updates.extend(relay.update(&Yielded::stream(&parser)));
        }
    }
    // The stream ends: its latest response is reported again.
    updates.extend(relay.update(&Yielded::again(&parser)));
    let elapsed = started.elapsed();
    assert_eq!(yields, n + 1);
    // The first, one per PACE, and the last: bounded by the time taken.
    let bound = 2 + (elapsed.as_millis() / PACE.as_millis()) as usize;
    assert!(
        updates.len() <= bound,
        "{} updates in {elapsed:?}",
        updates.len()
    );
    assert!(
        updates.len() * 20 < yields,
        "{} updates of {yields}",
        updates.len()
    );
    let Some(ReplyUpdate::Chunk(last)) = updates.last() else {
        panic!("no chunk sent");
    };
    assert_eq!(**last, parser.latest().expect("a response"));
    let text: String = (0..n).map(|i| format!("w{i} ")).collect();
    assert_eq!(last.text(), text);
    // Nothing skipped since: the next report sends nothing.
    assert!(relay.update(&Yielded::again(&parser)).is_none());
}

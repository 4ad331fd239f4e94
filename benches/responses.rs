//! The streaming parse's cost per chunk: every recorded golden
//! stream (tests/golden/responses) parsed as AgentScope parses it, events
//! already framed; and the same events read from their wire bytes (SSE or
//! NDJSON framing included). Divide by the case's event count for the cost
//! per chunk; `scripts/bench-responses.py` prints it beside AgentScope's
//! own parse of the same events.
//!
//!     cargo bench --bench responses

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::response::framing::{encode, EventReader};
use formatscope::response::{Api, Event, Options, StreamParser};
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

fn read(path: &Path) -> Value {
    let bytes = std::fs::read(path).expect("read");
    let mut v = formatscope::json::parse(&bytes, Default::default())
        .expect("json")
        .value;
    formatscope::py::normalize_numbers(&mut v);
    v
}

/// Every stream case with default options: (provider, events).
fn streams() -> Vec<(Api, Vec<Value>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses");
    let manifest = read(&root.join("manifest.json"));
    let mut out = Vec::new();
    for case in manifest["cases"].as_array().expect("cases") {
        let words: Vec<&str> = case["command"]
            .as_str()
            .expect("cmd")
            .split_whitespace()
            .collect();
        if !words.contains(&"--stream")
            || words
                .iter()
                .any(|w| w.starts_with("--no") || *w == "--structured")
        {
            continue;
        }
        let api = Api::from_id(words[4]).expect("api");
        let events = read(&root.join(words[2].trim_start_matches("shared/golden/responses/")));
        out.push((api, events.as_array().expect("events").clone()));
    }
    out
}

fn parse_all(streams: &[(Api, Vec<Value>)]) -> usize {
    let mut n = 0;
    for (api, events) in streams {
        let mut p = StreamParser::new(*api, &Options::new(*api), Instant::now());
        for ev in events {
            // Every yield built, as `formatscope response --stream` prints it.
            if p.push(&Event::from(ev.clone())).unwrap_or(false) {
                n += p.latest().map_or(0, |r| r.content.len());
            }
            if p.stopped() {
                break;
            }
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let streams = streams();
    let events: usize = streams.iter().map(|(_, e)| e.len()).sum();
    eprintln!("{} streams, {events} events", streams.len());
    c.bench_function("parse_events", |b| b.iter(|| parse_all(&streams)));
    let framed: Vec<(Api, Vec<Vec<u8>>)> = streams
        .iter()
        .map(|(api, ev)| (*api, encode(*api, ev)))
        .collect();
    c.bench_function("read_and_parse_bytes", |b| {
        b.iter(|| {
            let mut n = 0;
            for (api, frames) in &framed {
                let mut r = EventReader::new(*api);
                let mut p = StreamParser::new(*api, &Options::new(*api), Instant::now());
                for f in frames {
                    for ev in r.push(f).unwrap_or_default() {
                        if p.push(&ev).unwrap_or(false) {
                            n += p.latest().map_or(0, |r| r.content.len());
                        }
                    }
                }
            }
            n
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

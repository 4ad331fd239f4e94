//! Bounded work on hostile input ("Safe against hostile files and
//! servers", bounded part): each operation at 1×, 4× and 16× a size in the
//! same run; time(4n) / time(n) must stay under 5.
//!
//!     cargo bench --bench bounded
//!
//! - sse_one_event: one SSE event of 0.25 / 1 / 4 MB pushed in 16 KB
//!   chunks (the decoder rescanned its whole buffer on every chunk);
//! - duplicate_keys: a session whose one object repeats a key 10k / 40k /
//!   160k times (each duplicate was located by rescanning the file);
//! - run_of_one_char: counting 1 / 4 / 16 MB of "a" with o200k_base
//!   (one BPE piece: its binary heap of candidate merges was n log n);
//! - lint_per_message: `lint` of 2k / 8k / 32k messages, each with a
//!   finding (each was located from the start of the file, and its source
//!   message found by a scan of all spans), and a budget that drops all
//!   but a few (the list of dropped messages).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use formatscope::response::framing::EventReader;
use formatscope::response::Api;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SIZES: [usize; 3] = [1, 4, 16];

fn sse_one_event(c: &mut Criterion) {
    let mut g = c.benchmark_group("sse_one_event");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for k in SIZES {
        let bytes = k * 256 * 1024;
        // One `data:` line holding a JSON string of `bytes` bytes.
        let mut event = b"data: {\"choices\": [], \"pad\": \"".to_vec();
        event.resize(event.len() + bytes, b'x');
        event.extend_from_slice(b"\"}\n\n");
        g.bench_with_input(BenchmarkId::from_parameter(bytes), &event, |b, event| {
            b.iter(|| {
                let mut r = EventReader::new(Api::OpenAi);
                let mut n = 0;
                for chunk in event.chunks(16 * 1024) {
                    n += r.push(chunk).map(|e| e.len()).unwrap_or(0);
                }
                n + r.finish().map(|e| e.len()).unwrap_or(0)
            })
        });
    }
    g.finish();
}

fn duplicate_keys(c: &mut Criterion) {
    let mut g = c.benchmark_group("duplicate_keys");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for k in SIZES {
        let n = k * 10_000;
        let keys = vec!["\"k\": 1"; n].join(",\n");
        let text = format!(
            "{{\"messages\": [{{\"name\": \"a\", \"role\": \"user\", \"content\": \"hi\", \"x\": {{{keys}}}}}]}}"
        );
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                formatscope::session::parse_session(text, "d.json")
                    .map(|s| s.warnings.len())
                    .unwrap_or(0)
            })
        });
    }
    g.finish();
}

fn lint_per_message(c: &mut Criterion) {
    use formatscope::formatter::FormatterId;
    use formatscope::media::{MediaEnv, NoNetwork};
    let mut g = c.benchmark_group("lint_per_message");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for k in SIZES {
        let n = k * 2000;
        let messages: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                serde_json::json!({"name": "Bob Smith", "role": if i % 2 == 0 {"user"} else {"assistant"},
                    "content": format!("message number {i} of the long chat")})
            })
            .collect();
        let text = serde_json::to_string_pretty(
            &serde_json::json!({"provider": "openai", "max_tokens": 60, "messages": messages}),
        )
        .unwrap_or_default();
        let Ok(session) = formatscope::session::parse_session(&text, "many.json") else {
            continue;
        };
        let Ok(id) = session.formatter() else {
            continue;
        };
        let env = MediaEnv::new(session.base_dir(), std::sync::Arc::new(NoNetwork));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                let ids: Vec<FormatterId> = vec![id];
                let input = formatscope::lint::Input::new(&session, Some(&text), ids, &env);
                formatscope::lint::lint(&input).len()
            })
        });
    }
    g.finish();
}

fn run_of_one_char(c: &mut Criterion) {
    let mut g = c.benchmark_group("run_of_one_char");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    let vocab = formatscope::tokens::Vocab::O200kBase;
    for k in SIZES {
        let text = "a".repeat(k * 1024 * 1024);
        g.bench_with_input(BenchmarkId::from_parameter(text.len()), &text, |b, text| {
            b.iter(|| vocab.count(text))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    sse_one_event,
    duplicate_keys,
    run_of_one_char,
    lint_per_message
);
criterion_main!(benches);

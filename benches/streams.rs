//! Stream replies are linear in their chunk count: a
//! reply of N text deltas and of 4N, in the same run, through
//!
//! - `send`: `net::send` against a server on 127.0.0.1 (started here) that
//!   streams the reply, each yield shown as `formatscope send` prints it;
//! - `workbench`: the same send through the workbench's sender (its
//!   coalescing relay) into the reply pane, as `S` does.
//!
//! for OpenAI's SSE and Anthropic's. `scripts/bench-done-when.py`'s rule:
//! time(4N) / time(N) must stay under 5.
//!
//!     cargo bench --bench streams
//!     STREAM_BENCH_SIZES=10000,40000 cargo bench --bench streams

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use formatscope::net::printer::Printer;
use formatscope::net::{self, Prepared, Timeouts};
use formatscope::response::{Api, Options};
use formatscope::tui::panes::reply::{ReplyPane, ReplyUpdate};
use formatscope::tui::sender::Relay;
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The SSE body of a reply of `n` text deltas.
fn sse_body(api: Api, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 160);
    let mut event = |v: serde_json::Value| {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(v.to_string().as_bytes());
        out.extend_from_slice(b"\n\n");
    };
    match api {
        Api::Anthropic => {
            event(
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}}),
            );
            event(json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}));
            for i in 0..n {
                event(json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": format!("w{} ", i % 1000)}}));
            }
            event(json!({"type": "content_block_stop", "index": 0}));
            event(
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": n}}),
            );
            event(json!({"type": "message_stop"}));
        }
        _ => {
            for i in 0..n {
                event(
                    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {"content": format!("w{} ", i % 1000)}}]}),
                );
            }
            event(json!({"id": "chatcmpl-1", "choices": [],
                "usage": {"prompt_tokens": 12, "completion_tokens": n, "total_tokens": n + 12}}));
            out.extend_from_slice(b"data: [DONE]\n\n");
        }
    }
    out
}

/// A server on 127.0.0.1 that answers every request with `body` as SSE.
fn serve(body: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("addr").port();
    let body = Arc::new(body);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let body = Arc::clone(&body);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut request = vec![0; length];
                let _ = reader.read_exact(&mut request);
                let mut out = stream;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                let _ = out.write_all(head.as_bytes());
                let _ = out.write_all(&body);
            });
        }
    });
    port
}

fn prepared(api: Api, port: u16) -> Prepared {
    let path = if api == Api::Anthropic {
        "/v1/messages"
    } else {
        "/v1/chat/completions"
    };
    Prepared {
        api,
        method: "POST".into(),
        url: format!("http://127.0.0.1:{port}{path}"),
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
        stream: true,
    }
}

fn sizes() -> Vec<usize> {
    std::env::var("STREAM_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 40_000, 160_000])
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("streams");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let client = net::client(Timeouts::default()).expect("a client");
    for api in [Api::OpenAi, Api::Anthropic] {
        let opts = Options::new(api);
        for n in sizes() {
            let port = serve(sse_body(api, n));
            let prepared = prepared(api, port);
            group.bench_with_input(
                BenchmarkId::new(format!("send_{}", api.id()), n),
                &n,
                |b, _| {
                    b.iter(|| {
                        let mut printer = Printer::new(std::io::sink());
                        let out = runtime.block_on(net::send(
                            &client,
                            &prepared,
                            None,
                            &opts,
                            Timeouts::default(),
                            |r| printer.show(r),
                        ));
                        printer.end();
                        assert_eq!(
                            out.expect("sent").chunks,
                            n + usize::from(api != Api::Anthropic)
                        );
                    })
                },
            );
            group.bench_with_input(
                BenchmarkId::new(format!("workbench_{}", api.id()), n),
                &n,
                |b, _| {
                    b.iter(|| {
                        let mut pane = ReplyPane::default();
                        pane.start(1, api_provider(api), None, None);
                        let mut relay = Relay::default();
                        let out = runtime.block_on(net::send(
                            &client,
                            &prepared,
                            None,
                            &opts,
                            Timeouts::default(),
                            |r| {
                                if let Some(update) = relay.update(r) {
                                    pane.apply(1, update);
                                }
                            },
                        ));
                        pane.apply(1, ReplyUpdate::Done(Box::new(out.expect("sent"))));
                        assert!(pane.final_reply().is_some());
                    })
                },
            );
        }
    }
    group.finish();
}

fn api_provider(api: Api) -> formatscope::provider::Provider {
    match api {
        Api::Anthropic => formatscope::provider::Provider::Anthropic,
        _ => formatscope::provider::Provider::OpenAi,
    }
}

criterion_group!(streams, benches);
criterion_main!(streams);

//! `listen`'s cost per call: the exports a real two-agent 1.0.21 MsgHub run
//! sent (tests/listen/captures/v1_hub: 9 exports, 8 calls) decoded, made
//! into sessions, formatted again and compared with AgentScope's record,
//! counted, and written; beside the same exports only decoded (prost), the
//! floor any receiver pays. Divide by 8 for the cost per call.
//!
//!     cargo bench --bench listen

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::listen::writer::{Recorder, Settings};
use formatscope::live::otlp;
use std::path::Path;

fn exports() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/listen/captures/v1_hub");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("captures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect()
}

fn bench(c: &mut Criterion) {
    let exports = exports();
    let mut group = c.benchmark_group("listen v1_hub (8 calls)");
    group.bench_function("decode only (the floor)", |b| {
        b.iter(|| {
            exports
                .iter()
                .map(|e| {
                    otlp::decode(e, otlp::Encoding::Protobuf)
                        .expect("decodes")
                        .len()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("decode, rebuild, check, count, write", |b| {
        let dir = tempfile::tempdir().expect("tempdir");
        b.iter(|| {
            let mut recorder = Recorder::new(
                dir.path().to_path_buf(),
                Settings {
                    request: None,
                    max_files: u64::MAX,
                },
            );
            let mut calls = 0;
            for e in &exports {
                let spans = otlp::decode(e, otlp::Encoding::Protobuf).expect("decodes");
                calls += recorder.take(spans).len();
            }
            calls
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

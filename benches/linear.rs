//! Linear at any size: each operation at a size and at four times
//! it, in the same run. `scripts/bench-done-when.py` reads the estimates and
//! prints time(4n) / time(n), which must stay under 5.
//!
//!     cargo bench --bench linear
//!
//! - tokenize: every shipped tokenizer on mixed text (English, Chinese,
//!   code, JSON, a long word, long whitespace runs) of 256 KB and 1 MB;
//! - plan_half: truncation to half the tokens of one-`<history>`-group
//!   multi-agent sessions (no tool calls: the path that was quadratic) of
//!   25,000 and 100,000 messages, and of the standard sessions (tool calls
//!   every 12th turn) of 2,500 and 10,000.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use formatscope::budget::BudgetModel;
use formatscope::formatter::FormatOptions;
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::session::{read_session, Session};
use formatscope::tokens::{models, Vocab};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Mixed text of about `bytes` bytes, the same for every size but longer.
fn mixed_text(bytes: usize) -> String {
    let unit = concat!(
        "The library opens at nine and closes late on Fridays. ",
        "我们一起去图书馆吧！今天天气很好。",
        "fn main() {\n    let x: Vec<u32> = (1..=100).collect();\n}\n",
        "{\"city\": \"Paris\", \"n\": 3, \"tags\": [\"a\", \"b\"]}\n",
        "Great job 🎉! 1234567890 3.14159\n\n\n   \t\t  \n",
    );
    let mut text = String::with_capacity(bytes + 4096);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(unit);
        // Every 64 units: a long word and a long whitespace run.
        if i % 64 == 0 {
            text.push_str(&"a".repeat(2_000));
            text.push_str(&" ".repeat(3_000));
            text.push('x');
        }
        i += 1;
    }
    text
}

fn session(n: usize, one_group: bool) -> Session {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-sessions");
    let name = format!("{}_{n}.json", if one_group { "one_group" } else { "bench" });
    let path = dir.join(name);
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("create target/bench-sessions");
        let mut cmd = Command::new("python3");
        cmd.arg(root.join("benches/gen_session.py"))
            .arg(n.to_string());
        if one_group {
            cmd.arg("--one-group");
        }
        let out = cmd.output().expect("python3 runs benches/gen_session.py");
        assert!(out.status.success(), "gen_session.py failed");
        std::fs::write(&path, out.stdout).expect("write the session");
    }
    read_session(&path).expect("the generated session loads")
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("linear");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for vocab in Vocab::ALL {
        vocab.warm();
        for kb in [256, 1024] {
            let text = mixed_text(kb * 1024);
            group.bench_with_input(
                BenchmarkId::new(format!("tokenize_{}", vocab.name()), kb),
                &text,
                |b, text| b.iter(|| vocab.count(text)),
            );
        }
    }
    for (label, one_group, sizes) in [
        ("plan_half_one_group", true, [25_000, 100_000]),
        ("plan_half_tools", false, [2_500, 10_000]),
    ] {
        for n in sizes {
            let session = session(n, one_group);
            let id = session.formatter().expect("openai multi_agent");
            let mut model = BudgetModel::new(
                id,
                FormatOptions::default(),
                models::resolve(id.provider, session.model()),
                session.messages.iter().cloned(),
                session.tools.clone(),
                MediaEnv::new(session.base_dir(), Arc::new(NoNetwork)),
            )
            .expect("the session counts");
            let half = model.messages_total() / 2;
            // The truncation counts with AgentScope's gpt-4o counter: cold
            // once outside the timing, as the workbench keeps it warm.
            let _ = model.plan(half);
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| model.plan(half).map(|p| p.kept.len()))
            });
        }
    }
    group.finish();
}

criterion_group!(linear, benches);
criterion_main!(linear);

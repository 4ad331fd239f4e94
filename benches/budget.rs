//! Speed of the token budget on the standard benchmark sessions
//! (benches/gen_session.py: 100, 1,000, 10,000 and 100,000 messages, four
//! speakers, a tool call every 12th turn; OpenAI multi-agent, as
//! generated). `count_request` is AgentScope's own work, its counter over
//! the formatted request; `count_cold` is the workbench's, a budget model
//! from nothing (format, count, each message's share).
//!
//!     cargo bench --bench budget
//!
//! Targets (this 2-core machine): 10,000 messages format < 10 ms,
//! count warm < 20 ms, recount after a one-message edit < 1 ms, plan
//! truncation at any budget < 20 ms. `scripts/bench-vs-agentscope.py`
//! measures AgentScope on the same sessions for the ratios.

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use formatscope::budget::BudgetModel;
use formatscope::formatter::{self, FormatOptions, FormatterId};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::pipeline::build_msgs;
use formatscope::session::{read_session, Session};
use formatscope::tokens::{models, OpenAiTokenCounter};
use serde_json::{json, Value};
use sessions::standard_session;
use std::sync::Arc;
use std::time::Duration;

// The binary's allocator (src/main.rs), so figures are the app's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

fn bench_session(n: usize) -> Session {
    read_session(&standard_session(n)).expect("the generated session loads")
}

fn env_for(session: &Session) -> MediaEnv {
    MediaEnv::new(session.base_dir(), Arc::new(NoNetwork))
}

fn model_for(session: &Session, id: FormatterId) -> BudgetModel {
    BudgetModel::new(
        id,
        FormatOptions::default(),
        models::resolve(id.provider, session.model()),
        session.messages.iter().cloned(),
        session.tools.clone(),
        env_for(session),
    )
    .expect("the session counts")
}

fn benches(c: &mut Criterion) {
    // Load the tokenizer before timing anything (the workbench warms it in
    // the background at start-up).
    models::resolve(formatter::Provider::OpenAi, Some("gpt-4o"))
        .tokenizer
        .vocab
        .warm();
    let mut group = c.benchmark_group("budget");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        // A cold count of 100,000 messages takes about half a second.
        group.sample_size(if n >= 100_000 { 10 } else { 20 });
        let session = bench_session(n);
        let id = session.formatter().expect("openai multi_agent");
        let msgs = build_msgs(&session).expect("messages build");
        let env = env_for(&session);

        group.bench_with_input(BenchmarkId::new("format", n), &n, |b, _| {
            b.iter(|| formatter::format(id, &FormatOptions::default(), &msgs, &env, None))
        });
        let formatted =
            formatter::format(id, &FormatOptions::default(), &msgs, &env, None).expect("formats");
        let reference = OpenAiTokenCounter::new("gpt-4o");
        group.bench_with_input(BenchmarkId::new("count_request", n), &n, |b, _| {
            b.iter(|| reference.count(&formatted, None, &NoNetwork))
        });
        group.bench_with_input(BenchmarkId::new("count_cold", n), &n, |b, _| {
            b.iter(|| model_for(&session, id).report().total)
        });
        let mut model = model_for(&session, id);
        group.bench_with_input(BenchmarkId::new("count_warm", n), &n, |b, _| {
            b.iter(|| {
                model.set_messages(&session.messages).expect("recounts");
                model.report().total
            })
        });
        // Each iteration writes new text into a message in the middle, so
        // the unit it touches is genuinely re-formatted and re-counted.
        let mut edit = 0u64;
        let middle = n / 2;
        group.bench_with_input(BenchmarkId::new("recount_one_edit", n), &n, |b, _| {
            b.iter_batched(
                || {
                    edit += 1;
                    json!({"name": "Bob", "role": "user", "content": [
                        {"type": "text", "text": format!("Edit number {edit}: the library opens at nine.")}
                    ]})
                },
                |message: Value| {
                    model.set_message(middle, message).expect("recounts");
                    model.messages_total()
                },
                BatchSize::SmallInput,
            )
        });
        let total = model.messages_total();
        for (label, budget) in [
            ("plan_fits", total),
            ("plan_half", total / 2),
            ("plan_2pct", total * 98 / 100),
            ("plan_tiny", 50),
        ] {
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, _| {
                b.iter(|| model.plan(budget).map(|p| p.kept.len()))
            });
        }
    }
    group.finish();
}

criterion_group!(budget, benches);
criterion_main!(budget);

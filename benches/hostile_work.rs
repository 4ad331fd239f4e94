//! Issue 41's hostile inputs (third round), each at a size and at four
//! times it, in the same run: time(4n) / time(n) stays near 4 (linear),
//! where it was near 16 (quadratic).
//!
//!     cargo bench --bench hostile_work
//!
//! - lint_bogus_blocks: `lint` of one message of 1,000 / 4,000 unknown
//!   blocks (OpenAI; 32 s and 3.8 GB at 4,000 before);
//! - lint_hints_2.0.11: `lint --agentscope 2.0.11` of one assistant message
//!   of 500 / 2,000 hint blocks (165 s at 2,000 before);
//! - lint_gemini_images: 1,000 / 4,000 tiny inline images to Gemini (over
//!   60 s at 4,000 before);
//! - token_view_qwen_bang: the token view's ids of 20,000 / 80,000 `!`
//!   under Qwen, one pre-tokenizer piece (12.8 s at 20,000 before);
//! - token_view_o200k_word: ids of one word of 256 KB / 1 MB;
//! - picker_listed: the picker taking a listing of 20,000 / 80,000
//!   sessions (21 s at 20,000 before, on the UI thread).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::lint;
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::session::{parse_session_bytes, Session};
use formatscope::tokens::offsets::encode_with_offsets;
use formatscope::tokens::Vocab;
use formatscope::tui::panes::picker::PickerPane;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn session(messages: Value) -> Session {
    let v = json!({ "messages": messages });
    parse_session_bytes(v.to_string().as_bytes(), "bench.json").expect("a session")
}

/// One message of `n` blocks made by `block`, after a first text block.
fn one_message(role: &str, n: usize, block: impl Fn(usize) -> Value) -> Value {
    let mut content = vec![json!({"type": "text", "text": "look"})];
    content.extend((0..n).map(block));
    json!({"role": role, "name": role, "content": content})
}

fn lint_findings(session: &Session, id: FormatterId, release: Option<&str>) -> usize {
    let env = MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork));
    let mut input = lint::Input::new(session, None, vec![id], &env);
    input.upgrade = release.and_then(formatscope::reference::by_version);
    lint::lint(&input).len()
}

fn lint_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile_lint");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    let openai = FormatterId::new(Provider::OpenAi, Mode::Chat);
    for n in [1_000, 4_000] {
        let s = session(json!([one_message(
            "user",
            n,
            |i| json!({"type": "bogus", "x": i})
        )]));
        group.bench_with_input(BenchmarkId::new("lint_bogus_blocks", n), &s, |b, s| {
            b.iter(|| lint_findings(s, openai, None))
        });
    }
    for n in [500, 2_000] {
        let s = session(json!([
            {"role": "user", "name": "user", "content": "q"},
            one_message("assistant", n, |i| json!({"type": "hint", "hint": format!("hint {i}"), "source": "system"})),
        ]));
        group.bench_with_input(BenchmarkId::new("lint_hints_2.0.11", n), &s, |b, s| {
            b.iter(|| lint_findings(s, openai, Some("2.0.11")))
        });
    }
    let gemini = FormatterId::new(Provider::Gemini, Mode::Chat);
    for n in [1_000, 4_000] {
        let s = session(json!([one_message("user", n, |_| {
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}})
        })]));
        group.bench_with_input(BenchmarkId::new("lint_gemini_images", n), &s, |b, s| {
            b.iter(|| lint_findings(s, gemini, None))
        });
    }
    group.finish();
}

fn token_view_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile_token_view");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for n in [20_000, 80_000] {
        let text = "!".repeat(n);
        group.bench_with_input(
            BenchmarkId::new("token_view_qwen_bang", n),
            &text,
            |b, t| b.iter(|| encode_with_offsets(Vocab::Qwen, t).map(|s| s.len())),
        );
    }
    // One word of pseudo-random letters (one pre-tokenizer piece).
    let mut seed = 7u64;
    let word: String = (0..1024 * 1024)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (b'a' + ((seed >> 33) % 26) as u8) as char
        })
        .collect();
    for kb in [256, 1024] {
        let text = &word[..kb * 1024];
        group.bench_with_input(
            BenchmarkId::new("token_view_o200k_word", kb),
            text,
            |b, t| b.iter(|| encode_with_offsets(Vocab::O200kBase, t).map(|s| s.len())),
        );
    }
    group.finish();
}

fn picker_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile_picker");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    let dir = PathBuf::from("/sessions");
    for n in [20_000, 80_000] {
        let files: Vec<PathBuf> = (0..n)
            .map(|i| dir.join(format!("session_{i:06}.json")))
            .collect();
        // The recent list: a hundred of them.
        let recent: Vec<PathBuf> = files.iter().step_by(n / 100).cloned().collect();
        group.bench_with_input(BenchmarkId::new("picker_listed", n), &n, |b, _| {
            b.iter(|| {
                let mut pane = PickerPane::new(Some(dir.clone()));
                pane.listed(files.clone(), recent.clone());
                pane.shown.len()
            })
        });
    }
    group.finish();
}

criterion_group!(
    hostile_work,
    lint_benches,
    token_view_benches,
    picker_benches
);
criterion_main!(hostile_work);

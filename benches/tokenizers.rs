//! Our tokenizers (crates/core/src/tokens/: rank tables crates/core/build.rs embeds in the binary,
//! hand-written pre-tokenizers) against the two Rust alternatives,
//! tiktoken-rs (`CoreBPE`) and GitHub's bpe-openai, for o200k_base and
//! cl100k_base, and ours alone for Qwen, DeepSeek and legacy Claude (which
//! neither has): the figures behind the guide's tokenizers chapter.
//!
//!     cargo bench --bench tokenizers
//!
//! - cold: load the vocabulary and count one short text, timed inside a
//!   fresh process (this binary re-run with `TOKENIZERS_BENCH_COLD` set), so
//!   nothing is loaded or paged in before; the median of `COLD_RUNS`;
//! - warm: MB/s counting 1 MB each of English, code, Chinese, whitespace
//!   runs and one-character runs (one criterion benchmark per tokenizer,
//!   vocabulary and text).
//!
//! Before timing, every text is counted by all three and the counts must
//! agree (a faster tokenizer that counts differently is not a candidate).
//! At the end a Markdown table of both is printed.

use criterion::{BenchmarkId, Criterion, Throughput};
use formatscope::tokens::Vocab;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Set in a child: which tokenizer and encoding to time cold.
const COLD_VAR: &str = "TOKENIZERS_BENCH_COLD";
const COLD_RUNS: usize = 7;
/// The short text a cold count counts.
const SHORT: &str = "Could you book a table for two at the library café on Friday at 9:30?";
/// Each warm text is cut to about this many bytes (at a char boundary).
const WARM_BYTES: usize = 1024 * 1024;

#[derive(Clone, Copy, PartialEq)]
enum Impl {
    Ours,
    TiktokenRs,
    BpeOpenai,
}

const IMPLS: [Impl; 3] = [Impl::Ours, Impl::TiktokenRs, Impl::BpeOpenai];
/// Every vocabulary, and who else counts it.
const ENCODINGS: [(&str, &[Impl]); 5] = [
    ("o200k_base", &IMPLS),
    ("cl100k_base", &IMPLS),
    ("qwen", &[Impl::Ours]),
    ("deepseek", &[Impl::Ours]),
    ("claude_legacy", &[Impl::Ours]),
];

impl Impl {
    fn name(self) -> &'static str {
        match self {
            Impl::Ours => "ours",
            Impl::TiktokenRs => "tiktoken-rs",
            Impl::BpeOpenai => "bpe-openai",
        }
    }

    fn from_name(name: &str) -> Impl {
        IMPLS
            .into_iter()
            .find(|i| i.name() == name)
            .unwrap_or_else(|| panic!("unknown tokenizer {name}"))
    }

    /// Tokens in `text` as ordinary text (no special tokens), which is how
    /// formatscope counts OpenAI's user text.
    fn count(self, encoding: &str, text: &str) -> usize {
        if self == Impl::Ours {
            return Vocab::from_name(encoding)
                .unwrap_or_else(|| panic!("unknown vocabulary {encoding}"))
                .count(text);
        }
        let o200k = match encoding {
            "o200k_base" => true,
            "cl100k_base" => false,
            other => panic!("{} has no {other}", self.name()),
        };
        match (self, o200k) {
            (Impl::Ours, _) => unreachable!("counted above"),
            (Impl::TiktokenRs, true) => tiktoken_rs::o200k_base_singleton()
                .encode_ordinary(text)
                .len(),
            (Impl::TiktokenRs, false) => tiktoken_rs::cl100k_base_singleton()
                .encode_ordinary(text)
                .len(),
            (Impl::BpeOpenai, true) => bpe_openai::o200k_base().count(text),
            (Impl::BpeOpenai, false) => bpe_openai::cl100k_base().count(text),
        }
    }
}

/// A small deterministic generator (the texts must be the same every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// `text` cut to at most `WARM_BYTES`, at a char boundary.
fn cut(mut text: String) -> String {
    let mut end = text.len().min(WARM_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

/// English: the prose of tests/data/english_prose.md (an early README, kept
/// fixed so the figures compare across runs; its code blocks left out),
/// repeated.
fn english() -> String {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/english_prose.md"),
    )
    .expect("tests/data/english_prose.md");
    let mut prose = String::new();
    let mut in_code = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && !line.starts_with('|') {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    cut(prose.repeat(WARM_BYTES / prose.len().max(1) + 1))
}

/// Code: this crate's own Rust sources, in path order.
fn code() -> String {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("src/")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut text = String::new();
    for f in files {
        text.push_str(&std::fs::read_to_string(f).expect("a source file"));
        if text.len() > WARM_BYTES {
            break;
        }
    }
    cut(text)
}

/// Chinese: sentences of common words with Chinese punctuation, and a
/// number or a Latin name now and then, as chat messages have.
fn chinese() -> String {
    const WORDS: &[&str] = &[
        "我们",
        "今天",
        "天气",
        "很好",
        "图书馆",
        "一起",
        "明天",
        "早上",
        "九点",
        "开门",
        "请",
        "记得",
        "带上",
        "借的",
        "书",
        "还有",
        "学生证",
        "公交车",
        "或者",
        "走路",
        "沿着",
        "河边",
        "时间表",
        "出发",
        "之前",
        "检查",
        "一下",
        "会议",
        "报告",
        "需要",
        "修改",
        "用户",
        "模型",
        "请求",
        "回复",
        "工具",
        "调用",
        "结果",
        "天",
        "问题",
        "已经",
        "解决",
        "谢谢",
        "没关系",
        "可以",
        "不",
        "的",
        "了",
        "是",
        "在",
        "有",
        "这个",
        "那个",
        "因为",
        "所以",
        "但是",
        "如果",
        "就",
        "都",
        "也",
        "还",
        "很",
        "非常",
        "喜欢",
        "吃饭",
        "咖啡",
        "周五",
        "晚上",
        "关门",
    ];
    const PUNCT: &[&str] = &["，", "。", "！", "？", "；", "、"];
    let mut rng = Lcg(7);
    let mut text = String::new();
    while text.len() < WARM_BYTES {
        for _ in 0..4 + rng.below(12) {
            text.push_str(WORDS[rng.below(WORDS.len())]);
        }
        match rng.below(10) {
            0 => text.push_str(&format!("{}", rng.below(2030))),
            1 => text.push_str(" Friday "),
            _ => {}
        }
        text.push_str(PUNCT[rng.below(PUNCT.len())]);
        if rng.below(8) == 0 {
            text.push('\n');
        }
    }
    cut(text)
}

/// Whitespace runs: words between runs of spaces, tabs and newlines of 1 to
/// 300 characters (indentation, aligned columns, blank-line padding: the
/// runs a BPE's pre-tokenizer handles apart).
fn whitespace() -> String {
    const UNITS: &[&str] = &[" ", " ", " ", "\t", "\n", " \n", "\r\n"];
    const WORDS: &[&str] = &["value", "x", "fn", "}", "the", "42", "name:", "ok"];
    let mut rng = Lcg(11);
    let mut text = String::new();
    while text.len() < WARM_BYTES {
        text.push_str(WORDS[rng.below(WORDS.len())]);
        let unit = UNITS[rng.below(UNITS.len())];
        let len = 1 + rng.below(300);
        text.extend(std::iter::repeat_n(unit, len.div_ceil(unit.len())));
    }
    cut(text)
}

/// One-character runs: a quarter each of spaces, one letter, one Chinese
/// character and one punctuation mark, a newline between (each run is one
/// piece to every pre-tokenizer: the worst case of byte-pair merging).
fn one_character_runs() -> String {
    let quarter = WARM_BYTES / 4;
    let mut text = String::new();
    for unit in [" ", "a", "中", "-"] {
        text.push_str(&unit.repeat((quarter - 1) / unit.len()));
        text.push('\n');
    }
    cut(text)
}

fn texts() -> Vec<(&'static str, String)> {
    vec![
        ("English", english()),
        ("code", code()),
        ("Chinese", chinese()),
        ("whitespace runs", whitespace()),
        ("one-character runs", one_character_runs()),
    ]
}

/// Every text, and the short one, counted the same by all three; panics
/// with the counts where they differ.
fn check_counts_agree(texts: &[(&str, String)]) {
    for (encoding, impls) in ENCODINGS {
        for (name, text) in texts
            .iter()
            .map(|(n, t)| (*n, t.as_str()))
            .chain([("short", SHORT)])
        {
            let counts: Vec<usize> = impls.iter().map(|i| i.count(encoding, text)).collect();
            assert!(
                counts.windows(2).all(|w| w[0] == w[1]),
                "{encoding}, {name}: the counts differ (ours, tiktoken-rs, bpe-openai): {counts:?}"
            );
            println!(
                "{encoding}, {name}: {} bytes, {} tokens{}",
                text.len(),
                counts[0],
                if impls.len() > 1 {
                    ", the same from all three"
                } else {
                    ""
                }
            );
        }
    }
}

/// In a child: the load and one count, timed; prints the nanoseconds.
fn cold_child(which: &str) {
    let (imp, encoding) = which.split_once(':').expect("TOOL:ENCODING");
    let start = Instant::now();
    let n = Impl::from_name(imp).count(encoding, SHORT);
    let took = start.elapsed();
    assert!(n > 0);
    println!("{}", took.as_nanos());
}

/// The median cold time of `imp` on `encoding`, each run a fresh process.
fn cold(imp: Impl, encoding: &str, runs: usize) -> Duration {
    let exe = std::env::current_exe().expect("this binary");
    let mut times: Vec<u64> = (0..runs)
        .map(|_| {
            let out = Command::new(&exe)
                .env(COLD_VAR, format!("{}:{encoding}", imp.name()))
                .output()
                .expect("the bench re-runs itself");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("nanoseconds")
        })
        .collect();
    times.sort_unstable();
    Duration::from_nanos(times[times.len() / 2])
}

const GROUP: &str = "tokenizers_warm";

fn bench_id(encoding: &str, text: &str, imp: Impl) -> String {
    format!("{encoding}_{}/{}", text.replace(' ', "_"), imp.name())
}

fn warm(c: &mut Criterion, texts: &[(&str, String)]) {
    let mut g = c.benchmark_group(GROUP);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (encoding, impls) in ENCODINGS {
        for (name, text) in texts {
            g.throughput(Throughput::Bytes(text.len() as u64));
            for &imp in impls {
                let id = bench_id(encoding, name, imp);
                let (function, parameter) = id.split_once('/').expect("a slash");
                g.bench_with_input(BenchmarkId::new(function, parameter), text, |b, text| {
                    b.iter(|| imp.count(encoding, text))
                });
            }
        }
    }
    g.finish();
}

/// Criterion's median time per iteration of one benchmark (the median
/// resists the other processes of a shared machine better than the mean),
/// from the estimates it wrote; None when the benchmark was filtered out.
fn criterion_median(id: &str) -> Option<f64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/criterion")
        .join(GROUP)
        .join(id)
        .join("new/estimates.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn main() {
    if let Ok(which) = std::env::var(COLD_VAR) {
        cold_child(&which);
        return;
    }
    let texts = texts();
    check_counts_agree(&texts);
    // `cargo test --benches` runs each benchmark once: one cold run is enough.
    let testing = std::env::args().any(|a| a == "--test");
    let runs = if testing { 1 } else { COLD_RUNS };
    let mut colds = Vec::new();
    for (encoding, impls) in ENCODINGS {
        for &imp in impls {
            colds.push((encoding, imp, cold(imp, encoding, runs)));
        }
    }
    let mut c = Criterion::default().configure_from_args();
    warm(&mut c, &texts);
    c.final_summary();
    if testing {
        return;
    }
    println!();
    println!("| vocabulary | tokenizer | cold: load + count one short text (median of {COLD_RUNS}) | warm MB/s (median): English | code | Chinese | whitespace runs | one-character runs |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (encoding, imp, cold) in colds {
        let warm: Vec<String> = texts
            .iter()
            .map(|(name, text)| {
                criterion_median(&bench_id(encoding, name, imp)).map_or("-".into(), |ns| {
                    format!("{:.1}", text.len() as f64 / ns * 1e9 / 1e6)
                })
            })
            .collect();
        println!(
            "| {encoding} | {} | {:.1} ms | {} |",
            imp.name(),
            cold.as_secs_f64() * 1e3,
            warm.join(" | ")
        );
    }
}

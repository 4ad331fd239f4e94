//! Usage: compare-bpe-openai [cold-ours|cold-bpe-openai|count-file FILE]
//! Without an argument: counts and speed on tests/tokenizers/fixtures.json
//! and on one large text, for o200k_base and cl100k_base; with one, a single
//! cold load and count in this fresh process (run it under `time`).

use formatscope::tokens::Vocab;
use std::time::Instant;

fn main() {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        Some("cold-ours") => {
            let t = Instant::now();
            let n = Vocab::O200kBase.count("hello world");
            println!("ours: {n} tokens, load+count {:?}", t.elapsed());
            return;
        }
        Some("count-file") => {
            // For memory profiles (heaptrack): one count of a file.
            let path = std::env::args().nth(2).expect("a file");
            let text = std::fs::read_to_string(path).expect("readable");
            println!("ours: {} tokens", Vocab::O200kBase.count(&text));
            return;
        }
        Some("count-session") => {
            // For memory profiles: what `formatscope count` holds.
            use formatscope::budget::BudgetModel;
            use formatscope::formatter::FormatOptions;
            use formatscope::media::{MediaEnv, NoNetwork};
            let path = std::env::args().nth(2).expect("a session");
            let session = formatscope::session::read_session(std::path::Path::new(&path)).expect("loads");
            let id = formatscope::pipeline::formatter_for_session(&session).expect("formatter");
            let mut model = BudgetModel::new(
                id,
                FormatOptions::default(),
                formatscope::tokens::models::resolve(id.provider, session.model()),
                session.messages,
                session.tools,
                MediaEnv::new(std::path::PathBuf::from("."), std::sync::Arc::new(NoNetwork)),
            )
            .expect("counts");
            println!("{} tokens", model.report().total);
            return;
        }
        Some("cold-bpe-openai") => {
            let t = Instant::now();
            let n = bpe_openai::o200k_base().count("hello world");
            println!("bpe-openai: {n} tokens, load+count {:?}", t.elapsed());
            return;
        }
        _ => {}
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let fixtures: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/tests/tokenizers/fixtures.json")).expect("fixtures"),
    )
    .expect("json");
    let texts: Vec<(String, String)> = fixtures
        .as_array()
        .expect("array")
        .iter()
        .map(|f| (f["name"].as_str().unwrap_or("").to_string(), f["text"].as_str().unwrap_or("").to_string()))
        .collect();
    let big: String = texts.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n").repeat(40);
    for (vocab, theirs, name) in [
        (Vocab::O200kBase, bpe_openai::o200k_base(), "o200k_base"),
        (Vocab::Cl100kBase, bpe_openai::cl100k_base(), "cl100k_base"),
    ] {
        let mut differ = Vec::new();
        for (n, t) in &texts {
            let (a, b) = (vocab.count(t), theirs.count(t.as_str()));
            if a != b {
                differ.push(format!("{n}: ours {a}, bpe-openai {b}"));
            }
        }
        println!("{name}: {} fixture texts, {} counts differ {:?}", texts.len(), differ.len(), differ);
        for (label, text) in [("fixtures once", texts.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n")), ("large text", big.clone())] {
            let runs = 5;
            let t = Instant::now();
            let mut a = 0;
            for _ in 0..runs {
                a = vocab.count(&text);
            }
            let ours = t.elapsed() / runs;
            let t = Instant::now();
            let mut b = 0;
            for _ in 0..runs {
                b = theirs.count(text.as_str());
            }
            let bpe = t.elapsed() / runs;
            println!(
                "  {label} ({} KB): ours {a} tokens in {ours:?}, bpe-openai {b} in {bpe:?} (ours / theirs = {:.2})",
                text.len() / 1024,
                ours.as_secs_f64() / bpe.as_secs_f64()
            );
        }
    }
}

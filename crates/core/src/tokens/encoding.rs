//! tiktoken encodings, chosen by model name as `tiktoken.encoding_for_model`
//! chooses them (tiktoken 0.13), with `o200k_base` for unknown names as
//! AgentScope falls back.

use super::memo::PartMemo;
use super::specials::Specials;
use super::whitespace::{self, Runs};
use super::Vocab;
use crate::py::PyErr;
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

const ENDOFTEXT: &str = "<|endoftext|>";
const FIM: [&str; 3] = ["<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"];
const ENDOFPROMPT: &str = "<|endofprompt|>";
/// o200k_harmony's named specials (tiktoken_ext/openai_public.py); the
/// others are `<|reserved_N|>`.
const HARMONY: [&str; 9] = [
    "<|startoftext|>",
    "<|return|>",
    "<|constrain|>",
    "<|channel|>",
    "<|start|>",
    "<|end|>",
    "<|message|>",
    "<|call|>",
    ENDOFTEXT,
];
use tiktoken_rs::{CoreBPE, Rank};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    O200kBase,
    O200kHarmony,
    Cl100kBase,
    P50kBase,
    P50kEdit,
    R50kBase,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::O200kHarmony => "o200k_harmony",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::P50kEdit => "p50k_edit",
            Encoding::R50kBase => "r50k_base",
        }
    }

    /// The shared BPE (loaded once per process; the first call takes a
    /// couple of hundred milliseconds).
    pub fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }

    /// The encoding's special tokens as Python tiktoken 0.13 defines them
    /// (`special_tokens_set`, tiktoken_ext/openai_public.py). Not
    /// tiktoken-rs's: its o200k_harmony leaves out `<|endofprompt|>`, which
    /// Python's keeps from o200k_base (as 200018, beside
    /// `<|reserved_200018|>`), so AgentScope raises on it for gpt-oss.
    pub fn special_texts(self) -> Vec<String> {
        let mut texts: Vec<String> = match self {
            Encoding::R50kBase | Encoding::P50kBase => vec![ENDOFTEXT],
            Encoding::P50kEdit => [ENDOFTEXT].into_iter().chain(FIM).collect(),
            Encoding::Cl100kBase => [ENDOFTEXT]
                .into_iter()
                .chain(FIM)
                .chain([ENDOFPROMPT])
                .collect(),
            Encoding::O200kBase => vec![ENDOFTEXT, ENDOFPROMPT],
            Encoding::O200kHarmony => [ENDOFPROMPT].into_iter().chain(HARMONY).collect(),
        }
        .into_iter()
        .map(String::from)
        .collect();
        if self == Encoding::O200kHarmony {
            let named = [200002, 200003, 200005, 200006, 200007, 200008, 200012];
            texts.extend(
                (200000..201088)
                    .filter(|id| !named.contains(id))
                    .map(|id| format!("<|reserved_{id}|>")),
            );
        }
        texts
    }

    /// [`Encoding::special_texts`], ready to search text with.
    pub fn specials(self) -> &'static Specials {
        static TABLES: [OnceLock<Specials>; 6] = [const { OnceLock::new() }; 6];
        let slot = match self {
            Encoding::O200kBase => 0,
            Encoding::O200kHarmony => 1,
            Encoding::Cl100kBase => 2,
            Encoding::P50kBase => 3,
            Encoding::P50kEdit => 4,
            Encoding::R50kBase => 5,
        };
        TABLES[slot].get_or_init(|| Specials::new(self.special_texts()))
    }

    /// `len(encoding.encode(text))` with tiktoken's defaults: text that
    /// contains any of the encoding's special tokens raises, as in Python.
    pub fn count(self, text: &str) -> Result<usize, PyErr> {
        self.count_remembering(text, None)
    }

    /// [`Encoding::count`], a long text's parts that `memo` has counted
    /// before not counted again (the common encodings).
    pub fn count_remembering(self, text: &str, memo: Option<&PartMemo>) -> Result<usize, PyErr> {
        let counting = match self {
            Encoding::O200kBase => Some(Vocab::O200kBase),
            Encoding::Cl100kBase => Some(Vocab::Cl100kBase),
            _ => None,
        };
        // tiktoken's regex search: the leftmost special names the error.
        if let Some((_, _, token)) = self.specials().find(text) {
            return Err(PyErr::value(format!(
                "Encountered text corresponding to disallowed special token '{token}'.\n\
                 If you want this text to be encoded as a special token, pass it to `allowed_special`, e.g. `allowed_special={{'{token}', ...}}`.\n\
                 If you want this text to be encoded as normal text, disable the check for this token by passing `disallowed_special=(enc.special_tokens_set - {{'{token}'}})`.\n\
                 To disable this check for all special tokens, pass `disallowed_special=()`.\n"
            )));
        }
        Ok(match (counting, memo) {
            // The common encodings count over the embedded rank table.
            (Some(vocab), Some(memo)) => memo.count(vocab.counting(), vocab, text, false),
            (Some(vocab), None) => vocab.counting().count(text, false),
            (None, _) => count_ordinary_core(self.bpe(), self.runs(), text),
        })
    }

    /// How its pattern splits whitespace runs.
    pub fn runs(self) -> Runs {
        match self {
            Encoding::P50kBase | Encoding::P50kEdit | Encoding::R50kBase => Runs::Plain,
            _ => Runs::NewlinesApart,
        }
    }
}

/// The same for the rarely used encodings kept on tiktoken-rs's `CoreBPE`
/// (p50k, r50k, o200k_harmony with its specials).
fn count_ordinary_core(bpe: &'static CoreBPE, runs: Runs, text: &str) -> usize {
    let none: HashSet<&str> = HashSet::new();
    let regex = |t: &str| bpe.encode(t, &none).ok().map(|(tokens, _)| tokens.len());
    regex(text)
        .or_else(|| {
            let ranks = ranks_of(bpe);
            whitespace::count(text, runs, &regex, &|piece| super::bpe::count(piece, ranks))
        })
        .unwrap_or(text.len())
}

/// A vocabulary's ranks, recovered from its `CoreBPE` (which keeps them
/// private) the first time a huge whitespace piece needs merging directly.
fn ranks_of(bpe: &'static CoreBPE) -> &'static FxHashMap<Vec<u8>, Rank> {
    type Registry = Mutex<Vec<(usize, &'static FxHashMap<Vec<u8>, Rank>)>>;
    static KNOWN: OnceLock<Registry> = OnceLock::new();
    let key = bpe as *const CoreBPE as usize;
    let mut known = KNOWN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, ranks)) = known.iter().find(|(k, _)| *k == key) {
        return ranks;
    }
    // Every vocabulary we ship has fewer than 300,000 tokens.
    let ranks: FxHashMap<Vec<u8>, Rank> = (0..300_000)
        .filter_map(|r| bpe.decode_bytes(&[r]).ok().map(|bytes| (bytes, r)))
        .collect();
    let ranks: &'static FxHashMap<Vec<u8>, Rank> = Box::leak(Box::new(ranks));
    known.push((key, ranks));
    ranks
}

/// `tiktoken.encoding_for_model(name)`, falling back to `o200k_base`.
pub fn encoding_for_model(model: &str) -> Encoding {
    use Encoding::*;
    let exact = match model {
        "o1" | "o3" | "o4-mini" | "gpt-5" | "gpt-4.1" | "gpt-4o" => Some(O200kBase),
        "gpt-4"
        | "gpt-3.5-turbo"
        | "gpt-3.5"
        | "gpt-35-turbo"
        | "davinci-002"
        | "babbage-002"
        | "text-embedding-ada-002"
        | "text-embedding-3-small"
        | "text-embedding-3-large" => Some(Cl100kBase),
        "text-davinci-003" | "text-davinci-002" | "code-davinci-001" | "code-davinci-002"
        | "code-cushman-001" | "code-cushman-002" | "davinci-codex" | "cushman-codex" => {
            Some(P50kBase)
        }
        "text-davinci-edit-001" | "code-davinci-edit-001" => Some(P50kEdit),
        "text-davinci-001" | "text-curie-001" | "text-babbage-001" | "text-ada-001" | "davinci"
        | "curie" | "babbage" | "ada" | "gpt2" | "gpt-2" => Some(R50kBase),
        m if m.starts_with("text-similarity-")
            || m.starts_with("text-search-")
            || m.starts_with("code-search-") =>
        {
            Some(R50kBase)
        }
        _ => None,
    };
    if let Some(e) = exact {
        return e;
    }
    const PREFIXES: [(&str, Encoding); 16] = [
        ("o1-", O200kBase),
        ("o3-", O200kBase),
        ("o4-mini-", O200kBase),
        ("gpt-5", O200kBase),
        ("gpt-4.5-", O200kBase),
        ("gpt-4.1-", O200kBase),
        ("chatgpt-4o-", O200kBase),
        ("gpt-4o-", O200kBase),
        ("gpt-4-", Cl100kBase),
        ("gpt-3.5-turbo-", Cl100kBase),
        ("gpt-35-turbo-", Cl100kBase),
        ("gpt-oss-", O200kHarmony),
        ("ft:gpt-4o", O200kBase),
        ("ft:gpt-4", Cl100kBase),
        ("ft:gpt-3.5-turbo", Cl100kBase),
        ("ft:davinci-002", Cl100kBase),
    ];
    PREFIXES
        .iter()
        .find(|(p, _)| model.starts_with(p))
        .map(|(_, e)| *e)
        .or_else(|| model.starts_with("ft:babbage-002").then_some(Cl100kBase))
        .unwrap_or(O200kBase)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What lets [`Specials`]' leftmost-longest search stand for tiktoken's
    /// leftmost-first regex alternation (in whatever order Python iterates
    /// the set): no special of a tiktoken-style table is a prefix of
    /// another, so at most one matches at any position.
    #[test]
    fn no_tiktoken_special_is_a_prefix_of_another() {
        let mut tables: Vec<Vec<String>> = [
            Encoding::O200kBase,
            Encoding::O200kHarmony,
            Encoding::Cl100kBase,
            Encoding::P50kBase,
            Encoding::P50kEdit,
            Encoding::R50kBase,
        ]
        .map(Encoding::special_texts)
        .into();
        tables.push(Vocab::Qwen.counting().specials().texts().to_vec());
        tables.push(Vocab::ClaudeLegacy.counting().specials().texts().to_vec());
        for table in tables {
            for a in &table {
                for b in &table {
                    assert!(a == b || !b.starts_with(a.as_str()), "{a} / {b}");
                }
            }
        }
    }

    #[test]
    fn the_tables_are_pythons() {
        let sizes = [
            (Encoding::O200kBase, 2),
            (Encoding::O200kHarmony, 1091),
            (Encoding::Cl100kBase, 5),
            (Encoding::P50kBase, 1),
            (Encoding::P50kEdit, 4),
            (Encoding::R50kBase, 1),
        ];
        for (e, n) in sizes {
            let texts = e.special_texts();
            let unique: HashSet<&String> = texts.iter().collect();
            assert_eq!((texts.len(), unique.len()), (n, n), "{}", e.name());
        }
        let harmony = Encoding::O200kHarmony.specials();
        assert!(harmony.find("a <|endofprompt|>").is_some());
        assert!(harmony.find("<|reserved_200018|>").is_some());
        assert!(
            harmony.find("<|reserved_200002|>").is_none(),
            "200002 is <|return|>"
        );
    }
}

//! tiktoken encodings, chosen by model name as `tiktoken.encoding_for_model`
//! chooses them (tiktoken 0.13), with `o200k_base` for unknown names as
//! AgentScope falls back.

use super::counting::CountingBpe;
use super::whitespace::{self, Runs};
use super::Vocab;
use crate::py::PyErr;
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
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

    /// `len(encoding.encode(text))` with tiktoken's defaults: text that
    /// contains a special token raises, as in Python.
    pub fn count(self, text: &str) -> Result<usize, PyErr> {
        let counting = match self {
            Encoding::O200kBase => Some(Vocab::O200kBase.counting()),
            Encoding::Cl100kBase => Some(Vocab::Cl100kBase.counting()),
            _ => None,
        };
        let special = match counting {
            Some(c) => first_special(c.specials().iter().map(String::as_str), text),
            None => first_special(self.bpe().special_tokens().into_iter(), text),
        };
        if let Some(token) = special {
            return Err(PyErr::value(format!(
                "Encountered text corresponding to disallowed special token '{token}'.\n\
                 If you want this text to be encoded as a special token, pass it to `allowed_special`, e.g. `allowed_special={{'{token}', ...}}`.\n\
                 If you want this text to be encoded as normal text, disable the check for this token by passing `disallowed_special=(enc.special_tokens_set - {{'{token}'}})`.\n\
                 To disable this check for all special tokens, pass `disallowed_special=()`.\n"
            )));
        }
        Ok(match counting {
            // The common encodings count over the embedded rank table.
            Some(c) => count_exactly(c, self.runs(), text, &[]),
            None => count_ordinary_core(self.bpe(), self.runs(), text),
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

/// The leftmost special token in `text`, if any.
fn first_special<'a>(specials: impl Iterator<Item = &'a str>, text: &str) -> Option<String> {
    if !text.contains("<|") {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for token in specials {
        if let Some(pos) = text.find(token) {
            if best.is_none_or(|(p, t)| pos < p || (pos == p && token.len() > t.len())) {
                best = Some((pos, token));
            }
        }
    }
    best.map(|(_, t)| t.to_string())
}

/// `len(encode(text, allowed_special=allowed))` over a counting BPE, exact
/// even where the regex gives up on a huge whitespace stretch
/// ([`super::whitespace`]).
pub fn count_exactly(bpe: &CountingBpe, runs: Runs, text: &str, allowed: &[&str]) -> usize {
    let regex = |t: &str| bpe.count(t, allowed);
    regex(text)
        .or_else(|| {
            whitespace::count(text, runs, &regex, &|piece| {
                super::bpe::count(piece, bpe.ranks())
            })
        })
        // Not reached: every piece left to the regex is short.
        .unwrap_or(text.len())
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

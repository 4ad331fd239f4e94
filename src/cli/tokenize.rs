//! `formatscope tokenize`: raw text counted with any shipped tokenizer.

use super::{print_json, usage_error};
use clap::Args;
use formatscope::tokens::{models, TokenizerSpec};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct TokenizeArgs {
    /// Text file; standard input when absent.
    pub(crate) file: Option<PathBuf>,

    /// Tokenizer: o200k_base, cl100k_base, o200k_harmony, qwen, deepseek,
    /// claude_legacy, or an estimate: claude, claude_o200k, gemini, llama3.
    #[arg(long, value_name = "NAME", conflicts_with = "model")]
    pub(crate) tokenizer: Option<String>,

    /// Use this model's tokenizer (see assets/models.json).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
}

pub(crate) fn tokenize(args: TokenizeArgs) -> i32 {
    let spec = match (&args.tokenizer, &args.model) {
        (Some(name), _) => match TokenizerSpec::from_name(name) {
            Some(t) => t,
            None => {
                return usage_error(format!(
                    "unknown tokenizer {name:?}; one of {}",
                    TokenizerSpec::names().join(", ")
                ))
            }
        },
        (None, Some(model)) => match models::lookup_any(model) {
            Some(info) => info.tokenizer,
            None => {
                return usage_error(format!("unknown model {model:?} (see assets/models.json)"))
            }
        },
        (None, None) => TokenizerSpec::ALL[0],
    };
    let text = match &args.file {
        Some(path) => {
            formatscope::files::read_regular(path, formatscope::files::SESSION_LIMIT, "text files")
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            // Never more than a session file's worth, whatever is piped in.
            let limit = formatscope::files::SESSION_LIMIT;
            let mut buf = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(std::io::stdin(), limit + 1),
                &mut buf,
            )
            .map_err(|e| format!("stdin: {e}"))
            .and_then(|_| {
                if buf.len() as u64 > limit {
                    Err(format!(
                        "stdin: more than {} of text; formatscope reads at most that",
                        formatscope::files::megabytes(limit)
                    ))
                } else {
                    Ok(buf)
                }
            })
        }
    };
    let text = match text
        .and_then(|b| String::from_utf8(b).map_err(|_| "the text is not UTF-8".to_string()))
    {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    print_json(&serde_json::json!({
        "tokenizer": spec.name,
        "exact": spec.exact_count(),
        "tokens": spec.count(&text),
    }));
    0
}

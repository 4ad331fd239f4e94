//! `formatscope tokenize`: raw text counted with any shipped tokenizer;
//! `--show` / `--json` hand over to `token_view` (boundaries and ids).

use super::{print_json, success, token_view, usage_error, Exit};
use clap::Args;
use formatscope::formatter::Provider;
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

    /// Use this model's tokenizer (see crates/core/assets/models.json).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,

    /// The provider whose tokenizer counts: with --model, else the
    /// session's model when it is this provider's, else its default.
    #[arg(long, value_name = "P", conflicts_with = "tokenizer", ignore_case = true, value_parser = super::release::provider_parser())]
    pub(crate) provider: Option<String>,

    /// Show the text with token boundaries: alternating shades on a
    /// terminal, `│` between tokens elsewhere; `·` a space, `↵` a newline.
    /// A session file is shown message by message.
    #[arg(long, conflicts_with = "json")]
    pub(crate) show: bool,

    /// Print each message's token ids with their byte ranges and count.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn tokenize(args: TokenizeArgs) -> Exit {
    let explicit = match (&args.tokenizer, &args.model) {
        (Some(name), _) => match TokenizerSpec::from_name(name) {
            Some(t) => Some(t),
            None => {
                return usage_error(format!(
                    "unknown tokenizer {name:?}; one of {}",
                    TokenizerSpec::names().join(", ")
                ))
            }
        },
        (None, Some(model)) => match models::lookup_any(model) {
            Some(info) => Some(info.tokenizer),
            None => {
                return usage_error(format!(
                    "unknown model {model:?} (see crates/core/assets/models.json)"
                ))
            }
        },
        (None, None) => None,
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
    if args.show || args.json {
        let json = token_view::parse(&text);
        // The view defaults to the session's model's tokenizer.
        let provider = match args.provider.as_deref().map(|p| (p, Provider::from_id(p))) {
            Some((_, Some(p))) => Some(p),
            Some((p, None)) => {
                return usage_error(format!(
                    "unknown provider {p:?}; one of openai, anthropic, dashscope, gemini, ollama, deepseek"
                ))
            }
            None => None,
        };
        let spec = provider
            .map(|p| {
                // As `count`: the session's model only under its own provider.
                let own = token_view::session_field(json.as_ref(), "provider")
                    .and_then(|id| Provider::from_id(&id))
                    == Some(p);
                let model = args.model.clone().or_else(|| {
                    own.then(|| token_view::session_field(json.as_ref(), "model"))
                        .flatten()
                });
                models::resolve(p, model.as_deref()).tokenizer
            })
            .or(explicit)
            .or_else(|| {
                token_view::session_field(json.as_ref(), "model")
                    .and_then(|m| models::lookup_any(&m))
                    .map(|i| i.tokenizer)
            })
            .unwrap_or(TokenizerSpec::ALL[0]);
        return token_view::run(spec, json, text, args.json);
    }
    let spec = explicit.unwrap_or(TokenizerSpec::ALL[0]);
    print_json(&serde_json::json!({
        "tokenizer": spec.name,
        "exact": spec.exact_count(),
        "tokens": spec.count(&text),
    }));
    success()
}

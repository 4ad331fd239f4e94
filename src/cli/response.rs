//! `formatscope response FILE --provider P`: what AgentScope's model class
//! builds from a recorded provider reply (response_oracle.py's shape).

use super::{failure, say, success, usage_error, Exit};
use clap::Args;
use formatscope::response::{parse_recorded, parse_recorded_each, Api, Options, Recorded};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct ResponseArgs {
    /// A response body as the provider's REST API returns it, or (with
    /// --stream) a JSON array of the stream's events: SSE `data:` payloads
    /// (OpenAI's "[DONE]" as a string) or NDJSON lines.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// openai, deepseek, anthropic, dashscope, gemini, ollama or
    /// openai-responses (the Responses API).
    #[arg(long, value_parser = ["openai", "deepseek", "anthropic", "dashscope", "gemini", "ollama", "openai-responses"])]
    provider: String,

    /// The file is a list of stream events.
    #[arg(long)]
    stream: bool,

    /// The model name given to the model class (DashScope: qvq* and *-vl*
    /// select the multimodal response).
    #[arg(long, value_name = "NAME")]
    model_name: Option<String>,

    /// stream_tool_parsing=False (OpenAI, DeepSeek, Anthropic, DashScope,
    /// openai-responses).
    #[arg(long)]
    no_stream_tool_parsing: bool,

    /// A structured_model was passed (the oracle's WeatherReport: city,
    /// temperature_c, conditions).
    #[arg(long)]
    structured: bool,

    /// OpenAI: generate_kwargs={"audio": {"format": FMT}}.
    #[arg(long, value_name = "FMT")]
    audio_format: Option<String>,

    /// DashScope: the multimodality constructor flag.
    #[arg(long, value_parser = ["true", "false"])]
    multimodality: Option<String>,

    /// Beyond AgentScope: split <think>…</think> in DashScope and Ollama
    /// text into a thinking block.
    #[arg(long)]
    split_think_tags: bool,
}

pub fn run(args: ResponseArgs) -> Exit {
    let Some(api) = Api::from_id(&args.provider) else {
        return usage_error(format!("unknown provider {}", args.provider));
    };
    let bytes = match formatscope::files::read_regular(
        &args.file,
        formatscope::files::SESSION_LIMIT,
        "session files",
    ) {
        Ok(b) => b,
        Err(e) => return usage_error(format!("{}: {e}", args.file.display())),
    };
    let data = match formatscope::json::parse(&bytes, Default::default()) {
        Ok(mut p) => {
            formatscope::py::normalize_numbers(&mut p.value);
            p.value
        }
        Err(e) => return usage_error(format!("{}:{e}", args.file.display())),
    };
    let mut opts = Options::new(api);
    if let Some(m) = args.model_name {
        opts.model_name = m;
    }
    opts.stream_tool_parsing = !args.no_stream_tool_parsing;
    opts.structured = args.structured;
    opts.audio_format = args.audio_format;
    opts.multimodality = args.multimodality.map(|m| m == "true");
    opts.split_think_tags = args.split_think_tags;
    let recorded = if args.stream {
        match write_stream(api, &data, &opts) {
            Ok(r) => r,
            Err(e) => return usage_error(e),
        }
    } else {
        let recorded = match parse_recorded(api, &data, false, &opts) {
            Ok(r) => r,
            Err(e) => return usage_error(e),
        };
        super::print_json(&recorded.to_json(api, false, &opts));
        recorded
    };
    if let Some(e) = &recorded.error {
        say(format!("error: {}: {}", e.error_type, e.message));
        return failure();
    }
    success()
}

/// Parses a recorded stream and prints the oracle's object as it goes,
/// byte for byte what `print_json` prints for the whole object: each
/// chunk is written when it is made and dropped (holding every cumulative
/// chunk, then the whole object as JSON, took 1.5 GB for a 1.2 MB
/// stream). Nothing is printed when the input is refused.
fn write_stream(
    api: Api,
    data: &Value,
    opts: &Options,
) -> Result<Recorded, formatscope::response::InputError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let head = Recorded::json_head(api, true, opts);
    let mut chunks = 0usize;
    // Write errors (a closed pipe) are ignored, as `print_json` ignores them.
    let recorded = parse_recorded_each(api, data, true, opts, &mut |c| {
        if chunks == 0 {
            let _ = write!(out, "{}", members(&head, true));
            let _ = write!(out, ",\n  \"chunks\": [");
        } else {
            let _ = write!(out, ",");
        }
        let _ = write!(out, "\n    {}", pretty_at(&c.to_json(true), 2));
        chunks += 1;
    })?;
    if chunks == 0 {
        let _ = write!(out, "{},\n  \"chunks\": []", members(&head, true));
    } else {
        let _ = write!(out, "\n  ]");
    }
    let _ = writeln!(out, ",{}\n}}", members(&recorded.json_tail(), false));
    let _ = out.flush();
    Ok(recorded)
}

/// An object's members as `to_string_pretty` writes them one level deep:
/// `{` first when `open`, then `\n  "key": value` joined by commas.
fn members(map: &Map<String, Value>, open: bool) -> String {
    let body = map
        .iter()
        .map(|(k, v)| {
            format!(
                "\n  {}: {}",
                pretty_at(&Value::String(k.clone()), 1),
                pretty_at(v, 1)
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    if open {
        format!("{{{body}")
    } else {
        body
    }
}

/// Pretty JSON safe for a terminal (`text::json_text`, as every other
/// `--json`) nested `depth` levels deep: JSON strings hold no raw newline,
/// so every newline starts a line to indent.
fn pretty_at(v: &Value, depth: usize) -> String {
    let text = formatscope::text::json_text(v);
    text.replace('\n', &format!("\n{}", "  ".repeat(depth)))
}

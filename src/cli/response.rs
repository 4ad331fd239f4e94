//! `formatscope response FILE --provider P`: what AgentScope's model class
//! builds from a recorded provider reply (response_oracle.py's shape).

use super::{say, usage_error};
use clap::Args;
use formatscope::response::{parse_recorded, Api, Options};
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

pub fn run(args: ResponseArgs) -> i32 {
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
    let recorded = match parse_recorded(api, &data, args.stream, &opts) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let out = recorded.to_json(api, args.stream, &opts);
    super::print_json(&out);
    if let Some(e) = &recorded.error {
        say(format!("error: {}: {}", e.error_type, e.message));
        return 1;
    }
    0
}

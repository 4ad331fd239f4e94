//! `formatscope format --agentscope 2.0.11`: a session through one of
//! AgentScope 2.0.11's formatter classes, printed as the 2.x reference
//! oracle prints it. A thin layer over `formatscope::reference::v2`.

use super::format::FormatArgs;
use super::{usage_error, web_fetcher};
use formatscope::media::MediaEnv;
use formatscope::reference::v2;

fn names(list: &Option<String>) -> Option<Vec<String>> {
    list.as_ref().map(|s| {
        s.split(',')
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    })
}

pub(crate) fn run(args: FormatArgs) -> i32 {
    let unsupported = [
        ("--provider", args.provider.is_some()),
        ("--mode", args.mode.is_some()),
        ("--max-tokens", args.max_tokens.is_some()),
        ("--token-counter", args.token_counter.is_some()),
        ("--session-budget", args.session_budget),
        (
            "--promote-tool-result-images",
            args.promote_tool_result_images,
        ),
        (
            "--promote-tool-result-audios",
            args.promote_tool_result_audios,
        ),
        (
            "--promote-tool-result-videos",
            args.promote_tool_result_videos,
        ),
        ("--endpoint", args.endpoint.is_some()),
        ("--model", args.model.is_some()),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|(_, on)| *on) {
        return usage_error(format!(
            "{flag} is not an AgentScope 2.0.11 option (2.x has no truncation, token counters, promote flags or request envelope)"
        ));
    }
    let session = match super::read_session_value(&args.session) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let path = std::path::absolute(&args.session).unwrap_or_else(|_| args.session.clone());
    let base_dir = path
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    let opts = v2::Options {
        formatter: args.formatter.clone(),
        count: args.count,
        tools: args.tools,
        tool_choice: args.tool_choice.clone(),
        tool_choice_tools: names(&args.tool_choice_tools),
        input_types: names(&args.input_types),
        conversation_history_prompt: args.conversation_history_prompt.clone(),
        msgs_only: args.msgs_only,
        dump_msgs: args.dump_msgs,
        web_roots: args.web_root.clone(),
        raw: args.raw,
    };
    let env = MediaEnv::new(&base_dir, web_fetcher(&args.web_root, args.offline));
    let out = match v2::run_with(&session, &env, &opts) {
        Ok(v) => v,
        Err(e) => return usage_error(e),
    };
    super::print_oracle_object(&out)
}

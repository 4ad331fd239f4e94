//! The rules AgentScope 2.0.11 formats by where they differ from 1.0.21
//! (formatters-v2.md §15), each with its place in the 2.0.11 package
//! (checked against the installed `agentscope==2.0.11`). They are named,
//! not yet attributed: `explain` attributes the nodes of 1.0.21 requests
//! only, and `lint --agentscope 2.0.11` fires the upgrade findings.

use super::rules::{Rule, AGENTSCOPE_DOC, ANTHROPIC_API, DASHSCOPE_API, DEEPSEEK_API};
use super::rules::{GEMINI_API, OLLAMA_API};

/// The 2.x rules: `agentscope` is the file and class/method in 2.0.11.
#[rustfmt::skip]
pub const RULES_V2: &[Rule] = &[
    // The message model.
    r!("v2.msg.blocks-by-role", "all", "content is a list of blocks: a user message holds only text and data blocks, a system message only text, and a name must be a string", "agentscope/message/_base.py: Msg (model validator), _assert_user_content_blocks, _assert_system_content_blocks", AGENTSCOPE_DOC),
    r!("v2.tool-result.assistant-message", "all", "tool calls and tool results belong to assistant messages: v1 results kept under system or user move there", "agentscope/message/_base.py: Msg, _assert_user_content_blocks; agentscope/message/_block.py: ToolResultBlock", AGENTSCOPE_DOC),
    r!("v2.data.media-type", "all", "image, audio and video are data blocks with a media type; a URL must be a URL (local files as file://)", "agentscope/message/_block.py: DataBlock, URLSource, Base64Source", AGENTSCOPE_DOC),
    r!("v2.tool_call.raw-input", "all", "a tool call's input is the raw argument string: OpenAI-style providers send it unchanged, Anthropic, Gemini and Ollama repair and parse it", "agentscope/message/_block.py: ToolCallBlock; agentscope/formatter/_anthropic_formatter.py: _json_loads_with_repair", AGENTSCOPE_DOC),
    // Shared formatter machinery.
    r!("v2.input-types.filter", "all", "a data block whose media type is outside the formatter's input_types is skipped with a warning (DeepSeek: text only; xAI: jpeg and png; Anthropic: no audio or video)", "agentscope/formatter/_formatter_base.py: FormatterBase.input_types, supported_input_media_types", AGENTSCOPE_DOC),
    r!("v2.tool-result-media.system-reminder", "all", "media in a tool result are always promoted: the result names them, and a user message after it (named system-reminder in OpenAI-style requests) carries them between <system-reminder> tags; unsupported media become a fallback text", "agentscope/formatter/_formatter_base.py: FormatterBase.convert_tool_result_to_string, _convert_unsupported_data_block_to_string", AGENTSCOPE_DOC),
    r!("v2.hint.user-message", "all", "a hint block becomes a user message at its place, splitting the assistant turn; hints vanish in multi-agent history", "agentscope/formatter/_openai_formatter.py: OpenAIChatFormatter.format (HintBlock; likewise every chat formatter's format)", AGENTSCOPE_DOC),
    r!("v2.multi_agent.history.first-group", "all", "Anthropic and Ollama wrap only the first history group in <history> tags; Gemini's history now opens with \"<history>\\n\"", "agentscope/formatter/_anthropic_formatter.py: AnthropicMultiAgentFormatter._format_agent_message; agentscope/formatter/_ollama_formatter.py: OllamaMultiAgentFormatter._format_agent_message", AGENTSCOPE_DOC),
    r!("v2.multi_agent.system.string", "all", "OpenAI, DashScope and DeepSeek multi-agent requests send the system content as a string", "agentscope/formatter/_openai_formatter.py: OpenAIMultiAgentFormatter._format_system_message", AGENTSCOPE_DOC),
    // Providers.
    r!("v2.openai.audio.wav-mp3-only", "OpenAI", "OpenAI-style formatters take audio/wav and audio/mpeg only: a .wav guessed as audio/x-wav raises TypeError", "agentscope/formatter/_openai_formatter.py: _OpenAIFormatterBase._format_audio_source", super::rules::OPENAI_API),
    r!("v2.anthropic.tool-results-merged", "Anthropic", "consecutive tool results go in one user message", "agentscope/formatter/_anthropic_formatter.py: _AnthropicFormatterBase._format_messages", ANTHROPIC_API),
    r!("v2.anthropic.thinking-signature", "Anthropic", "thinking without a signature is dropped, as are empty text blocks; web images are downloaded and inlined", "agentscope/formatter/_anthropic_formatter.py: _AnthropicFormatterBase._format_messages, _format_source", ANTHROPIC_API),
    r!("v2.dashscope.openai-shape", "DashScope", "DashScope gets the OpenAI-compatible shape: text, image_url, video_url and input_audio parts, never collapsed to a string, no name", "agentscope/formatter/_dashscope_formatter.py: DashScopeChatFormatter.format, _DashScopeFormatterBase._format_dashscope_data_block", DASHSCOPE_API),
    r!("v2.deepseek.reasoning-content", "DeepSeek", "every assistant message carries reasoning_content (\"\" without thinking), thinking kept", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter.format", DEEPSEEK_API),
    r!("v2.gemini.thought-parts", "Gemini", "thinking goes as {\"thought\": true, \"text\"} parts (empty thinking dropped), function calls carry their id, parallel responses share one user turn", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter.format, _flush_tool_results", GEMINI_API),
    r!("v2.ollama.tool-call-per-message", "Ollama", "one assistant message per tool call, without a call id; tool messages carry tool_name; history lines are \"Name:\\ntext\"", "agentscope/formatter/_ollama_formatter.py: OllamaChatFormatter.format, _format_tool_call_message", OLLAMA_API),
    // The model side.
    r!("v2.count.bytes-estimate", "all", "no truncation and no tokenizer: count_tokens is the text's UTF-8 bytes / 4 plus 2,000 per data block", "agentscope/model/_base.py: ChatModelBase.count_tokens", AGENTSCOPE_DOC),
    r!("v2.tools.tool-choice", "all", "tool_choice is ToolChoice(mode, tools): its tools filter the schemas, \"any\" is gone; OpenAI flattens $defs, Gemini also drops additionalProperties and nullable anyOf", "agentscope/tool/_types.py: ToolChoice; agentscope/model/_*/_model.py: _format_tools", AGENTSCOPE_DOC),
];

//! The rules behind the nodes of a request: a stable id, which provider,
//! one line on what it does, where it lives in AgentScope 1.0.21 and in
//! the provider's API reference.

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    /// "OpenAI", "Anthropic", ... or "all" (multi-agent rules, the wire).
    pub provider: &'static str,
    pub text: &'static str,
    /// File and class/method in AgentScope 1.0.21 (2.0.11 for `RULES_V2`).
    pub agentscope: &'static str,
    /// The provider's API reference for the field.
    pub api: &'static str,
}

pub(super) const OPENAI_API: &str = "https://platform.openai.com/docs/api-reference/chat/create";
pub(super) const ANTHROPIC_API: &str = "https://docs.anthropic.com/en/api/messages";
pub(super) const DASHSCOPE_API: &str =
    "https://www.alibabacloud.com/help/en/model-studio/use-qwen-by-calling-api";
pub(super) const GEMINI_API: &str = "https://ai.google.dev/api/generate-content#v1beta.Content";
pub(super) const OLLAMA_API: &str =
    "https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion";
pub(super) const DEEPSEEK_API: &str = "https://api-docs.deepseek.com/api/create-chat-completion";

#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    // Multi-agent skeleton, every provider.
    r!("multi_agent.system.first", "all", "the system prompt is formatted on its own, before everything else", "agentscope/formatter/_truncated_formatter_base.py: TruncatedFormatterBase._format, _format_system_message", AGENTSCOPE_DOC),
    r!("multi_agent.history.wrap", "all", "consecutive messages outside tool runs become one user message: \"<name>: <text>\" lines between <history> and </history>, the history prompt before the first group", "agentscope/formatter/_truncated_formatter_base.py: TruncatedFormatterBase._group_messages; *MultiAgentFormatter._format_agent_message", AGENTSCOPE_DOC),
    // OpenAI
    r!("openai.message.role-and-name", "OpenAI", "a message keeps its role and carries the speaker in name; its blocks become content parts", "agentscope/formatter/_openai_formatter.py: OpenAIChatFormatter._format", OPENAI_API),
    r!("openai.text.part", "OpenAI", "a text block is copied as a text part, extra keys included (cache_control, thought_signature)", "agentscope/formatter/_openai_formatter.py: OpenAIChatFormatter._format", OPENAI_API),
    r!("openai.image.base64-inline", "OpenAI", "a local image is read and sent inline as a data: URL (a .jpg as image/jpg)", "agentscope/formatter/_openai_formatter.py: _format_openai_image_block, _to_openai_image_url", OPENAI_API),
    r!("openai.image.url", "OpenAI", "a web image is passed by its URL", "agentscope/formatter/_openai_formatter.py: _format_openai_image_block", OPENAI_API),
    r!("openai.audio.input-audio", "OpenAI", "audio becomes an input_audio part: base64 data and a format", "agentscope/formatter/_openai_formatter.py: _to_openai_audio_data", OPENAI_API),
    r!("openai.tool_use.tool-calls", "OpenAI", "tool calls go in the assistant message's tool_calls, each a function with JSON-string arguments", "agentscope/formatter/_openai_formatter.py: OpenAIChatFormatter._format", OPENAI_API),
    r!("openai.tool_result.role-tool", "OpenAI", "a tool result becomes a role \"tool\" message with tool_call_id, its output flattened to a string", "agentscope/formatter/_formatter_base.py: FormatterBase.convert_tool_result_to_string", OPENAI_API),
    // Anthropic
    r!("anthropic.system.role-in-messages", "Anthropic", "the formatter keeps the system prompt as a role \"system\" message; the model class moves it to the top-level system field", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.message.role-content", "Anthropic", "a message keeps its role with a list of content blocks; the speaker's name is not sent", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.text.block", "Anthropic", "a text block is copied, extra keys included (cache_control)", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.image.base64-source", "Anthropic", "a local image is read into a base64 source with its media type", "agentscope/formatter/_anthropic_formatter.py: _format_anthropic_image_block", ANTHROPIC_API),
    r!("anthropic.image.url-source", "Anthropic", "a web image becomes a url source (Anthropic fetches it)", "agentscope/formatter/_anthropic_formatter.py: _format_anthropic_image_block", ANTHROPIC_API),
    r!("anthropic.thinking.kept", "Anthropic", "thinking blocks are sent back as they are, signature included", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.tool_use.block", "Anthropic", "a tool call stays a tool_use block, its input an object", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.tool_result.user-turn", "Anthropic", "a tool result goes in a user turn as a tool_result block with tool_use_id, its output blocks inside", "agentscope/formatter/_anthropic_formatter.py: AnthropicChatFormatter._format", ANTHROPIC_API),
    r!("anthropic.system.top-level", "Anthropic", "the model class takes the system message out of messages into the top-level system field", "agentscope/model/_anthropic_model.py: AnthropicChatModel.__call__", ANTHROPIC_API),
    r!("anthropic.wire.max-tokens", "Anthropic", "max_tokens is required by the API; the model class always sends it", "agentscope/model/_anthropic_model.py: AnthropicChatModel.__call__", ANTHROPIC_API),
    // DashScope
    r!("dashscope.message.content-list", "DashScope", "a message keeps its role with a list of parts, one key each (text, image, audio, video)", "agentscope/formatter/_dashscope_formatter.py: DashScopeChatFormatter._format", DASHSCOPE_API),
    r!("dashscope.reformat.plain-text-string", "DashScope", "a message whose parts are all text becomes one string (the DashScope reformat)", "agentscope/formatter/_dashscope_formatter.py: _reformat_messages", DASHSCOPE_API),
    r!("dashscope.text.part", "DashScope", "a text block becomes {\"text\": ...}", "agentscope/formatter/_dashscope_formatter.py: DashScopeChatFormatter._format", DASHSCOPE_API),
    r!("dashscope.local-media.base64-inline", "DashScope", "a local file (file:// or a path) is read, or a base64 source taken, and sent inline as a data: URL with its MIME type; the part keeps the block's type even for another kind of file", "agentscope/formatter/_dashscope_formatter.py: _format_dashscope_media_block", DASHSCOPE_API),
    r!("dashscope.media.url", "DashScope", "a web URL (or a local path that does not exist, file:// removed) is passed as it is", "agentscope/formatter/_dashscope_formatter.py: _format_dashscope_media_block", DASHSCOPE_API),
    r!("dashscope.tool_use.tool-calls", "DashScope", "tool calls go in the assistant message's tool_calls (OpenAI's shape)", "agentscope/formatter/_dashscope_formatter.py: DashScopeChatFormatter._format", DASHSCOPE_API),
    r!("dashscope.tool_result.role-tool", "DashScope", "a tool result becomes a role \"tool\" message with tool_call_id and name, its output a string", "agentscope/formatter/_dashscope_formatter.py: DashScopeChatFormatter._format", DASHSCOPE_API),
    r!("dashscope.wire.input-parameters", "DashScope", "the SDK sends the messages under input and the options under parameters", "agentscope/model/_dashscope_model.py: DashScopeChatModel.__call__", DASHSCOPE_API),
    // Gemini
    r!("gemini.role.assistant-as-model", "Gemini", "an assistant message becomes a \"model\" turn", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.role.user", "Gemini", "user and system messages become \"user\" turns of parts: the system prompt is not a systemInstruction", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.text.part", "Gemini", "a text block becomes a {\"text\": ...} part", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.media.inline-data", "Gemini", "media go inline: base64 data with a MIME type (web URLs are downloaded first)", "agentscope/formatter/_gemini_formatter.py: _format_gemini_media_block, _to_gemini_inline_data", GEMINI_API),
    r!("gemini.tool_use.function-call", "Gemini", "a tool call becomes a function_call part: id, name and args", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.tool_result.function-response", "Gemini", "a tool result becomes a user turn with a function_response part, its output under response.output", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.thought-signature.bytes", "Gemini", "a thought signature rides on its part, as bytes", "agentscope/formatter/_gemini_formatter.py: GeminiChatFormatter._format", GEMINI_API),
    r!("gemini.history.wrap-no-newline", "Gemini", "history groups as in every multi-agent formatter, but \"<history>\" is followed directly by the first line (no newline)", "agentscope/formatter/_gemini_formatter.py: GeminiMultiAgentFormatter._format_agent_message", GEMINI_API),
    r!("gemini.system.system-instruction", "Gemini", "systemInstruction comes only from the request's config (system_instruction): AgentScope itself sends the system prompt as a user turn", "agentscope/model/_gemini_model.py: GeminiChatModel.__call__", GEMINI_API),
    r!("gemini.wire.contents", "Gemini", "the turns go in contents, keys in the REST API's camelCase", "agentscope/model/_gemini_model.py: GeminiChatModel.__call__ (google-genai)", GEMINI_API),
    r!("gemini.wire.config", "Gemini", "generation options and tools go in generationConfig, tools and toolConfig", "agentscope/model/_gemini_model.py: GeminiChatModel.__call__", GEMINI_API),
    // Ollama
    r!("ollama.message.content-string", "Ollama", "content is one string: the text blocks joined with newlines", "agentscope/formatter/_ollama_formatter.py: OllamaChatFormatter._format", OLLAMA_API),
    r!("ollama.image.base64-inline", "Ollama", "images go in the message's images list as bare base64 (web URLs downloaded)", "agentscope/formatter/_ollama_formatter.py: _format_ollama_image_block, _convert_ollama_image_url_to_base64_data", OLLAMA_API),
    r!("ollama.tool_use.arguments-object", "Ollama", "tool calls keep their arguments as an object, not a JSON string", "agentscope/formatter/_ollama_formatter.py: OllamaChatFormatter._format", OLLAMA_API),
    r!("ollama.tool_result.role-tool", "Ollama", "a tool result becomes a role \"tool\" message with tool_call_id and name", "agentscope/formatter/_ollama_formatter.py: OllamaChatFormatter._format", OLLAMA_API),
    r!("ollama.wire.keep-alive", "Ollama", "the client adds keep_alive and the model's options", "agentscope/model/_ollama_model.py: OllamaChatModel.__call__", OLLAMA_API),
    // DeepSeek
    r!("deepseek.message.role-content", "DeepSeek", "a message keeps its role with text parts; the speaker's name is not sent", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter._format", DEEPSEEK_API),
    r!("deepseek.text.part", "DeepSeek", "a text block is copied as a text part", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter._format", DEEPSEEK_API),
    r!("deepseek.thinking.reasoning-content", "DeepSeek", "thinking blocks are sent back as reasoning_content", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter._format", DEEPSEEK_API),
    r!("deepseek.tool_use.tool-calls", "DeepSeek", "tool calls go in tool_calls (OpenAI's shape)", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter._format", DEEPSEEK_API),
    r!("deepseek.tool_result.role-tool", "DeepSeek", "a tool result becomes a role \"tool\" message with tool_call_id", "agentscope/formatter/_deepseek_formatter.py: DeepSeekChatFormatter._format", DEEPSEEK_API),
    // The wire, every provider.
    r!("tool_use.input-as-is", "all", "the tool call's input is copied as the session has it", "agentscope/formatter/_*_formatter.py: _format (tool_use)", AGENTSCOPE_DOC),
    r!("wire.model", "all", "the model name the model class was built with", "agentscope/model/_*_model.py: __init__(model_name)", AGENTSCOPE_DOC),
    r!("wire.stream", "all", "stream, from the model class's stream argument (default true)", "agentscope/model/_*_model.py: __init__(stream)", AGENTSCOPE_DOC),
    r!("wire.messages", "all", "the formatter's messages, as the SDK sends them", "agentscope/model/_*_model.py: __call__", AGENTSCOPE_DOC),
    r!("wire.tools", "all", "the tool schemas, converted by the model class for the provider", "agentscope/model/_*_model.py: _format_tools_json_schemas", AGENTSCOPE_DOC),
    r!("wire.tool-choice", "all", "tool_choice, converted by the model class", "agentscope/model/_*_model.py: _format_tool_choice", AGENTSCOPE_DOC),
    r!("wire.stream-options", "OpenAI", "a streamed OpenAI-protocol call asks for usage in the last chunk", "agentscope/model/_openai_model.py: OpenAIChatModel.__call__", OPENAI_API),
    r!("wire.thinking", "all", "the reasoning switch the model class was built with (thinking, think, enable_thinking, reasoning_effort)", "agentscope/model/_*_model.py: __init__", AGENTSCOPE_DOC),
    r!("wire.generate-kwargs", "all", "a generation option from the session's request object (generate_kwargs), passed through", "agentscope/model/_*_model.py: __call__(**generate_kwargs)", AGENTSCOPE_DOC),
];

pub(super) const AGENTSCOPE_DOC: &str = "https://doc.agentscope.io/";

impl Rule {
    /// The API reference for this rule in `provider`'s request: a shared
    /// rule (multi-agent, the wire) points at that provider's reference.
    pub fn api_for(&self, provider: crate::provider::Provider) -> &'static str {
        use crate::provider::Provider;
        if self.provider != "all" {
            return self.api;
        }
        match provider {
            Provider::OpenAi => OPENAI_API,
            Provider::Anthropic => ANTHROPIC_API,
            Provider::DashScope => DASHSCOPE_API,
            Provider::Gemini => GEMINI_API,
            Provider::Ollama => OLLAMA_API,
            Provider::DeepSeek => DEEPSEEK_API,
        }
    }
}

//! The rules AgentScope 0.1.6's legacy formatters (`agentscope.formatters`)
//! format by (formatters-v0.md §2–§9), each with its class and method.
//! Attributed by message, not by node: `explain --agentscope 0.1.6` lists
//! the rules a session's messages call for (`reference::v0`).

use super::rules::{Rule, AGENTSCOPE_DOC, ANTHROPIC_API, DASHSCOPE_API, GEMINI_API, OPENAI_API};

/// The 0.1.6 rules: `agentscope` is the class and method in
/// `agentscope.formatters` at 0.1.6.
#[rustfmt::skip]
pub const RULES_V0: &[Rule] = &[
    // Every class.
    r!("v0.msg.convert", "all", "a session message becomes a 0.1.6 Msg: text, tool calls and results, and image, audio, video or file URLs (the kind taken from the URL's extension); what a 0.1.6 Msg cannot hold is left out and listed", "agentscope.message.Msg (0.1.6)", AGENTSCOPE_DOC),
    r!("v0.auto.count-messages", "all", "format_auto counts the user and assistant messages (not the names): two or fewer format as chat, more as multi-agent", "agentscope.formatters.FormatterBase.format_auto", AGENTSCOPE_DOC),
    r!("v0.python.str", "all", "a tool result's output and the history's tool blocks are written by Python's str()/repr() ({'temp': 25.5, 'rain': False}); tool-call arguments by json.dumps", "agentscope.formatters.OpenAIFormatter.format_multi_agent; AnthropicFormatter.format_multi_agent", AGENTSCOPE_DOC),
    // OpenAI and DashScope chat.
    r!("v0.openai.one-list", "OpenAI", "chat is multi-agent: every message keeps its role and name, its text blocks become text parts (content null when none)", "agentscope.formatters.OpenAIFormatter.format_multi_agent", OPENAI_API),
    r!("v0.openai.tool-calls", "OpenAI", "tool calls go in the message's tool_calls, their input as json.dumps arguments", "agentscope.formatters.OpenAIFormatter.format_multi_agent; DashScopeFormatter.format_chat", OPENAI_API),
    r!("v0.openai.tool-result-first", "OpenAI", "a tool result is appended at once as its own role \"tool\" message (content str(output), name null when absent): it lands before the message that carries it, and a message left empty is dropped", "agentscope.formatters.OpenAIFormatter.format_multi_agent; DashScopeFormatter.format_chat", OPENAI_API),
    r!("v0.openai.image-url", "OpenAI", "an image is an image_url part: a web URL as it is, a local file read into data:image/EXT;base64 (EXT as the file is named); other endings raise TypeError", "agentscope.formatters.OpenAIFormatter.format_multi_agent", OPENAI_API),
    r!("v0.unsupported.skipped", "all", "a block the class cannot send is skipped with a warning (OpenAI: audio, video, file; Anthropic: audio, video, file; DashScope chat: video, file)", "agentscope.formatters.*Formatter.format_chat", AGENTSCOPE_DOC),
    // Anthropic.
    r!("v0.anthropic.system-later-as-user", "Anthropic", "chat: a system message after the first is sent as a user message; every message keeps its blocks, an empty list included", "agentscope.formatters.AnthropicFormatter.format_chat", ANTHROPIC_API),
    r!("v0.anthropic.image-source", "Anthropic", "an image's source is a web URL as a plain string, or a local file as base64 whose data keeps the data: prefix (jpg written jpeg; no webp)", "agentscope.formatters.AnthropicFormatter.format_chat", ANTHROPIC_API),
    r!("v0.anthropic.tool-blocks", "Anthropic", "chat: a tool call stays a tool_use block, a tool result becomes a tool_result block with its output unchanged", "agentscope.formatters.AnthropicFormatter.format_chat", ANTHROPIC_API),
    // DashScope.
    r!("v0.dashscope.parts", "DashScope", "chat: text, image and audio become {\"text\"}, {\"image\"}, {\"audio\"} parts, URLs unchanged; no name", "agentscope.formatters.DashScopeFormatter.format_chat", DASHSCOPE_API),
    r!("v0.dashscope.media-first", "DashScope", "multi-agent: image and audio go before the history, kind from the URL's extension, an existing local path prefixed with file://", "agentscope.formatters.DashScopeFormatter.format_multi_agent", DASHSCOPE_API),
    // Gemini.
    r!("v0.gemini.parts-string", "Gemini", "chat: one turn per message, user and system as user, assistant as model, parts the text as a string (media and tools ignored)", "agentscope.formatters.GeminiFormatter.format_chat", GEMINI_API),
    // Multi-agent.
    r!("v0.multi_agent.system-first", "all", "multi-agent: a system message at position 0 is the system prompt (its text only; Gemini puts it before the history in the one user part)", "agentscope.formatters.*Formatter.format_multi_agent", AGENTSCOPE_DOC),
    r!("v0.multi_agent.history", "all", "multi-agent: every other message is a \"NAME: TEXT\" line after \"## Conversation History\" in one user message (Anthropic also writes <tool_use> and <tool_result> lines)", "agentscope.formatters.*Formatter.format_multi_agent", AGENTSCOPE_DOC),
    // CommonFormatter (Ollama, DeepSeek).
    r!("v0.common.text-only", "all", "CommonFormatter sends each message's text only, roles unchanged; media and tool blocks are dropped", "agentscope.formatters.CommonFormatter.format_chat", AGENTSCOPE_DOC),
    r!("v0.common.fallback", "all", "CommonFormatter.format_chat falls back to multi-agent when require_alternative finds two same roles side by side or require_user_last a last message not from the user", "agentscope.formatters.CommonFormatter.format_chat", AGENTSCOPE_DOC),
];

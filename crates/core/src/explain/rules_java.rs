//! The rules AgentScope Java 2.0.2 formats by where it differs from
//! Python 1.0.21 (formatters-java.md, "Differences from Python 1.0.21"),
//! each with its place in the agentscope-java source at tag `v2.0.2`
//! (commit a5d6213e). Named, not attributed: `explain` attributes the
//! nodes of 1.0.21 requests only; `lint --agentscope java-2.0.2` fires the
//! port findings that share these ids.

use super::rules::{Rule, DASHSCOPE_API, DEEPSEEK_API, OLLAMA_API, OPENAI_API};

/// The Java rules: `agentscope` is the Java class (and method) at v2.0.2;
/// the OpenAI family's classes live in agentscope-extensions-model-openai,
/// DashScope's and Ollama's in their own extension modules.
#[rustfmt::skip]
pub const RULES_JAVA: &[Rule] = &[
    r!("java.openai.content-string", "OpenAI", "a text-only message's content is a plain string, not a list of text parts", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertUserMessage", OPENAI_API),
    r!("java.tool-call.arguments-compact", "all", "tool-call arguments are written by Jackson: compact, keys in HashMap order ({\"keyword\":\"library\",\"location\":[104.48,36.3]})", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertAssistantMessage", OPENAI_API),
    r!("java.tool-call-only.content-empty", "all", "an assistant message with only tool calls has content \"\" (Python: null, DashScope [])", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertAssistantMessage", OPENAI_API),
    r!("java.openai.tool-message-no-name", "OpenAI", "tool messages carry no name", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertToolMessage", OPENAI_API),
    r!("java.multi-agent.history-prompt-every-group", "OpenAI", "every history group gets the whole conversation-history prompt, and the history ends \"</history>\\n\" (OpenAI, DeepSeek, GLM; Python: the first group only)", "io.agentscope.extensions.model.openai.formatter.OpenAIConversationMerger.mergeToUserMessage", OPENAI_API),
    r!("java.multi-agent.single-line-no-name", "OpenAI", "a history group of one message is sent without the speaker's name", "io.agentscope.extensions.model.openai.formatter.OpenAIConversationMerger.mergeToUserMessage", OPENAI_API),
    r!("java.openai.system-in-middle", "OpenAI", "a system message after the first is its own system message, splitting the history (Python: a history line)", "io.agentscope.extensions.model.openai.formatter.OpenAIMultiAgentFormatter.groupMessages", OPENAI_API),
    r!("java.openai.thinking-reasoning-content", "OpenAI", "chat: the first thinking block becomes reasoning_content and a thinking-only message is kept with content \"\"; multi-agent: \"Name: [Thinking]: ...\" history lines (Python drops thinking)", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertAssistantMessage", OPENAI_API),
    r!("java.deepseek.reasoning-before-last-user", "DeepSeek", "reasoning_content before the last user message is dropped; a thinking-only message is kept", "io.agentscope.extensions.model.openai.formatter.DeepSeekFormatter.applyDeepSeekFixes", DEEPSEEK_API),
    r!("java.openai.tool-result-parts", "OpenAI", "a tool result with images is a part list: text, image_url (URL or data URL), text", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertToolMessage", OPENAI_API),
    r!("java.empty-content-kept", "all", "an empty message is kept with content \"\"", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertToMessage", OPENAI_API),
    r!("java.openai.local-image-path", "OpenAI", "a local image that does not exist is sent as an image_url holding its path (Python raises)", "io.agentscope.extensions.model.openai.formatter.OpenAIConverterUtils.convertImageSourceToUrl", OPENAI_API),
    r!("java.ollama.tool-call-function-only", "Ollama", "a tool call is {\"function\": ...} only, without id and type", "io.agentscope.extensions.model.ollama.formatter.OllamaMessageConverter.convertMessage", OLLAMA_API),
    r!("java.deepseek.name", "DeepSeek", "DeepSeek messages carry the speaker's name, cleaned to [a-zA-Z0-9_-]", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.sanitizeName", DEEPSEEK_API),
    r!("java.dashscope.file-url", "DashScope", "a local image or video file is sent as file://<absolute path> on both endpoints (the SDK uploads it); Python inlines base64", "io.agentscope.extensions.model.dashscope.formatter.DashScopeMediaConverter.convertImageBlockToUrl", DASHSCOPE_API),
    r!("java.dashscope.endpoint-by-model", "DashScope", "the model's name picks the endpoint: vision, audio and qwen3.5+ models get the multimodal one, whose content is [{\"text\": ...}] parts", "io.agentscope.extensions.model.dashscope.DashScopeHttpClient.isMultimodalModel", DASHSCOPE_API),
    r!("java.role-tool", "all", "a message of role tool is accepted (a TOOL message; a result without an id gets tool_call_<millis>)", "io.agentscope.core.message.MsgRole.TOOL", OPENAI_API),
    r!("java.openai.audio-url-text", "OpenAI", "audio from a file or a URL is sent as a text part \"[Audio URL: ...]\": the model reads the path, it does not hear the audio (Python sends input_audio)", "io.agentscope.extensions.model.openai.formatter.OpenAIMessageConverter.convertContentBlocks; OpenAIConversationMerger (history lines)", OPENAI_API),
    r!("java.envelope", "all", "each model class wraps the messages in its own body: stream true and stream_options (OpenAI, DeepSeek), DashScope's parameters, Ollama's options", "io.agentscope.extensions.model.openai.OpenAIChatModel; io.agentscope.extensions.model.dashscope.DashScopeChatModel; io.agentscope.extensions.model.ollama.OllamaChatModel", OPENAI_API),
];

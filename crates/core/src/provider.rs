//! The shared vocabulary of every layer: the six providers, the two modes
//! and the twelve formatter classes they make. Nothing here depends on the
//! formatters, the wire layer or the workbench; they all depend on this.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provider {
    OpenAi,
    Anthropic,
    DashScope,
    Gemini,
    Ollama,
    DeepSeek,
}

impl Provider {
    pub const ALL: [Provider; 6] = [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::DashScope,
        Provider::Gemini,
        Provider::Ollama,
        Provider::DeepSeek,
    ];

    /// The lower-case name used in session files and on the command line.
    pub const fn id(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::DashScope => "dashscope",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
            Provider::DeepSeek => "deepseek",
        }
    }

    /// The name as AgentScope's class names spell it.
    pub const fn class_prefix(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::Anthropic => "Anthropic",
            Provider::DashScope => "DashScope",
            Provider::Gemini => "Gemini",
            Provider::Ollama => "Ollama",
            Provider::DeepSeek => "DeepSeek",
        }
    }

    /// The model a request is for when neither a flag nor the session
    /// names one: the model AgentScope's request oracle builds each model
    /// class with. The one default: counting, the wire, sends and exports
    /// all use it (see `model_choice`).
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4o",
            Provider::Anthropic => "claude-sonnet-4-6",
            Provider::DashScope => "qwen-max",
            Provider::Gemini => "gemini-2.5-flash",
            Provider::Ollama => "qwen2.5",
            Provider::DeepSeek => "deepseek-chat",
        }
    }

    pub fn from_id(name: &str) -> Option<Provider> {
        let lower = name.to_ascii_lowercase();
        Provider::ALL.into_iter().find(|p| p.id() == lower)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.class_prefix())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Chat,
    MultiAgent,
}

impl Mode {
    /// `multi_agent` in session files (`multi-agent` is accepted too).
    pub fn from_id(name: &str) -> Option<Mode> {
        match name.to_ascii_lowercase().replace('-', "_").as_str() {
            "chat" => Some(Mode::Chat),
            "multi_agent" | "multiagent" => Some(Mode::MultiAgent),
            _ => None,
        }
    }
    pub const fn id(self) -> &'static str {
        match self {
            Mode::Chat => "chat",
            Mode::MultiAgent => "multi_agent",
        }
    }
}

/// One of the twelve formatter classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormatterId {
    pub provider: Provider,
    pub mode: Mode,
}

impl FormatterId {
    pub fn new(provider: Provider, mode: Mode) -> Self {
        Self { provider, mode }
    }

    pub fn all() -> impl Iterator<Item = FormatterId> {
        Provider::ALL.into_iter().flat_map(|p| {
            [Mode::Chat, Mode::MultiAgent]
                .into_iter()
                .map(move |m| FormatterId::new(p, m))
        })
    }

    /// `OpenAIChatFormatter`, `DashScopeMultiAgentFormatter`, ...
    pub fn class_name(self) -> String {
        let mode = match self.mode {
            Mode::Chat => "Chat",
            Mode::MultiAgent => "MultiAgent",
        };
        format!("{}{}Formatter", self.provider.class_prefix(), mode)
    }

    pub fn from_class_name(name: &str) -> Option<FormatterId> {
        FormatterId::all().find(|id| id.class_name() == name)
    }

    /// Whether the class's constructor takes this option.
    pub fn accepts(self, option: FormatterOption) -> bool {
        match option {
            FormatterOption::PromoteImages => {
                !matches!(self.provider, Provider::Anthropic | Provider::DeepSeek)
            }
            FormatterOption::PromoteAudios | FormatterOption::PromoteVideos => {
                self.provider == Provider::DashScope
            }
            FormatterOption::HistoryPrompt => self.mode == Mode::MultiAgent,
        }
    }
}

impl fmt::Display for FormatterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.class_name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatterOption {
    PromoteImages,
    PromoteAudios,
    PromoteVideos,
    HistoryPrompt,
}

impl FormatterOption {
    /// The Python constructor argument.
    pub fn python_name(self) -> &'static str {
        match self {
            FormatterOption::PromoteImages => "promote_tool_result_images",
            FormatterOption::PromoteAudios => "promote_tool_result_audios",
            FormatterOption::PromoteVideos => "promote_tool_result_videos",
            FormatterOption::HistoryPrompt => "conversation_history_prompt",
        }
    }
}

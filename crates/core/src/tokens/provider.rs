//! What a provider is actually sent, counted with that provider's tokenizer:
//! the formatted messages' content (not its JSON escaping), the per-message
//! framing of the provider's template, media by the provider's rules, and
//! the tool schemas.

use super::media_cost::{facts, media_tokens, MediaKind, MediaSource};
use super::models::{ModelInfo, Template};
use super::{Category, Cost, MessageCounter, RunMemo};
use crate::media::Gate;
use crate::py::{self, PyErr};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// Counts formatted requests for one provider and model.
#[derive(Debug, Clone)]
pub struct ProviderCounter {
    pub info: ModelInfo,
    /// Local media headers are read through this (relative paths from its
    /// session folder); without it, local media are not read.
    pub media: Option<Arc<Gate>>,
    /// The runs of a long `<history>` group's lines it has counted, by
    /// content (`budget/shares.rs`): shared by its clones, which count
    /// with the same tokenizer.
    pub runs: Arc<RunMemo>,
}

/// The parts of one formatted message, whatever the provider's shape.
#[derive(Default)]
struct Parts<'a> {
    role: &'a str,
    name: Option<&'a str>,
    tool_call_id: Option<&'a str>,
    texts: Vec<(Category, Cow<'a, str>)>,
    /// (name, arguments as sent)
    tool_calls: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The whole `tool_calls` value, for OpenAI's formula.
    openai_tool_calls: Option<&'a Value>,
    media: Vec<(MediaKind, MediaSource<'a>)>,
}

impl ProviderCounter {
    pub fn new(info: ModelInfo, media: Option<Arc<Gate>>) -> Self {
        Self {
            info,
            media,
            runs: Arc::default(),
        }
    }

    fn template(&self) -> Template {
        self.info.template
    }

    /// Raw vocabulary tokens (scaled once per message for estimates).
    fn raw(&self, text: &str) -> i64 {
        self.info.tokenizer.raw(text) as i64
    }

    /// Tokens of the provider-formatted tool schemas (`format_tools`'s
    /// output): OpenAI's cookbook formula; Qwen's tool system prompt; the
    /// schemas' JSON plus the documented or measured overhead elsewhere.
    pub fn tools(&self, tools: &[Value]) -> i64 {
        if tools.is_empty() {
            return 0;
        }
        let json: Vec<String> = tools.iter().map(py::dumps).collect();
        let raw = match self.template() {
            Template::OpenAi => {
                let counter = super::OpenAiTokenCounter::new(&self.info.model);
                let list = Value::Array(tools.to_vec());
                return counter
                    .tools_tokens(&list)
                    .unwrap_or_else(|_| self.raw(&json.join("\n")) + 12);
            }
            // The template's four <tool_call> / </tool_call> markers are one
            // token each (see the ChatML arm of `message`); the rest is text.
            Template::ChatMl => {
                4 + self.raw(&format!(
                    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
                     You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n\
                     For each function call, return a json object with function name and arguments within ",
                    json.join("\n")
                )) + self.raw(" XML tags:\n")
                    + self.raw("\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n")
            }
            // Anthropic documents ~346 system-prompt tokens for tool use.
            Template::Anthropic => self.raw(&json.join("\n")) + 346,
            _ => self.raw(&json.join("\n")) + 10,
        };
        self.info.tokenizer.scale(raw)
    }

    /// Whether this counter's figures for `category` are exact.
    pub fn exact(&self, category: Option<Category>) -> bool {
        let tokenizer = self.info.tokenizer.exact_count() && self.template().exact_framing();
        match category {
            Some(Category::Media) => false,
            // Tool schemas: only Qwen's template text is known verbatim.
            None => tokenizer && self.template() == Template::ChatMl,
            Some(_) => tokenizer,
        }
    }

    /// [`MessageCounter::message`], with the message's own texts (what
    /// its content says, not its framing) counted raw by `count_text`: the
    /// budget counts a `<history>` text line by line there, to learn each
    /// member's share in the same pass (`budget::shares`).
    pub fn message_with(
        &self,
        message: &Value,
        count_text: &mut dyn FnMut(&str) -> i64,
    ) -> Result<Cost, PyErr> {
        let p = parts(message);
        let main = main_category(p.role);
        let mut raw = Cost::default();
        let text_of = |cat: Category| -> String {
            p.texts
                .iter()
                .filter(|(c, _)| *c == cat)
                .map(|(_, t)| t.as_ref())
                .collect::<Vec<_>>()
                .concat()
        };
        match self.template() {
            Template::OpenAi => {
                // The cookbook: 3 per message, every string field, 1 per name.
                raw.add(main, 3 + self.raw(p.role));
                if let Some(name) = p.name {
                    raw.add(main, self.raw(name) + 1);
                }
                if let Some(id) = p.tool_call_id {
                    raw.add(main, self.raw(id));
                }
                for (cat, text) in &p.texts {
                    raw.add(*cat, count_text(text));
                }
                if let Some(calls) = p.openai_tool_calls {
                    raw.add(Category::ToolCalls, self.raw(&py::dumps(calls)));
                } else {
                    for (name, args) in &p.tool_calls {
                        raw.add(Category::ToolCalls, self.raw(name) + self.raw(args));
                    }
                }
            }
            Template::ChatMl => {
                // <|im_start|>role\ncontent<|im_end|>\n; specials split the
                // text, so each piece between them counts on its own exactly.
                let body = Category::ALL
                    .iter()
                    .filter(|c| **c != Category::Media)
                    .map(|c| text_of(*c))
                    .collect::<String>();
                // The markers the template writes around tool results and
                // calls (<tool_response>, </tool_response>, <tool_call>,
                // </tool_call>) are single tokens of Qwen2.5/3's vocabulary
                // (151665, 151666, 151657, 151658): one each, as <|im_start|>
                // and <|im_end|> are. The same strings typed in a message are
                // text to the reference tokenizer, dashscope's, whose table
                // lacks them (vocab.rs): only the template's count as one.
                let header = if p.role == "tool" { "user" } else { p.role };
                let framed = if p.role == "tool" {
                    2 + self.raw(&format!("{header}\n")) + count_text(&format!("\n{body}\n"))
                } else if !p.tool_calls.is_empty() && !body.is_empty() {
                    count_text(&format!("{header}\n{body}\n"))
                } else {
                    count_text(&format!("{header}\n{body}"))
                };
                raw.add(main, 3 + framed);
                for (name, args) in &p.tool_calls {
                    let call = format!(
                        "\n{{\"name\": {}, \"arguments\": {args}}}\n",
                        py::dumps(&Value::String(name.to_string()))
                    );
                    raw.add(Category::ToolCalls, 2 + self.raw(&call));
                }
            }
            Template::DeepSeek => {
                let body: String = p
                    .texts
                    .iter()
                    .map(|(_, t)| t.as_ref())
                    .collect::<Vec<_>>()
                    .concat();
                let framing = match p.role {
                    "system" => 0,
                    "user" => 1,
                    "assistant" => 2,
                    // <｜tool▁outputs▁begin｜><｜tool▁output▁begin｜> ... <｜tool▁output▁end｜><｜tool▁outputs▁end｜>
                    "tool" => 4,
                    _ => 1,
                };
                raw.add(main, framing + count_text(&body));
                if !p.tool_calls.is_empty() {
                    raw.add(Category::ToolCalls, 2);
                }
                for (name, args) in &p.tool_calls {
                    raw.add(
                        Category::ToolCalls,
                        3 + self.raw("function")
                            + self.raw(&format!("{name}\n```json\n{args}\n```")),
                    );
                }
            }
            Template::Llama3 | Template::Gemma | Template::Anthropic | Template::Gemini => {
                let (specials, header) = match self.template() {
                    Template::Llama3 => (3, format!("{}\n\n", p.role)),
                    Template::Gemma => (2, format!("{}\n", p.role)),
                    Template::Anthropic => (0, format!("\n\n{}: ", p.role)),
                    _ => (0, String::new()),
                };
                raw.add(main, specials + self.raw(&header));
                for (cat, text) in &p.texts {
                    raw.add(*cat, count_text(text));
                }
                for (name, args) in &p.tool_calls {
                    raw.add(Category::ToolCalls, self.raw(name) + self.raw(args) + 3);
                }
            }
        }
        // Estimates scale the vocabulary's count; media rules are in real tokens.
        let mut cost = Cost::default();
        for cat in Category::ALL {
            cost.add(cat, self.info.tokenizer.scale(raw.get(cat)));
        }
        cost.add(Category::Media, self.media_cost(&p));
        Ok(cost)
    }

    fn media_cost(&self, parts: &Parts<'_>) -> i64 {
        parts
            .media
            .iter()
            .map(|(kind, source)| {
                let f = facts(*kind, source, self.media.as_deref());
                media_tokens(self.template(), &self.info.model, &f).0
            })
            .sum()
    }
}

fn main_category(role: &str) -> Category {
    match role {
        "system" => Category::SystemPrompt,
        "tool" => Category::ToolResults,
        _ => Category::Conversation,
    }
}

fn str_of(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// Pulls texts, tool calls and media out of any provider's message shape.
fn parts(message: &Value) -> Parts<'_> {
    let [role, name, tool_call_id, content, reasoning, calls, parts_list, images] =
        crate::json::get_all(
            message,
            [
                "role",
                "name",
                "tool_call_id",
                "content",
                "reasoning_content",
                "tool_calls",
                "parts",
                "images",
            ],
        );
    let mut p = Parts {
        role: str_of(role).unwrap_or("user"),
        name: str_of(name),
        tool_call_id: str_of(tool_call_id),
        ..Parts::default()
    };
    let main = main_category(p.role);
    if let Some(content) = content {
        content_parts(content, main, &mut p);
    }
    if let Some(Value::String(r)) = reasoning {
        p.texts.push((Category::Conversation, r.into()));
    }
    if let Some(calls @ Value::Array(list)) = calls {
        p.openai_tool_calls = Some(calls);
        for call in list {
            let function = call.get("function").unwrap_or(call);
            let [name, arguments] = crate::json::get_all(function, ["name", "arguments"]);
            let args = match arguments {
                Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
                Some(v) => Cow::Owned(py::dumps(v)),
                None => Cow::Borrowed(""),
            };
            p.tool_calls
                .push((Cow::Borrowed(str_of(name).unwrap_or_default()), args));
        }
    }
    if let Some(Value::Array(parts_list)) = parts_list {
        for part in parts_list {
            gemini_part(part, main, &mut p);
        }
    }
    if let Some(Value::Array(images)) = images {
        for image in images.iter().filter_map(Value::as_str) {
            p.media.push((MediaKind::Image, MediaSource::Base64(image)));
        }
    }
    p
}

fn content_parts<'a>(content: &'a Value, category: Category, p: &mut Parts<'a>) {
    match content {
        Value::String(s) => p.texts.push((category, s.as_str().into())),
        Value::Array(items) => {
            for item in items {
                content_item(item, category, p);
            }
        }
        _ => {}
    }
}

fn content_item<'a>(item: &'a Value, category: Category, p: &mut Parts<'a>) {
    let [typ, text] = crate::json::get_all(item, ["type", "text"]);
    match str_of(typ) {
        Some("text") => {
            if let Some(t) = str_of(text) {
                p.texts.push((category, t.into()));
            }
        }
        Some("thinking") => {
            if let Some(t) = str_of(item.get("thinking")) {
                p.texts.push((Category::Conversation, t.into()));
            }
        }
        Some("image_url") => {
            let url = item.get("image_url").and_then(|u| str_of(u.get("url")));
            p.media.push((
                MediaKind::Image,
                url.map_or(MediaSource::Remote, MediaSource::from_url),
            ));
        }
        Some("input_audio") => {
            let data = item.get("input_audio").and_then(|a| str_of(a.get("data")));
            p.media.push((
                MediaKind::Audio,
                data.map_or(MediaSource::Remote, MediaSource::Base64),
            ));
        }
        Some("image") => {
            let source = item.get("source");
            let src = match source.and_then(|s| str_of(s.get("type"))) {
                Some("base64") => source
                    .and_then(|s| str_of(s.get("data")))
                    .map_or(MediaSource::Remote, MediaSource::Base64),
                Some("url") => source
                    .and_then(|s| str_of(s.get("url")))
                    .map_or(MediaSource::Remote, MediaSource::from_url),
                _ => MediaSource::Remote,
            };
            p.media.push((MediaKind::Image, src));
        }
        Some("tool_use") => {
            let name = str_of(item.get("name")).unwrap_or_default();
            let input = item.get("input").map(py::dumps).unwrap_or_default();
            p.tool_calls.push((name.into(), input.into()));
        }
        Some("tool_result") => {
            if let Some(c) = item.get("content") {
                content_parts(c, Category::ToolResults, p);
            }
        }
        _ => {
            // DashScope items: {"text": ...}, {"image": url}, {"audio": url}, {"video": url or frames}.
            if let Some(t) = str_of(text) {
                p.texts.push((category, t.into()));
            }
            for (key, kind) in [
                ("image", MediaKind::Image),
                ("audio", MediaKind::Audio),
                ("video", MediaKind::Video),
            ] {
                match item.get(key) {
                    Some(Value::String(url)) => p.media.push((kind, MediaSource::from_url(url))),
                    Some(Value::Array(frames)) => {
                        for f in frames.iter().filter_map(Value::as_str) {
                            p.media.push((MediaKind::Image, MediaSource::from_url(f)));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

fn gemini_part<'a>(part: &'a Value, category: Category, p: &mut Parts<'a>) {
    if let Some(t) = str_of(part.get("text")) {
        p.texts.push((category, t.into()));
    }
    if let Some(data) = part.get("inline_data") {
        let mime = str_of(data.get("mime_type")).unwrap_or("image/");
        let source = str_of(data.get("data")).map_or(MediaSource::Remote, MediaSource::Base64);
        p.media.push((kind_of_mime(mime), source));
    }
    if let Some(data) = part.get("file_data") {
        let mime = str_of(data.get("mime_type")).unwrap_or("image/");
        let source =
            str_of(data.get("file_uri")).map_or(MediaSource::Remote, MediaSource::from_url);
        p.media.push((kind_of_mime(mime), source));
    }
    if let Some(call) = part.get("function_call") {
        let name = str_of(call.get("name")).unwrap_or_default();
        let args = call.get("args").map(py::dumps).unwrap_or_default();
        p.tool_calls.push((name.into(), args.into()));
    }
    if let Some(response) = part.get("function_response") {
        let text = response.get("response").map(py::dumps).unwrap_or_default();
        p.texts.push((Category::ToolResults, text.into()));
    }
}

fn kind_of_mime(mime: &str) -> MediaKind {
    if mime.starts_with("audio/") {
        MediaKind::Audio
    } else if mime.starts_with("video/") {
        MediaKind::Video
    } else {
        MediaKind::Image
    }
}

impl MessageCounter for ProviderCounter {
    fn base(&self) -> i64 {
        let scale = |n| self.info.tokenizer.scale(n);
        match self.template() {
            Template::OpenAi => 3,
            // <|im_start|>assistant\n
            Template::ChatMl => 1 + self.raw("assistant\n"),
            // <｜begin▁of▁sentence｜> ... <｜Assistant｜>
            Template::DeepSeek => 2,
            // <|begin_of_text|> ... <|start_header_id|>assistant<|end_header_id|>\n\n
            Template::Llama3 => 3 + scale(self.raw("assistant") + self.raw("\n\n")),
            // <bos> ... <start_of_turn>model\n
            Template::Gemma => 2 + scale(self.raw("model\n")),
            Template::Anthropic => 3,
            Template::Gemini => 0,
        }
    }

    fn message(&self, message: &Value) -> Result<Cost, PyErr> {
        self.message_with(message, &mut |text| self.raw(text))
    }

    fn splits_after_newline(&self, first: char) -> bool {
        // Texts are counted raw, then scaled per category: monotone.
        super::boundary::splits_after_newline(self.info.tokenizer.vocab, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Provider;
    use crate::tokens::models::resolve;
    use serde_json::json;

    fn counter(provider: Provider, model: &str) -> ProviderCounter {
        ProviderCounter::new(resolve(provider, Some(model)), None)
    }

    #[test]
    fn openai_follows_the_cookbook() {
        let c = counter(Provider::OpenAi, "gpt-4o");
        let msgs = [json!({"role": "user", "content": "hello world"})];
        assert_eq!(c.count(&msgs).unwrap(), 9);
        let named = [json!({"role": "user", "name": "Bob", "content": "hello world"})];
        assert_eq!(c.count(&named).unwrap(), 11);
    }

    #[test]
    fn qwen_counts_its_chat_template_exactly() {
        // <|im_start|>user\nhello world<|im_end|>\n<|im_start|>assistant\n
        let c = counter(Provider::DashScope, "qwen-plus");
        let msgs = [json!({"role": "user", "content": "hello world"})];
        let expected = 1 + 4 + 1 + 1 + 1 + 2; // specials, "user\nhello world", "\n", "assistant\n"
        assert_eq!(c.count(&msgs).unwrap(), expected as i64);
    }

    #[test]
    fn qwen_reads_typed_markers_as_text_and_the_templates_own_as_one_token() {
        use crate::tokens::Vocab;
        let c = counter(Provider::DashScope, "qwen-plus");
        let q = |t: &str| Vocab::Qwen.count(t) as i64;
        // dashscope's tokenizer: `<tool_call>` typed in a message is 4 tokens.
        let typed = json!({"role": "user", "content": "<tool_call> and <|im_end|>"});
        assert_eq!(q("<tool_call>"), 4);
        assert_eq!(
            c.message(&typed).unwrap().total(),
            3 + q("user\n<tool_call> and ") + 1
        );
        // The template's own <tool_response> markers are one token each.
        let result = json!({"role": "tool", "tool_call_id": "1", "content": "42"});
        assert_eq!(
            c.message(&result).unwrap().total(),
            3 + 2 + q("user\n") + q("\n42\n")
        );
    }

    #[test]
    fn json_escaping_is_not_counted() {
        let c = counter(Provider::DashScope, "qwen-plus");
        let zh = json!({"role": "user", "content": "今天天气很好，我们去图书馆吧"});
        // What counting the request body's JSON text would see.
        let ascii: String = zh["content"]
            .as_str()
            .unwrap()
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        let escaped = json!({"role": "user", "content": ascii});
        assert!(c.message(&zh).unwrap().total() * 2 < c.message(&escaped).unwrap().total());
    }

    #[test]
    fn a_base64_image_costs_its_rule_not_its_text() {
        let c = counter(Provider::OpenAi, "gpt-4o");
        // 1x1 PNG
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        let msg = json!({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}
        ]});
        let cost = c.message(&msg).unwrap();
        assert_eq!(cost.get(Category::Media), 85 + 170);
    }

    #[test]
    fn categories_follow_roles_and_blocks() {
        let c = counter(Provider::OpenAi, "gpt-4o");
        let sys = c
            .message(&json!({"role": "system", "content": "Be brief."}))
            .unwrap();
        assert_eq!(sys.total(), sys.get(Category::SystemPrompt));
        let call = c
            .message(&json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}
            ]}))
            .unwrap();
        assert!(call.get(Category::ToolCalls) > 0);
        let result = c
            .message(&json!({"role": "tool", "tool_call_id": "1", "content": "42"}))
            .unwrap();
        assert_eq!(result.total(), result.get(Category::ToolResults));
    }
}

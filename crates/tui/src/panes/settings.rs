//! The settings form (`s`): the model, the budget and the truncation's
//! token counter, set from the workbench instead of by editing the file.
//! Applying them is one edit (undo takes it back); `C-s` saves them in the
//! session as `"model"`, `"max_tokens"` and `"token_counter"`.

use super::{centered, pane_block};
use crate::theme::Palette;
use formatscope_core::provider::Provider;
use formatscope_core::reference::{Reference, Setting};
use formatscope_core::tokens::{models, CounterSpec};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::{Map, Value};

/// The fields every release shares, in order: the session key each one
/// sets, and its label. The switches of each AgentScope release follow
/// ([`Reference::settings`]), then the workbench's own threshold.
const FIELDS: [(&str, &str); 6] = [
    ("model", "model"),
    ("max_tokens", "budget"),
    ("token_counter", "token counter"),
    ("request.stream", "stream"),
    ("request.tool_choice", "tool_choice"),
    ("request.thinking", "thinking"),
];

/// The switches the releases read from the session, in `reference::ALL`'s
/// order, with the release each belongs to.
fn release_settings() -> Vec<(&'static dyn Reference, &'static Setting)> {
    formatscope_core::reference::ALL
        .iter()
        .flat_map(|r| r.settings().iter().map(move |s| (*r, s)))
        .collect()
}

/// The token count from which `S` and `P` ask before sending, until the
/// user changes it (`s`).
pub const CONFIRM_SEND_AT: u64 = 20_000;

/// The constructor argument that switches a provider's thinking on or off,
/// and its two values (`model_kwargs` of the session's `"request"`).
fn thinking_switch(provider: Provider) -> (&'static str, Value, Value) {
    use formatscope_core::json;
    match provider {
        Provider::OpenAi | Provider::DeepSeek => ("reasoning_effort", json!("medium"), Value::Null),
        Provider::Anthropic => (
            "thinking",
            json!({"type": "enabled", "budget_tokens": 1024}),
            json!({"type": "disabled"}),
        ),
        Provider::DashScope | Provider::Ollama => ("enable_thinking", json!(true), json!(false)),
        Provider::Gemini => (
            "thinking_config",
            json!({"include_thoughts": true}),
            json!({"thinking_budget": 0}),
        ),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsForm {
    /// The provider shown: the model is one of its models.
    pub provider: Provider,
    /// The text of each field (empty: not set, AgentScope's default): the
    /// shared fields, the releases' switches, the send threshold.
    pub values: Vec<String>,
    /// The session's `"request"` object, which the last three fields edit.
    pub request: Map<String, Value>,
    pub focus: usize,
    /// The focused field has not been typed in since it got the focus:
    /// typing replaces its text (as in a selected input), Backspace edits it.
    pub fresh: bool,
    /// Why the last Enter did not apply.
    pub error: Option<String>,
    /// The profiles of the user's profiles.toml, for the profile field.
    pub profiles: Vec<String>,
    /// That file's path, for the messages about it.
    pub profiles_file: String,
}

/// What a key did to the form.
#[derive(Debug, PartialEq)]
pub enum FormOutcome {
    Editing,
    Cancelled,
    /// The settings to write: a key and its value (`None` removes it).
    Apply(Vec<(String, Option<Value>)>),
}

/// The form takes every key while it is up; writing its values into the
/// session is the app's (one undo step, and the request computed again).
impl super::Component for SettingsForm {
    type Context<'a> = ();
    type Props<'a> = ();

    fn handle(&mut self, key: super::Key, _: ()) -> super::Outcome {
        use super::{Outcome, Then};
        match self.on_key(key.event) {
            FormOutcome::Editing => Outcome::done(),
            FormOutcome::Cancelled => Outcome::close(Some("settings unchanged"), None),
            FormOutcome::Apply(settings) => {
                Outcome::close(None, Some(Then::ApplySettings(settings)))
            }
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, _: ()) {
        self.render(frame, area, ui)
    }
}

impl SettingsForm {
    /// A form showing the session's current settings.
    pub fn new(
        provider: Provider,
        model: Option<&str>,
        budget: Option<i64>,
        counter: Option<&str>,
        request: Option<&Value>,
        session: &Map<String, Value>,
    ) -> SettingsForm {
        let request = request
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let stream = match request.get("stream") {
            Some(Value::Bool(true)) => "on",
            Some(Value::Bool(false)) => "off",
            _ => "",
        };
        let tool_choice = request
            .get("tool_choice")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (key, on, _) = thinking_switch(provider);
        let thinking = match request.get("model_kwargs").and_then(|m| m.get(key)) {
            None | Some(Value::Null) => "",
            Some(v) if *v == on => "on",
            Some(_) => "off",
        };
        let mut values = vec![
            model.unwrap_or_default().to_string(),
            budget.map(|b| b.to_string()).unwrap_or_default(),
            counter.unwrap_or_default().to_string(),
            stream.to_string(),
            tool_choice.to_string(),
            thinking.to_string(),
        ];
        values.extend(release_settings().into_iter().map(|(_, s)| {
            match session.get(s.object).and_then(|o| o.get(s.key)) {
                Some(Value::Bool(true)) => "on".to_string(),
                Some(Value::Bool(false)) => "off".to_string(),
                Some(Value::Array(names)) if s.list => names
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => String::new(),
            }
        }));
        values.push(CONFIRM_SEND_AT.to_string());
        values.push(String::new());
        SettingsForm {
            provider,
            values,
            request,
            focus: 0,
            fresh: true,
            error: None,
            profiles: Vec::new(),
            profiles_file: "profiles.toml".into(),
        }
    }

    /// The workbench's profile field: the one in use, those there are,
    /// and the file they are in.
    pub fn with_profile(
        mut self,
        current: Option<&str>,
        profiles: Vec<String>,
        file: &str,
    ) -> SettingsForm {
        if let Some(v) = self.values.last_mut() {
            *v = current.unwrap_or_default().to_string();
        }
        self.profiles = profiles;
        self.profiles_file = file.to_string();
        self
    }

    /// The profile field: a profile's name, or none.
    pub fn profile(&self) -> Result<Option<String>, String> {
        let name = self.values.last().map_or("", |v| v.trim());
        if name.is_empty() {
            return Ok(None);
        }
        if self.profiles.iter().any(|p| p == name) {
            Ok(Some(name.to_string()))
        } else if self.profiles.is_empty() {
            Err(format!(
                "profile: no profile {name:?}: {} has none (see docs/src/send.md, profiles)",
                self.profiles_file
            ))
        } else {
            Err(format!(
                "profile: no profile {name:?} (there are {}) in {}",
                self.profiles.join(", "),
                self.profiles_file
            ))
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) -> FormOutcome {
        let fresh = std::mem::replace(&mut self.fresh, false);
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancelled,
            KeyCode::Enter => match self
                .confirm_send_at()
                .and_then(|_| self.profile())
                .and_then(|_| self.settings())
            {
                Ok(settings) => return FormOutcome::Apply(settings),
                Err(e) => self.error = Some(e),
            },
            KeyCode::Tab | KeyCode::Down => {
                self.focus = (self.focus + 1) % self.values.len();
                self.fresh = true;
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.focus = (self.focus + self.values.len() - 1) % self.values.len();
                self.fresh = true;
            }
            // Completes the model from the models table.
            KeyCode::Right if self.focus == 0 => {
                if let Some(name) = self.completions().into_iter().next() {
                    self.values[0] = name;
                }
            }
            KeyCode::Backspace => {
                self.values[self.focus].pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.values[self.focus].clear()
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                if fresh {
                    self.values[self.focus].clear();
                }
                self.values[self.focus].push(c)
            }
            _ => {}
        }
        FormOutcome::Editing
    }

    /// The fields as session settings, or what is wrong with one.
    fn settings(&self) -> Result<Vec<(String, Option<Value>)>, String> {
        let [model, budget, counter, stream, tool_choice, thinking] =
            [0, 1, 2, 3, 4, 5].map(|i| self.values.get(i).map(String::as_str).unwrap_or_default());
        let model = model.trim();
        let budget = budget.trim().replace(['_', ','], "");
        let budget = match budget.as_str() {
            "" => None,
            text => match text.parse::<i64>() {
                Ok(n) if n > 0 => Some(Value::from(n)),
                _ => {
                    return Err(format!(
                        "budget: {text:?} is not a positive number of tokens (empty: no budget)"
                    ))
                }
            },
        };
        let counter = counter.trim();
        if !counter.is_empty() {
            CounterSpec::parse(counter).map_err(|e| format!("token counter: {e}"))?;
        }
        let text = |s: &str| (!s.is_empty()).then(|| Value::String(s.to_string()));
        let mut out = vec![(FIELDS[0].0.to_string(), text(model))];
        // The model is the shown provider's: the session says so.
        if !model.is_empty() {
            out.push((
                "provider".into(),
                Some(Value::String(self.provider.id().into())),
            ));
        }
        out.push((FIELDS[1].0.to_string(), budget));
        out.push((FIELDS[2].0.to_string(), text(counter)));
        // The model class's settings, in the session's "request" object.
        let mut request = self.request.clone();
        let switch = |v: &str, what: &str| -> Result<Option<bool>, String> {
            match v.trim() {
                "" => Ok(None),
                "on" | "true" | "yes" => Ok(Some(true)),
                "off" | "false" | "no" => Ok(Some(false)),
                other => Err(format!(
                    "{what}: {other:?} is not on, off or empty (the default)"
                )),
            }
        };
        match switch(stream, "stream")? {
            Some(b) => request.insert("stream".into(), Value::Bool(b)),
            None => request.shift_remove("stream"),
        };
        match tool_choice.trim() {
            "" => request.shift_remove("tool_choice"),
            c => request.insert("tool_choice".into(), Value::String(c.into())),
        };
        let (key, on, off) = thinking_switch(self.provider);
        let mut kwargs = request
            .get("model_kwargs")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        match switch(thinking, "thinking")? {
            Some(true) => kwargs.insert(key.into(), on),
            Some(false) if !off.is_null() => kwargs.insert(key.into(), off),
            _ => kwargs.shift_remove(key),
        };
        if kwargs.is_empty() {
            request.shift_remove("model_kwargs");
        } else {
            request.insert("model_kwargs".into(), Value::Object(kwargs));
        }
        out.push((
            "request".into(),
            (!request.is_empty()).then_some(Value::Object(request)),
        ));
        // Each release's switches, one session object per release.
        let mut objects: Vec<(&str, Map<String, Value>)> = Vec::new();
        for (i, (_, setting)) in release_settings().into_iter().enumerate() {
            let v = self.values.get(FIELDS.len() + i).map(String::as_str);
            let at = match objects.iter().position(|(o, _)| *o == setting.object) {
                Some(at) => at,
                None => {
                    objects.push((setting.object, Map::new()));
                    objects.len() - 1
                }
            };
            let text = v.unwrap_or_default();
            if setting.list {
                let names: Vec<Value> = text
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(|n| Value::String(n.to_string()))
                    .collect();
                if !names.is_empty() {
                    objects[at]
                        .1
                        .insert(setting.key.into(), Value::Array(names));
                }
            } else if let Some(b) = switch(text, setting.label)? {
                objects[at].1.insert(setting.key.into(), Value::Bool(b));
            }
        }
        for (object, values) in objects {
            out.push((
                object.into(),
                (!values.is_empty()).then_some(Value::Object(values)),
            ));
        }
        Ok(out)
    }

    /// The fields' labels, in order.
    pub fn labels() -> Vec<&'static str> {
        FIELDS
            .iter()
            .map(|(_, label)| *label)
            .chain(release_settings().into_iter().map(|(_, s)| s.label))
            .chain(["ask to send at", "profile"])
            .collect()
    }

    /// The workbench's threshold for asking before a send (not a session
    /// setting: it holds for every file until the workbench quits).
    pub fn confirm_send_at(&self) -> Result<u64, String> {
        // The second-last field: the profile follows it.
        let at = self.values.len().saturating_sub(2);
        let text = self
            .values
            .get(at)
            .map_or("", |v| v.trim())
            .replace(['_', ','], "");
        if text.is_empty() {
            return Ok(CONFIRM_SEND_AT);
        }
        text.parse::<u64>().map_err(|_| {
            format!(
                "ask to send at: {text:?} is not a number of tokens (0: always ask; empty: {CONFIRM_SEND_AT})"
            )
        })
    }

    fn render(&self, frame: &mut Frame, area: Rect, ui: &Palette) {
        let rect = centered(area, 78, 22);
        let mut lines = Vec::new();
        // Every value starts one space past the longest label.
        let width = Self::labels()
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
            + 1;
        for (i, label) in Self::labels().into_iter().enumerate() {
            let focused = i == self.focus;
            let style = if focused {
                Style::default()
                    .fg(ui.text)
                    .bg(ui.selected_bg)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(ui.text)
            };
            let cursor = if focused { "█" } else { "" };
            // A fresh field's text is shown selected: typing replaces it.
            let style = if focused && self.fresh {
                style.add_modifier(Modifier::REVERSED)
            } else {
                style
            };
            lines.push(Line::from(vec![
                Span::styled(format!(" {label:<width$}"), Style::default().fg(ui.focus)),
                Span::styled(format!("{}{cursor}", self.values[i]), style),
            ]));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(self.hint(), Style::default().fg(ui.muted)));
        if let Some(e) = &self.error {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!("! {e}"),
                Style::default().fg(ui.error),
            ));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            " Enter applies (u undoes, C-s saves) · Tab/↑↓ field · → completes the model · Esc cancels",
            Style::default().fg(ui.muted),
        ));
        frame.render_widget(Clear, rect);
        let block = pane_block(ui, Line::from(" Settings "), true);
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false }),
            rect,
        );
    }

    /// Known models of the provider that start with the model field's text
    /// (and are longer than it).
    pub fn completions(&self) -> Vec<String> {
        let typed = self.values[0].trim();
        models::names_for(self.provider)
            .into_iter()
            .filter(|n| n.starts_with(typed) && n.len() > typed.len())
            .collect()
    }

    /// What the focused field means, and what its text would do.
    fn hint(&self) -> String {
        if self.focus == 0 {
            let known = self.completions();
            if !known.is_empty() {
                let shown: Vec<&str> = known.iter().take(6).map(String::as_str).collect();
                let more = if known.len() > 6 { ", …" } else { "" };
                return format!(" → completes: {}{more}", shown.join(", "));
            }
        }
        let value = self.values[self.focus].trim();
        let switches = release_settings();
        if self.focus == self.values.len() - 1 {
            let names = if self.profiles.is_empty() {
                "none yet".to_string()
            } else {
                self.profiles.join(", ")
            };
            return format!(
                " A profile of {} ({names}): S and P send through its base URL with its key variable, model and headers. The workbench's, not saved in the session; empty: none.",
                self.profiles_file
            );
        }
        if self.focus == self.values.len() - 2 {
            return " Tokens from which S and P show the host, model and count and ask first (0: always; empty: 20000). The workbench's, for every file, until you quit.".into();
        }
        if let Some((release, setting)) = self
            .focus
            .checked_sub(FIELDS.len())
            .and_then(|i| switches.get(i))
        {
            return format!(
                " on or off: under {} (V), {}.",
                release.title(),
                setting.help
            );
        }
        match self.focus {
            0 if value.is_empty() => format!(
                " Empty: {}'s default model ({}).",
                self.provider.id(),
                models::resolve(self.provider, None).model
            ),
            0 => match models::lookup(self.provider, value) {
                Some(info) => format!(
                    " {} tokens of context, counted with {}.",
                    info.context_window,
                    info.tokenizer.describe()
                ),
                None => format!(
                    " Not a model formatscope knows for {}: counted with its default tokenizer.",
                    self.provider.id()
                ),
            },
            3 => " on or off: the model class's stream (empty: on, Ollama off). The wire view shows it.".into(),
            4 => " auto, none, required, or a tool's name (empty: none given).".into(),
            5 => {
                let (key, on, _) = thinking_switch(self.provider);
                format!(" on or off: {key} = {} for {} (empty: AgentScope's default).", formatscope_core::py::dumps(&on), self.provider.id())
            }
            1 => " Tokens the messages may take; truncation drops the oldest past it. Empty: none."
                .into(),
            _ => format!(
                " What AgentScope's truncation counts with: {}. Empty: openai:gpt-4o.",
                CounterSpec::CHOICES
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn type_text(form: &mut SettingsForm, text: &str) {
        for c in text.chars() {
            form.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    fn key(form: &mut SettingsForm, code: KeyCode) -> FormOutcome {
        form.on_key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn the_form_applies_model_budget_and_counter_as_session_settings() {
        let mut form = SettingsForm::new(
            Provider::DashScope,
            None,
            Some(200),
            None,
            None,
            &Map::new(),
        );
        type_text(&mut form, "qwen-max");
        key(&mut form, KeyCode::Tab);
        // Typing into a field that just got the focus replaces its text.
        type_text(&mut form, "1_000");
        key(&mut form, KeyCode::Tab);
        type_text(&mut form, "char");
        let FormOutcome::Apply(settings) = key(&mut form, KeyCode::Enter) else {
            panic!("applies")
        };
        assert_eq!(
            settings,
            vec![
                ("model".to_string(), Some(Value::from("qwen-max"))),
                ("provider".to_string(), Some(Value::from("dashscope"))),
                ("max_tokens".to_string(), Some(Value::from(1000))),
                ("token_counter".to_string(), Some(Value::from("char"))),
                ("request".to_string(), None),
                ("v2".to_string(), None),
                ("legacy".to_string(), None),
            ]
        );
    }

    #[test]
    fn bad_values_are_refused_with_a_reason_and_empty_ones_unset() {
        let mut form = SettingsForm::new(
            Provider::OpenAi,
            Some("gpt-4o"),
            None,
            None,
            None,
            &Map::new(),
        );
        key(&mut form, KeyCode::Tab);
        key(&mut form, KeyCode::Backspace);
        type_text(&mut form, "-5");
        assert_eq!(key(&mut form, KeyCode::Enter), FormOutcome::Editing);
        assert!(form
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("budget:")));
        form.values[1].clear();
        form.values[2] = "nonsense".into();
        assert_eq!(key(&mut form, KeyCode::Enter), FormOutcome::Editing);
        assert!(form
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("token counter:")));
        form.values = Default::default();
        let FormOutcome::Apply(settings) = key(&mut form, KeyCode::Enter) else {
            panic!("applies")
        };
        assert!(settings.iter().all(|(_, v)| v.is_none()), "{settings:?}");
        assert_eq!(key(&mut form, KeyCode::Esc), FormOutcome::Cancelled);
    }

    #[test]
    fn the_model_completes_from_the_models_table() {
        let mut form = SettingsForm::new(Provider::Anthropic, None, None, None, None, &Map::new());
        type_text(&mut form, "claude-op");
        assert!(form
            .completions()
            .iter()
            .all(|n| n.starts_with("claude-op")));
        assert!(!form.completions().is_empty());
        key(&mut form, KeyCode::Right);
        assert!(
            form.values[0].starts_with("claude-op") && form.values[0].len() > 9,
            "{}",
            form.values[0]
        );
        assert!(
            form.hint().contains(&form.values[0])
                || form.completions().is_empty()
                || form.hint().starts_with(" → completes")
        );
    }

    #[test]
    fn stream_tool_choice_and_thinking_go_in_the_request_object() {
        let existing = serde_json::json!({"call_kwargs": {"temperature": 0.2}});
        let mut form = SettingsForm::new(
            Provider::DashScope,
            None,
            None,
            None,
            Some(&existing),
            &Map::new(),
        );
        for _ in 0..3 {
            key(&mut form, KeyCode::Tab);
        }
        type_text(&mut form, "off");
        key(&mut form, KeyCode::Tab);
        type_text(&mut form, "auto");
        key(&mut form, KeyCode::Tab);
        type_text(&mut form, "on");
        let FormOutcome::Apply(settings) = key(&mut form, KeyCode::Enter) else {
            panic!("applies")
        };
        let request = settings
            .iter()
            .find(|(k, _)| k == "request")
            .and_then(|(_, v)| v.clone());
        assert_eq!(
            request,
            Some(
                serde_json::json!({"call_kwargs": {"temperature": 0.2}, "stream": false,
                "tool_choice": "auto", "model_kwargs": {"enable_thinking": true}})
            )
        );
        // Opened again, the form shows them.
        let form = SettingsForm::new(
            Provider::DashScope,
            None,
            None,
            None,
            request.as_ref(),
            &Map::new(),
        );
        assert_eq!(&form.values[3..6], ["off", "auto", "on"]);
        let mut bad = form.clone();
        bad.values[3] = "maybe".into();
        assert!(bad.settings().unwrap_err().starts_with("stream:"));
    }
}

#[cfg(test)]
mod legacy_tests {
    use super::*;
    use serde_json::json;

    /// CommonFormatter's two 0.1.6 options are set in the form and saved
    /// in the session's "legacy" object.
    #[test]
    fn the_0_1_6_common_formatter_options_go_in_the_legacy_object() {
        let existing = json!({"legacy": {"require_user_last": true}});
        let session = existing.as_object().cloned().unwrap_or_default();
        let mut form = SettingsForm::new(Provider::Ollama, None, None, None, None, &session);
        let at = |label: &str| {
            SettingsForm::labels()
                .iter()
                .position(|l| *l == label)
                .expect("a field")
        };
        let (alternate, user_last) = (at("0.1.6 alternate"), at("0.1.6 user last"));
        assert_eq!(
            [&form.values[alternate], &form.values[user_last]],
            ["", "on"]
        );
        form.values[alternate] = "on".into();
        form.values[user_last] = "off".into();
        let settings = form.settings().unwrap();
        assert_eq!(
            settings.last(),
            Some(&(
                "legacy".to_string(),
                Some(json!({"require_alternative": true, "require_user_last": false}))
            ))
        );
        form.values[alternate] = "perhaps".into();
        assert!(form.settings().unwrap_err().starts_with("0.1.6 alternate"));
    }

    /// A release's list setting (2.0.11's input_types) is typed
    /// comma-separated and saved as an array in the release's object.
    #[test]
    fn a_list_setting_is_saved_as_an_array() {
        let existing = json!({"v2": {"input_types": ["text/plain", "image/*"]}});
        let session = existing.as_object().cloned().unwrap_or_default();
        let mut form = SettingsForm::new(Provider::OpenAi, None, None, None, None, &session);
        let at = SettingsForm::labels()
            .iter()
            .position(|l| *l == "2.x input types")
            .expect("the field");
        assert_eq!(form.values[at], "text/plain, image/*");
        form.values[at] = " text/plain ,audio/*,".into();
        let settings = form.settings().unwrap();
        assert!(settings.contains(&(
            "v2".to_string(),
            Some(json!({"input_types": ["text/plain", "audio/*"]}))
        )));
    }
}

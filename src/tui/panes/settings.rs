//! The settings form (`s`): the model, the budget and the truncation's
//! token counter, set from the workbench instead of by editing the file.
//! Applying them is one edit (undo takes it back); `C-s` saves them in the
//! session as `"model"`, `"max_tokens"` and `"token_counter"`.

use super::{centered, pane_block};
use crate::provider::Provider;
use crate::tokens::{models, CounterSpec};
use crate::tui::theme::Palette;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;
use serde_json::Value;

/// The fields, in order: the session key each one sets, and its label.
const FIELDS: [(&str, &str); 3] = [
    ("model", "model"),
    ("max_tokens", "budget"),
    ("token_counter", "token counter"),
];

#[derive(Debug, Clone, PartialEq)]
pub struct SettingsForm {
    /// The provider shown: the model is one of its models.
    pub provider: Provider,
    /// The text of each field (empty: not set, AgentScope's default).
    pub values: [String; 3],
    pub focus: usize,
    /// The focused field has not been typed in since it got the focus:
    /// typing replaces its text (as in a selected input), Backspace edits it.
    pub fresh: bool,
    /// Why the last Enter did not apply.
    pub error: Option<String>,
}

/// What a key did to the form.
#[derive(Debug, PartialEq)]
pub enum FormOutcome {
    Editing,
    Cancelled,
    /// The settings to write: a key and its value (`None` removes it).
    Apply(Vec<(String, Option<Value>)>),
}

impl SettingsForm {
    /// A form showing the session's current settings.
    pub fn new(
        provider: Provider,
        model: Option<&str>,
        budget: Option<i64>,
        counter: Option<&str>,
    ) -> SettingsForm {
        SettingsForm {
            provider,
            values: [
                model.unwrap_or_default().to_string(),
                budget.map(|b| b.to_string()).unwrap_or_default(),
                counter.unwrap_or_default().to_string(),
            ],
            focus: 0,
            fresh: true,
            error: None,
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) -> FormOutcome {
        let fresh = std::mem::replace(&mut self.fresh, false);
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancelled,
            KeyCode::Enter => match self.settings() {
                Ok(settings) => return FormOutcome::Apply(settings),
                Err(e) => self.error = Some(e),
            },
            KeyCode::Tab | KeyCode::Down => {
                self.focus = (self.focus + 1) % FIELDS.len();
                self.fresh = true;
            }
            KeyCode::BackTab | KeyCode::Up => {
                self.focus = (self.focus + FIELDS.len() - 1) % FIELDS.len();
                self.fresh = true;
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
        let [model, budget, counter] = &self.values;
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
        Ok(out)
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette) {
        let rect = centered(area, 78, 14);
        let mut lines = Vec::new();
        for (i, (_, label)) in FIELDS.iter().enumerate() {
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
                Span::styled(format!(" {label:<14}"), Style::default().fg(ui.focus)),
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
            " Enter applies (u undoes, C-s saves) · Tab/↑↓ field · typing replaces · Esc cancels",
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

    /// What the focused field means, and what its text would do.
    fn hint(&self) -> String {
        let value = self.values[self.focus].trim();
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
        let mut form = SettingsForm::new(Provider::DashScope, None, Some(200), None);
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
            ]
        );
    }

    #[test]
    fn bad_values_are_refused_with_a_reason_and_empty_ones_unset() {
        let mut form = SettingsForm::new(Provider::OpenAi, Some("gpt-4o"), None, None);
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
}

//! One table of key bindings: `update` looks actions up in it, and the
//! footer and the help screen are generated from it.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    NextPane,
    PrevPane,
    Provider(usize),
    ToggleMode,
    ToggleReference,
    PickFormatter,
    Settings,
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    Edit,
    EditText,
    ToggleEditorText,
    LeaveEditor,
    Save,
    AddMessage,
    Duplicate,
    Delete,
    MoveUp,
    MoveDown,
    Undo,
    Redo,
    Search,
    NextMatch,
    PrevMatch,
    ToggleTools,
    ToggleRaw,
    CycleView,
    Send,
    SendMany,
    RemoteCount,
    CancelSend,
    AppendReply,
    Copy,
    Export,
    Left,
    Right,
    ToggleWrap,
    Explain,
    Compare,
    ComparePair,
    CompareOther,
    History,
    ToggleLint,
    NextFile,
    PrevFile,
    FindSession,
    ExternalEdit,
    ToggleEditorWrap,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere, the editor included.
    Anywhere,
    /// Everywhere but inside the editor.
    Global,
    /// The message list.
    List,
    /// The request pane.
    Output,
    /// Inside the editor.
    Editor,
}

pub struct Binding {
    pub keys: &'static [(KeyCode, KeyModifiers)],
    pub label: &'static str,
    pub action: Action,
    pub scope: Scope,
    pub help: &'static str,
    /// Its word in the footer, if it is shown there.
    pub footer: Option<&'static str>,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const ALT: KeyModifiers = KeyModifiers::ALT;

macro_rules! b {
    ($keys:expr, $label:expr, $action:expr, $scope:expr, $help:expr, $footer:expr) => {
        Binding {
            keys: $keys,
            label: $label,
            action: $action,
            scope: $scope,
            help: $help,
            footer: $footer,
        }
    };
}

#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    b!(&[(KeyCode::Char('q'), NONE)], "q", Action::Quit, Scope::Global, "quit (asks when there are unsaved edits)", Some("quit")),
    b!(&[(KeyCode::Char('c'), CTRL)], "C-c", Action::Quit, Scope::Anywhere, "quit, from anywhere (asks when there are unsaved edits)", None),
    b!(&[(KeyCode::Char('?'), NONE), (KeyCode::Char('?'), SHIFT), (KeyCode::F(1), NONE)], "?", Action::Help, Scope::Global, "this help", Some("help")),
    b!(&[(KeyCode::Tab, NONE)], "Tab", Action::NextPane, Scope::Global, "next pane (list, editor, request); in the editor it indents", Some("pane")),
    b!(&[(KeyCode::BackTab, SHIFT), (KeyCode::BackTab, NONE)], "S-Tab", Action::PrevPane, Scope::Global, "previous pane", None),
    b!(&[(KeyCode::Char('1'), NONE)], "1", Action::Provider(0), Scope::Global, "provider 1", None),
    b!(&[(KeyCode::Char('2'), NONE)], "2", Action::Provider(1), Scope::Global, "provider 2", None),
    b!(&[(KeyCode::Char('3'), NONE)], "3", Action::Provider(2), Scope::Global, "provider 3", None),
    b!(&[(KeyCode::Char('4'), NONE)], "4", Action::Provider(3), Scope::Global, "provider 4", None),
    b!(&[(KeyCode::Char('5'), NONE)], "5", Action::Provider(4), Scope::Global, "provider 5", None),
    b!(&[(KeyCode::Char('6'), NONE)], "6", Action::Provider(5), Scope::Global, "provider 6", None),
    b!(&[(KeyCode::Char('7'), NONE)], "7", Action::Provider(6), Scope::Global, "provider 7", None),
    b!(&[(KeyCode::Char('8'), NONE)], "8", Action::Provider(7), Scope::Global, "provider 8", None),
    b!(&[(KeyCode::Char('9'), NONE)], "9", Action::Provider(8), Scope::Global, "provider 9", None),
    b!(&[(KeyCode::Char('0'), NONE)], "0", Action::Provider(9), Scope::Global, "provider 10", None),
    b!(&[(KeyCode::Char('m'), NONE)], "m", Action::ToggleMode, Scope::Global, "chat / multi-agent", Some("mode")),
    b!(&[(KeyCode::Char('V'), SHIFT), (KeyCode::Char('V'), NONE)], "V", Action::ToggleReference, Scope::Global, "the next AgentScope release (m then cycles that release's modes)", None),
    b!(&[(KeyCode::Char('p'), NONE)], "p", Action::PickFormatter, Scope::Global, "pick a formatter from a list", None),
    b!(&[(KeyCode::Char('s'), NONE)], "s", Action::Settings, Scope::Global, "settings: model, budget, token counter, stream, tool_choice, thinking", Some("settings")),
    b!(&[(KeyCode::Char('k'), NONE), (KeyCode::Up, NONE)], "k ↑", Action::Up, Scope::Global, "up (message, or line in the request)", None),
    b!(&[(KeyCode::Char('j'), NONE), (KeyCode::Down, NONE)], "j ↓", Action::Down, Scope::Global, "down", None),
    b!(&[(KeyCode::Char('g'), NONE), (KeyCode::Home, NONE)], "g", Action::Top, Scope::Global, "first message / line", None),
    b!(&[(KeyCode::Char('G'), SHIFT), (KeyCode::Char('G'), NONE), (KeyCode::End, NONE)], "G", Action::Bottom, Scope::Global, "last message / line", None),
    b!(&[(KeyCode::PageUp, NONE), (KeyCode::Char('u'), CTRL)], "PgUp", Action::PageUp, Scope::Global, "page up", None),
    b!(&[(KeyCode::PageDown, NONE), (KeyCode::Char('d'), CTRL)], "PgDn", Action::PageDown, Scope::Global, "page down", None),
    b!(&[(KeyCode::Enter, NONE), (KeyCode::Char('e'), NONE)], "e", Action::Edit, Scope::List, "edit the selected message (JSON)", Some("edit")),
    b!(&[(KeyCode::Char('T'), SHIFT), (KeyCode::Char('T'), NONE)], "T", Action::EditText, Scope::List, "edit just the message's text (no JSON escapes)", None),
    b!(&[(KeyCode::Char('t'), CTRL)], "C-t", Action::ToggleEditorText, Scope::Editor, "switch the editor between text and JSON", Some("text/JSON")),
    b!(&[(KeyCode::Char('s'), CTRL)], "C-s", Action::Save, Scope::Anywhere, "save the session (atomic; also in the editor)", Some("save")),
    b!(&[(KeyCode::Char('a'), NONE)], "a", Action::AddMessage, Scope::List, "add a message after the selected one", None),
    b!(&[(KeyCode::Char('d'), NONE)], "d", Action::Duplicate, Scope::List, "duplicate the selected message", None),
    b!(&[(KeyCode::Char('x'), NONE), (KeyCode::Delete, NONE)], "x", Action::Delete, Scope::List, "delete the selected message", Some("delete")),
    b!(&[(KeyCode::Char('K'), SHIFT), (KeyCode::Char('K'), NONE)], "K", Action::MoveUp, Scope::List, "move the message up", None),
    b!(&[(KeyCode::Char('J'), SHIFT), (KeyCode::Char('J'), NONE)], "J", Action::MoveDown, Scope::List, "move the message down", None),
    b!(&[(KeyCode::Char('u'), NONE), (KeyCode::Char('z'), CTRL)], "u", Action::Undo, Scope::Global, "undo (messages; C-z inside the editor)", Some("undo")),
    b!(&[(KeyCode::Char('r'), CTRL), (KeyCode::Char('y'), CTRL)], "C-r", Action::Redo, Scope::Global, "redo", None),
    b!(&[(KeyCode::Char('/'), NONE)], "/", Action::Search, Scope::Global, "search the request", Some("search")),
    b!(&[(KeyCode::Char('n'), NONE)], "n", Action::NextMatch, Scope::Global, "next match", Some("next")),
    b!(&[(KeyCode::Char('N'), SHIFT), (KeyCode::Char('N'), NONE)], "N", Action::PrevMatch, Scope::Global, "previous match", None),
    b!(&[(KeyCode::Char('t'), NONE)], "t", Action::ToggleTools, Scope::Global, "request / tool schemas", Some("tools")),
    b!(&[(KeyCode::Char('b'), NONE)], "b", Action::ToggleRaw, Scope::Global, "base64 media short / raw", None),
    b!(&[(KeyCode::Char('v'), NONE)], "v", Action::CycleView, Scope::Global, "request view: messages, wire, text, after truncation, tokens", Some("view")),
    b!(&[(KeyCode::Char('S'), SHIFT), (KeyCode::Char('S'), NONE)], "S", Action::Send, Scope::Global, "send the request for real (a large one asks first); the reply streams in", Some("send")),
    b!(&[(KeyCode::Char('P'), SHIFT), (KeyCode::Char('P'), NONE)], "P", Action::SendMany, Scope::Global, "send to several providers at once, replies side by side", None),
    b!(&[(KeyCode::Char('R'), SHIFT), (KeyCode::Char('R'), NONE)], "R", Action::RemoteCount, Scope::Global, "exact count from Anthropic's or Gemini's token counter", None),
    b!(&[(KeyCode::Esc, NONE)], "Esc", Action::CancelSend, Scope::Global, "cancel the send in flight", None),
    b!(&[(KeyCode::Char('A'), SHIFT), (KeyCode::Char('A'), NONE)], "A", Action::AppendReply, Scope::Global, "append the reply to the conversation (u undoes)", None),
    b!(&[(KeyCode::Char('y'), NONE)], "y", Action::Copy, Scope::Global, "copy the view via the terminal (OSC 52; tmux: set-clipboard on)", None),
    b!(&[(KeyCode::Char('E'), SHIFT), (KeyCode::Char('E'), NONE)], "E", Action::Export, Scope::Global, "write the request as a curl command beside the session", None),
    b!(&[(KeyCode::Char('h'), NONE), (KeyCode::Left, NONE)], "h ←", Action::Left, Scope::Global, "scroll the request left", None),
    b!(&[(KeyCode::Char('l'), NONE), (KeyCode::Right, NONE)], "l →", Action::Right, Scope::Global, "scroll the request right (long lines)", None),
    b!(&[(KeyCode::Char('w'), NONE)], "w", Action::Explain, Scope::Global, "explain: the rule behind each line, and the rules that fired", Some("explain")),
    b!(&[(KeyCode::Char('W'), SHIFT), (KeyCode::Char('W'), NONE)], "W", Action::ToggleWrap, Scope::Global, "wrap long request lines / scroll sideways", None),
    b!(&[(KeyCode::Char('c'), NONE)], "c", Action::Compare, Scope::Global, "compare two requests side by side, message by message", Some("compare")),
    b!(&[(KeyCode::Char('C'), SHIFT), (KeyCode::Char('C'), NONE)], "C", Action::ComparePair, Scope::Global, "compare: next pair (providers, modes, wire, truncation, save)", None),
    b!(&[(KeyCode::Char('o'), NONE)], "o", Action::CompareOther, Scope::Global, "compare: next provider on the right", None),
    b!(&[(KeyCode::Char('H'), SHIFT), (KeyCode::Char('H'), NONE)], "H", Action::History, Scope::Global, "history: this session's sends; c: an old reply beside the latest", None),
    b!(&[(KeyCode::Char('L'), SHIFT), (KeyCode::Char('L'), NONE)], "L", Action::ToggleLint, Scope::Global, "lint panel: what the provider or AgentScope would reject or drop", Some("lint")),
    b!(&[(KeyCode::Char(']'), NONE)], "]", Action::NextFile, Scope::Global, "next session file in the folder", None),
    b!(&[(KeyCode::Char('['), NONE)], "[", Action::PrevFile, Scope::Global, "previous session file", None),
    b!(&[(KeyCode::Char('p'), CTRL)], "C-p", Action::FindSession, Scope::Anywhere, "find a session: fuzzy, recent first", None),
    b!(&[(KeyCode::Char('O'), SHIFT), (KeyCode::Char('O'), NONE)], "O", Action::ExternalEdit, Scope::Global, "edit the selected message in $VISUAL / $EDITOR", None),
    b!(&[(KeyCode::Char('w'), ALT)], "M-w", Action::ToggleEditorWrap, Scope::Editor, "soft wrap in the editor on / off", None),
    b!(&[(KeyCode::Esc, NONE), (KeyCode::BackTab, SHIFT), (KeyCode::BackTab, NONE)], "Esc S-Tab", Action::LeaveEditor, Scope::Editor, "leave the editor (edits stay, unsaved); Tab indents", Some("leave")),
];

/// The action bound to `key` in `scope` (global bindings apply in the
/// list and request panes too).
pub fn action_for(key: &KeyEvent, scope: Scope) -> Option<Action> {
    let mods = key.modifiers - KeyModifiers::SHIFT;
    BINDINGS
        .iter()
        .filter(|b| {
            b.scope == scope
                || b.scope == Scope::Anywhere
                || (b.scope == Scope::Global && scope != Scope::Editor)
        })
        .find(|b| {
            b.keys
                .iter()
                .any(|(code, m)| *code == key.code && (*m - KeyModifiers::SHIFT) == mods)
        })
        .map(|b| b.action)
}

/// A terminal sends Esc as the single byte ESC, and Esc typed just before
/// another key arrives in the same read as `ESC x`, which crossterm reads
/// as Alt+x. Where no binding takes Alt+x it was Esc, then x: the two
/// keys, in order (the second `None` when `key` stands as it is).
pub fn unfold_escape(key: KeyEvent) -> (KeyEvent, Option<KeyEvent>) {
    let alt_only = key.modifiers - KeyModifiers::SHIFT == KeyModifiers::ALT;
    let bound = BINDINGS.iter().any(|b| {
        b.keys
            .iter()
            .any(|(code, m)| *code == key.code && m.contains(KeyModifiers::ALT))
    });
    if !alt_only || bound || key.kind == KeyEventKind::Release {
        return (key, None);
    }
    let esc = KeyEvent::new_with_kind(KeyCode::Esc, KeyModifiers::NONE, key.kind);
    let then = KeyEvent::new_with_kind(key.code, key.modifiers - KeyModifiers::ALT, key.kind);
    (esc, Some(then))
}

/// The footer's hints for the pane in `scope`: its own keys first, then
/// the global ones that fit.
pub fn footer(scope: Scope) -> Vec<(&'static str, &'static str)> {
    let applies = |b: &&Binding| match scope {
        Scope::Editor => matches!(b.scope, Scope::Editor | Scope::Anywhere),
        _ => b.scope == scope || matches!(b.scope, Scope::Global | Scope::Anywhere),
    };
    let mut hints: Vec<(&'static str, &'static str)> = Vec::new();
    if scope != Scope::Editor {
        hints.push(("1-0", "provider"));
    }
    let own = BINDINGS.iter().filter(|b| b.scope == scope);
    let shared = BINDINGS.iter().filter(|b| b.scope != scope);
    for b in own.chain(shared).filter(applies) {
        if let Some(word) = b.footer {
            hints.push((b.label, word));
        }
    }
    hints
}

/// Help lines: key, what it does, where (the six provider keys on one line).
/// The digit keys' line of the help, from the releases' own provider
/// lists: "1.0.21: 1 OpenAI … 6 DeepSeek; 2.0.11 adds 7 OpenAI Responses …".
fn providers() -> String {
    let key = |i: usize| {
        if i == 9 {
            "0".to_string()
        } else {
            (i + 1).to_string()
        }
    };
    let first = formatscope_core::reference::default();
    let mut parts = vec![format!(
        "the providers of the release on screen (V), as the header lists them; {}: {}",
        first.version(),
        first
            .families()
            .iter()
            .enumerate()
            .map(|(i, f)| format!("{} {}", key(i), f.title))
            .collect::<Vec<_>>()
            .join(", ")
    )];
    for r in formatscope_core::reference::ALL.iter().skip(1) {
        let added: Vec<String> = r
            .families()
            .iter()
            .enumerate()
            .filter(|(_, f)| first.family(f.id).is_none())
            .map(|(i, f)| match i {
                0..=9 => format!("{} {}", key(i), f.title),
                _ => format!("{} (p)", f.title),
            })
            .collect();
        if !added.is_empty() {
            parts.push(format!("{} adds {}", r.version(), added.join(", ")));
        }
    }
    parts.join("; ")
}

pub fn help() -> Vec<(String, String, &'static str)> {
    let mut lines = Vec::new();
    for b in BINDINGS {
        if let Action::Provider(i) = b.action {
            if i == 0 {
                lines.push(("1–0".to_string(), providers(), ""));
            }
            continue;
        }
        let scope = match b.scope {
            Scope::Global | Scope::Anywhere => "",
            Scope::List => "messages",
            Scope::Output => "request",
            Scope::Editor => "editor",
        };
        lines.push((b.label.to_string(), b.help.to_string(), scope));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_actions_by_scope() {
        let key = |c| KeyEvent::new(KeyCode::Char(c), NONE);
        assert_eq!(
            action_for(&key('3'), Scope::List),
            Some(Action::Provider(2))
        );
        assert_eq!(action_for(&key('e'), Scope::List), Some(Action::Edit));
        assert_eq!(action_for(&key('e'), Scope::Output), None);
        assert_eq!(
            action_for(&key('q'), Scope::Editor),
            None,
            "the editor types q"
        );
        assert_eq!(
            action_for(&KeyEvent::new(KeyCode::Char('G'), SHIFT), Scope::Output),
            Some(Action::Bottom)
        );
    }

    #[test]
    fn every_action_has_help_and_no_key_is_bound_twice_in_a_scope() {
        let mut seen = std::collections::HashSet::new();
        for b in BINDINGS {
            assert!(!b.help.is_empty());
            for k in b.keys {
                assert!(
                    seen.insert((format!("{:?}", b.scope), format!("{k:?}"))),
                    "{k:?} twice"
                );
            }
        }
    }

    /// `ESC ]` in one read (crossterm: Alt+]) is Esc then `]`; Alt+w, which
    /// the editor binds, stays Alt+w; a plain key stays as it is.
    #[test]
    fn escape_and_a_key_in_one_read_are_two_keys() {
        let (first, then) = unfold_escape(KeyEvent::new(KeyCode::Char(']'), ALT));
        assert_eq!(first.code, KeyCode::Esc);
        assert_eq!(
            then.map(|k| (k.code, k.modifiers)),
            Some((KeyCode::Char(']'), NONE))
        );
        let (first, then) = unfold_escape(KeyEvent::new(KeyCode::Char('G'), ALT | SHIFT));
        assert_eq!(first.code, KeyCode::Esc);
        assert_eq!(
            then.map(|k| (k.code, k.modifiers)),
            Some((KeyCode::Char('G'), SHIFT))
        );
        let wrap = KeyEvent::new(KeyCode::Char('w'), ALT);
        assert_eq!(unfold_escape(wrap), (wrap, None));
        let plain = KeyEvent::new(KeyCode::Char(']'), NONE);
        assert_eq!(unfold_escape(plain), (plain, None));
        let ctrl_alt = KeyEvent::new(KeyCode::Char('x'), ALT | CTRL);
        assert_eq!(unfold_escape(ctrl_alt), (ctrl_alt, None));
    }
}

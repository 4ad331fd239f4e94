//! Themes: `crates/tui/themes/NAME.toml` (the UI palette) plus the `.tmTheme` it names
//! for the request pane's JSON. The shipped themes are embedded; `--theme
//! PATH.toml` loads one from disk (its `.tmTheme` beside it).

use ratatui::style::Color;
use serde::Deserialize;
use std::path::Path;
use std::str::FromStr;

/// Semantic colour slots of the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    pub text: Color,
    pub muted: Color,
    pub border: Color,
    pub focus: Color,
    pub header_bg: Color,
    pub header_fg: Color,
    pub selected_bg: Color,
    pub provenance_bg: Color,
    pub provenance_mark: Color,
    pub search_bg: Color,
    pub error: Color,
    pub warning: Color,
    pub ok: Color,
    pub budget_low: Color,
    pub budget_mid: Color,
    pub budget_high: Color,
    pub dropped: Color,
    /// The token view's two alternating token shades and the token under
    /// its cursor (optional in a theme file: older themes still load).
    pub token_a: Color,
    pub token_b: Color,
    pub token_cursor: Color,
}

#[derive(Debug, Clone)]
pub struct Theme {
    pub name: String,
    pub ui: Palette,
    pub syntax: syntect::highlighting::Theme,
}

#[derive(Deserialize)]
struct ThemeFile {
    name: String,
    syntax: String,
    ui: std::collections::BTreeMap<String, String>,
}

/// The shipped themes: (name, palette file, syntax file name, syntax file).
const SHIPPED: [(&str, &str, &str, &str); 2] = [
    (
        "dark",
        include_str!("../themes/dark.toml"),
        "dark.tmTheme",
        include_str!("../themes/dark.tmTheme"),
    ),
    (
        "light",
        include_str!("../themes/light.toml"),
        "light.tmTheme",
        include_str!("../themes/light.tmTheme"),
    ),
];

impl Theme {
    pub fn names() -> Vec<&'static str> {
        SHIPPED.iter().map(|t| t.0).collect()
    }

    /// A shipped theme by name, or a `.toml` theme file.
    pub fn load(name_or_path: &str) -> Result<Theme, String> {
        if let Some((_, toml, _, tm)) = SHIPPED.iter().find(|t| t.0 == name_or_path) {
            return Theme::parse(toml, |_| Ok(tm.to_string()));
        }
        let path = Path::new(name_or_path);
        if path.extension().is_some_and(|e| e == "toml") {
            // Both files through the guarded read: a FIFO or a device (as
            // the theme, or as the syntax file it names) is an error, not
            // a workbench that hangs before its first frame.
            let read = |p: &Path| {
                formatscope_core::files::read_config(p, "theme files")
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| format!("{}: no such file", p.display()))
            };
            let text = read(path)?;
            let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
            return Theme::parse(&text, |syntax| read(&dir.join(syntax)))
                .map_err(|e| format!("{}: {e}", path.display()));
        }
        Err(format!(
            "unknown theme {name_or_path:?}; one of {} or a path to a .toml theme",
            Theme::names().join(", ")
        ))
    }

    fn parse(
        toml_text: &str,
        read_syntax: impl Fn(&str) -> Result<String, String>,
    ) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(toml_text).map_err(|e| e.to_string())?;
        let colour = |slot: &str| -> Result<Color, String> {
            let v = file
                .ui
                .get(slot)
                .ok_or_else(|| format!("[ui] has no {slot}"))?;
            Color::from_str(v).map_err(|_| format!("[ui] {slot}: not a colour: {v:?}"))
        };
        let colour_or = |slot: &str, fallback: Color| -> Result<Color, String> {
            match file.ui.get(slot) {
                Some(_) => colour(slot),
                None => Ok(fallback),
            }
        };
        let ui = Palette {
            text: colour("text")?,
            muted: colour("muted")?,
            border: colour("border")?,
            focus: colour("focus")?,
            header_bg: colour("header_bg")?,
            header_fg: colour("header_fg")?,
            selected_bg: colour("selected_bg")?,
            provenance_bg: colour("provenance_bg")?,
            provenance_mark: colour("provenance_mark")?,
            search_bg: colour("search_bg")?,
            error: colour("error")?,
            warning: colour("warning")?,
            ok: colour("ok")?,
            budget_low: colour("budget_low")?,
            budget_mid: colour("budget_mid")?,
            budget_high: colour("budget_high")?,
            dropped: colour("dropped")?,
            token_a: colour_or("token_a", colour("header_bg")?)?,
            token_b: colour_or("token_b", colour("selected_bg")?)?,
            token_cursor: colour_or("token_cursor", colour("search_bg")?)?,
        };
        let tm = read_syntax(&file.syntax)?;
        let syntax = syntect::highlighting::ThemeSet::load_from_reader(&mut std::io::Cursor::new(
            tm.as_bytes(),
        ))
        .map_err(|e| format!("{}: {e}", file.syntax))?;
        Ok(Theme {
            name: file.name,
            ui,
            syntax,
        })
    }

    /// Whether the theme is light (for the few places that pick a
    /// contrasting colour).
    pub fn is_light(&self) -> bool {
        self.name.contains("light")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_theme_loads() {
        for name in Theme::names() {
            let theme = Theme::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(theme.name, name);
            assert!(
                !theme.syntax.scopes.is_empty(),
                "{name} highlights something"
            );
        }
    }

    #[test]
    fn every_theme_file_in_the_themes_folder_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("crates/tui/themes/") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                Theme::load(&path.display().to_string()).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 2);
    }

    #[test]
    fn a_bad_theme_says_what_is_wrong() {
        let err = Theme::load("no-such-theme").unwrap_err();
        assert!(err.contains("one of dark, light"));
    }
}

//! `mimetypes.guess_type` with Python 3.11's built-in table only (no
//! `/etc/mime.types`), which is what the reference pins: system tables
//! differ between machines.

use super::splitext;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Deserialize)]
struct Table {
    suffix_map: HashMap<String, String>,
    encodings_map: HashMap<String, String>,
    strict: HashMap<String, String>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("../../assets/mimetypes-py311.json"))
            .expect("the bundled mimetypes table is valid JSON")
    })
}

/// The media type for an absolute path, as `mimetypes.guess_type(path)[0]`.
pub fn guess_type(path: &str) -> Option<String> {
    let t = table();
    let (mut base, mut ext) = {
        let (b, e) = splitext(path);
        (b.to_string(), e.to_string())
    };
    while let Some(replacement) = t.suffix_map.get(&ext.to_lowercase()) {
        let joined = format!("{base}{replacement}");
        let (b, e) = splitext(&joined);
        (base, ext) = (b.to_string(), e.to_string());
    }
    if t.encodings_map.contains_key(&ext) {
        let (_, e) = splitext(&base);
        ext = e.to_string();
    }
    t.strict.get(&ext.to_lowercase()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_311_builtin_table() {
        assert_eq!(guess_type("/m/tone.wav").as_deref(), Some("audio/x-wav"));
        assert_eq!(guess_type("/m/PIXEL.PNG").as_deref(), Some("image/png"));
        assert_eq!(guess_type("/m/clip.mp4").as_deref(), Some("video/mp4"));
        assert_eq!(guess_type("/m/x.tgz").as_deref(), Some("application/x-tar"));
        assert_eq!(guess_type("/m/sound.ogg"), None);
        assert_eq!(guess_type("/m/notes.xyz"), None);
        assert_eq!(guess_type("/m/image_noext"), None);
    }
}

//! Media the formatters read: local files (relative to the session's folder,
//! as AgentScope resolves them against its working directory), web URLs,
//! and the temp files AgentScope writes for base64 media in tool results.

mod mimetypes;
mod sniff;
mod url;
mod web;

pub use self::mimetypes::guess_type;
pub use self::sniff::sniff_mime;
pub use self::url::{splitext, url_scheme};
#[cfg(feature = "http")]
pub use self::web::HttpFetcher;
pub use self::web::{HttpResponse, NoNetwork, WebFetcher, WebRoot};

use crate::py::{self, PyErr};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Where AgentScope's `tempfile` puts base64 tool-result media.
pub const TEMP_DIR: &str = "/tmp";

/// The world one formatting run sees. Created per run; not shared between
/// threads (the web fetcher, which caches, is).
pub struct MediaEnv {
    base_dir: PathBuf,
    web: Arc<dyn WebFetcher>,
    /// Base64 tool-result media "saved" during this run, by path. They are
    /// kept in memory (AgentScope writes them to disk) so that formatting
    /// has no side effects; later reads of the same path see them.
    saved: RefCell<HashMap<String, Vec<u8>>>,
    warnings: RefCell<Vec<String>>,
}

impl MediaEnv {
    pub fn new(base_dir: impl Into<PathBuf>, web: Arc<dyn WebFetcher>) -> Self {
        let base_dir = base_dir.into();
        let base_dir = std::path::absolute(&base_dir).unwrap_or(base_dir);
        Self {
            base_dir,
            web,
            saved: RefCell::default(),
            warnings: RefCell::default(),
        }
    }

    pub fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    pub fn web(&self) -> &dyn WebFetcher {
        self.web.as_ref()
    }

    /// Logs a warning as AgentScope's logger would.
    pub fn warn(&self, message: String) {
        self.warnings.borrow_mut().push(message);
    }

    pub fn warning_count(&self) -> usize {
        self.warnings.borrow().len()
    }

    /// Forgets the warnings after the first `n` (a pass that is re-run).
    pub fn truncate_warnings(&self, n: usize) {
        self.warnings.borrow_mut().truncate(n);
    }

    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.borrow_mut())
    }

    fn resolve(&self, path: &str) -> PathBuf {
        self.base_dir.join(path)
    }

    /// `os.path.exists`.
    pub fn exists(&self, path: &str) -> bool {
        if path.is_empty() || path.contains('\0') {
            return false;
        }
        self.saved.borrow().contains_key(path) || self.resolve(path).exists()
    }

    /// `os.path.isfile`.
    pub fn is_file(&self, path: &str) -> bool {
        if path.is_empty() || path.contains('\0') {
            return false;
        }
        self.saved.borrow().contains_key(path) || self.resolve(path).is_file()
    }

    /// `open(path, "rb").read()`, with Python's OSError messages.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, PyErr> {
        if let Some(bytes) = self.saved.borrow().get(path) {
            return Ok(bytes.clone());
        }
        let full = self.resolve(path);
        if full.is_dir() {
            return Err(PyErr::new(
                "IsADirectoryError",
                format!("[Errno 21] Is a directory: {}", py::py_repr(&path.into())),
            ));
        }
        std::fs::read(&full).map_err(|e| {
            let (kind, errno, text) = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    ("FileNotFoundError", 2, "No such file or directory")
                }
                std::io::ErrorKind::PermissionDenied => {
                    ("PermissionError", 13, "Permission denied")
                }
                _ => (
                    "OSError",
                    e.raw_os_error().unwrap_or(5),
                    "Input/output error",
                ),
            };
            PyErr::new(
                kind,
                format!("[Errno {errno}] {text}: {}", py::py_repr(&path.into())),
            )
        })
    }

    /// `os.path.abspath`: joined to the working directory and normalised.
    pub fn abspath(&self, path: &str) -> String {
        let joined = self.resolve(path);
        let mut out = PathBuf::new();
        for comp in joined.components() {
            match comp {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        out.display().to_string()
    }

    /// `_save_base64_data(media_type, data)`: the path AgentScope's temp file
    /// would get, made deterministic as the reference oracle makes it:
    /// `/tmp/tmp<first 8 hex of sha256(bytes)>.<subtype>`.
    pub fn save_base64(
        &self,
        media_type: &serde_json::Value,
        data: &serde_json::Value,
    ) -> Result<String, PyErr> {
        let media_type = py::get_str_method_target(media_type, "split")?;
        let extension = media_type.rsplit('/').next().unwrap_or(media_type);
        let bytes = py::b64decode(data)?;
        let digest = Sha256::digest(&bytes);
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        let path = format!("{TEMP_DIR}/tmp{hex}.{extension}");
        self.saved.borrow_mut().insert(path.clone(), bytes);
        Ok(path)
    }

    /// `_get_bytes_from_web_url`: up to 3 tries; the body as UTF-8 text when
    /// it decodes (an AgentScope quirk), else base64.
    pub fn fetch_text_or_base64(&self, url: &str) -> Result<String, PyErr> {
        for _ in 0..3 {
            match self.web.get(url).and_then(|r| r.raise_for_status(url)) {
                Ok(resp) => {
                    return Ok(match String::from_utf8(resp.body) {
                        Ok(text) => text,
                        Err(e) => py::b64encode(e.as_bytes()),
                    })
                }
                Err(_) => continue,
            }
        }
        Err(PyErr::new(
            "RuntimeError",
            format!("Failed to fetch bytes from URL `{url}` after 3 retries."),
        ))
    }
}

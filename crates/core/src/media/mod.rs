//! Media the formatters read: local files (relative to the session's folder,
//! as AgentScope resolves them against its working directory), web URLs,
//! and the temp files AgentScope writes for base64 media in tool results.

mod access;
mod mimetypes;
mod sniff;
mod url;
mod web;

pub use self::access::{Access, AccessEvent, AccessPolicy, AllowAll, Gate, FETCH_TIME_LIMIT};
pub use self::mimetypes::guess_type;
pub use self::sniff::sniff_mime;
pub use self::url::{join_url, splitext, url_host, url_scheme};
pub use self::web::{HttpResponse, NoNetwork, WebFetcher, WebRoot};

use crate::py::{self, PyErr};
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Runs through one gate and web, made on any thread: see
/// [`MediaEnv::runs`].
#[derive(Clone)]
pub struct Runs {
    gate: Arc<Gate>,
    web: Arc<dyn WebFetcher>,
}

impl Runs {
    /// A fresh run (nothing saved, no warnings).
    pub fn run(&self) -> MediaEnv {
        MediaEnv::with_gate(Arc::clone(&self.gate), Arc::clone(&self.web))
    }
}

/// Where AgentScope's `tempfile` puts base64 tool-result media.
pub const TEMP_DIR: &str = "/tmp";

/// The world one formatting run sees. Created per run; not shared between
/// threads (the web fetcher, which caches, is). Every file read and
/// download goes through the session's [`Gate`].
pub struct MediaEnv {
    gate: Arc<Gate>,
    web: GatedWeb,
    /// Base64 tool-result media "saved" during this run, by path. They are
    /// kept in memory (AgentScope writes them to disk) so that formatting
    /// has no side effects; later reads of the same path see them.
    saved: RefCell<HashMap<String, Vec<u8>>>,
    warnings: RefCell<Vec<String>>,
}

/// The web as the formatters see it: through the gate.
#[derive(Clone)]
struct GatedWeb {
    gate: Arc<Gate>,
    inner: Arc<dyn WebFetcher>,
}

impl WebFetcher for GatedWeb {
    fn get(&self, url: &str) -> Result<HttpResponse, PyErr> {
        self.gate.fetch(self.inner.as_ref(), url)
    }
}

impl MediaEnv {
    /// A run for a session in `base_dir` that may read and fetch anything
    /// (AgentScope's behaviour).
    pub fn new(base_dir: impl Into<PathBuf>, web: Arc<dyn WebFetcher>) -> Self {
        Self::with_gate(Arc::new(Gate::open(base_dir)), web)
    }

    /// A run whose reads and downloads `gate` decides and bounds.
    pub fn with_gate(gate: Arc<Gate>, web: Arc<dyn WebFetcher>) -> Self {
        Self {
            web: GatedWeb {
                gate: Arc::clone(&gate),
                inner: web,
            },
            gate,
            saved: RefCell::default(),
            warnings: RefCell::default(),
        }
    }

    /// Another run through the same gate and web (nothing saved yet).
    pub fn another_run(&self) -> Self {
        self.runs().run()
    }

    /// What makes more runs like this one on other threads (a run itself
    /// is not shared between threads).
    pub fn runs(&self) -> Runs {
        Runs {
            gate: Arc::clone(&self.gate),
            web: Arc::clone(&self.web.inner),
        }
    }

    /// Logs `run`'s warnings after this run's, as if its work had been
    /// done here (a run that read, fetched or saved nothing).
    pub fn absorb(&self, run: MediaEnv) {
        debug_assert!(run.saved.borrow().is_empty(), "a run that saved media");
        self.warnings.borrow_mut().extend(run.warnings.into_inner());
    }

    pub fn base_dir(&self) -> &Path {
        self.gate.base_dir()
    }

    pub fn gate(&self) -> &Arc<Gate> {
        &self.gate
    }

    /// `requests`, through the gate.
    /// The gated web, to keep (a counter that outlives this run).
    pub fn web_arc(&self) -> Arc<dyn WebFetcher> {
        Arc::new(self.web.clone())
    }

    pub fn web(&self) -> &dyn WebFetcher {
        &self.web
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
        self.gate.resolve(path)
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

    /// `open(path, "rb").read()`, with Python's OSError messages, through
    /// the gate: only regular files, within the media limits.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, PyErr> {
        if let Some(bytes) = self.saved.borrow().get(path) {
            return Ok(bytes.clone());
        }
        self.gate.read_media(path, &self.resolve(path))
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
            match self.web().get(url).and_then(|r| r.raise_for_status(url)) {
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

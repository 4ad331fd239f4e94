//! What a session may make formatscope read or download. Like AgentScope,
//! a session can name any readable file and any URL; unlike AgentScope,
//! formatscope does not do so silently. Every file read and every download
//! of one formatting run goes through its [`Gate`], which
//!
//! - asks its [`AccessPolicy`] about files outside the session's own folder
//!   (after following symlinks, so `passwd.png -> /etc/passwd` is outside)
//!   and about every download: the workbench asks its user, the command
//!   line allows all (the reference behaviour). Not the folder's parent: a
//!   session in `/tmp` or `~/Downloads` would read all of `/` or `~`. A
//!   session in `/`, the home folder itself, `/proc`, `/sys` or `/dev` has
//!   no free folder at all;
//! - remembers what was read outside and fetched, so the command line can
//!   list it and the workbench can show what a session wants;
//! - bounds what one run takes in: media files and downloads of at most
//!   [`MEDIA_LIMIT`], [`REQUEST_MEDIA_LIMIT`] in all, and a total time for
//!   downloads.

use super::web::{HttpResponse, WebFetcher};
use crate::files::{self, ReadError, MEDIA_LIMIT, REQUEST_MEDIA_LIMIT};
use crate::py::{self, PyErr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most redirects one download follows (as `requests` does).
pub const MAX_REDIRECTS: usize = 30;

/// The most time one formatting run spends downloading, in all.
pub const FETCH_TIME_LIMIT: Duration = Duration::from_secs(60);

/// One thing a run read or fetched, or wanted to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Access {
    /// A file outside the session's folder (resolved).
    Read(PathBuf),
    /// A download.
    Fetch(String),
    /// A download a redirect took to another host than the URL before it
    /// (the user saw only `from`).
    Redirect { to: String, from: String },
}

impl Access {
    /// The host a redirect took a download to.
    pub fn redirect_host(&self) -> Option<String> {
        match self {
            Access::Redirect { to, .. } => super::url::url_host(to),
            _ => None,
        }
    }
}

impl std::fmt::Display for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Read(p) => write!(f, "read {}", p.display()),
            Access::Fetch(url) => write!(f, "fetch {url}"),
            Access::Redirect { to, from } => write!(f, "fetch {to} (redirected from {from})"),
        }
    }
}

/// Decides reads outside the session's folders and downloads.
pub trait AccessPolicy: Send + Sync {
    fn allows(&self, access: &Access) -> bool;
}

/// Everything is allowed (AgentScope's behaviour; the command line lists
/// what was done on stderr).
pub struct AllowAll;

impl AccessPolicy for AllowAll {
    fn allows(&self, _: &Access) -> bool {
        true
    }
}

/// What happened to one access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessEvent {
    pub access: Access,
    pub allowed: bool,
}

#[derive(Default)]
struct RunState {
    events: Vec<AccessEvent>,
    media_bytes: u64,
    fetch_time: Duration,
}

/// The gate of one session's formatting runs (shared by the formatters'
/// media reads and the token counter's header reads).
pub struct Gate {
    base_dir: PathBuf,
    /// Reads under this folder (the session's own folder, resolved) need
    /// no permission; `None` when that folder is too wide to trust.
    root: Option<PathBuf>,
    policy: Arc<dyn AccessPolicy>,
    state: Mutex<RunState>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("base_dir", &self.base_dir)
            .field("root", &self.root)
            .finish()
    }
}

impl Gate {
    /// A gate for a session in `base_dir`, allowing everything.
    pub fn open(base_dir: impl Into<PathBuf>) -> Gate {
        Gate::new(base_dir, Arc::new(AllowAll))
    }

    pub fn new(base_dir: impl Into<PathBuf>, policy: Arc<dyn AccessPolicy>) -> Gate {
        let base_dir = base_dir.into();
        let base_dir = std::path::absolute(&base_dir).unwrap_or(base_dir);
        let root = std::fs::canonicalize(&base_dir)
            .ok()
            .filter(|d| !too_wide_to_trust(d));
        Gate {
            base_dir,
            root,
            policy,
            state: Mutex::default(),
        }
    }

    pub fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a new run: the byte and time budgets start again (what was
    /// asked is kept: it is what the session wants).
    pub fn begin_run(&self) {
        let mut s = self.state();
        s.media_bytes = 0;
        s.fetch_time = Duration::ZERO;
    }

    /// Reads and downloads so far: what was done outside, and what was
    /// refused.
    pub fn events(&self) -> Vec<AccessEvent> {
        self.state().events.clone()
    }

    /// The accesses that were refused (what the session wants).
    pub fn refused(&self) -> Vec<Access> {
        let mut out: Vec<Access> = self
            .state()
            .events
            .iter()
            .filter(|e| !e.allowed)
            .map(|e| e.access.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn record(&self, access: Access, allowed: bool) {
        let mut s = self.state();
        if !s
            .events
            .iter()
            .any(|e| e.access == access && e.allowed == allowed)
        {
            s.events.push(AccessEvent { access, allowed });
        }
    }

    /// `path` joined to the session's folder.
    pub fn resolve(&self, path: &str) -> PathBuf {
        self.base_dir.join(path)
    }

    /// Whether reading `full` needs the policy: it lies outside the root
    /// once symlinks are followed.
    fn outside(&self, full: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(full).unwrap_or_else(|_| lexical(full));
        match &self.root {
            Some(root) if real.starts_with(root) => None,
            _ => Some(real),
        }
    }

    /// What reading or fetching `url` (a media block's URL or path, as a
    /// session names it) would need permission for, if anything.
    pub fn classify(&self, url: &str) -> Option<Access> {
        match super::url_scheme(url).as_str() {
            "http" | "https" => Some(Access::Fetch(url.to_string())),
            "data" => None,
            "file" => {
                let path = url.trim_start_matches("file://");
                self.outside(&self.resolve(path)).map(Access::Read)
            }
            // A Windows drive letter or no scheme: a local path.
            s if s.len() <= 1 => self.outside(&self.resolve(url)).map(Access::Read),
            _ => None,
        }
    }

    /// Everything in `messages` that would need permission: every media
    /// source the session names, in its blocks and in tool results. The
    /// messages are read one at a time (a packed session is unpacked one
    /// message at a time).
    pub fn wanted_by<M: std::borrow::Borrow<serde_json::Value>>(
        &self,
        messages: impl IntoIterator<Item = M>,
    ) -> Vec<Access> {
        let mut out: Vec<Access> = Vec::new();
        for message in messages {
            let mut stack: Vec<&serde_json::Value> = vec![message.borrow()];
            while let Some(v) = stack.pop() {
                match v {
                    serde_json::Value::Array(items) => stack.extend(items),
                    serde_json::Value::Object(map) => {
                        if let Some(url) = map
                            .get("source")
                            .and_then(|s| s.get("url"))
                            .and_then(serde_json::Value::as_str)
                        {
                            out.extend(self.classify(url));
                        }
                        stack.extend(map.values());
                    }
                    _ => {}
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Asks before a read; the error is a Python `PermissionError`.
    fn check_read(&self, shown: &str, full: &Path) -> Result<(), PyErr> {
        let Some(real) = self.outside(full) else {
            return Ok(());
        };
        let access = Access::Read(real);
        let allowed = self.policy.allows(&access);
        self.record(access, allowed);
        if allowed {
            Ok(())
        } else {
            Err(PyErr::new(
                "PermissionError",
                format!(
                    "formatscope did not read {}: it is outside the session's folder, and reading it was not allowed",
                    py::py_repr(&shown.into())
                ),
            ))
        }
    }

    /// `open(path, "rb").read()` for a media file, within the limits.
    pub fn read_media(&self, shown: &str, full: &Path) -> Result<Vec<u8>, PyErr> {
        self.check_read(shown, full)?;
        let bytes =
            files::read_regular(full, MEDIA_LIMIT, "media").map_err(|e| os_error(shown, e))?;
        self.take_bytes(bytes.len() as u64)?;
        Ok(bytes)
    }

    /// A media file's first bytes and size (image headers for counting),
    /// or nothing when it cannot or may not be read.
    pub fn read_header(&self, full: &Path, n: u64) -> Option<(Vec<u8>, u64)> {
        self.check_read(&full.display().to_string(), full).ok()?;
        files::read_prefix(full, n).ok()
    }

    /// Counts `n` more media bytes against the run's total.
    fn take_bytes(&self, n: u64) -> Result<(), PyErr> {
        let mut s = self.state();
        if s.media_bytes + n > REQUEST_MEDIA_LIMIT {
            return Err(PyErr::new(
                "OSError",
                format!(
                    "formatscope stopped reading media: this request would hold more than {} of it, more than any provider accepts",
                    files::megabytes(REQUEST_MEDIA_LIMIT)
                ),
            ));
        }
        s.media_bytes += n;
        Ok(())
    }

    /// `requests.get(url)` through `web`, if the policy allows it, within
    /// the run's size and time budgets.
    pub fn fetch(&self, web: &dyn WebFetcher, url: &str) -> Result<HttpResponse, PyErr> {
        let access = Access::Fetch(url.to_string());
        let allowed = self.policy.allows(&access);
        self.record(access, allowed);
        if !allowed {
            return Err(PyErr::new(
                "ConnectionError",
                format!("formatscope did not fetch {url}: downloading it was not allowed"),
            ));
        }
        // Redirects are followed here, one hop at a time, so that each host
        // a download reaches is asked for (or, on the command line, named).
        let mut current = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            let response = self.fetch_once(web, &current)?;
            let next = match (&response.location, response.status) {
                (Some(location), 301..=303 | 307 | 308) => super::url::join_url(&current, location),
                _ => {
                    self.take_bytes(response.body.len() as u64)?;
                    return Ok(response);
                }
            };
            if super::url::url_host(&next) != super::url::url_host(&current) {
                let access = Access::Redirect {
                    to: next.clone(),
                    from: current.clone(),
                };
                let host = access.redirect_host().unwrap_or_else(|| next.clone());
                let allowed = self.policy.allows(&access);
                self.record(access, allowed);
                if !allowed {
                    return Err(PyErr::new(
                        "ConnectionError",
                        format!(
                            "Failed to fetch {next} (redirected from {current}): formatscope did not download from {host}: it was not allowed"
                        ),
                    ));
                }
            }
            current = next;
        }
        Err(PyErr::new(
            "TooManyRedirects",
            format!("Exceeded {MAX_REDIRECTS} redirects."),
        ))
    }

    /// One GET, within the run's time budget.
    fn fetch_once(&self, web: &dyn WebFetcher, url: &str) -> Result<HttpResponse, PyErr> {
        if self.state().fetch_time >= FETCH_TIME_LIMIT {
            return Err(PyErr::new(
                "ConnectionError",
                format!(
                    "formatscope did not fetch {url}: this request already spent {} s downloading",
                    FETCH_TIME_LIMIT.as_secs()
                ),
            ));
        }
        let started = Instant::now();
        let result = web.get(url);
        self.state().fetch_time += started.elapsed();
        result
    }
}

/// Whether a session's folder is one whose every file it must not read
/// unasked: the root, the home folder itself, or the kernel's folders.
fn too_wide_to_trust(dir: &Path) -> bool {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| std::fs::canonicalize(&h).unwrap_or_else(|_| PathBuf::from(h)));
    dir.parent().is_none()
        || home.is_some_and(|h| h == dir)
        || crate::files::PSEUDO_ROOTS
            .iter()
            .any(|kernel| dir.starts_with(kernel))
}

/// Python's `OSError` for a read that failed or was refused.
fn os_error(shown: &str, e: ReadError) -> PyErr {
    let name = py::py_repr(&shown.into());
    match e {
        ReadError::NotFound => PyErr::new(
            "FileNotFoundError",
            format!("[Errno 2] No such file or directory: {name}"),
        ),
        ReadError::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => PyErr::new(
            "PermissionError",
            format!("[Errno 13] Permission denied: {name}"),
        ),
        ReadError::NotRegular("a folder") => PyErr::new(
            "IsADirectoryError",
            format!("[Errno 21] Is a directory: {name}"),
        ),
        other => PyErr::new(
            "OSError",
            format!("formatscope did not read {name}: {other}"),
        ),
    }
}

/// `os.path.normpath(os.path.abspath(path))`, for a path that does not
/// exist (so it cannot be resolved).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct DenyAll;
    impl AccessPolicy for DenyAll {
        fn allows(&self, _: &Access) -> bool {
            false
        }
    }

    #[test]
    fn reads_outside_the_session_folders_ask_the_policy_symlinks_included() {
        let top = tempfile::tempdir().unwrap();
        let sessions = top.path().join("project/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(top.path().join("project/logo.png"), b"png").unwrap();
        std::fs::write(top.path().join("secret.txt"), b"secret").unwrap();
        std::os::unix::fs::symlink(top.path().join("secret.txt"), sessions.join("passwd.png"))
            .unwrap();
        std::fs::write(sessions.join("own.png"), b"own").unwrap();
        let gate = Gate::new(&sessions, Arc::new(DenyAll));
        // The session's own folder is fine; its parent is not (a session
        // in /tmp would read all of /).
        assert_eq!(
            gate.read_media("own.png", &gate.resolve("own.png"))
                .unwrap(),
            b"own"
        );
        let err = gate
            .read_media("../logo.png", &gate.resolve("../logo.png"))
            .unwrap_err();
        assert_eq!(err.kind, "PermissionError");
        let err = gate
            .read_media("../../secret.txt", &gate.resolve("../../secret.txt"))
            .unwrap_err();
        assert_eq!(err.kind, "PermissionError");
        let err = gate
            .read_media("passwd.png", &gate.resolve("passwd.png"))
            .unwrap_err();
        assert!(
            err.message.contains("outside the session's folder"),
            "{}",
            err.message
        );
        let secret = std::fs::canonicalize(top.path().join("secret.txt")).unwrap();
        let logo = std::fs::canonicalize(top.path().join("project/logo.png")).unwrap();
        assert_eq!(
            gate.refused(),
            vec![Access::Read(logo), Access::Read(secret.clone())]
        );
        let open = Gate::open(&sessions);
        assert_eq!(
            open.read_media("passwd.png", &open.resolve("passwd.png"))
                .unwrap(),
            b"secret"
        );
        assert_eq!(
            open.events(),
            vec![AccessEvent {
                access: Access::Read(secret),
                allowed: true
            }]
        );
    }

    #[test]
    fn no_free_folder_for_a_session_in_the_root_home_or_kernel_folders() {
        for dir in ["/", "/proc", "/proc/self", "/sys", "/dev"] {
            let gate = Gate::new(dir, Arc::new(DenyAll));
            assert_eq!(gate.root, None, "{dir}");
            assert!(gate.classify("x.png").is_some(), "{dir}");
        }
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            if std::path::Path::new(&home).is_dir() {
                let gate = Gate::new(&home, Arc::new(DenyAll));
                assert_eq!(gate.root, None);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let gate = Gate::new(dir.path(), Arc::new(DenyAll));
        assert_eq!(gate.classify("x.png"), None);
        assert!(gate.classify("../x.png").is_some());
    }

    #[test]
    fn a_run_takes_in_at_most_the_request_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin");
        std::fs::write(&path, vec![0u8; 15 * 1024 * 1024]).unwrap();
        let gate = Gate::open(dir.path());
        for _ in 0..3 {
            gate.read_media("m.bin", &path).unwrap();
        }
        let err = gate.read_media("m.bin", &path).unwrap_err();
        assert!(err.message.contains("more than 50 MB"), "{}", err.message);
        gate.begin_run();
        assert!(gate.read_media("m.bin", &path).is_ok());
    }
}

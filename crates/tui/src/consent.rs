//! The workbench's answer to what a session wants to read or download
//! (`media::Gate` asks). Nothing outside the session's own folder is
//! read, and nothing is fetched, until the user says so: once
//! per session file (allow or deny, for this run), or always for the
//! session's folder (remembered in the config folder).

use formatscope_core::media::{Access, AccessPolicy};
use formatscope_net::hosts::Host;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How a formatting job treats reads outside and downloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessMode {
    /// Allowed (by the user, for this file or its folder).
    Allow,
    /// Refused, and the user has answered: do not ask again.
    Deny,
    /// Refused for now, and the user is asked about what was wanted.
    Ask,
}

impl AccessPolicy for AccessMode {
    fn allows(&self, _: &Access) -> bool {
        *self == AccessMode::Allow
    }
}

/// What one formatting job may read and fetch: the session's answer, and
/// the hosts a redirect may take a download to (each asked for: the user
/// saw only the first URL).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessGrant {
    pub mode: AccessMode,
    pub redirect_hosts: Vec<String>,
}

impl AccessPolicy for AccessGrant {
    fn allows(&self, access: &Access) -> bool {
        match access.redirect_host() {
            Some(host) => self.mode == AccessMode::Allow && self.redirect_hosts.contains(&host),
            None => self.mode.allows(access),
        }
    }
}

/// The user's answers.
#[derive(Debug, Default)]
pub struct Consent {
    /// Per session file, for this run.
    files: HashMap<PathBuf, bool>,
    /// Folders whose sessions may always read and fetch.
    trusted: Vec<PathBuf>,
    /// Hosts only a session named that the user let keys go to (`S`),
    /// and those refused (not asked again), until quitting.
    send_hosts: Vec<Host>,
    refused_send_hosts: Vec<Host>,
    /// Hosts a media redirect may (true) or may not (false) lead to.
    redirect_hosts: HashMap<String, bool>,
}

impl Consent {
    pub fn new(trusted: Vec<PathBuf>) -> Consent {
        Consent {
            trusted,
            ..Consent::default()
        }
    }

    /// What a formatting job of `session` may read and fetch.
    pub fn grant(&self, session: &Path) -> AccessGrant {
        let mut redirect_hosts: Vec<String> = self
            .redirect_hosts
            .iter()
            .filter(|(_, allowed)| **allowed)
            .map(|(h, _)| h.clone())
            .collect();
        redirect_hosts.sort();
        AccessGrant {
            mode: self.mode(session),
            redirect_hosts,
        }
    }

    /// What to ask about among what `session` wanted: all of it while the
    /// session is unanswered, else the redirect hosts not yet answered.
    pub fn to_ask(&self, session: &Path, wanted: &[Access]) -> Vec<Access> {
        let unanswered = |a: &Access| {
            a.redirect_host()
                .is_none_or(|h| !self.redirect_hosts.contains_key(&h))
        };
        match self.mode(session) {
            AccessMode::Ask => wanted.iter().filter(|a| unanswered(a)).cloned().collect(),
            _ => wanted
                .iter()
                .filter(|a| a.redirect_host().is_some() && unanswered(a))
                .cloned()
                .collect(),
        }
    }

    /// The answer about the redirect hosts among `asked`.
    pub fn answer_redirects(&mut self, asked: &[Access], allow: bool) {
        for host in asked.iter().filter_map(Access::redirect_host) {
            self.redirect_hosts.insert(host, allow);
        }
    }

    /// The hosts the user let keys go to.
    pub fn send_hosts(&self) -> Vec<Host> {
        self.send_hosts.clone()
    }

    /// The user's answer about sending keys to `host`.
    pub fn answer_send_host(&mut self, host: Host, allow: bool) {
        if allow {
            self.send_hosts.push(host);
        } else {
            self.refused_send_hosts.push(host);
        }
    }

    pub fn refused_send_host(&self, host: &Host) -> bool {
        self.refused_send_hosts.contains(host)
    }

    pub fn mode(&self, session: &Path) -> AccessMode {
        if session.parent().is_some_and(|dir| self.is_trusted(dir)) {
            return AccessMode::Allow;
        }
        match self.files.get(session) {
            Some(true) => AccessMode::Allow,
            Some(false) => AccessMode::Deny,
            None => AccessMode::Ask,
        }
    }

    fn is_trusted(&self, dir: &Path) -> bool {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        self.trusted.iter().any(|t| *t == real || t == dir)
    }

    pub fn answer(&mut self, session: &Path, allow: bool) {
        self.files.insert(session.to_path_buf(), allow);
    }

    /// Trusts `dir` from now on (the caller also saves it).
    pub fn trust(&mut self, dir: &Path) -> PathBuf {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        if !self.trusted.contains(&real) {
            self.trusted.push(real.clone());
        }
        real
    }
}

/// Where trusted folders are remembered:
/// `$XDG_CONFIG_HOME/formatscope/trusted-folders` (else `~/.config/...`),
/// one absolute path a line.
pub fn trust_file() -> Option<PathBuf> {
    formatscope_core::files::user_file(formatscope_core::files::UserDir::Config, "trusted-folders")
}

/// The remembered trusted folders.
pub fn load_trusted() -> Vec<PathBuf> {
    let Some(path) = trust_file() else {
        return Vec::new();
    };
    let Ok(bytes) = formatscope_core::files::read_regular(&path, 1024 * 1024, "config files")
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(PathBuf::from)
        .collect()
}

/// Adds `dir` to the remembered trusted folders.
pub fn save_trusted(dir: &Path) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let path =
        trust_file().ok_or_else(|| std::io::Error::other("no config folder (HOME is not set)"))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    writeln!(file, "{}", dir.display())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_per_file_and_trust_is_per_folder() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        let mut c = Consent::default();
        assert_eq!(c.mode(&a), AccessMode::Ask);
        c.answer(&a, false);
        assert_eq!(c.mode(&a), AccessMode::Deny);
        assert_eq!(c.mode(&b), AccessMode::Ask);
        c.trust(dir.path());
        assert_eq!(c.mode(&b), AccessMode::Allow);
        assert!(AccessMode::Allow.allows(&Access::Fetch("https://x".into())));
        assert!(!AccessMode::Ask.allows(&Access::Fetch("https://x".into())));
    }
}

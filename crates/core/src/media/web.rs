//! Web access for media the formatters download. Behind a trait so that the
//! core stays free of network code: `WebRoot` serves fixtures from a folder
//! (offline use, tests), the network layer's `HttpFetcher`
//! (formatscope-net) really fetches.

use crate::py::PyErr;
use std::path::{Component, PathBuf};

/// What `requests.get` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub reason: String,
    pub body: Vec<u8>,
    /// A redirect's `Location` (the gate follows it, asking first).
    pub location: Option<String>,
}

impl HttpResponse {
    /// `response.raise_for_status()`.
    pub fn raise_for_status(self, url: &str) -> Result<HttpResponse, PyErr> {
        let kind = match self.status {
            400..=499 => "Client",
            500..=599 => "Server",
            _ => return Ok(self),
        };
        Err(PyErr::new(
            "HTTPError",
            format!(
                "{} {kind} Error: {} for url: {url}",
                self.status, self.reason
            ),
        ))
    }
}

/// `requests.get(url)`.
pub trait WebFetcher: Send + Sync {
    fn get(&self, url: &str) -> Result<HttpResponse, PyErr>;
}

fn not_found() -> HttpResponse {
    HttpResponse {
        status: 404,
        reason: "Not Found".into(),
        body: Vec::new(),
        location: None,
    }
}

/// Serves `http(s)://HOST/PATH` from `ROOT/HOST/PATH` (query and fragment
/// dropped); every other URL answers 404. This is the reference oracle's
/// offline web, so outputs match the golden files.
pub struct WebRoot {
    roots: Vec<PathBuf>,
}

impl WebRoot {
    pub fn new(roots: Vec<PathBuf>) -> Self {
        Self { roots }
    }

    fn fixture(&self, url: &str) -> Option<PathBuf> {
        let (scheme, rest) = url.split_once("://")?;
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
            return None;
        }
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        if host.is_empty() {
            return None;
        }
        // posixpath.normpath(host + "/" + path), refusing to climb out.
        let mut rel = PathBuf::new();
        for comp in PathBuf::from(format!("{host}/{path}")).components() {
            match comp {
                Component::Normal(part) => rel.push(part),
                Component::ParentDir if !rel.pop() => return None,
                _ => {}
            }
        }
        self.roots
            .iter()
            .map(|root| root.join(&rel))
            .find(|p| p.is_file())
    }
}

impl WebFetcher for WebRoot {
    fn get(&self, url: &str) -> Result<HttpResponse, PyErr> {
        Ok(match self.fixture(url) {
            Some(path) => HttpResponse {
                status: 200,
                reason: "OK".into(),
                body: crate::files::read_regular(&path, crate::files::MEDIA_LIMIT, "media")
                    .unwrap_or_default(),
                location: None,
            },
            None => not_found(),
        })
    }
}

/// No network at all: every fetch fails as an unreachable host would.
pub struct NoNetwork;

impl WebFetcher for NoNetwork {
    fn get(&self, url: &str) -> Result<HttpResponse, PyErr> {
        Err(PyErr::new(
            "ConnectionError",
            format!("network access is off: cannot fetch {url}"),
        ))
    }
}

//! Web access for media the formatters download. Behind a trait so that the
//! core stays free of network code: `WebRoot` serves fixtures from a folder
//! (offline use, tests), `HttpFetcher` (feature `http`) really fetches.

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

#[cfg(feature = "http")]
mod http {
    use super::{HttpResponse, WebFetcher};
    use crate::files::MEDIA_LIMIT;
    use crate::py::PyErr;
    use std::collections::HashMap;
    use std::io::Read;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Real HTTP GETs, bounded: a connect timeout and a total timeout per
    /// request, at most `MEDIA_LIMIT` bytes of body *after* decompression
    /// (a gzip bomb stops there), answers cached per URL up to `CACHE_LIMIT`
    /// bytes in all, so re-formatting does not download again.
    pub struct HttpFetcher {
        agent: ureq::Agent,
        cache: Mutex<Cache>,
    }

    #[derive(Default)]
    struct Cache {
        answers: HashMap<String, HttpResponse>,
        bytes: u64,
    }

    /// The most the cache holds.
    const CACHE_LIMIT: u64 = 64 * 1024 * 1024;

    impl HttpFetcher {
        pub fn new(timeout: Duration) -> Self {
            let config = ureq::Agent::config_builder()
                .timeout_global(Some(timeout))
                .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
                .http_status_as_error(false)
                // Redirects come back to the gate, which asks for (or names)
                // each host a download reaches.
                .max_redirects(0)
                .build();
            Self {
                agent: config.into(),
                cache: Mutex::default(),
            }
        }
    }

    fn too_large(url: &str) -> PyErr {
        PyErr::new(
            "ConnectionError",
            format!(
                "formatscope stopped downloading {url}: it is larger than {}, more than any provider accepts for one media item",
                crate::files::megabytes(MEDIA_LIMIT)
            ),
        )
    }

    impl WebFetcher for HttpFetcher {
        fn get(&self, url: &str) -> Result<HttpResponse, PyErr> {
            if let Some(hit) = self
                .cache
                .lock()
                .ok()
                .and_then(|c| c.answers.get(url).cloned())
            {
                return Ok(hit);
            }
            let scheme = crate::media::url_scheme(url);
            if scheme != "http" && scheme != "https" {
                return Err(PyErr::new(
                    "InvalidSchema",
                    format!("No connection adapters were found for '{url}'"),
                ));
            }
            let mut resp = self
                .agent
                .get(url)
                .call()
                .map_err(|e| PyErr::new("ConnectionError", e.to_string()))?;
            let status = resp.status();
            let location = resp
                .headers()
                .get("location")
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let declared = resp
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            if declared.is_some_and(|n| n > MEDIA_LIMIT) {
                return Err(too_large(url));
            }
            // The reader decompresses; bound what comes out of it.
            let reader = resp.body_mut().with_config().limit(MEDIA_LIMIT).reader();
            let mut body = Vec::new();
            reader
                .take(MEDIA_LIMIT + 1)
                .read_to_end(&mut body)
                .map_err(|e| PyErr::new("ConnectionError", e.to_string()))?;
            if body.len() as u64 > MEDIA_LIMIT {
                return Err(too_large(url));
            }
            let answer = HttpResponse {
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or("").to_string(),
                body,
                location,
            };
            if let Ok(mut cache) = self.cache.lock() {
                let size = answer.body.len() as u64;
                if cache.bytes + size <= CACHE_LIMIT {
                    cache.bytes += size;
                    cache.answers.insert(url.to_string(), answer.clone());
                }
            }
            Ok(answer)
        }
    }
}

#[cfg(feature = "http")]
pub use http::HttpFetcher;

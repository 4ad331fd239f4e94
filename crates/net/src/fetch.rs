//! Media downloads: the core's `WebFetcher` over real HTTP. The formatters
//! call it from plain threads (the CLI's, the workbench's worker), so this is
//! reqwest's blocking client, the same HTTP stack as the sends.
//!
//! Bounded: a connect timeout and a total timeout per request, at most
//! `MEDIA_LIMIT` bytes of body *after* decompression (a gzip bomb stops
//! there), no redirect followed here (the core's gate asks for, or names,
//! each host a download reaches), answers cached per URL up to
//! `CACHE_LIMIT` bytes in all, so re-formatting does not download again.

use formatscope_core::files::{megabytes, MEDIA_LIMIT};
use formatscope_core::media::{url_scheme, HttpResponse, WebFetcher};
use formatscope_core::py::PyErr;
use reqwest::blocking::Client;
use std::collections::HashMap;
use std::io::Read;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The most the cache holds.
const CACHE_LIMIT: u64 = 64 * 1024 * 1024;

pub struct HttpFetcher {
    timeout: Duration,
    /// Built on the first download, on the thread that downloads: reqwest's
    /// blocking client runs a runtime of its own, which must not start
    /// inside the workbench's async loop, where the fetcher is made.
    client: OnceLock<Result<Client, String>>,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    answers: HashMap<String, HttpResponse>,
    bytes: u64,
}

impl HttpFetcher {
    pub fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            client: OnceLock::new(),
            cache: Mutex::default(),
        }
    }

    fn client(&self) -> Result<&Client, PyErr> {
        self.client
            .get_or_init(|| {
                Client::builder()
                    .timeout(self.timeout)
                    .connect_timeout(self.timeout.min(Duration::from_secs(10)))
                    // Redirects come back to the gate, which asks for (or
                    // names) each host a download reaches.
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| PyErr::new("ConnectionError", e.clone()))
    }
}

fn too_large(url: &str) -> PyErr {
    PyErr::new(
        "ConnectionError",
        format!(
            "formatscope stopped downloading {url}: it is larger than {}, more than any provider accepts for one media item",
            megabytes(MEDIA_LIMIT)
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
        let scheme = url_scheme(url);
        if scheme != "http" && scheme != "https" {
            return Err(PyErr::new(
                "InvalidSchema",
                format!("No connection adapters were found for '{url}'"),
            ));
        }
        let resp = self
            .client()?
            .get(url)
            .send()
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
        // The body decompresses as it is read; bound what comes out of it.
        let mut body = Vec::new();
        resp.take(MEDIA_LIMIT + 1)
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

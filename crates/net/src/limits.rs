//! What a send reads and sends at most: a reply body (streamed or not),
//! an error body, and the request's headers. A server or a session file
//! may be hostile; each bound is an error that names it.

use super::SendError;

/// The most of a reply read, streamed or not: a server sending without
/// end would otherwise fill memory (a whole body, or a stream's content
/// in the parser, was held). Generous: a reply is kilobytes, an image or
/// audio reply a few megabytes, a stream's framing a few times its text.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

/// The most of an error body read: only its message is shown.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub(crate) fn body_too_large() -> String {
    format!(
        "the reply body is larger than the {} MB body limit",
        BODY_LIMIT / (1024 * 1024)
    )
}

/// A stream past [`BODY_LIMIT`]: what was read is dropped, not kept.
pub(crate) fn stream_too_large() -> String {
    format!(
        "the streamed reply is larger than the {} MB body limit: reading stopped, nothing kept",
        BODY_LIMIT / (1024 * 1024)
    )
}

/// The most headers a request goes out with. The SDKs send about a dozen;
/// a session's `extra_headers` (or a profile's `headers`) adds the rest.
/// The HTTP client panics past 32,768, and servers refuse far fewer.
pub const MAX_HEADERS: usize = 256;

/// The most bytes of header names and values a request goes out with
/// (servers refuse far less: nginx takes 8 KB a line, 32 KB in all).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// Refuses headers past [`MAX_HEADERS`] or [`MAX_HEADER_BYTES`], before
/// anything is sent.
pub fn check_headers(headers: &[(String, String)]) -> Result<(), SendError> {
    let bytes: usize = headers.iter().map(|(k, v)| k.len() + v.len()).sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return Err(SendError::Stream(format!(
            "nothing was sent: the request has {} headers of {} bytes, past the limit of \
             {MAX_HEADERS} headers and {} KB (see the session's extra_headers, or the profile's headers)",
            formatscope_core::text::thousands(headers.len() as u64),
            formatscope_core::text::thousands(bytes as u64),
            MAX_HEADER_BYTES / 1024
        )));
    }
    Ok(())
}

/// Reads the body up to `limit` bytes: the bytes, and whether more came
/// (then reading stopped at the limit, and the rest is never held).
pub(crate) async fn read_body(
    resp: &mut reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if body.len() + chunk.len() > limit {
            let room = limit - body.len();
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// A stream that cannot be cut into events fails the send with its text
/// (a bad frame's preview is the server's bytes, redacted as text).
impl From<formatscope_core::response::framing::StreamError> for SendError {
    fn from(e: formatscope_core::response::framing::StreamError) -> Self {
        SendError::Stream(e.to_string())
    }
}

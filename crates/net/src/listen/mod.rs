//! `formatscope listen`: an OTLP/HTTP trace receiver. A running AgentScope
//! agent exports its spans here; each model call becomes a session file
//! (`writer`), built by the core's `live` module. The receiver answers
//! every well-formed export with 200 at once (an exporter drops a batch
//! on any 4xx), and a hostile or malformed one with 400 or 413 and a
//! line, never a panic. Bodies are bounded before and after
//! decompression; connections are bounded in number and time.

pub mod writer;

use formatscope_core::live::otlp::{self, Encoding};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;
use writer::{Recorder, Settings, Written};

/// An export's body, as sent (compressed or not), at most: traces of media
/// reach 25 MB (a format span holds its media twice, the chat span once).
pub const BODY_LIMIT: u64 = 64 << 20;
/// An export decompressed, at most: formatscope's limit for a session.
pub const DECOMPRESSED_LIMIT: u64 = 256 << 20;
/// Connections served at once.
const CONNECTIONS: usize = 64;
/// Exports decoded and waiting for the writer, at most: a sender faster
/// than the writer waits for its 200 (memory stays bounded; measured: a
/// flood of 11,000 exports grew an unbounded queue to 160 MB).
const QUEUED: usize = 16;
/// How long a connection may take to send its headers, and its body.
const HEADERS_TIMEOUT: Duration = Duration::from_secs(30);
const BODY_TIMEOUT: Duration = Duration::from_secs(120);

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct Options {
    pub dir: PathBuf,
    pub body_limit: u64,
    pub settings: Settings,
}

/// What the receiver says: a line per call (stdout) or per refused
/// export (stderr).
pub enum Said {
    Call(Written),
    Refused(String),
}

type Say = Arc<dyn Fn(Said) + Send + Sync>;

enum ToWriter {
    Spans(Vec<otlp::Span>),
    Finish(mpsc::Sender<()>),
}

/// Serves on `listener` until `stop` completes, then writes what is left
/// (format calls whose model call never came) and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    options: Options,
    say: Say,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    std::fs::create_dir_all(&options.dir)?;
    // One writer, in arrival order, off the async threads: formatting and
    // counting a call is CPU work.
    let (to_writer, mut from_server) = tokio::sync::mpsc::channel::<ToWriter>(QUEUED);
    let writer_say = Arc::clone(&say);
    let mut recorder = Recorder::new(options.dir.clone(), options.settings.clone());
    let writer = std::thread::Builder::new()
        .name("listen-writer".into())
        .spawn(move || {
            while let Some(msg) = from_server.blocking_recv() {
                match msg {
                    ToWriter::Spans(spans) => {
                        for w in recorder.take(spans) {
                            writer_say(Said::Call(w));
                        }
                    }
                    ToWriter::Finish(done) => {
                        for w in recorder.finish() {
                            writer_say(Said::Call(w));
                        }
                        let _ = done.send(());
                        return;
                    }
                }
            }
        })?;
    let slots = Arc::new(tokio::sync::Semaphore::new(CONNECTIONS));
    let body_limit = options.body_limit;
    let to_writer_accept = to_writer.clone();
    let accept = async {
        loop {
            let Ok((stream, peer)) = listener.accept().await else {
                continue;
            };
            let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                continue;
            };
            let to_writer = to_writer_accept.clone();
            let say = Arc::clone(&say);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let to_writer = to_writer.clone();
                    let say = Arc::clone(&say);
                    async move {
                        Ok::<_, std::convert::Infallible>(
                            handle(req, body_limit, peer, &to_writer, &say).await,
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADERS_TIMEOUT)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
                drop(slot);
            });
        }
    };
    tokio::select! {
        _ = accept => {}
        _ = stop => {}
    }
    let (done, finished) = mpsc::channel();
    if to_writer.send(ToWriter::Finish(done)).await.is_ok() {
        let _ = tokio::task::spawn_blocking(move || finished.recv()).await;
    }
    let _ = writer.join();
    Ok(())
}

fn answer(status: StatusCode, content_type: &str, body: &'static [u8]) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body)));
    *r.status_mut() = status;
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

async fn handle(
    req: Request<Incoming>,
    body_limit: u64,
    peer: SocketAddr,
    to_writer: &tokio::sync::mpsc::Sender<ToWriter>,
    say: &Say,
) -> Response<Full<Bytes>> {
    let refuse = |status: StatusCode, why: String| {
        say(Said::Refused(format!(
            "refused an export from {peer}: {why}"
        )));
        answer(status, "text/plain", b"")
    };
    if !matches!(req.uri().path(), "/v1/traces" | "/") {
        return answer(
            StatusCode::NOT_FOUND,
            "text/plain",
            b"OTLP traces go to /v1/traces\n",
        );
    }
    if req.method() != hyper::Method::POST {
        return answer(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            b"POST OTLP trace exports here\n",
        );
    }
    let header = |name: hyper::header::HeaderName| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header(hyper::header::CONTENT_TYPE);
    let content_encoding = header(hyper::header::CONTENT_ENCODING);
    let announced = header(hyper::header::CONTENT_LENGTH).and_then(|n| n.parse::<u64>().ok());
    if announced.is_some_and(|n| n > body_limit) {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "a {} byte body is over the {body_limit} byte limit",
                announced.unwrap_or_default()
            ),
        );
    }
    let limit = usize::try_from(body_limit).unwrap_or(usize::MAX);
    let collected =
        tokio::time::timeout(BODY_TIMEOUT, Limited::new(req.into_body(), limit).collect()).await;
    let body = match collected {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body could not be read within the {body_limit} byte limit: {e}"),
            )
        }
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                format!("the body took over {} s", BODY_TIMEOUT.as_secs()),
            )
        }
    };
    let encoding = Encoding::of_content_type(content_type.as_deref());
    let decoded = otlp::decompress(&body, content_encoding.as_deref(), DECOMPRESSED_LIMIT)
        .and_then(|plain| otlp::decode(&plain, encoding));
    match decoded {
        Ok(spans) => {
            if !spans.is_empty() {
                // Waits while the writer is QUEUED exports behind.
                let _ = to_writer.send(ToWriter::Spans(spans)).await;
            }
            match encoding {
                Encoding::Json => answer(StatusCode::OK, "application/json", b"{}"),
                Encoding::Protobuf => answer(StatusCode::OK, "application/x-protobuf", b""),
            }
        }
        Err(otlp::DecodeError::TooLarge { limit }) => refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("over {limit} bytes once decompressed"),
        ),
        Err(e) => refuse(StatusCode::BAD_REQUEST, e.to_string()),
    }
}

//! A fake LLM provider on 127.0.0.1 (never any other address): it records
//! each request it receives and answers with a planned reply, streamed in
//! HTTP/1.1 chunks with a delay between events, or broken on purpose.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as received: method, path, headers (lower-cased names),
/// body bytes.
#[derive(Debug, Clone, Default)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the provider answers.
#[derive(Debug, Clone)]
pub enum Plan {
    /// Status, content type, extra headers, and the body's pieces, each
    /// sent as its own chunk after `delay`.
    Reply {
        status: u16,
        content_type: String,
        headers: Vec<(String, String)>,
        pieces: Vec<Vec<u8>>,
        delay: Duration,
    },
    /// Sends these pieces, then closes the connection mid-body.
    DropAfter(Vec<Vec<u8>>),
    /// Reads the request and never answers.
    Silent,
}

impl Plan {
    pub fn json(status: u16, body: &str) -> Plan {
        Plan::Reply {
            status,
            content_type: "application/json".into(),
            headers: Vec::new(),
            pieces: vec![body.as_bytes().to_vec()],
            delay: Duration::ZERO,
        }
    }

    pub fn stream(content_type: &str, pieces: Vec<Vec<u8>>, delay: Duration) -> Plan {
        Plan::Reply {
            status: 200,
            content_type: content_type.into(),
            headers: Vec::new(),
            pieces,
            delay,
        }
    }
}

pub struct FakeProvider {
    pub port: u16,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl FakeProvider {
    pub fn start(plan: Plan) -> FakeProvider {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("addr").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let plan = plan.clone();
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(stream, &plan, &log));
            }
        });
        FakeProvider { port, received }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn read_request(stream: &TcpStream) -> Option<Received> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end().to_string();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_lowercase(), v.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}

fn serve(mut stream: TcpStream, plan: &Plan, log: &Mutex<Vec<Received>>) {
    let Some(req) = read_request(&stream) else {
        return;
    };
    if let Ok(mut l) = log.lock() {
        l.push(req);
    }
    let (status, content_type, headers, pieces, delay, complete) = match plan {
        Plan::Silent => {
            std::thread::sleep(Duration::from_secs(30));
            return;
        }
        Plan::DropAfter(pieces) => (
            200,
            "text/event-stream".to_string(),
            Vec::new(),
            pieces.clone(),
            Duration::from_millis(5),
            false,
        ),
        Plan::Reply {
            status,
            content_type,
            headers,
            pieces,
            delay,
        } => (
            *status,
            content_type.clone(),
            headers.clone(),
            pieces.clone(),
            *delay,
            true,
        ),
    };
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n"
    );
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    for piece in pieces {
        std::thread::sleep(delay);
        let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
        chunk.extend_from_slice(&piece);
        chunk.extend_from_slice(b"\r\n");
        if stream
            .write_all(&chunk)
            .and_then(|_| stream.flush())
            .is_err()
        {
            return;
        }
    }
    if complete {
        let _ = stream.write_all(b"0\r\n\r\n");
    }
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

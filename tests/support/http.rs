//! A tiny HTTP server on 127.0.0.1 for tests (never any other address):
//! each request is answered by a closure, and requests are counted.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What to answer.
pub enum Reply {
    /// Status, extra headers, body.
    Bytes(u16, Vec<(String, String)>, Vec<u8>),
    /// Accept the request and never answer.
    Hang,
}

pub struct Server {
    pub port: u16,
    pub requests: Arc<AtomicUsize>,
}

impl Server {
    pub fn start(answer: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("addr").port();
        let requests = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&requests);
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let count = Arc::clone(&count);
                let answer = Arc::clone(&answer);
                std::thread::spawn(move || serve(stream, &*answer, &count));
            }
        });
        Server { port, requests }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn count(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn serve(stream: TcpStream, answer: &dyn Fn(&str) -> Reply, count: &AtomicUsize) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    count.fetch_add(1, Ordering::SeqCst);
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut stream = stream;
    match answer(&path) {
        Reply::Hang => std::thread::sleep(std::time::Duration::from_secs(120)),
        Reply::Bytes(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} OK\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    }
}

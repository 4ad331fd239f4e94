//! A raw HTTP server on 127.0.0.1 (never any other address) that answers
//! every request with an SSE stream of OpenAI deltas of real text, as fast
//! as it can, without end: 256 MB (four times the 64 MB body limit, so a
//! client without one fails its test instead of hanging it), or until the
//! client goes. `send` and the workbench's `S` must stop at the limit.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

/// Starts the server; its port.
pub fn endless_openai_stream() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    port
}

fn serve(stream: TcpStream) {
    let Ok(read) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut out = stream;
    let head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    let event = format!(
        "data: {}\n\n",
        serde_json::json!({"id": "chatcmpl-endless", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": "all work and no play ".repeat(200)},
            "finish_reason": null}]})
    );
    let piece = event.repeat(64);
    let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
    let mut sent = 0;
    while sent < 256 << 20 && out.write_all(chunk.as_bytes()).is_ok() {
        sent += chunk.len();
    }
    let _ = out.write_all(b"0\r\n\r\n");
}

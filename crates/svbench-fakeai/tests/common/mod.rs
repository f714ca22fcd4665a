//! A deliberately tiny HTTP/1.1 client over `std::net::TcpStream`, so tests
//! see exactly what went over the wire (a FIN, a reset, a short body).
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{json, Value};

/// What came back for one request.
#[derive(Debug)]
pub enum Outcome {
    /// A complete response (body length equals `Content-Length`).
    Response(Resp),
    /// The server closed the connection without sending a byte.
    Closed,
    /// The connection was reset (ECONNRESET) before anything arrived.
    Reset,
    /// Headers arrived but the body stopped short of `Content-Length`.
    Incomplete { declared: usize, got: usize },
}

/// A parsed response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("response body is JSON")
    }
}

impl Outcome {
    pub fn response(self) -> Resp {
        match self {
            Outcome::Response(r) => r,
            other => panic!("expected a complete response, got {other:?}"),
        }
    }
}

/// A minimal chat request body.
pub fn chat(model: &str, user: &str) -> String {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": "You are a test."},
            {"role": "user", "content": user}
        ]
    })
    .to_string()
}

/// POST `body` to `path` with `Connection: close` and read until EOF.
pub fn post(addr: SocketAddr, path: &str, extra_headers: &[(&str, &str)], body: &str) -> Outcome {
    request(addr, "POST", path, extra_headers, body)
}

/// POST a chat body to `/v1/chat/completions`.
pub fn post_chat(addr: SocketAddr, body: &str) -> Outcome {
    post(addr, "/v1/chat/completions", &[], body)
}

pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra_headers: &[(&str, &str)],
    body: &str,
) -> Outcome {
    let mut stream = TcpStream::connect(addr).expect("connect to fake server");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("set read timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    stream.write_all(body.as_bytes()).expect("write body");

    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset && buf.is_empty() => {
                return Outcome::Reset
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("read failed: {e}"),
        }
    }
    parse(&buf)
}

fn parse(buf: &[u8]) -> Outcome {
    if buf.is_empty() {
        return Outcome::Closed;
    }
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head is complete");
    let head = std::str::from_utf8(&buf[..end]).expect("head is UTF-8");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body = buf[end + 4..].to_vec();
    let declared = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    if let Some(declared) = declared {
        if body.len() < declared {
            return Outcome::Incomplete {
                declared,
                got: body.len(),
            };
        }
    }
    Outcome::Response(Resp {
        status,
        headers,
        body,
    })
}

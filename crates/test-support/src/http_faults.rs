//! A scripted HTTP server on loopback for catalog-client tests, where a real catalog cannot
//! misbehave on demand: each request gets the next reply of a script (a JSON answer, garbage, a
//! 5xx, a body cut off mid-way, or silence) and is recorded.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A complete answer with this status and body.
    Answer(u16, String),
    /// `Content-Length` of the whole body, then only its first half, then the connection closes.
    Truncated(u16, String),
    /// No answer at all for a minute (a hung server: the client's timeout must fire).
    Silent,
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path and query.
    pub target: String,
    /// Header names lower-case.
    pub headers: Vec<(String, String)>,
    /// The body, as text.
    pub body: String,
}

impl Recorded {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The server: it runs until the test process ends. Requests past the script get a `500`.
pub struct FaultServer {
    url: String,
    recorded: Arc<Mutex<Vec<Recorded>>>,
}

impl FaultServer {
    /// Starts a server answering with `script`, in order.
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binding a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("local address"));
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script.into_iter()));
        let log = recorded.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (script, log) = (script.clone(), log.clone());
                std::thread::spawn(move || serve(stream, &script, &log));
            }
        });
        Self { url, recorded }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.recorded.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

type Script = Mutex<std::vec::IntoIter<Reply>>;

/// Serves requests of one connection until it closes or a reply ends it.
fn serve(mut stream: TcpStream, script: &Script, log: &Mutex<Vec<Recorded>>) {
    while let Some(request) = read_request(&mut stream) {
        // Take the reply in the order requests arrive (the log lock orders them).
        let reply = {
            let mut log = log.lock().expect("request log");
            log.push(request);
            script.lock().expect("script").next()
        };
        let reply = reply.unwrap_or_else(|| Reply::Answer(500, "no scripted reply".into()));
        let (status, body, cut) = match reply {
            Reply::Answer(s, b) => (s, b, false),
            Reply::Truncated(s, b) => (s, b, true),
            Reply::Silent => {
                std::thread::sleep(Duration::from_secs(60));
                return;
            }
        };
        let head = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let sent = if cut {
            &body[..body.len() / 2]
        } else {
            &body[..]
        };
        if stream.write_all(head.as_bytes()).is_err()
            || stream.write_all(sent.as_bytes()).is_err()
            || cut
        {
            return;
        }
    }
}

/// Reads one request (headers and a `Content-Length` body); `None` when the connection closed.
fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut buf).ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..end]).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = data[end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buf).ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&buf[..n]);
    }
    Some(Recorded {
        method,
        target,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

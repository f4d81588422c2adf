//! A `rules serve` started for a test, and a plain HTTP/1.1 client over `std::net` (requests
//! are few and small: no client crate needed).

#![allow(dead_code)]

use serde_json::Value as J;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

pub struct Server {
    child: Child,
    pub stdin: Option<ChildStdin>,
    /// `host:port`.
    pub addr: String,
    /// Each human seat's token by seat number (`None` for an agent's seat), then the
    /// spectators'.
    pub seats: Vec<Option<String>>,
    pub spectator: String,
    /// Everything the server printed up to the links.
    pub banner: String,
    /// What it printed since.
    pub rest: std::sync::Arc<std::sync::Mutex<String>>,
    pub log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh folder under the target directory for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

impl Server {
    /// `rules serve GAME ARGS --port 0 --no-qr`, once it has printed its links.
    pub fn start(args: &[&str]) -> Server {
        Server::start_at(args, &["--port", "0"])
    }

    /// `rules serve GAME ARGS EXTRA --no-qr`, once it has printed its links. A test's client
    /// polls much faster than a page: unless the test sets it, each seat may make 1,000
    /// requests a second.
    pub fn start_at(args: &[&str], extra: &[&str]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rules"));
        cmd.arg("serve").args(args).args(extra).arg("--no-qr");
        if !args.contains(&"--requests-per-second") {
            cmd.args(["--requests-per-second", "1000"]);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("rules serve starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout);
        let mut banner = String::new();
        let mut addr = String::new();
        let mut seats: Vec<(u32, String)> = Vec::new();
        let spectator;
        loop {
            let mut line = String::new();
            let n = lines
                .read_line(&mut line)
                .expect("read the server's output");
            assert!(
                n > 0,
                "rules serve stopped before printing its links:\n{banner}"
            );
            banner.push_str(&line);
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("serving ") {
                let url = rest.rsplit(' ').next().expect("url");
                addr = url
                    .trim_start_matches("http://")
                    .trim_end_matches('/')
                    .to_string();
            } else if let Some(link) = line.strip_prefix("spectators ") {
                spectator = token_of(link);
                break;
            } else if let Some((seat, link)) = line.split_once(' ') {
                if let Some(k) = seat.strip_prefix('P').and_then(|k| k.parse::<u32>().ok()) {
                    if link.starts_with("http://") {
                        seats.push((k - 1, token_of(link)));
                    }
                }
            }
        }
        // The rest of the output goes on being read, so the server never blocks on a full pipe.
        let rest = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let kept = rest.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                if let Ok(mut k) = kept.lock() {
                    if k.len() < 1 << 20 {
                        k.push_str(&line);
                    }
                }
                line.clear();
            }
        });
        let max = seats.iter().map(|(k, _)| *k + 1).max().unwrap_or(0);
        let mut by_seat = vec![None; max as usize];
        for (k, t) in seats {
            by_seat[k as usize] = Some(t);
        }
        let log = args
            .windows(2)
            .find(|w| w[0] == "--log" || w[0] == "--resume")
            .map(|w| PathBuf::from(w[1]))
            .unwrap_or_default();
        Server {
            child,
            stdin,
            addr,
            seats: by_seat,
            spectator,
            banner,
            rest,
            log,
        }
    }

    /// Ctrl-C, as at the host's terminal: the exit code and what the server printed after its
    /// links.
    pub fn interrupt(&mut self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill");
        assert!(sent.success());
        let status = self.child.wait().expect("wait");
        // The reading thread sees the end of the output once the process is gone.
        std::thread::sleep(Duration::from_millis(300));
        let said = self.rest.lock().map(|r| r.clone()).unwrap_or_default();
        (status.code(), said)
    }

    /// Type a line at the host's terminal.
    pub fn host(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{line}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub fn state(&self, token: &str) -> J {
        let (code, body) = patiently(&self.addr, "GET", &format!("/s/{token}/state"), None);
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).expect("a message is JSON")
    }

    /// The state once its version is past `after` (a long poll).
    pub fn state_after(&self, token: &str, after: u64) -> J {
        let (code, body) = patiently(
            &self.addr,
            "GET",
            &format!("/s/{token}/state?after={after}"),
            None,
        );
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).expect("a message is JSON")
    }

    pub fn answer(&self, token: &str, question: u64, option: usize) -> (u16, String) {
        let body = format!(r#"{{"question": {question}, "option": {option}}}"#);
        patiently(
            &self.addr,
            "POST",
            &format!("/s/{token}/answer"),
            Some(body.as_bytes()),
        )
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        request(&self.addr, "GET", path, None)
    }

    /// The server's resident memory in KiB (Linux), `None` elsewhere.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

fn token_of(link: &str) -> String {
    link.trim()
        .rsplit('/')
        .next()
        .expect("a link ends in its token")
        .to_string()
}

/// A request, sent again while the server says its seat made too many (429): a test's client
/// polls faster than a page, and the server's rates are per seat.
pub fn patiently(addr: &str, method: &str, path: &str, body: Option<&[u8]>) -> (u16, String) {
    for _ in 0..200 {
        let (code, reply) = request(addr, method, path, body);
        if code != 429 {
            return (code, reply);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    request(addr, method, path, body)
}

/// One request on its own connection; the status and the body.
pub fn request(addr: &str, method: &str, path: &str, body: Option<&[u8]>) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect to the server");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let body = body.unwrap_or(b"");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    // A server that refuses a body early may close before reading it all.
    let _ = s.write_all(body);
    // Read to the end of the body: some servers (chromedriver) keep the connection open.
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        if response_complete(&raw) {
            break;
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    parse_response(&raw)
}

/// Whether `raw` holds a whole response: its headers and, by its length or its last chunk, its
/// body.
fn response_complete(raw: &[u8]) -> bool {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let body = &raw[end + 4..];
    if let Some(len) = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return body.len() >= len;
    }
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with(b"0\r\n\r\n");
    }
    false
}

pub fn parse_response(raw: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || after.len() < n {
                break;
            }
            out.push_str(&after[..n]);
            rest = after[n..].trim_start_matches("\r\n");
        }
        out
    } else {
        body.to_string()
    };
    (code, body)
}

/// A small deterministic generator for the test's own picks.
pub struct Pick(pub u64);

impl Pick {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Play a served game to its end: every human seat answers its question with a pick, reading
/// each seat's (and the spectators') messages as it goes. Returns every message read, with the
/// seat it was read for (`None`: spectators).
pub fn play_out(server: &Server, seed: u64, max_answers: usize) -> Vec<(Option<u32>, J)> {
    let mut seen = Vec::new();
    let mut pick = Pick(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut answers = 0;
    loop {
        let mut asked = None;
        let mut over = false;
        for (k, t) in server.seats.iter().enumerate() {
            let Some(t) = t else { continue };
            let m = server.state(t);
            if m["question"].is_object() {
                asked = Some((k, t.clone(), m["question"].clone()));
            }
            over |= m["end"].is_object();
            assert!(m["error"].is_null(), "the game stopped: {}", m["error"]);
            seen.push((Some(k as u32), m));
        }
        let m = server.state(&server.spectator);
        over |= m["end"].is_object();
        let version = m["version"].as_u64().unwrap_or(0);
        seen.push((None, m));
        if over {
            return seen;
        }
        let Some((_, t, q)) = asked else {
            // Nobody is asked yet: the game's thread is still working.
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        let count = q["options"].as_array().map(Vec::len).unwrap_or(0);
        let id = q["id"].as_u64().expect("question id");
        let (code, body) = server.answer(&t, id, pick.below(count));
        assert_eq!(code, 200, "{body}");
        answers += 1;
        assert!(
            answers <= max_answers,
            "the game did not end in {max_answers} answers"
        );
        // Wait for the game to take the answer.
        let _ = server.state_after(&t, version);
    }
}

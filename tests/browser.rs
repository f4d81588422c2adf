//! `rules serve` in a real browser: two Chromium sessions, driven over WebDriver, play The
//! Establishment's two human seats to the end by clicking the pages' buttons (one window
//! phone-sized), with screenshots kept under `target/browser-shots/`.
//!
//! WebDriver is spoken as plain JSON over HTTP to `chromedriver` (a dozen commands: a client
//! crate would bring a second HTTP stack and an async runtime into the tests for them). Without
//! Chromium and chromedriver the test says so and passes, except under `CI=true`, where it fails:
//! `.ci/run` installs them.

#[path = "common/web.rs"]
mod web;

use serde_json::{json, Value as J};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use web::{request, scratch, Server};

struct Driver {
    child: Child,
    addr: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Driver {
    fn start(driver: &Path) -> Driver {
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr = format!("127.0.0.1:{port}");
        let start = Instant::now();
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver never listened"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver { child, addr }
    }

    fn call(&self, method: &str, path: &str, body: Option<J>) -> J {
        let body = body.map(|b| b.to_string());
        let (code, text) = request(&self.addr, method, path, body.as_deref().map(str::as_bytes));
        let j: J = serde_json::from_str(&text).unwrap_or(J::Null);
        assert_eq!(code, 200, "{method} {path}: {text}");
        j["value"].clone()
    }

    fn session(&self, browser: &Path, profile: &Path, width: u32, height: u32) -> Session<'_> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": browser.display().to_string(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", profile.display()),
                    format!("--window-size={width},{height}"),
                ]
            }
        }}});
        let v = self.call("POST", "/session", Some(caps));
        let id = v["sessionId"].as_str().expect("a session id").to_string();
        Session { driver: self, id }
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = request(
            &self.driver.addr,
            "DELETE",
            &format!("/session/{}", self.id),
            None,
        );
    }
}

impl Session<'_> {
    fn call(&self, method: &str, path: &str, body: Option<J>) -> J {
        self.driver
            .call(method, &format!("/session/{}{path}", self.id), body)
    }

    fn go(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str) -> J {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    fn elements(&self, css: &str) -> Vec<String> {
        let v = self.call(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| {
                        e.as_object()
                            .and_then(|o| o.values().next())
                            .and_then(J::as_str)
                            .map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn click(&self, element: &str) {
        self.call(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    fn screenshot(&self, path: &Path) {
        let v = self.call("GET", "/screenshot", None);
        let png = base64(v.as_str().expect("base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// What the page shows now: the question's id and its kind, the end, the status line.
    fn page(&self) -> J {
        self.js("const q = document.getElementById('question');\
             return {asked: !q.hidden, id: q.dataset.id || '',\
               buttons: document.querySelectorAll('#options button').length,\
               amount: !document.getElementById('amount').hidden,\
               end: !document.getElementById('end').hidden,\
               status: document.getElementById('status').textContent,\
               text: document.body.innerText};")
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

#[test]
fn two_browsers_play_the_establishment_to_the_end() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let (Some(browser), Some(driver)) = (
        find(&["chromium", "chromium-browser", "google-chrome"]),
        find(&["chromedriver", "chromium-driver"]),
    ) else {
        assert!(
            !ci,
            "CI=true: Chromium and chromedriver must be installed (.ci/run installs them)"
        );
        eprintln!("skipped: no chromium or chromedriver on PATH (CI=true makes this a failure)");
        return;
    };
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target")
        .join("browser-shots");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).expect("shots folder");
    let dir = scratch("browser");
    let log = dir.join("game.json").display().to_string();
    let server = Server::start(&[
        "games/the-establishment.rules",
        "--agent",
        "P1=human,P2=human,random",
        "--seed",
        "5",
        "--log",
        &log,
    ]);
    let driver = Driver::start(&driver);
    let desk = driver.session(&browser, &dir.join("profile-1"), 1200, 900);
    let phone = driver.session(&browser, &dir.join("profile-2"), 390, 844);
    let seats = [(&desk, "desk", 0usize), (&phone, "phone", 1usize)];
    for (s, _, k) in &seats {
        let token = server.seats[*k].as_deref().expect("a human seat");
        s.go(&format!("http://{}/s/{token}", server.addr));
    }
    let started = Instant::now();
    let mut clicks = 0usize;
    let mut pick = web::Pick(0x5eed);
    let mut shot_at = [0usize; 2];
    let mut over = [false; 2];
    while !(over[0] && over[1]) {
        assert!(
            started.elapsed() < Duration::from_secs(900),
            "the game did not end in 15 minutes ({clicks} clicks)"
        );
        let mut acted = false;
        for (i, (s, name, _)) in seats.iter().enumerate() {
            let p = s.page();
            if std::env::var_os("BROWSER_DEBUG").is_some() {
                eprintln!(
                    "{name}: asked {} id {} status {}",
                    p["asked"], p["id"], p["status"]
                );
            }
            if p["end"] == true {
                if !over[i] {
                    s.screenshot(&shots.join(format!("{name}-end.png")));
                    over[i] = true;
                }
                continue;
            }
            if p["asked"] != true {
                continue;
            }
            // A few screenshots along the way: the first questions, then every 25th.
            if shot_at[i] < 2 || clicks.is_multiple_of(25) {
                s.screenshot(&shots.join(format!("{name}-{clicks:04}.png")));
                shot_at[i] += 1;
            }
            if p["amount"] == true {
                let submit = s.elements("#amount button");
                s.click(submit.first().expect("the amount's button"));
            } else {
                let buttons = s.elements("#options button");
                assert!(!buttons.is_empty(), "a question without buttons: {p}");
                s.click(&buttons[pick.below(buttons.len())]);
            }
            clicks += 1;
            acted = true;
            // Wait for the page to take the answer (the question goes, or another comes).
            let before = p["id"].clone();
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(20) {
                let now = s.page();
                if now["id"] != before || now["asked"] != true || now["end"] == true {
                    break;
                }
                std::thread::sleep(Duration::from_millis(30));
            }
        }
        if !acted {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(clicks > 10, "the people made the game's choices ({clicks})");
    // Each page shows its own seat and the end with the scores.
    for (s, _, k) in &seats {
        let p = s.page();
        let text = p["text"].as_str().unwrap_or("");
        assert!(text.contains(&format!("You are P{}", k + 1)), "{text}");
        assert!(text.contains("The game is over"), "{text}");
        assert!(text.contains("the game ended by"), "why it ended: {text}");
    }
    // The phone's page fits its width: nothing scrolls sideways.
    let wide = phone.js("return document.documentElement.scrollWidth <= window.innerWidth + 1;");
    assert_eq!(wide, J::Bool(true), "the phone's page scrolls sideways");
}

/// A page left open across a restart: the host stops the server (Ctrl-C) and starts it again
/// with `--resume`; the pages, never reloaded, show the restarted server's question (its
/// messages numbered from 1 again) and take an answer.
#[test]
fn open_pages_recover_after_the_server_restarts() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let (Some(browser), Some(driver)) = (
        find(&["chromium", "chromium-browser", "google-chrome"]),
        find(&["chromedriver", "chromium-driver"]),
    ) else {
        assert!(
            !ci,
            "CI=true: Chromium and chromedriver must be installed (.ci/run installs them)"
        );
        eprintln!("skipped: no chromium or chromedriver on PATH (CI=true makes this a failure)");
        return;
    };
    let dir = scratch("browser-restart");
    let log = dir.join("game.json").display().to_string();
    let game = "games/the-establishment.rules";
    let mut server = Server::start(&[
        game,
        "--agent",
        "P1=human,P2=human,random",
        "--seed",
        "5",
        "--log",
        &log,
    ]);
    let driver = Driver::start(&driver);
    let pages = [
        driver.session(&browser, &dir.join("profile-1"), 1200, 900),
        driver.session(&browser, &dir.join("profile-2"), 390, 844),
    ];
    for (k, s) in pages.iter().enumerate() {
        let token = server.seats[k].as_deref().expect("a human seat");
        s.go(&format!("http://{}/s/{token}", server.addr));
    }
    // A few answers given through the server, so the pages hold messages numbered past 1.
    let asked = |server: &Server| -> (usize, J) {
        let t = Instant::now();
        loop {
            for k in 0..2 {
                let token = server.seats[k].as_deref().expect("a human seat");
                let m = server.state(token);
                if m["question"].is_object() {
                    return (k, m);
                }
            }
            assert!(t.elapsed() < Duration::from_secs(30), "nobody was asked");
            std::thread::sleep(Duration::from_millis(30));
        }
    };
    for _ in 0..4 {
        let (k, m) = asked(&server);
        let token = server.seats[k].clone().expect("a human seat");
        let id = m["question"]["id"].as_u64().expect("id");
        let (code, body) = server.answer(&token, id, 0);
        assert_eq!(code, 200, "{body}");
        let _ = server.state_after(&token, m["version"].as_u64().expect("version"));
    }
    let (k, before) = asked(&server);
    let wait_for = |what: &str, ok: &dyn Fn(&J) -> bool| -> J {
        let t = Instant::now();
        loop {
            let p = pages[k].page();
            if ok(&p) {
                return p;
            }
            assert!(t.elapsed() < Duration::from_secs(30), "{what}: {p}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let shown = wait_for("the page shows its question", &|p| p["asked"] == true);
    let (code, said) = server.interrupt();
    assert_eq!(code, Some(130), "{said}");
    let resumed = Server::start_at(&[game, "--resume", &log], &[]);
    assert_eq!(resumed.addr, server.addr);
    let after = resumed.state(server.seats[k].as_deref().expect("seat"));
    assert!(after["version"].as_u64() < before["version"].as_u64());
    let instance = after["instance"].as_str().expect("instance").to_string();
    // The page takes the new server's messages by itself, and its question is answered.
    let p = wait_for("the page takes the restarted server's messages", &|p| {
        p["asked"] == true && p["id"].as_str().is_some_and(|id| id.starts_with(&instance))
    });
    assert_ne!(p["id"], shown["id"]);
    let buttons = pages[k].elements("#options button");
    if let Some(b) = buttons.first() {
        pages[k].click(b);
    } else {
        let submit = pages[k].elements("#amount button");
        pages[k].click(submit.first().expect("the amount's button"));
    }
    wait_for("the answer is taken", &|q| {
        q["id"] != p["id"] || q["asked"] != true
    });
}

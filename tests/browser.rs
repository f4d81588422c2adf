//! `rules serve` in a real browser: two Chromium sessions, driven over WebDriver, play The
//! Establishment's two human seats to the end by clicking the pages' buttons (one window
//! phone-sized, P1's: it meets the game's first question), with screenshots kept under
//! `target/browser-shots/`, with the server stopped and resumed in the middle (the pages go on
//! by themselves). The phone's page is checked as a person reads it: at the first
//! question the seat's own screen at the top and the whole page within four phone screens,
//! hidden piles as counts, no internal var, no zone's bare name; at the end the outcome at the
//! top.
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

    /// A browser window of `width` by `height`; a `phone` shows pages at that size exactly
    /// (Chromium's windows are no narrower than 500 px, so a phone is emulated).
    fn session(
        &self,
        browser: &Path,
        profile: &Path,
        width: u32,
        height: u32,
        phone: bool,
    ) -> Session<'_> {
        let mut caps = json!({"capabilities": {"alwaysMatch": {
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
        if phone {
            caps["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["mobileEmulation"] =
                json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0}});
        }
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

    /// The whole page, not only what the window shows (Chromium's own command, through
    /// chromedriver), from its top.
    fn full_screenshot(&self, path: &Path) {
        self.js("window.scrollTo(0, 0); return 0;");
        let v = self.call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": "Page.captureScreenshot",
                "params": {"format": "png", "captureBeyondViewport": true}})),
        );
        let png = base64(v["data"].as_str().expect("base64 PNG"));
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
               height: document.documentElement.scrollHeight,\
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

/// Chromium and chromedriver, or `None` (the test then passes, except under `CI=true`).
fn browser_and_driver() -> Option<(PathBuf, PathBuf)> {
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
        return None;
    };
    Some((browser, driver))
}

/// A new, empty folder for a test's screenshots: `target/NAME`.
fn shots_folder(name: &str) -> PathBuf {
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target")
        .join(name);
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).expect("shots folder");
    shots
}

#[test]
fn two_browsers_play_the_establishment_to_the_end() {
    let Some((browser, driver)) = browser_and_driver() else {
        return;
    };
    let shots = shots_folder("browser-shots");
    let dir = scratch("browser");
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
    let desk = driver.session(&browser, &dir.join("profile-1"), 1200, 900, false);
    let phone = driver.session(&browser, &dir.join("profile-2"), 390, 844, true);
    let seats = [(&desk, "desk", 1usize), (&phone, "phone", 0usize)];
    for (s, _, k) in &seats {
        let token = server.seats[*k].as_deref().expect("a human seat");
        s.go(&format!("http://{}/s/{token}", server.addr));
    }
    let started = Instant::now();
    let mut clicks = 0usize;
    let mut pick = web::Pick(0x5eed);
    let mut shot_at = [0usize; 2];
    let mut over = [false; 2];
    let mut tallest = 0;
    let mut taken_back = false;
    let mut restarted = false;
    while !(over[0] && over[1]) {
        assert!(
            started.elapsed() < Duration::from_secs(900),
            "the game did not end in 15 minutes ({clicks} clicks)"
        );
        // Once, in the middle of the game: the host stops the server (Ctrl-C) and starts it
        // again with `--resume`; the pages, never reloaded, go on by themselves on the same links.
        if !restarted && clicks >= 30 {
            let (code, said) = server.interrupt();
            assert_eq!(code, Some(130), "{said}");
            let resumed = Server::start_at(&[game, "--resume", &log], &[]);
            assert_eq!(resumed.addr, server.addr, "the same links after --resume");
            assert_eq!(
                resumed.seats, server.seats,
                "the same tokens after --resume"
            );
            let token = server.seats[0].as_deref().expect("a human seat");
            let instance = resumed.state(token)["instance"]
                .as_str()
                .expect("instance")
                .to_string();
            server = resumed;
            restarted = true;
            // Each page takes the restarted server's messages by itself.
            let t = Instant::now();
            for (s, name, _) in &seats {
                loop {
                    let p = s.page();
                    let fresh = p["id"].as_str().is_some_and(|id| id.starts_with(&instance));
                    let lost = p["status"]
                        .as_str()
                        .is_some_and(|x| x.contains("reconnecting"));
                    if fresh || (p["asked"] != true && !lost) {
                        break;
                    }
                    assert!(
                        t.elapsed() < Duration::from_secs(30),
                        "{name}'s page did not take the restarted server's messages: {p}"
                    );
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            continue;
        }
        // Once, as soon as the phone may take its last answer back: it asks, the desk agrees.
        if !taken_back && clicks > 0 && may_ask_to_take_back(&phone) {
            take_back(&phone, &desk, &shots);
            taken_back = true;
            continue;
        }
        let mut acted = false;
        for (i, (s, name, _)) in seats.iter().enumerate() {
            let p = s.page();
            if std::env::var_os("BROWSER_DEBUG").is_some() {
                eprintln!(
                    "{name}: asked {} id {} status {} height {}",
                    p["asked"], p["id"], p["status"], p["height"]
                );
            }
            if p["end"] == true {
                if !over[i] {
                    s.js("window.scrollTo(0, 0); return 0;");
                    s.screenshot(&shots.join(format!("{name}-end.png")));
                    s.full_screenshot(&shots.join(format!("{name}-end-whole.png")));
                    over[i] = true;
                }
                continue;
            }
            if p["asked"] != true {
                continue;
            }
            // The phone's tallest page at a question, whole.
            let height = p["height"].as_i64().unwrap_or(0);
            if *name == "phone" && height > tallest {
                tallest = height;
                s.full_screenshot(&shots.join("phone-tallest-question-whole.png"));
            }
            if *name == "phone" && shot_at[i] == 0 {
                assert_eq!(
                    clicks, 0,
                    "the phone's seat is asked the game's first question"
                );
                s.full_screenshot(&shots.join("phone-first-question-whole.png"));
                first_question_fits(s);
            }
            // A few screenshots along the way: the first questions, then every 25th.
            if shot_at[i] < 2 || clicks.is_multiple_of(25) {
                let shot = shots.join(format!("{name}-{clicks:04}.png"));
                if *name == "phone" {
                    s.full_screenshot(&shot);
                } else {
                    s.screenshot(&shot);
                }
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
    assert!(taken_back, "the phone never could take an answer back");
    assert!(
        restarted,
        "the server was never restarted in the middle of the game"
    );
    // Each page shows its own seat and the end with the scores.
    for (s, _, k) in &seats {
        let p = s.page();
        let text = p["text"].as_str().unwrap_or("");
        assert!(text.contains(&format!("You are P{}", k + 1)), "{text}");
        assert!(text.contains("The game is over"), "{text}");
        assert!(text.contains("the game ended by"), "why it ended: {text}");
    }
    the_end_is_named_at_the_top(&phone);
    // The phone's page fits its width: nothing scrolls sideways.
    let wide = phone.js("return document.documentElement.scrollWidth <= window.innerWidth + 1;");
    assert_eq!(wide, J::Bool(true), "the phone's page scrolls sideways");
}

/// The page offers to ask for a take-back, and nobody asked one yet.
fn may_ask_to_take_back(s: &Session) -> bool {
    s.js("const b = document.getElementById('undo');\
        return !document.getElementById('undo-box').hidden && !b.disabled\
          && document.getElementById('undo-request').hidden;")
        == J::Bool(true)
}

/// The take-back request at the top of a page: whether it shows, how far down, its text, and
/// its button's text when the button shows.
fn take_back_request(s: &Session) -> J {
    s.js("const r = document.getElementById('undo-request'), b = document.getElementById('undo-agree');\
        return {shown: !r.hidden, top: r.hidden ? -1 : r.getBoundingClientRect().top + window.scrollY,\
          text: document.getElementById('undo-request-text').textContent,\
          button: b.hidden ? null : b.textContent};")
}

/// The phone (P1) asks to take its last answer back; the desk (P2) sees the request at the top
/// of its page, with a button to agree that reads otherwise than the phone's button to ask,
/// and agrees; then the request is gone from both.
fn take_back(phone: &Session, desk: &Session, shots: &Path) {
    let ask = phone.js("return document.getElementById('undo').textContent;");
    let ask = ask.as_str().unwrap_or("").to_string();
    assert_eq!(ask, "Ask to take back my last answer");
    let b = phone.elements("#undo");
    phone.click(b.first().expect("the take-back button"));
    let t = Instant::now();
    let mut seen = take_back_request(desk);
    while seen["shown"] != true && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(30));
        seen = take_back_request(desk);
    }
    desk.js("window.scrollTo(0, 0); return 0;");
    desk.screenshot(&shots.join("desk-take-back-asked.png"));
    assert_eq!(seen["shown"], true, "the desk never saw the request");
    let top = seen["top"].as_f64().unwrap_or(-1.0);
    assert!(
        (0.0..200.0).contains(&top),
        "the request is at the top: {seen}"
    );
    let text = seen["text"].as_str().unwrap_or("");
    assert!(
        text.starts_with("P1 asks to take back the last answer"),
        "{seen}"
    );
    let agree = seen["button"].as_str().unwrap_or("");
    assert!(
        !agree.is_empty() && agree != ask,
        "agreeing reads otherwise: {seen}"
    );
    let mine = take_back_request(phone);
    assert_eq!(mine["shown"], true, "{mine}");
    assert!(
        mine["text"].as_str().unwrap_or("").starts_with("You asked"),
        "{mine}"
    );
    assert!(
        mine["button"].is_null(),
        "no button to agree with oneself: {mine}"
    );
    let b = desk.elements("#undo-agree");
    desk.click(b.first().expect("the agree button"));
    let t = Instant::now();
    while (take_back_request(desk)["shown"] == true || take_back_request(phone)["shown"] == true)
        && t.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(30));
    }
    assert_eq!(
        take_back_request(desk)["shown"],
        false,
        "the request stays after it was agreed"
    );
    assert_eq!(
        take_back_request(phone)["shown"],
        false,
        "the request stays after it was agreed"
    );
}

/// Where things are on the page, and what it says: the page's height, the tops of the screen,
/// the question and the end box (from the page's top), and texts.
fn layout(s: &Session) -> J {
    s.js("const top = (id) => { const e = document.getElementById(id);\
            return e.offsetParent === null ? -1 : e.getBoundingClientRect().top + window.scrollY; };\
          return {height: document.documentElement.scrollHeight, width: window.innerWidth,\
            screen: document.getElementById('screen').textContent,\
            screen_top: top('screen'), question_top: top('question'), end_top: top('end'),\
            zones: document.getElementById('zones').textContent,\
            chips: document.querySelectorAll('.card').length,\
            end: document.getElementById('end').innerText,\
            text: document.body.textContent};")
}

/// At The Establishment's first question, on a phone: the seat's own screen (the game's
/// `screen`, the lines the terminal shows) at the top, then the question, all within about four
/// phone screens; hidden piles counted, not drawn a card each; no internal var, no zone's
/// name as the rules spell it.
fn first_question_fits(s: &Session) {
    let l = layout(s);
    assert_eq!(l["width"], 390, "{l}");
    let height = l["height"].as_i64().unwrap_or(i64::MAX);
    assert!(
        height <= 4 * 800,
        "the page at the first question is {height} px tall, over four phone screens"
    );
    let screen = l["screen"].as_str().unwrap_or("");
    assert!(screen.starts_with("--- what P1 sees"), "{screen}");
    for row in ["Faction", "Row 1", "  left", "  right", "Row 3"] {
        assert!(screen.contains(row), "the screen's line `{row}`: {screen}");
    }
    let (screen_top, question_top) = (
        l["screen_top"].as_f64().unwrap_or(-1.0),
        l["question_top"].as_f64().unwrap_or(-1.0),
    );
    assert!(
        (0.0..200.0).contains(&screen_top),
        "the screen is at the top: {l}"
    );
    assert!(
        screen_top < question_top,
        "the screen, then the question: {l}"
    );
    let zones = l["zones"].as_str().unwrap_or("");
    assert!(
        zones.contains("Story pile 1: 30 cards (hidden from you)"),
        "a hidden pile is a count: {zones}"
    );
    assert!(
        l["chips"].as_i64().unwrap_or(i64::MAX) < 10,
        "no card drawn for each hidden card: {l}"
    );
    let text = l["text"].as_str().unwrap_or("");
    for raw in ["story_pile", "resolving", "faction_box", "hidden card"] {
        assert!(!text.contains(raw), "the page shows `{raw}`: {text}");
    }
}

/// Once the game is over, its outcome is the first thing on the page: The Establishment names
/// no winner by its rules, so its own last lines (the epilogues, each player's XP) say how it
/// came out.
fn the_end_is_named_at_the_top(s: &Session) {
    let l = layout(s);
    let end_top = l["end_top"].as_f64().unwrap_or(-1.0);
    assert!(
        (0.0..200.0).contains(&end_top),
        "the end box is at the top: {l}"
    );
    let screen_top = l["screen_top"].as_f64().unwrap_or(-1.0);
    assert!(end_top < screen_top, "the end, then the screen: {l}");
    let end = l["end"].as_str().unwrap_or("");
    assert!(
        end.contains("The rules name no winner: this is how it came out"),
        "{end}"
    );
    assert!(
        end.contains("Epilogue 1:"),
        "the game's own last lines: {end}"
    );
    for p in ["P1", "P2", "P3", "P4"] {
        assert!(
            end.contains(&format!("{p} (")) && end.contains(" XP"),
            "{p}'s XP: {end}"
        );
    }
}

/// A Hegemony officer's plan is one form on a phone: a stepper per line and what is left, the
/// last line taking the rest; the page then answers the server's line-by-line questions from it,
/// so no later line of the plan is asked again.
#[test]
fn a_plan_is_one_form_on_a_phone() {
    let Some((browser, driver)) = browser_and_driver() else {
        return;
    };
    let shots = shots_folder("browser-shots-plan");
    let dir = scratch("browser-plan");
    let log = dir.join("game.json").display().to_string();
    let server = Server::start(&[
        "games/hegemony",
        "--agent",
        "P2=human,first",
        "--seed",
        "1",
        "--log",
        &log,
    ]);
    let driver = Driver::start(&driver);
    let phone = driver.session(&browser, &dir.join("profile"), 390, 844, true);
    // P2 is an officer of Faction A: it proposes plans.
    let token = server.seats[1].as_deref().expect("P2 is a person");
    phone.go(&format!("http://{}/s/{token}", server.addr));
    let form = "const f = document.getElementById('split');\
        if (f.hidden || document.getElementById('question').hidden) return null;\
        return {id: document.getElementById('question').dataset.id,\
          lines: [...document.querySelectorAll('#split-lines .split-line')].map((r) => r.textContent),\
          given: [...document.querySelectorAll('#split-lines small')].filter((s) => s.textContent === 'given').length,\
          left: document.getElementById('split-left').textContent,\
          prompt: document.getElementById('prompt').textContent};";
    let started = Instant::now();
    let mut submitted: Option<(usize, usize, i64)> = None;
    let mut clicks = 0;
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300) && clicks < 300,
            "no plan was asked of P2 ({clicks} clicks)"
        );
        let p = phone.page();
        if p["end"] == true {
            break;
        }
        let f = phone.js(form);
        if std::env::var_os("BROWSER_DEBUG").is_some() {
            eprintln!("{}\n{f}", p["status"]);
            std::thread::sleep(Duration::from_millis(500));
        }
        if let Some((lines, before, gave)) = &submitted {
            // No later line of the plan comes back as a form: the page answers them itself.
            if f.is_object() {
                assert!(
                    f["given"] == 0,
                    "a later line of the plan was asked again: {f}"
                );
            }
            // The log holds the plan line by line once the page has answered every line: the
            // first the one the + gave, the others none (all of what was left went to the last
            // line, which is not asked).
            let answers = p2_answers(&server.log);
            if answers.len() < before + lines - 1 {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            let plan: Vec<&str> = answers
                .iter()
                .skip(*before)
                .take(lines - 1)
                .map(String::as_str)
                .collect();
            let mut want = vec!["0"; lines - 1];
            let g = gave.to_string();
            want[0] = &g;
            assert_eq!(plan, want, "the plan as the log holds it");
            break;
        }
        if f.is_object() {
            phone.full_screenshot(&shots.join("plan-form-whole.png"));
            // What the page says, folded or not, reads in words: Hegemony's keyed and listed
            // values (a crisis's needs, `[(Military, 2)]`; gifts; empty lists) included.
            let text = layout(&phone)["text"].as_str().unwrap_or("").to_string();
            for raw in ["[(", "(Military", "[]", "[Natural"] {
                assert!(!text.contains(raw), "the page shows `{raw}`: {text}");
            }
            let lines = f["lines"].as_array().map_or(0, Vec::len);
            assert!(lines >= 3, "a line per category: {f}");
            let left = f["left"].as_str().unwrap_or("").to_string();
            assert!(left.starts_with("Left: "), "{f}");
            let plus = phone.elements("#split-lines .split-line button:nth-of-type(2)");
            let total: i64 = left
                .trim_start_matches("Left: ")
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            if total > 0 {
                phone.click(plus.first().expect("a + button"));
                let after = phone.js(form);
                let now = after["left"].as_str().unwrap_or("");
                assert!(
                    now.starts_with(&format!("Left: {} of {total}", total - 1)),
                    "+ takes one from what is left: {now}"
                );
                phone.full_screenshot(&shots.join("plan-form-one-given-whole.png"));
            }
            let before = p2_answers(&server.log).len();
            let submit = phone.elements("#split > button");
            phone.click(submit.first().expect("the form's button"));
            submitted = Some((lines, before, total.min(1)));
            continue;
        }
        if p["asked"] == true {
            if p["amount"] == true {
                let submit = phone.elements("#amount button");
                phone.click(submit.first().expect("the amount's button"));
            } else {
                let buttons = phone.elements("#options button");
                if let Some(b) = buttons.first() {
                    phone.click(b);
                }
            }
            clicks += 1;
            let before = p["id"].clone();
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(20) && phone.page()["id"] == before {
                std::thread::sleep(Duration::from_millis(30));
            }
        } else {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(submitted.is_some(), "P2 was never asked a plan");
}

/// P2's answers so far, as the served game's log holds them (their labels).
fn p2_answers(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let j: J = serde_json::from_str(&text).unwrap_or(J::Null);
    j["choices"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter(|c| c["player"] == 1)
                .filter_map(|c| c["label"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
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
        driver.session(&browser, &dir.join("profile-1"), 1200, 900, false),
        driver.session(&browser, &dir.join("profile-2"), 390, 844, true),
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

/// Mid-game on a phone, at The Establishment's longest question (a hand of four influencers,
/// each on either side of three rows: 24 placements): the seat's screen and the question still
/// on the first screen, the whole page within about four phone screens, every option still there
/// to press; the screen and the rest of the page read in words (no tuple, no bracketed list).
#[test]
fn a_long_question_mid_game_stays_short_on_a_phone() {
    let Some((browser, driver)) = browser_and_driver() else {
        return;
    };
    let shots = shots_folder("browser-shots-long");
    let dir = scratch("browser-long");
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
    // Answers given through the server until P1 is asked a placement of the fourth round, with
    // every option open (24 of them).
    let mut pick = web::Pick(5);
    let started = Instant::now();
    let (token, asked) = loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "P1 was never asked a long question"
        );
        let mut any = false;
        for k in 0..2 {
            let token = server.seats[k].clone().expect("a human seat");
            let m = server.state(&token);
            let Some(q) = m["question"].as_object() else {
                continue;
            };
            let n = q["options"].as_array().map_or(0, Vec::len);
            if k == 0 && m["round"].as_i64() >= Some(3) && n >= 24 {
                break;
            }
            let id = q["id"].as_u64().expect("id");
            let (code, body) = server.answer(&token, id, pick.below(n.max(1)));
            assert_eq!(code, 200, "{body}");
            let _ = server.state_after(&token, m["version"].as_u64().expect("version"));
            any = true;
        }
        let token = server.seats[0].clone().expect("a human seat");
        let m = server.state(&token);
        let n = m["question"]["options"].as_array().map_or(0, Vec::len);
        if m["round"].as_i64() >= Some(3) && n >= 24 {
            break (token, m);
        }
        if !any {
            std::thread::sleep(Duration::from_millis(30));
        }
    };
    let options: Vec<String> = asked["question"]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o.as_str().map(str::to_string))
        .collect();
    let driver = Driver::start(&driver);
    let phone = driver.session(&browser, &dir.join("profile"), 390, 844, true);
    phone.go(&format!("http://{}/s/{token}", server.addr));
    let t = Instant::now();
    while phone.page()["asked"] != true {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the page never asked"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    phone.full_screenshot(&shots.join("phone-long-question-whole.png"));
    phone.js("window.scrollTo(0, 0); return 0;");
    phone.screenshot(&shots.join("phone-long-question-first-screen.png"));
    let l = layout(&phone);
    assert_eq!(l["width"], 390, "{l}");
    let height = l["height"].as_i64().unwrap_or(i64::MAX);
    assert!(
        height <= 4 * 800,
        "the page at a question of {} options is {height} px tall, over four phone screens",
        options.len()
    );
    let question_top = l["question_top"].as_f64().unwrap_or(-1.0);
    assert!(
        (0.0..800.0).contains(&question_top),
        "the question starts on the first screen: {l}"
    );
    // Every option can be pressed: each has its button (however the page lays them out), and
    // the buttons answer with the options' own numbers.
    let numbers = phone.js(
        "return [...document.querySelectorAll('#options button[data-option]')]\
           .map((b) => Number(b.dataset.option)).sort((a, b) => a - b);",
    );
    let want: Vec<usize> = (0..options.len()).collect();
    assert_eq!(numbers, json!(want), "every option has its button");
    // The screen and what else the page says read in words.
    let text = l["text"].as_str().unwrap_or("");
    for raw in ["(Faction", "[(", "[]", ", 0)"] {
        assert!(!text.contains(raw), "the page shows `{raw}`: {text}");
    }
    // The same question in a wide window, for the screenshots: each group's six options in
    // rows of three.
    let desk = driver.session(&browser, &dir.join("profile-desk"), 1200, 900, false);
    desk.go(&format!("http://{}/s/{token}", server.addr));
    let t = Instant::now();
    while desk.page()["asked"] != true {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the page never asked"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    desk.screenshot(&shots.join("desk-long-question.png"));
    let columns = desk.js(
        "return getComputedStyle(document.querySelector('#options .grid'))\
           .gridTemplateColumns.split(' ').length;",
    );
    assert_eq!(columns, json!(3), "six options in rows of three");
    // Pressing one answers that option.
    let choices = || -> Vec<J> {
        let log = std::fs::read_to_string(&server.log).unwrap_or_default();
        let j: J = serde_json::from_str(&log).unwrap_or(J::Null);
        j["choices"].as_array().cloned().unwrap_or_default()
    };
    let before = choices().len();
    let chosen = options.len() - 1;
    let b = phone.elements(&format!("#options button[data-option='{chosen}']"));
    phone.click(b.first().expect("the last option's button"));
    let t = Instant::now();
    loop {
        let answered = choices()
            .into_iter()
            .skip(before)
            .find(|c| c["player"] == 0);
        if let Some(c) = answered {
            assert_eq!(
                c["label"].as_str(),
                options.get(chosen).map(String::as_str),
                "the button answered another option"
            );
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the button did not answer"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

//! Live play at a terminal: `rules run --agent P1=human,...` on a pseudo-terminal, answered as
//! a person would, reading the screen as it comes.

#![cfg(unix)]

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

extern "C" {
    fn openpty(
        master: *mut i32,
        slave: *mut i32,
        name: *mut u8,
        termios: *const u8,
        winsize: *const u16,
    ) -> i32;
    fn kill(pid: i32, sig: i32) -> i32;
}

/// The program on a terminal: what it writes arrives on `screen`; `keys` types.
struct Terminal {
    child: Child,
    keys: File,
    screen: Receiver<Vec<u8>>,
    seen: String,
}

impl Terminal {
    fn start(args: &[&str]) -> Terminal {
        Terminal::sized(args, None)
    }

    /// On a terminal of `(rows, columns)`, when given.
    fn sized(args: &[&str], size: Option<(u16, u16)>) -> Terminal {
        let (mut master, mut slave) = (-1, -1);
        // struct winsize: rows, columns, and two pixel sizes.
        let ws = size.map(|(rows, cols)| [rows, cols, 0, 0]);
        // SAFETY: openpty writes two file descriptors; the null pointers are allowed, and the
        // window size is read from four u16s.
        let r = unsafe {
            openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                ws.as_ref().map_or(std::ptr::null(), |w| w.as_ptr()),
            )
        };
        assert_eq!(r, 0, "openpty failed");
        // SAFETY: both descriptors are fresh and owned here.
        let (master, slave) = unsafe { (File::from_raw_fd(master), File::from_raw_fd(slave)) };
        let child = Command::new(env!("CARGO_BIN_EXE_rules"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::from(slave.try_clone().expect("dup")))
            .stdout(Stdio::from(slave.try_clone().expect("dup")))
            .stderr(Stdio::from(slave))
            .spawn()
            .expect("start rules");
        let mut reader = master.try_clone().expect("dup");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Terminal {
            child,
            keys: master,
            screen: rx,
            seen: String::new(),
        }
    }

    /// Wait until the screen shows one of `any` after what was already read; return which,
    /// and everything shown up to and including it.
    fn wait_for(&mut self, any: &[&str]) -> (usize, String) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let hit = any
                .iter()
                .enumerate()
                .filter_map(|(i, w)| self.seen.find(w).map(|at| (at + w.len(), i)))
                .min();
            if let Some((end, i)) = hit {
                let upto: String = self.seen.drain(..end).collect();
                return (i, upto);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!("waited for {any:?}; the screen shows:\n{}", self.seen),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        self.keys
            .write_all(format!("{line}\r").as_bytes())
            .expect("type");
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_person_plays_a_whole_game_against_the_agents() {
    let mut t = Terminal::start(&[
        "run",
        "games/the-establishment.rules",
        "--players",
        "3",
        "--seed",
        "4",
        "--agent",
        "P1=human,random",
    ]);
    // The first choice: the player's view, the numbered options, and a prefix answer.
    let (_, shown) = t.wait_for(&["choose 1-"]);
    assert!(
        shown.contains("== The Establishment: 3 players, seed 4 =="),
        "{shown}"
    );
    assert!(shown.contains("--- what P1 sees"), "{shown}");
    assert!(shown.contains("P1: Choose a faction"), "{shown}");
    t.type_line("zzz");
    let (_, shown) = t.wait_for(&["choose 1-"]);
    assert!(shown.contains("no option is `zzz`"), "{shown}");
    t.type_line("the d");
    // The account goes on as it happens: the answer is in it before the next choice.
    let (_, shown) = t.wait_for(&["choose 1-"]);
    assert!(
        shown.contains("P1: Choose a faction -> The Descendants"),
        "{shown}"
    );
    assert!(shown.contains("Keep a description card"), "{shown}");
    t.type_line("1");
    let mut answered = 2;
    let mut all = String::new();
    loop {
        let (which, shown) = t.wait_for(&["choose 1-", "=== Game over ==="]);
        all.push_str(&shown);
        if which == 1 {
            break;
        }
        t.type_line("1");
        answered += 1;
        assert!(answered < 500, "the game does not end");
    }
    let status = t.child.wait().expect("wait");
    assert!(status.success(), "the game ends cleanly: {status}");
    assert!(answered > 10, "P1 answered only {answered} choices");
    // Only P1's view: other players' hands are never shown, and their secret choices have no
    // answer in the account.
    assert!(!all.contains("what P2 sees") && !all.contains("what P3 sees"));
    assert!(
        all.contains("hand[P2]") && all.contains("hidden card"),
        "{all}"
    );
    for line in all.lines().filter(|l| l.starts_with("* hand[P1]")) {
        assert!(
            !line.contains("hidden card"),
            "P1 sees their own hand: {line}"
        );
    }
    for line in all.lines().filter(|l| l.starts_with("  hand[P2]")) {
        assert!(
            line.trim_start_matches("  hand[P2]").trim() == "-" || line.contains("hidden card"),
            "P2's hand is hidden from P1: {line}"
        );
    }
}

#[test]
fn hot_seat_hides_each_players_view_until_they_say_they_are_there() {
    let mut t = Terminal::start(&[
        "run",
        "games/the-establishment.rules",
        "--players",
        "3",
        "--seed",
        "2",
        "--agent",
        "P1=human,P2=human,random",
    ]);
    let (_, shown) = t.wait_for(&["press Enter when you are alone at the screen."]);
    assert!(shown.contains("Pass the keyboard to P1"), "{shown}");
    assert!(
        !shown.contains("what P1 sees"),
        "nothing shown before P1 is there: {shown}"
    );
    t.type_line("");
    let (_, shown) = t.wait_for(&["choose 1-"]);
    assert!(shown.contains("--- what P1 sees"), "{shown}");
    t.type_line("1");
    // P1's answers go on until P2's turn: the screen is cleared before P2 is asked to sit down.
    let mut cleared = false;
    loop {
        let (which, shown) = t.wait_for(&["choose 1-", "Pass the keyboard to P2"]);
        cleared |= shown.contains("\x1b[2J");
        if which == 1 {
            break;
        }
        t.type_line("1");
    }
    assert!(cleared, "the screen is cleared after P1's answers");
    let (_, shown) = t.wait_for(&["press Enter when you are alone at the screen."]);
    assert!(!shown.contains("what P"), "{shown}");
    t.type_line("");
    let (_, shown) = t.wait_for(&["choose 1-"]);
    assert!(shown.contains("--- what P2 sees"), "{shown}");
    assert!(!shown.contains("what P1 sees"), "{shown}");
}

#[test]
fn hegemonys_screen_before_a_question_fits_40_lines_of_100_columns() {
    let mut t = Terminal::sized(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "2",
            "--agent",
            "P2=human,random",
        ],
        Some((40, 100)),
    );
    let mut screens = 0;
    while screens < 40 {
        let (which, _) = t.wait_for(&["\n--- what P2 sees", "=== Game over ==="]);
        if which == 1 {
            break;
        }
        let (_, shown) = t.wait_for(&["> "]);
        // The blank line before the screen, the screen, the question and the prompt.
        let lines: Vec<&str> = shown.split('\n').collect();
        assert!(
            lines.len() + 1 <= 40,
            "{} lines:\n--- what P2 sees{shown}",
            lines.len() + 1
        );
        for l in &lines {
            let l = l.trim_end_matches('\r');
            assert!(
                l.chars().count() <= 100,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        assert!(shown.contains("control"), "{shown}");
        screens += 1;
        // An amount where the question asks one, else the first option.
        t.type_line(if shown.contains("an amount:") {
            "0"
        } else {
            "#1"
        });
    }
    assert!(screens >= 20, "only {screens} questions");
}

#[test]
fn ctrl_c_saves_the_game_so_far_and_ends_quietly() {
    let log = std::env::temp_dir().join(format!("rules-live-ctrl-c-{}.log", std::process::id()));
    let log_s = log.display().to_string();
    let mut t = Terminal::start(&[
        "run",
        "games/the-establishment.rules",
        "--players",
        "3",
        "--seed",
        "4",
        "--agent",
        "P1=human,random",
        "--log",
        &log_s,
    ]);
    t.wait_for(&["choose 1-"]);
    t.type_line("2");
    t.wait_for(&["choose 1-"]);
    // SAFETY: sending SIGINT to the child, as Ctrl-C at its terminal would.
    let r = unsafe { kill(t.child.id() as i32, 2) };
    assert_eq!(r, 0);
    let (_, shown) = t.wait_for(&["--resume"]);
    assert!(shown.contains("Stopped after 1 answer;"), "{shown}");
    assert!(!shown.contains("run::"), "{shown}");
    let status = t.child.wait().expect("wait");
    assert!(status.success(), "{status}");
    let saved = std::fs::read_to_string(&log).expect("the log is written");
    let answers: Vec<&str> = saved.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(answers.len(), 1, "{saved}");
    assert!(answers[0].starts_with("P1 2 "), "{saved}");
}

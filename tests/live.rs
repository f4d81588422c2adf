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
        // The default screen, whole: every zone as P1 may see it (the game's own screen is
        // played in `five_games_played_to_their_end_from_the_screen`).
        "--full",
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
    let (mut screens, mut asked) = (0, 0);
    while asked < 40 {
        let (which, _) = t.wait_for(&["\n--- what P2 sees", "=== Game over ===", "\nchoose "]);
        if which == 1 {
            break;
        }
        asked += 1;
        if which == 2 {
            // The next line of a split: asked without the screen shown again.
            t.wait_for(&["> "]);
            t.type_line("0");
            continue;
        }
        let (_, shown) = t.wait_for(&["> "]);
        // The blank line before the screen, the screen, the question and the prompt.
        let lines: Vec<&str> = shown.split('\n').collect();
        assert!(
            lines.len() < 40,
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
        // Hegemony's own screen: every faction's Control, and the seat's bank once the
        // factions are formed.
        assert!(shown.contains("\nControl "), "{shown}");
        if shown.contains("\nFaction ") {
            assert!(shown.contains("\nBank (steel) "), "{shown}");
            assert!(shown.contains("\nYour agenda "), "{shown}");
        }
        screens += 1;
        // An amount where the question asks one, else the first option.
        t.type_line(if shown.contains("an amount:") {
            "0"
        } else {
            "#1"
        });
    }
    // (The lines of a split after its first are asked without the screen.)
    assert!(asked >= 20, "only {asked} questions");
    assert!(screens >= 5, "only {screens} screens");
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

/// The options of the question at the end of `shown`: `(number, text)`, the text as far as the
/// screen shows it on the option's first line (a note beside it left off).
fn options_shown(shown: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for line in shown.lines() {
        let line = line.trim_end_matches('\r');
        // `  12) label` once or several times a line (columns).
        let mut rest = line;
        while let Some(at) = rest.find(") ") {
            let before = &rest[..at];
            let digits: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let lead = &before[..before.len() - digits.len()];
            let at_start = lead.trim().is_empty() || lead.ends_with("  ");
            let after = &rest[at + 2..];
            match digits.parse::<usize>() {
                Ok(n) if at_start && n == out.last().map_or(1, |o| o.0 + 1) => {
                    let text = after.split("  ").next().unwrap_or("").trim().to_string();
                    out.push((n, text));
                }
                _ => {}
            }
            rest = after;
        }
    }
    out
}

/// Play `game` as P1 against random agents to its end, answering each question from what the
/// screen shows: an amount from the amounts offered, else an option typed by its text (by its
/// number when the text does not pick it out). Returns everything the terminal showed.
fn play_to_the_end(args: &[&str]) -> String {
    let mut t = Terminal::sized(args, Some((40, 100)));
    let mut all = String::new();
    let mut asked = 0usize;
    let (mut by_text, mut refused) = (0usize, 0usize);
    loop {
        let (which, shown) = t.wait_for(&["\nchoose ", "=== Game over ==="]);
        all.push_str(&shown);
        if which == 1 {
            break;
        }
        let (_, ask) = t.wait_for(&["> "]);
        all.push_str(&ask);
        asked += 1;
        assert!(asked < 3000, "the game does not end");
        // A text the game did not take: the same question again, answered by its number.
        if shown.contains("(:help lists what you may type)") {
            refused += 1;
            t.type_line("#1");
            continue;
        }
        // `choose 0-45> ` or `choose an amount> `: the lowest amount shown.
        let amounts = shown
            .rsplit("an amount: ")
            .next()
            .filter(|_| shown.contains("an amount: "));
        // A yes/no question: yes and no in turn, as words (a forced one: its only answer).
        if shown.ends_with("\nchoose ") && (ask.starts_with("yes") || ask.starts_with("no>")) {
            by_text += 1;
            let word = match ask.split('>').next() {
                Some("yes or no") if asked.is_multiple_of(2) => "y",
                Some("yes or no") => "no",
                Some(only) => only,
                None => "y",
            };
            t.type_line(word);
            continue;
        }
        let answer = match amounts {
            Some(runs) => runs
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect::<String>()
                .split('-')
                .next()
                .unwrap_or("0")
                .to_string(),
            None => {
                let question = shown.rsplit("\n--- what P1 sees").next().unwrap_or(&shown);
                let options = options_shown(question);
                assert!(!options.is_empty(), "no options shown:\n{shown}");
                let (n, text) = &options[(asked * 7) % options.len()];
                let unique = options.iter().filter(|o| o.1 == *text).count() == 1;
                if unique && !text.is_empty() && !text.starts_with(|c: char| c.is_ascii_digit()) {
                    by_text += 1;
                    text.clone()
                } else {
                    format!("#{n}")
                }
            }
        };
        t.type_line(&answer);
    }
    let status = t.child.wait().expect("wait");
    assert!(status.success(), "the game ends cleanly: {status}\n{all}");
    assert!(asked >= 3, "P1 was asked only {asked} questions");
    // Most answers are typed as the options read; hardly any is refused.
    assert!(
        by_text * 2 >= asked - refused,
        "{by_text} of {asked} answers typed as text"
    );
    assert!(
        refused * 10 <= asked,
        "{refused} of {asked} answers refused:\n{all}"
    );
    all
}

#[test]
fn five_games_played_to_their_end_from_the_screen() {
    // Hegemony: the seat's faction, its bank and Control, the crisis it meets, its agenda.
    let all = play_to_the_end(&[
        "run",
        "games/hegemony",
        "--seed",
        "3",
        "--agent",
        "P1=human,random",
    ]);
    for line in [
        "\nFaction ",
        "\nBank (steel) ",
        "\nControl ",
        "\nYour agenda ",
    ] {
        assert!(
            all.contains(line),
            "Hegemony's screen shows {line:?}:\n{all}"
        );
    }
    assert!(all.contains("\nCrisis now "), "{all}");
    assert!(all.contains("\nIt needs "), "{all}");

    // The Establishment: the storylines' options beside Left and Right, opponents' influencers
    // with realm and rating, and no `[owner P1]`.
    let all = play_to_the_end(&[
        "run",
        "games/the-establishment.rules",
        "--players",
        "3",
        "--seed",
        "3",
        "--agent",
        "P1=human,random",
    ]);
    assert!(all.contains("\n  left "), "{all}");
    assert!(all.contains("\n  right "), "{all}");
    assert!(
        all.contains(", Left  "),
        "a storyline's text beside Left:\n{all}"
    );
    assert!(
        all.contains("(P2, "),
        "P2's influencers, with realm and rating:\n{all}"
    );
    assert!(!all.contains("[owner P1]"), "{all}");

    // Statecraft: the scenario's goal on the screen, and why the game ended.
    let all = play_to_the_end(&[
        "run",
        "games/statecraft",
        "--seed",
        "3",
        "--agent",
        "P1=human,random",
    ]);
    assert!(all.contains("\nScenario "), "{all}");
    assert!(all.contains(" wins; the game ends "), "{all}");
    assert!(all.contains("The game is over: "), "{all}");

    // Ambition: an alliance offered to P1 shows its terms and wager.
    let all = play_to_the_end(&[
        "run",
        "games/ambition",
        "--seed",
        "3",
        "--agent",
        "P1=human,random",
    ]);
    assert!(all.contains("\nCurrency "), "{all}");
    for part in all.split("\n--- what P1 sees").skip(1) {
        if part.contains("Accept the secret alliance") {
            assert!(part.contains("\nOffered to you "), "{part}");
            assert!(part.contains("sets aside"), "{part}");
        }
    }

    // Deep State: a choice taken for P1 is said so.
    let all = play_to_the_end(&[
        "run",
        "games/deep-state",
        "--seed",
        "3",
        "--agent",
        "P1=human,random",
    ]);
    assert!(all.contains("\nYour influence "), "{all}");
    assert!(all.contains("(the only option: taken for you)"), "{all}");
}

#[test]
fn hot_seat_waits_for_a_seat_with_one_secret_option_as_for_any_other() {
    // Cut-down Skull, seed 1: P1 holds the skull, P2 flowers only. P2 is still called to the
    // keyboard and asked, with its one option, as P1 was with two.
    let mut t = Terminal::start(&[
        "run",
        "tests/table/skull.rules",
        "--seed",
        "1",
        "--agent",
        "P1=human,P2=human",
    ]);
    let (_, shown) = t.wait_for(&["press Enter when you are alone at the screen."]);
    assert!(shown.contains("Pass the keyboard to P1"), "{shown}");
    t.type_line("");
    let (_, shown) = t.wait_for(&["choose 1-2> "]);
    assert!(
        shown.contains("P1: Lay a tile face down (secret)"),
        "{shown}"
    );
    t.type_line("1");
    let (_, shown) = t.wait_for(&["press Enter when you are alone at the screen."]);
    assert!(shown.contains("Pass the keyboard to P2"), "{shown}");
    t.type_line("");
    let (_, shown) = t.wait_for(&["choose 1-1> "]);
    assert!(
        shown.contains("P2: Lay a tile face down (secret)"),
        "{shown}"
    );
    assert!(shown.contains("1) Flower"), "{shown}");
    t.type_line("Flower");
    let (_, shown) = t.wait_for(&["=== Game over ==="]);
    assert!(
        shown.contains("P2: Lay a tile face down -> Flower (secret: only you see this)"),
        "{shown}"
    );
    // P1 comes back to read how the game ended.
    t.wait_for(&["press Enter when you are alone at the screen."]);
    t.type_line("");
    assert!(t.child.wait().expect("wait").success());
}

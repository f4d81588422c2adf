//! People at the terminal (`rules run --agent P1=human,...`): the human agent, the account each
//! of them reads, and the answers a game replays (`--resume`, taking an answer back).
//!
//! The [`Table`] is shared by the human seats and the account. Each event is shown to each human
//! seat as `--viewer` would show it to that seat: at once to the one at the keyboard, and kept
//! for the others until they sit down (hot-seat: several people at one keyboard). Before a
//! different person's question the screen is cleared and the game waits until that person is at
//! the keyboard; then they read the account since their last turn, their screen
//! (`view::screen`) and the question.
//!
//! Every answer is echoed to whoever gave it (a secret one only to them), and a choice taken for
//! a seat because it had one legal option is announced to it; a secret one is asked all the
//! same, with its one option (`Agent::asks_forced`), so nobody learns from whom the game waits
//! for. At the prompt, `:undo` takes the seat's last answer back while no other person has seen
//! what came of it and the seat itself has seen nothing hidden since (`interp::hindsight`: another
//! seat's secret answer, a card it did not know, a random draw); the game is replayed without
//! it. `:full` shows everything, `:quit`, end of input or Ctrl-C stop the game so it can be
//! resumed from its log.

use super::{Agent, ChoiceRequest};
use crate::events::{CardRef, Event, Part};
use crate::view::screen;
pub use crate::view::screen::Page;
use std::cell::RefCell;
use std::io::{BufRead, Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

/// What an agent answers when the person stopped the game, or takes an answer back (the
/// interpreter's, which stops on them).
pub use crate::interp::{QUIT, TAKE_BACK};

/// Set by Ctrl-C while people play (`catch_interrupts`).
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" {
    fn signal(sig: i32, handler: usize) -> usize;
    fn _exit(code: i32) -> !;
}

#[cfg(unix)]
extern "C" fn on_interrupt(_: i32) {
    // A second Ctrl-C while the game has not reached a question yet ends it at once.
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { _exit(130) }
    }
}

/// Ctrl-C stops the game at the next question (or while a person is being asked), which then
/// saves what was played; a second Ctrl-C ends the program at once.
pub fn catch_interrupts() {
    #[cfg(unix)]
    // SAFETY: the handler only touches an atomic and calls `_exit`, both async-signal-safe.
    unsafe {
        const SIGINT: i32 = 2;
        signal(SIGINT, on_interrupt as extern "C" fn(i32) as usize);
    }
}

/// The lines typed at the terminal, read on a thread of their own so that a person waiting to
/// be asked can be stopped (Ctrl-C) between lines: `None` at the end of input.
fn typed_lines() -> Receiver<Option<String>> {
    let (tx, rx) = channel();
    let max = crate::limits::Limits::default().max_line_bytes;
    let spawned = std::thread::Builder::new()
        .name("terminal".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut lock = stdin.lock();
            loop {
                let mut line = Vec::new();
                // A line longer than a line may be is cut into several.
                let got = (&mut lock).take(max as u64).read_until(b'\n', &mut line);
                let line = match got {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(String::from_utf8_lossy(&line).trim_end().to_string()),
                };
                let end = line.is_none();
                if tx.send(line).is_err() || end {
                    return;
                }
            }
        });
    if spawned.is_err() {
        // No thread: the input reads as ended.
        let (tx, rx) = channel();
        let _ = tx.send(None);
        return rx;
    }
    rx
}

/// The size of the terminal on stderr, when it is one.
pub fn terminal_size() -> Option<(usize, usize)> {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        #[repr(C)]
        struct WinSize {
            rows: u16,
            cols: u16,
            x: u16,
            y: u16,
        }
        extern "C" {
            fn ioctl(fd: i32, request: std::ffi::c_ulong, ...) -> i32;
        }
        #[cfg(target_os = "linux")]
        const TIOCGWINSZ: std::ffi::c_ulong = 0x5413;
        #[cfg(target_os = "macos")]
        const TIOCGWINSZ: std::ffi::c_ulong = 0x4008_7468;
        let mut ws = WinSize {
            rows: 0,
            cols: 0,
            x: 0,
            y: 0,
        };
        // SAFETY: TIOCGWINSZ writes one `winsize` into the struct given.
        let r = unsafe { ioctl(2, TIOCGWINSZ, &mut ws as *mut WinSize) };
        if r == 0 && ws.rows > 0 && ws.cols > 0 {
            return Some((usize::from(ws.cols), usize::from(ws.rows)));
        }
    }
    None
}

/// The page a screen must fit: the terminal's, else 100 columns by 40 lines.
pub fn page(full: bool) -> Page {
    let (cols, rows) = terminal_size().unwrap_or((100, 40));
    Page { cols, rows, full }
}

/// The people at the terminal and what they have read.
pub struct Table {
    /// The seats played at this terminal.
    humans: Vec<u32>,
    /// Who is at the keyboard (with one human seat, always that seat).
    at_keyboard: Option<u32>,
    /// Per human seat, the account lines they have not read yet, each with the number of
    /// answers given when it was written.
    backlog: Vec<Vec<(usize, String)>>,
    pub page: Page,
    /// Writes a line of the account (on stdout unless told otherwise: `rules run --json`
    /// keeps stdout for the events).
    pub account: Box<dyn Fn(&str)>,
    /// Answers given so far in this game, replayed ones included.
    pub answers: usize,
    /// Answers to replay before anybody is asked (`--resume`, `:undo`): (seat, option index).
    pub replay: Vec<(u32, usize)>,
    /// The human seats' answers: (seat, its number among all answers).
    human_answers: Vec<(u32, usize)>,
    /// The number of answers given when the keyboard last went to another person: answers
    /// before it may have been seen by somebody else.
    handover: usize,
    /// Set by `:undo`: replay the game with this many answers.
    pub take_back_to: Option<usize>,
    /// The forced secret choices a person answered (`Agent::asks_forced`), each as the number
    /// of answers given before it: a replay passes them without asking again. `forced_at`:
    /// the next one the game will meet.
    forced: Vec<usize>,
    forced_at: usize,
    /// The lines typed, once something was asked.
    input: Option<Receiver<Option<String>>>,
    /// The people were told how to get help.
    hinted: bool,
}

pub type SharedTable = Rc<RefCell<Table>>;

impl Table {
    pub fn new(humans: Vec<u32>, page: Page) -> Table {
        let n = humans.len();
        Table {
            at_keyboard: match humans.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
            humans,
            backlog: vec![Vec::new(); n],
            page,
            account: Box::new(|line: &str| {
                let mut out = crate::term::Escaped::new(std::io::stdout().lock());
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }),
            answers: 0,
            replay: Vec::new(),
            human_answers: Vec::new(),
            handover: 0,
            take_back_to: None,
            forced: Vec::new(),
            forced_at: 0,
            input: None,
            hinted: false,
        }
    }

    pub fn shared(self) -> SharedTable {
        Rc::new(RefCell::new(self))
    }

    pub fn humans(&self) -> &[u32] {
        &self.humans
    }

    /// Still replaying answers given before: nothing is shown.
    pub fn replaying(&self) -> bool {
        self.answers < self.replay.len()
    }

    /// Start the game again from its first answers (`--resume`, `:undo`): `answers` are
    /// replayed, and what the people were shown after them is forgotten (it is shown again).
    pub fn restart(&mut self, answers: Vec<(u32, usize)>) {
        let keep = answers.len();
        for b in &mut self.backlog {
            b.retain(|(at, _)| *at < keep);
        }
        self.human_answers = (0..)
            .zip(&answers)
            .filter(|(_, (seat, _))| self.humans.contains(seat))
            .map(|(at, (seat, _))| (*seat, at))
            .collect();
        self.handover = self.handover.min(keep);
        // Those met before the position taken back to are passed, as answers are replayed.
        self.forced.retain(|at| *at <= keep);
        self.forced_at = 0;
        self.replay = answers;
        self.answers = 0;
        self.take_back_to = None;
    }

    /// An event of the game: each human seat's line of it, shown to the one at the keyboard
    /// and kept for the others.
    pub fn event(&mut self, ev: &Event) {
        if self.replaying() {
            return;
        }
        for (k, &seat) in self.humans.iter().enumerate() {
            let Some(line) = seat_line(&ev.for_viewer(seat), seat) else {
                continue;
            };
            if self.at_keyboard == Some(seat) {
                (self.account)(&line);
            } else if let Some(b) = self.backlog.get_mut(k) {
                b.push((self.answers, line));
            }
        }
    }

    /// The game is over: the people who have not read its end yet come to the keyboard in
    /// turn to read it.
    pub fn finish(&mut self) {
        let waiting: Vec<u32> = self
            .humans
            .iter()
            .zip(&self.backlog)
            .filter(|(s, b)| Some(**s) != self.at_keyboard && !b.is_empty())
            .map(|(s, _)| *s)
            .collect();
        for seat in waiting {
            if self.sit_down(seat, "to read how the game ended").is_err() {
                return;
            }
        }
    }

    /// Clear the screen, ask for `seat`'s player, and show them what they have not read.
    fn sit_down(&mut self, seat: u32, why: &str) -> Result<(), String> {
        let mut err = crate::term::Escaped::new(std::io::stderr());
        clear_screen(err.raw());
        let _ = write!(
            err,
            "Pass the keyboard to P{n} {why}. P{n}, press Enter when you are alone at the screen.",
            n = seat + 1
        );
        let _ = err.flush();
        self.read_line()?;
        self.at_keyboard = Some(seat);
        self.handover = self.answers;
        let k = self.humans.iter().position(|&h| h == seat);
        let lines = k
            .and_then(|k| self.backlog.get_mut(k))
            .map(std::mem::take)
            .unwrap_or_default();
        (self.account)(&format!(
            "\n--- P{} at the keyboard; since their last turn: ---",
            seat + 1
        ));
        for (_, l) in lines {
            (self.account)(&l);
        }
        Ok(())
    }

    /// One line from the terminal, without its end. End of input, `Ctrl-C` or `:quit`
    /// give `Err(QUIT)`.
    fn read_line(&mut self) -> Result<String, String> {
        let input = self.input.get_or_insert_with(typed_lines);
        loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                return Err(QUIT.into());
            }
            match input.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(line)) => return Ok(line),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Err(QUIT.into()),
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// A seat's line of an event (already seen through its eyes): the account's line, with the
/// seat's own answers echoed, secret ones included, a choice taken for it announced, and enum
/// values in words.
fn seat_line(ev: &Event, seat: u32) -> Option<String> {
    match ev {
        Event::Choice {
            player,
            prompt,
            choice: Some(choice),
            options,
            secret,
            ..
        } => {
            let mine = *player == format!("P{}", seat + 1);
            // A secret choice of one option was asked all the same (`Agent::asks_forced`), and
            // so was one of a card somebody else does not know.
            let veiled = choice
                .0
                .iter()
                .any(|p| matches!(p, Part::Card(CardRef::Shown { public: false, .. })));
            let note = match (mine, *options, *secret) {
                (true, _, true) => " (secret: only you see this)",
                (true, Some(1), _) if !veiled => " (the only option: taken for you)",
                (true, Some(1), _) => "",
                (false, Some(1), _) | (false, _, true) => return None,
                _ => "",
            };
            Some(format!("  {player}: {prompt} -> {}{note}", choice.words()))
        }
        other => other.text(),
    }
}

/// Clears the terminal and its scrollback (and says so, when the output is not a terminal).
fn clear_screen(out: &mut impl Write) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        let _ = write!(out, "\x1b[2J\x1b[3J\x1b[H");
    } else {
        let _ = writeln!(out, "\n[screen cleared]");
    }
    let _ = out.flush();
}

/// The whole numbers the options are, when every option is one.
fn amounts(count: usize, label: &dyn Fn(usize) -> String) -> Option<Vec<i64>> {
    (0..count).map(|i| label(i).trim().parse().ok()).collect()
}

/// `0-5, 7, 9-12`: numbers in runs.
fn number_runs(ns: &[i64]) -> String {
    let runs = ns.chunk_by(|a, b| a.checked_add(1) == Some(*b));
    runs.map(|run| match run {
        [one] => one.to_string(),
        [first, .., last] => format!("{first}-{last}"),
        [] => String::new(),
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// The words of a text as a person types them: letters and digits, without case.
fn words_of(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether every word of `typed` is found in `words`, in the same order.
fn in_order(typed: &[String], words: &[String]) -> bool {
    let mut rest = words.iter();
    !typed.is_empty() && typed.iter().all(|w| rest.any(|x| x == w))
}

/// Text compared as a person types it: no case, no spaces.
fn squash(t: &str) -> String {
    t.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The option a person's answer names: `#3` is the third option; a number is that amount when
/// the options are amounts, else the option with that number; otherwise an option's text, a
/// beginning only one option has, or else a part of only one option's text (case and spaces do
/// not matter).
pub fn match_answer(
    t: &str,
    count: usize,
    label: &dyn Fn(usize) -> String,
) -> Result<usize, String> {
    let t = t.trim();
    let numbered = |n: &str| -> Result<usize, String> {
        match n.trim().parse::<usize>() {
            Ok(n) if n >= 1 && n <= count => Ok(n - 1),
            _ => Err(format!(
                "`{t}` is not an option; the options are #1 to #{count}"
            )),
        }
    };
    if t.is_empty() {
        return Err(format!(
            "type a number from 1 to {count}, or an option's name"
        ));
    }
    if let Some(n) = t.strip_prefix('#') {
        return numbered(n);
    }
    if let Ok(n) = t.parse::<i64>() {
        if let Some(ns) = amounts(count, label) {
            return ns.iter().position(|&x| x == n).ok_or_else(|| {
                format!(
                    "{n} is not one of the amounts you may choose: {}",
                    number_runs(&ns)
                )
            });
        }
        return numbered(t)
            .map_err(|_| format!("`{t}` is not an option; type a number from 1 to {count}"));
    }
    let want = squash(t);
    let labels: Vec<String> = (0..count).map(|i| squash(&label(i))).collect();
    if let Some(i) = labels.iter().position(|l| *l == want) {
        return Ok(i);
    }
    let with = |found: &dyn Fn(&str) -> bool| -> Vec<usize> {
        (0..labels.len())
            .filter(|&i| labels.get(i).is_some_and(|l| found(l)))
            .collect()
    };
    // A beginning only one option has; else a part of one option's text only.
    let mut starts = with(&|l: &str| l.starts_with(&want));
    if starts.is_empty() {
        starts = with(&|l: &str| l.contains(&want));
    }
    if starts.is_empty() {
        // Words of the option in their order, some left out: `ilya on row 1 right` for
        // `Ilya Brandt (Law 2) on row 1, Right`.
        let typed = words_of(t);
        starts = (0..count)
            .filter(|&i| in_order(&typed, &words_of(&label(i))))
            .collect();
    }
    match starts.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "no option is `{t}`; type a number from 1 to {count}, or an option's name"
        )),
        many => Err(format!(
            "`{t}` could be {}; type more of it, or the number",
            many.iter()
                .take(5)
                .map(|&i| format!("{}) {}", i + 1, label(i)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `text` in lines of at most `width` characters, broken at spaces where it can be.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    // The text's own indent starts the first line.
    let body = text.trim_start_matches(' ');
    let mut lines = Vec::new();
    let mut cur = " ".repeat(text.len() - body.len());
    for word in body.split(' ') {
        let len = cur.chars().count();
        let blank = cur.trim().is_empty();
        if !blank && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.trim().is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        // A word longer than the line is cut where the line ends.
        while cur.chars().count() > width {
            let head: String = cur.chars().take(width).collect();
            let tail: String = cur.chars().skip(width).collect();
            lines.push(head);
            cur = tail;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The question's lines: the prompt, then the options (amounts as their runs; many short
/// options in columns; a long one over several lines), all within `cols` columns.
fn question_lines(
    req: &ChoiceRequest,
    label: &dyn Fn(usize) -> String,
    cols: usize,
) -> (Vec<String>, String) {
    let cols = cols.max(30);
    let head = format!(
        "{}: {}{}",
        req.player_name,
        req.prompt,
        if req.secret { " (secret)" } else { "" }
    );
    let mut lines = wrap(&head, cols);
    if let Some(ns) = amounts(req.count, label) {
        let runs = number_runs(&ns);
        lines.extend(wrap(&format!("    an amount: {runs}"), cols));
        let ask = match (ns.first(), ns.last()) {
            (Some(a), Some(b)) if runs == format!("{a}-{b}") => format!("choose {a}-{b}> "),
            _ => "choose an amount> ".to_string(),
        };
        return (lines, ask);
    }
    let labels: Vec<String> = (0..req.count).map(label).collect();
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    // `  12) label` then two spaces before the next column.
    let cell = widest + 7;
    let across = (cols / cell.max(1)).max(1);
    let notes = req
        .notes
        .filter(|ns| ns.iter().any(|n| !n.is_empty()))
        .unwrap_or_default();
    if !notes.is_empty() {
        // Each option with what the game says beside it: on the same line when both fit,
        // else under it.
        for (i, l) in labels.iter().enumerate() {
            let note = notes.get(i).map(String::as_str).unwrap_or("");
            let both = format!("  {:>3}) {l:<widest$}  {note}", i + 1);
            if !note.is_empty() && both.chars().count() <= cols {
                lines.push(both);
                continue;
            }
            for (k, part) in wrap(l, cols - 7).into_iter().enumerate() {
                lines.push(if k == 0 {
                    format!("  {:>3}) {part}", i + 1)
                } else {
                    format!("       {part}")
                });
            }
            if !note.is_empty() {
                lines.extend(wrap(&format!("         {note}"), cols));
            }
        }
    } else if req.count > 12 && across > 1 {
        let down = req.count.div_ceil(across);
        for r in 0..down {
            let mut line = String::new();
            for c in 0..across {
                let i = c * down + r;
                if let Some(l) = labels.get(i) {
                    line.push_str(&format!("  {:>3}) {:<w$}", i + 1, l, w = widest));
                }
            }
            lines.push(line.trim_end().to_string());
        }
    } else {
        for (i, l) in labels.iter().enumerate() {
            for (k, part) in wrap(l, cols - 7).into_iter().enumerate() {
                lines.push(if k == 0 {
                    format!("  {:>3}) {part}", i + 1)
                } else {
                    format!("       {part}")
                });
            }
        }
    }
    (lines, format!("choose 1-{}> ", req.count))
}

const HELP: &str = "Type an option's number, its name, the start of it or some of its words in \
order (#3: the third option; where the options are amounts, a number is that amount). :full shows everything you may see, \
:undo takes your last answer back (unless you have seen something hidden since, or somebody \
else has seen what came of it), :quit stops and saves the game.";

/// Asks at the terminal: shows the player's screen and the question, and takes an answer
/// (`match_answer`) or a command (`:full`, `:undo`, `:quit`, `:help`).
pub struct HumanAgent {
    pub table: SharedTable,
}

impl Agent for HumanAgent {
    fn wants_screen(&self) -> bool {
        true
    }

    /// A secret choice of one option is asked as any other, so that hot-seat players never
    /// learn from a skipped turn that the seat had no choice.
    fn asks_forced(&self, _seat: u32) -> bool {
        true
    }

    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let mut table = self.table.borrow_mut();
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(QUIT.into());
        }
        if table.at_keyboard != Some(req.player) {
            table.sit_down(req.player, "for their turn")?;
        }
        let page = table.page;
        let (question, ask) = question_lines(req, label, page.cols);
        // The screen, then the question, within one page.
        let hint = usize::from(!table.hinted);
        let room = page.rows.saturating_sub(question.len() + 2 + hint).max(8);
        let view = (req.view)();
        let mut err = crate::term::Escaped::new(std::io::stderr());
        let _ = writeln!(err);
        let shown = match req.screen {
            Some(lines) if !page.full => screen::render_declared(&view, lines, &page, room),
            _ => screen::render(&view, &page, room),
        };
        for l in shown {
            let _ = writeln!(err, "{l}");
        }
        for l in &question {
            let _ = writeln!(err, "{l}");
        }
        if !table.hinted {
            table.hinted = true;
            let _ = writeln!(
                err,
                "(:help says what you may type; :undo takes an answer back, :quit saves and stops)"
            );
        }
        loop {
            let _ = write!(err, "{ask}");
            let _ = err.flush();
            let line = table.read_line()?;
            match line.trim() {
                ":quit" | ":q" => return Err(QUIT.into()),
                ":help" | ":h" | "?" => {
                    let _ = writeln!(err, "{HELP}");
                    continue;
                }
                ":full" => {
                    let full = Page { full: true, ..page };
                    for l in screen::render(&view, &full, usize::MAX) {
                        let _ = writeln!(err, "{l}");
                    }
                    for l in &question {
                        let _ = writeln!(err, "{l}");
                    }
                    continue;
                }
                ":undo" => {
                    let last = table
                        .human_answers
                        .iter()
                        .rev()
                        .find(|(s, _)| *s == req.player)
                        .map(|(_, at)| *at);
                    // Never past something hidden the seat saw since (`interp::hindsight`).
                    let seen = last
                        .filter(|at| *at >= table.handover)
                        .and_then(|at| (req.hindsight)(at));
                    match last {
                        Some(at) if at < table.handover => {
                            let _ = writeln!(
                                err,
                                "Your last answer cannot be taken back: another player has seen what came of it."
                            );
                        }
                        Some(_) if seen.is_some() => {
                            let why = seen.map(|s| s.why("you")).unwrap_or_default();
                            let _ = writeln!(err, "Your last answer cannot be taken back: {why}.");
                        }
                        Some(at) => {
                            table.take_back_to = Some(at);
                            return Err(TAKE_BACK.into());
                        }
                        None => {
                            let _ = writeln!(err, "You have no answer to take back.");
                        }
                    }
                    continue;
                }
                _ => {}
            }
            match match_answer(&line, req.count, label) {
                Ok(i) => {
                    // A forced secret choice's answer is not logged: nothing to take back.
                    if req.count > 1 {
                        let at = table.answers;
                        table.human_answers.push((req.player, at));
                    }
                    return Ok(i);
                }
                Err(e) => {
                    let _ = writeln!(err, "{e} (:help lists what you may type)");
                }
            }
        }
    }
}

/// Wraps a seat's agent: while the table has answers to replay, the next one is given (the
/// agent is told, so a random agent draws as it did); then the agent answers. Every answer is
/// counted on the table.
pub struct ReplayAgent {
    pub inner: Box<dyn Agent>,
    pub table: SharedTable,
}

impl Agent for ReplayAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let replayed = {
            let t = self.table.borrow();
            t.replay.get(t.answers).copied()
        };
        // A forced secret choice asked of a person (`asks_forced`): not in the log, so not
        // counted; while replaying, passed without asking.
        if req.count == 1 {
            let answered = {
                let mut t = self.table.borrow_mut();
                let now = t.answers;
                while t.forced.get(t.forced_at).is_some_and(|at| *at < now) {
                    t.forced_at += 1;
                }
                let before = t.forced.get(t.forced_at) == Some(&now);
                if before {
                    t.forced_at += 1;
                }
                before
            };
            if answered || replayed.is_some() {
                return Ok(0);
            }
            let i = self.inner.decide(req, label)?;
            let mut t = self.table.borrow_mut();
            let (now, at) = (t.answers, t.forced_at);
            t.forced.truncate(at);
            t.forced.push(now);
            t.forced_at = at + 1;
            return Ok(i);
        }
        let answer = match replayed {
            Some((seat, i)) => {
                if seat != req.player || i >= req.count {
                    return Err(format!(
                        "the log does not fit this game: its answer {} is option {} for P{}, but the game asks {} `{}` ({} options)",
                        self.table.borrow().answers + 1,
                        i + 1,
                        seat + 1,
                        req.player_name,
                        req.prompt,
                        req.count
                    ));
                }
                self.inner.replayed(req, label, i);
                i
            }
            None => self.inner.decide(req, label)?,
        };
        self.table.borrow_mut().answers += 1;
        Ok(answer)
    }

    fn wants_screen(&self) -> bool {
        // Answers being replayed are given without showing anything.
        let t = self.table.borrow();
        t.replay.get(t.answers).is_none() && self.inner.wants_screen()
    }

    fn wants_notes(&self) -> bool {
        let t = self.table.borrow();
        t.replay.get(t.answers).is_none() && self.inner.wants_notes()
    }

    fn searches(&self) -> bool {
        self.inner.searches()
    }

    fn asks_forced(&self, seat: u32) -> bool {
        self.inner.asks_forced(seat)
    }

    fn search_stats(&self) -> Option<super::mc::SearchStats> {
        self.inner.search_stats()
    }

    fn bot(&self, seat: u32) -> Option<Rc<str>> {
        // Worked out on replayed answers too, so a replay charges the steps the game did.
        self.inner.bot(seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ls: &'static [&'static str]) -> impl Fn(usize) -> String {
        move |i| ls.get(i).map(|s| s.to_string()).unwrap_or_default()
    }

    #[test]
    fn a_number_is_an_amount_when_the_options_are_amounts() {
        let l = labels(&["0", "1", "2", "3"]);
        assert_eq!(match_answer("3", 4, &l), Ok(3));
        assert_eq!(match_answer("#3", 4, &l), Ok(2));
        assert!(match_answer("4", 4, &l).is_err());
        let l = labels(&["4", "5"]);
        assert_eq!(match_answer("4", 2, &l), Ok(0));
        assert_eq!(match_answer("#2", 2, &l), Ok(1));
        assert!(match_answer("#3", 2, &l).unwrap_err().contains("#1 to #2"));
    }

    #[test]
    fn an_options_words_in_order_pick_it_out() {
        let l = labels(&[
            "Ilya Brandt (Law 2) on row 1, Left",
            "Ilya Brandt (Law 2) on row 1, Right",
            "Kala (Street 1) on row 1, Right",
        ]);
        assert_eq!(match_answer("ilya brandt on row 1, right", 3, &l), Ok(1));
        assert_eq!(match_answer("kala right", 3, &l), Ok(2));
        // Words out of order, or words of two options, pick nothing.
        assert!(match_answer("right ilya", 3, &l).is_err());
        assert!(match_answer("row 1 right", 3, &l).is_err());
    }

    #[test]
    fn names_match_without_case_or_spaces() {
        let l = labels(&["Covert operation", "Infiltrate", "Influence"]);
        assert_eq!(match_answer("CovertOperation", 3, &l), Ok(0));
        assert_eq!(match_answer("covert op", 3, &l), Ok(0));
        assert_eq!(match_answer("2", 3, &l), Ok(1));
        assert!(match_answer("inf", 3, &l).unwrap_err().contains("could be"));
        let l = labels(&["a raid at dawn", "Covert operation"]);
        assert_eq!(match_answer("raid", 2, &l), Ok(0));
        assert_eq!(match_answer("operation", 2, &l), Ok(1));
        assert!(match_answer("a", 2, &l).is_ok(), "a beginning first");
        assert!(match_answer("r", 2, &l).unwrap_err().contains("could be"));
    }

    #[test]
    fn long_text_wraps_at_spaces() {
        assert_eq!(wrap("aaaa bbbb cccc", 10), vec!["aaaa bbbb", "cccc"]);
        assert_eq!(wrap("abcdefghijkl", 10), vec!["abcdefghij", "kl"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("    an amount: 0-15", 40), vec!["    an amount: 0-15"]);
    }

    #[test]
    fn amounts_read_as_runs() {
        assert_eq!(number_runs(&[0, 1, 2, 3, 5, 7, 8]), "0-3, 5, 7-8");
    }
}

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
use crate::events::Event;
use crate::view::screen;
pub use crate::view::screen::Page;
use std::cell::RefCell;
use std::io::{BufRead, Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

mod account;
mod words;
use account::{seat_line, Forced, Line};
pub use words::match_answer;
use words::{named_amount, named_entries, question_lines, split_category, Named};

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
    /// Per human seat, the lines shown to them at the keyboard since their last answer: the
    /// screen may have been cleared for the next person before they read them, so they read
    /// them again when they sit down (the catch-up runs from their own last answer).
    recap: Vec<Vec<(usize, String)>>,
    /// The game's goal, told to each person the first time they sit down (the start's banner
    /// is cleared with the screen in hot-seat); `told`: per human seat, whether it was.
    pub goal: Option<String>,
    told: Vec<bool>,
    /// Per human seat, its run of one-option choices not told yet (`account::Forced`).
    held: Vec<Option<Forced>>,
    /// The seat and lines left of the last line of an `allocate` asked at the keyboard, and
    /// the amounts typed ahead for the lines after it ("2 7 0 1").
    chain: Option<(u32, u64)>,
    ahead: Vec<String>,
    /// The lines of that split named in one line (`M B 2, R 1`): each line takes what its
    /// entry gives, 0 where none names it.
    named: Option<Vec<Named>>,
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
    /// With people at the table, the pace of the seats a search or a bot plays (`agent::pace`).
    pub pacing: Option<crate::agent::pace::Pacing>,
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
            recap: vec![Vec::new(); n],
            goal: None,
            told: vec![false; n],
            held: (0..n).map(|_| None).collect(),
            chain: None,
            ahead: Vec::new(),
            named: None,
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
            pacing: None,
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
        for b in self.backlog.iter_mut().chain(&mut self.recap) {
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
        self.held.iter_mut().for_each(|h| *h = None);
        self.chain = None;
        self.ahead.clear();
        self.named = None;
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
        for k in 0..self.humans.len() {
            let Some(&seat) = self.humans.get(k) else {
                continue;
            };
            match seat_line(&ev.for_viewer(seat), seat) {
                None => {}
                Some(Line::Plain(line)) => {
                    self.tell_held(k);
                    self.tell(k, self.answers, line);
                }
                Some(Line::Forced(f)) => {
                    let f = f.at(self.answers);
                    let next = match self.held.get_mut(k).and_then(Option::as_mut) {
                        Some(h) => h.join(f).err(),
                        None => Some(f),
                    };
                    if let Some(next) = next {
                        self.tell_held(k);
                        if let Some(h) = self.held.get_mut(k) {
                            *h = Some(next);
                        }
                    }
                }
            }
        }
    }

    /// A line for the `k`th human seat: shown if they are at the keyboard, else kept.
    fn tell(&mut self, k: usize, at: usize, line: String) {
        if self
            .humans
            .get(k)
            .is_some_and(|s| self.at_keyboard == Some(*s))
        {
            (self.account)(&line);
            if let Some(r) = self.recap.get_mut(k) {
                r.push((at, line));
            }
        } else if let Some(b) = self.backlog.get_mut(k) {
            b.push((at, line));
        }
    }

    /// The `k`th human seat's run of one-option choices, told in one line.
    fn tell_held(&mut self, k: usize) {
        if let Some(h) = self.held.get_mut(k).and_then(Option::take) {
            self.tell(k, h.at, h.line());
        }
    }

    /// Every run of one-option choices told: something else is about to be shown.
    fn tell_all_held(&mut self) {
        for k in 0..self.held.len() {
            self.tell_held(k);
        }
    }

    /// The game is over: the people who have not read its end yet come to the keyboard in
    /// turn to read it.
    pub fn finish(&mut self) {
        self.tell_all_held();
        let waiting: Vec<u32> = self
            .humans
            .iter()
            .zip(self.backlog.iter().zip(&self.recap))
            .filter(|(s, (b, r))| Some(**s) != self.at_keyboard && !(b.is_empty() && r.is_empty()))
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
        self.tell_all_held();
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
        // What followed their last answer while they were still at the keyboard: read again,
        // as the screen was cleared for the next person; then what came since.
        let seen = k
            .and_then(|k| self.recap.get_mut(k))
            .map(std::mem::take)
            .unwrap_or_default();
        let first = k.and_then(|k| self.told.get_mut(k)).is_some_and(|t| {
            let first = !*t;
            *t = true;
            first
        });
        if first {
            if let Some(goal) = &self.goal {
                let _ = write!(err, "\n{goal}");
                let _ = err.flush();
            }
        }
        let n = seat + 1;
        if seen.is_empty() {
            (self.account)(&format!(
                "\n--- P{n} at the keyboard; since their last turn: ---"
            ));
        } else {
            (self.account)(&format!(
                "\n--- P{n} at the keyboard; what followed your last answer: ---"
            ));
            for (_, l) in &seen {
                (self.account)(l);
            }
            (self.account)("--- since you passed the keyboard: ---");
        }
        for (_, l) in &lines {
            (self.account)(l);
        }
        if let Some(r) = k.and_then(|k| self.recap.get_mut(k)) {
            *r = seen.into_iter().chain(lines).collect();
        }
        Ok(())
    }

    /// The amount the split's named lines (`named`) give the line `req` asks for, as typed; at
    /// the split's last line asked, the entries that named none are told.
    fn named_line(&mut self, req: &ChoiceRequest, err: &mut impl Write) -> Option<String> {
        let category = split_category(req)?;
        let entries = self.named.as_mut()?;
        let n = named_amount(entries, category);
        if req.allocation == Some(2) {
            for e in entries.iter().filter(|e| !e.used) {
                let _ = writeln!(
                    err,
                    "`{}` names no line asked (the last line takes what is left)",
                    e.text
                );
            }
        }
        Some(n.to_string())
    }

    /// `seat`'s person answered: the catch-up at their next turn starts here.
    fn answered(&mut self, seat: u32) {
        if let Some(r) = self
            .humans
            .iter()
            .position(|&h| h == seat)
            .and_then(|k| self.recap.get_mut(k))
        {
            r.clear();
        }
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

const HELP: &str = "Type an option's number, its name, the start of it or some of its words in \
order (#3: the third option; where the options are amounts, a number is that amount; y or n \
where the question is yes or no). :full shows everything you may see, \
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
        // The next line of an `allocate` the person is splitting at the keyboard.
        let chained = table.at_keyboard == Some(req.player)
            && req
                .allocation
                .is_some_and(|l| table.chain == Some((req.player, l.saturating_add(1))));
        table.chain = req.allocation.map(|l| (req.player, l));
        if !chained {
            table.ahead.clear();
            table.named = None;
        }
        if table.at_keyboard != Some(req.player) {
            table.sit_down(req.player, "for their turn")?;
        }
        let mut err = crate::term::Escaped::new(std::io::stderr());
        if chained && req.count == 1 {
            // Nothing is left to split: the person saw it go, nobody else is at the keyboard.
            table.answered(req.player);
            return Ok(0);
        }
        if chained && table.named.is_some() {
            let typed = table.named_line(req, &mut err);
            match typed.map(|t| match_answer(&t, req.count, label)) {
                Some(Ok(i)) => {
                    table.answered(req.player);
                    let at = table.answers;
                    table.human_answers.push((req.player, at));
                    return Ok(i);
                }
                Some(Err(e)) => {
                    table.named = None;
                    let _ = writeln!(err, "{e}");
                }
                None => table.named = None,
            }
        }
        if chained && !table.ahead.is_empty() {
            let typed = table.ahead.remove(0);
            match match_answer(&typed, req.count, label) {
                Ok(i) => {
                    table.answered(req.player);
                    let at = table.answers;
                    table.human_answers.push((req.player, at));
                    return Ok(i);
                }
                Err(e) => {
                    table.ahead.clear();
                    let _ = writeln!(err, "{e}");
                }
            }
        }
        table.tell_all_held();
        let page = table.page;
        let (question, ask) = question_lines(req, label, page.cols);
        // The screen, then the question, within one page (the screen once for the lines of a
        // split).
        let hint = usize::from(!table.hinted);
        let room = page.rows.saturating_sub(question.len() + 2 + hint).max(8);
        let view = (req.view)();
        let _ = writeln!(err);
        let shown = match req.screen {
            _ if chained => Vec::new(),
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
            // Several amounts at a line of a split: this line's, then the next lines'.
            let mut amounts = line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|w| !w.is_empty());
            let named = req
                .allocation
                .and_then(|_| split_category(req))
                .and_then(|_| named_entries(&line));
            let first = match req.allocation {
                Some(_) if named.is_some() => {
                    table.named = named;
                    match table.named_line(req, &mut err) {
                        Some(first) => first,
                        None => line.clone(),
                    }
                }
                Some(left) if line.contains(|c: char| c == ',' || c.is_whitespace()) => {
                    let all: Vec<&str> = amounts.by_ref().collect();
                    if all.len() > 1 && all.iter().all(|w| w.parse::<i64>().is_ok()) {
                        // The last category takes what is left: `left - 1` lines are asked.
                        if all.len() as u64 > left.saturating_sub(1) {
                            let _ = writeln!(
                                err,
                                "{} amounts, for {} lines to split here (the last takes what is left)",
                                all.len(),
                                left.saturating_sub(1)
                            );
                            continue;
                        }
                        table.ahead = all.iter().skip(1).map(|w| w.to_string()).collect();
                        all.first().map(|w| w.to_string()).unwrap_or_default()
                    } else {
                        line.clone()
                    }
                }
                _ => line.clone(),
            };
            // The only option is taken with Enter.
            let first = if req.count == 1 && first.trim().is_empty() {
                "#1".to_string()
            } else {
                first
            };
            match match_answer(&first, req.count, label) {
                Ok(i) => {
                    table.answered(req.player);
                    // A forced secret choice's answer is not logged: nothing to take back.
                    if req.count > 1 {
                        let at = table.answers;
                        table.human_answers.push((req.player, at));
                    }
                    return Ok(i);
                }
                Err(e) => {
                    table.ahead.clear();
                    table.named = None;
                    let _ = writeln!(err, "{e} (:help lists what you may type)");
                }
            }
        }
    }
}

/// Wraps a seat's agent: while the table has answers to replay, the next one is given (the
/// agent is told, so a random agent draws as it did); then the agent answers. Every answer is
/// counted on the table. With a pace at the table (`Table::pacing`), a seat a search or a bot
/// plays (`paced`) gives each new answer at its pace, a forced secret choice of its seat too,
/// and every seat's answer restarts the clock.
pub struct ReplayAgent {
    pub inner: Box<dyn Agent>,
    pub table: SharedTable,
    pub paced: bool,
}

impl ReplayAgent {
    /// Whether this seat's answers wait for the table's pace.
    fn paced_now(&self) -> bool {
        self.paced && self.table.borrow().pacing.is_some()
    }

    /// A new answer was given: held to the seat's pace, and the clock restarted.
    fn pace(&self, seat: u32, asked: std::time::Instant) {
        if let Some(p) = self.table.borrow_mut().pacing.as_mut() {
            p.answered(seat, self.paced, asked);
        }
    }
}

impl Agent for ReplayAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let asked = std::time::Instant::now();
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
            // A paced agent's one option is answered at its pace, not worked out.
            let i = if self.paced_now() {
                0
            } else {
                self.inner.decide(req, label)?
            };
            {
                let mut t = self.table.borrow_mut();
                let (now, at) = (t.answers, t.forced_at);
                t.forced.truncate(at);
                t.forced.push(now);
                t.forced_at = at + 1;
            }
            self.pace(req.player, asked);
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
            None => {
                let i = self.inner.decide(req, label)?;
                self.pace(req.player, asked);
                i
            }
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

    /// A person is asked a forced secret choice (so being waited on says nothing), and so is a
    /// paced seat (so answering at once says nothing).
    fn asks_forced(&self, seat: u32) -> bool {
        self.inner.asks_forced(seat) || self.paced_now()
    }

    fn search_stats(&self) -> Option<super::mc::SearchStats> {
        self.inner.search_stats()
    }

    fn bot(&self, seat: u32) -> Option<Rc<str>> {
        // Worked out on replayed answers too, so a replay charges the steps the game did.
        self.inner.bot(seat)
    }

    fn game_playouts(&self, seat: u32) -> bool {
        self.inner.game_playouts(seat)
    }
}

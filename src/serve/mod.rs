//! `rules serve`: one game, each player on their own screen. The game runs on the host's
//! thread as a `Session` (the REPL's model: a position is the seed and the answers, so undo and
//! resume replay them); the web server (`http.rs`) runs on its own thread and shares only the
//! `Hub` (`hub.rs`): each seat's latest message, built from that seat's view (`message.rs`),
//! and the question waiting. A web seat is a person of the session: their question stops the
//! game (`interp::PENDING`), and their answer, checked by the hub and again here, goes on.
//! Agents answer the other seats inside the session, as the REPL's do.
//!
//! The answers are written to the log (a save, `rules repl --load` reads it too) after every
//! change; the tokens beside it (`LOG.tokens`), so `--resume LOG` continues with the same links.
//! Both are readable by the owner only (`files::write_private`). Without `--seed` the seed is
//! secret (`crate::seed`): the pages commit to it at the start and show it at the end; the log
//! keeps it.

pub mod http;
pub mod hub;
pub mod lan;
pub mod message;
pub mod qr;
pub mod slots;
pub mod tokens;

use crate::session::{Mode, SaveFile, Served, Session, Stop, Until};
use hub::{HostCmd, Hub, Question};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

/// What `rules serve` was asked.
pub struct Config {
    pub game: PathBuf,
    pub players: Option<u32>,
    /// `None`: a secret seed, drawn from the system.
    pub seed: Option<u64>,
    pub agent: String,
    pub set: Vec<String>,
    /// `None`: the one a resumed log names, else 8080.
    pub port: Option<u16>,
    /// `None`: the one a resumed log names, else loopback (`--lan`: the unspecified address).
    pub bind: Option<IpAddr>,
    pub log: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    /// Start a new game even where the log holds one (`--new`).
    pub new: bool,
    /// Draw a QR code of each link.
    pub qr: bool,
    /// The pace of a seat a search or a bot plays (`agent::pace`).
    pub pace: std::time::Duration,
    /// The limits (those of `rules serve` are `Limits::max_serve_*` and `serve_*`).
    pub limits: crate::limits::Limits,
}

fn mode_of(spec: &str, prog: &crate::program::Program) -> Result<Mode, String> {
    if let Some(Ok((base, Some(_)))) = crate::agent::search_playouts(spec) {
        return Err(format!(
            "`{spec}`: the searches of `rules serve` play out at random, or with the bot the game's `playouts:` names; use `{base}`, or play it out with another bot in `rules run` and `rules simulate`"
        ));
    }
    if crate::agent::bot_name(spec).is_some() {
        crate::agent::check_bots(&[spec.to_string()], prog)?;
    }
    Mode::parse_in(spec, prog).ok_or_else(|| {
        format!(
            "`{spec}` cannot play a seat of `rules serve`: use human, random, first, mc:N or bot:NAME"
        )
    })
}

/// Run a game server until the host ends it (Ctrl-C, or `quit` at the terminal). `out` gets
/// the links and the host's messages.
pub fn run(cfg: Config, out: &mut dyn Write) -> Result<(), String> {
    let limits = cfg.limits;
    let c = crate::check_path(&cfg.game, &limits);
    let Some(prog) = c.program else {
        return Err(format!(
            "{}{}: the game has errors; nothing was served",
            c.render(),
            cfg.game.display()
        ));
    };
    if prog.phases.is_empty() || prog.game.round_phases.is_empty() {
        return Err(format!(
            "{}: the game has no round phases; nothing to play",
            cfg.game.display()
        ));
    }
    let game_name = prog.game.name.clone();
    let (session, log, tokens, served) = match &cfg.resume {
        Some(path) => {
            let text = crate::files::read_text(path, limits.max_log_bytes)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            let save: SaveFile = serde_json::from_str(&text)
                .map_err(|e| format!("`{}` is not a log of `rules serve`: {e}", path.display()))?;
            if save.game != game_name {
                return Err(format!(
                    "`{}` is a game of `{}`, not of `{game_name}`",
                    path.display(),
                    save.game
                ));
            }
            let tokens = tokens::load(path, save.players)?;
            // A person's forced secret choice is asked as any other (`Session::ask_forced`).
            let (s, misfit) =
                Session::load_asking(prog, &save, limits, true).map_err(|d| d.message.clone())?;
            if let Some(m) = misfit {
                return Err(format!(
                    "`{}` no longer fits the rules: {m}",
                    path.display()
                ));
            }
            // A log that cannot be written again is refused now, not after the first answer.
            write_save(&s, path, save.served)?;
            (s, path.clone(), tokens, save.served)
        }
        None => {
            let n = cfg.players.unwrap_or_else(|| crate::default_players(&prog));
            if n < prog.game.min_players || n > prog.game.max_players {
                return Err(format!(
                    "`{game_name}` is for {} to {} players, not {n}",
                    prog.game.min_players, prog.game.max_players
                ));
            }
            let specs = crate::agent::seat_specs(&cfg.agent, n, "human")?;
            let modes = specs
                .iter()
                .map(|s| mode_of(s, &prog))
                .collect::<Result<Vec<_>, _>>()?;
            let (seed, salt) = match cfg.seed {
                Some(seed) => (seed, None),
                None => {
                    let (seed, salt) = crate::seed::draw()?;
                    (seed, Some(salt))
                }
            };
            let mut s =
                Session::with_secret(prog, n, (seed, salt.clone()), cfg.set.clone(), limits)
                    .map_err(|d| d.message.clone())?;
            s.modes = modes;
            s.ask_forced = true;
            // A secret seed's log is named by the start of its commitment, never by the seed.
            let tag = match &salt {
                Some(salt) => crate::seed::commitment(seed, salt)
                    .get(..12)
                    .unwrap_or("secret")
                    .to_string(),
                None => seed.to_string(),
            };
            let log = cfg.log.clone().unwrap_or_else(|| {
                PathBuf::from(format!(
                    "{}-{tag}.serve.json",
                    cfg.game
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .unwrap_or("game"),
                ))
            });
            if !cfg.new {
                refuse_existing(&log, &cfg.game)?;
            }
            // Written once the server listens (below): a port taken leaves no log behind.
            let tokens = tokens::fresh(n)?;
            (s, log, tokens, None)
        }
    };
    // The seats a search or a bot plays answer at the table's pace (`agent::pace`).
    let mut session = session;
    session.pacing = crate::agent::pace::Pacing::new(session.players as usize, cfg.pace)
        .map(|p| std::rc::Rc::new(std::cell::RefCell::new(p)));
    // A resumed game listens where it did (the same links), unless told otherwise.
    let bind = cfg
        .bind
        .or(served.map(|s| s.bind))
        .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
    let port = cfg.port.or(served.map(|s| s.port)).unwrap_or(8080);
    let addr = SocketAddr::new(bind, port);
    let listener = std::net::TcpListener::bind(addr).map_err(|e| match served {
        Some(_) if cfg.port.is_none() => format!(
            "cannot listen on {addr}, where this game was served: {e} (`--port N` listens \
             elsewhere, and changes the links)"
        ),
        _ => format!("cannot listen on {addr}: {e}"),
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    // The links name an address a phone can open: on every interface, this machine's address
    // on its network.
    let mut notice = None;
    let shown = if bind.is_unspecified() {
        match lan::address(bind) {
            Some(ip) => SocketAddr::new(ip, local.port()),
            None => {
                notice = Some(
                    "this machine has no network address other machines reach (no network?): \
                     the links name 127.0.0.1; once it has one, give it with `--bind ADDRESS`",
                );
                SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), local.port())
            }
        }
    } else {
        local
    };
    let served = Served {
        port: local.port(),
        bind,
    };
    // A log that cannot be written is refused before anyone is served; a new game's tokens go
    // beside it.
    write_save(&session, &log, Some(served))?;
    if cfg.resume.is_none() {
        tokens::store(&log, &tokens)?;
    }
    let (tx, rx) = sync_channel(limits.max_serve_queue);
    let cards = message::card_index(&session.prog);
    let hub = Arc::new(Hub::new(tokens.clone(), Vec::new(), tx, limits));
    // Each run of the server has its own name, sent with every message: a page that sees a
    // new one takes its messages whatever their numbers (they start again from 1).
    let instance = crate::seed::os_hex(8).map_err(|e| format!("cannot start the server: {e}"))?;
    let server_hub = hub.clone();
    std::thread::spawn(move || {
        if let Err(e) = http::serve(listener, server_hub) {
            eprintln!("error: {}", crate::term::escape(&e.to_string()));
        }
    });
    // The host's terminal: lines typed there go to the game's thread in order.
    let term_hub = hub.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        loop {
            line.clear();
            match std::io::BufRead::read_line(&mut stdin.lock(), &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !term_hub.host_line(line.trim().to_string()) {
                        break;
                    }
                }
            }
        }
    });
    let _ = writeln!(out, "serving {game_name} at http://{shown}/");
    if let Some(n) = notice {
        let _ = writeln!(out, "{n}");
    }
    if let Some(salt) = &session.salt {
        let _ = writeln!(
            out,
            "the seed is secret until the game ends; its commitment (SHA-256): {}",
            crate::seed::commitment(session.seed, salt)
        );
    }
    if !bind.is_loopback() {
        let what = if bind.is_unspecified() {
            "every interface".to_string()
        } else {
            bind.to_string()
        };
        let _ = writeln!(
            out,
            "warning: {what} is reachable from other machines: anyone who gets a link plays that seat"
        );
    }
    let resume = resume_command(&cfg.game, &log);
    let mut host = Host {
        session,
        hub,
        cards,
        shown,
        served,
        tokens,
        log,
        resume,
        instance,
        question: 0,
        version: 0,
        undo: Vec::new(),
        qr: cfg.qr,
    };
    // Ctrl-C ends the server saying where the game is and how to go on (the log is written
    // after every change, so nothing is lost).
    stop_message(&host.stop_text());
    if let Some(p) = &host.session.pacing {
        p.borrow_mut().restart();
    }
    if host.session.stop != Stop::Done && host.session.pending.is_none() {
        host.session
            .advance(Until::Choice, crate::session::Auto::Off);
    }
    // The log holds the position before anyone sees it (agents may have answered on the way),
    // so the game loop begins with nothing to write.
    if let Err(e) = host.write_log() {
        let _ = writeln!(out, "error: {e}");
    }
    // The first messages are there before anyone has a link.
    host.publish(true);
    host.links(out, None);
    let _ = writeln!(
        out,
        "at this terminal: `P2 random` hands a seat to an agent (random, first, mc:N), `P2 human` back to its person; `quit` ends"
    );
    // Which seats answer at the table's pace.
    if host.session.pacing.is_some() {
        let paced: Vec<(u32, String)> = (0..host.session.modes.len())
            .filter(|&i| matches!(host.session.modes.get(i), Some(Mode::Mc(_) | Mode::Bot(_))))
            .map(|i| (i as u32 + 1, host.session.mode_name(i)))
            .collect();
        if let Some(line) = crate::agent::pace::told(&paced, cfg.pace) {
            let _ = writeln!(out, "{line}");
        }
    }
    host.game_loop(rx, out)
}

struct Host {
    session: Session,
    hub: Arc<Hub>,
    cards: std::collections::BTreeMap<String, u32>,
    /// The address the links name.
    shown: SocketAddr,
    /// Where it listens, kept in the log for `--resume`.
    served: Served,
    tokens: Vec<String>,
    log: PathBuf,
    /// The command that goes on with this game.
    resume: String,
    /// This run's name (`run`), in every message.
    instance: String,
    /// The number of the question waiting: a new one gets the next, and it keeps it as long
    /// as the game has not moved (a vote, a spectator or a seat handed over leaves it), so an
    /// answer to it is never refused for what another seat did meanwhile.
    question: u64,
    /// The number of the messages published (each set gets the next; a page keeps the newest).
    version: u64,
    /// The seats that agreed to take back the last answer.
    undo: Vec<u32>,
    qr: bool,
}

impl Host {
    fn link(&self, i: usize) -> String {
        format!(
            "http://{}/s/{}",
            self.shown,
            self.tokens.get(i).map(String::as_str).unwrap_or("")
        )
    }

    /// What the host is told when the server stops before the game ends.
    fn stop_text(&self) -> String {
        let log = self.log.display().to_string();
        let log = crate::term::escape(&log);
        if self.session.stop == Stop::Done {
            format!("\nthe server stopped; the finished game's log is {log}\n")
        } else {
            format!(
                "\nthe server stopped; the game is saved in {log}. To go on with the same links: {}\n",
                self.resume
            )
        }
    }

    /// Print the human seats' links (or only `only`'s) and the spectators', then their QR
    /// codes side by side (the spectators' where it takes no line more).
    fn links(&self, out: &mut dyn Write, only: Option<u32>) {
        let n = self.session.players;
        let mut codes = Vec::new();
        let mut spare = None;
        for p in 0..n {
            let human = self.session.modes.get(p as usize) == Some(&Mode::Human);
            if !human || only.is_some_and(|o| o != p) {
                continue;
            }
            let link = self.link(p as usize);
            let seat = format!("P{}", u64::from(p) + 1);
            let _ = writeln!(out, "{seat} {link}");
            codes.push((seat, link));
        }
        if only.is_none() {
            let link = self.link(n as usize);
            let _ = writeln!(out, "spectators {link}");
            spare = Some(("spectators".to_string(), link));
        }
        if self.qr {
            let cols = crate::agent::table::terminal_size().map_or(80, |(c, _)| c);
            let _ = write!(out, "{}", qr::grid(&codes, spare, cols));
        }
        let _ = out.flush();
    }

    fn humans(&self) -> Vec<u32> {
        (0..self.session.players)
            .filter(|&p| self.session.modes.get(p as usize) == Some(&Mode::Human))
            .collect()
    }

    /// Every seat's message now, and the question waiting (a new number when `moved`: the game
    /// has moved since the last).
    fn publish(&mut self, moved: bool) {
        if moved {
            self.question = self.question.wrapping_add(1);
        }
        self.version = self.version.wrapping_add(1);
        let version = self.version;
        let s = &self.session;
        let pending = s
            .pending
            .as_ref()
            .filter(|_| s.stop == Stop::Pending && s.error.is_none());
        let question = pending.map(|p| Question {
            id: self.question,
            seat: p.player,
            count: p.options.len(),
            taken: false,
        });
        let back = self.undo_back();
        let extra = message::Extra {
            account_lines: s.limits.max_serve_account_lines,
            question: question.as_ref().map(|q| q.id),
            undo: &self.undo,
            can_undo: matches!(back, Some(Ok(_))),
            undo_refused: back.and_then(Result::err),
            version,
            instance: &self.instance,
            moving: false,
        };
        let messages = self.messages(&extra);
        self.hub.publish(messages, question);
    }

    /// Each seat's message, then the spectators'.
    fn messages(&self, extra: &message::Extra<'_>) -> Vec<Arc<str>> {
        let s = &self.session;
        let mut messages: Vec<Arc<str>> = (0..s.players)
            .map(|p| Arc::from(message::build(s, &self.cards, Some(p), extra)))
            .collect();
        messages.push(Arc::from(message::build(s, &self.cards, None, extra)));
        messages
    }

    /// A person answered and seats that answer at the table's pace play next: every page is
    /// told at once that the game goes on (nobody is asked), rather than showing the answered
    /// question until the next person's. It names nobody: the same message whoever plays next.
    fn publish_moving(&mut self) {
        let s = &self.session;
        let paced = s.pacing.is_some()
            && s.modes
                .iter()
                .any(|m| matches!(m, Mode::Mc(_) | Mode::Bot(_)));
        if !paced {
            return;
        }
        self.version = self.version.wrapping_add(1);
        let extra = message::Extra {
            account_lines: s.limits.max_serve_account_lines,
            question: None,
            undo: &[],
            can_undo: false,
            undo_refused: None,
            version: self.version,
            instance: &self.instance,
            moving: true,
        };
        let messages = self.messages(&extra);
        self.hub.publish(messages, None);
    }

    fn write_log(&self) -> Result<(), String> {
        write_save(&self.session, &self.log, Some(self.served))
    }

    fn game_loop(&mut self, rx: Receiver<HostCmd>, out: &mut dyn Write) -> Result<(), String> {
        let mut ended = false;
        // The position now was written to the log and published when the server started.
        let mut first = true;
        let mut change = Change::Moved;
        loop {
            if !first && matches!(change, Change::Seats | Change::Moved) {
                if let Err(e) = self.write_log() {
                    let _ = writeln!(out, "error: {e}");
                }
            }
            if !first && change != Change::Nothing {
                self.publish(change == Change::Moved);
            }
            first = false;
            if let (Change::Moved, Some(e)) = (change, &self.session.error) {
                let _ = writeln!(out, "error: the game stopped: {}", e.message);
            }
            if self.session.stop == Stop::Done && !ended {
                ended = true;
                stop_message(&self.stop_text());
                let _ = writeln!(
                    out,
                    "the game is over; the pages show the end until you stop the server (Ctrl-C or `quit`)"
                );
                // The host is told where a search outran its pace (the seats were not).
                if let Some(p) = &self.session.pacing {
                    for line in p.borrow().overruns() {
                        let _ = writeln!(out, "note: {line}");
                    }
                }
                if let Some(salt) = &self.session.salt {
                    let (seed, key) =
                        (self.session.seed, crate::seed::key(self.session.seed, salt));
                    let _ = writeln!(
                        out,
                        "the secret seed was {seed}: `printf %s {key} | sha256sum` gives the commitment shown at the start"
                    );
                }
                let _ = out.flush();
            }
            let Ok(cmd) = rx.recv() else {
                let _ = write!(out, "{}", self.stop_text());
                return Ok(());
            };
            change = match cmd {
                HostCmd::Answer {
                    seat,
                    question,
                    index,
                } => {
                    // The hub checked it; checked again against the session itself.
                    let fits = question == self.question
                        && self.session.stop == Stop::Pending
                        && self
                            .session
                            .pending
                            .as_ref()
                            .is_some_and(|p| p.player == seat && index < p.options.len());
                    if !fits {
                        Change::Nothing
                    } else {
                        self.undo.clear();
                        self.publish_moving();
                        if let Err(e) = self.session.choose(index) {
                            let _ = writeln!(out, "error: {e}");
                        }
                        Change::Moved
                    }
                }
                HostCmd::Undo { seat, question } => {
                    // A vote that changes nothing (stale, repeated, or with nothing to take
                    // back, never past something hidden the answer's seat saw since it) does
                    // nothing: no new number, no messages, no log.
                    if question != self.question
                        || self.undo.contains(&seat)
                        || !matches!(self.undo_back(), Some(Ok(_)))
                    {
                        Change::Nothing
                    } else {
                        self.undo.push(seat);
                        let humans = self.humans();
                        if humans.iter().all(|h| self.undo.contains(h)) {
                            self.undo.clear();
                            self.take_back();
                            let _ =
                                writeln!(out, "every person agreed: the last answer is taken back");
                            Change::Moved
                        } else {
                            Change::Votes
                        }
                    }
                }
                HostCmd::Line(line) => match self.host_line(&line, out) {
                    Some(c) => c,
                    None => {
                        let _ = write!(out, "{}", self.stop_text());
                        let _ = out.flush();
                        return Ok(());
                    }
                },
            };
        }
    }

    /// The answer a take-back would take back: `Ok(undo steps)`, or why it may not be (its
    /// seat has seen something hidden since: `interp::hindsight`); `None` when there is none.
    fn undo_back(&self) -> Option<Result<usize, String>> {
        let s = &self.session;
        let (steps, seat, logged) = s.last_answer_back()?;
        let now = s.state.rng.get_word_pos();
        Some(
            match crate::interp::hindsight::seen_since(&s.events, now, seat, logged) {
                None => Ok(steps),
                Some(why) => Err(format!(
                    "P{}'s last answer cannot be taken back: {}",
                    u64::from(seat) + 1,
                    why.why(&format!("P{}", u64::from(seat) + 1))
                )),
            },
        )
    }

    /// Take back the last answer a person gave (and the agents' after it; a forced secret
    /// choice a person was asked after it is asked again).
    fn take_back(&mut self) {
        if let Some(Ok(steps)) = self.undo_back() {
            self.session.undo(steps);
        }
        if self.session.pending.is_none() && self.session.stop != Stop::Done {
            self.session
                .advance(Until::Choice, crate::session::Auto::Off);
        }
    }

    /// A line typed at the host's terminal: what it changed; `None` ends the server.
    fn host_line(&mut self, line: &str, out: &mut dyn Write) -> Option<Change> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut change = Change::Nothing;
        match words.as_slice() {
            [] => {}
            ["quit"] | ["exit"] => return None,
            ["links"] => self.links(out, None),
            [seat, spec] => {
                let n = self.session.players;
                let p = seat
                    .strip_prefix(['P', 'p'])
                    .and_then(|k| k.parse::<u32>().ok())
                    .filter(|k| (1..=n).contains(k))
                    .map(|k| k - 1);
                let (Some(p), Ok(mode)) = (p, mode_of(spec, &self.session.prog)) else {
                    let _ = writeln!(
                        out,
                        "`{line}`: write a seat and who plays it, like `P2 random` or `P2 human` (seats P1 to P{n})"
                    );
                    return Some(Change::Nothing);
                };
                change = Change::Seats;
                if let Some(m) = self.session.modes.get_mut(p as usize) {
                    *m = mode;
                }
                self.undo.retain(|s| *s != p);
                let _ = writeln!(
                    out,
                    "P{} is played by {}",
                    u64::from(p) + 1,
                    self.session.mode_name(p as usize)
                );
                if mode == Mode::Human {
                    self.links(out, Some(p));
                } else if self.session.pending.as_ref().is_some_and(|q| q.player == p) {
                    // The agent answers the question waiting.
                    self.session
                        .advance(Until::Choice, crate::session::Auto::Off);
                    change = Change::Moved;
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "`{line}`: type `P2 random`, `P2 human`, `links` or `quit`"
                );
            }
        }
        let _ = out.flush();
        Some(change)
    }
}

/// What a command from a seat or the host's terminal changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Nothing,
    /// The take-back votes: new messages, the same question, no log.
    Votes,
    /// Who plays a seat: new messages and log, the same question.
    Seats,
    /// The game moved (an answer, a take-back, an agent's turn): a new question.
    Moved,
}

/// Refuse to start a new game over a log that holds one: a stopped game is gone on with by
/// `--resume`, and `--new` starts over (the old answers lost).
fn refuse_existing(log: &Path, game: &Path) -> Result<(), String> {
    // A link or no regular file is refused by the writer itself.
    let Ok(meta) = std::fs::symlink_metadata(log) else {
        return Ok(());
    };
    if !meta.is_file() {
        return Ok(());
    }
    let shown = log.display();
    let save = crate::files::read_text(log, crate::limits::Limits::default().max_log_bytes)
        .ok()
        .and_then(|t| serde_json::from_str::<SaveFile>(&t).ok());
    Err(match save {
        Some(save) if save.stop != Stop::Done => {
            let n = save.choices.len();
            format!(
                "`{shown}` holds a stopped game of {} ({n} answer{}): to go on with it, `{}`; to start over (its answers lost), add `--new`",
                save.game,
                if n == 1 { "" } else { "s" },
                resume_command(game, log)
            )
        }
        Some(save) => format!(
            "`{shown}` holds a finished game of {}: to start a new one, add `--new` (the old log is replaced) or name another with `--log`",
            save.game
        ),
        None => format!(
            "`{shown}` exists and is no log of `rules serve`: name another with `--log`, or add `--new` to write over it"
        ),
    })
}

/// `rules serve GAME --resume LOG`, each path quoted for a shell where it needs it.
fn resume_command(game: &Path, log: &Path) -> String {
    format!(
        "rules serve {} --resume {}",
        crate::term::escape(&shell_word(&game.display().to_string())),
        crate::term::escape(&shell_word(&log.display().to_string()))
    )
}

/// A word a POSIX shell reads back as `w`.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/+=:,@%".contains(&b));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The message Ctrl-C prints before the server ends (set again when it changes).
static STOP_MESSAGE: std::sync::atomic::AtomicPtr<Vec<u8>> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

#[cfg(unix)]
extern "C" {
    fn signal(sig: i32, handler: usize) -> usize;
    fn write(fd: i32, buf: *const u8, count: usize) -> isize;
    fn _exit(code: i32) -> !;
}

#[cfg(unix)]
extern "C" fn on_interrupt(_: i32) {
    let msg = STOP_MESSAGE.load(std::sync::atomic::Ordering::SeqCst);
    // SAFETY: a message once set is never freed (`stop_message` leaks it); `write` and `_exit`
    // are async-signal-safe.
    unsafe {
        if let Some(m) = msg.as_ref() {
            let _ = write(1, m.as_ptr(), m.len());
        }
        _exit(130)
    }
}

/// Set what Ctrl-C prints (the first call installs the handler).
fn stop_message(text: &str) {
    let boxed = Box::into_raw(Box::new(text.as_bytes().to_vec()));
    // The old message is left allocated: the handler may be reading it.
    let old = STOP_MESSAGE.swap(boxed, std::sync::atomic::Ordering::SeqCst);
    #[cfg(unix)]
    if old.is_null() {
        // SAFETY: the handler only reads a message never freed and calls `write` and `_exit`,
        // all async-signal-safe.
        unsafe {
            const SIGINT: i32 = 2;
            signal(SIGINT, on_interrupt as extern "C" fn(i32) as usize);
        }
    }
    let _ = old;
}

/// Write the log: the save, through a private file beside it (`files::write_private`), so a
/// stop never leaves half a log and nobody else can read the seed or the secret answers.
fn write_save(session: &Session, log: &Path, served: Option<Served>) -> Result<(), String> {
    let mut save = session.save(&session.prog.game.name);
    save.served = served;
    let text = serde_json::to_string_pretty(&save).map_err(|e| e.to_string())?;
    crate::files::write_private(log, text.as_bytes())
        .map_err(|e| format!("cannot write the log `{}`: {e}", log.display()))
}

/// Where the tokens of a log are kept.
pub fn tokens_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".tokens");
    PathBuf::from(name)
}

//! What the game's thread and the web server share: each seat's latest message, the question
//! waiting, the tokens, and the way to the game's thread. The game's thread writes; the web
//! server reads, checks answers against the question waiting, and passes on only those that fit.
//!
//! Every seat keeps one message, its whole state, replaced at each change: a page that slept or
//! reloaded gets everything again, and a client that never reads holds no queue.

use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::watch;

/// What the web server passes to the game's thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCmd {
    /// Seat `seat` answers question `question` with option `index` (checked by the hub).
    Answer {
        seat: u32,
        question: u64,
        index: usize,
    },
    /// Seat `seat` asks for, or agrees to, taking back the last answer at question `question`.
    Undo { seat: u32, question: u64 },
    /// A line typed at the host's terminal.
    Line(String),
}

/// The question waiting for a person.
#[derive(Debug, Clone)]
pub struct Question {
    pub id: u64,
    pub seat: u32,
    pub count: usize,
    /// An answer was passed on: a second one is a duplicate.
    pub taken: bool,
}

pub struct Shared {
    /// Each seat's message (JSON), then the spectators'.
    pub messages: Vec<Arc<str>>,
    pub question: Option<Question>,
    /// The seats that agreed to take back the last answer, at question `undo_at`.
    pub undo: Vec<u32>,
    pub undo_at: Option<u64>,
}

pub struct Hub {
    shared: Mutex<Shared>,
    /// One token per seat, then the spectators'.
    tokens: Vec<String>,
    /// Bumped at every new set of messages; each live connection waits on it.
    pub version: watch::Sender<u64>,
    cmd: SyncSender<HostCmd>,
    pub limits: crate::limits::Limits,
    /// The connections open, by whom each is for.
    pub slots: super::slots::Slots,
    /// Each seat's requests.
    pub rates: super::slots::Rates,
}

/// Who a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    Seat(u32),
    Spectator,
}

/// Compares without stopping at the first difference, so the time taken tells nothing of a
/// token.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Hub {
    pub fn new(
        tokens: Vec<String>,
        messages: Vec<Arc<str>>,
        cmd: SyncSender<HostCmd>,
        limits: crate::limits::Limits,
    ) -> Hub {
        Hub {
            shared: Mutex::new(Shared {
                messages,
                question: None,
                undo: Vec::new(),
                undo_at: None,
            }),
            slots: super::slots::Slots::new(super::slots::Caps {
                unknown: limits.max_serve_connections,
                seat: limits.max_serve_seat_connections,
                spectators: limits.max_serve_spectator_connections,
            }),
            rates: super::slots::Rates::new(
                tokens.len().saturating_sub(1),
                limits.serve_requests_per_second,
            ),
            tokens: tokens.iter().map(|t| t.to_ascii_lowercase()).collect(),
            version: watch::channel(0).0,
            cmd,
            limits,
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic elsewhere while holding the lock leaves plain data: go on with it.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whose a token is (hex digits in either case: a QR code holds them in capitals).
    pub fn who(&self, token: &str) -> Option<Who> {
        let last = self.tokens.len().checked_sub(1)?;
        let token = token.to_ascii_lowercase();
        let i = self.tokens.iter().position(|t| same(t, &token))?;
        Some(if i == last {
            Who::Spectator
        } else {
            Who::Seat(i as u32)
        })
    }

    pub fn message(&self, who: Who) -> Arc<str> {
        let s = self.lock();
        let i = match who {
            Who::Seat(p) => p as usize,
            Who::Spectator => s.messages.len().saturating_sub(1),
        };
        s.messages
            .get(i)
            .cloned()
            .unwrap_or_else(|| Arc::from("{}"))
    }

    /// New messages and question, from the game's thread. The same question (its number
    /// kept) stays answered once an answer to it was passed on.
    pub fn publish(&self, messages: Vec<Arc<str>>, mut question: Option<Question>) {
        {
            let mut s = self.lock();
            s.messages = messages;
            if let (Some(new), Some(old)) = (question.as_mut(), s.question.as_ref()) {
                new.taken |= old.taken && old.id == new.id;
            }
            s.question = question;
        }
        self.version.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Check an answer against the question waiting and pass it on: the error says why not.
    pub fn answer(&self, seat: u32, question: u64, index: usize) -> Result<(), (u16, String)> {
        let mut s = self.lock();
        let Some(q) = s.question.as_mut() else {
            return Err((
                409,
                "no question is waiting: the game is not asking anyone".into(),
            ));
        };
        if q.seat != seat {
            return Err((
                409,
                format!(
                    "this question is not yours: the game is waiting for P{}",
                    u64::from(q.seat) + 1
                ),
            ));
        }
        if q.id != question {
            return Err((
                409,
                format!(
                    "question {question} is no longer asked (the question now is {}): reload to see it",
                    q.id
                ),
            ));
        }
        if q.taken {
            return Err((409, "this question was already answered".into()));
        }
        if index >= q.count {
            return Err((
                400,
                format!(
                    "option {} does not exist: choose 1 to {}",
                    index.saturating_add(1),
                    q.count
                ),
            ));
        }
        let cmd = HostCmd::Answer {
            seat,
            question,
            index,
        };
        match self.cmd.try_send(cmd) {
            Ok(()) => {
                q.taken = true;
                Ok(())
            }
            Err(_) => Err((503, "the game is busy: try again".into())),
        }
    }

    /// A seat's consent to take back the last answer.
    pub fn undo(&self, seat: u32, question: u64) -> Result<(), (u16, String)> {
        let s = self.lock();
        let current = s.question.as_ref().map(|q| q.id);
        if current != Some(question) {
            return Err((
                409,
                "the game has moved on since: reload and ask again".into(),
            ));
        }
        drop(s);
        self.cmd
            .try_send(HostCmd::Undo { seat, question })
            .map_err(|_| (503, "the game is busy: try again".to_string()))
    }

    /// A line from the host's terminal (blocks while the game's thread is busy).
    pub fn host_line(&self, line: String) -> bool {
        self.cmd.send(HostCmd::Line(line)).is_ok()
    }
}

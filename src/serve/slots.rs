//! Fairness between seats on the web server: connection slots by whom a connection is for, and
//! request rates by seat.
//!
//! A connection is nobody's until its first request names a token (`Slots::claim`): the
//! connections not yet known (`max_serve_connections`), each seat's
//! (`max_serve_seat_connections`) and the spectators' (`max_serve_spectator_connections`)
//! are counted apart, so neither strangers holding connections open nor a crowd of spectators
//! takes a seat's. Past its count, a new stranger's connection closes the oldest stranger's (an
//! honest client names its token at once; one that trickles is the oldest), a seat's closes
//! that seat's oldest (a phone that slept left it behind), and a spectator's is refused.
//!
//! Each seat's requests draw on a bucket of its own (`serve_requests_per_second`, three
//! seconds' worth at once; the spectators, who share one link, ten times that): past it a
//! request is answered 429 at once, and no other seat waits for it.

use super::hub::Who;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::Instant;

/// Whom a connection's slot is counted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pool {
    /// No request has named a token on it yet.
    Unknown,
    Seat(u32),
    Spectators,
}

impl From<Who> for Pool {
    fn from(w: Who) -> Pool {
        match w {
            Who::Seat(p) => Pool::Seat(p),
            Who::Spectator => Pool::Spectators,
        }
    }
}

/// One open connection, as the slots and the connection itself see it.
pub struct Conn {
    id: u64,
    closed: AtomicBool,
    /// The connection's task, woken when its slot is taken from it.
    waker: Mutex<Option<Waker>>,
}

impl Conn {
    /// Whether the slots closed it: its reads and writes then fail.
    pub fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Remember the task to wake when the connection is closed (then look at `closed` again).
    pub fn park(&self, waker: &Waker) {
        let mut w = self.waker.lock().unwrap_or_else(|e| e.into_inner());
        if !w.as_ref().is_some_and(|old| old.will_wake(waker)) {
            *w = Some(waker.clone());
        }
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let w = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = w {
            w.wake();
        }
    }
}

/// The caps on open connections.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub unknown: usize,
    pub seat: usize,
    pub spectators: usize,
}

pub struct Slots {
    caps: Caps,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    /// The open connections by id (the oldest first) and whom each is counted for.
    open: BTreeMap<u64, (Pool, Arc<Conn>)>,
}

impl Slots {
    pub fn new(caps: Caps) -> Slots {
        Slots {
            caps,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new connection, nobody's yet: past the cap the oldest such is closed.
    pub fn open(&self) -> Arc<Conn> {
        let mut s = self.lock();
        s.make_room(Pool::Unknown, self.caps.unknown.max(1), None);
        let id = s.next;
        s.next = s.next.wrapping_add(1);
        let conn = Arc::new(Conn {
            id,
            closed: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        s.open.insert(id, (Pool::Unknown, conn.clone()));
        conn
    }

    /// Count `conn` as `who`'s, its first request having named that token: `false` when the
    /// spectators' connections are all taken (a seat's oldest other connection makes room).
    pub fn claim(&self, conn: &Conn, who: Who) -> bool {
        let pool = Pool::from(who);
        let mut s = self.lock();
        match s.open.get(&conn.id) {
            Some((p, _)) if *p == pool => return true,
            Some(_) => {}
            // Closed meanwhile.
            None => return false,
        }
        let cap = match pool {
            Pool::Seat(_) => self.caps.seat.max(1),
            Pool::Spectators => self.caps.spectators.max(1),
            Pool::Unknown => return true,
        };
        if pool == Pool::Spectators && s.count(pool) >= cap {
            return false;
        }
        s.make_room(pool, cap, Some(conn.id));
        if let Some(entry) = s.open.get_mut(&conn.id) {
            entry.0 = pool;
        }
        true
    }

    /// The connection ended.
    pub fn release(&self, conn: &Conn) {
        self.lock().open.remove(&conn.id);
    }
}

impl Inner {
    fn count(&self, pool: Pool) -> usize {
        self.open.values().filter(|(p, _)| *p == pool).count()
    }

    /// Close the oldest connections of `pool` (never `keep`) until one more fits under `cap`.
    fn make_room(&mut self, pool: Pool, cap: usize, keep: Option<u64>) {
        while self.count(pool) >= cap {
            let oldest = self
                .open
                .iter()
                .find(|(id, (p, _))| *p == pool && Some(**id) != keep)
                .map(|(id, _)| *id);
            let Some(id) = oldest else { return };
            if let Some((_, c)) = self.open.remove(&id) {
                c.close();
            }
        }
    }
}

/// Request rates: a token bucket per seat, and one for the spectators.
pub struct Rates {
    per_second: f64,
    buckets: Mutex<Vec<(f64, Instant)>>,
}

/// How many seconds' worth of requests a bucket holds.
const BURST_SECONDS: f64 = 3.0;
/// The spectators share one link: their bucket is this many seats'.
const SPECTATORS: f64 = 10.0;

impl Rates {
    /// `seats` buckets and the spectators', full.
    pub fn new(seats: usize, per_second: u32) -> Rates {
        let per_second = f64::from(per_second.max(1));
        let now = Instant::now();
        let mut buckets = vec![(per_second * BURST_SECONDS, now); seats];
        buckets.push((per_second * BURST_SECONDS * SPECTATORS, now));
        Rates {
            per_second,
            buckets: Mutex::new(buckets),
        }
    }

    /// Whether `who` may make a request now (it is counted if so).
    pub fn allow(&self, who: Who) -> bool {
        let mut b = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let last = b.len().saturating_sub(1);
        let (i, scale) = match who {
            Who::Seat(p) => ((p as usize).min(last), 1.0),
            Who::Spectator => (last, SPECTATORS),
        };
        let Some((tokens, at)) = b.get_mut(i) else {
            return false;
        };
        let now = Instant::now();
        let rate = self.per_second * scale;
        let full = rate * BURST_SECONDS;
        *tokens = (*tokens + now.saturating_duration_since(*at).as_secs_f64() * rate).min(full);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

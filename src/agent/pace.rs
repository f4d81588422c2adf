//! The table's pace: with people at the table (`rules run` with a human seat or an account read
//! through one seat's eyes, `--viewer P2`; `rules serve`; the REPL while it shows one seat), a
//! seat played by a search (`mc`, `ismcts`) or by a game's bot gives each answer a fixed time
//! after the answer before it (`--pace`, half a second unless told), so how long it thought
//! says nothing of what its seat holds. The table is told which seats it paces (`told`).
//!
//! Without it, the time a search takes is a channel: its playouts start from its own hidden
//! cards, so a hand that ends the game sooner is answered sooner, and a person at the table can
//! time it. The time is counted from the previous answer at the table (whoever gave it), so the
//! rules worked out in between are inside the window too; a forced secret choice of the seat is
//! asked and paced like any other (`Agent::asks_forced`), so a seat with one option is not
//! answered at once. Random, first and script seats answer at once, as they always did: what
//! they do takes no time that depends on the game.
//!
//! An answer that took longer than the pace is given when it is ready, and that seat's pace
//! doubles (until it covers that time) from then on. Each such overrun may say something (that
//! one search took long), so the host is told how many there were and the pace that would have
//! covered them (`Pacing::overruns`).

use std::time::{Duration, Instant};

/// The pace when none is given: half a second.
pub const DEFAULT_MS: u64 = 500;

/// The longest pace accepted (ten minutes).
pub const MAX_MS: u64 = 600_000;

/// Read a pace: `500ms`, `2s`, `1.5s`, or `0` (no pace).
pub fn parse(s: &str) -> Result<Duration, String> {
    let bad = || format!("`{s}` is not a pace: write it like 500ms, 2s or 1.5s (0 for none)");
    let t = s.trim();
    if t == "0" {
        return Ok(Duration::ZERO);
    }
    let ms: f64 = if let Some(n) = t.strip_suffix("ms") {
        n.trim().parse().map_err(|_| bad())?
    } else if let Some(n) = t.strip_suffix('s') {
        let secs: f64 = n.trim().parse().map_err(|_| bad())?;
        secs * 1000.0
    } else {
        return Err(bad());
    };
    if !ms.is_finite() || ms < 0.0 {
        return Err(bad());
    }
    if ms > MAX_MS as f64 {
        return Err(format!("`{s}`: a pace is at most {} s", MAX_MS / 1000));
    }
    Ok(Duration::from_micros((ms * 1000.0).round() as u64))
}

/// Whether an agent spec is paced at a table: a search or a bot.
pub fn is_paced(spec: &str) -> bool {
    spec.starts_with("mc") || spec.starts_with("ismcts") || spec.starts_with("bot:")
}

/// The line that tells the table which seats answer at its pace (`seats`: each paced seat's
/// number from 1 and who plays it), or nothing when none does.
pub fn told(seats: &[(u32, String)], every: Duration) -> Option<String> {
    if seats.is_empty() || every.is_zero() {
        return None;
    }
    let names: Vec<String> = seats
        .iter()
        .map(|(n, who)| format!("P{n} ({who})"))
        .collect();
    let one = names.len() == 1;
    Some(format!(
        "{} {} at the table's pace, {} ms (--pace), so how long {} tells nothing.",
        names.join(", "),
        if one { "answers" } else { "answer" },
        every.as_millis(),
        if one { "it thinks" } else { "they think" }
    ))
}

/// One seat's pace now, and its answers that came later than that.
#[derive(Debug, Clone)]
struct Seat {
    every: Duration,
    overran: u32,
    longest: Duration,
}

/// The pace of a table: each seat's, and when the last answer was given. Which seats are paced
/// is the caller's to say at each answer (a served game hands a seat to another agent as it
/// goes).
#[derive(Debug, Clone)]
pub struct Pacing {
    seats: Vec<Seat>,
    last: Option<Instant>,
}

impl Pacing {
    /// The pace of a table of `players` (none when `every` is zero).
    pub fn new(players: usize, every: Duration) -> Option<Pacing> {
        if every.is_zero() {
            return None;
        }
        let seat = Seat {
            every,
            overran: 0,
            longest: Duration::ZERO,
        };
        Some(Pacing {
            seats: vec![seat; players],
            last: None,
        })
    }

    /// The clock starts (again): the next answer's window opens now (a game started or
    /// resumed, a person's answer received by a served game).
    pub fn restart(&mut self) {
        self.last = Some(Instant::now());
    }

    /// An answer of `seat` was given. A paced seat's is held until its pace has passed since the
    /// answer before it (or, when none came before in this run, since it was asked: `asked`).
    pub fn answered(&mut self, seat: u32, paced: bool, asked: Instant) {
        let from = self.last.unwrap_or(asked);
        if let Some(s) = self.seats.get_mut(seat as usize).filter(|_| paced) {
            let took = from.elapsed();
            match s.every.checked_sub(took) {
                Some(left) => std::thread::sleep(left),
                None => {
                    s.overran = s.overran.saturating_add(1);
                    s.longest = s.longest.max(took);
                    while s.every < took && s.every.as_millis() < u128::from(MAX_MS) {
                        s.every = s.every.saturating_mul(2);
                    }
                }
            }
        }
        self.last = Some(Instant::now());
    }

    /// For the host: each seat whose answers outran its pace, as a line.
    pub fn overruns(&self) -> Vec<String> {
        (1u32..)
            .zip(&self.seats)
            .filter(|(_, s)| s.overran > 0)
            .map(|(n, s)| {
                format!(
                    "P{n} thought longer than its pace at {} of its answers (the longest {:.1} s): how long those took may tell the table something of its cards; give `--pace {:.1}s` or more",
                    s.overran,
                    s.longest.as_secs_f64(),
                    (s.longest.as_secs_f64() * 1.5).max(0.1)
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paces_read_as_written() {
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
        for bad in ["", "fast", "-1s", "1", "nans", "infs", "1e9s"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_answer_is_held_until_its_pace_has_passed() {
        let mut p = Pacing::new(2, Duration::from_millis(30))
            .unwrap_or_else(|| panic!("a pace gives a pacing"));
        let start = Instant::now();
        p.restart();
        p.answered(1, true, start);
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(p.overruns().is_empty());
    }

    #[test]
    fn an_answer_later_than_its_pace_doubles_it_and_is_reported() {
        let mut p = Pacing::new(1, Duration::from_millis(5))
            .unwrap_or_else(|| panic!("a pace gives a pacing"));
        p.restart();
        std::thread::sleep(Duration::from_millis(12));
        p.answered(0, true, Instant::now());
        let lines = p.overruns();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("P1 thought longer than its pace at 1 of its answers"));
        // 5, 10, 20 ms: the first that covers the 12 it took.
        let every = p.seats.first().map(|s| s.every);
        assert_eq!(every, Some(Duration::from_millis(20)));
    }

    #[test]
    fn the_table_is_told_which_seats_answer_at_its_pace() {
        let one = [(2, "mc:50".to_string())];
        let two = [(2, "mc:50".to_string()), (3, "bot:Steward".to_string())];
        let ms = Duration::from_millis(500);
        assert_eq!(
            told(&one, ms).as_deref(),
            Some("P2 (mc:50) answers at the table's pace, 500 ms (--pace), so how long it thinks tells nothing.")
        );
        assert_eq!(
            told(&two, ms).as_deref(),
            Some("P2 (mc:50), P3 (bot:Steward) answer at the table's pace, 500 ms (--pace), so how long they think tells nothing.")
        );
        assert_eq!(told(&[], ms), None);
        assert_eq!(told(&one, Duration::ZERO), None);
    }

    #[test]
    fn an_unpaced_seat_is_never_held_or_reported() {
        let mut p = Pacing::new(1, Duration::from_millis(5))
            .unwrap_or_else(|| panic!("a pace gives a pacing"));
        p.restart();
        std::thread::sleep(Duration::from_millis(12));
        p.answered(0, false, Instant::now());
        assert!(p.overruns().is_empty());
        assert!(Pacing::new(1, Duration::ZERO).is_none());
    }
}

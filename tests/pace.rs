//! The table's pace (`agent::pace`): with a person at the table, a seat a search or a bot plays
//! gives each answer a fixed time after the answer before it, so how long it thought tells
//! nobody what it holds. In `tests/pace/short_or_long.rules` a search playing P2 thinks about a
//! third less with the Short card than with the Long one (its playouts end sooner): without a
//! pace, P1 can read P2's hidden card off the clock.
//!
//! Each check here is a lower bound (a sleep lasts at least its time), never an upper one: the
//! answers of a paced seat come one pace after another, so a game of N of them takes at least
//! N paces.

mod common;

use common::{rules, typed};
use rules::limits::Limits;
use rules::session::{Auto, Mode, Session, Until};
use std::path::Path;
use std::time::{Duration, Instant};

const SHORT_OR_LONG: &str = "tests/pace/short_or_long.rules";
const FORCED: &str = "tests/pace/forced.rules";

/// The JSON events of a game's stream that are choices of `player`.
fn choices_of(stream: &str, player: &str) -> usize {
    stream
        .lines()
        .filter(|l| {
            l.contains("\"event\":\"choice\"") && l.contains(&format!("\"player\":\"{player}\""))
        })
        .count()
}

/// A game played with `input` typed: how long it took, its output and its errors (it must end
/// well).
fn timed(args: &[&str], input: &str) -> (Duration, String, String) {
    let start = Instant::now();
    let (code, out, err) = typed(args, input);
    let took = start.elapsed();
    assert_eq!(code, 0, "{err}");
    (took, out, err)
}

#[test]
fn a_search_facing_a_person_answers_at_its_pace() {
    let pace = Duration::from_millis(200);
    let (took, out, _) = timed(
        &[
            "run",
            SHORT_OR_LONG,
            "--seed",
            "3",
            "--json",
            "--agent",
            "P1=human,P2=mc:100",
            "--pace",
            "200ms",
        ],
        &"1\n".repeat(8),
    );
    let n = choices_of(&out, "P2");
    assert!(n >= 2, "P2 answered {n} times:\n{out}");
    // Every answer of P2 came a pace after P1's before it.
    assert!(
        took >= pace * n as u32,
        "{n} paced answers in {took:?}, less than {:?}",
        pace * n as u32
    );
}

#[test]
fn a_forced_secret_choice_of_a_paced_seat_takes_its_pace_too() {
    // Every round: P1 picks, P2 picks a token in secret from its one, then picks a number. Six
    // answers of P2's, each a pace after the one before: unpaced, the secret one would be given
    // at once, telling the table that P2 had no choice.
    let pace = Duration::from_millis(200);
    let (took, out, _) = timed(
        &[
            "run",
            FORCED,
            "--seed",
            "1",
            "--json",
            "--agent",
            "P1=human,P2=mc:20",
            "--pace",
            "200ms",
        ],
        &"1\n".repeat(3),
    );
    assert_eq!(choices_of(&out, "P2"), 6, "{out}");
    assert!(took >= pace * 6, "six paced answers in {took:?}");
}

#[test]
fn the_host_is_told_when_a_search_outran_its_pace() {
    let (code, _, err) = typed(
        &[
            "run",
            SHORT_OR_LONG,
            "--seed",
            "3",
            "--agent",
            "P1=human,P2=mc:300",
            "--pace",
            "1ms",
        ],
        &"1\n".repeat(8),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: P2 thought longer than its pace at "),
        "{err}"
    );
    assert!(err.contains("give `--pace"), "{err}");
}

#[test]
fn an_account_through_one_seats_eyes_is_paced_too() {
    // Agents alone, watched through P1's eyes (`--viewer P1`): P2's search is paced as if P1
    // sat at the table, so the watcher is told when it outran its pace.
    let (code, _, err) = rules(&[
        "run",
        SHORT_OR_LONG,
        "--seed",
        "3",
        "--agent",
        "P1=first,P2=mc:300",
        "--viewer",
        "P1",
        "--pace",
        "1ms",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: P2 thought longer than its pace"),
        "{err}"
    );
}

#[test]
fn without_a_person_at_the_table_nothing_is_paced() {
    // Agents alone (a simulation at the terminal), their account read whole: as fast as they
    // can.
    let (code, _, err) = rules(&[
        "run",
        SHORT_OR_LONG,
        "--seed",
        "3",
        "--agent",
        "P1=first,P2=mc:300",
        "--pace",
        "1ms",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("thought longer"), "{err}");
}

#[test]
fn a_pace_that_is_no_time_is_refused_in_words() {
    let (code, _, err) = rules(&["run", SHORT_OR_LONG, "--pace", "fast"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`fast` is not a pace: write it like 500ms, 2s or 1.5s"),
        "{err}"
    );
}

/// `rules serve`'s model: the session paces its search seat after each answer of the person;
/// the forced secret answer it paced is not kept, so a take-back and a redo replay the game
/// to the same question.
#[test]
fn a_served_search_answers_at_its_pace_and_a_take_back_replays_the_same_game() {
    let c = rules::check_path(Path::new(FORCED), &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let mut s = Session::new(prog, 2, 1, Limits::default()).expect("session");
    s.modes = vec![Mode::Human, Mode::Mc(20)];
    s.ask_forced = true;
    let pace = Duration::from_millis(200);
    s.pacing = rules::agent::pace::Pacing::new(2, pace)
        .map(|p| std::rc::Rc::new(std::cell::RefCell::new(p)));
    s.advance(Until::Choice, Auto::Off);
    assert_eq!(s.pending.as_ref().map(|p| p.player), Some(0));
    let start = Instant::now();
    s.choose(0).expect("P1 answers");
    // P2's secret token and its number, each at its pace, then P1 again.
    assert!(start.elapsed() >= pace * 2, "{:?}", start.elapsed());
    assert_eq!(s.pending.as_ref().map(|p| p.player), Some(0));
    // The forced secret answer is not among the game's answers: P1's, then P2's number.
    assert_eq!(s.answers().len(), 2, "{:?}", s.answers());
    let before = format!("{:?}", s.pending);
    assert_eq!(s.undo(1), 1);
    assert!(s.redo());
    assert_eq!(format!("{:?}", s.pending), before);
}

#[test]
fn the_repl_paces_its_agents_while_it_shows_one_seats_view() {
    // With one person and an agent, the REPL shows P1's view, and P2's six answers (three of
    // them forced and secret) come a pace apart.
    let pace = Duration::from_millis(200);
    let args = [
        "repl",
        FORCED,
        "--agent",
        "P1=human,P2=mc:20",
        "--pace",
        "200ms",
    ];
    let (took, out, _) = timed(&args, ":step\n1\n1\n1\n");
    assert!(out.contains("Winner: P2"), "{out}");
    assert!(
        out.contains("P2 (mc:20) answers at the table's pace, 200 ms (--pace)"),
        "the person is told: {out}"
    );
    assert!(took >= pace * 6, "six paced answers in {took:?}");
}

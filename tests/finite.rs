//! A call of a function of one enum or `bool` argument that reads nothing else is worked out
//! once per value of its argument and then given again (`src/interp/compile/finite.rs`). It
//! must do what running the body does: the same values, the same steps, the same errors, each
//! time. Each test compares a game with such a function against the same game whose function
//! reads a var (which runs its body at every call).

mod common;

use common::{labelled, play_quietly as run};
use rules::limits::Limits;

const GAME: &str =
    "game \"g\" { players: 2, rounds: 3, round: [p] }\nenum Side { Left, Right, Up }\n";

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("finite.rules", text)
}

/// A function of `s: Side` whose body is `body` (statements), kept per value, and the same
/// reading a var first (`let z = zero`: one step more, and not kept), called from `phase`.
fn pair(
    body: &str,
    phase: &str,
) -> (
    &'static rules::program::Program,
    &'static rules::program::Program,
) {
    let vars = "var out: list = []\nvar n: int = 0\nvar zero: int = 0\n";
    let kept = program(&format!(
        "{GAME}{vars}fn f(s: Side) -> int {{\n{body}\n}}\nphase p {{\n{phase}\n}}\n"
    ));
    let run_each_time = program(&format!(
        "{GAME}{vars}fn f(s: Side) -> int {{\n  let z = zero\n{body}\n}}\nphase p {{\n{phase}\n}}\n"
    ));
    (kept, run_each_time)
}

#[test]
fn kept_values_and_steps_are_those_of_running_the_body() {
    let body = "  let k = if s == Left { 3 } else { 5 }\n  match s { Up => k * 2, _ => k + 1 }";
    let phase = "  for i in 1..4 {\n    \
                 let s = if i % 3 == 0 { Up } else if i % 2 == 0 { Right } else { Left }\n    \
                 set n = n * 7 + f(s) + f(Left) + f(s)\n  }";
    let (kept, each) = pair(body, phase);
    let (a, ra) = run(kept, Limits::default());
    let (b, rb) = run(each, Limits::default());
    ra.expect("kept runs");
    rb.expect("run each time runs");
    assert_eq!(a.state.vars, b.state.vars);
    // The second function has one more statement, `let z = zero`: a step more per call, three
    // calls an iteration, four iterations a round, three rounds.
    let calls = 3 * 4 * 3;
    assert_eq!(a.state.steps() + calls, b.state.steps());
    // Each round, four times n * 7 + f(s) + f(Left) + f(s), s Left (f gives 4), Right (6), Up
    // (10), Right (6).
    let mut n = 0i64;
    for _ in 0..3 {
        for f in [4, 6, 10, 6] {
            n = n * 7 + f + 4 + f;
        }
    }
    let shown = format!("{:?}", a.state.vars);
    assert!(shown.contains(&format!("Int({n})")), "{shown}");
}

/// An error is never kept: every call with that value fails where the body fails.
#[test]
fn an_error_is_given_at_every_call() {
    let body = "  10 / (if s == Up { 0 } else { 1 })";
    let phase = "  set n = f(Left) + f(Right)\n  set n = f(Up)";
    let (kept, _) = pair(body, phase);
    let (_, r) = run(kept, Limits::default());
    let e = r.expect_err("division by zero");
    assert_eq!(e.code, "run::div_zero", "{e:?}");
    let text = format!(
        "{GAME}var out: list = []\nvar n: int = 0\nvar zero: int = 0\n\
         fn f(s: Side) -> int {{\n{body}\n}}\nphase p {{\n{phase}\n}}\n"
    );
    let at = labelled(&text, &e);
    assert!(at.contains("if s == Up"), "{at}");
    // The same error in the next game of the same program, whose compiled calls (and what
    // they keep) it shares, and after `f(Left)` and `f(Right)` were kept.
    let (_, again) = run(kept, Limits::default());
    let again = again.expect_err("division by zero again");
    assert_eq!((again.code, labelled(&text, &again)), (e.code, at));
}

/// With every budget, a game of kept calls stops where the same game running each call
/// stops, or at the call whose body it would have stopped in.
#[test]
fn a_budget_runs_out_at_the_call_or_before() {
    let body = "  let a = if s == Left { 1 } else { 2 }\n  let b = a + 1\n  a * b";
    let phase = "  for i in 1..3 { set n += f(Left) + f(Right) }";
    let (kept, _) = pair(body, phase);
    runs_out_below_its_steps(kept);
}

/// `prog` runs out of steps under every budget below the steps it takes, and runs with exactly
/// those.
fn runs_out_below_its_steps(prog: &'static rules::program::Program) {
    let (full, r) = run(prog, Limits::default());
    r.expect("runs");
    let needed = full.state.steps();
    for max_steps in 0..needed {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (_, r) = run(prog, limits);
        let e = r.expect_err("out of steps");
        assert_eq!(e.code, "limit::steps", "at {max_steps}: {e:?}");
    }
    let limits = Limits {
        max_steps: needed,
        ..Limits::default()
    };
    run(prog, limits).1.expect("enough steps");
}

/// A kept call as a zone's or a var's key (`z[row, other(s)]`): the same slots, values and
/// steps as the call run each time.
#[test]
fn a_kept_call_as_a_key_reads_the_same_slot() {
    let keyed = "var v: int per Side = 0\nvar w: int per 1..3, Side = 0\n\
                 fn other(s: Side) -> Side {\n  let k = if s == Left { Right } else { Left }\n  k\n}\n\
                 fn other_each(s: Side) -> Side {\n  let z = zero\n  if s == Left { Right } else { Left }\n}\n";
    let phase = |f: &str| {
        format!(
            "  for i in 1..4 {{\n    \
             let s = if i % 3 == 0 {{ Up }} else if i % 2 == 0 {{ Right }} else {{ Left }}\n    \
             set v[{f}(s)] += i\n    set w[2, {f}(s)] += v[{f}(s)] * 10 + i\n    \
             let r = i % 3 + 1\n    set w[r, {f}(s)] += r\n    \
             set n = n * 3 + w[2, {f}(Left)] + w[i % 3 + 1, {f}(s)] + w[r, {f}(s)]\n  }}"
        )
    };
    let text = |f: &str| {
        format!(
            "{GAME}var out: list = []\nvar n: int = 0\nvar zero: int = 0\n{keyed}phase p {{\n{}\n}}\n",
            phase(f)
        )
    };
    let (a, ra) = run(program(&text("other")), Limits::default());
    let (b, rb) = run(program(&text("other_each")), Limits::default());
    ra.expect("kept runs");
    rb.expect("run each time runs");
    assert_eq!(a.state.vars, b.state.vars);
    // `other` has one statement more than `other_each` has reads: `let k`, then `k`, against
    // `let z` and the `if` (the same count); so the steps are equal.
    assert_eq!(a.state.steps(), b.state.steps());
    assert!(a.state.steps() > 0);
}

/// A kept call whose value its key's domain refuses fails at every use, as the call run each
/// time does, with the same error at the same place.
#[test]
fn a_key_out_of_its_domain_fails_at_every_use() {
    let text = |f: &str| {
        format!(
            "{GAME}var n: int = 0\nvar zero: int = 0\nvar v: int per 1..2 = 0\n\
             fn row(s: Side) -> int = if s == Up {{ 3 }} else {{ 1 }}\n\
             fn row_each(s: Side) -> int {{\n  let z = zero\n  if s == Up {{ 3 }} else {{ 1 }}\n}}\n\
             phase p {{\n  let a = Left\n  let b = Up\n  set v[{f}(a)] += 1\n  set v[{f}(a)] += 1\n  \
             set n = v[{f}(b)]\n}}\n"
        )
    };
    let kept_text = text("row");
    let each_text = text("row_each");
    let (_, ra) = run(program(&kept_text), Limits::default());
    let (_, rb) = run(program(&each_text), Limits::default());
    let (ea, eb) = (
        ra.expect_err("key out of range"),
        rb.expect_err("key out of range"),
    );
    assert_eq!(ea.code, eb.code, "{ea:?}");
    assert_eq!(ea.message, eb.message);
    let at = labelled(&kept_text, &ea);
    assert!(at.contains("row(b)"), "{at}");
    // And again in the next game of the same program, after the call was kept for `Left`.
    let (_, again) = run(program(&kept_text), Limits::default());
    let again = again.expect_err("key out of range again");
    assert_eq!(labelled(&kept_text, &again), at);
}

/// With every budget, a game whose keys are kept calls stops for want of steps below the steps
/// it takes, and runs with exactly those.
#[test]
fn a_budget_runs_out_at_a_kept_key_or_before() {
    let text = format!(
        "{GAME}var n: int = 0\nvar v: int per Side = 0\n\
         var w: int per 1..3, Side = 0\n\
         fn other(s: Side) -> Side {{\n  let k = if s == Left {{ Right }} else {{ Left }}\n  k\n}}\n\
         phase p {{\n  for i in 1..3 {{\n    let s = if i == 2 {{ Right }} else {{ Left }}\n    \
         set v[other(s)] += i\n    set n += v[other(s)]\n    set w[i, other(s)] += n\n    \
         set n += w[i, other(s)]\n  }}\n}}\n"
    );
    runs_out_below_its_steps(program(&text));
}

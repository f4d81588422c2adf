//! A filter's condition that is an inlined call starting with `let x = e`, where `e` reads
//! nothing the loop's elements change, works `e` out for the first element only and gives the
//! others the value kept, with the steps it took (`src/interp/compile/invariant.rs`). It must do
//! what working it out every time does: the same values and the same steps, a budget running
//! out after the same number of steps; only a stop inside the kept `let` for a later element
//! is reported at the `let`.

mod common;

use common::{labelled, play_quietly as run};
use rules::limits::Limits;

/// Two rows of cards; `ok(row, side)` starts with the invariant `let t = first_of(row)`. The
/// condition is written as `COND`.
const TEXT: &str = r#"game "g" { players: 2, rounds: 1, round: [p] }
enum Side { Left, Right, Middle }
kind Token { value: int }
cards Token (value) {
  a: 3
  b: 1
}
zone pile: Token per 1..3 public
var out: list = []

setup {
  move @a to pile[1]
  move @b to pile[2]
}

fn first_of(row: int) -> Token = top(pile[row])

fn ok(row: int, side: Side) -> bool {
  let t = first_of(row)
  if t == none { return side != Middle }
  t.value > 2 or side == Left
}

phase p {
  set out = flatten(map(row in 1..3 => map(side in filter(side in Side where COND) => (row, side))))
}
"#;

fn program(cond: &str) -> (String, &'static rules::program::Program) {
    let text = TEXT.replace("COND", cond);
    let prog = common::checked("invariant.rules", &text);
    (text, prog)
}

/// `ok(row, side)` keeps its first `let`; `ok(row + 0, side)` has an argument to copy, so it
/// works the `let` out every time. The same options, the same steps.
#[test]
fn a_kept_let_gives_the_values_and_steps_of_working_it_out() {
    let (_, kept) = program("ok(row, side)");
    let (_, each) = program("ok(row + 0, side)");
    let a = common::plays_alike(kept, each);
    // Row 1 (value 3): every side; row 2 (value 1): Left only; row 3 (empty): all but Middle.
    let shown = format!("{:?}", a.state.vars.first());
    let tuples = common::tuples_in(a.state.vars.first());
    assert_eq!(tuples, Some(3 + 1 + 2), "{shown}");
}

/// With every budget, both stop after the same steps with the same kind of error, or both
/// finish. Where the one that works the `let` out every time stops at the call inside it for a
/// later element, the one that keeps it stops at the `let` (its kept steps are charged there):
/// the only difference, and the sign that the value was kept.
#[test]
fn a_budget_runs_out_after_the_same_steps() {
    let (text_kept, kept) = program("ok(row, side)");
    let (text_each, each) = program("ok(row + 0, side)");
    let (full, r) = run(kept, Limits::default());
    r.expect("runs");
    let needed = full.state.steps();
    let mut moved = 0;
    for max_steps in 0..=needed {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (a, ra) = run(kept, limits);
        let (b, rb) = run(each, limits);
        assert_eq!(a.state.steps(), b.state.steps(), "budget {max_steps}");
        match (ra, rb) {
            (Ok(()), Ok(())) => assert_eq!(max_steps, needed),
            (Err(x), Err(y)) => {
                assert_eq!(x.code, y.code, "budget {max_steps}");
                // The same text but for the condition, written the same here.
                let at_kept = labelled(&text_kept, &x);
                let at_each = labelled(&text_each, &y).replace("row + 0", "row");
                if at_kept != at_each {
                    assert_eq!(at_kept, "let t = first_of(row)", "budget {max_steps}");
                    assert_eq!(at_each, "first_of(row)", "budget {max_steps}");
                    moved += 1;
                }
            }
            (ra, rb) => panic!("budget {max_steps}: {:?} against {:?}", ra.err(), rb.err()),
        }
    }
    // Rows 1 to 3 have three sides each: the two later sides of each row are kept.
    assert_eq!(moved, 3 * 2);
}

/// A condition whose `let` reads the loop's element is worked out every time: a budget can
/// stop at the call inside it for every element, not only for the first of each row.
#[test]
fn a_let_that_reads_the_element_is_not_kept() {
    let count_call_stops = |text: &str| {
        let prog = common::checked("invariant.rules", text);
        let (full, r) = run(prog, Limits::default());
        r.expect("runs");
        (0..full.state.steps())
            .filter(|&max_steps| {
                let limits = Limits {
                    max_steps,
                    ..Limits::default()
                };
                let (_, r) = run(prog, limits);
                labelled(text, &r.expect_err("stops")) == "first_of(row)"
            })
            .count()
    };
    let kept = TEXT.replace("COND", "ok(row, side)");
    assert_eq!(count_call_stops(&kept), 3);
    let reads_side = kept.replace(
        "let t = first_of(row)",
        "let t = if side == Left { first_of(row) } else { first_of(row) }",
    );
    assert!(count_call_stops(&reads_side) >= 3 * 3);
}

/// A body that sets the kept `let`'s local again after using it: each later element starts
/// from the value kept, not the one the element before left there (the local is written again
/// for each; where nothing sets it, it is left as the first element wrote it).
#[test]
fn a_kept_local_set_again_in_the_body_is_kept_as_first_worked_out() {
    let text = |cond: &str| {
        TEXT.replace("COND", cond).replace(
            "fn first_of(row: int)",
            "fn ok_set(row: int, side: Side) -> bool {\n  let t = first_of(row)\n  \
             if t == none { return side != Middle }\n  let keep = t.value > 2 or side == Left\n  \
             set t = first_of(2)\n  keep\n}\n\nfn first_of(row: int)",
        )
    };
    let kept = common::checked("invariant.rules", &text("ok_set(row, side)"));
    let each = common::checked("invariant.rules", &text("ok_set(row + 0, side)"));
    let a = common::plays_alike(kept, each);
    // Row 1 (value 3): every side, though the body leaves row 2's card (value 1) in `t`.
    assert_eq!(common::tuples_in(a.state.vars.first()), Some(3 + 1 + 2));
}

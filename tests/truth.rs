//! A small function inlined where its value is a condition has its body compiled for its truth
//! (`src/interp/compile/truth.rs`): its `if`s and enum `match`es choose between conditions as
//! words, and a call in the place of its value (`steady`'s `calm(t)`) gives the body's truth. It must do what the body's value-making code does: the same values, the same steps,
//! the same errors. Each test compares a game whose conditions are such calls against the same
//! game comparing each call with `== true`, which leaves the call to its value.

mod common;

use common::play_quietly as run;
use rules::limits::Limits;

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("truth.rules", text)
}

/// The functions come first, so their statements lie at the same places in both texts.
const GAME: &str = "game \"g\" { players: 2, rounds: 2, round: [p] }\n\
    enum Mood { Calm, Wary, Bold }\n\
    kind Token {\n  mood: Mood\n  rank: int\n}\n\
    cards Token (mood, rank) {\n  t1: Calm, 1\n  t2: Wary, 2\n  t3: Bold, 3\n  t4: Wary, 5\n}\n\
    zone pool: Token per player\n\
    var out: list = []\n\
    fn tight(r: int, n: int) -> bool = if r * 2 > n { true } else { false }\n\
    fn open(t: Token, n: int) -> bool {\n  let r = t.rank\n  if r > n { return false }\n  \
      match t.mood {\n    Calm => true,\n    Wary => not tight(r, n),\n    \
      Bold => r == n or n > 3,\n  }\n}\n\
    fn loose(t: Token) -> bool { t.rank != 2 }\n\
    fn calm(t: Token) -> bool { if t.mood == Calm { true } else { t.rank > 4 } }\n\
    fn steady(t: Token, n: int) -> bool { if n > 2 { calm(t) } else { open(t, n) } }\n\
    setup { for t in Token { move t to pool[P1] } }\n";

/// `{t}` after each call (` == true` or nothing).
const PHASE: &str = "phase p {\n  \
    for n in 0..5 {\n    for q in players {\n      \
      let f = filter(t in Token where open(t, n){t})\n      \
      let m = map(t in filter(t in pool[q] where open(t, n){t}) => (t, n, q))\n      \
      let c = count(t in pool[q] where not open(t, n){t})\n      \
      let l = any(t in Token where loose(t){t} and calm(t){t})\n      \
      let i = if open(@t4, n){t} { 1 } else { 0 }\n      \
      let s = count(t in Token where steady(t, n){t})\n      \
      set out = concat(out, [f, m, c, l, i, s])\n    }\n  }\n}\n";

static TEXTS: std::sync::LazyLock<(String, String)> =
    std::sync::LazyLock::new(|| common::fast_and_general(GAME, PHASE, " == true"));

#[test]
fn truth_gives_the_values_and_steps_of_the_value() {
    let (a, ra) = run(program(&TEXTS.0), Limits::default());
    let (b, rb) = run(program(&TEXTS.1), Limits::default());
    ra.expect("as words runs");
    rb.expect("as values runs");
    assert_eq!(a.state.vars, b.state.vars);
    assert_eq!(a.state.steps(), b.state.steps());
    // At n = 2: t1 (Calm, rank 1) and t2 (Wary, rank 2, 4 > 2: tight, so not open) give [t1].
    let shown = format!("{:?}", a.state.vars);
    assert!(shown.contains("Card(0)"), "{shown}");
}

/// Every budget below the steps the game needs runs out where the value's does.
#[test]
fn truth_runs_out_of_steps_where_the_value_does() {
    common::runs_out_alike(
        (&TEXTS.0, program(&TEXTS.0)),
        (&TEXTS.1, program(&TEXTS.1)),
        " == true",
    );
}

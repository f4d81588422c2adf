//! An aggregate whose whole condition compares the element's field with a key is scanned: each
//! card's field compared where it lies (`src/interp/compile/scan.rs`). It must do what the walk
//! does: the same values, the same steps, the same errors. Each test compares a game with such
//! aggregates against the same game whose conditions start with `true and` (which leaves them to
//! the walk).

mod common;

use common::play_quietly as run;
use rules::limits::Limits;

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("scan.rules", text)
}

/// Two kinds with a field of the same name in one list (the site's cache meets both kinds),
/// and a zone.
const GAME: &str = "game \"g\" { players: 2, rounds: 2, round: [p] }\n\
    enum Group { Gold, Iron }\n\
    kind Mine {\n  group: Group\n  var marks: int = 0\n}\n\
    kind Ship {\n  group: Group\n  crew: int\n}\n\
    cards Mine (group) {\n  m1: Gold\n  m2: Iron\n  m3: Gold\n}\n\
    cards Ship (group, crew) {\n  s1: Iron, 2\n  s2: Gold, 3\n}\n\
    zone mines: Mine per player\n\
    var pile: list per player = []\n\
    var out: list = []\n\
    setup {\n  for c in Mine { move c to mines[P1] }\n  move @m2 to mines[P2]\n  \
    set pile[P1] = concat(mines[P1], filter(s in Ship where true))\n  set pile[P2] = mines[P2]\n}\n";

/// `{t}` where each condition starts (`true and ` or nothing).
const PHASE: &str = "phase p {\n  \
    for g in Group {\n    for q in players {\n      \
      let f = filter(x in pile[q] where {t}x.group == g)\n      \
      let c = count(x in pile[q] where {t}g != x.group)\n      \
      let a = any(x in pile[q] where {t}x.group == Iron)\n      \
      let h = first(x in pile[q] where {t}x.group == g)\n      \
      let z = count(x in mines[q] where {t}x.group == g)\n      \
      set out = concat(out, [f, c, a, h, z])\n    }\n  }\n}\n";

static TEXTS: std::sync::LazyLock<(String, String)> =
    std::sync::LazyLock::new(|| common::fast_and_general(GAME, PHASE, "true and "));

#[test]
fn scanned_values_and_steps_are_those_of_the_walk() {
    let (a, ra) = run(program(&TEXTS.0), Limits::default());
    let (b, rb) = run(program(&TEXTS.1), Limits::default());
    ra.expect("scanned runs");
    rb.expect("walked runs");
    assert_eq!(a.state.vars, b.state.vars);
    assert_eq!(a.state.steps(), b.state.steps());
    // Gold in P1's pile (m1, m3, s2: cards 0, 2, 4; s1 is Iron; m1 and m3 in its zone), then in
    // P2's (only m2, Iron).
    let shown = format!("{:?}", a.state.vars);
    let first = "items: [List(Items { depth: 1, items: [Card(0), Card(2), Card(4)], size: 4 }), \
                 Int(1), Bool(true), Card(0), Int(2), List(Items { depth: 1, items: [], size: 1 \
                 }), Int(1), Bool(true), None, Int(0)";
    assert!(shown.contains(first), "{shown}");
}

/// Every budget below the steps the game needs runs out where the walk's does.
#[test]
fn scanned_runs_out_of_steps_where_the_walk_does() {
    common::runs_out_as_walked((&TEXTS.0, program(&TEXTS.0)), (&TEXTS.1, program(&TEXTS.1)));
}

//! An aggregate over a kind's cards whose condition starts with equalities on printed fields is
//! looked up, not walked (`src/interp/compile/index.rs`). It must do what the walk does: the same
//! values, the same steps, the same errors. Each test compares a game with such aggregates
//! against the same game whose conditions start with `true and` (which the lookup leaves to the
//! walk).

mod common;

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("index.rules", text)
}

const GAME: &str = "game \"g\" { players: 2, rounds: 2, round: [p] }\n\
    enum Project { Red, Blue, Green }\n\
    kind Stage {\n  project: Project\n  level: int\n  name: text\n  fee: int\n  var hits: int = 0\n}\n\
    cards Stage (project, level, name, fee) {\n  \
      r1: Red, 1, \"one\", 4\n  b1: Blue, 1, \"one\", 2\n  r2: Red, 2, \"two\", 1\n  \
      r2b: Red, 2, \"two b\", 6\n  g3: Green, 3, \"three\", 3\n}\n\
    var out: list = []\nvar n: int = 0\nvar keyed: list = []\n";

/// The phase, with `{t}` where each condition starts (`true and ` or nothing).
const PHASE: &str = "phase p {\n  \
    for i in 0..4 {\n    \
      let j = if i % 3 == 0 { Red } else if i % 3 == 1 { Blue } else { Green }\n    \
      let level = i % 3 + 1\n    \
      let s = first(x in Stage where {t}x.project == j and x.level == level)\n    \
      let c = count(x in Stage where {t}x.project == j)\n    \
      let a = any(x in Stage where {t}level == x.level and x.fee > 3)\n    \
      let f = filter(x in Stage where {t}x.project == Red and x.level == level and x.fee >= i)\n    \
      let h = count(x in Stage where {t}x.hits == i)\n    \
      let w = first(x in Stage where {t}x.name == \"two b\")\n    \
      set out = concat(out, [s, c, a, f, h, w])\n    \
      let g = if i % 2 == 0 { @r2b } else { @g3 }\n    \
      let k = count(x in Stage where {t}x.level == g.level)\n    \
      let v = first(x in Stage where {t}x.fee == g.hits)\n    \
      set keyed = concat(keyed, [k, v])\n    \
      if s != none { set s.hits += 1 }\n    \
      set n = n * 3 + c + len(f) + h\n  \
    }\n}\n";

/// The two games' texts: looked up, walked.
static TEXTS: std::sync::LazyLock<(String, String)> =
    std::sync::LazyLock::new(|| common::fast_and_general(GAME, PHASE, "true and "));

fn pair() -> (
    &'static rules::program::Program,
    &'static rules::program::Program,
) {
    (program(&TEXTS.0), program(&TEXTS.1))
}

#[test]
fn looked_up_values_and_steps_are_those_of_the_walk() {
    let (looked_up, walked) = pair();
    let a = common::plays_alike(looked_up, walked);
    // i = 0 (Red, level 1): r1 first, three Red cards, r1 costs more than 3, Red at 1 is [r1],
    // no card hit yet, r2b by its name.
    let shown = format!("{:?}", a.state.vars);
    // A printed field of a card in a local as the key (`g.level`), and a `var` field (`g.hits`,
    // which the lookup leaves to the walk): r2b's level 2 has r2 and r2b, g3's level 3 has g3;
    // no fee is 0 (no hits yet), and once g3 has one hit, fee 1 is r2's.
    assert!(
        shown.contains("[Int(2), None, Int(1), None, Int(2), None, Int(1), Card(2),"),
        "{shown}"
    );
    let first_round = "[Card(0), Int(3), Bool(true), List(Items { depth: 1, items: [Card(0)], \
                       size: 2 }), Int(5), Card(3), None, Int(1), Bool(true), List(Items { \
                       depth: 1, items: [Card(2), Card(3)], size: 3 })";
    assert!(shown.contains(first_round), "{shown}");
}

/// Every budget below the steps the game needs runs out at the same place as the walk's.
#[test]
fn looked_up_runs_out_of_steps_where_the_walk_does() {
    common::runs_out_as_walked((&TEXTS.0, program(&TEXTS.0)), (&TEXTS.1, program(&TEXTS.1)));
}

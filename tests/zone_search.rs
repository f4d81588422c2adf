//! `index_of` and `contains` search a zone in place, with no list built (`src/builtins/lists.rs`).
//! Each must answer as it does for the same cards in a list: the first position or `none`, for a
//! card there, a card elsewhere, and a value that is no card.

mod common;

use common::play_quietly as run;
use rules::limits::Limits;

const GAME: &str = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
    kind Token { n: int }\n\
    cards Token (n) {\n  a: 1\n  b: 2\n  c: 3\n  d: 4\n}\n\
    zone row: Token public\nzone box: Token public\n\
    var out: list = []\n\
    setup {\n  move @c to row\n  move @a to row\n  move @d to row\n  move @b to box\n}\n";

/// Each search of `{z}`, which is the zone or the same cards as a list.
fn game(z: &str) -> String {
    format!(
        "{GAME}phase p {{\n  let l = filter(x in row where true)\n  \
         for t in Token {{\n    \
         set out = concat(out, [index_of({z}, t), contains({z}, t)])\n  }}\n  \
         set out = concat(out, [index_of({z}, none), contains({z}, none), index_of({z}, 3)])\n}}\n"
    )
}

#[test]
fn a_zone_is_searched_as_its_list() {
    let zone = common::checked("zone_search.rules", &game("row"));
    let list = common::checked("zone_search.rules", &game("l"));
    let (a, ra) = run(zone, Limits::default());
    let (b, rb) = run(list, Limits::default());
    ra.expect("the zone runs");
    rb.expect("the list runs");
    assert_eq!(a.state.vars, b.state.vars);
    // The row holds c, a, d (in that order from its top), b lies elsewhere.
    let shown = format!("{:?}", a.state.vars);
    let want = "items: [Int(1), Bool(true), None, Bool(false), Int(0), Bool(true), Int(2), \
                Bool(true), None, Bool(false), None]";
    assert!(shown.contains(want), "{shown}");
}

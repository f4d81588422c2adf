//! Zone and var keys of every compiled shape read the slot the key names
//! (`src/interp/compile/keys.rs`). Each test plays a game whose keys take one shape against the
//! same game with each key first put in a local (the plainest shape): the same vars at the end.

mod common;

use common::{labelled, play_quietly as run};
use rules::limits::Limits;

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("keys.rules", text)
}

const GAME: &str = "game \"g\" { players: 2, rounds: 2, round: [p] }\n\
    enum Side { Left, Right, Up }\n\
    kind Mark { pair: (Side, int) }\n\
    cards Mark (pair) {\n  a: (Left, 2)\n  b: (Up, 3)\n}\n\
    var v: int per Side = 0\nvar w: int per 1..3, Side = 0\n";

/// An item of a local tuple as a key (`v[t.0]`), the tuple made as the game goes (packed) or
/// read from a card (shared): the same slots as the item put in a local first.
#[test]
fn an_item_of_a_local_tuple_is_the_key_it_holds() {
    let body = |direct: bool| {
        let key = |t: &str, i: u32| {
            if direct {
                format!("{t}.{i}")
            } else {
                format!("k{i}")
            }
        };
        let lets = |t: &str| {
            if direct {
                String::new()
            } else {
                format!("    let k0 = {t}.0\n    let k1 = {t}.1\n")
            }
        };
        format!(
            "phase p {{\n  for i in 1..3 {{\n    \
             let t = (if i == 2 {{ Right }} else {{ Up }}, i)\n{}    \
             set v[{}] += i\n    set w[{}, {}] += 10 * i\n  }}\n  \
             for m in Mark {{\n    let t = m.pair\n{}    \
             set w[{}, {}] += 100\n    set v[{}] += w[{}, {}]\n  }}\n}}\n",
            lets("t"),
            key("t", 0),
            key("t", 1),
            key("t", 0),
            lets("t"),
            key("t", 1),
            key("t", 0),
            key("t", 0),
            key("t", 1),
            key("t", 0),
        )
    };
    let (a, ra) = run(program(&format!("{GAME}{}", body(true))), Limits::default());
    let (b, rb) = run(
        program(&format!("{GAME}{}", body(false))),
        Limits::default(),
    );
    ra.expect("keys that are items run");
    rb.expect("keys in locals run");
    assert_eq!(a.state.vars, b.state.vars);
    // Card a's pair (Left, 2) adds 100 to w[2, Left] in each of the two rounds.
    let shown = format!("{:?}", a.state.vars);
    assert!(
        shown.contains("Int(200)"),
        "the card's tuples were read: {shown}"
    );
}

/// An item outside the key's domain fails where the key is, with the value named, whether the
/// tuple is packed (made as the game goes) or shared (a card's field).
#[test]
fn an_item_outside_the_domain_is_the_key_s_error() {
    for (tuple, shown) in [("(Left, 7)", "this is 7"), ("@b.pair", "this is 3")] {
        let text = format!(
            "{GAME}var x: int per 1..2 = 0\nphase p {{\n  let t = {tuple}\n  set x[t.1] += 1\n}}\n"
        );
        let (_, r) = run(program(&text), Limits::default());
        let e = r.expect_err("a key outside 1..2");
        assert_eq!(e.code, "run::key", "{e:?}");
        assert_eq!(labelled(&text, &e), "t.1", "{e:?}");
        assert!(e.labels.iter().any(|l| l.text == shown), "{e:?}");
    }
}

/// Player keys in locals (one key, two keys: read without a look at their domain) name the
/// slot that the same players written out name, and the two keys in their order.
#[test]
fn player_keys_in_locals_name_the_slot_of_the_players_written_out() {
    let text = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
        var coins: int per player = 0\nvar owes: int per player, player = 0\n\
        var seen: list = []\n\
        phase p {\n  for a in players {\n    set coins[a] += seat(a)\n    \
        for b in players { set owes[a, b] += 10 * seat(a) + seat(b) }\n  }\n  \
        let p = P1\n  let q = P2\n  \
        set seen = [coins[p], coins[P2], owes[p, q], owes[P1, P2], owes[q, p], owes[P2, P1]]\n}\n";
    let (i, r) = run(program(text), Limits::default());
    r.expect("runs");
    let shown = format!("{:?}", i.state.vars);
    assert!(
        shown.contains("[Int(0), Int(1), Int(1), Int(1), Int(10), Int(10)]"),
        "{shown}"
    );
}

/// A field of a local card as a key (`v[m.side]`, alone or beside a local, a constant or an
/// item: read in place once its site has read it): the same slots as the field put in a local
/// first, and a field outside the domain is the key's error at every read.
#[test]
fn a_field_of_a_local_card_is_the_key_it_holds() {
    const CARDS: &str = "game \"g\" { players: 2, rounds: 2, round: [p] }\n\
        enum Side { Left, Right, Up }\n\
        kind Post { side: Side, row: int }\n\
        cards Post (side, row) {\n  a: Left, 2\n  b: Up, 3\n  c: Right, 1\n}\n\
        var v: int per Side = 0\nvar w: int per 1..3, Side = 0\n";
    let body = |direct: bool| {
        let (side, row) = if direct {
            ("m.side", "m.row")
        } else {
            ("s", "r")
        };
        let lets = if direct {
            ""
        } else {
            "    let s = m.side\n    let r = m.row\n"
        };
        format!(
            "phase p {{\n  for i in 1..3 {{\n    for m in Post {{\n{lets}    \
             let t = (Up, i)\n    \
             set v[{side}] += i\n    set w[{row}, {side}] += 10 * i\n    \
             set w[i, {side}] += v[{side}]\n    set w[{row}, t.0] += w[2, {side}]\n    \
             set w[{row}, Left] += 1\n  }}\n  }}\n}}\n"
        )
    };
    let (a, ra) = run(
        program(&format!("{CARDS}{}", body(true))),
        Limits::default(),
    );
    let (b, rb) = run(
        program(&format!("{CARDS}{}", body(false))),
        Limits::default(),
    );
    ra.expect("keys that are fields run");
    rb.expect("keys in locals run");
    assert_eq!(a.state.vars, b.state.vars);
    assert!(a.state.steps() > 0);
    // Out of the domain: card b's row 3 is a key of 1..3 (fine), its row as a key of 1..2 is
    // not, at the second read as at the first.
    let text = format!(
        "{CARDS}var x: int per 1..2 = 0\nphase p {{\n  for m in Post {{\n    \
         set x[m.row] += 1\n  }}\n}}\n"
    );
    let (_, r) = run(program(&text), Limits::default());
    let e = r.expect_err("a key outside 1..2");
    assert_eq!(e.code, "run::key", "{e:?}");
    assert_eq!(labelled(&text, &e), "m.row", "{e:?}");
    assert!(e.labels.iter().any(|l| l.text == "this is 3"), "{e:?}");
}

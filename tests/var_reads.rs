//! A var whose keys are locals, compared with a constant or a number, is looked at where it lies
//! (`keys::VarRead` in `src/interp/compile/conds.rs`). It must answer as the comparison's own code
//! does: the same values, the same steps, the same errors. Each test compares a game written so
//! against the same game written in a shape the fast path leaves alone (the constant first, or
//! the number with `+ 0`).

mod common;

use common::{labelled, play_quietly as run};
use rules::limits::Limits;

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("var_reads.rules", text)
}

const GAME: &str = "game \"g\" { players: 2, rounds: 3, round: [p] }\n\
    enum Pact { Trade, War }\n\
    var pact: Pact per player, player = none\n\
    var held: int per player = 0\nvar row: int per 1..3 = 0\n\
    var out: list = []\n";

/// `{a}` and `{b}` stand for the two ways of writing each comparison.
const PHASE: &str = "phase p {\n  \
    for p in players {\n    for q in players {\n      \
      let open = {open}\n      let war = {war}\n      \
      let rich = {rich}\n      let poor = {poor}\n      let less = {less}\n      \
      set out = concat(out, [open, war, rich, poor, less])\n      \
      if open { set pact[p, q] = if held[q] > 1 { War } else { Trade } }\n      \
      set held[p] += 1\n    }\n  }\n}\n";

fn phase(fast: bool) -> String {
    let pick = |f: &str, slow: &str| {
        if fast {
            f.to_string()
        } else {
            slow.to_string()
        }
    };
    PHASE
        .replace("{open}", &pick("pact[p, q] == none", "none == pact[p, q]"))
        .replace("{war}", &pick("pact[p, q] != War", "War != pact[p, q]"))
        .replace("{rich}", &pick("held[p] >= 3", "held[p] + 0 >= 3"))
        .replace("{poor}", &pick("2 > held[q]", "2 > held[q] + 0"))
        .replace(
            "{less}",
            &pick("held[p] < held[q]", "held[p] + 0 < held[q] + 0"),
        )
}

#[test]
fn vars_looked_at_in_place_answer_as_read() {
    let fast = program(&format!("{GAME}{}", phase(true)));
    let slow = program(&format!("{GAME}{}", phase(false)));
    let a = common::plays_alike(fast, slow);
    // Round 1, p = P1, q = P1: no pact, not War, held 0, P1 holds less than 2, not less.
    let shown = format!("{:?}", a.state.vars);
    assert!(
        shown.contains("items: [Bool(true), Bool(true), Bool(false), Bool(true), Bool(false), "),
        "{shown}"
    );
    // Some pacts were made, and some of them War (held[q] passed 1).
    assert!(
        shown.contains("Enum(0, 0)") && shown.contains("Enum(0, 1)"),
        "{shown}"
    );
}

/// A key outside its domain is the var's own error, in both shapes: the same message, at the
/// var.
#[test]
fn a_key_outside_the_domain_fails_as_the_read_does() {
    for (fast, slow) in [
        ("row[i] == 0", "0 == row[i]"),
        ("row[i] >= 1", "row[i] + 0 >= 1"),
        ("1 <= row[i]", "1 <= row[i] + 0"),
    ] {
        let text = |cmp: &str| {
            format!(
                "{GAME}phase p {{\n  for i in 1..4 {{\n    let b = {cmp}\n    \
                 set out = concat(out, [b])\n  }}\n}}\n"
            )
        };
        let (tf, ts) = (text(fast), text(slow));
        let (a, ra) = run(program(&tf), Limits::default());
        let (b, rb) = run(program(&ts), Limits::default());
        let (ea, eb) = (ra.expect_err("out of range"), rb.expect_err("out of range"));
        assert_eq!(ea.message, eb.message, "{fast}");
        assert_eq!(labelled(&tf, &ea), "i", "{fast}: {ea:?}");
        assert_eq!(labelled(&ts, &eb), "i", "{slow}: {eb:?}");
        assert_eq!(a.state.steps(), b.state.steps(), "{fast}");
    }
}

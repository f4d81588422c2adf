//! `contains(a, b)` when both arguments are locals or locals' fields looks at them in place
//! (`builtin` in `src/interp/compile/exprs.rs`). It must give the answer and charge the steps of
//! the general path, which the same call with a constant needle takes.

use rules::interp::Interp;
use rules::limits::Limits;

const GAME: &str = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
    enum Realm { Law, Media, Street }\n\
    kind Society { restricted: list of Realm }\n\
    card Society s { restricted: [Law, Street] }\n\
    var found: list = []\n";

fn program(text: &str) -> &'static rules::program::Program {
    let c = rules::check_text("contains.rules", text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    Box::leak(Box::new(c.program.expect("program")))
}

fn run(prog: &'static rules::program::Program) -> Interp<'static> {
    let agents = rules::agent::make_agents("first", 2, 1).expect("agents");
    let mut i = Interp::new(prog, 2, 1, agents, Limits::default()).expect("interp");
    i.record = false;
    i.run().expect("runs");
    i
}

/// A phase that asks `contains` of a long list in a local and of a card's list field, for a
/// needle there and one not, each with the needle in a local (`in place`) or written out; three
/// times, as a field is looked at in place once its site has read it.
fn phase(in_place: bool) -> String {
    let (five, never, street) = if in_place {
        ("n5", "n0", "st")
    } else {
        ("5", "0", "Street")
    };
    format!(
        "{GAME}phase p {{\n  let l = map(i in 1..200 => i)\n  let c = @s\n  \
         let n5 = 5\n  let n0 = 0\n  let st = Street\n  \
         for k in 1..3 {{\n    set found = [contains(l, {five}), contains(l, {never}), \
         contains(c.restricted, {street}), contains(c.restricted, Media)]\n  }}\n}}\n"
    )
}

#[test]
fn in_place_gives_the_answers_and_steps_of_the_general_path() {
    let a = run(program(&phase(true)));
    let b = run(program(&phase(false)));
    assert_eq!(a.state.vars, b.state.vars);
    assert_eq!(a.state.steps(), b.state.steps());
    let shown = format!("{:?}", a.state.vars.first());
    assert_eq!(
        shown.matches("Bool(true)").count(),
        2,
        "found 5 and Street: {shown}"
    );
    // The long list is charged for: far more than a step per statement.
    assert!(a.state.steps() > 1000, "{}", a.state.steps());
}

/// A local that holds a zone, not a list, takes the general path: the zone's cards.
#[test]
fn a_zone_in_a_local_is_searched_as_its_cards() {
    let text = format!(
        "{GAME}zone pile: Society public\n\
         phase p {{\n  move @s to pile\n  let z = pile\n  let c = @s\n  \
         set found = [contains(z, c)]\n}}\n"
    );
    let a = run(program(&text));
    let shown = format!("{:?}", a.state.vars.first());
    assert!(shown.contains("Bool(true)"), "{shown}");
}

//! The step budget (`Limits::max_steps`) is kept as the steps left. These check its edges: a
//! game may take exactly the budget, one step more is refused, and once it has run out every
//! further step is refused too (the count never wraps round to a fresh budget).

use rules::interp::Interp;
use rules::limits::Limits;

const GAME: &str = "game \"g\" { players: 2, rounds: 1, round: [p] }\n";

fn program(text: &str) -> &'static rules::program::Program {
    let c = rules::check_text("steps.rules", text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    Box::leak(Box::new(c.program.expect("program")))
}

fn interp(prog: &'static rules::program::Program, max_steps: u64) -> Interp<'static> {
    let agents = rules::agent::make_agents("first", 2, 1).expect("agents");
    let limits = Limits {
        max_steps,
        ..Limits::default()
    };
    let mut i = Interp::new(prog, 2, 1, agents, limits).expect("interp");
    i.record = false;
    i
}

/// The steps a whole game takes with a budget to spare.
fn steps_of(prog: &'static rules::program::Program) -> u64 {
    let mut i = interp(prog, Limits::default().max_steps);
    i.run().expect("runs");
    i.state.steps()
}

#[test]
fn a_game_may_take_exactly_its_budget_and_not_one_step_more() {
    let prog = program(&format!(
        "{GAME}phase p {{ let t = 0\n  repeat 50 {{ set t += 1 }} }}\n"
    ));
    let needed = steps_of(prog);
    assert!(needed > 50, "{needed}");

    let mut exact = interp(prog, needed);
    exact.run().expect("the budget is enough");
    assert_eq!(exact.state.steps(), needed);

    let mut short = interp(prog, needed - 1);
    let d = short.run().expect_err("one step short");
    assert_eq!(d.code, "limit::steps");
    assert_eq!(short.state.steps(), needed - 1);
}

#[test]
fn once_the_budget_is_spent_every_later_step_is_refused() {
    let prog = program(&format!(
        "{GAME}phase p {{ repeat 1000 {{ let x = 1 }} }}\n"
    ));
    let mut i = interp(prog, 100);
    let d = i.run().expect_err("out of steps");
    assert_eq!(d.code, "limit::steps");
    // Running on from where it stopped (as the REPL may) is refused at once, however often.
    for _ in 0..3 {
        let d = i.run().expect_err("still out of steps");
        assert_eq!(d.code, "limit::steps");
        assert_eq!(i.state.steps(), 100);
    }
}

/// Work charged by size (here reversing a long list) counts against the same budget, and the
/// budget runs out at the statement that charged it.
#[test]
fn charged_work_runs_the_budget_out_too() {
    let build = "let l = map(i in 1..2000 => 2000 - i)";
    let without = program(&format!("{GAME}phase p {{ {build} }}\n"));
    let text = format!("{GAME}phase p {{ {build}\n  let r = reverse(l) }}\n");
    let prog = program(&text);
    let needed = steps_of(prog);
    // Reversing 1,999 items is charged at least their number, beyond the statement's own step.
    assert!(
        needed >= steps_of(without) + 1999,
        "{needed} steps with the reverse, {} without",
        steps_of(without)
    );
    let mut i = interp(prog, needed - 1);
    let d = i.run().expect_err("one step short");
    assert_eq!(d.code, "limit::steps");
    let span = d.labels.first().expect("label").span;
    assert_eq!(&text[span.start as usize..span.end as usize], "reverse(l)");
    let mut exact = interp(prog, needed);
    exact.run().expect("the budget is enough");
}

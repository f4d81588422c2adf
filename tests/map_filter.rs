//! `map(x in filter(y in s where c) => (a, x))`, whose value is a list or tuple of locals and
//! constants, runs as one walk (`map_of_filter` in `src/interp/compile/aggs.rs`). It must do
//! what the filter then the map do: the same values, the same steps in the same order (so a
//! budget runs out at the same place), and the filter's errors before the map's.

mod common;

use common::{labelled, play_quietly as run};
use rules::limits::Limits;

const GAME: &str = "game \"g\" { players: 2, rounds: 1, round: [p] }\n";

fn program(text: &str) -> &'static rules::program::Program {
    common::checked("map_filter.rules", text)
}

/// The walk in one (`fused`) and the filter kept in a local first (`apart`, two walks): the
/// same values in the vars, the same steps. Each phase has two statements.
#[test]
fn one_walk_gives_the_values_and_steps_of_two() {
    let vars = "var out: list = []\nvar n: int = 0\n";
    let fused = program(&format!(
        "{GAME}{vars}phase p {{\n  let k = 7\n  \
         set out = map(x in filter(y in 1..9 where y % 3 != 0 and y > 2) => (x, k, \"t\"))\n}}\n"
    ));
    let apart = program(&format!(
        "{GAME}{vars}phase p {{\n  let f = filter(y in 1..9 where y % 3 != 0 and y > 2)\n  \
         set out = map(x in f => (x, 7, \"t\"))\n}}\n"
    ));
    let a = common::plays_alike(fused, apart);
    let shown = format!("{:?}", a.state.vars.first());
    assert!(
        shown.contains("Int(4)") && shown.contains("Int(8)"),
        "{shown}"
    );
}

/// With every budget, the game stops at the filter while it walks (one step per element of
/// its source), then at the map (one step per element kept): the steps are taken in the order
/// of the two walks.
#[test]
fn a_budget_runs_out_where_the_two_walks_would_stop() {
    let text = format!(
        "{GAME}phase p {{\n  let r = map(x in filter(y in 1..6 where y % 2 == 0) => [x, x])\n}}\n"
    );
    let prog = program(&text);
    let (full, r) = run(prog, Limits::default());
    r.expect("runs");
    let needed = full.state.steps();
    let mut stops = Vec::new();
    for max_steps in 0..=needed {
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let (_, r) = run(prog, limits);
        match r {
            Err(d) if d.code == "limit::steps" => {
                let at = labelled(&text, &d);
                let at = if at.starts_with("filter") {
                    "filter"
                } else if at.starts_with("map") {
                    "map"
                } else {
                    "other"
                };
                if stops.last().is_none_or(|(s, _)| *s != at) {
                    stops.push((at, 0));
                }
                if let Some((_, n)) = stops.last_mut() {
                    *n += 1;
                }
            }
            Err(d) => panic!("unexpected error {}: {}", d.code, d.message),
            Ok(()) => assert_eq!(max_steps, needed),
        }
    }
    // Six elements walked by the filter, then three kept walked by the map.
    let runs: Vec<(&str, u32)> = stops.into_iter().filter(|(s, _)| *s != "other").collect();
    assert_eq!(runs, vec![("filter", 6), ("map", 3)]);
}

/// A value the map cannot make (nested past the limit) is reported only once the filter has
/// run to its end: an error of the filter's on a later element comes first.
#[test]
fn the_filter_runs_to_its_end_before_a_value_fails() {
    let limits = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    let body = |cond: &str| {
        format!(
            "{GAME}phase p {{\n  let deep = [[1]]\n  \
             let r = map(x in filter(y in 1..5 where {cond}) => (deep, x))\n}}\n"
        )
    };
    // Element 3 divides by zero in the filter: that error, not the map's on element 1.
    let text = body("10 / (y - 3) != 0");
    let (_, r) = run(program(&text), limits);
    let d = r.expect_err("division by zero");
    assert_eq!(d.code, "run::div_zero");

    // Without it, the map's error on the first element kept.
    let text = body("y > 1");
    let (_, r) = run(program(&text), limits);
    let d = r.expect_err("too deep");
    assert_eq!(d.code, "limit::value_depth");
    assert!(
        labelled(&text, &d).starts_with("(deep, x)"),
        "{}",
        labelled(&text, &d)
    );

    // A tuple of three locals is made in the walk's own closure: the same error, at the tuple,
    // and still after the filter's own.
    let text = body("y > 1").replace("(deep, x)", "(deep, x, x)");
    let (_, r) = run(program(&text), limits);
    let d = r.expect_err("too deep");
    assert_eq!(d.code, "limit::value_depth");
    assert_eq!(labelled(&text, &d), "(deep, x, x)");
    let text = body("10 / (y - 3) != 0").replace("(deep, x)", "(deep, x, x)");
    let (_, r) = run(program(&text), limits);
    assert_eq!(r.expect_err("division by zero").code, "run::div_zero");
}

/// A tuple of three locals made in the walk's own closure is the tuple `literal` makes.
#[test]
fn a_tuple_of_three_locals_is_made_as_written() {
    let vars = "var out: list = []\n";
    let text = |value: &str| {
        format!(
            "{GAME}{vars}phase p {{\n  let k = 7\n  \
             set out = map(x in filter(y in 1..6 where y % 2 == 0) => {value})\n}}\n"
        )
    };
    let (a, ra) = run(program(&text("(x, k, x)")), Limits::default());
    let (b, rb) = run(program(&text("(x, k + 0, x)")), Limits::default());
    ra.expect("three locals");
    rb.expect("an expression among them");
    assert_eq!(a.state.vars, b.state.vars);
    assert_eq!(a.state.steps(), b.state.steps());
    let (c, rc) = run(program(&text("[x, k, x]")), Limits::default());
    rc.expect("a list");
    assert_ne!(a.state.vars, c.state.vars);
    assert!(format!("{:?}", c.state.vars.first()).contains("List"));
}

/// Past the list-length limit, the map refuses the element after the limit, once the filter has
/// run and the map has taken a step for each element up to it: as one element at a time would.
#[test]
fn the_list_length_limit_stops_the_map_at_the_element_past_it() {
    let text = format!(
        "{GAME}phase p {{\n  let r = map(x in filter(y in 1..8 where y % 2 == 0) => (x, 1))\n}}\n"
    );
    let prog = program(&text);
    let limits = Limits {
        max_list_len: 2,
        ..Limits::default()
    };
    let (i, r) = run(prog, limits);
    let d = r.expect_err("too long");
    assert!(d.message.contains("list-length limit"), "{}", d.message);
    assert!(
        labelled(&text, &d).starts_with("map("),
        "{}",
        labelled(&text, &d)
    );
    // The same walks apart (the filter kept in a local: one more statement, one more step) stop
    // after the same steps: the filter's eight, then the map's for its first three elements.
    let apart = format!(
        "{GAME}phase p {{
  let f = filter(y in 1..8 where y % 2 == 0)
           let r = map(x in f => (x, 1))
}}
"
    );
    let (j, r) = run(program(&apart), limits);
    assert!(r.is_err());
    assert_eq!(j.state.steps(), i.state.steps() + 1);
}

/// The Establishment's shape: the condition an inlined call whose first `let` is kept for the
/// walk (`invariant::CachedCall`), the element read by the value after the condition ran, in
/// the one slot the filter and the map share. The same values and steps as two walks.
#[test]
fn an_inlined_condition_leaves_the_element_for_the_value() {
    let vars = "var out: list = []\n";
    let helper = "fn ok(x: int, row: int) -> bool {\n  let lim = row * 2\n  \
                  let y = x + lim\n  y % 3 != 0\n}\n";
    let fused = program(&format!(
        "{GAME}{vars}{helper}phase p {{\n  let row = 2\n  \
         set out = flatten(map(c in 1..3 => map(s in filter(s in 1..7 where ok(s, row)) => (c, row, s))))\n}}\n"
    ));
    let apart = program(&format!(
        "{GAME}{vars}{helper}phase p {{\n  let row = 2\n  \
         set out = flatten(map(c in 1..3 => map(s in (filter(t in 1..7 where ok(t, row))) => (c, row, s + 0))))\n}}\n"
    ));
    let (a, ra) = run(fused, Limits::default());
    let (b, rb) = run(apart, Limits::default());
    ra.expect("fused runs");
    rb.expect("apart runs");
    assert_eq!(a.state.vars, b.state.vars);
    let shown = format!("{:?}", a.state.vars.first());
    // 1..7 less 2 and 5 (x + 4 a multiple of 3): 1, 3, 4, 6, 7 for each c.
    let tuples = common::tuples_in(a.state.vars.first());
    assert_eq!(tuples, Some(15), "{shown}");
    assert!(!shown.contains("Int(5)"), "{shown}");
}

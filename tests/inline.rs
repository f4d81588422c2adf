//! Small functions are compiled into their callers (`src/interp/compile/inline.rs`). What a call
//! does must not change: the steps it is charged, the call-depth limit, its errors.
//! `tests/flow/inline_calls.rules` plays the shapes of call inlined, and
//! `tests/runtime/inlined_call_*.rules` the errors.

use rules::interp::Interp;
use rules::limits::Limits;

fn play(text: &str, limits: Limits) -> (Interp<'static>, Result<(), Box<rules::diag::Diag>>) {
    let c = rules::check_text("inline.rules", text, &limits);
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog: &'static rules::program::Program = Box::leak(Box::new(c.program.expect("program")));
    let agents = rules::agent::make_agents("first", 2, 1).expect("agents");
    let mut i = Interp::new(prog, 2, 1, agents, limits).expect("interp");
    let r = i.run().map(|_| ());
    (i, r)
}

const GAME: &str = "game \"g\" { players: 2, rounds: 1, round: [p] }\n";

/// The steps of `tests/flow/inline_calls.rules` (no choices in it; its calls are in `let`s, so
/// they run unrecorded too), as counted before calls were inlined: every call still ticks once,
/// and an early `return` made a branch ticks as the `return` did.
#[test]
fn inlined_calls_are_charged_the_steps_of_calls() {
    let c = rules::check_path(
        std::path::Path::new("tests/flow/inline_calls.rules"),
        &Limits::default(),
    );
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let agents = rules::agent::make_agents("first", 3, 7).expect("agents");
    let mut i = Interp::new(&prog, 3, 7, agents, Limits::default()).expect("interp");
    i.record = false;
    i.run().expect("runs");
    assert_eq!(i.state.steps(), 195);
}

/// Calls nested past `max_call_depth` are refused at the same call, inlined or not.
#[test]
fn inlined_calls_count_towards_the_call_depth_limit() {
    let mut text = String::from(GAME);
    text.push_str("fn f0() -> int = 1\n");
    for i in 1..=6 {
        text.push_str(&format!("fn f{i}() -> int = f{}() + 1\n", i - 1));
    }
    text.push_str("phase p { say \"{f6()}\" }\n");
    let limits = Limits {
        max_call_depth: 4,
        ..Limits::default()
    };
    let (_, r) = play(&text, limits);
    let d = r.expect_err("too deep");
    assert_eq!(d.code, "limit::calls");
    let span = d.labels.first().expect("label").span;
    // Calls f6, f5, f4, f3 nest four deep; f3's call of f2 is refused.
    let at = &text[span.start as usize..span.end as usize];
    assert_eq!(at, "f2()");
    let line = text[..span.start as usize].lines().count();
    assert_eq!(
        text.lines().nth(line - 1),
        Some("fn f3() -> int = f2() + 1")
    );

    // One short: the call of the leaf `f0` (which calls nothing) is the one refused.
    let limits = Limits {
        max_call_depth: 6,
        ..Limits::default()
    };
    let (_, r) = play(&text, limits);
    let d = r.expect_err("too deep");
    assert_eq!(d.code, "limit::calls");
    let span = d.labels.first().expect("label").span;
    assert_eq!(&text[span.start as usize..span.end as usize], "f0()");

    // Within the limit, the same chain runs.
    let limits = Limits {
        max_call_depth: 7,
        ..Limits::default()
    };
    let (i, r) = play(&text, limits);
    r.expect("runs");
    assert!(i.events.iter().filter_map(|e| e.text()).any(|t| t == "7"));
}

/// An early `return` made a branch, and a `return` left inside a loop: the same results.
#[test]
fn returns_of_inlined_functions() {
    let text = format!(
        "{GAME}fn pick(x: int) -> int {{\n  if x < 0 {{ return 0 }}\n  let y = x + 1\n  if y > 5 {{ return 5 }}\n  y\n}}\n\
         fn find(xs: list of int) -> int {{\n  for x in xs {{ if x > 2 {{ return x }} }}\n  -1\n}}\n\
         fn quiet(x: int) {{\n  if x > 0 {{ return }}\n  say \"quiet {{x}}\"\n}}\n\
         phase p {{\n  say \"{{pick(-3)}} {{pick(2)}} {{pick(9)}} {{find([1, 3, 4])}} {{find([])}}\"\n  quiet(1)\n  quiet(0)\n}}\n"
    );
    let (i, r) = play(&text, Limits::default());
    r.expect("runs");
    let said: Vec<String> = i.events.iter().filter_map(|e| e.text()).collect();
    assert!(said.iter().any(|t| t == "0 3 5 3 -1"), "{said:?}");
    assert!(said.iter().any(|t| t == "quiet 0"), "{said:?}");
    assert!(!said.iter().any(|t| t == "quiet 1"), "{said:?}");
}

/// A step budget running out inside an inlined function stops at the same statement (the loop
/// whose turn was refused, as before inlining).
#[test]
fn the_step_budget_runs_out_inside_an_inlined_function() {
    let text = format!(
        "{GAME}fn spin(n: int) -> int {{\n  let t = 0\n  repeat n {{ set t += 1 }}\n  t\n}}\nphase p {{ say \"{{spin(1000)}}\" }}\n"
    );
    let limits = Limits {
        max_steps: 500,
        ..Limits::default()
    };
    let (_, r) = play(&text, limits);
    let d = r.expect_err("out of steps");
    assert_eq!(d.code, "limit::steps");
    let span = d.labels.first().expect("label").span;
    assert_eq!(
        &text[span.start as usize..span.end as usize],
        "repeat n { set t += 1 }"
    );
}

/// An error about a parameter's value is the same whether the function is inlined (small) or
/// called (large): it points at the caller's `let` that made the value.
#[test]
fn a_parameter_takes_its_origin_from_the_local_passed() {
    let padding = "  let pad = 1\n".repeat(60);
    let text = format!(
        "{GAME}kind C {{ name: text }}\nzone pile: C\n\
         fn small(c: C) -> text = c.name\n\
         fn large(c: C) -> text {{\n{padding}  c.name\n}}\n\
         phase p {{\n  let c = top(pile)\n  say \"{{small(c)}}\"\n}}\n"
    );
    let labels = |text: &str| -> Vec<(String, String)> {
        let (_, r) = play(text, Limits::default());
        let d = r.expect_err("none");
        assert_eq!(d.code, "run::none");
        d.labels
            .iter()
            .map(|l| {
                (
                    text[l.span.start as usize..l.span.end as usize].to_string(),
                    l.text.clone(),
                )
            })
            .collect()
    };
    let small = labels(&text);
    let large = labels(&text.replace("{small(c)}", "{large(c)}"));
    assert_eq!(small, large);
    assert!(
        small.contains(&(
            "top(pile)".to_string(),
            "the value was made here".to_string()
        )),
        "{small:?}"
    );
}

/// Where a loop's element makes reading an argument certain to succeed (a printed field of a
/// card from a zone of its kind, a zone slot keyed by a range and an enum within its domains:
/// `tests/flow/inline_facts.rules`), the inlined call does not check it; the game takes the
/// steps and tells the account of the same game with no call inlined (compiled for a profile),
/// at every step budget. So does a field of a local that a `let` of a zone's top card binds,
/// on the branch where it is not `none` (`tests/flow/let_top_facts.rules`).
#[test]
fn arguments_certain_to_be_read_play_as_calls() {
    for game in [
        "tests/flow/inline_facts.rules",
        "tests/flow/let_top_facts.rules",
    ] {
        plays_as_calls_at_every_budget(std::path::Path::new(game));
    }
}

fn plays_as_calls_at_every_budget(path: &std::path::Path) {
    let play = |inlined: bool, max_steps: u64| {
        let c = rules::check_path(path, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let mut prog = c.program.expect("program");
        if !inlined {
            rules::interp::CodeCache::profile(&mut prog);
        }
        let agents = rules::agent::make_agents("first", 2, 1).expect("agents");
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        let mut i = Interp::new(&prog, 2, 1, agents, limits).expect("interp");
        let r = i.run().map(|_| ()).map_err(|d| d.code);
        let said: Vec<String> = i.events.iter().filter_map(|e| e.text()).collect();
        (r, i.state.steps(), said)
    };
    let full = play(true, Limits::default().max_steps);
    assert_eq!(full.0, Ok(()));
    assert_eq!(full, play(false, Limits::default().max_steps));
    for max_steps in 0..full.1 {
        assert_eq!(
            play(true, max_steps),
            play(false, max_steps),
            "{} at {max_steps}",
            path.display()
        );
    }
}

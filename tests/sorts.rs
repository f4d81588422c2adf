//! The checker's types hold at run time. Each expression the checker typed keeps its type in the
//! program (`program::Sort`), for code compiled over static types (issue 45 item 3) to rely on:
//! a number is a number, never `none`; a truth value is `true` or `false`; a card, a player, an
//! enum value of its enum, a text, a list or a tuple is one, or `none`. A program compiled with
//! `CodeCache::check_sorts` checks every such value as it is made; here the five games and every
//! game of `tests/flow/` play with the check on, and play the same games as without it.

mod common;

use rules::interp::{CodeCache, Interp};
use rules::limits::Limits;
use rules::program::{ExprKind, Program, Sort, StmtKind};

use common::GAMES;

/// A game of `prog` with `agent` answering every seat: its steps and account, or its error.
fn play(prog: &Program, n: u32, agent: &str, seed: u64) -> Result<(u64, String), String> {
    let agents = rules::agent::make_agents(agent, n, seed).expect("agents");
    let mut i = Interp::new(prog, n, seed, agents, Limits::default()).expect("interp");
    i.run().map_err(|d| d.render(&prog.sources))?;
    let account: Vec<String> = i.events.iter().filter_map(|e| e.text()).collect();
    Ok((i.state.steps(), account.join("\n")))
}

fn checked(path: &std::path::Path) -> Program {
    let c = rules::check_path(path, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

#[test]
fn the_checkers_types_hold_in_the_five_games() {
    for game in GAMES {
        let plain = checked(std::path::Path::new(game));
        let mut typed = plain.clone();
        CodeCache::check_sorts(&mut typed);
        let n = rules::default_players(&plain);
        for seed in 1..=3 {
            let with = play(&typed, n, "random", seed)
                .unwrap_or_else(|e| panic!("{game} seed {seed}, types checked:\n{e}"));
            let without = play(&plain, n, "random", seed).expect("plays");
            assert_eq!(
                with, without,
                "{game} seed {seed}: the check changed the game"
            );
        }
    }
}

#[test]
fn the_checkers_types_hold_in_the_flow_games() {
    insta::glob!("flow/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("read game");
        let header = |key: &str| {
            text.lines()
                .find_map(|l| l.trim().strip_prefix(key))
                .map(|s| s.trim().to_string())
        };
        // Games with options set are played with their defaults here: the types hold for any.
        let mut prog = checked(path);
        CodeCache::check_sorts(&mut prog);
        let n = header("# players:")
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| rules::default_players(&prog));
        let seed = header("# seed:").and_then(|s| s.parse().ok()).unwrap_or(1);
        let agent = header("# agent:").unwrap_or_else(|| "first".to_string());
        if let Err(e) = play(&prog, n, &agent, seed) {
            // A game may end in an error on purpose; never in a type the checker got wrong.
            assert!(
                !e.contains("internal: the checker typed"),
                "{}:\n{e}",
                path.display()
            );
        }
    });
}

/// The check is live: an expression whose recorded type is made wrong by hand is caught where it
/// is worked out, naming the type it was given.
#[test]
fn a_value_of_another_type_than_the_checkers_is_caught() {
    let text = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
                phase p {\n  let n = 2 + 3\n  say \"{n}\"\n}\n";
    let c = rules::check_text("sorts.rules", text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let mut prog = c.program.expect("program");
    // The `let`'s value was typed a number.
    let phase = prog.phases.first_mut().expect("phase");
    let Some(StmtKind::Let(_, value)) = phase.body.stmts.first_mut().map(|s| &mut s.kind) else {
        panic!("the phase starts with its `let`");
    };
    assert!(matches!(value.kind, ExprKind::Binary(..)));
    assert_eq!(value.ty, Sort::Int);
    let right = play(&prog, 2, "first", 1).expect("plays");
    assert!(right.1.contains('5'), "{}", right.1);

    // Typed right, the check passes; typed wrong, it is the error.
    CodeCache::check_sorts(&mut prog);
    assert_eq!(play(&prog, 2, "first", 1), Ok(right));
    let phase = prog.phases.first_mut().expect("phase");
    if let Some(StmtKind::Let(_, value)) = phase.body.stmts.first_mut().map(|s| &mut s.kind) {
        value.ty = Sort::Bool;
    }
    CodeCache::check_sorts(&mut prog);
    let e = play(&prog, 2, "first", 1).expect_err("caught");
    assert!(e.contains("run::internal"), "{e}");
    assert!(
        e.contains("internal: the checker typed this Bool, and it gave int"),
        "{e}"
    );
}

/// What each sort admits.
#[test]
fn sorts_admit_their_values_and_none_where_the_type_has_it() {
    use rules::value::Value;
    let text = "game \"g\" { players: 2, rounds: 1, round: [p] }\n\
                kind A { n: int }\nkind B { n: int }\n\
                cards A (n) { a1: 1 }\ncards B (n) { b1: 2 }\n\
                phase p { say \"{@a1.n + @b1.n}\" }\n";
    let c = rules::check_text("sorts.rules", text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let kind = |name: &str| {
        prog.kinds
            .iter()
            .position(|k| k.name == name)
            .map(|k| k as u32)
    };
    let card = |id: &str| {
        let at = prog.cards.iter().position(|c| c.id.to_string() == id);
        Value::Card(at.expect("card") as u32)
    };
    let (a, b) = (kind("A"), kind("B"));
    assert!(Sort::Int.holds(&Value::Int(3), &prog));
    assert!(!Sort::Int.holds(&Value::None, &prog));
    assert!(!Sort::Bool.holds(&Value::None, &prog));
    assert!(!Sort::Int.holds(&Value::Bool(true), &prog));
    assert!(Sort::Card(None).holds(&Value::None, &prog));
    assert!(Sort::Card(None).holds(&card("a1"), &prog));
    assert!(Sort::Card(a).holds(&card("a1"), &prog));
    assert!(Sort::Card(a).holds(&Value::None, &prog));
    assert!(!Sort::Card(b).holds(&card("a1"), &prog));
    assert!(!Sort::Card(None).holds(&Value::Player(0), &prog));
    assert!(Sort::Enum(2).holds(&Value::Enum(2, 1), &prog));
    assert!(!Sort::Enum(2).holds(&Value::Enum(1, 1), &prog));
    assert!(Sort::List.holds(&Value::None, &prog));
    assert!(!Sort::List.holds(&Value::Int(0), &prog));
    assert!(Sort::Any.holds(&Value::Text(std::rc::Rc::new("x".into())), &prog));
}

//! Remembered calls (`src/interp/compile/memo.rs`) change no game: every game, played with and
//! without them, makes the same choices, says the same things, takes the same steps and ends the
//! same way. `tests/flow/remembered_calls.rules` and `tests/flow/remembered_field_calls.rules`
//! check that a remembered value is dropped when what it read changes.

mod common;

use rules::interp::Interp;
use rules::limits::Limits;

use common::GAMES;

/// Play `game` with seed `seed` and random agents: (steps, account, outcome, calls remembered).
fn play(prog: &rules::program::Program, seed: u64, remember: bool) -> (u64, String, String, usize) {
    play_with(prog, "random", seed, remember)
}

fn play_with(
    prog: &rules::program::Program,
    agent: &str,
    seed: u64,
    remember: bool,
) -> (u64, String, String, usize) {
    let n = rules::default_players(prog);
    let agents = rules::agent::make_agents(agent, n, seed).expect("agents");
    let mut i = Interp::new(prog, n, seed, agents, Limits::default()).expect("interp");
    i.remember = remember;
    i.run().expect("the game runs");
    let account: Vec<String> = i.events.iter().filter_map(|e| e.text()).collect();
    (
        i.state.steps(),
        account.join("\n"),
        format!("{:?}", i.outcome),
        i.state.memo.calls(),
    )
}

#[test]
fn remembering_calls_changes_no_game() {
    for game in GAMES {
        let c = rules::check_path(std::path::Path::new(game), &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        for seed in 1..=3 {
            let with = play(&prog, seed, true);
            let without = play(&prog, seed, false);
            assert_eq!(with.0, without.0, "{game} seed {seed}: steps");
            assert_eq!(with.1, without.1, "{game} seed {seed}: account");
            assert_eq!(with.2, without.2, "{game} seed {seed}: outcome");
            assert_eq!(without.3, 0, "{game}: nothing is remembered when it is off");
        }
    }
}

#[test]
fn calls_that_only_read_vars_are_remembered() {
    // Hegemony's `members(f)` is one: a filter over the players by a var.
    let c = rules::check_path(std::path::Path::new("games/hegemony"), &Limits::default());
    let prog = c.program.expect("program");
    assert!(play(&prog, 1, true).3 > 0);
}

/// A function whose arguments can make no key (a list, a text) is never looked up, and so
/// not remembered: its calls are compiled as any other's (inlined where small).
#[test]
fn calls_whose_arguments_make_no_key_are_not_remembered() {
    let c = rules::check_path(std::path::Path::new("games/hegemony"), &Limits::default());
    let prog = c.program.expect("program");
    let names = rules::interp::remembered(&prog);
    // `raw(plan: list, r)` and `spent(plan: list)` sum a list they are given.
    for f in ["raw", "raw_vs", "spent"] {
        assert!(
            !names.iter().any(|n| n == f),
            "{f} is remembered: {names:?}"
        );
    }
    for f in ["members", "holder", "lines"] {
        assert!(
            names.iter().any(|n| n == f),
            "{f} is not remembered: {names:?}"
        );
    }
}

/// The game at `path` remembers some calls, and plays the same without them.
fn remembers_and_plays_the_same(path: &str) {
    let c = rules::check_path(std::path::Path::new(path), &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let with = play(&prog, 1, true);
    let without = play(&prog, 1, false);
    assert!(with.3 > 0, "{path}: calls remembered");
    assert_eq!(with.0, without.0, "{path}: steps");
    assert_eq!(with.1, without.1, "{path}: account");
}

#[test]
fn calls_that_walk_a_kind_and_read_card_fields_are_remembered() {
    // Every function of this game walks all the cards of a kind and reads their fields.
    remembers_and_plays_the_same("tests/flow/remembered_field_calls.rules");
}

#[test]
fn calls_that_take_the_top_of_a_walked_kind_are_remembered() {
    // `first_held(q)` is the only function of this game: a filter over a kind, then `top`.
    remembers_and_plays_the_same("tests/flow/remembered_top.rules");
}

#[test]
fn calls_that_read_named_constants_are_remembered() {
    // `total(p)` reads the constant `bonus` and a var.
    remembers_and_plays_the_same("tests/flow/remembered_consts.rules");
}

#[test]
fn calls_that_ask_who_is_still_in_are_remembered() {
    // `still_in()` and `after_each()` loop over the players with `eliminated` and `next`.
    remembers_and_plays_the_same("tests/flow/remembered_eliminated.rules");
}

#[test]
fn calls_that_loop_over_zones_are_remembered() {
    // `held()` and `tops()` loop over the players' hands.
    remembers_and_plays_the_same("tests/flow/remembered_zones.rules");
}

#[test]
fn large_calls_that_walk_a_zone_and_run_card_code_are_remembered() {
    // `worth(p)` walks a hand, reads the cards' fields and runs their code.
    remembers_and_plays_the_same("tests/flow/remembered_card_code.rules");
}

/// A game with a searching seat (`P1=mc:2`) plays the same with and without remembered calls.
/// Its playouts run on copies of the position, some with the cards it does not know re-dealt
/// (their ids change in vars and card fields too): remembered calls must not carry over.
fn searching_agent_plays_the_same(game: &str, seed: u64) {
    let c = rules::check_path(std::path::Path::new(game), &Limits::default());
    let prog = c.program.expect("program");
    let with = play_with(&prog, "P1=mc:2,random", seed, true);
    let without = play_with(&prog, "P1=mc:2,random", seed, false);
    assert_eq!(with.0, without.0, "{game}: steps");
    assert_eq!(with.1, without.1, "{game}: account");
    assert_eq!(with.2, without.2, "{game}: outcome");
    assert!(with.3 > 0, "{game}: calls remembered");
}

#[test]
fn a_searching_agent_plays_the_same_with_and_without() {
    // Hegemony's remembered calls read vars (`members(f)`, `holder(f, r)`), but a search now
    // refuses Hegemony (its secret agendas stay hidden too long to replay: docs/simulate.md);
    // Ambition's read vars too, and its secret pacts are replayed across segments.
    searching_agent_plays_the_same("games/ambition", 2);
}

#[test]
fn a_searching_agent_plays_the_same_with_and_without_remembered_card_fields() {
    // Statecraft's `portfolio_of(h)` walks every policy card and reads its `host` var.
    searching_agent_plays_the_same("games/statecraft", 3);
}

/// Called with more arguments than it keeps results for (40 numbers, twice), a remembered
/// function gives the oldest results up (fewer than 40 are kept at the end) and still plays as
/// it does without any; `tests/flow/remembered_many_arguments.rules` checks the values.
#[test]
fn calls_with_more_arguments_than_kept_give_the_oldest_up() {
    let path = "tests/flow/remembered_many_arguments.rules";
    remembers_and_plays_the_same(path);
    let c = rules::check_path(std::path::Path::new(path), &Limits::default());
    let prog = c.program.expect("program");
    assert_eq!(rules::interp::remembered(&prog), ["weight"]);
    let kept = play(&prog, 1, true).3;
    assert!((1..40).contains(&kept), "{kept} results kept");
}

//! A program keeps the layout of the last number of players it was played with (`Layout`): a game
//! of another size, or under another slot limit, must not start from it.

use rules::interp::Interp;
use rules::limits::Limits;
use rules::program::Program;

fn program(game: &str) -> Program {
    let c = rules::check_path(std::path::Path::new(game), &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

/// Play with `n` random players: (steps, account, outcome).
fn play(prog: &Program, n: u32, seed: u64, limits: Limits) -> (u64, String, String) {
    let agents = rules::agent::make_agents("random", n, seed).expect("agents");
    let mut i = Interp::new(prog, n, seed, agents, limits).expect("interp");
    i.run().expect("the game runs");
    let account: Vec<String> = i.events.iter().filter_map(|e| e.text()).collect();
    (
        i.state.steps(),
        account.join("\n"),
        format!("{:?}", i.outcome),
    )
}

#[test]
fn each_number_of_players_gets_its_own_layout() {
    let prog = program("games/the-establishment.rules");
    for (n, seed) in [(3, 1), (5, 2), (3, 3), (4, 4), (4, 5)] {
        // A copy of a program starts with nothing kept.
        let fresh = play(&prog.clone(), n, seed, Limits::default());
        let kept = play(&prog, n, seed, Limits::default());
        assert_eq!(kept, fresh, "{n} players, seed {seed}");
    }
}

#[test]
fn a_kept_layout_is_checked_again_under_a_smaller_slot_limit() {
    let prog = program("games/the-establishment.rules");
    play(&prog, 4, 1, Limits::default());
    let small = Limits {
        max_slots: 4,
        ..Limits::default()
    };
    let agents = rules::agent::make_agents("random", 4, 1).expect("agents");
    let refused = Interp::new(&prog, 4, 1, agents, small)
        .err()
        .expect("refused");
    assert_eq!(refused.code, "limit::slots");
}

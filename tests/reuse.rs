//! `rules bench` plays games back to back, each starting in the room the last one's zones grew
//! (`Interp::reuse_zones`). A game must play the same whether its zones are fresh or reused.

use rules::interp::Interp;
use rules::limits::Limits;

fn play(prog: &rules::program::Program, seed: u64, room: Option<Vec<Vec<u32>>>) -> Interp<'_> {
    let agents = rules::agent::make_agents("random", 4, seed).expect("agents");
    let mut i = Interp::new(prog, 4, seed, agents, Limits::default()).expect("interp");
    i.record = false;
    if let Some(room) = room {
        i.reuse_zones(room);
    }
    i.run().expect("runs");
    i
}

#[test]
fn a_game_in_reused_zones_plays_as_in_fresh_ones() {
    let c = rules::check_path(
        std::path::Path::new("games/the-establishment.rules"),
        &Limits::default(),
    );
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let mut first = play(&prog, 1, None);
    let room = std::mem::take(&mut first.state.zones);
    assert!(
        room.iter().any(|z| !z.is_empty()),
        "the first game left cards"
    );
    let fresh = play(&prog, 2, None);
    let reused = play(&prog, 2, Some(room));
    assert_eq!(fresh.state.zones, reused.state.zones);
    assert_eq!(fresh.state.steps(), reused.state.steps());
    assert_eq!(fresh.state.card_vars, reused.state.card_vars);
    assert_eq!(fresh.choice_log, reused.choice_log);
}

#[test]
fn zones_of_another_layout_are_not_taken() {
    let c = rules::check_path(
        std::path::Path::new("games/the-establishment.rules"),
        &Limits::default(),
    );
    let prog = c.program.expect("program");
    let fresh = play(&prog, 3, None);
    let odd = play(&prog, 3, Some(vec![vec![1, 2, 3]]));
    assert_eq!(fresh.state.zones, odd.state.zones);
    assert_eq!(fresh.state.steps(), odd.state.steps());
}

/// A silent run works each choice site's texts out once (`Interp::keep_sketched`): a game after
/// one that sketched every site it reaches plays the same, to the step, as one that sketches them.
#[test]
fn a_game_after_sketched_sites_plays_as_a_first_game() {
    let c = rules::check_path(
        std::path::Path::new("games/the-establishment.rules"),
        &Limits::default(),
    );
    let prog = c.program.expect("program");
    let mut first = play(&prog, 4, None);
    let sketched = first.take_sketched();
    assert!(sketched.sites() > 0, "the first game sketched no site");
    let fresh = play(&prog, 5, None);
    let agents = rules::agent::make_agents("random", 4, 5).expect("agents");
    let mut kept = Interp::new(&prog, 4, 5, agents, Limits::default()).expect("interp");
    kept.record = false;
    kept.keep_sketched(sketched);
    kept.run().expect("runs");
    assert_eq!(fresh.state.zones, kept.state.zones);
    assert_eq!(fresh.state.steps(), kept.state.steps());
    assert_eq!(fresh.state.card_vars, kept.state.card_vars);
    assert_eq!(fresh.choice_log, kept.choice_log);
}

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

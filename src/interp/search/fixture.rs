//! A small game the tests of the search's rooms share.

use super::*;

pub(super) const HANDS: &str = r#"
kind Prize { value: int }
cards Prize (value) {
  gold: 10
  tin: 1
  lead: 2
  iron: 3
}
zone deck: Prize hidden
zone hand: Prize per player owner
var points: int per player = 0
game "Hands" { players: 2, rounds: 1, round: [play], score: score_of }
fn score_of(p: player) -> int = points[p]
setup {
  move Prize to deck
  shuffle deck
  draw 1 from deck to hand[P1]
  draw 1 from deck to hand[P2]
}
phase play {
  set points[P1] = 1
}
"#;

/// The state after setup of the game above.
pub(super) fn dealt(prog: &Program) -> State {
    let mut it = Interp::new(prog, 2, 5, Vec::new(), Limits::default()).expect("interp");
    it.init().expect("init");
    it.step(Pos::Setup).expect("setup");
    it.state
}

//! A player's view of a game, as text: the screen the human agent prints before asking
//! (`screen.rs`). The view itself (what that player may see, and nothing else) is the
//! interpreter's (`interp::seen`), re-exported here.

pub mod screen;

pub use crate::interp::{
    player_view, player_view_words, CardView, PlayerView, ScreenLine, VarFamily, VarView, ZoneView,
};

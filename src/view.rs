//! A player's view of a game, as text: the human agent prints it before asking. The view
//! itself (what that player may see, and nothing else) is the interpreter's (`interp::seen`),
//! re-exported here.

pub use crate::interp::{player_view, CardView, PlayerView, VarView, ZoneView};
use std::fmt::Write as _;

impl PlayerView {
    /// A short readable account of what the player sees: their zones, the zones with cards
    /// they know, counts of the rest, and the vars they may read.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let phase = self.phase.as_deref().unwrap_or("setup");
        let _ = writeln!(
            s,
            "--- what P{} sees (round {}, {phase}) ---",
            self.player + 1,
            self.round
        );
        for z in &self.zones {
            if z.cards.is_empty() && !z.mine {
                continue;
            }
            let hidden = z.cards.iter().filter(|c| **c == CardView::Hidden).count();
            let mut names: Vec<String> = z
                .cards
                .iter()
                .filter_map(|c| match c {
                    CardView::Known {
                        name,
                        face_up,
                        vars,
                        ..
                    } => {
                        let mut t = name.clone();
                        if !face_up {
                            t.push_str(" (face down)");
                        }
                        let vs: Vec<String> = vars
                            .iter()
                            .filter(|(_, x)| x != "none" && x != "0" && x != "no")
                            .map(|(n, x)| format!("{n} {x}"))
                            .collect();
                        if !vs.is_empty() {
                            t.push_str(&format!(" [{}]", vs.join(", ")));
                        }
                        Some(t)
                    }
                    CardView::Hidden => None,
                })
                .collect();
            if hidden > 0 {
                names.push(format!(
                    "{hidden} hidden card{}",
                    if hidden == 1 { "" } else { "s" }
                ));
            }
            let body = if names.is_empty() {
                "-".to_string()
            } else {
                names.join(", ")
            };
            let mark = if z.mine { "*" } else { " " };
            let _ = writeln!(s, "{mark} {:<24} {body}", z.name);
        }
        let shown: Vec<String> = self
            .vars
            .iter()
            .filter_map(|v| v.value.as_ref().map(|x| format!("{} = {x}", v.name)))
            .collect();
        if !shown.is_empty() {
            let _ = writeln!(s, "  vars: {}", shown.join("; "));
        }
        s
    }
}

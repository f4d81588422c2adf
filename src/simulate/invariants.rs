//! What must hold after every step of every simulated game: each card in at most one zone and
//! where the game thinks it is, and every bounded var inside its bounds. A violation is a bug
//! (in the rules or in `rules`), reported with the seed that reproduces it.

use crate::interp::State;
use crate::program::Program;
use crate::value::Value;

const NOWHERE: u32 = u32::MAX;

/// The first thing wrong with `state`, in words.
pub fn check(prog: &Program, state: &State) -> Option<String> {
    let cards = state.card_zone.len();
    let mut seen = vec![false; cards];
    for (z, zone) in state.zones.iter().enumerate() {
        for &c in zone {
            let Some(slot) = seen.get_mut(c as usize) else {
                return Some(format!("zone {z} holds card {c}, which does not exist"));
            };
            if *slot {
                return Some(format!("card `{}` is in two places", card_id(prog, c)));
            }
            *slot = true;
            if state.card_zone.get(c as usize).copied() != Some(z as u32) {
                return Some(format!(
                    "card `{}` lies in a zone the game does not think it is in",
                    card_id(prog, c)
                ));
            }
        }
    }
    for (c, &z) in state.card_zone.iter().enumerate() {
        let listed = seen.get(c).copied().unwrap_or(false);
        if z != NOWHERE && !listed {
            return Some(format!(
                "card `{}` is in no zone's list, though the game puts it in one",
                card_id(prog, c as u32)
            ));
        }
    }
    for (i, v) in prog.vars.iter().enumerate() {
        let Some((lo, hi)) = v.bounds else { continue };
        let base = state.var_base.get(i).copied().unwrap_or(0) as usize;
        let next = state
            .var_base
            .get(i + 1)
            .map_or(state.vars.len(), |b| *b as usize);
        for value in state.vars.get(base..next).unwrap_or(&[]) {
            if let Value::Int(n) = value {
                if *n < lo || *n > hi {
                    return Some(format!(
                        "`{}` is {n}, outside its bounds {lo}..{hi}",
                        v.name
                    ));
                }
            }
        }
    }
    None
}

fn card_id(prog: &Program, c: u32) -> String {
    prog.cards
        .get(c as usize)
        .map_or_else(|| c.to_string(), |d| d.id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;

    const GAME: &str = "game \"G\" {\n players: 2\n rounds: 1\n round: [p]\n}\nkind K { name: text }\ncards K (name) {\n a: \"A\"\n b: \"B\"\n}\nzone deck: K public\nzone pile: K public\nvar n: int in 0..3 = 1\nsetup { move @a to deck\n move @b to deck }\nphase p { }\n";

    fn state() -> (Program, State) {
        let c = crate::check_text("g.rules", GAME, &Limits::default());
        let prog = c.program.expect("checks");
        let agents = crate::agent::make_agents("first", 2, 1).expect("agents");
        let mut i =
            crate::interp::Interp::new(&prog, 2, 1, agents, Limits::default()).expect("interp");
        i.init().expect("init");
        i.step(crate::interp::Pos::Setup).expect("setup");
        let s = i.state.clone();
        drop(i);
        (prog, s)
    }

    #[test]
    fn a_sound_state_passes_and_broken_ones_are_named() {
        let (prog, s) = state();
        assert_eq!(check(&prog, &s), None);
        // The same card in two zones.
        let mut two = s.clone();
        let c = two.zones.iter().flatten().next().copied().expect("a card");
        if let Some(z) = two.zones.iter_mut().find(|z| !z.contains(&c)) {
            z.push(c);
        }
        assert!(check(&prog, &two).is_some_and(|m| m.contains("two places")));
        // A var out of its bounds.
        let mut out = s.clone();
        if let Some(v) = out.vars.iter_mut().find(|v| **v == Value::Int(1)) {
            *v = Value::Int(9);
        }
        assert!(check(&prog, &out).is_some_and(|m| m.contains("outside its bounds")));
        // A card the game puts in a zone that does not list it.
        let mut lost = s;
        if let Some(z) = lost.zones.iter_mut().find(|z| !z.is_empty()) {
            z.clear();
        }
        assert!(check(&prog, &lost).is_some_and(|m| m.contains("in no zone's list")));
    }
}

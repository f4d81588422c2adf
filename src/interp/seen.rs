//! A player's view of a position: what that player may see, and nothing else. Agents are
//! handed this (never the `State`); a search compares it to tell positions apart; the human
//! agent shows it (`crate::view::screen`), or the lines of the game's own `screen`
//! (`ScreenLine`, worked out in `interp::screen`).

use super::{holds, key_count, State, View};
use crate::program::Program;

/// A card as one player sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardView {
    Hidden,
    Known {
        id: String,
        name: String,
        face_up: bool,
        /// The card's `var` fields, as text.
        vars: Vec<(String, String)>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneView {
    pub name: String,
    /// The zone is kept for this player (`hand[P2]` for P2).
    pub mine: bool,
    pub cards: Vec<CardView>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarView {
    pub name: String,
    /// `None` when the var is hidden from this player.
    pub value: Option<String>,
    /// The family (`PlayerView::families`) this entry belongs to.
    pub family: u32,
    /// It holds the value the game started it with (never said of a var hidden from this
    /// player: that would tell its value).
    pub default: bool,
}

/// A var family: its name, and whether the game keeps it for its own bookkeeping (`internal`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarFamily {
    pub name: String,
    pub internal: bool,
    pub keyed: bool,
}

/// A line of the game's own `screen`, as the seat reads it: its label and its items (a list's
/// elements, or the one value), each item on a line of its own when `each_line` (a few cards,
/// each as its `describe` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenLine {
    pub label: String,
    pub items: Vec<String>,
    pub each_line: bool,
}

/// Everything one player may see of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerView {
    pub player: u32,
    pub round: i64,
    pub phase: Option<String>,
    pub zones: Vec<ZoneView>,
    pub vars: Vec<VarView>,
    pub families: Vec<VarFamily>,
}

/// Build `player`'s view of `state`; a `player` past the seats (`events::PUBLIC`) sees what
/// every seat sees. Values are written as the rules write them (`[(Military, 2)]`), one text
/// per value, so a search tells positions apart by them.
pub fn player_view(prog: &Program, state: &State, player: u32) -> PlayerView {
    view_of(prog, state, player, false)
}

/// `player_view` for a person to read: lists and tuples in words (`View::prose_parts`:
/// "Military 2 and Foreign affairs 3", an empty list `none`). Built only to be shown (a
/// person's screen, a served page), never on a silent run's path.
pub fn player_view_words(prog: &Program, state: &State, player: u32) -> PlayerView {
    view_of(prog, state, player, true)
}

fn view_of(prog: &Program, state: &State, player: u32, prose: bool) -> PlayerView {
    let v = View {
        prog,
        n_players: state.n_players,
        zone_base: &state.zone_base,
    };
    // A viewer who is no seat (`events::PUBLIC`, a spectator) knows what every player knows.
    let all = super::everyone(state.n_players);
    let sees = |set: super::Players| {
        if player >= state.n_players {
            all != 0 && set & all == all
        } else {
            holds(set, player)
        }
    };
    let knows = |c: u32| sees(state.known.get(c as usize).copied().unwrap_or(0));
    let zones = (0..state.zones.len() as u32)
        .map(|slot| ZoneView {
            name: zone_label(&v, slot),
            mine: v.zone_owner(slot) == Some(player),
            cards: state.zones[slot as usize]
                .iter()
                .map(|&c| {
                    if !knows(c) {
                        return CardView::Hidden;
                    }
                    card_view(&v, state, c, player, prose)
                })
                .collect(),
        })
        .collect();
    let mut vars = Vec::new();
    let mut families = Vec::with_capacity(prog.vars.len());
    for (id, vd) in prog.vars.iter().enumerate() {
        families.push(VarFamily {
            name: vd.name.clone(),
            internal: vd.internal,
            keyed: !vd.keys.is_empty(),
        });
        let first = state.var_first.get(id);
        let base = state.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = super::family_size(&vd.keys, state.n_players, prog).unwrap_or(0);
        for off in 0..size {
            let name = if vd.keys.is_empty() {
                vd.name.clone()
            } else {
                format!("{}[{}]", vd.name, key_names(&v, &vd.keys, off).join(", "))
            };
            let x = state.vars.get(base + off as usize);
            let readable = sees(v.var_readers(id as u32, off));
            let value = if readable {
                x.map(|x| shown(&v, state, x, player, prose))
            } else {
                None
            };
            vars.push(VarView {
                name,
                value,
                family: id as u32,
                // Whether a var hidden from the player holds its first value is hidden too
                // (a secret throw of the starting value would show as untouched).
                default: readable && x.is_some() && x == first,
            });
        }
    }
    PlayerView {
        player,
        round: state.round,
        phase: state
            .phase
            .and_then(|p| prog.phases.get(p as usize))
            .map(|p| p.name.clone()),
        zones,
        vars,
        families,
    }
}

/// A value as `player` may read it: cards they do not know hidden, enum values in words, and
/// with `prose` lists and tuples in words too.
fn shown(v: &View, state: &State, x: &crate::value::Value, player: u32, prose: bool) -> String {
    let parts = if prose {
        v.prose_parts(x, &state.known, false)
    } else {
        v.show_parts(x, &state.known)
    };
    parts.for_viewer(player).words()
}

fn card_view(v: &View, state: &State, c: u32, player: u32, prose: bool) -> CardView {
    let prog = v.prog;
    let Some(cd) = prog.cards.get(c as usize) else {
        return CardView::Hidden;
    };
    let mut vars = Vec::new();
    if let Some(kd) = prog.kinds.get(cd.kind as usize) {
        let base = state.card_var_base.get(c as usize).copied().unwrap_or(0);
        for f in kd.fields.iter().filter(|f| f.mutable) {
            if let Some(Some((true, i))) = kd.slot_of.get(f.sym as usize) {
                if let Some(x) = state.card_vars.get((base + i) as usize) {
                    // A card var may hold other cards: shown only if those are known too.
                    vars.push((f.name.clone(), shown(v, state, x, player, prose)));
                }
            }
        }
    }
    CardView::Known {
        id: cd.id.to_string(),
        name: v.card_name(c),
        face_up: state.face_up.get(c as usize).copied().unwrap_or(true),
        vars,
    }
}

/// A zone slot's name as a player reads it: `seat_at[P1, Inner left]`.
fn zone_label(v: &View, slot: u32) -> String {
    let def = v.zone_def_of_slot(slot);
    let (Some(zd), Some(&base)) = (
        v.prog.zones.get(def as usize),
        v.zone_base.get(def as usize),
    ) else {
        return v.zone_name(slot);
    };
    if zd.keys.is_empty() {
        return zd.name.clone();
    }
    let keys = key_names(v, &zd.keys, slot.saturating_sub(base));
    format!("{}[{}]", zd.name, keys.join(", "))
}

/// The key values of a family slot, as a player reads them (`P2`, `Inner left`, `3`).
fn key_names(v: &View, keys: &[crate::program::KeyDomain], off: u32) -> Vec<String> {
    use crate::program::KeyDomain;
    let mut rest = off;
    let mut parts = Vec::new();
    for d in keys.iter().rev() {
        let n = key_count(d, v.n_players, v.prog).max(1);
        let i = rest % n;
        rest /= n;
        parts.push(match d {
            KeyDomain::Player => format!("P{}", i + 1),
            KeyDomain::Enum(e) => v.enum_words(*e, i),
            KeyDomain::Range(lo, _) => lo.saturating_add(i64::from(i)).to_string(),
        });
    }
    parts.reverse();
    parts
}

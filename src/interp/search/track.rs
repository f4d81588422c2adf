//! What the interpreter keeps for a search: the state at the last segment boundary, or an
//! earlier one while a var hidden from some player holds a value a copy would not re-deal
//! (`Track`, `Track::holds_back`), the choices asked and the game's draws since (`Asked`),
//! and who learnt which card on the way; the `Interp` hooks that keep it, and `SearchMemory`,
//! what a resumed session hands back.

use super::deal::{dealable, each_card, holds_one_card};
use super::*;

/// The state at the last segment boundary, and the choices asked since (secret or not,
/// forced or not).
#[derive(Clone)]
pub(in crate::interp) struct Track {
    pub(super) pos: Pos,
    pub(super) state: State,
    pub(super) asked: Vec<Asked>,
    /// Who has seen each card since the boundary: who knew it there, and who learnt it since
    /// (`Interp::saw`). A card the seat saw on the way (shown, then taken back into a hand) is
    /// not re-dealt, as a card it knows now is not.
    pub(in crate::interp) seen: Vec<Players>,
    /// Boundaries passed since this one while it held the replay back (`holds_back`).
    held: u32,
    /// The var that held it back too long (`MAX_HELD`) and whose values cannot be dealt
    /// (`dealable`): a search refuses.
    refused: Option<u32>,
    /// Vars that held it back too long whose entries a determinisation deals afresh from every
    /// value of their type (`SearchPoint::deal_values`): they hold the replay back no longer.
    /// Kept from boundary to boundary.
    pub(super) dealt: Vec<u32>,
}

/// A choice asked since the boundary: who answered, with which option, whether in secret.
/// Forced choices (one option) are kept too: in a copy where the chooser holds other cards the
/// same choice may offer more, or none.
#[derive(Clone, Debug)]
pub(super) struct Asked {
    pub(super) player: u32,
    pub(super) index: usize,
    /// How many options it had.
    pub(super) count: usize,
    pub(super) secret: bool,
    /// The option taken.
    pub(super) taken: Value,
}

/// A replay held back (`Track::holds_back`) goes back at most this many boundaries, and replays
/// at most `MAX_HELD_STEPS` steps of the game: past them, a var that holds the track back has
/// stood hidden too long to be replayed from where it was made (every copy, and every probe,
/// would replay it), and a search refuses rather than read it. Ambition's secret pacts hold it
/// back up to 6 segments and 10,300 steps (2 and 4 players, `mc:2`, 62 games); Hegemony's
/// agendas, dealt at setup and kept all game, pass 20,000 steps by the fifth segment.
pub(super) const MAX_HELD: u32 = 24;
pub(super) const MAX_HELD_STEPS: u64 = 20_000;

impl Track {
    /// The var, if any, for which the replay must go on from this track's boundary rather than
    /// from the boundary the game is at (`now`): one hidden from some player, written since
    /// this boundary, with a slot some player may not read that is not back at its first value
    /// and whose value a determinisation would not re-deal. That is a value (a number, a word,
    /// a player: from a later boundary it would be the real one in every copy), or a card
    /// someone who may not read the var knows or that lies in no zone (which card the var names
    /// is then the secret; a card in a zone that nobody but the var's readers knows is
    /// re-dealt, and the var follows it). From this
    /// boundary, the draws and other players' secret answers that made the value are replayed
    /// afresh. A track starts at the game's setup (every var at its first value) or where no
    /// such var was written since the last start, so what such vars hold there, every seat
    /// knows.
    pub(super) fn holds_back(&self, prog: &Program, now: &State) -> Option<u32> {
        let since = self.state.var_clock;
        let view = View {
            prog,
            n_players: now.n_players,
            zone_base: &now.zone_base,
        };
        (0..prog.vars.len() as u32).find(|&id| {
            let Some(vd) = prog.vars.get(id as usize) else {
                return false;
            };
            if vd.visibility == crate::ast::Visibility::Public
                || self.dealt.contains(&id)
                || now.var_stamp.get(id as usize).is_none_or(|&s| s <= since)
            {
                return false;
            }
            let cards = names_cards(&vd.ty);
            let base = now.var_base.get(id as usize).copied().unwrap_or(0) as usize;
            let size = family_size(&vd.keys, now.n_players, prog).unwrap_or(0);
            let first = now.var_first.get(id as usize);
            (0..size).any(|off| {
                let Some(v) = now.vars.get(base + off as usize) else {
                    return false;
                };
                let readers = view.var_readers(id, off);
                if Some(v) == first || readers == everyone(now.n_players) {
                    return false;
                }
                if !cards {
                    return true;
                }
                // One card in no zone, in a var of one card: dealt (`held_places`).
                if let Value::Card(c) = v {
                    if holds_one_card(&vd.ty) && now.card_zone.get(*c as usize) == Some(&NOWHERE) {
                        return false;
                    }
                }
                let mut told = false;
                each_card(v, &mut |c| {
                    let known = now.known.get(c as usize).copied().unwrap_or(0);
                    let nowhere = now.card_zone.get(c as usize).is_none_or(|&z| z == NOWHERE);
                    told |= nowhere || known & !readers != 0;
                });
                told
            })
        })
    }

    /// Why a search may not search from this track: the var that held it back past `MAX_HELD`
    /// boundaries or `MAX_HELD_STEPS` steps.
    pub(super) fn refused(&self) -> Option<u32> {
        self.refused
    }

    pub(super) fn at(pos: Pos, state: &State) -> Track {
        Track {
            pos,
            state: state.clone(),
            asked: Vec::new(),
            seen: state.known.clone(),
            held: 0,
            refused: None,
            dealt: Vec::new(),
        }
    }

    /// A choice answered in the game (forced or not).
    pub(in crate::interp) fn asked(
        &mut self,
        player: u32,
        options: &[Value],
        index: usize,
        secret: bool,
    ) {
        self.asked.push(Asked {
            player,
            index,
            count: options.len(),
            secret,
            taken: options.get(index).cloned().unwrap_or_default(),
        });
    }
}

/// Whether values of type `ty` name cards only (a card, `none`, a list of cards): what such a
/// var holds may follow the cards a determinisation re-deals (`Track::holds_back`).
fn names_cards(ty: &Ty) -> bool {
    match ty {
        Ty::Card(_) | Ty::None => true,
        Ty::Opt(t) | Ty::List(t) => names_cards(t),
        _ => false,
    }
}

/// What a search keeps of the game so far (`Track`), opaque: a session that resumes a game from
/// a boundary of its own (the REPL, `serve`) hands it back, so a search replays from where it
/// would in `rules run` (a boundary held back, `Track::holds_back`, is earlier than the one
/// resumed from).
#[derive(Clone, Default)]
pub struct SearchMemory(Option<Box<Track>>);

impl Interp<'_> {
    /// What a search keeps now, to resume from (`set_search_memory`).
    pub fn search_memory(&self) -> SearchMemory {
        SearchMemory(self.search.clone())
    }

    /// Resume with what a search kept (`search_memory`), and keep it from now on whoever
    /// answers (a person may hand a seat to a search later).
    pub fn set_search_memory(&mut self, memory: SearchMemory) {
        self.searching = true;
        self.search = memory.0;
    }

    /// At a segment boundary: keep the state, when an agent searches, unless the state kept
    /// must stay (`Track::holds_back`): then the replay goes on from the earlier boundary.
    pub(in crate::interp) fn track_boundary(&mut self, pos: Pos) {
        if !self.searching {
            return;
        }
        let mut dealt = Vec::new();
        if let Some(t) = self.search.as_deref_mut() {
            if t.holds_back(self.prog, &self.state).is_some() {
                t.held = t.held.saturating_add(1);
                let steps = self.state.steps().saturating_sub(t.state.steps());
                if t.held <= MAX_HELD && steps <= MAX_HELD_STEPS {
                    return;
                }
            }
            // Held back too long: a var whose every value can be dealt is dealt afresh in each
            // copy from now on (what it holds, the seat learns only from the game); another
            // makes the search refuse.
            while let Some(var) = t.holds_back(self.prog, &self.state) {
                if !dealable(self.prog, var) {
                    t.refused.get_or_insert(var);
                    return;
                }
                t.dealt.push(var);
            }
            dealt = std::mem::take(&mut t.dealt);
        }
        let mut track = Track::at(pos, &self.state);
        track.dealt = dealt;
        self.search = Some(Box::new(track));
    }

    /// A draw of the game's own randomness, uniform in `0..n` (`roll`, `roll_dice`,
    /// `pick_random`, `shuffled`): the game's stream as ever. When an agent searches, the draw
    /// is kept in the track, as a secret answer of nobody's (`NATURE`); a playout replaying the
    /// track answers it afresh (`answer_hidden`: drawn among the values the probes found to
    /// fit what the seat saw, weighted back to uniform), so a value the seat never saw, a die
    /// kept in a var hidden from it, is re-rolled in every copy. The game's stream is drawn from
    /// all the same, so the draws after it (a shuffle) stay where they were.
    pub(crate) fn draw_below(&mut self, n: u32) -> u32 {
        let real = rng::below(&mut self.state.rng, n);
        if n <= 1 {
            return real;
        }
        if let Some(pl) = self.playout.as_deref_mut() {
            return pl.draw(n, real);
        }
        if let Some(t) = self.search.as_deref_mut() {
            t.asked.push(Asked {
                player: NATURE,
                index: real as usize,
                count: n as usize,
                secret: true,
                taken: Value::Int(i64::from(real)),
            });
        }
        real
    }

    /// Players `who` have just learnt card `c` (`visibility.rs`): kept since the boundary, when
    /// an agent searches.
    #[inline]
    pub(in crate::interp) fn saw(&mut self, c: u32, who: Players) {
        if let Some(s) = self
            .search
            .as_deref_mut()
            .and_then(|t| t.seen.get_mut(c as usize))
        {
            *s |= who;
        }
    }
}

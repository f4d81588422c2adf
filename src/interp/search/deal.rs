//! Determinising: a copy of the boundary state for the searching seat, the cards it does not
//! know re-dealt within their class (`Dealing`, worked out once per choice searched), the
//! var entries hidden from it that hold a card in no zone dealt from a pool (`held_places`,
//! `seen_names`), the vars held back too long dealt from their values (`values_of`); and the
//! chain's step from a copy (`step`, `exchange`).

use super::*;

/// What a determinisation deals, the same for every copy of one choice searched: the cards the
/// seat does not know, by class (each class sorted by id), and the places holding them, named
/// by the card lying there in the boundary state, class by class in slot order.
#[derive(Default)]
pub(in crate::interp) struct Dealing {
    pub(super) classes: Vec<Vec<u32>>,
    pub(super) places: Vec<u32>,
    /// Var entries hidden from the seat that hold a card in no zone (`held_places`): the slot
    /// of each in `State::vars`, in slot order, with the pool it is dealt from.
    held: Vec<(usize, usize)>,
    /// The pools: the cards of one class in no zone that nothing the seat reads names (or,
    /// when that leaves none, every card of the class in no zone), sorted by id.
    pools: Vec<Vec<u32>>,
}

impl SearchPoint<'_> {
    /// A determinisation drawn afresh: the cards the seat does not know re-dealt at random
    /// among the places holding such cards (see the module's account), the var entries hidden
    /// from it dealt, and a fresh stream for the replay's secret answers and draws.
    pub(super) fn fresh(&self, rng: &mut ChaCha8Rng) -> World {
        let mut st = self.track.state.clone();
        let sigma = self.deal(rng);
        if let Some(sigma) = sigma {
            relabel_state(&mut st, &sigma);
        }
        self.deal_held(&mut st, rng);
        self.deal_values(&mut st, rng);
        World {
            state: st,
            repick: rng::draw_u64(rng),
            verdict: Rc::default(),
            local: 0,
        }
    }

    /// A step of the chain from its copy (`st`, answers drawn from `repick`), drawn from `rng`:
    /// the copy with the other players' secret answers and the game's draws drawn afresh, or
    /// (one time in two) with two cards of one class exchanged (`exchange`), its answers as
    /// drawn. The stream of the answers the step's copy draws.
    pub(super) fn step(&self, st: &mut State, repick: u64, rng: &mut ChaCha8Rng) -> u64 {
        if rng::below(rng, 2) == 0 || !self.exchange(st, rng) {
            rng::draw_u64(rng)
        } else {
            repick
        }
    }

    /// Exchange two cards of one class that a determinisation deals, in a copy (`st`): the
    /// first drawn uniformly among the dealt cards of classes of two or more, the second among
    /// the other cards of its class. A step of the chain, symmetric (each exchange is drawn
    /// with the same chance from either side). `false` when no class has two cards.
    fn exchange(&self, st: &mut State, rng: &mut ChaCha8Rng) -> bool {
        let d = self.dealing.get_or_init(|| self.dealing());
        let total: usize = d.classes.iter().filter(|g| g.len() > 1).map(Vec::len).sum();
        if total == 0 {
            return false;
        }
        let mut k = rng::below(rng, total.min(u32::MAX as usize) as u32) as usize;
        for group in d.classes.iter().filter(|g| g.len() > 1) {
            if k >= group.len() {
                k -= group.len();
                continue;
            }
            let other = rng::below(rng, (group.len() - 1).min(u32::MAX as usize) as u32) as usize;
            let other = if other >= k { other + 1 } else { other };
            let (Some(&a), Some(&b)) = (group.get(k), group.get(other)) else {
                return false;
            };
            let mut sigma: Vec<u32> = (0..st.known.len() as u32).collect();
            if a as usize >= sigma.len() || b as usize >= sigma.len() {
                return false;
            }
            // In bounds: checked just above.
            sigma.swap(a as usize, b as usize);
            relabel_state(st, &sigma);
            return true;
        }
        false
    }

    /// The permutation of cards a determinisation makes of the boundary state: the cards the
    /// seat has not seen since the boundary (nor sees now), shuffled within their class and dealt back
    /// into the places holding such cards. `None` when it renames no card.
    fn deal(&self, rng: &mut ChaCha8Rng) -> Option<Vec<u32>> {
        let d = self.dealing.get_or_init(|| self.dealing());
        if d.places.is_empty() {
            return None;
        }
        let mut sigma: Vec<u32> = (0..self.track.state.known.len() as u32).collect();
        let mut into = d.places.iter();
        for group in &d.classes {
            let mut dealt: Vec<u32> = group.clone();
            rng::shuffle(rng, &mut dealt);
            for (&new, &place) in dealt.iter().zip(into.by_ref()) {
                if let Some(s) = sigma.get_mut(place as usize) {
                    *s = new;
                }
            }
        }
        sigma
            .iter()
            .enumerate()
            .any(|(i, &s)| i as u32 != s)
            .then_some(sigma)
    }

    /// Deal the var entries hidden from the seat that hold a card in no zone (`Dealing::held`):
    /// each pool shuffled and dealt out to its entries in slot order, shuffled again when it
    /// runs out (an entry's card may be another entry's too: the game may deal the same card
    /// of its list to several players, as Hegemony's factions each deal from all the agendas).
    fn deal_held(&self, st: &mut State, rng: &mut ChaCha8Rng) {
        let d = self.dealing.get_or_init(|| self.dealing());
        if d.held.is_empty() {
            return;
        }
        let mut decks: Vec<Vec<u32>> = vec![Vec::new(); d.pools.len()];
        for &(slot, pool) in &d.held {
            let (Some(deck), Some(cards)) = (decks.get_mut(pool), d.pools.get(pool)) else {
                continue;
            };
            if deck.is_empty() {
                *deck = cards.clone();
                rng::shuffle(rng, deck);
            }
            if let (Some(c), Some(v)) = (deck.pop(), st.vars.get_mut(slot)) {
                *v = Value::Card(c);
            }
        }
        // Remembered calls may hold the cards dealt before.
        st.memo = crate::interp::Memo::default();
    }

    /// Deal the entries hidden from the seat of the vars held back too long (`Track::dealt`):
    /// each a value of the var's type drawn uniformly (`dealable`), `none` among them where the
    /// var starts at `none`. The seat knows of them only their type: a value made by secret
    /// answers and draws so long ago that replaying them in every copy would cost too much.
    fn deal_values(&self, st: &mut State, rng: &mut ChaCha8Rng) {
        if self.track.dealt.is_empty() {
            return;
        }
        let view = View {
            prog: self.prog,
            n_players: st.n_players,
            zone_base: &st.zone_base,
        };
        let mut changed = false;
        for &id in &self.track.dealt {
            let Some(vd) = self.prog.vars.get(id as usize) else {
                continue;
            };
            let first = st.var_first.get(id as usize).cloned().unwrap_or_default();
            let values = values_of(self.prog, vd, st.n_players, first == Value::None);
            if values.is_empty() {
                continue;
            }
            let base = st.var_base.get(id as usize).copied().unwrap_or(0) as usize;
            let size = family_size(&vd.keys, st.n_players, self.prog).unwrap_or(0);
            for off in 0..size {
                if holds(view.var_readers(id, off), self.seat) {
                    continue;
                }
                let pick = rng::below(rng, values.len() as u32) as usize;
                if let (Some(v), Some(x)) = (st.vars.get_mut(base + off as usize), values.get(pick))
                {
                    *v = x.clone();
                    changed = true;
                }
            }
        }
        if changed {
            // Remembered calls may have read the values dealt over.
            st.memo = crate::interp::Memo::default();
        }
    }

    /// What every determinisation of this choice deals (`deal`): worked out once.
    pub(super) fn dealing(&self) -> Dealing {
        let st = &self.track.state;
        let seat = self.seat;
        let unknown = |c: u32| {
            let since = self.track.seen.get(c as usize).copied().unwrap_or(0);
            let now = self.now.known.get(c as usize).copied().unwrap_or(0);
            !holds(since, seat) && !holds(now, seat)
        };
        // A card's class: its kind and the values of its var fields (a card re-dealt keeps its
        // own; only cards alike in both are exchanged, so `c.owner` still says whose deck a
        // card goes back to). Compared in place, without copying the values.
        let kind_of = |c: u32| self.prog.cards.get(c as usize).map_or(0, |d| d.kind);
        let vars_of = |c: u32| -> &[Value] {
            let n = self
                .prog
                .kinds
                .get(kind_of(c) as usize)
                .map_or(0, |k| k.var_count) as usize;
            let base = st.card_var_base.get(c as usize).copied().unwrap_or(0) as usize;
            st.card_vars.get(base..base + n).unwrap_or(&[])
        };
        let class = |a: u32, b: u32| {
            kind_of(a)
                .cmp(&kind_of(b))
                .then_with(|| vars_of(a).cmp(vars_of(b)))
        };
        // The places holding cards the seat does not know: (slot, index, card).
        let mut places: Vec<(u32, usize, u32)> = Vec::new();
        for (slot, zone) in st.zones.iter().enumerate() {
            for (i, &c) in zone.iter().enumerate() {
                if unknown(c) {
                    places.push((slot as u32, i, c));
                }
            }
        }
        // Canonical: the cards by class, then id (the multiset); the places by class, then
        // slot order. Each class's cards are shuffled and dealt into that class's places.
        let mut cards: Vec<u32> = places.iter().map(|p| p.2).collect();
        cards.sort_unstable_by(|&a, &b| class(a, b).then(a.cmp(&b)));
        places.sort_unstable_by(|a, b| class(a.2, b.2).then((a.0, a.1).cmp(&(b.0, b.1))));
        let mut d = Dealing {
            classes: cards
                .chunk_by(|&a, &b| class(a, b).is_eq())
                .map(<[u32]>::to_vec)
                .collect(),
            places: places.iter().map(|p| p.2).collect(),
            held: Vec::new(),
            pools: Vec::new(),
        };
        // Var entries hidden from the seat holding a card in no zone (a secret agenda dealt
        // from the card list): each gets a card of its class in no zone. Which card an entry
        // holds is what the seat does not know; the pool is worked out from what it does: the
        // cards of the class in no zone (never in a zone: a card cannot go back to no zone),
        // less those a var the seat reads, a var field of a card it knows or the phase's items
        // name, for the seat knows where those are. The entry's own card is in its pool only when every other
        // place names it (then it is every card of the class in no zone).
        let held = held_places(self.prog, st, seat);
        if held.is_empty() {
            return d;
        }
        let named = seen_names(self.prog, st, seat);
        for (slot, c) in held {
            let pool = match d
                .pools
                .iter()
                .position(|p| p.first().is_some_and(|&x| class(x, c).is_eq()))
            {
                Some(i) => i,
                None => {
                    let nowhere = |x: &u32| {
                        st.card_zone.get(*x as usize) == Some(&NOWHERE) && class(*x, c).is_eq()
                    };
                    let all: Vec<u32> = (0..st.card_zone.len() as u32).filter(nowhere).collect();
                    let free: Vec<u32> = all
                        .iter()
                        .copied()
                        .filter(|&x| named.get(x as usize) != Some(&true))
                        .collect();
                    d.pools.push(if free.is_empty() { all } else { free });
                    d.pools.len() - 1
                }
            };
            d.held.push((slot, pool));
        }
        d
    }
}

/// A value with every card renamed by `sigma` (`None` when nothing changes).
fn relabel(v: &Value, sigma: &[u32]) -> Option<Value> {
    match v {
        Value::Card(c) => sigma
            .get(*c as usize)
            .filter(|&&n| n != *c)
            .map(|&n| Value::Card(n)),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
            let mut changed = false;
            let new: Vec<Value> = v
                .seq_items()
                .iter()
                .flat_map(|items| items.iter())
                .map(|x| match relabel(x, sigma) {
                    Some(n) => {
                        changed = true;
                        n
                    }
                    None => x.clone(),
                })
                .collect();
            changed.then(|| match v {
                Value::List(_) => Value::list(new),
                _ => Value::tuple_made(new),
            })
        }
        _ => None,
    }
}

fn relabel_all(values: &mut [Value], sigma: &[u32]) {
    for v in values.iter_mut() {
        if let Some(n) = relabel(v, sigma) {
            *v = n;
        }
    }
}

/// Rename the cards of `st` by `sigma` (a permutation): the cards in the zones, and references
/// to them in vars, card vars and the items of the phase under way. Where a card lies, its face and who knows it belong to the
/// place, so they go with the card now lying there.
fn relabel_state(st: &mut State, sigma: &[u32]) {
    for zone in st.zones.iter_mut() {
        for c in zone.iter_mut() {
            *c = sigma.get(*c as usize).copied().unwrap_or(*c);
        }
    }
    let (zone_of, face, known) = (st.card_zone.clone(), st.face_up.clone(), st.known.clone());
    for (old, &new) in sigma.iter().enumerate() {
        let new = new as usize;
        if new == old {
            continue;
        }
        if let (Some(z), Some(&v)) = (st.card_zone.get_mut(new), zone_of.get(old)) {
            *z = v;
        }
        if let (Some(f), Some(&v)) = (st.face_up.get_mut(new), face.get(old)) {
            *f = v;
        }
        if let (Some(k), Some(&v)) = (st.known.get_mut(new), known.get(old)) {
            *k = v;
        }
    }
    relabel_all(&mut st.vars, sigma);
    relabel_all(&mut st.card_vars, sigma);
    // The items of a phase under way (`phase turns for c in ...`) refer to places too.
    if let Some(items) = &st.phase_items {
        if let Some(Value::List(l)) = relabel(&Value::List(items.clone()), sigma) {
            st.phase_items = Some(l);
        }
    }
    // Remembered calls may hold the cards' old names.
    st.memo = crate::interp::Memo::default();
}

/// Every card named in `v`.
pub(super) fn each_card(v: &Value, f: &mut dyn FnMut(u32)) {
    match v {
        Value::Card(c) => f(*c),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
            for x in v.seq_items().iter().flat_map(|items| items.iter()) {
                each_card(x, f);
            }
        }
        _ => {}
    }
}

/// The var entries hidden from `seat` that a determinisation deals (`Dealing::held`): an entry,
/// of a var of one card (`Ty::Card`, maybe `none`), that holds a card in no zone. Its slot in
/// `State::vars` and the card, in slot order.
fn held_places(prog: &Program, st: &State, seat: u32) -> Vec<(usize, u32)> {
    let view = View {
        prog,
        n_players: st.n_players,
        zone_base: &st.zone_base,
    };
    let mut out = Vec::new();
    for (id, vd) in prog.vars.iter().enumerate() {
        if vd.visibility == crate::ast::Visibility::Public || !holds_one_card(&vd.ty) {
            continue;
        }
        let base = st.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = family_size(&vd.keys, st.n_players, prog).unwrap_or(0);
        for off in 0..size {
            let slot = base + off as usize;
            if let Some(&Value::Card(c)) = st.vars.get(slot) {
                if st.card_zone.get(c as usize) == Some(&NOWHERE)
                    && !holds(view.var_readers(id as u32, off), seat)
                {
                    out.push((slot, c));
                }
            }
        }
    }
    out
}

/// Whether a var of type `ty` holds one card (or `none`): its entries holding a card in no zone
/// are dealt (`held_places`).
pub(super) fn holds_one_card(ty: &Ty) -> bool {
    match ty {
        Ty::Card(_) => true,
        Ty::Opt(t) => holds_one_card(t),
        _ => false,
    }
}

/// The cards `seat` sees named, by card: in a var entry it may read, a var field of a card it
/// knows in a zone, the items of the phase under way.
fn seen_names(prog: &Program, st: &State, seat: u32) -> Vec<bool> {
    let view = View {
        prog,
        n_players: st.n_players,
        zone_base: &st.zone_base,
    };
    let mut named = vec![false; st.card_zone.len()];
    let mut mark = |c: u32| {
        if let Some(n) = named.get_mut(c as usize) {
            *n = true;
        }
    };
    for (id, vd) in prog.vars.iter().enumerate() {
        let base = st.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = family_size(&vd.keys, st.n_players, prog).unwrap_or(0);
        for off in 0..size {
            if holds(view.var_readers(id as u32, off), seat) {
                if let Some(v) = st.vars.get(base + off as usize) {
                    each_card(v, &mut mark);
                }
            }
        }
    }
    // The var fields of the cards the seat knows, in a zone (those of a card it does not know
    // are as hidden as the card).
    for (c, &z) in st.card_zone.iter().enumerate() {
        if z == NOWHERE || !holds(st.known.get(c).copied().unwrap_or(0), seat) {
            continue;
        }
        let n = prog
            .cards
            .get(c)
            .and_then(|d| prog.kinds.get(d.kind as usize))
            .map_or(0, |k| k.var_count) as usize;
        let base = st.card_var_base.get(c).copied().unwrap_or(0) as usize;
        for v in st.card_vars.get(base..base + n).unwrap_or(&[]) {
            each_card(v, &mut mark);
        }
    }
    for v in st.phase_items.iter().flat_map(|l| l.iter()) {
        each_card(v, &mut mark);
    }
    named
}

/// Whether a var held back too long can be dealt from the values of its type (`deal_values`):
/// one player, enum value or boolean, or a number within its bounds (at most `MAX_DEALT`
/// values), each maybe `none`.
pub(super) fn dealable(prog: &Program, id: u32) -> bool {
    prog.vars
        .get(id as usize)
        .is_some_and(|vd| !values_of(prog, vd, 1, true).is_empty())
}

/// The most values a var's type may have for its entries to be dealt (`dealable`).
const MAX_DEALT: i64 = 1024;

/// Every value of var `vd`'s type with `n` players, `none` first when `none` is one of them;
/// empty for a type whose values are not few (text, cards, lists, unbounded numbers).
fn values_of(prog: &Program, vd: &VarDef, n: u32, none: bool) -> Vec<Value> {
    let (ty, opt) = match &vd.ty {
        Ty::Opt(t) => (&**t, true),
        t => (t, false),
    };
    let mut out: Vec<Value> = match ty {
        Ty::Player => (0..n).map(Value::Player).collect(),
        Ty::Bool => vec![Value::Bool(false), Value::Bool(true)],
        Ty::Enum(e) => {
            let count = prog.enums.get(*e as usize).map_or(0, |d| d.variants.len()) as u32;
            (0..count).map(|x| Value::Enum(*e, x)).collect()
        }
        Ty::Int => match vd.bounds {
            Some((lo, hi)) if hi >= lo && hi.saturating_sub(lo) < MAX_DEALT => {
                (lo..=hi).map(Value::Int).collect()
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if !out.is_empty() && (none || opt) {
        out.insert(0, Value::None);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{dealt, HANDS};
    use super::*;

    const HELD: &str = r#"
kind Token { value: int }
cards Token (value) {
  a: 1
  b: 2
  c: 3
  d: 4
}
zone pile: Token public
var secret: Token per player owner = none
var shown: Token = none
game "Held" { players: 2, rounds: 1, round: [play], score: score_of }
fn score_of(p: player) -> int = 0
setup {
  move @d to pile
}
phase play {
  set shown = @c
}
"#;

    /// A var entry hidden from the seat that holds a card in no zone is dealt (it holds no
    /// replay back); the pool leaves out the cards the seat sees named. A card in a zone that
    /// others know does hold the replay back.
    #[test]
    fn a_hidden_entry_holding_a_card_in_no_zone_is_dealt() {
        let c = crate::check_text("held.rules", HELD, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let mut st = dealt(&prog);
        let track = Track::at(Pos::Setup, &st);
        let id = |n: &str| prog.vars.iter().position(|v| v.name == n).expect("var");
        let card = |n: &str| {
            prog.cards
                .iter()
                .position(|c| c.id.to_string() == n)
                .expect("card") as u32
        };
        let secret = st.var_base[id("secret")] as usize;
        st.var_clock += 1;
        st.var_stamp[id("secret")] = st.var_clock;
        st.vars[secret] = Value::Card(card("b"));
        st.vars[secret + 1] = Value::Card(card("a"));
        st.vars[st.var_base[id("shown")] as usize] = Value::Card(card("c"));
        assert_eq!(track.holds_back(&prog, &st), None);
        // P1 may not read P2's entry: it is dealt; its own is not.
        assert_eq!(held_places(&prog, &st, 0), vec![(secret + 1, card("a"))]);
        let named = seen_names(&prog, &st, 0);
        let named: Vec<u32> = (0..4).filter(|&c| named[c as usize]).collect();
        // P1 reads its own entry (b), the public var (c) and sees the pile (d, in a zone: not
        // in the pool anyway).
        assert_eq!(named, vec![card("b"), card("c")]);
        // A card in a public zone, known to all: the entry holds the replay back.
        st.vars[secret + 1] = Value::Card(card("d"));
        assert_eq!(track.holds_back(&prog, &st), Some(id("secret") as u32));
    }

    /// A determinisation renames the cards of the state, the items of a phase under way too
    /// (they name cards by their places, as vars do).
    #[test]
    fn a_renaming_reaches_the_items_of_the_phase_under_way() {
        let c = crate::check_text("hands.rules", HANDS, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let mut st = dealt(&prog);
        st.phase_items = match Value::list(vec![Value::Card(0), Value::Card(3), Value::Int(7)]) {
            Value::List(l) => Some(l),
            _ => None,
        };
        // Cards 0 and 1 exchanged, 2 and 3 kept.
        relabel_state(&mut st, &[1, 0, 2, 3]);
        let items: Vec<Value> = st
            .phase_items
            .iter()
            .flat_map(|l| l.iter().cloned())
            .collect();
        assert_eq!(items, vec![Value::Card(1), Value::Card(3), Value::Int(7)]);
    }
}

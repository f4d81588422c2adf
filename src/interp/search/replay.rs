//! What a playout's replay must meet, and how it is matched: the choices since the boundary
//! and the choice searched as the seat saw it (`Wanted`), compared state against state
//! (`looks_same`) or, when that is not plainly so, as views; another player's answers the
//! seat saw replayed as an option that reads alike (`pick_alike`), its secret answers and the
//! game's draws drawn from their proposals (`answer_hidden`), and an option as its chooser
//! sees it (`option_key`).

use super::track::Asked;
use super::*;
use crate::interp::seen::PlayerView;
use std::cell::OnceCell;

/// What a playout must meet: the choices since the boundary, and the choice searched as the
/// seat sees it. Made once per choice searched and shared by its playouts.
pub(in crate::interp) struct Wanted {
    /// The choices since the boundary, forced ones too.
    pub(super) replay: Vec<Asked>,
    /// Each card's class among those a determinisation deals (`NOT_DEALT` for the others):
    /// another player's answer the seat saw is replayed as an option that reads the same to the
    /// seat (`pick_alike`).
    class_of: Vec<u32>,
    /// The real position at the choice and its options: a playout whose position matches them
    /// (`looks_same`) reads the same to the seat without building its view. The options' labels
    /// are not compared: a silent run (`simulate`, a playout) never builds their texts while
    /// `run` does, and a search must see the same under both (one game per seed); labels are
    /// worked out from the state and the options, which are compared.
    now: State,
    options: Vec<Value>,
    /// The options' texts and the view as the seat sees them, built when a playout's position
    /// does not plainly match (`seen`).
    seen: OnceCell<(Vec<String>, PlayerView)>,
}

impl Wanted {
    /// The options' texts and the seat's view of the real position.
    fn seen(&self, prog: &Program, seat: u32) -> &(Vec<String>, PlayerView) {
        self.seen.get_or_init(|| {
            let view = View {
                prog,
                n_players: self.now.n_players,
                zone_base: &self.now.zone_base,
            };
            let labels = (0..self.options.len())
                .map(|i| seen_label(&view, &self.options, &self.now.known, seat, i))
                .collect();
            (
                labels,
                crate::interp::seen::player_view(prog, &self.now, seat),
            )
        })
    }
}

/// A card's class when no determinisation deals it (`Wanted::class_of`).
const NOT_DEALT: u32 = u32::MAX;

impl SearchPoint<'_> {
    /// What a playout of this choice must meet (`Wanted`): worked out once, shared by its
    /// playouts.
    pub(super) fn want(&self) -> &Rc<Wanted> {
        self.want.get_or_init(|| {
            let d = self.dealing.get_or_init(|| self.dealing());
            let mut class_of = vec![NOT_DEALT; self.track.state.known.len()];
            for (k, group) in d.classes.iter().enumerate() {
                for &c in group {
                    if let Some(x) = class_of.get_mut(c as usize) {
                        *x = k as u32;
                    }
                }
            }
            Rc::new(Wanted {
                replay: self.track.asked.clone(),
                class_of,
                now: self.now.clone(),
                options: self.options.to_vec(),
                seen: OnceCell::new(),
            })
        })
    }
}

impl Interp<'_> {
    /// Whether the choice being asked (`options`) reads to `seat` as the choice searched did:
    /// its options as the seat sees them, and the seat's view. Plainly the same states and
    /// options (`looks_same`) are; otherwise both are built and compared.
    pub(super) fn seen_as_wanted(&self, want: &Wanted, options: &[Value], seat: u32) -> bool {
        let count = options.len();
        let plain = count == want.options.len()
            && options
                .iter()
                .zip(&want.options)
                .all(|(x, y)| x == y && known_alike(x, &self.state.known, &want.now.known, seat))
            && looks_same(self.prog, &self.state, &want.now, seat);
        if plain {
            return true;
        }
        let (want_labels, want_view) = want.seen(self.prog, seat);
        let view = self.view();
        let same_labels = count == want_labels.len()
            && (0..count).all(|i| {
                want_labels.get(i).map(String::as_str)
                    == Some(seen_label(&view, options, &self.state.known, seat, i).as_str())
            });
        same_labels && crate::interp::seen::player_view(self.prog, &self.state, seat) == *want_view
    }
}

/// Option `i` as player `seat` sees it, as text (a card they do not know is hidden).
fn seen_label(view: &View, options: &[Value], known: &[Players], seat: u32, i: usize) -> String {
    options
        .get(i)
        .map(|v| view.show_parts(v, known).for_viewer(seat).text())
        .unwrap_or_default()
}

/// Whether `v` reads the same to `seat` in two states whose card knowledge is `a` and `b`: every
/// card in it known to the seat in both or in neither (a value as text depends on nothing else
/// of the state: `View::show_parts`).
fn known_alike(v: &Value, a: &[Players], b: &[Players], seat: u32) -> bool {
    match v {
        Value::Card(c) => {
            let k = |s: &[Players]| s.get(*c as usize).map(|&x| holds(x, seat));
            k(a) == k(b)
        }
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => v
            .seq_items()
            .iter()
            .flat_map(|items| items.iter())
            .all(|x| known_alike(x, a, b, seat)),
        _ => true,
    }
}

/// Whether the seat's view (`seen::player_view`) of `a` is plainly the same as of `b`, from the
/// states themselves: the same round and phase, in every zone slot the same cards where the
/// seat knows them (with their faces and var fields) and hidden cards where it knows neither,
/// and every var the seat may read the same (its value, and whether it holds its first value;
/// of a var it may not read, nothing). `true` only when the views are equal; `false` says nothing (the views may
/// still be equal: build them to know).
fn looks_same(prog: &Program, a: &State, b: &State, seat: u32) -> bool {
    if a.round != b.round
        || a.phase != b.phase
        || a.zones.len() != b.zones.len()
        || a.vars.len() != b.vars.len()
        || a.n_players != b.n_players
    {
        return false;
    }
    let knows = |s: &State, c: u32| holds(s.known.get(c as usize).copied().unwrap_or(0), seat);
    fn card_vars<'s>(prog: &Program, s: &'s State, c: u32) -> Option<&'s [Value]> {
        let kind = prog.cards.get(c as usize)?.kind;
        let n = prog.kinds.get(kind as usize)?.var_count as usize;
        let base = *s.card_var_base.get(c as usize)? as usize;
        s.card_vars.get(base..base + n)
    }
    for (za, zb) in a.zones.iter().zip(&b.zones) {
        if za.len() != zb.len() {
            return false;
        }
        for (&ca, &cb) in za.iter().zip(zb) {
            let k = knows(a, ca);
            if k != knows(b, cb) {
                return false;
            }
            if !k {
                continue;
            }
            if ca != cb || a.face_up.get(ca as usize) != b.face_up.get(cb as usize) {
                return false;
            }
            match (card_vars(prog, a, ca), card_vars(prog, b, cb)) {
                (Some(x), Some(y)) => {
                    if x != y || !x.iter().all(|v| known_alike(v, &a.known, &b.known, seat)) {
                        return false;
                    }
                }
                (None, None) => {}
                _ => return false,
            }
        }
    }
    if a.var_base != b.var_base {
        return false;
    }
    let view = View {
        prog,
        n_players: a.n_players,
        zone_base: &a.zone_base,
    };
    for (id, vd) in prog.vars.iter().enumerate() {
        let base = a.var_base.get(id).copied().unwrap_or(0) as usize;
        let size = crate::interp::family_size(&vd.keys, a.n_players, prog).unwrap_or(0);
        let (fa, fb) = (a.var_first.get(id), b.var_first.get(id));
        for off in 0..size {
            let (x, y) = (
                a.vars.get(base + off as usize),
                b.vars.get(base + off as usize),
            );
            // A var the seat may not read shows nothing, not even whether it holds its first
            // value (`seen::player_view`).
            if !holds(view.var_readers(id as u32, off), seat) {
                continue;
            }
            if (x.is_some() && x == fa) != (y.is_some() && y == fb) {
                return false;
            }
            {
                match (x, y) {
                    (Some(x), Some(y)) if x == y && known_alike(x, &a.known, &b.known, seat) => {}
                    (None, None) => {}
                    _ => return false,
                }
            }
        }
    }
    true
}

/// Whether option `v` of a determinised copy reads to the seat as option `taken` of the real
/// game did, in its cards: a card either the same or, where the seat knows neither, one of the
/// same class that a determinisation deals (the seat cannot tell them apart), in lists and
/// tuples of the same shape. With `strict`, the other parts (numbers, words, players) are equal
/// too; without, any such part is alike, since it may come from a card the seat does not see
/// (the value of a card discarded face down), and a copy must not be rejected for that.
fn reads_alike(taken: &Value, v: &Value, class_of: &[u32], strict: bool) -> bool {
    match (taken, v) {
        (Value::Card(a), Value::Card(b)) => {
            a == b || {
                let ca = class_of.get(*a as usize).copied().unwrap_or(NOT_DEALT);
                ca != NOT_DEALT && class_of.get(*b as usize) == Some(&ca)
            }
        }
        (Value::List(x), Value::List(y)) => seqs_alike(x, y, class_of, strict),
        (Value::Tuple(_) | Value::Packed(_), Value::Tuple(_) | Value::Packed(_)) => {
            match (taken.tuple_items(), v.tuple_items()) {
                (Some(x), Some(y)) => seqs_alike(&x, &y, class_of, strict),
                _ => false,
            }
        }
        (Value::Card(_) | Value::List(_) | Value::Tuple(_) | Value::Packed(_), _)
        | (_, Value::Card(_) | Value::List(_) | Value::Tuple(_) | Value::Packed(_)) => false,
        _ => !strict || taken == v,
    }
}

/// Lists or tuples alike item by item (see `reads_alike`).
fn seqs_alike(x: &[Value], y: &[Value], class_of: &[u32], strict: bool) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|(a, b)| reads_alike(a, b, class_of, strict))
}

/// The answer to replayed choice `j`, another player's choice the seat saw made (answered
/// `index` in the real game): an option of the copy alike in every part to the one taken
/// (`reads_alike`, strict), or where none is, alike in its cards; drawn uniformly when several
/// are, `None` when none is alike even in its cards. A probe replays the real position, where
/// the option given is one. What the seat sees of the consequences is checked at the choice.
pub(super) fn pick_alike(
    want: &Wanted,
    hidden: &mut Hidden,
    j: usize,
    index: usize,
    options: &[Value],
) -> Option<usize> {
    let taken = &want.replay.get(j)?.taken;
    let alike = |v: &Value, strict: bool| reads_alike(taken, v, &want.class_of, strict);
    match hidden {
        Hidden::Probe { .. } => options.get(index).filter(|v| alike(v, true)).map(|_| index),
        Hidden::Drawn { repick, .. } => {
            let among = |strict: bool| -> Vec<usize> {
                (0..options.len())
                    .filter(|&i| options.get(i).is_some_and(|v| alike(v, strict)))
                    .collect()
            };
            let mut fits = among(true);
            if fits.is_empty() {
                fits = among(false);
            }
            match fits.len() {
                0 => None,
                1 => fits.first().copied(),
                n => {
                    let k = rng::below(repick, n.min(u32::MAX as usize) as u32) as usize;
                    fits.get(k).copied()
                }
            }
        }
    }
}

/// Answering the secret choices of other players that the replay meets.
pub(super) enum Hidden {
    /// A playout: each answer drawn from its proposal (`SearchPoint::prepare`); `weight`
    /// gathers prior / proposal over the answers drawn.
    Drawn {
        repick: Box<ChaCha8Rng>,
        proposals: Rc<[Proposal]>,
        weight: f64,
    },
    /// A probe: every answer as given except replayed choice `at`, answered `alt` (as given
    /// when `None`); it notes that choice's number of options and stops at the choice
    /// searched, accepted or rejected.
    Probe {
        at: usize,
        alt: Option<usize>,
        count: usize,
    },
}

/// How a playout draws the answer to another player's secret choice it replays.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::interp) enum Proposal {
    /// Uniformly among all options (every answer the probes tried fitted, or the choice is
    /// not another player's secret).
    Uniform,
    /// Uniformly among these answers (the one given, and those the probes found to lead back
    /// to the choice as the seat sees it), but for one draw in `WIDE_OF`, uniform among all.
    Among(Vec<usize>),
}

/// One draw in `WIDE_OF` of a narrowed proposal is uniform among all options, so that every
/// answer can be drawn and the weights stay finite.
const WIDE_OF: u32 = 256;

/// The answer to replayed choice `j`, another player's secret choice of `count` options that
/// was answered `index`: drawn from its proposal (with its weight), or a probe's answer.
pub(super) fn answer_hidden(hidden: &mut Hidden, j: usize, index: usize, count: usize) -> usize {
    let n = count.clamp(1, u32::MAX as usize);
    match hidden {
        Hidden::Probe { at, alt, count } => {
            if *at != j {
                return index;
            }
            *count = n;
            alt.filter(|&a| a < n).unwrap_or(index)
        }
        Hidden::Drawn {
            repick,
            proposals,
            weight,
        } => {
            let among = match proposals.get(j) {
                Some(Proposal::Among(a)) if a.iter().all(|&x| x < n) && !a.is_empty() => a,
                _ => return rng::below(repick, n as u32) as usize,
            };
            let answer = if rng::below(repick, WIDE_OF) == 0 {
                rng::below(repick, n as u32) as usize
            } else {
                let k = rng::below(repick, among.len().min(u32::MAX as usize) as u32) as usize;
                among.get(k).copied().unwrap_or(index)
            };
            // Prior 1/n over the proposal: e/n + (1 - e)/|among| if the answer is among them.
            let e = 1.0 / f64::from(WIDE_OF);
            let narrowed = if among.contains(&answer) {
                (1.0 - e) * n as f64 / among.len() as f64
            } else {
                0.0
            };
            *weight /= e + narrowed;
            answer
        }
    }
}

/// What `player` sees of option `v`, as a key: the same for two options exactly when they read
/// alike to that player (a card it knows by its id, a card it does not know as one unknown
/// card; numbers, words and the rest as they are). Deterministic (SipHash with fixed keys).
pub fn option_key(v: &Value, known: &[Players], player: u32) -> u64 {
    use std::hash::Hasher;
    fn feed(v: &Value, known: &[Players], player: u32, h: &mut std::hash::DefaultHasher) {
        use std::hash::Hash;
        match v {
            Value::Card(c) => {
                if known.get(*c as usize).is_some_and(|&k| holds(k, player)) {
                    h.write_u8(1);
                    h.write_u32(*c);
                } else {
                    h.write_u8(2);
                }
            }
            Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
                let items = v.seq_items();
                let items = items.as_deref().unwrap_or(&[]);
                h.write_u8(if matches!(v, Value::List(_)) { 3 } else { 4 });
                h.write_usize(items.len());
                for x in items.iter() {
                    feed(x, known, player, h);
                }
            }
            other => {
                h.write_u8(5);
                other.hash(h);
            }
        }
    }
    let mut h = std::hash::DefaultHasher::new();
    feed(v, known, player, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{dealt, HANDS};
    use super::*;

    /// Swap the cards at two places, as a determinisation does.
    fn swap(st: &mut State, (z1, i1): (usize, usize), (z2, i2): (usize, usize)) {
        let (a, b) = (st.zones[z1][i1], st.zones[z2][i2]);
        st.zones[z1][i1] = b;
        st.zones[z2][i2] = a;
        let (za, zb) = (st.card_zone[a as usize], st.card_zone[b as usize]);
        st.card_zone[a as usize] = zb;
        st.card_zone[b as usize] = za;
        let (ka, kb) = (st.known[a as usize], st.known[b as usize]);
        st.known[a as usize] = kb;
        st.known[b as usize] = ka;
    }

    /// `looks_same` says "the same" only when the seat's views are equal: for a copy, for
    /// hidden cards exchanged, and never for a changed hand or var.
    #[test]
    fn looks_same_only_when_the_views_are_equal() {
        let c = crate::check_text("hands.rules", HANDS, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let real = dealt(&prog);
        let deck = prog
            .zones
            .iter()
            .position(|z| z.name == "deck")
            .expect("deck");
        let hand = prog
            .zones
            .iter()
            .position(|z| z.name == "hand")
            .expect("hand");
        let deck = real.zone_base[deck] as usize;
        let p2_hand = real.zone_base[hand] as usize + 1;
        let view = |s: &State, p: u32| crate::interp::seen::player_view(&prog, s, p);
        let agrees = |a: &State, p: u32| {
            let same = looks_same(&prog, a, &real, p);
            if same {
                assert_eq!(
                    view(a, p),
                    view(&real, p),
                    "looks_same for P{} but the views differ",
                    p + 1
                );
            }
            same
        };
        // A copy.
        assert!(agrees(&real.clone(), 0) && agrees(&real.clone(), 1));
        // Two deck cards exchanged: nobody sees the difference.
        let mut deck_swapped = real.clone();
        swap(&mut deck_swapped, (deck, 0), (deck, 1));
        assert!(agrees(&deck_swapped, 0) && agrees(&deck_swapped, 1));
        // P2's card exchanged with a deck card: the same to P1, not to P2.
        let mut hand_swapped = real.clone();
        swap(&mut hand_swapped, (p2_hand, 0), (deck, 0));
        assert!(agrees(&hand_swapped, 0));
        assert!(!agrees(&hand_swapped, 1));
        assert_ne!(view(&hand_swapped, 1), view(&real, 1));
        // A public var changed: different to both.
        let mut scored = real.clone();
        scored.vars[0] = Value::Int(7);
        assert!(!agrees(&scored, 0) && !agrees(&scored, 1));
    }

    /// Another player's answer is replayed as what the seat saw: a card the seat knows by its
    /// id, one a determinisation deals as any card of its class so dealt; the rest as it is.
    #[test]
    fn answers_read_alike_by_what_the_seat_saw() {
        // Cards 0 and 1 are dealt (class 0), card 2 too (class 1); card 3 is known.
        let class_of = [0, 0, 1, NOT_DEALT];
        let alike = |a: &Value, b: &Value| reads_alike(a, b, &class_of, true);
        let loose = |a: &Value, b: &Value| reads_alike(a, b, &class_of, false);
        assert!(alike(&Value::Card(0), &Value::Card(1)));
        assert!(!alike(&Value::Card(0), &Value::Card(2)));
        assert!(!alike(&Value::Card(0), &Value::Card(3)));
        assert!(alike(&Value::Card(3), &Value::Card(3)));
        assert!(!alike(&Value::Card(3), &Value::Card(0)));
        let pair = |c: u32, n: i64| Value::tuple(vec![Value::Card(c), Value::Int(n)]);
        assert!(alike(&pair(0, 4), &pair(1, 4)));
        assert!(!alike(&pair(0, 4), &pair(1, 5)));
        assert!(!alike(
            &pair(0, 4),
            &Value::List(Rc::new(Items::new(vec![Value::Card(1), Value::Int(4)])))
        ));
        assert!(alike(&Value::None, &Value::None));
        // Loosely, the numbers and words may differ (they may come from an unseen card); the
        // cards and the shape may not.
        assert!(loose(&pair(0, 4), &pair(1, 5)));
        assert!(loose(&Value::Int(1), &Value::Text(Rc::new("a".into()))));
        assert!(!loose(&pair(0, 4), &pair(3, 4)));
        assert!(!loose(&Value::Card(0), &Value::Int(0)));
    }

    /// An option reads to its chooser by what the chooser knows: a card by its id when known,
    /// any unknown card alike; lists and tuples item by item.
    #[test]
    fn option_keys_are_what_the_chooser_sees() {
        let known: Vec<Players> = vec![one(0), one(1), 0];
        let key = |v: &Value, p: u32| option_key(v, &known, p);
        assert_ne!(key(&Value::Card(0), 0), key(&Value::Card(2), 0));
        assert_eq!(key(&Value::Card(1), 0), key(&Value::Card(2), 0));
        assert_ne!(key(&Value::Card(1), 1), key(&Value::Card(2), 1));
        assert_ne!(key(&Value::Int(1), 0), key(&Value::Int(2), 0));
        let pair = |c: u32| Value::tuple(vec![Value::Card(c), Value::Int(3)]);
        assert_eq!(key(&pair(1), 0), key(&pair(2), 0));
        assert_ne!(key(&pair(0), 0), key(&pair(2), 0));
    }
}

//! Which cards entered play in a game, and whose they were: what `--impact` reports per card
//! ("entered play in 12 of 200 games") and what exposure compares (the seats and groups that got
//! or faced a card against those that did not).
//!
//! A card enters play when it lies in a zone a player owns or may see (a zone `per` something,
//! a public or owner zone: never a card in an unowned hidden deck), or when a var holds it (alone, in a list or a tuple, at any depth). It is the
//! seat's when the zone or var is keyed by the seat (`hand[P3]`), and a group's when it is keyed
//! by a value that names the group (`techs[FactionA]`, for the grouping `faction`), so every
//! member of the group got it. A card among a choice's options has entered play (offered), but
//! is nobody's until it lands where someone owns it; a card a table gives (`lookup`, a draw on a draw table) enters play. The state is looked at after
//! every step and at every choice (`Interp::watch`, set only by `rules simulate` runs that ask
//! for it): a crisis held in `facing[f]` while faction `f` plans counts, though the phase puts it
//! back before it ends. Without the watch a choice or a lookup pays one test.

use crate::ast::Visibility;
use crate::interp::{key_count, State};
use crate::program::{KeyDomain, Program};
use crate::value::Value;

/// What one game's watch found so far.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    /// Per card: whether it entered play.
    pub entered: Vec<bool>,
    /// Per card: the seats it reached (a bit per seat).
    pub seats: Vec<u64>,
    /// Per card: the enum values it was held under (enum, variant), to match with groups.
    pub keys: Vec<Vec<(u32, u32)>>,
}

impl Tracker {
    pub fn new(prog: &Program) -> Tracker {
        let n = prog.cards.len();
        Tracker {
            entered: vec![false; n],
            seats: vec![0; n],
            keys: vec![Vec::new(); n],
        }
    }

    /// Look at the state now: every zone a player may see or owns, every var.
    pub fn scan(&mut self, prog: &Program, state: &State) {
        let n = state.n_players;
        for (d, zd) in prog.zones.iter().enumerate() {
            let Some(&base) = state.zone_base.get(d) else {
                continue;
            };
            let count: u32 = zd
                .keys
                .iter()
                .map(|k| key_count(k, n, prog).max(1))
                .product();
            let seen = !zd.keys.is_empty() || zd.visibility != Visibility::Hidden;
            for off in 0..count {
                let Some(cards) = state.zones.get(base.saturating_add(off) as usize) else {
                    continue;
                };
                if cards.is_empty() {
                    continue;
                }
                let keys = keys_of(&zd.keys, off, n, prog);
                if seen {
                    for &c in cards {
                        self.note(c, &keys);
                    }
                }
            }
        }
        for (v, vd) in prog.vars.iter().enumerate() {
            let Some(&base) = state.var_base.get(v) else {
                continue;
            };
            let count: u32 = vd
                .keys
                .iter()
                .map(|k| key_count(k, n, prog).max(1))
                .product();
            for off in 0..count {
                let Some(value) = state.vars.get(base.saturating_add(off) as usize) else {
                    continue;
                };
                if !holds_card(value) {
                    continue;
                }
                let keys = keys_of(&vd.keys, off, n, prog);
                let mut found = Vec::new();
                each_card(value, &mut |c| found.push(c));
                for c in found {
                    self.note(c, &keys);
                }
            }
        }
    }

    /// What the interpreter shows the watch: at a choice, the state, and the cards among the
    /// options (offered: in play, but nobody's until kept where someone owns it); a card a table
    /// gave enters play (drawn on a draw table). Locals are not looked at: an aggregate's slot keeps the last card it
    /// walked (`filter(c in Crisis ...)` in setup), which no player got.
    pub fn watch(&mut self, prog: &Program, w: crate::interp::Watched<'_>) {
        match w {
            crate::interp::Watched::Choice { state, options, .. } => {
                self.scan(prog, state);
                let mut found = Vec::new();
                for v in options {
                    each_card(v, &mut |c| found.push(c));
                }
                for c in found {
                    self.note(c, &[]);
                }
            }
            crate::interp::Watched::Read(v) => {
                let mut found = Vec::new();
                each_card(v, &mut |c| found.push(c));
                for c in found {
                    self.note(c, &[]);
                }
            }
        }
    }

    fn note(&mut self, c: u32, keys: &[Value]) {
        let i = c as usize;
        if let Some(e) = self.entered.get_mut(i) {
            *e = true;
        }
        for k in keys {
            match k {
                Value::Player(p) if *p < 64 => {
                    if let Some(s) = self.seats.get_mut(i) {
                        *s |= 1u64 << p;
                    }
                }
                Value::Enum(e, x) => {
                    if let Some(ks) = self.keys.get_mut(i) {
                        if !ks.contains(&(*e, *x)) {
                            ks.push((*e, *x));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The cards that entered play, each with the seats it reached: its own seats, and every
    /// seat whose group (in any grouping) is named by an enum value it was held under.
    /// `groups` is per grouping, per seat, the groups as text; `show` names an enum value.
    pub fn finish(
        self,
        groups: &[(String, Vec<Vec<String>>)],
        show: impl Fn(&Value) -> String,
    ) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        for (c, entered) in self.entered.iter().enumerate() {
            if !entered {
                continue;
            }
            let mut seats = self.seats.get(c).copied().unwrap_or(0);
            for &(e, x) in self.keys.get(c).map(|k| k.as_slice()).unwrap_or(&[]) {
                let name = show(&Value::Enum(e, x));
                for (_, per_seat) in groups {
                    for (p, gs) in per_seat.iter().enumerate().take(64) {
                        if gs.contains(&name) {
                            seats |= 1u64 << p;
                        }
                    }
                }
            }
            out.push((c as u32, seats));
        }
        out
    }
}

/// The keys of entry `off` of a family keyed by `domains` (the last key varies fastest).
fn keys_of(domains: &[KeyDomain], mut off: u32, n: u32, prog: &Program) -> Vec<Value> {
    let mut out = Vec::with_capacity(domains.len());
    for d in domains.iter().rev() {
        let k = key_count(d, n, prog).max(1);
        let i = off % k;
        off /= k;
        out.push(match d {
            KeyDomain::Player => Value::Player(i),
            KeyDomain::Enum(e) => Value::Enum(*e, i),
            KeyDomain::Range(lo, _) => Value::Int(lo.saturating_add(i64::from(i))),
        });
    }
    out.reverse();
    out
}

fn holds_card(v: &Value) -> bool {
    match v {
        Value::Card(_) => true,
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => v
            .seq_items()
            .is_some_and(|items| items.iter().any(holds_card)),
        _ => false,
    }
}

fn each_card(v: &Value, f: &mut impl FnMut(u32)) {
    match v {
        Value::Card(c) => f(*c),
        Value::List(_) | Value::Tuple(_) | Value::Packed(_) => {
            if let Some(items) = v.seq_items() {
                items.iter().for_each(|x| each_card(x, f))
            }
        }
        _ => {}
    }
}

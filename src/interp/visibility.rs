//! Who knows which card: zone and var visibility as sets of players, and the per-card
//! knowledge (`State::known`) kept up to date by moves, shuffles, flips and reveals.
//!
//! A player knows a card when its zone shows them its face (`public` and face up; `owner` to the
//! zone's player; a face-down card in a public zone only to that zone's player, if it has one),
//! or when it was revealed to them; a known card stays known until it moves to a zone the player
//! cannot see, or its zone is shuffled.

use super::*;
use crate::ast::Visibility;
use crate::diag::Diag;
use crate::events::{CardRef, Event, Part, Shown};

/// How a `say` line shows a value that its viewer may not read.
pub const HIDDEN_VALUE: &str = "(hidden)";

/// A set of players, one bit per seat (players past 64 are never in a set).
pub type Players = u64;

/// The set of the first `n` players.
pub fn everyone(n: u32) -> Players {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The set holding player `p` alone (empty past 64 players).
pub fn one(p: u32) -> Players {
    1u64.checked_shl(p).unwrap_or(0)
}

/// Does the set hold player `p`?
pub fn holds(set: Players, p: u32) -> bool {
    set & one(p) != 0
}

impl View<'_> {
    /// The player a keyed zone slot belongs to: the value of its first `player` key.
    pub fn zone_owner(&self, slot: u32) -> Option<u32> {
        let def = self.zone_def_of_slot(slot);
        let zd = self.prog.zones.get(def as usize)?;
        let base = *self.zone_base.get(def as usize)?;
        owner_of(&zd.keys, slot.checked_sub(base)?, self.n_players, self.prog)
    }

    /// The players who see into a zone slot (its cards come and go before their eyes).
    pub fn zone_watchers(&self, slot: u32) -> Players {
        let def = self.zone_def_of_slot(slot);
        match self.prog.zones.get(def as usize).map(|z| z.visibility) {
            Some(Visibility::Public) => everyone(self.n_players),
            Some(Visibility::Owner) => self.zone_owner(slot).map(one).unwrap_or(0),
            _ => 0,
        }
    }

    /// `(zone_watchers(slot), face_watchers(slot, face_up))`, the zone looked up once: what a
    /// card moving into `slot` keeps and what it teaches.
    pub fn move_watchers(&self, slot: u32, face_up: bool) -> (Players, Players) {
        if slot == NOWHERE {
            return (self.zone_watchers(slot), self.face_watchers(slot, face_up));
        }
        let def = self.zone_def_of_slot(slot);
        let Some(zd) = self.prog.zones.get(def as usize) else {
            return (0, 0);
        };
        let owner = || {
            let base = *self.zone_base.get(def as usize)?;
            owner_of(&zd.keys, slot.checked_sub(base)?, self.n_players, self.prog)
        };
        match zd.visibility {
            Visibility::Public => {
                let all = everyone(self.n_players);
                let face = if face_up {
                    all
                } else {
                    owner().map(one).unwrap_or(0)
                };
                (all, face)
            }
            Visibility::Owner => {
                let o = owner().map(one).unwrap_or(0);
                (o, o)
            }
            Visibility::Hidden => (0, 0),
        }
    }

    /// The players who see the face of a card lying in `slot`, face up or not.
    pub fn face_watchers(&self, slot: u32, face_up: bool) -> Players {
        if slot == NOWHERE {
            // Out of play: the card list is on the table for everybody.
            return everyone(self.n_players);
        }
        let def = self.zone_def_of_slot(slot);
        match self.prog.zones.get(def as usize).map(|z| z.visibility) {
            Some(Visibility::Public) if face_up => everyone(self.n_players),
            Some(Visibility::Public) | Some(Visibility::Owner) => {
                self.zone_owner(slot).map(one).unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// The players who may read var slot `off` (0-based within var `id`'s family).
    pub fn var_readers(&self, id: Id, off: u32) -> Players {
        let Some(vd) = self.prog.vars.get(id as usize) else {
            return 0;
        };
        match vd.visibility {
            Visibility::Public => everyone(self.n_players),
            Visibility::Owner => owner_of(&vd.keys, off, self.n_players, self.prog)
                .map(one)
                .unwrap_or(0),
            Visibility::Hidden => 0,
        }
    }

    /// A card as an event names it, with the players who know it.
    pub fn card_ref(&self, c: u32, known: Players) -> CardRef {
        CardRef::Shown {
            id: self
                .prog
                .cards
                .get(c as usize)
                .map(|cd| cd.id.to_string())
                .unwrap_or_default(),
            name: self.card_name(c),
            known,
            public: {
                let all = everyone(self.n_players);
                all != 0 && known & all == all
            },
        }
    }

    /// A value as text whose cards each remember who knows them (`known`, per card; a card
    /// missing from it is known to everybody).
    pub fn show_parts(&self, v: &Value, known: &[Players]) -> Shown {
        let mut parts = Vec::new();
        self.parts_into(v, known, false, &mut parts);
        Shown(parts)
    }

    /// A choice's option as its chooser reads it: `show_parts`, with each card it is or names
    /// shown as its line (its kind's `describe`).
    pub fn option_parts(&self, v: &Value, known: &[Players]) -> Shown {
        let mut parts = Vec::new();
        self.parts_into(v, known, true, &mut parts);
        Shown(parts)
    }

    /// A value as a person reads it on a screen: `show_parts`, but a list in words ("a, b and
    /// c", an empty one `none`) and a tuple its values side by side ("Faction A 0", a list of
    /// them "Military 2 and Foreign affairs 3"); a list inside another, or a list or tuple
    /// inside a tuple, in parentheses. With `lines`, each card as its line. Only for
    /// showing (screens, pages): texts the rules build keep `show`'s brackets.
    pub fn prose_parts(&self, v: &Value, known: &[Players], lines: bool) -> Shown {
        let mut parts = Vec::new();
        self.prose_into(v, known, lines, 0, false, &mut parts);
        Shown(parts)
    }

    fn prose_into(
        &self,
        v: &Value,
        known: &[Players],
        lines: bool,
        depth: u32,
        in_list: bool,
        out: &mut Vec<Part>,
    ) {
        let seq = v.seq_items();
        let Some(items) = seq.as_deref() else {
            return self.parts_into(v, known, lines, out);
        };
        let list = matches!(v, Value::List(_));
        if list && items.is_empty() {
            out.push(Part::Text("none".into()));
            return;
        }
        // Past two levels of nesting, brackets read better than words: the rules' spelling.
        if depth > 2 {
            return self.parts_into(v, known, lines, out);
        }
        // A list inside anything, or a tuple inside a tuple: in parentheses.
        let nested = depth > 0 && (list || !in_list);
        if nested {
            out.push(Part::Text("(".into()));
        }
        let last = items.len().saturating_sub(1);
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                let sep = match (list, i == last) {
                    (false, _) => " ",
                    (true, true) => " and ",
                    (true, false) => ", ",
                };
                out.push(Part::Text(sep.into()));
            }
            self.prose_into(x, known, lines, depth + 1, list, out);
        }
        if nested {
            out.push(Part::Text(")".into()));
        }
    }

    fn parts_into(&self, v: &Value, known: &[Players], lines: bool, out: &mut Vec<Part>) {
        let seq = |me: &Self, items: &[Value], sep: &str, out: &mut Vec<Part>| {
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(Part::Text(sep.into()));
                }
                me.parts_into(x, known, lines, out);
            }
        };
        match v {
            Value::Card(c) => {
                let k = known
                    .get(*c as usize)
                    .copied()
                    .unwrap_or(everyone(self.n_players));
                let mut shown = self.card_ref(*c, k);
                if let (true, CardRef::Shown { name, .. }) = (lines, &mut shown) {
                    *name = self.card_line(*c);
                }
                out.push(Part::Card(shown));
            }
            Value::List(items) => {
                out.push(Part::Text("[".into()));
                seq(self, &items[..], ", ", out);
                out.push(Part::Text("]".into()));
            }
            Value::Tuple(_) | Value::Packed(_) => {
                out.push(Part::Text("(".into()));
                if let Some(items) = v.tuple_items() {
                    seq(self, &items, ", ", out);
                }
                out.push(Part::Text(")".into()));
            }
            Value::Enum(e, x) => out.push(Part::Word {
                name: self.show(v),
                words: self.enum_words(*e, *x),
            }),
            other => out.push(Part::Text(self.show(other))),
        }
    }
}

/// The value of the first `player` key of a family slot at offset `off`.
fn owner_of(keys: &[KeyDomain], off: u32, n: u32, prog: &Program) -> Option<u32> {
    let pk = keys.iter().position(|k| *k == KeyDomain::Player)?;
    let mut rest = off;
    let mut owner = None;
    for (i, k) in keys.iter().enumerate().rev() {
        let size = key_count(k, n, prog).max(1);
        if i == pk {
            owner = Some(rest % size);
        }
        rest /= size;
    }
    owner
}

impl<'p> Interp<'p> {
    /// After a card came into `dest` from slot `from`: players who cannot see the zone forget
    /// it, those who see its face there learn it. A card from no zone was seen by nobody
    /// (which card of the game's list it is): exactly those who see its face in `dest` know it.
    pub(super) fn learn_move(&mut self, c: u32, from: u32, dest: u32) {
        let face = self.state.face_up.get(c as usize).copied().unwrap_or(true);
        let (keep, learn) = match self.slot_info.get(dest as usize) {
            Some(info) => info.watchers[usize::from(face)],
            None => self.view().move_watchers(dest, face),
        };
        let keep = if from == NOWHERE { 0 } else { keep };
        if let Some(k) = self.state.known.get_mut(c as usize) {
            *k = (*k & keep) | learn;
        }
        self.saw(c, learn);
    }

    /// Who sees the face of a card lying in `slot`, face up or not: what `slot_info` keeps
    /// (the learners of a move there), or `View::face_watchers`.
    fn face_watchers(&self, slot: u32, face_up: bool) -> Players {
        match self.slot_info.get(slot as usize) {
            Some(info) => info.watchers[usize::from(face_up)].1,
            None => self.view().face_watchers(slot, face_up),
        }
    }

    /// A shuffled zone's cards are known only to who sees their faces there.
    pub(super) fn learn_shuffle(&mut self, slot: u32) {
        let (up, down) = (
            self.face_watchers(slot, true),
            self.face_watchers(slot, false),
        );
        let st = &mut self.state;
        let Some(zone) = st.zones.get(slot as usize) else {
            return;
        };
        for &c in zone {
            let face = st.face_up.get(c as usize).copied().unwrap_or(true);
            if let Some(k) = st.known.get_mut(c as usize) {
                *k = if face { up } else { down };
            }
        }
        // Those who see the faces there know them all (a public zone shuffled face up).
        if let Some(t) = self.search.as_deref_mut() {
            for &c in zone {
                let face = st.face_up.get(c as usize).copied().unwrap_or(true);
                if let Some(s) = t.seen.get_mut(c as usize) {
                    *s |= if face { up } else { down };
                }
            }
        }
    }

    /// A card turned over: who sees its face where it lies learns it (nobody forgets).
    pub(super) fn learn_flip(&mut self, c: u32) {
        let slot = self
            .state
            .card_zone
            .get(c as usize)
            .copied()
            .unwrap_or(NOWHERE);
        let face = self.state.face_up.get(c as usize).copied().unwrap_or(true);
        let learn = self.face_watchers(slot, face);
        if let Some(k) = self.state.known.get_mut(c as usize) {
            *k |= learn;
        }
        self.saw(c, learn);
    }

    /// Who knows card `c` now.
    pub fn known(&self, c: u32) -> Players {
        self.state.known.get(c as usize).copied().unwrap_or(0)
    }

    /// When the REPL evaluates for a viewer: may they look at card `c`?
    #[inline(always)]
    pub(crate) fn peek(&self, c: u32, span: Span) -> R<()> {
        match self.observer {
            Some(o) if !holds(self.known(c), o) => Err(self.hidden_from(o, span, "a card")),
            _ => Ok(()),
        }
    }

    /// When the REPL evaluates for a viewer: does this value hold a card they do not know?
    /// (Comparing or finding such a card would tell which card it is.)
    #[inline]
    pub(crate) fn peek_value(&self, v: &Value, span: Span) -> R<()> {
        if self.observer.is_none() {
            return Ok(());
        }
        self.peek_inside(v, span)
    }

    fn peek_inside(&self, v: &Value, span: Span) -> R<()> {
        match v {
            Value::Card(c) => self.peek(*c, span),
            Value::List(_) | Value::Tuple(_) | Value::Packed(_) => v
                .seq_items()
                .iter()
                .flat_map(|items| items.iter())
                .try_for_each(|x| self.peek_value(x, span)),
            Value::Zone(z) => self
                .zone_cards(*z)
                .iter()
                .try_for_each(|&c| self.peek(c, span)),
            _ => Ok(()),
        }
    }

    /// When the REPL evaluates for a viewer: may they read var `id` at slot `slot`?
    pub(super) fn peek_var(&self, id: Id, slot: usize, span: Span) -> R<()> {
        let Some(o) = self.observer else {
            return Ok(());
        };
        let base = self.state.var_base.get(id as usize).copied().unwrap_or(0) as usize;
        let off = slot.saturating_sub(base) as u32;
        if holds(self.view().var_readers(id, off), o) {
            return Ok(());
        }
        let name = self
            .prog
            .vars
            .get(id as usize)
            .map(|v| format!("`{}`", v.name))
            .unwrap_or_default();
        Err(self.hidden_from(o, span, &format!("this value of {name}")))
    }

    #[cold]
    fn hidden_from(&self, o: u32, span: Span, what: &str) -> Box<Diag> {
        Box::new(
            Diag::error("repl::hidden", format!("{what} is hidden from P{}", o + 1))
                .label(span, format!("P{} may not see this", o + 1))
                .help("`:as all` shows everything"),
        )
    }

    /// Record a `say` line: `full`, the value of `e`, as text, and when some player may not
    /// read all of it, the line as each player and as every player may read it: `e` worked out
    /// again as that viewer, each `{...}` that reads something hidden from them written
    /// `(hidden)` and each card they do not know `a hidden card`.
    pub(crate) fn record_say(&mut self, full: &Value, e: &Expr) {
        let text = self.words(full);
        let mut views = Vec::new();
        let plain = matches!(&e.kind, ExprKind::Text(parts)
            if parts.iter().all(|p| matches!(p, TextPart::Lit(_))));
        if self.observer.is_none() && !plain {
            let seats = self.state.n_players.min(crate::events::PUBLIC);
            for viewer in (0..seats).chain([crate::events::PUBLIC]) {
                views.push(self.say_as(e, viewer));
            }
            if views.iter().all(|v| *v == text) {
                views.clear();
            }
        }
        self.push_event(Event::Say { text, views });
    }

    /// The text of `say e` as `viewer` may read it.
    fn say_as(&mut self, e: &Expr, viewer: u32) -> String {
        let before = self.observer.replace(viewer);
        self.displaying += 1;
        let mut out = String::new();
        match &e.kind {
            ExprKind::Text(parts) => {
                for part in parts {
                    match part {
                        TextPart::Lit(t) => out.push_str(t),
                        TextPart::Expr(x) => out.push_str(&self.shown_or_hidden(x)),
                    }
                }
            }
            _ => out = self.shown_or_hidden(e),
        }
        self.displaying -= 1;
        self.observer = before;
        out
    }

    /// A value worked out and shown as the observer, or `(hidden)` when working it out reads
    /// something hidden from them (any error: the line was already worked out in full).
    fn shown_or_hidden(&mut self, e: &Expr) -> String {
        match self.eval(e) {
            Ok(v) => self.words(&v),
            Err(_) => HIDDEN_VALUE.to_string(),
        }
    }

    /// A value as the observer (if any) may see it: cards they do not know are hidden.
    pub fn show_for(&self, v: &Value, viewer: Option<u32>) -> String {
        match viewer {
            None => self.show(v),
            Some(p) => self
                .view()
                .show_parts(v, &self.state.known)
                .for_viewer(p)
                .text(),
        }
    }

    /// `show_for` with enum values in words.
    pub fn words_for(&self, v: &Value, viewer: Option<u32>) -> String {
        match viewer {
            None => self.words(v),
            Some(p) => self
                .view()
                .show_parts(v, &self.state.known)
                .for_viewer(p)
                .words(),
        }
    }
}

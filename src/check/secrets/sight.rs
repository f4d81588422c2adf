//! The lattice: who may read a value (`Sight`), for a value and the cards it holds (`Sec`).

use crate::diag::Span;

/// A player a value names, as the rules write it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Term {
    /// `P1`, 0-based.
    Player(u32),
    /// A parameter of the function being summarised.
    Param(u32),
    /// A local: its slot and the place it is bound (a slot is reused by another scope).
    Local(u32, u64),
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Atom {
    /// Known to no player the analysis can name. `true`: a var's declared visibility; `false`:
    /// what is known of a card, or an answer given in secret, which the rules may tell later.
    Nobody(bool),
    Seat(Term, bool),
    ArgVal(u32),
    ArgCards(u32),
    /// What selected an argument (`Sec::sel`).
    ArgSel(u32),
    /// Made of an answer given inside `secretly`.
    Answer,
}

/// Who may read a value: those every atom allows (no atom: everyone), each atom with the place
/// of the read it came from. Sorted by atom, each once.
#[derive(Clone, Default, Debug)]
pub(super) struct Sight(pub(super) Vec<(Atom, Span)>);

/// The most atoms a sight keeps; past it, its seats become `Nobody`.
pub(super) const MAX_ATOMS: usize = 16;

impl Sight {
    pub(super) fn one(a: Atom, at: Span) -> Sight {
        Sight(vec![(a, at)])
    }
    pub(super) fn all() -> Sight {
        Sight(Vec::new())
    }
    pub(super) fn atoms_eq(&self, o: &Sight) -> bool {
        self.0.len() == o.0.len() && self.0.iter().zip(&o.0).all(|(a, b)| a.0 == b.0)
    }
    pub(super) fn has(&self, a: Atom) -> bool {
        self.0.iter().any(|x| x.0 == a)
    }
    pub(super) fn meet(&mut self, o: &Sight) {
        if self.0.is_empty() {
            // Already sorted and normalised, each atom once.
            self.0.clone_from(&o.0);
            return;
        }
        let mut added = false;
        for &(a, at) in &o.0 {
            match self.0.binary_search_by(|x| x.0.cmp(&a)) {
                Ok(_) => {}
                Err(i) => {
                    self.0.insert(i, (a, at));
                    added = true;
                }
            }
        }
        if added {
            self.normalize();
        }
    }
    /// A `Nobody` makes the seats of its kind (and the card seats, for a var's) redundant;
    /// past `MAX_ATOMS`, the seats become `Nobody`.
    pub(super) fn normalize(&mut self) {
        // Sorted: the `Nobody`s come first.
        let var = self
            .0
            .iter()
            .take(2)
            .any(|x| matches!(x.0, Atom::Nobody(true)));
        let card = matches!(self.0.first(), Some((Atom::Nobody(false), _)));
        if var {
            self.0
                .retain(|x| !matches!(x.0, Atom::Seat(..) | Atom::Nobody(false)));
        } else if card {
            self.0.retain(|x| !matches!(x.0, Atom::Seat(_, false)));
        }
        if self.0.len() > MAX_ATOMS {
            let seat = self
                .0
                .iter()
                .find(|x| matches!(x.0, Atom::Seat(..)))
                .map(|x| (x.1, matches!(x.0, Atom::Seat(_, true))));
            if let Some((at, v)) = seat {
                self.0.retain(|x| !matches!(x.0, Atom::Seat(..)));
                let mut n = Sight::one(Atom::Nobody(v), at);
                std::mem::swap(self, &mut n);
                self.meet(&n);
            }
        }
    }
    /// Every atom of `f` mapped (seats of locals bound in a scope left, parameters at a call).
    pub(super) fn map(&self, f: &mut impl FnMut(Atom, Span) -> Sight) -> Sight {
        let mut out = Sight::all();
        for &(a, at) in &self.0 {
            out.meet(&f(a, at));
        }
        out
    }
}

#[derive(Clone, Default, Debug)]
pub(super) struct Sec {
    pub(super) val: Sight,
    pub(super) cards: Sight,
    /// What selected the value: the conditions of the `filter`s that made a list, and all
    /// else its length depends on (a var's visibility, a card's field, the entry a key picks;
    /// not the values a `map` made, which leave it as long as its source). Followed only to
    /// decide whether a choice is asked (`check::hidden_asked`); the texts do not read it.
    pub(super) sel: Sight,
}

impl Sec {
    pub(super) fn all() -> Sec {
        Sec::default()
    }
    pub(super) fn meet(&mut self, o: &Sec) {
        self.val.meet(&o.val);
        self.cards.meet(&o.cards);
        self.sel.meet(&o.sel);
    }
    /// The value with its cards' identities folded in (a text naming them, a comparison).
    pub(super) fn told(&self) -> Sight {
        let mut s = self.val.clone();
        s.meet(&self.cards);
        s
    }
    pub(super) fn map(&self, f: &mut impl FnMut(Atom, Span) -> Sight) -> Sec {
        Sec {
            val: self.val.map(f),
            cards: self.cards.map(f),
            sel: self.sel.map(f),
        }
    }
    pub(super) fn atoms_eq(&self, o: &Sec) -> bool {
        self.val.atoms_eq(&o.val) && self.cards.atoms_eq(&o.cards) && self.sel.atoms_eq(&o.sel)
    }
    /// What a condition on the value tells: the value, its cards, what selected it.
    pub(super) fn decides(&self) -> Sight {
        let mut s = self.told();
        s.meet(&self.sel);
        s
    }
    /// What a list's emptiness tells: what selected it (`sel` holds all its length depends on).
    pub(super) fn emptiness(&self) -> Sight {
        self.sel.clone()
    }
}

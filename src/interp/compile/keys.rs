//! Zone and var keys compiled. Each key of `bank[f]` or `pending[g, f, Military]` knows its
//! domain when it is compiled: a player (as many as the game has), an enum (its size) or a range
//! (its start and size). A key that is a local is read in place, a constant key is checked and
//! turned into its index once, and the slot is worked out without looking the family's domains
//! and sizes up again. The checks and their errors are those of `Interp::flat_key`, in the same
//! order: each key is checked as soon as it is evaluated.
//!
//! The compiler's functions take no `Program`, so the key domains of every family are handed to
//! them for the time of one compilation (`with_families`); outside one, or for a shape this file
//! does not handle, keys go the general way (`eval_var`, `eval_zone`, `var_slot`).

use super::exprs::cexprs;
use super::{code, CExpr, Code, Ev};
use crate::diag::Span;
use crate::interp::{key_count, Interp, R};
use crate::program::*;
use crate::value::Value;
use std::cell::RefCell;

/// A key domain with its size, when the size does not depend on the number of players.
#[derive(Clone, Copy)]
enum Dom {
    Player,
    Enum(Id, u32),
    Range(i64, u32),
}

/// The key domains of every var and zone family of the program being compiled.
struct Families {
    vars: Vec<Vec<(KeyDomain, Dom)>>,
    zones: Vec<Vec<(KeyDomain, Dom)>>,
}

thread_local! {
    static FAMILIES: RefCell<Option<Families>> = const { RefCell::new(None) };
}

/// Run `f` (a compilation) with the key domains of `prog`'s families at hand.
pub(super) fn with_families<T>(prog: &Program, f: impl FnOnce() -> T) -> T {
    let doms = |keys: &[KeyDomain]| -> Vec<(KeyDomain, Dom)> {
        keys.iter()
            .map(|d| {
                let dom = match d {
                    KeyDomain::Player => Dom::Player,
                    KeyDomain::Enum(e) => Dom::Enum(*e, key_count(d, 0, prog)),
                    KeyDomain::Range(lo, _) => Dom::Range(*lo, key_count(d, 0, prog)),
                };
                (d.clone(), dom)
            })
            .collect()
    };
    let fams = Families {
        vars: prog.vars.iter().map(|v| doms(&v.keys)).collect(),
        zones: prog.zones.iter().map(|z| doms(&z.keys)).collect(),
    };
    let old = FAMILIES.with(|t| t.replace(Some(fams)));
    let r = f();
    FAMILIES.with(|t| *t.borrow_mut() = old);
    r
}

/// Where a key's value comes from.
enum Src {
    Local(u32),
    /// A constant key, already turned into its index.
    Index(u32),
    /// A field of a local (`story_pile[c.track]`), read without a closure of its own.
    Field(Box<super::exprs::LocalField>),
    /// A call of a function of one enum argument that reads nothing else, its argument a
    /// local (`supporters[row, other(side)]`): the key's index kept per value of the argument.
    Call(Box<super::finite::KeyCall>),
    /// An item of a local tuple (`ideology[p, b.0]`), looked at in place; anything else (not a
    /// tuple, no such item) is the expression's own code and its error.
    Item(u32, usize, CExpr),
    Expr(CExpr),
}

struct CKey {
    domain: KeyDomain,
    dom: Dom,
    src: Src,
    span: Span,
}

/// The keys of one family, compiled.
pub(super) struct CKeys {
    /// Zone or var family, as `bad_key` names it.
    family: (bool, Id),
    keys: Vec<CKey>,
    /// One or two keys that are all locals: their slots and domains.
    fast: Fast,
}

#[derive(Clone, Copy)]
enum Fast {
    /// One key, a player (`currency[p]`, `hand[p]`): no dispatch on the domain.
    Player(u32),
    /// Two keys, both players (`open_pact[p, q]`).
    Players(u32, u32),
    One(u32, Dom),
    Two(u32, Dom, u32, Dom),
    /// Two keys, a local and a kept call of a local (`supporters[row, other(side)]`): read
    /// without the general loop once the call is kept for the argument's value.
    LocalCall(u32, Dom),
    No,
}

impl Fast {
    fn of(keys: &[CKey]) -> Fast {
        let local = |k: &CKey| match k.src {
            Src::Local(slot) => Some((slot, k.dom)),
            _ => None,
        };
        match keys {
            [a] => match local(a) {
                Some((s, Dom::Player)) => Fast::Player(s),
                Some((s, d)) => Fast::One(s, d),
                None => Fast::No,
            },
            [a, b] => match (local(a), local(b)) {
                (Some((sa, Dom::Player)), Some((sb, Dom::Player))) => Fast::Players(sa, sb),
                (Some((sa, da)), Some((sb, db))) => Fast::Two(sa, da, sb, db),
                (Some((sa, da)), None) if matches!(b.src, Src::Call(_)) => Fast::LocalCall(sa, da),
                _ => Fast::No,
            },
            _ => Fast::No,
        }
    }
}

/// The index of `v` in a domain of `n` keys, if it is one of its keys.
#[inline(always)]
fn index_of(dom: Dom, v: &Value, players: u32) -> Option<(u32, u32)> {
    match (dom, v) {
        (Dom::Player, Value::Player(p)) if *p < players => Some((*p, players)),
        (Dom::Enum(e, n), Value::Enum(e2, x)) if e == *e2 && *x < n => Some((*x, n)),
        // `x - lo` overflows only when `x` is far outside any range of `n` keys.
        (Dom::Range(lo, n), Value::Int(x)) => match x.checked_sub(lo) {
            Some(d) if d >= 0 && d < i64::from(n) => Some((d as u32, n)),
            _ => None,
        },
        _ => None,
    }
}

impl CKey {
    /// This key's index and its domain's size.
    #[inline(always)]
    fn index(&self, me: &mut Interp<'_>, family: (bool, Id)) -> R<(u32, u32)> {
        let players = me.state.n_players;
        match &self.src {
            Src::Index(j) => match self.dom {
                Dom::Enum(_, n) | Dom::Range(_, n) => Ok((*j, n)),
                Dom::Player => Ok((*j, players)),
            },
            Src::Local(slot) => {
                if let Some(r) = me
                    .local_ref(*slot)
                    .and_then(|v| index_of(self.dom, v, players))
                {
                    return Ok(r);
                }
                let v = me.local(*slot);
                Err(me.bad_key(&self.domain, &v, self.span, family))
            }
            Src::Field(f) => {
                let v = f.ev(me)?;
                match index_of(self.dom, &v, players) {
                    Some(r) => Ok(r),
                    None => Err(me.bad_key(&self.domain, &v, self.span, family)),
                }
            }
            Src::Item(slot, i, e) => {
                if let Some(r) = self.item(me, *slot, *i) {
                    return Ok(r);
                }
                // Not a tuple, no such item, or an item outside the domain: the expression's
                // own value and error, and the key's.
                let v = e.ev(me)?;
                match index_of(self.dom, &v, players) {
                    Some(r) => Ok(r),
                    None => Err(me.bad_key(&self.domain, &v, self.span, family)),
                }
            }
            Src::Call(c) => match c.index(me, |v| index_of(self.dom, v, players))? {
                Ok(r) => Ok(r),
                Err(v) => Err(me.bad_key(&self.domain, &v, self.span, family)),
            },
            Src::Expr(e) => {
                let v = e.ev(me)?;
                match index_of(self.dom, &v, players) {
                    Some(r) => Ok(r),
                    None => Err(me.bad_key(&self.domain, &v, self.span, family)),
                }
            }
        }
    }
}

impl CKey {
    /// Item `i` of the tuple in local `slot` as this key (its index and its domain's size), if
    /// the local is a tuple with such an item within the domain.
    #[inline(always)]
    fn item(&self, me: &Interp<'_>, slot: u32, i: usize) -> Option<(u32, u32)> {
        let players = me.state.n_players;
        match me.local_ref(slot) {
            Some(Value::Tuple(items)) => items.get(i).and_then(|v| index_of(self.dom, v, players)),
            Some(Value::Packed(p)) => p.get(i).and_then(|v| index_of(self.dom, &v, players)),
            _ => None,
        }
    }

    /// The key's index and its domain's size when it is read in place with nothing worked out
    /// or charged (a local, a constant, an item of a local tuple, a field of a local card its
    /// site has read before, no observer) and is within its domain; else `None` (then `index`
    /// reads it, errors included).
    #[inline(always)]
    fn quick(&self, me: &Interp<'_>) -> Option<(u32, u32)> {
        let players = me.state.n_players;
        match &self.src {
            Src::Local(slot) => me
                .local_ref(*slot)
                .and_then(|v| index_of(self.dom, v, players)),
            Src::Index(j) => match self.dom {
                Dom::Enum(_, n) | Dom::Range(_, n) => Some((*j, n)),
                Dom::Player => Some((*j, players)),
            },
            Src::Item(slot, i, _) => self.item(me, *slot, *i),
            Src::Field(f) => f.in_place(me).and_then(|v| index_of(self.dom, v, players)),
            Src::Call(_) | Src::Expr(_) => None,
        }
    }
}

impl CKeys {
    /// The compiled keys of family `id`, or `None` to go the general way.
    fn new(zone: bool, id: Id, keys: &[Expr]) -> Option<CKeys> {
        FAMILIES.with(|t| {
            let t = t.borrow();
            let fams = t.as_ref()?;
            let doms = if zone { &fams.zones } else { &fams.vars }.get(id as usize)?;
            if doms.len() != keys.len() {
                return None;
            }
            let keys: Vec<CKey> = doms
                .iter()
                .zip(keys)
                .map(|((domain, dom), k)| {
                    let src = match &k.kind {
                        ExprKind::Local(slot) => Src::Local(*slot),
                        // A constant of the domain (not a player: their number is not known
                        // yet); any other constant is refused when the key is evaluated.
                        ExprKind::Const(v) => match index_of(*dom, v, 0) {
                            Some((j, _)) => Src::Index(j),
                            None => Src::Expr(super::exprs::cexpr(k)),
                        },
                        ExprKind::TupleIndex(base, i) => match base.kind {
                            ExprKind::Local(slot) => Src::Item(slot, *i, super::exprs::cexpr(k)),
                            _ => Src::Expr(super::exprs::cexpr(k)),
                        },
                        ExprKind::Call(f, es) => {
                            match super::finite::KeyCall::new(*f, es, k.span) {
                                Some(c) => Src::Call(Box::new(c)),
                                None => Src::Expr(super::exprs::cexpr(k)),
                            }
                        }
                        _ => match super::exprs::LocalField::of(k) {
                            Some(f) => Src::Field(f),
                            None => Src::Expr(super::exprs::cexpr(k)),
                        },
                    };
                    CKey {
                        domain: domain.clone(),
                        dom: *dom,
                        src,
                        span: k.span,
                    }
                })
                .collect();
            Some(CKeys {
                family: (zone, id),
                fast: Fast::of(&keys),
                keys,
            })
        })
    }

    /// The slot's offset within its family. Keys that are locals (`hand[p]`,
    /// `supporters[row, side]`) are read in place; any other shape, or a key out of its domain,
    /// goes through the general loop (which reports the error).
    #[inline(always)]
    fn offset(&self, me: &mut Interp<'_>) -> R<u32> {
        match self.local_offset(me) {
            Some(off) => Ok(off),
            None => self.offset_general(me),
        }
    }

    /// The offset when the keys are one or two locals within their domains (nothing evaluated,
    /// nothing charged), else `None`.
    #[inline(always)]
    fn local_offset(&self, me: &Interp<'_>) -> Option<u32> {
        let players = me.state.n_players;
        let at = |slot: u32, dom: Dom| me.local_ref(slot).and_then(|v| index_of(dom, v, players));
        let player = |slot: u32| match me.local_ref(slot) {
            Some(&Value::Player(p)) if p < players => Some(p),
            _ => None,
        };
        match self.fast {
            Fast::Player(s) => player(s),
            // Within the family's slots, which fit in `u32` (`Interp::new`).
            Fast::Players(sa, sb) => match (player(sa), player(sb)) {
                (Some(a), Some(b)) => Some(a.saturating_mul(players).saturating_add(b)),
                _ => None,
            },
            Fast::One(s, d) => at(s, d).map(|(j, _)| j),
            // Within the family's slots, which fit in `u32` (`Interp::new`).
            Fast::Two(sa, da, sb, db) => match (at(sa, da), at(sb, db)) {
                (Some((ja, _)), Some((jb, nb))) => Some(ja.saturating_mul(nb).saturating_add(jb)),
                _ => None,
            },
            Fast::LocalCall(..) | Fast::No => None,
        }
    }

    /// `offset` for any shape of keys.
    #[inline(never)]
    fn offset_general(&self, me: &mut Interp<'_>) -> R<u32> {
        if let (Fast::LocalCall(sa, da), [_, b]) = (self.fast, &self.keys[..]) {
            let players = me.state.n_players;
            let a = me.local_ref(sa).and_then(|v| index_of(da, v, players));
            if let (Some((ja, _)), Src::Call(c)) = (a, &b.src) {
                // The first key read, nothing charged; the call charged as it is.
                if let Some((jb, nb)) = c.kept(me)? {
                    // Within the family's slots, which fit in `u32` (`Interp::new`).
                    return Ok(ja.saturating_mul(nb).saturating_add(jb));
                }
            }
        }
        // Keys read in place (an item of a local tuple, a field of a local card, beside
        // locals and constants): no loop over them, nothing charged.
        match &self.keys[..] {
            [k] => {
                if let Some((j, _)) = k.quick(me) {
                    return Ok(j);
                }
            }
            [a, b] => {
                if let (Some((ja, _)), Some((jb, nb))) = (a.quick(me), b.quick(me)) {
                    // Within the family's slots, which fit in `u32` (`Interp::new`).
                    return Ok(ja.saturating_mul(nb).saturating_add(jb));
                }
            }
            _ => {}
        }
        match &self.keys[..] {
            [k] => return Ok(k.index(me, self.family)?.0),
            // Within the family's slots, which fit in `u32` (`Interp::new`).
            [a, b] => {
                let (ja, _) = a.index(me, self.family)?;
                let (jb, nb) = b.index(me, self.family)?;
                return Ok(ja.saturating_mul(nb).saturating_add(jb));
            }
            [a, b, c] => {
                let (ja, _) = a.index(me, self.family)?;
                let (jb, nb) = b.index(me, self.family)?;
                let (jc, nc) = c.index(me, self.family)?;
                let ab = ja.saturating_mul(nb).saturating_add(jb);
                return Ok(ab.saturating_mul(nc).saturating_add(jc));
            }
            _ => {}
        }
        let mut idx = 0u32;
        for k in &self.keys {
            let (j, n) = k.index(me, self.family)?;
            idx = match idx.checked_mul(n).and_then(|i| i.checked_add(j)) {
                Some(i) => i,
                // Never: a family's slots fit in `u32` (`Interp::new`).
                None => return Err(crate::interp::rt(k.span, "this key is out of range")),
            };
        }
        Ok(idx)
    }

    /// The slot in `State::vars` of a var family's keys.
    #[inline(always)]
    pub(super) fn var_slot(&self, me: &mut Interp<'_>) -> R<usize> {
        let off = self.offset(me)?;
        let base = me.state.var_base.get(self.family.1 as usize).copied();
        Ok(base.unwrap_or(0) as usize + off as usize)
    }
}

/// A var family's slot, for `set`: compiled keys, or the general way.
pub(super) enum VarPlace {
    Keys(CKeys),
    General(Id, Vec<CExpr>, Span),
}

impl VarPlace {
    pub(super) fn new(id: Id, keys: &[Expr], span: Span) -> VarPlace {
        match CKeys::new(false, id, keys) {
            Some(k) => VarPlace::Keys(k),
            None => VarPlace::General(id, cexprs(keys), span),
        }
    }

    #[inline(always)]
    pub(super) fn slot(&self, me: &mut Interp<'_>) -> R<usize> {
        match self {
            VarPlace::Keys(k) => k.var_slot(me),
            VarPlace::General(id, keys, span) => me.var_slot(*id, keys, *span),
        }
    }
}

/// `var[keys]` as an operand (`open_pact[p, q] != none`, `currency[p] >= cost`) whose keys are
/// one or two locals: looked at in place where nothing could go otherwise (no observer, whose
/// view checks the read; the keys within their domains), read as `var` reads it everywhere else.
pub(crate) struct VarRead {
    id: Id,
    keys: CKeys,
    span: Span,
}

impl VarRead {
    pub(super) fn new(id: Id, keys: &[Expr], span: Span) -> Option<Box<VarRead>> {
        let keys = CKeys::new(false, id, keys)?;
        if matches!(keys.fast, Fast::No) {
            return None;
        }
        Some(Box::new(VarRead { id, keys, span }))
    }

    #[inline(always)]
    pub(super) fn ev(&self, me: &mut Interp<'_>) -> R<Value> {
        let slot = self.keys.var_slot(me)?;
        me.var_at(self.id, slot, self.span)
    }

    #[inline(always)]
    pub(super) fn peek<'a>(&self, me: &'a Interp<'_>) -> Option<&'a Value> {
        if me.observer.is_some() {
            return None;
        }
        let off = self.keys.local_offset(me)?;
        let base = *me.state.var_base.get(self.id as usize)?;
        me.state.vars.get(base as usize + off as usize)
    }
}

/// Reading `var[keys]`.
pub(super) fn var(id: Id, keys: &[Expr], span: Span) -> Code {
    if keys.is_empty() {
        return code(move |me| me.eval_var::<CExpr>(id, &[], span));
    }
    let Some(k) = CKeys::new(false, id, keys) else {
        let keys = cexprs(keys);
        return code(move |me| me.eval_var(id, &keys, span));
    };
    code(move |me| {
        let slot = k.var_slot(me)?;
        me.var_at(id, slot, span)
    })
}

/// `zone[keys]`.
pub(super) fn zone(id: Id, keys: &[Expr], span: Span) -> Code {
    let general = |keys: &[Expr]| {
        let keys = cexprs(keys);
        code(move |me| me.eval_zone(id, &keys, span))
    };
    if keys.is_empty() {
        return general(keys);
    }
    let Some(k) = CKeys::new(true, id, keys) else {
        return general(keys);
    };
    code(move |me| {
        let off = k.offset(me)?;
        Ok(Value::Zone(zone_slot(me, id, off)))
    })
}

/// A zone slot with compiled keys (`hand[p]`, `supporters[row, side]`): where it is, without
/// making a `Value::Zone` to look at (`top(society_under[row])`).
pub(super) struct ZonePlace {
    id: Id,
    keys: CKeys,
}

impl ZonePlace {
    /// `None` for a zone without keys or keys of a shape `CKeys` does not handle.
    pub(super) fn new(id: Id, keys: &[Expr]) -> Option<ZonePlace> {
        if keys.is_empty() {
            return None;
        }
        CKeys::new(true, id, keys).map(|keys| ZonePlace { id, keys })
    }

    /// The slot, as `zone` gives it.
    #[inline(always)]
    pub(super) fn slot(&self, me: &mut Interp<'_>) -> R<u32> {
        let off = self.keys.offset(me)?;
        Ok(zone_slot(me, self.id, off))
    }
}

/// Slot `off` of zone family `id`.
#[inline(always)]
fn zone_slot(me: &Interp<'_>, id: Id, off: u32) -> u32 {
    let base = me.state.zone_base.get(id as usize).copied().unwrap_or(0);
    base.saturating_add(off)
}

//! Aggregates compiled: one closure per kind, each walking its source in a loop of its own (no
//! per-element dispatch on the kind or the source), and list building without intermediate
//! lists.
//!
//! - The aggregates that build lists (`map`, `filter`, `flatten(map)`) compile to a `Fill`,
//!   which appends their elements to a vector it is handed. A `flatten(map(...))` whose value is
//!   itself one of them hands it its own vector, so the inner lists are never built; the inner
//!   aggregate still ticks, checks its length and its depth as if it had built its list, and the
//!   outer one charges the join by the number of elements joined, as it does for a built list.
//! - An aggregate or a `for` over `filter(...)` walks the filtered elements in a vector taken
//!   from a pool, not a list value. The filter runs to its end before the walk starts, as it
//!   did when it built a list, so the order of evaluation is unchanged.
//! - `sort` and `best` go through the shared `Interp::aggregate`.

use super::conds::{cond, CCond};
use super::exprs::cexpr;
use super::{code, CExpr, Code, Ev};
use crate::ast::{AggKind, BinOp};
use crate::diag::Span;
use crate::interp::exprs::Source;
use crate::interp::{rt, Interp, R};
use crate::program::*;
use crate::value::Value;

/// Appends a list-building aggregate's elements to a vector; returns how deeply the elements
/// nest (the deepest element's depth), so the list they would have made can be checked.
pub(super) type Fill = Box<dyn for<'a> Fn(&mut Interp<'a>, &mut Vec<Value>) -> R<u32>>;

/// At most this many elements are reserved ahead of a `map` (its source's length).
const RESERVE_MAX: usize = 256;

/// What an aggregate or a `for` walks: a range (no list built), the elements of a `filter`
/// (in a pooled vector, no list value), or a value.
pub(super) enum CSource {
    Range(Bound, Bound),
    /// A local (`x in cards`), read without a closure of its own.
    Local(u32, CExpr),
    Filtered(Fill),
    /// A zone slot with compiled keys (`c in supporters[row, side]`), read in place.
    Zone(super::keys::ZonePlace),
    /// A list written as a constant (`side in Side`: an enum's values).
    List(std::rc::Rc<crate::value::Items>),
    Value(CExpr),
}

impl CSource {
    pub(super) fn new(e: &Expr) -> CSource {
        match &e.kind {
            ExprKind::Binary(BinOp::Range, a, b) => CSource::Range(Bound::new(a), Bound::new(b)),
            ExprKind::Local(slot) => CSource::Local(*slot, cexpr(e)),
            ExprKind::Agg {
                kind: AggKind::Filter,
                slot,
                source,
                filter,
                map: None,
            } => CSource::Filtered(filter_fill(*slot, source, filter.as_deref(), e.span)),
            ExprKind::Const(Value::List(l)) => CSource::List(l.clone()),
            ExprKind::Zone(id, keys) => match super::keys::ZonePlace::new(*id, keys) {
                Some(place) => CSource::Zone(place),
                None => CSource::Value(cexpr(e)),
            },
            _ => CSource::Value(cexpr(e)),
        }
    }

    #[inline(always)]
    pub(super) fn eval(&self, me: &mut Interp<'_>) -> R<Source> {
        match self {
            CSource::Range(a, b) => {
                let lo = a.int(me)?;
                let hi = b.int(me)?;
                Ok(Source::Range(lo, hi))
            }
            CSource::Local(slot, e) => {
                let v = me.local(*slot);
                me.source_of(v, e.span)
            }
            CSource::Filtered(fill) => {
                let mut v = me.spare_vec();
                match fill(me, &mut v) {
                    Ok(_) => Ok(Source::Values(v)),
                    Err(e) => {
                        me.recycle_vec(v);
                        Err(e)
                    }
                }
            }
            CSource::Zone(place) => Ok(Source::Zone(place.slot(me)?)),
            CSource::List(l) => Ok(Source::List(l.clone())),
            CSource::Value(e) => {
                let v = e.ev(me)?;
                me.source_of(v, e.span)
            }
        }
    }
}

/// A bound of a range: a number written out (`1..slots`, the constant folded), or an expression.
pub(super) enum Bound {
    Const(i64),
    Expr(CExpr),
}

impl Bound {
    pub(super) fn new(e: &Expr) -> Bound {
        match e.kind {
            ExprKind::Const(Value::Int(n)) => Bound::Const(n),
            _ => Bound::Expr(cexpr(e)),
        }
    }

    #[inline(always)]
    pub(super) fn int(&self, me: &mut Interp<'_>) -> R<i64> {
        match self {
            Bound::Const(n) => Ok(*n),
            Bound::Expr(e) => me.int(e),
        }
    }
}

impl Interp<'_> {
    /// An empty vector, from the pool when it has one.
    #[inline]
    pub(super) fn spare_vec(&mut self) -> Vec<Value> {
        self.spare_vecs.pop().unwrap_or_default()
    }

    /// Give a vector back to the pool (emptied; a few small ones are kept).
    #[inline]
    pub(super) fn recycle_vec(&mut self, mut v: Vec<Value>) {
        v.clear();
        if self.spare_vecs.len() < 16 && v.capacity() > 0 && v.capacity() <= 1024 {
            self.spare_vecs.push(v);
        }
    }

    /// Done with a source: a pooled vector goes back.
    #[inline]
    pub(super) fn recycle_source(&mut self, s: Source) {
        match s {
            Source::Values(v) => self.recycle_vec(v),
            // Nothing to give back or drop (no call to drop them).
            Source::Zone(_) | Source::Range(..) => {}
            other => drop(other),
        }
    }
}

/// Call `f` on each element of a source, until it returns `false`. A zone is read as it stands
/// at each step, up to the length it had at the start (as `Source::get` does). One loop (not one
/// per kind of source) so that `f` is compiled in place once.
#[inline(always)]
fn each<'a>(
    me: &mut Interp<'a>,
    src: &Source,
    mut f: impl FnMut(&mut Interp<'a>, Value) -> R<bool>,
) -> R<()> {
    let n = src.len(&me.state);
    for i in 0..n {
        let Some(v) = src.get(&me.state, i) else {
            break;
        };
        if !f(me, v)? {
            break;
        }
    }
    Ok(())
}

/// Run `body` over the source's elements, then give a pooled source back.
#[inline(always)]
pub(super) fn walk<'a>(
    me: &mut Interp<'a>,
    src: Source,
    f: impl FnMut(&mut Interp<'a>, Value) -> R<bool>,
) -> R<()> {
    let r = each(me, &src, f);
    me.recycle_source(src);
    r
}

/// `walk`, with each element put in local `slot` before `f` is called (`Interp::put_item`).
#[inline(always)]
pub(super) fn walk_in<'a>(
    me: &mut Interp<'a>,
    src: Source,
    slot: u32,
    mut f: impl FnMut(&mut Interp<'a>) -> R<bool>,
) -> R<()> {
    let n = src.len(&me.state);
    let mut r = Ok(());
    for i in 0..n {
        if !me.put_item(&src, i, slot) {
            break;
        }
        match f(me) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                r = Err(e);
                break;
            }
        }
    }
    me.recycle_source(src);
    r
}

/// Whether the `where` condition holds for the element in the slot (none: it does).
#[inline(always)]
fn passes(me: &mut Interp<'_>, filter: &Option<CCond>) -> R<bool> {
    match filter {
        Some(f) => f.holds(me),
        None => Ok(true),
    }
}

/// An aggregate expression: looked up where it can be (`index.rs`), walked otherwise.
pub(super) fn agg(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
) -> Code {
    super::facts::within(slot, source, &[filter, map], || {
        let walked = walked(kind, slot, source, filter, map, span);
        super::index::agg(kind, slot, source, filter, map, span, walked)
    })
}

/// An aggregate that walks its source.
fn walked(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
) -> Code {
    match kind {
        AggKind::Map | AggKind::FlatMap => {
            let fill = list_fill(kind, slot, source, filter, map, span);
            return code(move |me| {
                let mut out = me.spare_vec();
                let r = fill(me, &mut out);
                let v = r.map(|_| Value::list_from(&mut out));
                me.recycle_vec(out);
                me.nest(v?, span)
            });
        }
        AggKind::Filter if map.is_none() => {
            let fill = filter_fill(slot, source, filter, span);
            return code(move |me| {
                let mut out = me.spare_vec();
                let r = fill(me, &mut out);
                let v = r.map(|_| Value::list_from(&mut out));
                me.recycle_vec(out);
                v
            });
        }
        _ => {}
    }
    if let Some(scanned) = super::scan::agg(kind, slot, source, filter, map, span) {
        return scanned;
    }
    let src = CSource::new(source);
    let map = map.map(cexpr);
    if !matches!(
        kind,
        AggKind::Count
            | AggKind::Any
            | AggKind::All
            | AggKind::First
            | AggKind::Sum
            | AggKind::Min
            | AggKind::Max
    ) {
        // `sort`, `best`: the shared walk.
        let filter = filter.map(cexpr);
        return code(move |me| {
            let s = src.eval(me)?;
            me.aggregate(kind, slot, s, filter.as_ref(), map.as_ref(), span)
        });
    }
    let filter = filter.map(cond);
    match kind {
        AggKind::Count => code(move |me| {
            let s = src.eval(me)?;
            let mut n = 0i64;
            walk_in(me, s, slot, |me| {
                me.tick(span)?;
                if passes(me, &filter)? {
                    n += 1;
                }
                Ok(true)
            })?;
            Ok(Value::Int(n))
        }),
        // `any` stops at the first element that passes, `all` at the first that fails; each
        // gives the last answer (`false` for an empty `any`, `true` for an empty `all`).
        AggKind::Any | AggKind::All => {
            let any = kind == AggKind::Any;
            code(move |me| {
                let s = src.eval(me)?;
                let mut last = !any;
                walk_in(me, s, slot, |me| {
                    me.tick(span)?;
                    last = passes(me, &filter)?;
                    Ok(last != any)
                })?;
                Ok(Value::Bool(last))
            })
        }
        AggKind::First => code(move |me| {
            let s = src.eval(me)?;
            let mut found = Value::None;
            walk(me, s, |me, item| {
                me.tick(span)?;
                me.set_local(slot, item.clone());
                if passes(me, &filter)? {
                    found = item;
                    return Ok(false);
                }
                Ok(true)
            })?;
            Ok(found)
        }),
        // `sum`, `min`, `max`.
        _ => code(move |me| {
            let s = src.eval(me)?;
            let mut sum = 0i64;
            let mut extreme: Option<i64> = None;
            walk(me, s, |me, item| {
                me.tick(span)?;
                // Without `=> value`, the element itself is summed or compared.
                let plain = if map.is_none() {
                    Some(item.clone())
                } else {
                    None
                };
                me.set_local(slot, item);
                if !passes(me, &filter)? {
                    return Ok(true);
                }
                let v = match (&map, plain) {
                    (Some(m), _) => me.int(m)?,
                    (None, Some(Value::Int(n))) => n,
                    (None, Some(other)) => return Err(needs_numbers(kind, &other, span)),
                    (None, None) => 0,
                };
                match kind {
                    AggKind::Sum => {
                        sum = sum
                            .checked_add(v)
                            .ok_or_else(|| rt(span, "number overflow"))?
                    }
                    AggKind::Min => extreme = Some(extreme.map_or(v, |e| e.min(v))),
                    _ => extreme = Some(extreme.map_or(v, |e| e.max(v))),
                }
                Ok(true)
            })?;
            Ok(match kind {
                AggKind::Sum => Value::Int(sum),
                _ => extreme.map(Value::Int).unwrap_or(Value::None),
            })
        }),
    }
}

#[cold]
fn needs_numbers(kind: AggKind, v: &Value, span: Span) -> Box<crate::diag::Diag> {
    rt(
        span,
        format!("`{}` needs numbers, found {}", kind.name(), v.type_name()),
    )
}

#[cold]
fn too_long(span: Span) -> Box<crate::diag::Diag> {
    rt(span, "this list grew past the list-length limit")
}

/// `filter(x in l where c)`: the elements for which `c` holds (looked up where it can be,
/// `index.rs`).
fn filter_fill(slot: u32, source: &Expr, filter: Option<&Expr>, span: Span) -> Fill {
    super::facts::within(slot, source, &[filter], || {
        let walked = filter_walked(slot, source, filter, span);
        super::index::fill(slot, source, filter, span, walked)
    })
}

fn filter_walked(slot: u32, source: &Expr, filter: Option<&Expr>, span: Span) -> Fill {
    if let Some(scanned) = super::scan::fill(slot, source, filter, span) {
        return scanned;
    }
    let src = CSource::new(source);
    let filter = filter.map(cond);
    Box::new(move |me, out| {
        let s = src.eval(me)?;
        let mut depth = 0u32;
        walk(me, s, |me, item| {
            me.tick(span)?;
            me.set_local(slot, item.clone());
            if passes(me, &filter)? {
                depth = depth.max(item.depth());
                out.push(item);
            }
            Ok(true)
        })?;
        Ok(depth)
    })
}

/// `map(x in filter(y in s where p) => (a, b, x))`, whose value is a list or tuple written out
/// of locals and constants that `p` never sets: the filter and the map in one walk, with no
/// list of the filtered elements in between.
///
/// Such a value reads only those locals and does nothing else (no step, no effect, nothing of
/// the game), so it is made as soon as its element passes the filter, and is the value the map
/// would have made. What the map does besides (a step per element, the list-length check, and
/// an error making a value, which stops it) is replayed once the filter has run to its end, in
/// the order the map would have done it: the same steps in the same order, the same errors.
fn map_of_filter(slot: u32, source: &Expr, map: Option<&Expr>, span: Span) -> Option<Fill> {
    let ExprKind::Agg {
        kind: AggKind::Filter,
        slot: fslot,
        source: fsource,
        filter: Some(test),
        map: None,
    } = &source.kind
    else {
        return None;
    };
    let value = map?;
    let (ExprKind::Tuple(items) | ExprKind::List(items)) = &value.kind else {
        return None;
    };
    for it in items {
        match it.kind {
            ExprKind::Const(_) => {}
            ExprKind::Local(s) if s == slot || !super::inline::binds(test, s) => {}
            _ => return None,
        }
    }
    let (fslot, fspan) = (*fslot, source.span);
    let src = CSource::new(fsource);
    // A closure for each kind of condition and of source, so that none pays for another; a
    // tuple of three locals (`(c, row, side)`) made in the walk's own closure.
    let cached = super::facts::within(fslot, fsource, &[Some(test)], || {
        super::invariant::cached_call(test, &[fslot, slot])
    });
    let cond = |test: &Expr| super::facts::within(fslot, fsource, &[Some(test)], || cond(test));
    let (fs, ms) = ((fslot, fspan), (slot, span));
    // The filter's element and the map's in one slot (the checker gives a slot back at the end
    // of its scope, so the two usually share one): set once, not copied into a second.
    let one = fslot == slot && !super::inline::binds(test, fslot);
    if let Some(three) = Three::of(value) {
        return Some(match (src, cached) {
            (CSource::List(l), Some(c)) => filter_map(Written(l), c, three, fs, ms, one),
            (src, Some(c)) => filter_map(src, c, three, fs, ms, one),
            (src, None) => filter_map(src, cond(test), three, fs, ms, one),
        });
    }
    let value = super::exprs::expr(value);
    Some(match (src, cached) {
        (CSource::List(l), Some(c)) => filter_map(Written(l), c, value, fs, ms, one),
        (CSource::List(l), None) => filter_map(Written(l), cond(test), value, fs, ms, one),
        (src, Some(c)) => filter_map(src, c, value, fs, ms, one),
        (src, None) => filter_map(src, cond(test), value, fs, ms, one),
    })
}

/// What `filter_map` makes of each element kept.
trait Made {
    fn make(&self, me: &mut Interp<'_>) -> R<Value>;

    /// The value made, appended to `out`; its depth.
    #[inline(always)]
    fn make_into(&self, me: &mut Interp<'_>, out: &mut Vec<Value>) -> R<u32> {
        let v = self.make(me)?;
        let depth = v.depth();
        out.push(v);
        Ok(depth)
    }
}

impl Made for Code {
    #[inline(always)]
    fn make(&self, me: &mut Interp<'_>) -> R<Value> {
        self(me)
    }
}

/// A list or tuple of three locals, made as `literal` makes it.
struct Three {
    slots: [u32; 3],
    list: bool,
    span: Span,
}

impl Three {
    fn of(e: &Expr) -> Option<Three> {
        let (ExprKind::Tuple(items) | ExprKind::List(items)) = &e.kind else {
            return None;
        };
        let [a, b, c] = &items[..] else {
            return None;
        };
        match (&a.kind, &b.kind, &c.kind) {
            (ExprKind::Local(a), ExprKind::Local(b), ExprKind::Local(c)) => Some(Three {
                slots: [*a, *b, *c],
                list: matches!(e.kind, ExprKind::List(_)),
                span: e.span,
            }),
            _ => None,
        }
    }
}

impl Made for Three {
    #[inline(always)]
    fn make(&self, me: &mut Interp<'_>) -> R<Value> {
        super::exprs::three_locals(me, self.slots, self.list, self.span)
    }

    /// A tuple of plain values is packed straight into `out`: made on the side and moved in
    /// whole, it would be read back as one 16-byte word from the pieces just stored, which the
    /// processor cannot forward to the read (a stall of a dozen cycles per tuple).
    #[inline(always)]
    fn make_into(&self, me: &mut Interp<'_>, out: &mut Vec<Value>) -> R<u32> {
        if let Some(p) = super::exprs::three_packed(me, self.slots, self.list, self.span)? {
            if out.len() < out.capacity() {
                // No room to make: the push has no call to keep the tuple in memory for.
                out.push(Value::Packed(p));
            } else {
                out.push(Value::Packed(p));
            }
            return Ok(1);
        }
        let v = self.make(me)?;
        let depth = v.depth();
        out.push(v);
        Ok(depth)
    }
}

/// What `filter_map` walks: a list written out (an enum's values), read in place, or any other
/// source, worked out and walked as `walk` walks it.
trait Walked {
    type Src;
    fn start(&self, me: &mut Interp<'_>) -> R<Self::Src>;
    fn len(&self, s: &Self::Src, me: &Interp<'_>) -> usize;
    fn get(&self, s: &Self::Src, me: &Interp<'_>, i: usize) -> Option<Value>;
    /// Element `i` put in local `slot`; `false` past the end.
    #[inline(always)]
    fn put(&self, s: &Self::Src, me: &mut Interp<'_>, i: usize, slot: u32) -> bool {
        match self.get(s, me, i) {
            Some(v) => {
                me.set_local(slot, v);
                true
            }
            None => false,
        }
    }
    fn done(s: Self::Src, me: &mut Interp<'_>);
}

/// A list written out, walked in place.
struct Written(std::rc::Rc<crate::value::Items>);

impl Walked for Written {
    type Src = ();
    #[inline(always)]
    fn start(&self, _: &mut Interp<'_>) -> R<()> {
        Ok(())
    }
    #[inline(always)]
    fn len(&self, _: &(), _: &Interp<'_>) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn get(&self, _: &(), _: &Interp<'_>, i: usize) -> Option<Value> {
        self.0.get(i).cloned()
    }
    #[inline(always)]
    fn put(&self, _: &(), me: &mut Interp<'_>, i: usize, slot: u32) -> bool {
        match self.0.get(i) {
            Some(v) => {
                me.set_local_from(slot, v);
                true
            }
            None => false,
        }
    }
    #[inline(always)]
    fn done(_: (), _: &mut Interp<'_>) {}
}

impl Walked for CSource {
    type Src = Source;
    #[inline(always)]
    fn start(&self, me: &mut Interp<'_>) -> R<Source> {
        self.eval(me)
    }
    #[inline(always)]
    fn len(&self, s: &Source, me: &Interp<'_>) -> usize {
        s.len(&me.state)
    }
    #[inline(always)]
    fn get(&self, s: &Source, me: &Interp<'_>, i: usize) -> Option<Value> {
        s.get(&me.state, i)
    }
    #[inline(always)]
    fn done(s: Source, me: &mut Interp<'_>) {
        me.recycle_source(s);
    }
}

/// `map_of_filter`'s walk, for a condition of type `T`.
fn filter_map<W: Walked + 'static, T: Test + 'static, V: Made + 'static>(
    src: W,
    cond: T,
    value: V,
    (fslot, fspan): (u32, Span),
    (slot, span): (u32, Span),
    one_slot: bool,
) -> Fill {
    Box::new(move |me, out| {
        let mut made = 0usize;
        // The error making the value of the element after the `made` first, if any.
        let mut failed = None;
        let mut depth = 0u32;
        let mut kept = None;
        // `item`: the element, when it is not in its slot yet (the filter's and the map's
        // slots differ).
        let mut each = |me: &mut Interp<'_>, item: Option<Value>| -> R<bool> {
            me.tick(fspan)?;
            let kept_one = match item {
                None => cond.holds(me, &mut kept)? && failed.is_none(),
                Some(item) => {
                    me.set_local(fslot, item.clone());
                    let holds = cond.holds(me, &mut kept)? && failed.is_none();
                    if holds {
                        me.set_local(slot, item);
                    }
                    holds
                }
            };
            if kept_one {
                match value.make_into(me, out) {
                    Ok(d) => {
                        depth = depth.max(d);
                        made += 1;
                    }
                    Err(e) => failed = Some(e),
                }
            }
            Ok(true)
        };
        let source = src.start(me)?;
        let n = src.len(&source, me);
        let mut walked = Ok(());
        for i in 0..n {
            // With one slot, the element is put there straight from the source (made in
            // place, not copied from a value made on the side: see `Interp::set_local_from`).
            let item = if one_slot {
                if !src.put(&source, me, i, fslot) {
                    break;
                }
                None
            } else {
                let Some(item) = src.get(&source, me, i) else {
                    break;
                };
                Some(item)
            };
            if let Err(e) = each(me, item) {
                walked = Err(e);
                break;
            }
        }
        W::done(source, me);
        walked?;
        // The map's walk: a step per element, the length checked before each is added (the
        // element past the limit is refused after its step). Charged at once: the budget runs
        // out, if it does, at the same place, the map, as it would a step at a time.
        let max = me.limits.max_list_len;
        me.charge(made.min(max.saturating_add(1)) as u64, span)?;
        if made > max {
            return Err(too_long(span));
        }
        if let Some(e) = failed {
            me.tick(span)?;
            return Err(e);
        }
        Ok(depth)
    })
}

/// A filter's condition: whether it holds for the element in its slot. `kept` lives as long as
/// the loop's run (`invariant::Kept`).
trait Test {
    fn holds(&self, me: &mut Interp<'_>, kept: &mut super::invariant::Kept) -> R<bool>;
}

impl Test for CCond {
    #[inline(always)]
    fn holds(&self, me: &mut Interp<'_>, _: &mut super::invariant::Kept) -> R<bool> {
        CCond::holds(self, me)
    }
}

impl Test for super::invariant::CachedCall {
    #[inline(always)]
    fn holds(&self, me: &mut Interp<'_>, kept: &mut super::invariant::Kept) -> R<bool> {
        self.holds(me, kept)
    }
}

/// What a `flatten(map(...))` joins for each element.
enum Joined {
    /// A list-building aggregate, appending straight to the joined list; `nests`: whether the
    /// list it stands for is checked for depth (a `map` or a `flatten(map)`, not a `filter`).
    Fill { fill: Fill, span: Span, nests: bool },
    /// Any other value: a list, a zone or `none`.
    Value(CExpr),
    /// No `=> value`: the element itself.
    Element,
}

/// `map(x in l where c => v)` or `flatten(map(...))`, appending to the vector it is handed.
fn list_fill(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
) -> Fill {
    super::facts::within(slot, source, &[filter, map], || {
        list_fill_known(kind, slot, source, filter, map, span)
    })
}

/// `list_fill`, with what is known of the element (`facts`).
fn list_fill_known(
    kind: AggKind,
    slot: u32,
    source: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    span: Span,
) -> Fill {
    if kind == AggKind::Map && filter.is_none() {
        if let Some(fused) = map_of_filter(slot, source, map, span) {
            return fused;
        }
    }
    let src = CSource::new(source);
    let filter = filter.map(cond);
    if kind == AggKind::Map {
        let map = map.map(cexpr);
        return Box::new(move |me, out| {
            let s = src.eval(me)?;
            let start = out.len();
            out.reserve(s.len(&me.state).min(RESERVE_MAX));
            let mut depth = 0u32;
            let mut add = |me: &mut Interp<'_>, v: Value| -> R<bool> {
                if out.len() - start >= me.limits.max_list_len {
                    return Err(too_long(span));
                }
                depth = depth.max(v.depth());
                out.push(v);
                Ok(true)
            };
            match &map {
                Some(m) => walk_in(me, s, slot, |me| {
                    me.tick(span)?;
                    if !passes(me, &filter)? {
                        return Ok(true);
                    }
                    let v = m.ev(me)?;
                    add(me, v)
                })?,
                None => walk(me, s, |me, item| {
                    me.tick(span)?;
                    me.set_local(slot, item.clone());
                    if !passes(me, &filter)? {
                        return Ok(true);
                    }
                    add(me, item)
                })?,
            }
            Ok(depth)
        });
    }
    let joined = match map {
        Some(Expr {
            kind:
                ExprKind::Agg {
                    kind: k @ (AggKind::Map | AggKind::FlatMap),
                    slot,
                    source,
                    filter,
                    map,
                },
            span,
            ..
        }) => Joined::Fill {
            fill: list_fill(*k, *slot, source, filter.as_deref(), map.as_deref(), *span),
            span: *span,
            nests: true,
        },
        Some(Expr {
            kind:
                ExprKind::Agg {
                    kind: AggKind::Filter,
                    slot,
                    source,
                    filter,
                    map: None,
                },
            span,
            ..
        }) => Joined::Fill {
            fill: filter_fill(*slot, source, filter.as_deref(), *span),
            span: *span,
            nests: false,
        },
        Some(m) => Joined::Value(cexpr(m)),
        None => Joined::Element,
    };
    // Joining a list-building aggregate (`flatten(map(row in 1..3 => map(...)))`), the common
    // case, has a closure of its own: what the general one does for it.
    if let Joined::Fill {
        fill,
        span: at,
        nests,
    } = joined
    {
        return Box::new(move |me, out| {
            let s = src.eval(me)?;
            let start = out.len();
            let mut depth = 0u32;
            walk_in(me, s, slot, |me| {
                me.tick(span)?;
                if !passes(me, &filter)? {
                    return Ok(true);
                }
                let before = out.len();
                let d = fill(me, out)?;
                // The inner list, had it been built, would have been refused here.
                if nests {
                    me.check_nest(d.saturating_add(1), at)?;
                }
                depth = depth.max(d);
                // Joining costs the length of what is joined.
                me.charge((out.len() - before) as u64, span)?;
                me.check_len(out.len() - start, span)?;
                Ok(true)
            })?;
            Ok(depth)
        });
    }
    // Any other value joined (a list, a zone, `none`), or the element itself.
    let value = match joined {
        Joined::Value(m) => Some(m),
        _ => None,
    };
    Box::new(move |me, out| {
        let s = src.eval(me)?;
        let start = out.len();
        let mut depth = 0u32;
        // What is joined for the element in the slot: the value worked out, or the element.
        let mut join = |me: &mut Interp<'_>, v: Option<Value>| -> R<bool> {
            if !passes(me, &filter)? {
                return Ok(true);
            }
            let n = match (&value, v) {
                (Some(m), _) => {
                    let v = m.ev(me)?;
                    join_value(me, v, out, &mut depth, span)?
                }
                (None, v) => join_value(me, v.unwrap_or_default(), out, &mut depth, span)?,
            };
            // Joining costs the length of what is joined.
            me.charge(n as u64, span)?;
            me.check_len(out.len() - start, span)?;
            Ok(true)
        };
        if value.is_some() {
            walk_in(me, s, slot, |me| {
                me.tick(span)?;
                join(me, None)
            })?;
        } else {
            walk(me, s, |me, item| {
                me.tick(span)?;
                me.set_local(slot, item.clone());
                join(me, Some(item))
            })?;
        }
        Ok(depth)
    })
}

/// Append the elements of a list value (a zone's cards, nothing for `none`).
fn join_value(
    me: &mut Interp<'_>,
    v: Value,
    out: &mut Vec<Value>,
    depth: &mut u32,
    span: Span,
) -> R<usize> {
    let l = match v {
        Value::List(l) => l,
        other => me.as_list(&other, span)?,
    };
    *depth = (*depth).max(l.iter().map(Value::depth).max().unwrap_or(0));
    out.extend(l.iter().cloned());
    Ok(l.len())
}

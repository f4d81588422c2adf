//! Lists: length, top, reverse, concat, flatten, rotate, distinct, take, drop, contains, index_of, lookup, join.

use super::{elem0, list0, ret_bool, ret_int, Args, BuiltinDef, Effect, Host, HostKind, P};
use crate::diag::R;
use crate::program::Ty;
use crate::value::Value;
use std::marker::PhantomData;

/// This family's builtins, evaluated on hosts of kind `K`.
pub struct Family<K>(PhantomData<K>);

impl<K: HostKind> Family<K> {
    pub const DEFS: &'static [BuiltinDef<K>] = &[
        BuiltinDef {
            name: "len",
            returns: "the number of elements of a list, or of cards in a zone",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Counts,
            shown_only: &[],
            plain: None,
            ret: ret_int,
            eval: |me, a| {
                // A zone's size needs no list.
                if let Some(Value::Zone(z)) = a.get(0) {
                    return Ok(Value::Int(me.zone_len(*z) as i64));
                }
                Ok(Value::Int(a.list(me, 0)?.len() as i64))
            },
        },
        BuiltinDef {
            name: "top",
            returns: "the first card of a zone or element of a list, or `none`",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            // `none` for an empty list or zone.
            ret: |args| elem0(args).or_none(),
            eval: |me, a| {
                if let Some(Value::Zone(z)) = a.get(0) {
                    return Ok(me.zone_top(*z));
                }
                Ok(a.list(me, 0)?.first().cloned().unwrap_or(Value::None))
            },
        },
        BuiltinDef {
            name: "reverse",
            returns: "the list in reverse order",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: list0,
            eval: |me, a| {
                let mut l = a.list(me, 0)?.to_vec();
                l.reverse();
                Ok(Value::list(l))
            },
        },
        BuiltinDef {
            name: "concat",
            returns: "one list: the first list's elements, then the second's",
            params: &[("list", P::List), ("list", P::List)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: |args| match (super::elem0(args), args.get(1).map(|t| t.elem())) {
                (Ty::Any | Ty::None, Some(b)) => Ty::List(Box::new(b)),
                // Cards of two kinds: cards of either.
                (Ty::Card(Some(a)), Some(Ty::Card(b))) if b != Some(a) => {
                    Ty::List(Box::new(Ty::Card(None)))
                }
                (a, _) => Ty::List(Box::new(a)),
            },
            eval: |me, a| {
                let (x, y) = (a.list(me, 0)?, a.list(me, 1)?);
                me.check_len(x.len().saturating_add(y.len()), a.span)?;
                // One allocation of the joined length.
                let mut l = Vec::with_capacity(x.len().saturating_add(y.len()));
                l.extend(x.iter().cloned());
                l.extend(y.iter().cloned());
                Ok(Value::list(l))
            },
        },
        BuiltinDef {
            name: "flatten",
            returns: "one list: the elements of each inner list, in order",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: super::elem_list0,
            eval: |me, a| {
                let lists = a.list(me, 0)?;
                let mut out = Vec::new();
                for inner in lists.iter() {
                    let inner = me.as_list(inner, a.span_of(0))?;
                    me.check_len(out.len().saturating_add(inner.len()), a.span)?;
                    out.extend(inner.iter().cloned());
                }
                Ok(Value::list(out))
            },
        },
        BuiltinDef {
            name: "rotate",
            returns: "the list turned left by `by` places (`rotate([1, 2, 3], 1)` is `[2, 3, 1]`)",
            params: &[("list", P::List), ("by", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: list0,
            eval: |me, a| {
                let mut l = a.list(me, 0)?.to_vec();
                let k = a.int(1)?;
                if !l.is_empty() {
                    let k = k.rem_euclid(l.len() as i64) as usize;
                    l.rotate_left(k);
                }
                Ok(Value::list(l))
            },
        },
        BuiltinDef {
            name: "distinct",
            returns: "each value once, where it first appears: `distinct([3, 1, 3])` is `[3, 1]`",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: list0,
            // Each value once, where it first appears. Telling two cards apart tells which cards
            // they are: a viewer may compare only cards they know (as `contains` and `==`).
            eval: |me, a| {
                let l = a.list(me, 0)?;
                if me.observed() {
                    l.iter().try_for_each(|x| me.peek_value(x, a.span))?;
                }
                let mut seen = std::collections::BTreeSet::new();
                let out: Vec<Value> = l.iter().filter(|v| seen.insert(*v)).cloned().collect();
                Ok(Value::list(out))
            },
        },
        BuiltinDef {
            name: "take",
            returns: "the first `n` elements (all, if fewer)",
            params: &[("list", P::List), ("n", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: list0,
            eval: |me, a| take_drop(me, a, true),
        },
        BuiltinDef {
            name: "drop",
            returns: "the list without its first `n` elements",
            params: &[("list", P::List), ("n", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: list0,
            eval: |me, a| take_drop(me, a, false),
        },
        BuiltinDef {
            name: "contains",
            returns: "whether the value is in the list",
            params: &[("list", P::List), ("value", P::Any)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_bool,
            eval: |me, a| {
                // A zone is searched in place (no list built).
                if let Some(Value::Zone(z)) = a.get(0) {
                    let cards = zone_searched(me, *z, a)?;
                    return Ok(Value::Bool(
                        matches!(a.get(1), Some(Value::Card(c)) if cards.contains(c)),
                    ));
                }
                let l = a.list(me, 0)?;
                if let Some(x) = a.get(1) {
                    me.peek_value(x, a.span)?;
                    if me.observed() {
                        l.iter().try_for_each(|y| me.peek_value(y, a.span))?;
                    }
                }
                Ok(Value::Bool(a.get(1).is_some_and(|x| l.contains(x))))
            },
        },
        BuiltinDef {
            name: "index_of",
            returns: "the value's first 0-based position in the list, or `none`",
            params: &[("list", P::List), ("value", P::Any)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            // `none` when absent.
            ret: |_| Ty::Int.or_none(),
            eval: |me, a| {
                // A zone is searched in place (no list built), as `contains` searches it.
                if let Some(Value::Zone(z)) = a.get(0) {
                    let cards = zone_searched(me, *z, a)?;
                    let at = match a.get(1) {
                        Some(Value::Card(c)) => cards.iter().position(|y| y == c),
                        _ => None,
                    };
                    return Ok(at.map_or(Value::None, |i| Value::Int(i as i64)));
                }
                let l = a.list(me, 0)?;
                if let Some(x) = a.get(1) {
                    me.peek_value(x, a.span)?;
                    l.iter().try_for_each(|y| me.peek_value(y, a.span))?;
                }
                Ok(match a.get(1).and_then(|x| l.iter().position(|y| y == x)) {
                    Some(i) => Value::Int(i as i64),
                    None => Value::None,
                })
            },
        },
        BuiltinDef {
            name: "lookup",
            returns: "the value a table field gives for `key`, or `none`",
            params: &[("table", P::List), ("key", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: false,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            // `none` for a key no entry covers.
            ret: |args| match super::elem0(args) {
                Ty::Tuple(ts) => ts.get(2).cloned().unwrap_or(Ty::Any).or_none(),
                _ => Ty::Any,
            },
            eval: |me, a| {
                // A table value: a list of (first key, last key, value); the first entry covering
                // the key wins.
                let entries = a.list(me, 0)?;
                let key = a.int(1)?;
                for e in entries.iter() {
                    if let Some(t) = e.tuple_items() {
                        if let (Some(Value::Int(lo)), Some(Value::Int(hi)), Some(v)) =
                            (t.first(), t.get(1), t.get(2))
                        {
                            if *lo <= key && key <= *hi {
                                me.watch_read(v);
                                return Ok(v.clone());
                            }
                        }
                    }
                }
                Ok(Value::None)
            },
        },
        BuiltinDef {
            // `join(map(n in needs => "{n.1} {n.0}"), ", ")`: one text of a list's values.
            name: "join",
            returns: "one text: the values separated by `separator` (`\", \"` when not given)",
            params: &[("list", P::List), ("separator", P::Text)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: |_| Ty::Text,
            eval: |me, a| {
                let l = a.list(me, 0)?;
                let sep = a.text(me, 1, ", ");
                let mut out = String::new();
                for (i, v) in l.iter().enumerate() {
                    me.charge(v.cost().saturating_add(1), a.span)?;
                    if i > 0 {
                        out.push_str(&sep);
                    }
                    me.words_append(v, &mut out);
                    if out.len() > me.limits().max_text_bytes {
                        return Err(a.err(format!(
                            "this text grew past {} bytes",
                            me.limits().max_text_bytes
                        )));
                    }
                }
                Ok(Value::text(&out))
            },
        },
    ];
}

/// The cards of zone `z` that `contains` or `index_of` searches for its second argument in
/// place: the needle peeked, and every card too when a seat's view watches, as reading the
/// zone as a list would peek them.
fn zone_searched<'h, H: Host + ?Sized>(me: &'h H, z: u32, a: &Args) -> R<&'h [u32]> {
    let cards = me.zone_cards(z);
    if let Some(x) = a.get(1) {
        me.peek_value(x, a.span)?;
        if me.observed() {
            cards.iter().try_for_each(|&c| me.peek(c, a.span))?;
        }
    }
    Ok(cards)
}

fn take_drop<H: Host + ?Sized>(me: &mut H, a: &Args, take: bool) -> R<Value> {
    let l = a.list(me, 0)?;
    let k = usize::try_from(a.int(1)?.max(0))
        .unwrap_or(usize::MAX)
        .min(l.len());
    let part = if take { l.get(..k) } else { l.get(k..) };
    Ok(Value::list(part.map(|p| p.to_vec()).unwrap_or_default()))
}

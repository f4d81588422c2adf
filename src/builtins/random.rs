//! Randomness, from the game's seeded stream: roll, roll_dice, shuffled, pick_random, each draw
//! through `Host::draw_below` (a search replays the draws its seat never saw).

use super::{elem0, list0, ret_int, BuiltinDef, Effect, Host, HostKind, P};
use crate::value::Value;
use std::marker::PhantomData;

/// This family's builtins, evaluated on hosts of kind `K`.
pub struct Family<K>(PhantomData<K>);

impl<K: HostKind> Family<K> {
    pub const DEFS: &'static [BuiltinDef<K>] = &[
        BuiltinDef {
            name: "roll",
            returns: "a number from 1 to `sides`, drawn on the game's seeded generator",
            params: &[("sides", P::Int)],
            min_args: 1,
            effect: Effect::Random,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_int,
            eval: |me, a| {
                let n = a.int(0)?;
                if !(1..=1_000_000).contains(&n) {
                    return Err(a.err_at(0, format!("a die needs 1 to 1000000 sides, not {n}")));
                }
                Ok(Value::Int(i64::from(me.draw_below(n as u32)) + 1))
            },
        },
        BuiltinDef {
            name: "roll_dice",
            returns:
                "the sum of `dice` dice of `sides` sides each, drawn on the game's seeded generator",
            params: &[("dice", P::Int), ("sides", P::Int)],
            min_args: 2,
            effect: Effect::Random,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_int,
            eval: |me, a| {
                let (n, s) = (a.int(0)?, a.int(1)?);
                if !(0..=1000).contains(&n) || !(1..=1_000_000).contains(&s) {
                    return Err(a.err(format!("cannot roll {n} dice of {s} sides")));
                }
                let mut t = 0;
                for _ in 0..n {
                    t += i64::from(me.draw_below(s as u32)) + 1;
                }
                Ok(Value::Int(t))
            },
        },
        BuiltinDef {
            name: "shuffled",
            returns: "a copy of the list in random order",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Random,
            values_only: false,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: list0,
            eval: |me, a| {
                let mut l = a.list(me, 0)?.to_vec();
                // `rng::shuffle`'s Fisher–Yates, each draw through the game's `draw_below` (a
                // search replays it).
                for i in (1..l.len()).rev() {
                    let j = me.draw_below(u32::try_from(i + 1).unwrap_or(u32::MAX)) as usize;
                    l.swap(i, j);
                }
                Ok(Value::list(l))
            },
        },
        BuiltinDef {
            name: "pick_random",
            returns: "a random element of the list, or `none` when it is empty",
            params: &[("list", P::List)],
            min_args: 1,
            effect: Effect::Random,
            values_only: false,
            secrets: super::Secrets::Passes,
            shown_only: &[],
            plain: None,
            ret: elem0,
            eval: |me, a| {
                let l = a.list(me, 0)?;
                if l.is_empty() {
                    return Ok(Value::None);
                }
                let n = l.len().min(u32::MAX as usize) as u32;
                let i = me.draw_below(n);
                Ok(l.get(i as usize).cloned().unwrap_or(Value::None))
            },
        },
    ];
}

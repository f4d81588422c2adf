//! Numbers: abs, min, max, clamp.

use super::{ret_int, BuiltinDef, Effect, HostKind, P};
use crate::value::Value;
use std::marker::PhantomData;

/// This family's builtins, evaluated on hosts of kind `K`.
pub struct Family<K>(PhantomData<K>);

impl<K: HostKind> Family<K> {
    pub const DEFS: &'static [BuiltinDef<K>] = &[
        BuiltinDef {
            name: "abs",
            returns: "the number without its sign",
            params: &[("n", P::Int)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: Some(|v| match v {
                [Value::Int(n)] => n.checked_abs().map(Value::Int),
                _ => None,
            }),
            ret: ret_int,
            eval: |_, a| {
                a.int(0)?
                    .checked_abs()
                    .map(Value::Int)
                    .ok_or_else(|| a.err("number overflow"))
            },
        },
        BuiltinDef {
            name: "min",
            returns: "the smaller of the two numbers",
            params: &[("a", P::Int), ("b", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: Some(|v| match v {
                [Value::Int(a), Value::Int(b)] => Some(Value::Int(*a.min(b))),
                _ => None,
            }),
            ret: ret_int,
            eval: |_, a| Ok(Value::Int(a.int(0)?.min(a.int(1)?))),
        },
        BuiltinDef {
            name: "max",
            returns: "the larger of the two numbers",
            params: &[("a", P::Int), ("b", P::Int)],
            min_args: 2,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: Some(|v| match v {
                [Value::Int(a), Value::Int(b)] => Some(Value::Int(*a.max(b))),
                _ => None,
            }),
            ret: ret_int,
            eval: |_, a| Ok(Value::Int(a.int(0)?.max(a.int(1)?))),
        },
        BuiltinDef {
            name: "clamp",
            returns: "`n` brought within `lo..hi`",
            params: &[("n", P::Int), ("lo", P::Int), ("hi", P::Int)],
            min_args: 3,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: Some(|v| match v {
                [Value::Int(x), Value::Int(lo), Value::Int(hi)] if lo <= hi => {
                    Some(Value::Int(*x.clamp(lo, hi)))
                }
                _ => None,
            }),
            ret: ret_int,
            eval: |_, a| {
                let (x, lo, hi) = (a.int(0)?, a.int(1)?, a.int(2)?);
                if lo > hi {
                    return Err(a.err(format!("clamp bounds {lo} > {hi}")));
                }
                Ok(Value::Int(x.clamp(lo, hi)))
            },
        },
    ];
}

//! The game itself: zone_of, text, seat, next, eliminated, finish_game.

use super::{ret_bool, ret_int, ret_none, ret_player, BuiltinDef, Effect, Host, HostKind, P};
use crate::program::Ty;
use crate::value::Value;
use std::marker::PhantomData;

/// This family's builtins, evaluated on hosts of kind `K`.
pub struct Family<K>(PhantomData<K>);

impl<K: HostKind> Family<K> {
    pub const DEFS: &'static [BuiltinDef<K>] = &[
        BuiltinDef {
            name: "zone_of",
            returns: "the zone a card is in, or `none`",
            params: &[("card", P::Card)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: |_| Ty::Zone(None),
            eval: |me, a| {
                Ok(match a.get(0) {
                    Some(Value::Card(c)) => {
                        me.peek(*c, a.span)?;
                        me.zone_of(*c).map(Value::Zone).unwrap_or(Value::None)
                    }
                    _ => Value::None,
                })
            },
        },
        BuiltinDef {
            name: "text",
            returns: "the value as text, as `\"{x}\"` writes it (enum values in words)",
            params: &[("value", P::Any)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: |_| Ty::Text,
            eval: |me, a| Ok(Value::text(&a.text(me, 0, ""))),
        },
        BuiltinDef {
            name: "seat",
            returns: "the player's 0-based seat",
            params: &[("player", P::Player)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: Some(|v| match v {
                [Value::Player(p)] => Some(Value::Int(i64::from(*p))),
                _ => None,
            }),
            ret: ret_int,
            eval: |_, a| Ok(Value::Int(a.player(0)? as i64)),
        },
        BuiltinDef {
            name: "next",
            returns: "the next player clockwise who is still in",
            params: &[("player", P::Player)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_player,
            // The next player clockwise who is still in (`p` itself when no one else is).
            eval: |me, a| {
                let p = a.player(0)?;
                let n = me.n_players().max(1);
                let next = (1..=n)
                    .map(|k| (p % n + k) % n)
                    .find(|&q| me.is_in(q))
                    .unwrap_or(p);
                Ok(Value::Player(next))
            },
        },
        BuiltinDef {
            name: "eliminated",
            returns: "whether the player is out of the game",
            params: &[("player", P::Player)],
            min_args: 1,
            effect: Effect::Pure,
            values_only: true,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_bool,
            eval: |me, a| Ok(Value::Bool(!me.is_in(a.player(0)?))),
        },
        BuiltinDef {
            name: "finish_game",
            returns: "nothing: the game ends after the current phase",
            params: &[],
            min_args: 0,
            effect: Effect::Changes,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[],
            plain: None,
            ret: ret_none,
            eval: |me, _| {
                me.finish_game();
                Ok(Value::None)
            },
        },
    ];
}

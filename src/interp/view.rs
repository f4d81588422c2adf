//! Showing values: zone and card names and values as text, needing only the program and the zone layout.

/// Longest text a value is shown as (1 MiB, the default `Limits::max_text_bytes`).
pub const MAX_SHOWN: usize = 1 << 20;

use super::*;
use crate::ast::CardId;
use crate::program::*;
use crate::value::Value;

/// Display of values, needing only the program and the zone layout.
pub struct View<'a> {
    pub prog: &'a Program,
    pub n_players: u32,
    pub zone_base: &'a [u32],
}

impl View<'_> {
    pub fn zone_def_of_slot(&self, slot: u32) -> u32 {
        // The last family whose base is at or below the slot (empty families share bases).
        let i = self.zone_base.partition_point(|&b| b <= slot);
        i.saturating_sub(1) as u32
    }

    /// The keys of a zone slot, as values (`hand[P2]` gives `[P2]`), appended to `out`.
    pub fn zone_keys(&self, slot: u32, out: &mut Vec<Value>) {
        let def = self.zone_def_of_slot(slot);
        let (Some(zd), Some(&base)) = (
            self.prog.zones.get(def as usize),
            self.zone_base.get(def as usize),
        ) else {
            return;
        };
        let mut off = slot.saturating_sub(base);
        let start = out.len();
        // Worked out last key first, then put in order.
        for d in zd.keys.iter().rev() {
            let n = key_count(d, self.n_players, self.prog).max(1);
            let i = off % n;
            off /= n;
            out.push(match d {
                KeyDomain::Player => Value::Player(i),
                KeyDomain::Enum(e) => Value::Enum(*e, i),
                KeyDomain::Range(lo, _) => Value::Int(lo.saturating_add(i as i64)),
            });
        }
        if let Some(keys) = out.get_mut(start..) {
            keys.reverse();
        }
    }

    pub fn zone_name(&self, slot: u32) -> String {
        let def = self.zone_def_of_slot(slot);
        let Some(zd) = self.prog.zones.get(def as usize) else {
            return format!("zone#{slot}");
        };
        if zd.keys.is_empty() {
            return zd.name.clone();
        }
        let Some(&base) = self.zone_base.get(def as usize) else {
            return zd.name.clone();
        };
        let mut off = slot.saturating_sub(base);
        let mut parts = Vec::new();
        for d in zd.keys.iter().rev() {
            let n = key_count(d, self.n_players, self.prog).max(1);
            let i = off % n;
            off /= n;
            parts.push(match d {
                KeyDomain::Player => format!("P{}", i + 1),
                KeyDomain::Enum(e) => self.prog.enums[*e as usize]
                    .variants
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default(),
                KeyDomain::Range(lo, _) => (lo + i as i64).to_string(),
            });
        }
        parts.reverse();
        format!("{}[{}]", zd.name, parts.join(", "))
    }

    /// Variant `x` of enum `e` as players read it: the game's words for it, else its name in
    /// words (`CovertOperation`: "Covert operation").
    pub fn enum_words(&self, e: u32, x: u32) -> String {
        self.prog
            .enums
            .get(e as usize)
            .and_then(|d| d.shown.get(x as usize))
            .cloned()
            .unwrap_or_default()
    }

    pub fn card_name(&self, c: u32) -> String {
        let prog = self.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return format!("card#{c}");
        };
        let kd = &prog.kinds[cd.kind as usize];
        for f in ["name", "title"] {
            if let Some(sym) = prog.symbol(f) {
                if let Some(Some((false, i))) = kd.slot_of.get(sym as usize) {
                    if let Some(Value::Text(t)) = cd.fields.get(*i as usize) {
                        if !t.is_empty() {
                            return match &cd.id {
                                CardId::Num(n) => format!("#{n} {t}"),
                                CardId::Name(_) => t.to_string(),
                            };
                        }
                    }
                }
            }
        }
        format!("@{}", cd.id)
    }

    /// The rules text of the card whose code `f` is.
    fn fn_text(&self, f: u32) -> Option<&str> {
        self.prog.card_text(self.prog.card_of_fn(f)?)
    }

    /// How card `c` reads on one line: its kind's `describe` line, else its name.
    pub fn card_line(&self, c: u32) -> String {
        match self.prog.card_line(c) {
            Some(l) => l.to_string(),
            None => self.card_name(c),
        }
    }

    /// A value as text, at most `MAX_SHOWN` bytes long (then cut with `…`): the walk stops
    /// once that much is written, so a value with shared halves prints in bounded time. Enum
    /// values by their names, as the rules write them (the REPL, diagnostics); `words` gives
    /// the text people read.
    pub fn show(&self, v: &Value) -> String {
        self.shown(v, false)
    }

    /// A value as text for people (`say`, interpolated texts, prompts, labels, `describe`
    /// lines): as `show`, but an enum value reads as its words (`EnumDef::shown`: the game's
    /// own, else its name in words), alone or inside a list or tuple.
    pub fn words(&self, v: &Value) -> String {
        self.shown(v, true)
    }

    fn shown(&self, v: &Value, words: bool) -> String {
        let mut out = String::new();
        let cap = MAX_SHOWN;
        self.show_into(v, &mut out, cap, words);
        if out.len() > cap {
            let mut cut = cap;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
        out
    }

    /// `words(v)` written at the end of `out` (no text of its own in between).
    pub fn words_append(&self, v: &Value, out: &mut String) {
        let start = out.len();
        self.show_into(v, out, start.saturating_add(MAX_SHOWN), true);
        if out.len().saturating_sub(start) > MAX_SHOWN {
            let mut cut = start.saturating_add(MAX_SHOWN);
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
    }

    fn show_into(&self, v: &Value, out: &mut String, cap: usize, words: bool) {
        use std::fmt::Write;
        if out.len() > cap {
            return;
        }
        match v {
            Value::None => out.push_str("none"),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Text(t) => out.push_str(t),
            Value::Enum(e, x) => {
                // Both spellings are worked out once per program: a lookup, no allocation.
                if let Some(d) = self.prog.enums.get(*e as usize) {
                    let names = if words { &d.shown } else { &d.variants };
                    if let Some(name) = names.get(*x as usize) {
                        out.push_str(name)
                    }
                }
            }
            Value::Card(c) => out.push_str(&self.card_name(*c)),
            Value::Player(p) => {
                let _ = write!(out, "P{}", u64::from(*p) + 1);
            }
            Value::Zone(z) => out.push_str(&self.zone_name(*z)),
            Value::List(items) => {
                out.push('[');
                for (k, i) in items.iter().enumerate() {
                    if out.len() > cap {
                        return;
                    }
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.show_into(i, out, cap, words);
                }
                out.push(']');
            }
            Value::Tuple(_) | Value::Packed(_) => {
                out.push('(');
                let items = v.tuple_items();
                for (k, i) in items.iter().flat_map(|t| t.iter()).enumerate() {
                    if out.len() > cap {
                        return;
                    }
                    if k > 0 {
                        out.push_str(", ");
                    }
                    self.show_into(i, out, cap, words);
                }
                out.push(')');
            }
            // The code of a card with rules text reads as that text.
            Value::Fn(f) => match (self.fn_text(*f), self.prog.card_fns.get(*f as usize)) {
                (Some(text), _) => out.push_str(text),
                (None, Some(d)) => {
                    out.push_str("the code of ");
                    out.push_str(&d.name);
                }
                (None, None) => out.push_str("code"),
            },
        }
    }
}

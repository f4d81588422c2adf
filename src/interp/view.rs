//! Showing values: zone and card names and values as text, needing only the program and the zone layout.

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

    /// The keys of a zone slot, as values (`hand[P2]` gives `[P2]`).
    pub fn zone_keys(&self, slot: u32) -> Vec<Value> {
        let def = self.zone_def_of_slot(slot);
        let (Some(zd), Some(&base)) = (
            self.prog.zones.get(def as usize),
            self.zone_base.get(def as usize),
        ) else {
            return vec![];
        };
        let mut off = slot.saturating_sub(base);
        let mut out = Vec::new();
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
        out.reverse();
        out
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

    pub fn show(&self, v: &Value) -> String {
        match v {
            Value::None => "none".into(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => {
                if *b {
                    "yes".into()
                } else {
                    "no".into()
                }
            }
            Value::Text(t) => t.to_string(),
            Value::Enum(e, x) => self.prog.enums[*e as usize]
                .variants
                .get(*x as usize)
                .cloned()
                .unwrap_or_default(),
            Value::Card(c) => self.card_name(*c),
            Value::Player(p) => format!("P{}", p + 1),
            Value::Zone(z) => self.zone_name(*z),
            Value::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| self.show(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Fn(f) => match self.prog.card_fns.get(*f as usize) {
                Some(d) => format!("the code of {}", d.name),
                None => "code".into(),
            },
            Value::Tuple(items) => items
                .iter()
                .map(|i| self.show(i))
                .collect::<Vec<_>>()
                .join(" / "),
        }
    }
}

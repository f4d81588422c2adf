//! The hidden-information model of `tests/hidden.rs`, shared with `tests/serve.rs`: what each
//! viewer knows, worked out on its own from the omniscient event stream and the zones' declared
//! visibility (not from the interpreter's knowledge or the filtering code). See `hidden.rs`'s
//! header for the rules it follows.

use rules::ast::Visibility;
use rules::program::{KeyDomain, Program};
use serde_json::Value as J;
use std::collections::BTreeMap;

pub struct Model<'a> {
    pub prog: &'a Program,
    pub n: u32,
    pub zone: BTreeMap<String, String>,
    pub face_up: BTreeMap<String, bool>,
    pub known: BTreeMap<String, u64>,
}

impl Model<'_> {
    pub fn all(&self) -> u64 {
        (1u64 << self.n) - 1
    }

    /// (who sees into the zone, who sees a card's face there).
    pub fn zone_sight(&self, name: &str, face_up: bool) -> (u64, u64) {
        let base = name.split('[').next().unwrap_or(name);
        let zd = self
            .prog
            .zones
            .iter()
            .find(|z| z.name == base)
            .unwrap_or_else(|| panic!("no zone `{base}`"));
        let keys: Vec<&str> = name
            .split_once('[')
            .map(|(_, k)| k.trim_end_matches(']').split(", ").collect())
            .unwrap_or_default();
        let owner = zd
            .keys
            .iter()
            .position(|k| *k == KeyDomain::Player)
            .and_then(|i| keys.get(i))
            .map(|p| 1u64 << (p[1..].parse::<u32>().expect("player key") - 1))
            .unwrap_or(0);
        match zd.visibility {
            Visibility::Public if face_up => (self.all(), self.all()),
            Visibility::Public => (self.all(), owner),
            Visibility::Owner => (owner, owner),
            Visibility::Hidden => (0, 0),
        }
    }

    pub fn known(&self, id: &str) -> u64 {
        self.known.get(id).copied().unwrap_or(self.all())
    }

    pub fn face(&self, id: &str) -> bool {
        self.face_up.get(id).copied().unwrap_or(true)
    }

    /// Apply an omniscient event; returns, per card it names, who may see that card named.
    pub fn apply(&mut self, ev: &J) -> Vec<u64> {
        let id = |c: &J| {
            c["id"]
                .as_str()
                .expect("omniscient cards have ids")
                .to_string()
        };
        match ev["event"].as_str() {
            Some("move") => {
                let to = ev["to"].as_str().expect("to");
                let from = ev["from"].as_array().expect("from");
                let mut out = Vec::new();
                for (j, c) in ev["cards"].as_array().expect("cards").iter().enumerate() {
                    let c = id(c);
                    if let Some(up) = ev["face_up"].as_bool() {
                        self.face_up.insert(c.clone(), up);
                    }
                    // Out of no zone: nobody saw which card it was.
                    let before = if from.get(j).is_some_and(J::is_null) {
                        0
                    } else {
                        self.known(&c)
                    };
                    let (keep, learn) = self.zone_sight(to, self.face(&c));
                    let after = (before & keep) | learn;
                    self.known.insert(c.clone(), after);
                    self.zone.insert(c, to.to_string());
                    out.push(before | after);
                }
                out
            }
            Some("shuffle") => {
                let z = ev["zone"].as_str().expect("zone");
                let inside: Vec<String> = self
                    .zone
                    .iter()
                    .filter(|(_, at)| at.as_str() == z)
                    .map(|(c, _)| c.clone())
                    .collect();
                for c in inside {
                    let learn = self.zone_sight(z, self.face(&c)).1;
                    self.known.insert(c, learn);
                }
                Vec::new()
            }
            Some("flip") => {
                let c = id(&ev["card"]);
                let up = ev["face_up"].as_bool().expect("face_up");
                self.face_up.insert(c.clone(), up);
                let learn = match self.zone.get(&c) {
                    Some(z) => self.zone_sight(&z.clone(), up).1,
                    None => self.all(),
                };
                let k = self.known(&c) | learn;
                self.known.insert(c, k);
                vec![k]
            }
            Some("reveal") => {
                let to = match ev["to"].as_array() {
                    None => self.all(),
                    Some(ps) => ps.iter().fold(0, |m, p| {
                        let s = p.as_str().expect("player");
                        m | 1u64 << (s[1..].parse::<u32>().expect("P<n>") - 1)
                    }),
                };
                ev["cards"]
                    .as_array()
                    .expect("cards")
                    .iter()
                    .map(|c| {
                        let c = id(c);
                        let k = self.known(&c) | to;
                        self.known.insert(c, k);
                        // Named to its players and to whoever knew it before.
                        k
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

pub fn cards_of(ev: &J) -> Vec<J> {
    match ev["event"].as_str() {
        Some("move") | Some("reveal") => ev["cards"].as_array().cloned().unwrap_or_default(),
        Some("flip") => vec![ev["card"].clone()],
        _ => Vec::new(),
    }
}

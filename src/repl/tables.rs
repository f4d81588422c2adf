//! The position as tables, showing only what the viewer (`:as`) may see: `:state`, `:show` (a
//! zone, a player's things, a var, a card) and `:log`.

use super::{player_of, Repl};
use crate::ast::Visibility;
use crate::events::Event;
use crate::interp::{key_count, Pos};
use crate::program::KeyDomain;
use crate::session::Stop;
use crate::value::Value;
use crate::view::screen::{fold, Entry};

impl Repl {
    /// Does the viewer know card `c` (its zone shows it to them, or it was revealed to them)?
    fn knows(&self, c: u32) -> bool {
        self.viewer.is_none_or(|v| {
            crate::interp::holds(
                self.session
                    .state
                    .known
                    .get(c as usize)
                    .copied()
                    .unwrap_or(0),
                v,
            )
        })
    }

    /// May the viewer see the cards of this zone slot?
    fn can_see(&self, vis: Visibility, owner: Option<u32>) -> bool {
        match (vis, self.viewer) {
            (Visibility::Public, _) => true,
            (_, None) => true,
            (Visibility::Owner, Some(v)) => owner == Some(v),
            (Visibility::Hidden, Some(_)) => false,
        }
    }

    fn zone_lines(&self, zone: u32, only_player: Option<u32>) -> Vec<String> {
        let s = &self.session;
        let prog = &s.prog;
        let (Some(z), Some(&base)) = (
            prog.zones.get(zone as usize),
            s.state.zone_base.get(zone as usize),
        ) else {
            return Vec::new();
        };
        let size = crate::interp::family_size(&z.keys, s.players, prog).unwrap_or(0);
        let player_key = z.keys.iter().position(|k| *k == KeyDomain::Player);
        let mut lines = Vec::new();
        for off in 0..size {
            let slot = base + off;
            // The player this slot belongs to, if the zone is kept per player.
            let owner = player_key.map(|pk| {
                let mut rest = off;
                let mut owner = 0;
                for (i, k) in z.keys.iter().enumerate().rev() {
                    let n = key_count(k, s.players, prog);
                    if i == pk {
                        owner = rest % n;
                    }
                    rest /= n.max(1);
                }
                owner
            });
            if only_player.is_some() && owner != only_player {
                continue;
            }
            let Some(cards) = s.state.zones.get(slot as usize) else {
                continue;
            };
            let name = self.view().zone_name(slot);
            let body = if cards.is_empty() {
                "-".to_string()
            } else if self.can_see(z.visibility, owner) || cards.iter().any(|&c| self.knows(c)) {
                const SHOWN: usize = 12;
                let more = cards.len().saturating_sub(SHOWN);
                let mut names: Vec<String> = cards
                    .iter()
                    .take(SHOWN)
                    .map(|&c| {
                        if !self.knows(c) {
                            return crate::events::HIDDEN_CARD.to_string();
                        }
                        let n = self.view().card_name(c);
                        if s.state.face_up.get(c as usize).copied().unwrap_or(true) {
                            n
                        } else {
                            format!("{n} (face down)")
                        }
                    })
                    .collect::<Vec<_>>();
                if more > 0 {
                    names.push(format!("... and {more} more (:show {} lists all)", z.name));
                }
                names.join(", ")
            } else {
                format!(
                    "{} card{}, hidden",
                    cards.len(),
                    if cards.len() == 1 { "" } else { "s" }
                )
            };
            lines.push(format!("  {:<28} {:>3} | {body}", name, cards.len()));
        }
        lines
    }

    /// The vars as lines (`name[key]  value`). With `fold_on`, a keyed var's entries that hold
    /// their starting value are counted in one line instead of listed (`view::screen::fold`,
    /// as a player's screen folds them).
    fn var_lines(
        &self,
        only_player: Option<u32>,
        only_var: Option<usize>,
        fold_on: bool,
    ) -> Vec<String> {
        let s = &self.session;
        let prog = &s.prog;
        let mut lines = Vec::new();
        for (i, v) in prog.vars.iter().enumerate() {
            if only_var.is_some_and(|o| o != i) {
                continue;
            }
            let base = s.state.var_base.get(i).copied().unwrap_or(0) as usize;
            let next = s
                .state
                .var_base
                .get(i + 1)
                .map(|b| *b as usize)
                .unwrap_or(s.state.vars.len());
            if v.keys.is_empty() {
                if only_player.is_none() || only_var.is_some() {
                    let shown = if self.can_see(v.visibility, None) {
                        s.state
                            .vars
                            .get(base)
                            .map_or_else(|| "(missing)".to_string(), |x| self.view().show(x))
                    } else {
                        "(hidden)".to_string()
                    };
                    lines.push(format!("  {:<28} {shown}", v.name));
                }
                continue;
            }
            // Keyed vars: one line each, `name[key]`.
            let dims: Vec<u32> = v
                .keys
                .iter()
                .map(|k| key_count(k, s.players, prog))
                .collect();
            let first = s.state.var_first.get(i);
            let mut entries: Vec<Entry> = Vec::new();
            for off in 0..(next - base) {
                let mut rest = off as u32;
                let mut parts = Vec::new();
                let mut owner = None;
                for (k, d) in v.keys.iter().zip(&dims).rev() {
                    let j = rest % d.max(&1);
                    rest /= d.max(&1);
                    parts.push(match k {
                        KeyDomain::Player => {
                            owner = Some(j);
                            format!("P{}", j + 1)
                        }
                        KeyDomain::Enum(e) => prog.enums[*e as usize]
                            .variants
                            .get(j as usize)
                            .cloned()
                            .unwrap_or_default(),
                        KeyDomain::Range(a, _) => (a + j as i64).to_string(),
                    });
                }
                if only_player.is_some() && owner != only_player {
                    continue;
                }
                parts.reverse();
                let value = s.state.vars.get(base + off);
                let seen = self.can_see(v.visibility, owner);
                let shown = match value {
                    Some(x) if seen => self.view().show(x),
                    _ => "(hidden)".to_string(),
                };
                // What the game started it with.
                let default = seen && value.is_some() && value == first;
                entries.push(Entry {
                    key: format!("{}[{}]", v.name, parts.join(", ")),
                    value: shown,
                    default,
                });
            }
            let folded = fold(&entries);
            if fold_on && folded.folded > 0 {
                for (_, e) in &folded.listed {
                    lines.push(format!("  {:<28} {}", e.key, e.value));
                }
                let others = if folded.folded < entries.len() {
                    " other"
                } else {
                    ""
                };
                lines.push(format!(
                    "  {:<28} {} ({}{others} entries; :show {} lists them)",
                    format!("{}[…]", v.name),
                    folded.what,
                    folded.folded,
                    v.name
                ));
            } else {
                for e in entries {
                    lines.push(format!("  {:<28} {}", e.key, e.value));
                }
            }
        }
        lines
    }

    pub(super) fn state(&mut self) {
        let (round, phase) = self.session.where_now();
        let who = match &self.viewer {
            None => "everything".to_string(),
            Some(p) => format!("what P{} may see", p + 1),
        };
        let place = match (&self.session.stop, phase) {
            (Stop::Boundary { pos: Pos::Setup }, _) => "before setup".to_string(),
            (Stop::Boundary { .. }, Some(p)) => format!("round {round}, before phase {p}"),
            (Stop::Done, _) => "the game is over".to_string(),
            (_, None) => "setup".to_string(),
            (_, Some(p)) => format!("round {round}, phase {p}"),
        };
        let mut lines = vec![format!("{place} (showing {who})")];
        let vars = self.var_lines(None, None, true);
        if !vars.is_empty() {
            lines.push("vars:".into());
            lines.extend(vars);
        }
        lines.push("zones:".into());
        for z in 0..self.session.prog.zones.len() {
            lines.extend(self.zone_lines(z as u32, None));
        }
        if let Some(p) = self.session.pending.clone() {
            lines.push(format!(
                "waiting: P{} to choose: {}",
                p.player + 1,
                p.prompt
            ));
        }
        for l in lines {
            self.say(l);
        }
    }

    pub(super) fn show(&mut self, what: &str) {
        let prog = &self.session.prog;
        if let Some(p) =
            player_of(what, self.session.players).filter(|_| what.starts_with(['P', 'p']))
        {
            let mut lines = vec![format!(
                "P{} (agent: {})",
                p + 1,
                self.session.mode_name(p as usize)
            )];
            lines.extend(self.var_lines(Some(p), None, true));
            for (z, zone) in prog.zones.iter().enumerate() {
                if zone.keys.contains(&KeyDomain::Player) {
                    lines.extend(self.zone_lines(z as u32, Some(p)));
                }
            }
            for l in lines {
                self.say(l);
            }
            return;
        }
        if let Some(z) = prog.zone_by_name(what) {
            let lines = self.zone_lines(z, None);
            for l in lines {
                self.say(l);
            }
            return;
        }
        let id = what.trim_start_matches('@');
        let card = prog
            .cards
            .iter()
            .position(|c| c.id.to_string() == id)
            .or_else(|| {
                (0..prog.cards.len())
                    .find(|&c| self.view().card_name(c as u32).eq_ignore_ascii_case(what))
            });
        if let Some(c) = card {
            self.card(c as u32);
            return;
        }
        if let Some(v) = prog.vars.iter().position(|v| v.name == what) {
            for l in self.var_lines(None, Some(v), false) {
                self.say(l);
            }
            return;
        }
        let mut names: Vec<String> = prog.zones.iter().map(|z| z.name.clone()).collect();
        names.extend(prog.vars.iter().map(|v| v.name.clone()));
        names.extend(prog.cards.iter().map(|c| format!("@{}", c.id)));
        let help =
            crate::diag::did_you_mean(what, names.iter().map(|s| s.as_str())).unwrap_or_default();
        self.say(format!("No zone, player, var or card `{what}`. {help}"));
    }

    fn card(&mut self, c: u32) {
        let s = &self.session;
        let prog = &s.prog;
        let Some(cd) = prog.cards.get(c as usize) else {
            return;
        };
        let Some(kd) = prog.kinds.get(cd.kind as usize) else {
            return;
        };
        let zone = s
            .state
            .card_zone
            .get(c as usize)
            .copied()
            .unwrap_or(u32::MAX);
        let where_ = if zone == u32::MAX {
            "no zone (not in play)".to_string()
        } else {
            self.view().zone_name(zone)
        };
        // Where a card the viewer does not know lies would tell them about it too.
        if !self.knows(c) {
            self.say(format!(
                "@{}: a card of kind {}, hidden from this viewer",
                cd.id, kd.name
            ));
            return;
        }
        let mut lines = vec![format!(
            "@{} ({}), in {where_}, {}",
            cd.id,
            kd.name,
            if s.state.face_up.get(c as usize).copied().unwrap_or(true) {
                "face up"
            } else {
                "face down"
            }
        )];
        // How it reads on one line, and its rules text, before its fields.
        lines.push(format!("  {}", self.view().card_line(c)));
        let text = prog.card_text(c);
        if let Some(t) = text {
            lines.push(format!("  {t}"));
        }
        for f in &kd.fields {
            let v = match kd.slot_of.get(f.sym as usize).copied().flatten() {
                Some((false, i)) => cd.fields.get(i as usize).cloned().unwrap_or(Value::None),
                Some((true, i)) => s
                    .state
                    .card_var_base
                    .get(c as usize)
                    .and_then(|b| s.state.card_vars.get(b.saturating_add(i) as usize))
                    .cloned()
                    .unwrap_or(Value::None),
                None => Value::None,
            };
            let shown = match v {
                // The text above says what the card's code does.
                Value::Fn(f) if text.is_some() && prog.card_of_fn(f) == Some(c) => {
                    "(as its text says)".to_string()
                }
                Value::Fn(f) if prog.card_of_fn(f) != Some(c) => "the kind's default".to_string(),
                _ => self.view().show(&v),
            };
            let line = format!(
                "  {:<14} {shown}{}",
                f.name,
                if f.mutable { "   (var)" } else { "" }
            );
            lines.push(line.trim_end().to_string());
        }
        for l in lines {
            self.say(l);
        }
    }

    pub(super) fn log(&mut self) {
        let viewer = self.viewer;
        let lines: Vec<String> = self
            .session
            .events
            .iter()
            .filter_map(
                |e| match viewer.map_or_else(|| e.clone(), |v| e.for_viewer(v)) {
                    Event::Choice {
                        player,
                        prompt,
                        choice,
                        ..
                    } => Some(match choice {
                        Some(c) => format!("{player}: {prompt} -> {}", c.text()),
                        None => format!("{player}: {prompt} -> (secret)"),
                    }),
                    _ => None,
                },
            )
            .enumerate()
            .map(|(i, l)| format!("{:>4}. {l}", i + 1))
            .collect();
        if lines.is_empty() {
            self.say("No choices yet.");
        }
        for l in lines {
            self.say(l);
        }
    }
}

//! Agents answer choices: `random` (seeded), `first`, `script:FILE`, `human`, `mc:N` and
//! `ismcts:N` (search, `mc:N/bot:NAME` with the game's bot driving the playouts), `bot:NAME`
//! (a bot the game declares).

pub mod ismcts;
pub mod mc;
pub mod pace;
pub mod prior;
pub mod table;

pub use table::{match_answer, HumanAgent, ReplayAgent, SharedTable, Table};

pub use crate::interp::{random_answer, Agent, ChoiceRequest, PENDING};
use crate::rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

pub struct FirstAgent;

impl Agent for FirstAgent {
    fn decide(&mut self, _: &ChoiceRequest, _: &dyn Fn(usize) -> String) -> Result<usize, String> {
        Ok(0)
    }

    fn answer_blind(&mut self, _: usize, _: Option<u64>) -> Option<usize> {
        Some(0)
    }
}

#[derive(Clone)]
pub struct RandomAgent {
    rng: ChaCha8Rng,
}

impl RandomAgent {
    /// Each player's random agent has its own stream, derived from the game seed.
    pub fn new(seed: u64, player: u32) -> Self {
        let mixed = seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(u64::from(player).wrapping_mul(0xD1B5_4A32_D192_ED03) + 1);
        RandomAgent {
            rng: rng::new_rng(mixed),
        }
    }
}

impl RandomAgent {
    /// The next draw among `count` options (what `decide` answers).
    pub fn pick(&mut self, count: usize) -> usize {
        rng::below(&mut self.rng, count.min(u32::MAX as usize) as u32) as usize
    }
}

impl Agent for RandomAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        Ok(random_answer(&mut self.rng, req.count, req.allocation))
    }

    fn answer_blind(&mut self, count: usize, allocation: Option<u64>) -> Option<usize> {
        Some(random_answer(&mut self.rng, count, allocation))
    }

    fn replayed(&mut self, req: &ChoiceRequest, label: &dyn Fn(usize) -> String, _: usize) {
        let _ = self.decide(req, label);
    }
}

/// A bot the game declares (`bot Greedy(me) { ... }`, seated by `bot:Greedy`): the interpreter
/// works its answer out from the rules, as the seat sees the game, and hands it over.
#[derive(Clone)]
pub struct BotAgent {
    pub name: Rc<str>,
}

impl Agent for BotAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        req.bot
            .ok_or_else(|| format!("the bot `{}` was not worked out for this choice", self.name))
    }

    fn bot(&self, _seat: u32) -> Option<Rc<str>> {
        Some(self.name.clone())
    }
}

/// The bot a seat's agent spec names (`bot:Greedy`), if it names one.
pub fn bot_name(spec: &str) -> Option<&str> {
    spec.strip_prefix("bot:")
}

/// A search spec and how its playouts are answered: `mc:50/bot:Steward` is `mc:50` with the
/// game's bot `Steward` answering every choice of the playouts (`Some("Steward")`);
/// `ismcts:10/random`, or no `/`, random playouts (`None`). `None` for a spec that is not a
/// search (`mc...` or `ismcts...`); an error for a playout policy that is neither.
pub fn search_playouts(spec: &str) -> Option<Result<(&str, Option<&str>), String>> {
    if !(spec.starts_with("mc") || spec.starts_with("ismcts")) {
        return None;
    }
    let Some((base, policy)) = spec.split_once('/') else {
        return Some(Ok((spec, None)));
    };
    Some(match policy {
        "random" => Ok((base, None)),
        p => match bot_name(p) {
            Some(name) if !name.is_empty() && !name.contains('/') => Ok((base, Some(name))),
            _ => Err(format!(
                "`{spec}`: the playouts are `random` or a bot the game declares, like {base}/bot:NAME"
            )),
        },
    })
}

/// The game's bot a seat's spec names: `bot:NAME`, or the bot driving a search's playouts
/// (`mc:50/bot:NAME`).
fn named_bot(spec: &str) -> Option<&str> {
    match search_playouts(spec) {
        Some(Ok((_, bot))) => bot,
        Some(Err(_)) => None,
        None => bot_name(spec),
    }
}

/// Every bot the seats' specs name (to play a seat, or a search's playouts) must be one the
/// game declares: else the error lists them.
pub fn check_bots(specs: &[String], prog: &crate::program::Program) -> Result<(), String> {
    for name in specs.iter().filter_map(|s| named_bot(s)) {
        if prog.bots.iter().any(|b| b.name == name) {
            continue;
        }
        let names: Vec<&str> = prog.bots.iter().map(|b| b.name.as_str()).collect();
        return Err(if names.is_empty() {
            format!(
                "the game has no bot `{name}`: it declares none (`bot Name(me) {{ prefer ... }}` in its rules)"
            )
        } else {
            let guess = crate::diag::did_you_mean(name, names.iter().copied())
                .map(|g| format!(" ({g})"))
                .unwrap_or_default();
            format!(
                "the game has no bot `{name}`; its bots: {}{guess}",
                names.join(", ")
            )
        });
    }
    Ok(())
}

/// Answers read from a choice log: one line per choice, `P<n> <index> [label...]`, index 1-based.
pub struct Script {
    lines: Vec<(usize, String)>,
    next: usize,
    name: String,
    /// When the script answers for some seats only, each seat reads its own lines, skipping
    /// the others' (one cursor per seat); a script for every seat is read strictly in order.
    own_lines: Option<Vec<usize>>,
}

impl Script {
    pub fn parse(name: &str, text: &str) -> Script {
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#')
            })
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        Script {
            lines,
            next: 0,
            name: name.to_string(),
            own_lines: None,
        }
    }
}

#[derive(Clone)]
pub struct ScriptAgent(pub Rc<RefCell<Script>>);

impl Agent for ScriptAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let mut s = self.0.borrow_mut();
        if let Some(cursors) = &s.own_lines {
            // Skip to this seat's next line.
            let seat = req.player as usize;
            let from = cursors.get(seat).copied().unwrap_or(usize::MAX);
            let found = s
                .lines
                .iter()
                .enumerate()
                .skip(from)
                .find(|(_, (_, l))| l.split_whitespace().next() == Some(req.player_name));
            let at = found.map(|(i, _)| i).unwrap_or(s.lines.len());
            if let Some(c) = s.own_lines.as_mut().and_then(|c| c.get_mut(seat)) {
                *c = at.saturating_add(1);
            }
            s.next = at;
        }
        let Some((line_no, line)) = s.lines.get(s.next).cloned() else {
            return Err(format!(
                "the script `{}` ran out of answers; the game asks {} `{}`",
                s.name, req.player_name, req.prompt
            ));
        };
        s.next += 1;
        let mut words = line.split_whitespace();
        let who = words.next().unwrap_or("");
        let idx = words.next().unwrap_or("");
        if who != req.player_name {
            return Err(format!(
                "{}:{line_no}: the script answers for {who}, but the game asks {} `{}`",
                s.name, req.player_name, req.prompt
            ));
        }
        match idx.parse::<usize>() {
            Ok(n) if n >= 1 && n <= req.count => Ok(n - 1),
            _ => Err(format!(
                "{}:{line_no}: `{idx}` is not an option number from 1 to {}",
                s.name, req.count
            )),
        }
    }

    fn replayed(&mut self, req: &ChoiceRequest, label: &dyn Fn(usize) -> String, _: usize) {
        let _ = self.decide(req, label);
    }
}

/// The agent kinds a seat may have, for messages.
pub const KINDS: &str =
    "random, first, human, mc:N, ismcts:N (or ismcts:Nx, ismcts:200ms, with :H or :end for the playouts' horizon; /bot:NAME after either plays out with that bot), bot:NAME (a bot the game declares) or script:FILE";

/// Split a `--agent` value into one single-agent spec per seat. The value is a comma-separated
/// list: `P2=human` gives seat 2 its own agent, and the last entry without `P<n>=` is for every
/// seat not named (`P1=human,random`). A single spec (`random`) is every seat's; seats left
/// without one get `default`.
pub fn seat_specs(spec: &str, players: u32, default: &str) -> Result<Vec<String>, String> {
    if players > 64 {
        return Err(format!(
            "{players} players is not a game: play with 1 to 64"
        ));
    }
    let max = crate::limits::Limits::default().max_line_bytes;
    if spec.len() > max {
        return Err(format!("the agent spec is longer than {max} bytes"));
    }
    let mut seats: Vec<Option<String>> = vec![None; players as usize];
    let mut rest: Option<String> = None;
    for part in spec.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!(
                "`{spec}` has an empty entry; write P1=human,random"
            ));
        }
        let named = part.split_once('=').and_then(|(who, what)| {
            let n = who.trim().strip_prefix(['P', 'p'])?.parse::<u32>().ok()?;
            Some((n, what.trim()))
        });
        match named {
            Some((n, what)) => {
                let seat = n
                    .checked_sub(1)
                    .and_then(|k| seats.get_mut(k as usize))
                    .ok_or_else(|| {
                        format!("`P{n}` is not a seat of this game: use P1 to P{players}")
                    })?;
                if seat.is_some() {
                    return Err(format!("`P{n}` is given two agents in `{spec}`"));
                }
                check_kind(what)?;
                *seat = Some(what.to_string());
            }
            None if part.contains('=') && !part.starts_with("script:") => {
                return Err(format!(
                    "`{part}` is not `P<n>=AGENT`: name a seat like P1=human"
                ));
            }
            None => {
                check_kind(part)?;
                rest = Some(part.to_string());
            }
        }
    }
    let rest = rest.unwrap_or_else(|| default.to_string());
    Ok(seats
        .into_iter()
        .map(|s| s.unwrap_or_else(|| rest.clone()))
        .collect())
}

fn check_kind(spec: &str) -> Result<(), String> {
    let spec = match search_playouts(spec) {
        Some(r) => r?.0,
        None => spec,
    };
    if let Some(n) = mc::parse(spec) {
        return n.map(|_| ());
    }
    if let Some(b) = ismcts::parse(spec) {
        return b.map(|_| ());
    }
    match spec {
        "random" | "first" | "human" => Ok(()),
        s if s.starts_with("script:") && s.len() > "script:".len() => Ok(()),
        s if bot_name(s).is_some_and(|n| !n.is_empty()) => Ok(()),
        other => Err(format!("unknown agent `{other}`; use {KINDS}")),
    }
}

/// Build the agents for a game from a `--agent` value (see [`seat_specs`]). Seats that name the
/// same script share it: it is one log of the game's choices, read in order. The human seats
/// share one [`Table`].
pub fn make_agents(spec: &str, players: u32, seed: u64) -> Result<Vec<Box<dyn Agent>>, String> {
    let specs = seat_specs(spec, players, "random")?;
    let humans = (0u32..)
        .zip(&specs)
        .filter(|(_, s)| *s == "human")
        .map(|(p, _)| p)
        .collect();
    let table = Table::new(humans, table::Page::default()).shared();
    build_agents(&specs, seed, &table)
}

/// The agents of `rules run`: every seat's answers go through `table` (which replays the
/// answers it holds first), and the human seats are its people.
pub fn make_agents_at(
    spec: &str,
    players: u32,
    seed: u64,
    table: &SharedTable,
) -> Result<Vec<Box<dyn Agent>>, String> {
    let specs = seat_specs(spec, players, "random")?;
    Ok(build_agents(&specs, seed, table)?
        .into_iter()
        .zip(&specs)
        .map(|(inner, spec)| {
            Box::new(ReplayAgent {
                inner,
                table: table.clone(),
                paced: pace::is_paced(spec),
            }) as Box<dyn Agent>
        })
        .collect())
}

fn build_agents(
    specs: &[String],
    seed: u64,
    table: &SharedTable,
) -> Result<Vec<Box<dyn Agent>>, String> {
    let mut scripts: Vec<(String, Rc<RefCell<Script>>)> = Vec::new();
    let mut agents: Vec<Box<dyn Agent>> = Vec::with_capacity(specs.len());
    for (p, spec) in (0u32..).zip(specs) {
        agents.push(match spec.as_str() {
            "random" => Box::new(RandomAgent::new(seed, p)),
            "first" => Box::new(FirstAgent),
            "human" => Box::new(HumanAgent {
                table: table.clone(),
            }),
            s if bot_name(s).is_some() => Box::new(BotAgent {
                name: Rc::from(bot_name(s).unwrap_or("")),
            }),
            s if s.starts_with("ismcts") => {
                let (base, bot) = search_playouts(s).unwrap_or(Err(String::new()))?;
                let spec = ismcts::parse(base).unwrap_or(Err(String::new()))?;
                let mut a = ismcts::IsmctsAgent::with_spec(spec, seed);
                a.bot = bot.map(Rc::from);
                a.random_playouts = s.ends_with("/random");
                Box::new(a)
            }
            s if s.starts_with("mc") => {
                let (base, bot) = search_playouts(s).unwrap_or(Err(String::new()))?;
                let playouts = mc::parse(base).unwrap_or(Err(String::new()))?;
                let mut a = mc::McAgent::new(playouts, seed);
                a.bot = bot.map(Rc::from);
                a.random_playouts = s.ends_with("/random");
                Box::new(a)
            }
            s => {
                let path = s.strip_prefix("script:").unwrap_or(s);
                let shared = match scripts.iter().find(|(q, _)| q == path) {
                    Some((_, sh)) => sh.clone(),
                    None => {
                        let max = crate::limits::Limits::default().max_log_bytes;
                        let text = crate::files::read_text(std::path::Path::new(path), max)
                            .map_err(|e| format!("cannot read the script `{path}`: {e}"))?;
                        let sh = Rc::new(RefCell::new(Script::parse(path, &text)));
                        scripts.push((path.to_string(), sh.clone()));
                        sh
                    }
                };
                Box::new(ScriptAgent(shared))
            }
        });
    }
    for (path, sh) in &scripts {
        let everyone = specs
            .iter()
            .all(|s| s.strip_prefix("script:") == Some(path));
        if !everyone {
            sh.borrow_mut().own_lines = Some(vec![0; specs.len()]);
        }
    }
    Ok(agents)
}

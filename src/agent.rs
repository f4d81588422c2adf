//! Agents answer choices: `random` (seeded), `first`, `script:FILE`, `human`, `mc:N` (search).

pub mod ismcts;
pub mod mc;

pub use crate::interp::{random_answer, Agent, ChoiceRequest, PENDING};
use crate::rng;
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::rc::Rc;

/// A stateless seeded draw for choice number `number`: the same game position always gets the
/// same answer, however the game got there (replays, undo, save and load).
pub fn seeded_pick(seed: u64, player: u32, number: usize, count: usize) -> usize {
    let mixed = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(player).wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_add((number as u64).wrapping_mul(0xA24B_AED4_963E_E407))
        .wrapping_add(1);
    let mut rng = rng::new_rng(mixed);
    rng::below(&mut rng, count.min(u32::MAX as usize) as u32) as usize
}

pub struct FirstAgent;

impl Agent for FirstAgent {
    fn decide(&mut self, _: &ChoiceRequest, _: &dyn Fn(usize) -> String) -> Result<usize, String> {
        Ok(0)
    }
}

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

impl Agent for RandomAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        Ok(random_answer(&mut self.rng, req.count, req.allocation))
    }
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
}

/// Asks at the terminal: shows the player's own view and the numbered options, and takes a
/// number, an option's text, or a prefix of it that only one option has.
///
/// With several people at one keyboard (hot-seat), the humans share `hot_seat`: before a
/// different person's choice the screen is cleared and the game waits until that person says
/// they are at the keyboard, and after each answer the screen is cleared again, so nobody sees
/// another's hand.
pub struct HumanAgent {
    pub hot_seat: Option<Rc<RefCell<Option<u32>>>>,
}

/// Clears the terminal and its scrollback (and says so, when the output is not a terminal).
fn clear_screen(out: &mut impl Write) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        let _ = write!(out, "\x1b[2J\x1b[3J\x1b[H");
    } else {
        let _ = writeln!(out, "\n[screen cleared]");
    }
    let _ = out.flush();
}

/// The option a person's answer names: a number from 1, an option's text, or a prefix that
/// only one option starts with (case does not matter).
pub fn match_answer(
    t: &str,
    count: usize,
    label: &dyn Fn(usize) -> String,
) -> Result<usize, String> {
    let t = t.trim();
    if t.is_empty() {
        return Err(format!(
            "type a number from 1 to {count}, or an option's name"
        ));
    }
    if let Ok(n) = t.parse::<usize>() {
        return if n >= 1 && n <= count {
            Ok(n - 1)
        } else {
            Err(format!(
                "`{t}` is not an option; type a number from 1 to {count}"
            ))
        };
    }
    let want = t.to_lowercase();
    let labels: Vec<String> = (0..count).map(|i| label(i).to_lowercase()).collect();
    if let Some(i) = labels.iter().position(|l| *l == want) {
        return Ok(i);
    }
    let starts: Vec<usize> = labels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with(&want))
        .map(|(i, _)| i)
        .collect();
    match starts.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "no option is `{t}`; type a number from 1 to {count}, or an option's name"
        )),
        many => Err(format!(
            "`{t}` could be {}; type more of it, or the number",
            many.iter()
                .take(5)
                .map(|&i| format!("{}) {}", i + 1, label(i)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

impl Agent for HumanAgent {
    fn decide(
        &mut self,
        req: &ChoiceRequest,
        label: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let stdin = std::io::stdin();
        let mut out = std::io::stderr();
        let read = |line: &mut String| match stdin.lock().read_line(line) {
            Ok(0) => Err("end of input while waiting for a choice".to_string()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("cannot read the terminal: {e}")),
        };
        if let Some(seat) = &self.hot_seat {
            if *seat.borrow() != Some(req.player) {
                clear_screen(&mut out);
                let _ = write!(
                    out,
                    "Pass the keyboard to {}. {}, press Enter when you are alone at the screen.",
                    req.player_name, req.player_name
                );
                let _ = out.flush();
                read(&mut String::new())?;
                *seat.borrow_mut() = Some(req.player);
            }
        }
        let _ = write!(out, "\n{}", (req.view)().summary());
        let _ = writeln!(out, "{}: {}", req.player_name, req.prompt);
        for i in 0..req.count {
            let _ = writeln!(out, "  {:>3}) {}", i + 1, label(i));
        }
        loop {
            let _ = write!(out, "choose 1-{}> ", req.count);
            let _ = out.flush();
            let mut line = String::new();
            read(&mut line)?;
            match match_answer(&line, req.count, label) {
                Ok(i) => {
                    if self.hot_seat.is_some() {
                        clear_screen(&mut out);
                    }
                    return Ok(i);
                }
                Err(e) => {
                    let _ = writeln!(out, "{e}");
                }
            }
        }
    }
}

/// The agent kinds a seat may have, for messages.
pub const KINDS: &str = "random, first, human, mc:N, ismcts:N (or ismcts:200ms) or script:FILE";

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
    if let Some(n) = mc::parse(spec) {
        return n.map(|_| ());
    }
    if let Some(b) = ismcts::parse(spec) {
        return b.map(|_| ());
    }
    match spec {
        "random" | "first" | "human" => Ok(()),
        s if s.starts_with("script:") && s.len() > "script:".len() => Ok(()),
        other => Err(format!("unknown agent `{other}`; use {KINDS}")),
    }
}

/// Build the agents for a game from a `--agent` value (see [`seat_specs`]). Seats that name the
/// same script share it: it is one log of the game's choices, read in order.
pub fn make_agents(spec: &str, players: u32, seed: u64) -> Result<Vec<Box<dyn Agent>>, String> {
    let specs = seat_specs(spec, players, "random")?;
    let mut scripts: Vec<(String, Rc<RefCell<Script>>)> = Vec::new();
    let mut agents: Vec<Box<dyn Agent>> = Vec::with_capacity(specs.len());
    // Several people at one keyboard take turns at it.
    let humans = specs.iter().filter(|s| *s == "human").count();
    let hot_seat = (humans > 1).then(|| Rc::new(RefCell::new(None)));
    for (p, spec) in (0u32..).zip(&specs) {
        agents.push(match spec.as_str() {
            "random" => Box::new(RandomAgent::new(seed, p)),
            "first" => Box::new(FirstAgent),
            "human" => Box::new(HumanAgent {
                hot_seat: hot_seat.clone(),
            }),
            s if s.starts_with("ismcts") => {
                let budget = ismcts::parse(s).unwrap_or(Err(String::new()))?;
                Box::new(ismcts::IsmctsAgent::new(budget, seed))
            }
            s if s.starts_with("mc") => {
                let playouts = mc::parse(s).unwrap_or(Err(String::new()))?;
                Box::new(mc::McAgent::new(playouts, seed))
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

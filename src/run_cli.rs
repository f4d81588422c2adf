//! `rules run`: play a game and print its account, with people at the terminal for the human
//! seats (`rules::agent::table`): their screens, hot-seat, saving when they stop, `--resume`,
//! and taking an answer back (the game replayed from its first answer). With a person at the
//! table and no `--seed`, the seed is secret (`rules::seed`): drawn from the system, committed
//! to at the start, shown at the end, kept in the log (written readable by its owner only).

use super::{one_game, print_diags, Viewer};
use rules::agent::table::{self, SharedTable, Table, QUIT, TAKE_BACK};
use rules::interp::Interp;
use rules::limits::Limits;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `rules run` was asked.
pub struct RunArgs {
    pub game: PathBuf,
    pub players: Option<u32>,
    pub seed: Option<u64>,
    pub agent: Option<String>,
    pub log: Option<PathBuf>,
    pub json: bool,
    pub viewer: Option<String>,
    pub set: Vec<String>,
    pub full: bool,
    pub resume: Option<PathBuf>,
    /// With people at the table, the pace of a seat a search or a bot plays (`agent::pace`).
    pub pace: std::time::Duration,
}

/// A choice log as `rules run` writes it: the game's settings in its header, then one answer a
/// line (`P2 3 label`, the option counted from 1).
#[derive(Default)]
struct Log {
    seed: Option<u64>,
    /// The salt of a secret seed.
    salt: Option<String>,
    players: Option<u32>,
    agents: Option<String>,
    options: Vec<String>,
    answers: Vec<(u32, usize)>,
}

fn read_log(path: &Path) -> Result<Log, String> {
    let max = Limits::default().max_log_bytes;
    let text = rules::files::read_text(path, max)
        .map_err(|e| format!("cannot read the log `{}`: {e}", path.display()))?;
    let mut log = Log::default();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        let bad = |what: &str| format!("{}:{}: {what}", path.display(), no + 1);
        if let Some(rest) = line.strip_prefix('#') {
            let Some((key, value)) = rest.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "seed" => {
                    log.seed = Some(value.parse().map_err(|_| bad("the seed is not a number"))?)
                }
                "salt" if rules::seed::salt_fits(value) => log.salt = Some(value.to_string()),
                "salt" => {
                    return Err(bad(&format!(
                        "the salt is not {} hex digits",
                        rules::seed::SALT_HEX
                    )))
                }
                "players" => {
                    log.players = Some(
                        value
                            .parse()
                            .map_err(|_| bad("the number of players is not a number"))?,
                    )
                }
                "agents" => log.agents = Some(value.to_string()),
                "options" => log.options = value.split_whitespace().map(String::from).collect(),
                _ => {}
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let seat = words
            .next()
            .and_then(|w| w.strip_prefix('P'))
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(|n| n.checked_sub(1))
            .ok_or_else(|| bad("an answer starts with its seat, like `P2 3`"))?;
        let index = words
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .ok_or_else(|| bad("an answer gives the option's number from 1, like `P2 3`"))?;
        log.answers.push((seat, index));
    }
    Ok(log)
}

/// The log's text: the settings the game was played with, then the answers so far.
fn log_text(
    (seed, salt): (u64, Option<&str>),
    players: u32,
    agent: &str,
    set: &[String],
    interp: &Interp,
) -> String {
    let mut text = String::from("# rules choice log: player, option number (1-based), option\n");
    text.push_str(&format!("# seed: {seed}\n"));
    if let Some(salt) = salt {
        // A secret seed: the commitment shown at the start is the SHA-256 of `SEED:SALT`.
        text.push_str(&format!("# salt: {salt}\n"));
    }
    text.push_str(&format!("# players: {players}\n# agents: {agent}\n"));
    if !set.is_empty() {
        // The options are part of the game: replay with the same `--set`.
        text.push_str(&format!("# options: {}\n", set.join(" ")));
    }
    for r in &interp.choice_log {
        text.push_str(&format!(
            "P{} {} {}\n",
            r.player + 1,
            r.index + 1,
            r.label.replace('\n', " ")
        ));
    }
    text
}

/// A value given both on the command line and in the log being resumed must be the same.
fn agree<T: PartialEq + std::fmt::Display>(
    what: &str,
    flag: &str,
    given: Option<T>,
    logged: Option<T>,
) -> Result<Option<T>, String> {
    match (given, logged) {
        (Some(g), Some(l)) if g != l => Err(format!(
            "the log was played with {what} {l}, not {g}: leave out `{flag}`"
        )),
        (Some(g), _) => Ok(Some(g)),
        (None, l) => Ok(l),
    }
}

pub fn run(a: RunArgs, limits: Limits) -> ExitCode {
    if let Err(code) = one_game(&a.game) {
        return code;
    }
    let resumed = match &a.resume {
        Some(path) => match read_log(path) {
            Ok(l) => Some(l),
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let logged = resumed.as_ref();
    let settings = (|| -> Result<_, String> {
        let secret = logged.is_some_and(|l| l.salt.is_some());
        let seed = match agree("seed", "--seed", a.seed, logged.and_then(|l| l.seed)) {
            // A secret seed is not told to whoever guesses another.
            Err(_) if secret => {
                return Err("the log's seed is secret, and is another: leave out `--seed`".into())
            }
            seed => seed?,
        };
        let players = agree(
            "players",
            "--players",
            a.players,
            logged.and_then(|l| l.players),
        )?;
        let set = match logged {
            Some(l) if !a.set.is_empty() && a.set != l.options => {
                return Err(format!(
                    "the log was played with `--set {}`: leave out `--set`",
                    l.options.join(" --set ")
                ))
            }
            Some(l) => l.options.clone(),
            None => a.set.clone(),
        };
        // The seats go back to who played them, unless told otherwise.
        let agent = a
            .agent
            .clone()
            .or_else(|| logged.and_then(|l| l.agents.clone()))
            .unwrap_or_else(|| "random".to_string());
        Ok((seed, players, set, agent))
    })();
    let (seed, players, set, agent) = match settings {
        Ok(s) => s,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &a.log {
        if let Err(e) = rules::files::replaceable(path) {
            errln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let c = rules::check_path(&a.game, &limits);
    print_diags(&c.diags, &c.sources);
    let Some(prog) = c.program else {
        errln!("{}: the game has errors; nothing was run", a.game.display());
        return ExitCode::from(1);
    };
    if prog.phases.is_empty() || prog.game.round_phases.is_empty() {
        return super::not_playable(&prog, &a.game);
    }
    let n = players.unwrap_or_else(|| rules::default_players(&prog));
    let seats = match rules::agent::seat_specs(&agent, n.min(64), "random")
        .and_then(|specs| rules::agent::check_bots(&specs, &prog).map(|()| specs))
    {
        Ok(s) => s,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let humans: Vec<u32> = (0u32..)
        .zip(&seats)
        .filter(|(_, s)| *s == "human")
        .map(|(p, _)| p)
        .collect();
    let asked = match a.viewer.as_deref() {
        None => None,
        Some("all") => Some(Viewer::All),
        Some(v) => match v
            .strip_prefix(['P', 'p'])
            .and_then(|k| k.parse::<u32>().ok())
            .filter(|k| *k >= 1 && *k <= n.min(64))
        {
            Some(k) => Some(Viewer::Seat(k - 1)),
            None => {
                errln!(
                    "error: `--viewer {v}` is not a player of this game; use P1 to P{} or all",
                    n.min(64)
                );
                return ExitCode::from(2);
            }
        },
    };
    // People at the terminal see what they may see, and nothing more.
    let viewer = match (humans.as_slice(), asked) {
        ([], v) => v.unwrap_or(Viewer::All),
        ([h], None) => Viewer::Seat(*h),
        ([h], Some(Viewer::Seat(v))) if v == *h => Viewer::Seat(v),
        ([_, _, ..], None) => Viewer::Public,
        ([h], Some(_)) => {
            errln!(
                "error: P{} plays at this terminal, so the account is seen through P{}'s eyes; leave out --viewer",
                h + 1,
                h + 1
            );
            return ExitCode::from(2);
        }
        (_, Some(_)) => {
            errln!(
                "error: several players share this terminal, so each sees the account through their own eyes; leave out --viewer"
            );
            return ExitCode::from(2);
        }
    };
    // A person at the table and no seed given: a secret one (a resumed game keeps its own).
    let (seed, salt) = match (seed, logged.and_then(|l| l.salt.clone())) {
        (Some(seed), salt) => (seed, salt),
        (None, _) if humans.is_empty() => (1, None),
        (None, _) => match rules::seed::draw() {
            Ok((seed, salt)) => (seed, Some(salt)),
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let options = match rules::options::parse_sets(&prog, &set) {
        Ok(o) => o,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut t = Table::new(humans.clone(), table::page(a.full));
    // A person at the table, or an account read through one seat's eyes (`--viewer P2`): the
    // seats a search or a bot plays answer at the table's pace, so the clock tells that seat
    // nothing either.
    if !humans.is_empty() || matches!(viewer, Viewer::Seat(_)) {
        t.pacing = rules::agent::pace::Pacing::new(n as usize, a.pace);
    }
    // Told again to each person as they first sit down (hot-seat clears the screen).
    t.goal = Some(rules::explain::goal_banner(&prog, &a.game));
    // The people's account: on stdout, unless the events are (`--json`).
    t.account = if a.json {
        Box::new(|line: &str| errln!("{line}"))
    } else {
        Box::new(|line: &str| outln!("{line}"))
    };
    let table = t.shared();
    let mut answers = resumed.map(|l| l.answers).unwrap_or_default();
    if let Some(path) = &a.resume {
        errln!(
            "Going on from {}: {} answer{} replayed.",
            path.display(),
            answers.len(),
            if answers.len() == 1 { "" } else { "s" }
        );
    }
    if !humans.is_empty() {
        table::catch_interrupts();
        // The people at the table are told what they play for.
        err!("{}", rules::explain::goal_banner(&prog, &a.game));
    }
    // ... and which seats answer at the table's pace.
    if table.borrow().pacing.is_some() {
        let specs = rules::agent::seat_specs(&agent, n.min(64), "random").unwrap_or_default();
        let paced: Vec<(u32, String)> = (1u32..)
            .zip(specs)
            .filter(|(_, s)| rules::agent::pace::is_paced(s))
            .collect();
        if let Some(line) = rules::agent::pace::told(&paced, a.pace) {
            errln!("{line}");
        }
    }
    loop {
        table.borrow_mut().restart(answers.clone());
        if let Some(p) = table.borrow_mut().pacing.as_mut() {
            p.restart();
        }
        let agents = rules::agent::make_agents_at(&agent, n.min(64), seed, &table);
        let mut interp = match super::interp_with(&prog, &c.sources, (n, seed), agents, limits) {
            Ok(i) => i,
            Err(code) => return code,
        };
        for (id, v) in options.iter().cloned() {
            interp.set_option(id, v);
        }
        interp.secret_seed = salt.as_deref().map(std::rc::Rc::from);
        interp.sink = Some(sink(&table, viewer, a.json));
        let result = interp.run();
        // Where the game is written: `--log`, else the log it was resumed from, so a game
        // stopped again goes on from the same file.
        let log_path = a.log.as_ref().or(a.resume.as_ref());
        let text = || log_text((seed, salt.as_deref()), n, &agent, &set, &interp);
        let save = |path: &Path| {
            rules::files::write_private(path, text().as_bytes())
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
        };
        match result {
            Err(d) if d.code == TAKE_BACK => {
                let keep = table.borrow().take_back_to.unwrap_or(0);
                answers = interp
                    .choice_log
                    .iter()
                    .take(keep)
                    .map(|r| (r.player, r.index))
                    .collect();
                errln!("Your answer is taken back.");
                continue;
            }
            Err(d) if d.code == QUIT => {
                // Stopped at the terminal: the game so far is kept, to go on with later (in the
                // temporary folder, under a new name nobody can guess or plant a link at).
                let saved = match log_path {
                    Some(path) => save(path).map(|()| path.clone()),
                    None => {
                        let stem = a
                            .game
                            .file_stem()
                            .map(|s| s.to_string_lossy().to_string())
                            .unwrap_or_else(|| "game".into());
                        let dir = std::env::temp_dir();
                        rules::files::create_private_in(
                            &dir,
                            &format!("rules-{stem}-"),
                            ".log",
                            text().as_bytes(),
                        )
                        .map_err(|e| format!("cannot write the game to `{}`: {e}", dir.display()))
                    }
                };
                return match saved {
                    Ok(path) => {
                        let n = interp.choice_log.len();
                        errln!(
                            "\nStopped after {n} answer{}; the game is saved in {}. To go on: rules run {} --resume {}",
                            if n == 1 { "" } else { "s" },
                            path.display(),
                            a.game.display(),
                            path.display()
                        );
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        errln!("\nerror: {e}");
                        ExitCode::from(2)
                    }
                };
            }
            result => {
                // The host is told where a search outran its pace (the seats were not).
                if let Some(p) = table.borrow().pacing.as_ref() {
                    for line in p.overruns() {
                        errln!("note: {line}");
                    }
                }
                if let Some(path) = log_path {
                    if let Err(e) = save(path) {
                        errln!("error: {e}");
                        return ExitCode::from(2);
                    }
                }
                return match result {
                    Ok(_) => {
                        table.borrow_mut().finish();
                        ExitCode::SUCCESS
                    }
                    Err(d) => {
                        print_diags(&[*d], &c.sources);
                        // The game cannot go on: a secret seed is no secret any more.
                        if let Some(salt) = &salt {
                            errln!(
                                "The secret seed was {seed} (its key: {}).",
                                rules::seed::key(seed, salt)
                            );
                        }
                        ExitCode::from(1)
                    }
                };
            }
        }
    }
}

/// Where the events go: the JSON stream on stdout (through `viewer`'s eyes), and the readable
/// account: to each person at the terminal through their own eyes (the table), or, with nobody
/// at the terminal, on stdout through `viewer`'s. Nothing while answers are being replayed.
fn sink(table: &SharedTable, viewer: Viewer, json: bool) -> Box<dyn FnMut(&rules::events::Event)> {
    let table = table.clone();
    Box::new(move |ev: &rules::events::Event| {
        if table.borrow().replaying() {
            return;
        }
        let seen;
        let shown = match viewer {
            Viewer::All => ev,
            Viewer::Seat(v) => {
                seen = ev.for_viewer(v);
                &seen
            }
            Viewer::Public => {
                seen = ev.for_viewer(rules::events::PUBLIC);
                &seen
            }
        };
        let people = !table.borrow().humans().is_empty();
        // A write that fails is kept by `out`: the command then exits 74, not 0.
        if json {
            outln!("{}", serde_json::to_string(shown).unwrap_or_default());
        }
        if people {
            table.borrow_mut().event(ev);
        } else if !json {
            if let Some(t) = shown.text() {
                outln!("{t}");
            }
        }
    })
}

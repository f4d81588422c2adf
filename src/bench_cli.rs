//! The command line of `rules bench`: games per second on one core, decisions per second of a
//! searching agent, the check alone on scaled copies (`--check`), and where the steps go
//! (`--profile`).

use super::{count, interp_with, not_playable, one_game, playable, print_diags, unattended_agents};
use rules::limits::Limits;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Measure full random games per second on one core, and the time to check the game
#[derive(clap::Args)]
pub struct BenchArgs {
    /// A `.rules` file or a game folder
    game: PathBuf,
    /// Number of players (default: the game's `default_players`, else 4 when the game
    /// allows it, else its minimum)
    #[arg(long)]
    players: Option<u32>,
    /// How many games to play
    #[arg(long, default_value_t = 2000)]
    games: u64,
    /// Who answers the choices, for every seat or per seat (`P1=ismcts:100,random`, or
    /// `bot:NAME`, a bot the game declares); with a searching agent the bench also reports
    /// its decisions per second
    #[arg(long, default_value = "random")]
    agent: String,
    /// Set a game option, like `--set solo=true` (`rules check` lists a game's options)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Measure only `rules check` (the fastest of `--runs` runs), in MB of source per second
    #[arg(long)]
    check: bool,
    /// With --check: write every card N times first (fresh ids, `unique` texts suffixed),
    /// to measure the checker on large card sets
    #[arg(long, default_value_t = 1, requires = "check",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    scale: u32,
    /// With --check: how many times to check the game
    #[arg(long, default_value_t = 5, requires = "check",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// With --scale: leave the cards of this kind as they are (for kinds the game's own
    /// `check` rules allow only once, like one stage card per level)
    #[arg(long, requires = "check", value_name = "KIND")]
    keep: Vec<String>,
    /// Also count the steps each function of the rules takes (its own, and with its
    /// callees), each phase and the setup, and print the costliest (the games play slower)
    #[arg(long, conflicts_with = "check")]
    profile: bool,
}

pub fn bench(args: BenchArgs, limits: Limits) -> ExitCode {
    let BenchArgs {
        game,
        players,
        games,
        agent,
        set,
        check,
        scale,
        runs,
        keep,
        profile,
    } = args;
    if let Err(code) = one_game(&game) {
        return code;
    }
    if check {
        return bench_check(&game, scale, runs, &keep, limits);
    }
    let t0 = Instant::now();
    let c = rules::check_path(&game, &limits);
    let check_time = t0.elapsed();
    print_diags(&c.diags, &c.sources);
    let Some(mut prog) = c.program else {
        return ExitCode::from(1);
    };
    if prog.phases.is_empty() || prog.game.round_phases.is_empty() {
        return not_playable(&prog, &game);
    }
    let n = players.unwrap_or_else(|| rules::default_players(&prog));
    if let Err(code) = playable(&prog, &game, n) {
        return code;
    }
    let options = match rules::options::parse_sets(&prog, &set) {
        Ok(o) => o,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(code) = unattended_agents(&agent, n, &prog, "a bench") {
        return code;
    }
    if profile {
        rules::interp::CodeCache::profile(&mut prog);
        rules::interp::profile::start(rules::interp::profile_names(&prog));
    }
    let t1 = Instant::now();
    let mut steps = 0u64;
    let mut searched: Option<rules::agent::mc::SearchStats> = None;
    // Each game starts in the room the last one's zones grew.
    let mut room = Vec::new();
    // And with the choice sites whose texts an earlier game worked out.
    let mut sketched = rules::interp::Sketched::default();
    for seed in 0..games {
        let agents = rules::agent::make_agents(&agent, n, seed);
        let mut interp = match interp_with(&prog, &c.sources, (n, seed), agents, limits) {
            Ok(i) => i,
            Err(code) => return code,
        };
        interp.record = false;
        // A remembered call charges the steps of the run it stands for, but a profile
        // sees only the calls that run.
        interp.remember = !profile;
        interp.reuse_zones(std::mem::take(&mut room));
        interp.keep_sketched(std::mem::take(&mut sketched));
        for (id, v) in options.iter().cloned() {
            interp.set_option(id, v);
        }
        if let Err(d) = interp.run() {
            print_diags(&[*d], &c.sources);
            errln!(
                "the game of seed {seed} stopped on this error; replay it, with its choice log: {}",
                rules::simulate::replay_line(&game, n, seed, &agent, &set, &[])
            );
            return ExitCode::from(1);
        }
        for s in interp.agents.iter().filter_map(|a| a.search_stats()) {
            searched.get_or_insert_with(Default::default).add(&s);
        }
        steps += interp.state.steps();
        room = std::mem::take(&mut interp.state.zones);
        sketched = interp.take_sketched();
    }
    let secs = t1.elapsed().as_secs_f64();
    outln!(
        "check {}: {:.2} ms",
        game.display(),
        check_time.as_secs_f64() * 1000.0
    );
    let who = if agent == "random" {
        "random".to_string()
    } else {
        format!("`{agent}`")
    };
    outln!(
        "{games} {who} {n}-player games in {secs:.3} s: {} games/s on one core ({:.0} steps/game)",
        rules::simulate::report::rate(games as f64 / secs.max(1e-9)),
        steps as f64 / games.max(1) as f64
    );
    if let Some(s) = searched {
        outln!(
                "{} decisions searched: {} decisions/s ({} playouts, {:.1} per decision; {} determinised copies played out, {} rejected, {} for want of one)",
                s.decisions,
                rules::simulate::report::rate(s.decisions as f64 / secs.max(1e-9)),
                s.playouts,
                s.playouts as f64 / s.decisions.max(1) as f64,
                s.worlds,
                s.rejected,
                rules::simulate::report::fallback_words(&s)
            );
        if s.rejected > 0 {
            let why: Vec<String> = rules::interp::WHY_NAMES
                .iter()
                .zip(s.why)
                .filter(|&(_, n)| n > 0)
                .map(|(name, n)| format!("{n} {name}"))
                .collect();
            outln!("copies rejected by reason: {}", why.join(", "));
        }
    }
    if profile {
        print_profile(rules::interp::profile::finish(), steps, searched.is_some());
    }
    ExitCode::SUCCESS
}

/// The rows of a profile shown at most.
const PROFILE_ROWS: usize = 25;

/// `rules bench --profile`: the rows that took the most steps of their own, then what the rest
/// took. `steps`: the games' steps (with a searching agent, the playouts' steps are counted in
/// the rows too, not in `steps`).
fn print_profile(mut rows: Vec<rules::interp::profile::Row>, steps: u64, searched: bool) {
    rows.retain(|r| r.calls > 0);
    rows.sort_by(|a, b| b.own.cmp(&a.own).then(a.name.cmp(&b.name)));
    let own: u64 = rows.iter().map(|r| r.own).sum();
    let all = if searched { own } else { own.max(steps) };
    let share = |n: u64| 100.0 * n as f64 / all.max(1) as f64;
    outln!(
        "steps by function ({}): own steps, share, calls, steps with callees",
        if searched {
            "the searches' playouts included"
        } else {
            "every game"
        }
    );
    for r in rows.iter().take(PROFILE_ROWS) {
        outln!(
            "{:>14} {:>6.1}% {:>11} {:>14}  {}",
            group(r.own),
            share(r.own),
            group(r.calls),
            group(r.with_callees),
            r.name
        );
    }
    let rest: u64 = rows.iter().skip(PROFILE_ROWS).map(|r| r.own).sum();
    if rows.len() > PROFILE_ROWS {
        outln!(
            "{:>14} {:>6.1}%  the {} other functions",
            group(rest),
            share(rest),
            rows.len() - PROFILE_ROWS
        );
    }
    if !searched && steps > own {
        outln!(
            "{:>14} {:>6.1}%  outside them (triggers, the rounds between phases)",
            group(steps - own),
            share(steps - own)
        );
    }
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `rules bench GAME --check [--scale N]`: the time to check the game (with every card written
/// N times), the fastest of `runs` runs, and the source read per second.
fn bench_check(
    game: &std::path::Path,
    scale: u32,
    runs: u32,
    keep: &[String],
    limits: Limits,
) -> ExitCode {
    let mut limits = limits;
    let mut overlay = Vec::new();
    let mut kept = Vec::new();
    if scale > 1 {
        let loaded = rules::loader::load(game, &limits);
        if loaded.diags.iter().any(|d| d.is_error()) {
            print_diags(&loaded.diags, &loaded.sources);
            return ExitCode::from(1);
        }
        let mut paths = Vec::new();
        let mut texts = Vec::new();
        for f in loaded.read.iter().filter(|f| !f.starts_with("std/")) {
            match rules::files::read_text(std::path::Path::new(f), limits.max_file_bytes) {
                Ok(t) => {
                    paths.push(PathBuf::from(f));
                    texts.push(t);
                }
                Err(e) => {
                    errln!("error: cannot read `{f}`: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scaled = match rules::scale::scale(&refs, scale, keep) {
            Ok(s) => s,
            Err(e) => {
                errln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        for (i, text) in scaled.texts {
            // The copy is larger than a file may be: this measurement lifts the cap.
            limits.max_file_bytes = limits.max_file_bytes.max(text.len());
            if let Some(p) = paths.get(i) {
                overlay.push((p.clone(), text));
            }
        }
        kept = scaled.kept;
    }
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs {
        let files = overlay.clone();
        let t0 = Instant::now();
        let c = rules::check_path_overlay(game, files, &limits);
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(c);
    }
    let Some(c) = last else {
        return ExitCode::from(2);
    };
    if c.errors() > 0 {
        print_diags(&c.diags, &c.sources);
        return ExitCode::from(1);
    }
    let bytes: usize = c.sources.files.iter().map(|f| f.text.len()).sum();
    let cards = c.program.as_ref().map_or(0, |p| p.cards.len());
    let mb = bytes as f64 / 1e6;
    outln!(
        "check {}{}: {} in {}, {mb:.2} MB: {:.2} ms (fastest of {runs}), {:.1} MB/s",
        game.display(),
        if scale > 1 {
            format!(" x{scale}")
        } else {
            String::new()
        },
        count(cards, "card"),
        count(c.sources.files.len(), "file"),
        best * 1000.0,
        mb / best.max(1e-9)
    );
    for (kind, why) in kept {
        outln!("  `{kind}` cards not copied: {why}");
    }
    ExitCode::SUCCESS
}

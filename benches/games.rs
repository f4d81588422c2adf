//! `cargo bench`: for every game in `games/`, full random games per second on one core, steps per
//! game, the time to check it and the source read per second, the largest game state, peak memory
//! as the games go on, and the REPL's `:undo` deep into a game. No timing assertions: it prints
//! the README's performance table (`cargo bench -- GAME` runs only the games whose path holds GAME).

use rules::interp::Interp;
use rules::limits::Limits;
use rules::session::{Auto, Session, Until};
use std::path::Path;
use std::time::Instant;

// The allocator the `rules` binary uses, so the figures are the binary's.
#[global_allocator]
static GLOBAL: rules::allocator::Mi = rules::allocator::Mi;

/// Peak resident memory of this process so far, in KiB (Linux; 0 elsewhere).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

/// The bytes of every source file a checked game read.
fn source_bytes(prog: &rules::program::Program) -> usize {
    prog.sources.files.iter().map(|f| f.text.len()).sum()
}

struct Row {
    game: String,
    players: u32,
    games_per_s: f64,
    steps: f64,
    check_ms: f64,
    mb_per_s: f64,
    state_kib: f64,
    rss_first: u64,
    rss_last: u64,
    games: u64,
}

fn bench_game(path: &Path, seconds: f64) -> Option<Row> {
    let limits = Limits::default();
    // Checking, best of 5 (load, parse, check).
    let mut best = f64::MAX;
    let mut prog = None;
    for _ in 0..5 {
        let t = Instant::now();
        let c = rules::check_path(path, &limits);
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(c.errors(), 0, "{}", c.render());
        prog = c.program;
    }
    let prog = prog?;
    if prog.game.round_phases.is_empty() {
        return None;
    }
    let n = rules::default_players(&prog);
    // As `rules bench` plays them: each game starts in the room the last one's zones grew.
    let mut room = Vec::new();
    let mut play = |seed: u64, steps: &mut u64, state: &mut usize| {
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let mut interp = Interp::new(&prog, n, seed, agents, limits).expect("interp");
        interp.record = false;
        interp.reuse_zones(std::mem::take(&mut room));
        if let Err(d) = interp.run() {
            panic!("{}", d.render(&prog.sources));
        }
        *steps += interp.state.steps();
        *state = (*state).max(rules::interp::state_size(&interp.state));
        room = std::mem::take(&mut interp.state.zones);
    };
    // A tenth of the time to size the run, then the run; peak memory after its first tenth
    // and at its end says whether memory grows with the number of games.
    let (mut steps, mut state) = (0u64, 0usize);
    let t = Instant::now();
    let mut probe = 0u64;
    while t.elapsed().as_secs_f64() < seconds / 10.0 {
        play(1_000_000 + probe, &mut steps, &mut state);
        probe += 1;
    }
    let games = (probe * 10).max(10);
    let (mut steps, mut rss_first) = (0u64, 0u64);
    let t = Instant::now();
    for seed in 0..games {
        play(seed, &mut steps, &mut state);
        if seed + 1 == games / 10 {
            rss_first = peak_rss_kib();
        }
    }
    let secs = t.elapsed().as_secs_f64();
    Some(Row {
        game: path.display().to_string(),
        players: n,
        games_per_s: games as f64 / secs,
        steps: steps as f64 / games as f64,
        check_ms: best * 1000.0,
        mb_per_s: source_bytes(&prog) as f64 / 1e6 / best,
        state_kib: state as f64 / 1024.0,
        rss_first,
        rss_last: peak_rss_kib(),
        games,
    })
}

/// The REPL's `:undo` at depth: play up to `choices` choices, then time undo + redo pairs.
fn bench_undo(path: &Path, choices: usize) -> String {
    let c = rules::check_path(path, &Limits::default());
    let Some(prog) = c.program else {
        panic!("{}", c.render())
    };
    let players = rules::default_players(&prog);
    let mut s = Session::new(prog, players, 1, Limits::default()).expect("session");
    s.advance(Until::Choice, Auto::Off);
    let mut made = 0;
    while made < choices {
        let Some(p) = s.pending.clone() else { break };
        s.choose(made % p.options.len()).expect("choose");
        made += 1;
    }
    let rounds = 200;
    let t = Instant::now();
    for _ in 0..rounds {
        assert_eq!(s.undo(1), 1);
        assert!(s.redo());
    }
    let per = t.elapsed().as_secs_f64() / (2 * rounds) as f64;
    format!("| `{}` | {made} | {:.3} ms |", path.display(), per * 1000.0)
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters by game path.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |p: &Path| {
        filter.is_empty()
            || filter
                .iter()
                .any(|f| p.display().to_string().contains(f.as_str()))
    };
    let games: Vec<_> = rules::games_in(Path::new("games"))
        .into_iter()
        .filter(|p| wanted(p))
        .collect();
    println!("| game | players | games/s (one core) | steps/game | check | source read | largest state | peak memory after 1/10 and all games |");
    println!("|---|---|---|---|---|---|---|---|");
    for path in &games {
        if let Some(r) = bench_game(path, 3.0) {
            println!(
                "| `{}` | {} | {:.0} | {:.0} | {:.1} ms | {:.1} MB/s | {:.1} KiB | {} / {} KiB ({} games) |",
                r.game,
                r.players,
                r.games_per_s,
                r.steps,
                r.check_ms,
                r.mb_per_s,
                r.state_kib,
                r.rss_first,
                r.rss_last,
                r.games
            );
        }
    }
    println!();
    println!("| REPL `:undo` and `:redo` | choices made | each |");
    println!("|---|---|---|");
    let deep = [Path::new("benches/long.rules").to_path_buf()]
        .into_iter()
        .chain(games.iter().cloned());
    for path in deep {
        if wanted(&path) || path.starts_with("benches") && filter.is_empty() {
            println!("{}", bench_undo(&path, 500));
        }
    }
}

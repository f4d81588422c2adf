//! `cargo bench`: full random games per second on one core, and the time to check each game.
//! No timing assertions: the figures are printed for the README.

use rules::interp::Interp;
use rules::limits::Limits;
use std::path::Path;
use std::time::Instant;

fn bench_game(path: &str, players: Option<u32>, games: u64) {
    let limits = Limits::default();
    // Checking, best of 5 (load, parse, check).
    let mut best = f64::MAX;
    let mut prog = None;
    for _ in 0..5 {
        let t = Instant::now();
        let c = rules::check_path(Path::new(path), &limits);
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(c.errors(), 0, "{}", c.render());
        prog = c.program;
    }
    let Some(prog) = prog else { return };
    println!("check {path}: {:.2} ms", best * 1000.0);
    let n = players.unwrap_or_else(|| rules::default_players(&prog));
    let t = Instant::now();
    let mut steps = 0u64;
    let mut state_bytes = 0usize;
    for seed in 0..games {
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let mut interp = Interp::new(&prog, n, seed, agents, limits).expect("interp");
        interp.record = false;
        if let Err(d) = interp.run() {
            panic!("{}", d.render(&prog.sources));
        }
        steps += interp.state.steps;
        state_bytes = state_bytes.max(rules::interp::state_size(&interp.state));
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{path}: {games} random {n}-player games in {secs:.3} s = {:.0} games/s on one core, {:.0} steps/game, game state {:.1} KiB",
        games as f64 / secs,
        steps as f64 / games as f64,
        state_bytes as f64 / 1024.0
    );
}

/// The REPL's `:undo` at depth: play `choices` choices by hand, then time undo + redo pairs.
fn bench_undo(path: &str, players: u32, choices: usize) {
    use rules::session::{Auto, Session, Until};
    let c = rules::check_path(Path::new(path), &Limits::default());
    let Some(prog) = c.program else {
        panic!("{}", c.render())
    };
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
    println!(
        "{path}: :undo (and :redo) after {made} choices: {:.3} ms each",
        per * 1000.0
    );
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters by game path.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let games = [
        ("games/the-establishment.rules", Some(4u32), 5000u64),
        ("games/hegemony", Some(15u32), 1000u64),
    ];
    for (path, players, n) in games {
        if filter.is_empty() || filter.iter().any(|f| path.contains(f.as_str())) {
            bench_game(path, players, n);
        }
    }
    if filter.is_empty() || filter.iter().any(|f| "undo".contains(f.as_str())) {
        bench_undo("benches/long.rules", 2, 500);
        bench_undo("games/the-establishment.rules", 4, 70);
    }
}

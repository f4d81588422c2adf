//! `--agent mc:N`: flat Monte Carlo beats random play in every game of `games/` that has a
//! winner, decides the same on one thread or two, and never reads a card hidden from it.

use rules::agent::mc::McAgent;
use rules::agent::{Agent, FirstAgent};
use rules::interp::{Interp, Pos};
use rules::limits::Limits;
use rules::simulate::{self, stats::wilson, GameResult, Plan};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every game of `games/`: a `.rules` file there, or a folder holding `<folder>.rules` (a folder
/// without one is a card set another game imports).
fn games() -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(root().join("games"))
        .expect("games/")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let path = e.path();
            let game = if path.is_dir() {
                path.join(format!("{name}.rules")).is_file()
            } else {
                name.ends_with(".rules")
            };
            game.then(|| format!("games/{name}"))
        })
        .collect();
    found.sort();
    found
}

/// What the test claims of a game.
#[derive(Clone, Copy, PartialEq)]
enum Claim {
    /// mc's win rate has its 95% Wilson interval entirely above the baseline.
    Beats,
    /// No claim, for the reason given: the games are only played (without an error).
    None(&'static str),
}

const HEGEMONY: &str = "a 12-player campaign: too long to play enough of to claim a win rate";

const NO_SCORE: Claim = Claim::None("the game declares no score: nobody wins");

/// How a game is matched: players, playouts per option, seeds per seat, options (`--set`), and
/// the claim. Fewest players the game allows, so mc decides often; few seeds where a game is
/// long. A debug build plays the small match; `--release` the larger one docs/simulate.md
/// quotes. Every claim is a Wilson interval over exactly these games.
struct Match {
    players: u32,
    playouts: u32,
    seeds: u64,
    /// mc takes seats 1 to `seats` in turn (every seat, for a claim).
    seats: u32,
    sets: Vec<String>,
    claim: Claim,
}

fn config(game: &str) -> Match {
    let release = !cfg!(debug_assertions);
    let m = |players, playouts, seeds, seats, sets: &[&str], claim| Match {
        players,
        playouts,
        seeds,
        seats,
        sets: sets.iter().map(|s| s.to_string()).collect(),
        claim,
    };
    const SLOW: Claim = Claim::None(
        "too long a game for a debug build to play enough of; `cargo test --release` claims it",
    );
    match (game, release) {
        ("games/ambition", false) => m(2, 2, 20, 2, &["max_rounds=6"], Claim::Beats),
        ("games/ambition", true) => m(2, 4, 50, 2, &["max_rounds=6"], Claim::Beats),
        ("games/deep-state", false) => m(2, 1, 1, 1, &[], SLOW),
        ("games/deep-state", true) => m(2, 2, 15, 2, &[], Claim::Beats),
        // Each officer's secret agenda is dealt at setup into a var hidden from the others, from
        // cards that lie in no zone: a search deals those entries afresh. The officer an agenda
        // names (`rival`) is chosen in secret at setup and kept all game: too far back to
        // replay, so a search deals it from every player (it used to refuse, naming it).
        ("games/hegemony", _) => m(12, 1, 1, 1, &[], Claim::None(HEGEMONY)),
        ("games/statecraft", false) => m(2, 2, 1, 2, &[], SLOW),
        ("games/statecraft", true) => m(2, 4, 50, 2, &[], Claim::Beats),
        ("games/the-establishment.rules", _) => m(3, 2, 1, 1, &[], NO_SCORE),
        (_, false) => m(2, 2, 10, 2, &[], Claim::Beats),
        (_, true) => m(2, 4, 50, 2, &[], Claim::Beats),
    }
}

fn plan(game: &str, players: u32, agent: String, seeds: u64, sets: &[String]) -> Plan {
    Plan {
        game: root().join(game),
        players,
        games: seeds,
        seed: 1,
        agent,
        sets: sets.to_vec(),
        jobs: 2,
        without: Vec::new(),
        track: false,
    }
}

fn play(p: &Plan) -> Vec<GameResult> {
    let r = simulate::run(p, Limits::default(), &AtomicBool::new(false), &|| {}).expect("runs");
    for g in &r {
        assert_eq!(
            g.error,
            None,
            "{} seed {} ({})",
            p.game.display(),
            g.seed,
            p.agent
        );
    }
    assert_eq!(r.len() as u64, p.games);
    r
}

/// What a match came to: mc's outright wins (a shared win counts nothing), random's wins in the
/// same seats (a shared win counts in full), the games, and per game mc's score minus random's
/// in the same seat and seed.
struct Outcome {
    mc: u64,
    random: u64,
    games: u64,
    score_gain: Vec<f64>,
}

/// Seat by seat, mc in that seat and random elsewhere, against all-random games on the same
/// seeds.
fn match_up(game: &str, m: &Match) -> Outcome {
    let random = play(&plan(game, m.players, "random".into(), m.seeds, &m.sets));
    let mut o = Outcome {
        mc: 0,
        random: 0,
        games: 0,
        score_gain: Vec::new(),
    };
    for seat in 0..m.seats.min(m.players) {
        let agent = format!("P{}=mc:{},random", seat + 1, m.playouts);
        let mc = play(&plan(game, m.players, agent, m.seeds, &m.sets));
        o.mc += mc.iter().filter(|g| g.winners == [seat]).count() as u64;
        o.random += random.iter().filter(|g| g.winners.contains(&seat)).count() as u64;
        o.games += mc.len() as u64;
        for (a, b) in mc.iter().zip(&random) {
            assert_eq!(a.seed, b.seed);
            if let (Some(x), Some(y)) = (a.scores.get(seat as usize), b.scores.get(seat as usize)) {
                o.score_gain.push((x - y) as f64);
            }
        }
    }
    o
}

/// The mean of `xs` and its 95% interval (normal approximation: a paired difference over
/// hundreds of games).
fn mean_interval(xs: &[f64]) -> (f64, f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let half = 1.96 * (var / n).sqrt();
    (mean, mean - half, mean + half)
}

#[test]
fn mc_beats_random_play_in_every_game_with_a_winner() {
    let all = games();
    assert_eq!(all.len(), 5, "{all:?}");
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    for game in &all {
        let m = config(game);
        let t = std::time::Instant::now();
        let o = match_up(game, &m);
        lines.push(format!("{game}: {:.1} s", t.elapsed().as_secs_f64()));
        let (mc, random, games) = (o.mc, o.random, o.games);
        let (low, high) = wilson(mc, games);
        let fair = 1.0 / f64::from(m.players);
        let random_rate = random as f64 / games as f64;
        let baseline = fair.max(random_rate);
        let (gain, gain_low, gain_high) = mean_interval(&o.score_gain);
        let scored = if o.score_gain.is_empty() {
            String::new()
        } else {
            format!("; mc's score minus random's {gain:+.2} ({gain_low:+.2}..{gain_high:+.2})")
        };
        let line = format!(
            "{game} ({} players, mc:{}{}): mc won {mc}/{games} = {:.1}% ({:.1}%..{:.1}%); random in the same seats {random}/{games} = {:.1}%; fair share {:.1}%{scored}",
            m.players,
            m.playouts,
            m.sets.iter().map(|s| format!(", {s}")).collect::<String>(),
            100.0 * mc as f64 / games as f64,
            100.0 * low,
            100.0 * high,
            100.0 * random_rate,
            100.0 * fair
        );
        match m.claim {
            Claim::Beats if low <= baseline => failed.push(line.clone()),
            Claim::Beats => {}
            Claim::None(why) => lines.push(format!("{game}: no claim: {why}")),
        }
        lines.push(line);
    }
    eprintln!("{}", lines.join("\n"));
    assert!(
        failed.is_empty(),
        "mc did not clearly beat random:\n{}",
        failed.join("\n")
    );
}

/// mc in seat 1, random in seat 2, on a fixture of `tests/mc/`: P1's wins, and the searches.
fn p1_with_mc(fixture: &str, games: u64) -> (u64, rules::agent::mc::SearchStats) {
    let results = play(&plan(
        &format!("tests/mc/{fixture}"),
        2,
        "P1=mc:2,random".into(),
        games,
        &[],
    ));
    let wins = results.iter().filter(|g| g.winners == [0]).count() as u64;
    let mut stats = rules::agent::mc::SearchStats::default();
    for g in &results {
        stats.add(&g.search.expect("mc reports its searches"));
    }
    (wins, stats)
}

/// P2 writes a number from 1 to 60 in secret, then shows it, and P1 names its parity. A copy
/// that answers P2's secret choice at random comes back to P1's choice one time in 60; drawn
/// from what the probes found, every copy does, and mc always names the parity it saw.
#[test]
fn mc_finds_copies_where_it_later_saw_a_secret_answer() {
    let (wins, stats) = p1_with_mc("sealed.rules", 40);
    assert_eq!(stats.decisions, 40);
    assert_eq!(stats.fallbacks, 0, "{stats:?}");
    assert_eq!(wins, 40, "{stats:?}");
}

/// P2 writes a number in secret and shows only its parity; P1 guesses whether it is high. What
/// P1 saw says nothing of that, so any player, mc included, wins half the time: a search that
/// leaned on the number as written would win more. Both ways of narrowing are tried: every
/// other answer probed (1 to 12), and a sample of them (1 to 60). Over 400 games a fair coin
/// stays within 3 standard deviations (10 wins) of 200.
#[test]
fn mc_learns_no_more_of_a_secret_answer_than_it_saw() {
    for fixture in ["small-parity.rules", "parity.rules"] {
        let (wins, stats) = p1_with_mc(fixture, 400);
        assert_eq!(stats.fallbacks, 0, "{fixture}: {stats:?}");
        assert!(
            (170..=230).contains(&wins),
            "{fixture}: P1 (mc) won {wins} of 400"
        );
    }
}

/// P2 tosses a coin nobody sees and, on a 2, rolls a die nobody sees; P1 guesses the coin. How
/// often the game drew is not seen, so P1 wins half the time: copies that had to draw as many
/// times as the game did knew the coin after every 2, and P1 won 254 of 400.
#[test]
fn mc_learns_nothing_from_how_often_the_game_drew() {
    let (wins, stats) = p1_with_mc("drawn_again.rules", 400);
    assert_eq!(stats.fallbacks, 0, "{stats:?}");
    assert!((170..=230).contains(&wins), "P1 (mc) won {wins} of 400");
}

/// The game shuffles ten chips in secret, then rolls a die everyone sees, and P1 names its
/// parity. A copy must roll what the table saw: with 48 probes for the game's draws, the
/// shuffle's nine took them all, the roll was drawn uniformly, and 40 games of `mc:2` rejected
/// 545 copies (7 decisions found none); with enough for a replay's draws, every copy fits.
#[test]
fn mc_probes_a_draw_the_table_saw_after_a_shuffle() {
    let (wins, stats) = p1_with_mc("after_a_shuffle.rules", 40);
    every_copy_led_back(&stats, 40);
    assert_eq!(wins, 40, "{stats:?}");
}

/// The searches made `decisions` decisions, and every copy they dealt led back to its choice:
/// none rejected, no decision picked at random for want of one.
fn every_copy_led_back(stats: &rules::agent::mc::SearchStats, decisions: u64) {
    assert_eq!(stats.decisions, decisions, "{stats:?}");
    assert_eq!(stats.fallbacks, 0, "{stats:?}");
    assert_eq!(stats.rejected, 0, "{stats:?}");
}

/// P2 holds four of eight cards, hidden, and the table is told their sum; P1 then guesses
/// whether P2 holds the 8. A copy dealt afresh fits that sum about one time in ten: drawn so,
/// 20 games of `mc:20` rejected 4,609 copies for 353 played, and some decisions ran out of
/// tries. With the chain of copies, a copy dealt afresh that does not fit is followed by a step
/// from the last copy that did (two cards exchanged, or its answers drawn afresh), or that copy
/// again: 750 rejected for 400.
#[test]
fn the_chain_of_copies_rejects_few_where_the_seat_saw_a_sum() {
    let results = play(&plan(
        "tests/mc/told.rules",
        2,
        "P1=mc:20,random".into(),
        20,
        &[],
    ));
    let mut stats = rules::agent::mc::SearchStats::default();
    for g in &results {
        stats.add(&g.search.expect("mc reports its searches"));
    }
    assert_eq!(stats.decisions, 20, "{stats:?}");
    assert_eq!(
        stats.worlds, 400,
        "every decision found its 20 copies: {stats:?}"
    );
    assert!(
        stats.rejected < stats.worlds * 2,
        "fewer than two copies rejected per copy played: {stats:?}"
    );
}

/// P2 shows one of its high cards (or none) from a hidden hand, then P1 keeps a card. Where the
/// card shown stood among P2's options, and whether P2 had a choice at all, depends on cards P1
/// cannot see: a copy replays P2's answer as the card P1 saw, so every copy leads back to P1's
/// choice (replayed by its number, two in three were rejected).
#[test]
fn mc_replays_an_answer_it_saw_as_what_it_saw() {
    let (_, stats) = p1_with_mc("shown.rules", 40);
    every_copy_led_back(&stats, 40);
}

/// P2 shows a card from its hidden hand and takes it back, then P1 plays safe or bets that P2
/// holds it. P1 saw the card go back, so a copy keeps it where it was (as it keeps a card P1
/// knows now) and mc always bets; dealt among the cards P1 does not know, P2 would hold it in 3
/// copies of 13 and mc would play safe.
#[test]
fn mc_keeps_a_card_it_saw_since_the_boundary_where_it_was() {
    let (wins, stats) = p1_with_mc("shown_and_taken_back.rules", 40);
    every_copy_led_back(&stats, 40);
    assert_eq!(wins, 40, "{stats:?}");
}

/// A phase that runs for each of P2's hidden cards, P1 taking or leaving each as it is shown:
/// every item is a segment, so a search replays from the item's start, its copies re-dealing the
/// cards the list is made of. Every copy leads back to the choice and mc never errs.
#[test]
fn mc_searches_from_the_start_of_an_item() {
    let (wins, stats) = p1_with_mc("turns_over_cards.rules", 20);
    every_copy_led_back(&stats, 60);
    assert_eq!(wins, 20, "{stats:?}");
}

#[test]
fn a_simulation_with_mc_is_the_same_on_one_thread_and_on_two() {
    let report = |jobs: &str| {
        let path =
            std::env::temp_dir().join(format!("rules-mc-j{jobs}-{}.json", std::process::id()));
        let p = path.display().to_string();
        let (code, out, err) = common::rules(&[
            "simulate",
            "games/statecraft",
            "--players",
            "2",
            "--games",
            "3",
            "--agent",
            "P1=mc:2,random",
            "--jobs",
            jobs,
            "--json",
            &p,
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let text = std::fs::read_to_string(&path).expect("report");
        std::fs::remove_file(&path).ok();
        text
    };
    let one = report("1");
    assert_eq!(one, report("2"));
    assert!(one.contains("\"agent\": \"P1=mc:2,random\""), "{one}");
}

#[test]
fn mc_specs_are_bounded() {
    use rules::agent::seat_specs;
    assert!(seat_specs("P1=mc:50,random", 2, "random").is_ok());
    assert!(seat_specs("mc:10000", 2, "random").is_ok());
    for bad in [
        "mc:0",
        "mc:10001",
        "mc",
        "mc:",
        "mc:x",
        "mc:-1",
        "P2=mc:99999999999",
    ] {
        let e = seat_specs(bad, 2, "random").expect_err(bad);
        assert!(e.contains("mc"), "{bad}: {e}");
    }
    let (code, _, err) = common::rules(&["run", "games/statecraft", "--agent", "mc:0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1 to 10000"), "{err}");
}

/// Two piles of one hidden card each; P1 takes one and scores its value, P2 the other. Whoever
/// scores more wins: an agent that peeked would always take the better pile.
const PILES: &str = r#"
kind Prize { value: int }
cards Prize (value) {
  gold: 10
  tin: 1
  lead: 2
  iron: 3
}
zone deck: Prize hidden
zone pile: Prize per 1..2 hidden
zone won: Prize per player public
game "Two piles" { players: 2, rounds: 1, round: [pick_pile], score: points }
fn points(p: player) -> int = sum(c in won[p] => c.value)
setup {
  move Prize to deck
  shuffle deck
  draw 1 from deck to pile[1]
  draw 1 from deck to pile[2]
}
phase pick_pile {
  let k = choose(P1, [1, 2], "Which pile?")
  move pile[k] to won[P1]
  move pile[3 - k] to won[P2]
}
"#;

/// P1 (mc) takes a pile, with the two piles' cards swapped or not after setup: its pick.
fn piles_pick(swap: bool) -> (usize, Vec<u32>) {
    let c = rules::check_text("piles.rules", PILES, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let agents: Vec<Box<dyn Agent>> = vec![Box::new(McAgent::new(8, 3)), Box::new(FirstAgent)];
    let mut it = Interp::new(&prog, 2, 3, agents, Limits::default()).expect("interp");
    it.init().expect("init");
    let mut pos = it.step(Pos::Setup).expect("setup");
    if swap {
        let pile = prog
            .zones
            .iter()
            .position(|z| z.name == "pile")
            .expect("pile");
        let base = it.state.zone_base[pile] as usize;
        it.state.zones.swap(base, base + 1);
        for slot in [base, base + 1] {
            for &card in &it.state.zones[slot].clone() {
                it.state.card_zone[card as usize] = slot as u32;
            }
        }
    }
    while pos != Pos::Done {
        pos = it.step(pos).expect("plays");
    }
    let pick = it.choice_log.first().expect("P1 was asked").index;
    (pick, it.outcome.expect("outcome").winners)
}

#[test]
fn mc_never_reads_a_card_hidden_from_it() {
    let (a, winners_a) = piles_pick(false);
    let (b, winners_b) = piles_pick(true);
    // The same pick, though the better pile is the other one in one of the two games.
    assert_eq!(a, b);
    assert_ne!(winners_a, winners_b, "the swap must matter to the result");
}

/// A playout runs inside the choice that started it, on the same stack: a choice at the bottom of
/// the deepest evaluation the limits allow, searched, replays that evaluation on top of itself.
/// It fits the stack `rules` runs a game on (`Limits::STACK_BYTES`).
#[test]
fn a_search_from_the_deepest_evaluation_fits_the_stack() {
    let limits = Limits::default();
    let mut text =
        String::from("game \"G\" {\n players: 2\n rounds: 1\n round: [p]\n score: s\n}\n");
    text.push_str("fn s(p: player) -> int = 0\n");
    let (calls, fns, _) = common::deepest_calls(&limits, "choose(P1, [1, 2], \"deep\")");
    text.push_str(&calls);
    text.push_str(&format!(
        "phase p {{\n  let v = f{fns}()\n  say \"{{v}}\"\n}}\n"
    ));
    let h = std::thread::Builder::new()
        .stack_size(Limits::STACK_BYTES)
        .spawn(move || {
            let c = rules::check_text("deep.rules", &text, &limits);
            assert_eq!(c.errors(), 0, "{}", c.render());
            let prog = c.program.expect("program");
            let agents = rules::agent::make_agents("mc:1", 2, 1).expect("agents");
            let mut i = Interp::new(&prog, 2, 1, agents, limits).expect("interp");
            i.run().map_err(|d| d.message.clone()).expect("runs");
            i.choice_log.len()
        })
        .expect("thread");
    assert_eq!(h.join().expect("no stack overflow"), 1);
}

#[test]
fn the_repl_plays_an_mc_seat_and_replays_its_answer() {
    use rules::session::{Auto, Mode, Session, Stop, Until};
    let c = rules::check_text("piles.rules", PILES, &Limits::default());
    let prog = c.program.expect("program");
    let mut s = Session::new(prog, 2, 3, Limits::default()).expect("session");
    s.modes = vec![Mode::parse("mc:8").expect("mc:8"), Mode::Random];
    assert_eq!(s.modes[0], Mode::Mc(8));
    assert_eq!(s.modes[0].name(), "mc:8");
    s.advance(Until::End, Auto::Off);
    assert_eq!(s.stop, Stop::Done, "{:?}", s.error);
    let first = s.answers().to_vec();
    assert_eq!(first.len(), 1);
    assert_eq!(s.undo(1), 1);
    s.advance(Until::End, Auto::Off);
    assert_eq!(
        s.answers(),
        first.as_slice(),
        "the same position, the same pick"
    );
    assert!(Mode::parse("mc:0").is_none());
}

/// P1 plays safe (a point) or bold (three points, then P2 answers a choice whose labels divide
/// by zero: worked out, they fail).
const BOLD: &str = r#"
var points: int per player = 0
game "Bold" { players: 2, rounds: 1, round: [play], score: score_of }
fn score_of(p: player) -> int = points[p]
fn shown(k: int) -> text = "{10 / k}"
phase play {
  let bold = choose(P1, [false, true], "Bold?")
  if bold {
    set points[P1] = 3
    let k = choose(P2, [0, 1], "Which?", map(k in [0, 1] => shown(k)))
  } else {
    set points[P1] = 1
  }
}
"#;

/// A searching agent that plays each option out once, keeps how each playout ended, and answers
/// the first option.
struct Probe(std::rc::Rc<std::cell::RefCell<Vec<rules::interp::PlayoutEnd>>>);

impl Agent for Probe {
    fn decide(
        &mut self,
        req: &rules::interp::ChoiceRequest,
        _: &dyn Fn(usize) -> String,
    ) -> Result<usize, String> {
        let sp = req.search.ok_or("no position to search")?;
        let mut rng = rules::rng::new_rng(7);
        for option in 0..sp.options() {
            let world = sp.determinise(&mut rng);
            self.0.borrow_mut().push(sp.playout(&world, option, 11).end);
        }
        Ok(0)
    }
    fn searches(&self) -> bool {
        true
    }
}

/// What is shown at a choice is for people: a playout past the choice searched never works a
/// prompt, labels or notes out (nobody sees them, and they cannot change the game), so labels
/// that would fail there do not make the playout an error, which would count as a loss. The
/// real game still works them out (`simulate` stops on them as `run` does).
#[test]
fn a_playout_past_its_choice_works_no_labels_out() {
    use rules::interp::PlayoutEnd;
    let c = rules::check_text("bold.rules", BOLD, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let ends = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let agents: Vec<Box<dyn Agent>> = vec![Box::new(Probe(ends.clone())), Box::new(FirstAgent)];
    let mut it = Interp::new(&prog, 2, 3, agents, Limits::default()).expect("interp");
    it.init().expect("init");
    let mut pos = Pos::Setup;
    while pos != Pos::Done {
        pos = it.step(pos).expect("plays");
    }
    // The real game: P1 played safe, so nobody met the labels.
    assert_eq!(it.outcome.expect("outcome").winners, vec![0]);
    let ends = ends.borrow();
    let scores: Vec<Vec<i64>> = ends
        .iter()
        .map(|e| match e {
            PlayoutEnd::Finished(o) => o.scores.clone(),
            other => panic!("a playout ended {other:?}"),
        })
        .collect();
    // Safe, then bold: P2 was asked past the choice, and its labels were never worked out.
    assert_eq!(scores, vec![vec![1, 0], vec![3, 0]]);
}

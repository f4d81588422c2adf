//! `ismcts:N`: information-set MCTS from the seat's own view. It beats random play from either
//! seat, decides the same way for a seed, never reads a card hidden from it, reads its budget
//! strictly, and `rules bench` reports its decisions per second.

mod common;

use common::rules;
use rules::agent::ismcts::{default_horizon, parse, Budget, Horizon, IsmctsAgent, Spec};
use rules::agent::{Agent, FirstAgent};
use rules::interp::{Interp, Pos};
use rules::limits::Limits;

/// Two games of the race per seating, `--match spec`, as the terminal report prints them.
fn race_match(spec: &str) -> (i32, String, String) {
    rules(&[
        "simulate",
        "tests/simulate/race.rules",
        "--players",
        "2",
        "--games",
        "2",
        "--match",
        spec,
    ])
}

fn report(args: &[&str], name: &str) -> serde_json::Value {
    let path =
        std::env::temp_dir().join(format!("rules-ismcts-{name}-{}.json", std::process::id()));
    let p = path.display().to_string();
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", &p]);
    let (code, out, err) = rules(&all);
    assert_eq!(code, 0, "{out}{err}");
    let r = serde_json::from_str(&std::fs::read_to_string(&path).expect("report")).expect("json");
    let _ = std::fs::remove_file(&path);
    r
}

/// From either seat of the race, `ismcts:25` wins most games against random play (its
/// interval's low end above a fair half).
#[test]
fn ismcts_beats_random_play_from_either_seat() {
    for (seat, spec) in [(0, "P1=ismcts:25,random"), (1, "P2=ismcts:25,random")] {
        let r = report(
            &[
                "tests/simulate/race.rules",
                "--players",
                "2",
                "--games",
                "40",
                "--agent",
                spec,
            ],
            &format!("beats{seat}"),
        );
        let low = r["seats"][seat]["win_rate"]["low"].as_f64().expect("low");
        assert!(low > 0.5, "{spec}: {}", r["seats"]);
        assert!(r["search"]["decisions"].as_u64().expect("decisions") > 0);
        assert_eq!(r["first_player_advantage"], serde_json::Value::Null);
    }
}

/// With N iterations a decision is a function of the position: the same game twice gives the
/// same choice log.
#[test]
fn ismcts_with_iterations_is_deterministic() {
    let dir = std::env::temp_dir().join(format!("rules-ismcts-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut logs = Vec::new();
    for k in 0..2 {
        let log = dir.join(format!("{k}.log")).display().to_string();
        let (code, _, err) = rules(&[
            "run",
            "tests/simulate/race.rules",
            "--players",
            "2",
            "--seed",
            "4",
            "--agent",
            "P1=ismcts:20,random",
            "--log",
            &log,
        ]);
        assert_eq!(code, 0, "{err}");
        logs.push(std::fs::read_to_string(&log).expect("log"));
    }
    assert_eq!(logs[0], logs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ismcts_specs_are_bounded() {
    for bad in [
        "ismcts",
        "ismcts:0",
        "ismcts:5s",
        "ismcts:0ms",
        "ismcts:99999999",
        "ismcts:0x",
        "ismcts:x",
        "ismcts:99999x",
        "ismcts:10:0",
        "ismcts:10:x",
        "ismcts:10:999999",
        "ismcts:10:end:3",
    ] {
        let (code, _, err) = rules(&[
            "simulate",
            "tests/simulate/race.rules",
            "--players",
            "2",
            "--agent",
            bad,
        ]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("ismcts"), "{bad}: {err}");
    }
    let spec = |budget, horizon| Some(Ok(Spec { budget, horizon }));
    let default = Horizon::Default;
    assert_eq!(parse("ismcts:200ms"), spec(Budget::Millis(200), default));
    assert_eq!(parse("ismcts:100"), spec(Budget::Iterations(100), default));
    assert_eq!(parse("ismcts:10x"), spec(Budget::PerOption(10), default));
    assert_eq!(
        parse("ismcts:10x:12"),
        spec(Budget::PerOption(10), Horizon::Choices(12))
    );
    assert_eq!(
        parse("ismcts:100:end"),
        spec(Budget::Iterations(100), Horizon::End)
    );
    // Forty choices, or ten per player where that is more.
    assert_eq!(default_horizon(2), 40);
    assert_eq!(default_horizon(4), 40);
    assert_eq!(default_horizon(12), 120);
}

/// P1 takes 1 point now or 3 at the end; five choices of P2's later, P2 takes 2. Scored where
/// it stands one choice past P1's, taking the point now looks better (1 against 0); played
/// to the end, waiting wins (3 against 2). The horizon decides which the search sees.
const PATIENCE: &str = r#"
game "Patience" { players: 2, rounds: 1, round: [play], score: score_of }
var points: int per player = 0
fn score_of(p: player) -> int = points[p]
phase play {
  let now = choose(P1, [1, 3], "One point now, or three at the end?")
  if now == 1 { set points[P1] += 1 }
  repeat 5 { let x = choose(P2, [1, 2], "Wait") }
  if now == 3 { set points[P1] += 3 }
  set points[P2] += 2
}
"#;

fn patience_pick(horizon: Horizon) -> usize {
    let c = rules::check_text("patience.rules", PATIENCE, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let spec = Spec {
        budget: Budget::Iterations(20),
        horizon,
    };
    let agents: Vec<Box<dyn Agent>> = vec![
        Box::new(IsmctsAgent::with_spec(spec, 1)),
        Box::new(FirstAgent),
    ];
    let mut it = Interp::new(&prog, 2, 1, agents, Limits::default()).expect("interp");
    it.run().expect("plays");
    it.choice_log.first().expect("P1 was asked").index
}

#[test]
fn a_playout_is_scored_where_it_stands_at_its_horizon() {
    assert_eq!(
        patience_pick(Horizon::Choices(1)),
        0,
        "one choice ahead, the point now"
    );
    assert_eq!(
        patience_pick(Horizon::Choices(10)),
        1,
        "past the end, three at the end"
    );
    assert_eq!(
        patience_pick(Horizon::End),
        1,
        "to the end, three at the end"
    );
}

/// `ismcts:Nx` plays about as many games per decision as `mc:N` (N per option), and a match
/// reports each agent's choices searched and playouts per choice, so two agents can be compared
/// at equal cost.
#[test]
fn per_option_budgets_cost_what_mc_costs() {
    let r = report(
        &[
            "tests/simulate/race.rules",
            "--players",
            "2",
            "--games",
            "6",
            "--match",
            "ismcts:6x,mc:6",
        ],
        "perop",
    );
    let each = |i: usize| {
        let e = &r["entrants"][i];
        let d = e["decisions"].as_u64().expect("decisions");
        let p = e["playouts"].as_u64().expect("playouts");
        assert!(d > 0, "{e}");
        p as f64 / d as f64
    };
    let (ismcts, mc) = (each(0), each(1));
    // Two agents in a game with a score: the gap in score per seat, with its interval.
    let gap = &r["score_gap"];
    let (v, lo, hi) = (
        gap["value"].as_f64().expect("gap"),
        gap["low"].as_f64().expect("low"),
        gap["high"].as_f64().expect("high"),
    );
    assert!(lo <= v && v <= hi, "{gap}");
    assert!(mc >= 12.0, "mc:6 plays 6 per option of at least 2: {mc}");
    assert!(
        (ismcts / mc - 1.0).abs() < 0.25,
        "ismcts:6x {ismcts} against mc:6 {mc} playouts per choice"
    );
    let (code, out, err) = race_match("ismcts:3x,mc:3");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("choices searched, ") && out.contains(" playouts each"),
        "{out}"
    );
    assert!(
        out.contains("score per seat, ismcts:3x less mc:3: "),
        "{out}"
    );
}

#[test]
fn bench_reports_decisions_per_second() {
    let (code, out, err) = rules(&[
        "bench",
        "tests/simulate/race.rules",
        "--players",
        "2",
        "--games",
        "3",
        "--agent",
        "ismcts:10",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 `ismcts:10` 2-player games in"), "{out}");
    assert!(
        out.contains("decisions searched: ") && out.contains(" decisions/s "),
        "{out}"
    );
    assert!(
        out.contains(" playouts, ") && out.contains(" per decision;"),
        "{out}"
    );
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

/// P1 (ismcts) takes a pile, with the two piles' cards swapped or not after setup: its pick.
fn piles_pick(swap: bool) -> (usize, Vec<u32>) {
    let c = rules::check_text("piles.rules", PILES, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    let prog = c.program.expect("program");
    let agents: Vec<Box<dyn Agent>> = vec![
        Box::new(IsmctsAgent::new(Budget::Iterations(16), 3)),
        Box::new(FirstAgent),
    ];
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
fn ismcts_never_reads_a_card_hidden_from_it() {
    let (a, winners_a) = piles_pick(false);
    let (b, winners_b) = piles_pick(true);
    assert_eq!(a, b);
    assert_ne!(winners_a, winners_b, "the swap must matter to the result");
}

/// `--skill K`: ismcts:2K against ismcts:K, then 4K against 2K, the stronger seat rotated round
/// the table on the same seeds; its rate is over the games decided, and in Nim the larger
/// budget wins more than its share.
#[test]
fn skill_pits_budgets_with_the_seats_rotated() {
    let r = report(
        &[
            "tests/simulate/race.rules",
            "--players",
            "2",
            "--games",
            "15",
            "--skill",
            "2",
        ],
        "skill",
    );
    let steps = r["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{r}");
    assert_eq!(steps[0]["stronger"], "ismcts:4");
    assert_eq!(steps[0]["weaker"], "ismcts:2");
    assert_eq!(steps[1]["stronger"], "ismcts:8");
    for st in steps {
        assert_eq!(st["games"], 30, "{st}");
        let by: u64 = st["wins_by_seat"]
            .as_array()
            .expect("by seat")
            .iter()
            .map(|x| x.as_u64().expect("wins"))
            .sum();
        assert_eq!(Some(by), st["wins"].as_u64(), "{st}");
    }
    // The rate is over the games decided: a shared win or a game nobody won counts for neither
    // budget (in the race two good players often tie).
    for st in steps {
        let n = |k: &str| st[k].as_u64().expect(k);
        assert_eq!(
            n("decided"),
            n("games") - n("shared_wins") - n("no_winner"),
            "{st}"
        );
        let rate = st["win_rate"]["value"].as_f64().expect("rate");
        assert!(
            (rate - n("wins") as f64 / n("decided") as f64).abs() < 1e-9,
            "{st}"
        );
    }
    let (_, out, _) = rules(&[
        "simulate",
        "tests/simulate/race.rules",
        "--players",
        "2",
        "--games",
        "15",
        "--skill",
        "2",
    ]);
    assert!(out.contains("games decided (30 played, "), "{out}");
    // In Nim a larger budget finds the winning takes more often: each step's rate clearly
    // above a fair half (the race rewards no budget past the smallest: both take 3).
    let nim = report(
        &[
            "tests/simulate/nim.rules",
            "--players",
            "2",
            "--games",
            "100",
            "--skill",
            "8",
        ],
        "skill-nim",
    );
    for st in nim["steps"].as_array().expect("steps") {
        let low = st["win_rate"]["low"].as_f64().expect("low");
        assert!(low > 0.5, "{st}");
    }
}

/// `--match A,B`: the agents rotated over the seats on the same seeds, each agent's games, wins
/// by seat and win rate; the same report on one thread or two.
#[test]
fn match_rotates_the_agents_over_the_seats() {
    let args = |jobs: &'static str| {
        [
            "tests/simulate/race.rules",
            "--players",
            "3",
            "--games",
            "6",
            "--match",
            "ismcts:8,random",
            "--jobs",
            jobs,
        ]
    };
    let r = report(&args("1"), "match1");
    assert_eq!(r, report(&args("2"), "match2"), "--jobs changed the match");
    let seatings = r["seatings"].as_array().expect("seatings");
    assert_eq!(
        seatings,
        &vec![
            serde_json::json!(["ismcts:8", "random", "ismcts:8"]),
            serde_json::json!(["random", "ismcts:8", "random"]),
        ]
    );
    assert_eq!(r["games"], 12, "{r}");
    for e in r["entrants"].as_array().expect("entrants") {
        // Every game has both agents; over the two seatings each fills three seats per seed.
        assert_eq!(e["games"], 12, "{e}");
        assert_eq!(e["seats"], 18, "{e}");
        let fair = e["fair_share"].as_f64().expect("fair share");
        assert!((fair - 0.5).abs() < 1e-9, "{e}");
        let by: u64 = e["wins_by_seat"]
            .as_array()
            .expect("by seat")
            .iter()
            .map(|x| x.as_u64().expect("wins"))
            .sum();
        assert!(by >= e["wins"].as_u64().expect("wins"), "{e}");
    }
    let ismcts = &r["entrants"][0];
    assert_eq!(ismcts["agent"], "ismcts:8");
    assert!(
        ismcts["wins"].as_u64() > r["entrants"][1]["wins"].as_u64(),
        "{r}"
    );
    let (code, out, _) = race_match("first,random");
    assert_eq!(code, 0);
    assert!(
        out.contains("a match of first against random, 2 players, 2 seeds in each of 2 seatings"),
        "{out}"
    );
    assert!(out.contains("seating 2: random, first"), "{out}");
}

#[test]
fn match_specs_are_checked() {
    for (bad, says) in [
        ("random", "names one agent"),
        ("random,random", "named twice"),
        ("P1=mc:2,random", "seats its agents itself"),
        ("mc:0,random", "mc:0"),
    ] {
        let (code, _, err) = rules(&[
            "simulate",
            "tests/simulate/race.rules",
            "--players",
            "2",
            "--match",
            bad,
        ]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains(says), "{bad}: {err}");
    }
    let (code, _, err) = rules(&[
        "simulate",
        "tests/simulate/race.rules",
        "--players",
        "2",
        "--agent",
        "mc:2",
        "--match",
        "mc:2,random",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("leave out --agent"), "{err}");
}

//! Bots written in the rules (`bot Campaigner(me) { prefer ... }`) through the binary: seated
//! by `--agent P1=bot:NAME` in `run`, `simulate` and `bench`, listed by `explain`, refused by
//! name with the game's bots listed, and Statecraft's bot winning well above a random seat.

mod common;

use common::rules;

fn report(extra: &[&str], name: &str) -> serde_json::Value {
    let path = std::env::temp_dir().join(format!("rules-bots-{name}-{}.json", std::process::id()));
    let p = path.display().to_string();
    let mut args = vec!["simulate", "games/statecraft", "--json", &p, "--jobs", "1"];
    args.extend_from_slice(extra);
    let (code, out, err) = rules(&args);
    assert_eq!(code, 0, "{out}{err}");
    let r = serde_json::from_str(&std::fs::read_to_string(&path).expect("report")).expect("json");
    let _ = std::fs::remove_file(&path);
    r
}

fn rate(r: &serde_json::Value, seat: usize, which: &str) -> f64 {
    r["seats"][seat]["win_rate"][which]
        .as_f64()
        .expect("win rate")
}

/// Over the same 60 seeds, no seat of four random players wins half its games; Statecraft's
/// `Campaigner` in seat 1 against three random seats does, and its interval lies above the
/// fair 25%.
#[test]
fn statecraft_campaigner_beats_random_players() {
    let seeds = ["--games", "60", "--seed", "1"];
    let random = report(&seeds, "random");
    for seat in 0..4 {
        assert!(rate(&random, seat, "value") < 0.5, "{random}");
    }
    let mut with_bot = seeds.to_vec();
    with_bot.extend(["--agent", "P1=bot:Campaigner,random"]);
    let bot = report(&with_bot, "bot");
    assert_eq!(bot["errors"], 0, "{bot}");
    assert!(rate(&bot, 0, "value") >= 0.5, "{bot}");
    assert!(rate(&bot, 0, "low") > 0.25, "{bot}");
}

#[test]
fn a_bot_plays_its_seat_in_run_and_bench() {
    let (code, out, err) = rules(&[
        "run",
        "tests/flow/bot_rules.rules",
        "--agent",
        "P1=bot:Greedy,first",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("P1 takes Ace"), "{out}");
    let (code, out, err) = rules(&[
        "bench",
        "games/statecraft",
        "--games",
        "3",
        "--agent",
        "P2=bot:Campaigner,random",
    ]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn an_unknown_bot_is_refused_with_the_games_bots() {
    for cmd in ["run", "simulate", "bench"] {
        let (code, _, err) = rules(&[cmd, "games/statecraft", "--agent", "P2=bot:Campaign"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("no bot `Campaign`; its bots: Campaigner"),
            "{cmd}: {err}"
        );
    }
    let (code, _, err) = rules(&["simulate", "games/ambition", "--agent", "bot:Any"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it declares none"), "{err}");
}

#[test]
fn explain_lists_the_bots_and_help_names_them() {
    let (code, out, err) = rules(&["explain", "games/statecraft"]);
    assert_eq!(code, 0, "{err}");
    let at = out
        .find("Bots (`--agent P2=bot:NAME`):")
        .expect("a bots section");
    assert!(
        out[at..].contains("Campaigner  Claims every supporter"),
        "{out}"
    );
    let (_, help, _) = rules(&["run", "--help"]);
    assert!(help.contains("bot:NAME"), "{help}");
}

//! `--agent` per seat: `P1=human,P2=script:FILE,random`, through the binary.

mod common;

use common::rules;

const GAME: &str = "games/the-establishment.rules";
const LOG: &str = "tests/agents/establishment-3p-seed2.choices";

fn choices(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn each_seat_reading_its_own_lines_of_a_log_replays_the_game() {
    let spec = format!("P1=script:{LOG},P2=script:{LOG},P3=script:{LOG}");
    let out = std::env::temp_dir().join(format!("rules-agents-{}.log", std::process::id()));
    let out_s = out.display().to_string();
    let (code, _, err) = rules(&[
        "run",
        GAME,
        "--players",
        "3",
        "--seed",
        "2",
        "--agent",
        &spec,
        "--log",
        &out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let want = std::fs::read_to_string(LOG).expect("log");
    let got = std::fs::read_to_string(&out).expect("new log");
    assert_eq!(choices(&got), choices(&want));
}

#[test]
fn named_seats_get_their_agent_and_the_last_plain_entry_the_others() {
    // P2 answers `first` everywhere; the others are seeded random.
    let out = std::env::temp_dir().join(format!("rules-agents-first-{}.log", std::process::id()));
    let out_s = out.display().to_string();
    let (code, _, err) = rules(&[
        "run",
        GAME,
        "--players",
        "3",
        "--seed",
        "5",
        "--agent",
        "P2=first,random",
        "--log",
        &out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let log = std::fs::read_to_string(&out).expect("log");
    let p2: Vec<&str> = log.lines().filter(|l| l.starts_with("P2 ")).collect();
    assert!(!p2.is_empty());
    assert!(
        p2.iter().all(|l| l.split_whitespace().nth(1) == Some("1")),
        "{p2:?}"
    );
    let others_not_first = log
        .lines()
        .filter(|l| l.starts_with("P1 ") || l.starts_with("P3 "))
        .any(|l| l.split_whitespace().nth(1) != Some("1"));
    assert!(others_not_first, "P1 and P3 are random, not first");
}

#[test]
fn a_seat_script_skips_the_other_seats_lines() {
    // Three copies of one log, one per seat: each seat reads only its own lines (the others'
    // are skipped), and the game is the logged one.
    let dir = std::env::temp_dir().join(format!("rules-agents-seat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut spec = Vec::new();
    for p in 1..=3 {
        let f = dir.join(format!("p{p}.log"));
        std::fs::copy(LOG, &f).expect("copy");
        spec.push(format!("P{p}=script:{}", f.display()));
    }
    let out = dir.join("out.log");
    let (code, _, err) = rules(&[
        "run",
        GAME,
        "--players",
        "3",
        "--seed",
        "2",
        "--agent",
        &spec.join(","),
        "--log",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let want = std::fs::read_to_string(LOG).expect("log");
    let got = std::fs::read_to_string(&out).expect("new log");
    assert_eq!(choices(&got), choices(&want));
}

#[test]
fn bad_agent_specs_are_usage_errors_that_say_what_to_write() {
    for (spec, says) in [
        ("P9=first", "`P9` is not a seat of this game: use P1 to P3"),
        ("P1=first,P1=random", "`P1` is given two agents"),
        ("P1=wizard", "unknown agent `wizard`"),
        ("P1=first,,random", "has an empty entry"),
        ("X=first", "is not `P<n>=AGENT`"),
    ] {
        let (code, _, err) = rules(&["run", GAME, "--players", "3", "--agent", spec]);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(err.contains(says), "{spec}: {err}");
    }
}

#[test]
fn a_script_that_runs_out_stops_with_a_diagnostic() {
    let short = std::env::temp_dir().join(format!("rules-agents-short-{}.log", std::process::id()));
    std::fs::write(&short, "P1 1 x\n").expect("write");
    let (code, _, err) = rules(&[
        "run",
        GAME,
        "--players",
        "3",
        "--agent",
        &format!("P1=script:{},first", short.display()),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ran out of answers"), "{err}");
}

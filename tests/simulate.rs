//! `rules simulate` through the binary: the report depends on the seeds only, never on the
//! number of worker threads; it counts what the games did.

mod common;

use common::rules;
use std::process::Command;

fn report(game: &str, extra: &[&str], name: &str) -> serde_json::Value {
    let path = std::env::temp_dir().join(format!("rules-sim-{name}-{}.json", std::process::id()));
    let p = path.display().to_string();
    let mut args = vec!["simulate", game, "--json", &p];
    args.extend_from_slice(extra);
    let (code, out, err) = rules(&args);
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("report")).expect("json")
}

#[test]
fn the_report_is_the_same_on_one_thread_and_on_two() {
    let one = report("games/statecraft", &["--games", "40", "--jobs", "1"], "j1");
    let two = report("games/statecraft", &["--games", "40", "--jobs", "2"], "j2");
    assert_eq!(one, two);
    assert_eq!(one["games"], 40);
}

#[test]
fn the_report_counts_every_game_once() {
    let r = report("games/ambition", &["--games", "30", "--seed", "7"], "count");
    let games = r["games"].as_u64().expect("games");
    let wins: u64 = r["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["wins"].as_u64().expect("wins"))
        .sum();
    let shared = r["shared_wins"].as_u64().expect("shared");
    let none = r["no_winner"].as_u64().expect("none");
    let errors = r["errors"].as_u64().expect("errors");
    assert_eq!(wins + shared + none + errors, games, "{r}");
    for s in r["seats"].as_array().expect("seats") {
        let (lo, v, hi) = (
            s["win_rate"]["low"].as_f64().expect("low"),
            s["win_rate"]["value"].as_f64().expect("value"),
            s["win_rate"]["high"].as_f64().expect("high"),
        );
        assert!(lo <= v && v <= hi, "{s}");
    }
    assert_eq!(r["first_seed"], 7);
}

#[test]
fn seats_can_have_their_own_agents_but_no_person_is_asked() {
    let r = report(
        "games/statecraft",
        &["--games", "10", "--agent", "P1=first,random"],
        "seats",
    );
    assert_eq!(r["agent"], "P1=first,random");
    let (code, _, err) = rules(&["simulate", "games/statecraft", "--agent", "P2=human,random"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no people at the keyboard"), "{err}");
}

#[test]
fn a_game_that_stops_on_an_error_is_reported_with_its_seed() {
    let dir = std::env::temp_dir().join(format!("rules-sim-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let game = dir.join("g.rules");
    std::fs::write(
        &game,
        "game \"G\" {\n players: 2\n rounds: 1\n round: [p]\n}\nvar n: int in 0..1 refuse = 0\nphase p { if roll(2) == 1 { set n = 5 } }\n",
    )
    .expect("write");
    let g = game.display().to_string();
    let (code, out, _) = rules(&["simulate", &g, "--games", "20"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("games stopped on an error; the first, seed"),
        "{out}"
    );
}

#[test]
fn until_ci_stops_at_the_first_batch_whose_intervals_are_narrow_enough() {
    let r = report(
        "games/statecraft",
        &["--games", "2000", "--until-ci", "0.17"],
        "ci",
    );
    let games = r["games"].as_u64().expect("games");
    assert!(games.is_multiple_of(200) && games < 2000, "{games}");
    for s in r["seats"].as_array().expect("seats") {
        let w = s["win_rate"]["high"].as_f64().expect("high")
            - s["win_rate"]["low"].as_f64().expect("low");
        assert!(w < 0.17, "{s}");
    }
    assert_eq!(r["interrupted"], false);
    assert_eq!(r["stopped"]["reason"], "until_ci", "{r}");
    assert_eq!(r["stopped"]["width"], 0.17, "{r}");
    let (code, _, err) = rules(&["simulate", "games/statecraft", "--until-ci", "3"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn shards_merge_into_exactly_the_report_of_one_run() {
    let dir = std::env::temp_dir().join(format!("rules-sim-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let d = |n: &str| dir.join(n).display().to_string();
    let whole = d("whole.json");
    let (code, _, err) = rules(&[
        "simulate",
        "games/ambition",
        "--games",
        "23",
        "--seed",
        "5",
        "--json",
        &whole,
    ]);
    assert_eq!(code, 0, "{err}");
    let mut parts = Vec::new();
    for i in 1..=3 {
        let p = d(&format!("part{i}.json"));
        let (code, out, err) = rules(&[
            "simulate",
            "games/ambition",
            "--games",
            "23",
            "--seed",
            "5",
            "--shard",
            &format!("{i}/3"),
            "--json",
            &p,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("shard {i}/3")), "{out}");
        parts.push(p);
    }
    // Given in any order.
    let merged = d("merged.json");
    let (code, _, err) = rules(&[
        "simulate", "merge", &parts[2], &parts[0], &parts[1], "--json", &merged,
    ]);
    assert_eq!(code, 0, "{err}");
    let a = std::fs::read_to_string(&whole).expect("whole");
    let b = std::fs::read_to_string(&merged).expect("merged");
    assert_eq!(a, b);
    // A missing or repeated shard is refused.
    let (code, _, err) = rules(&["simulate", "merge", &parts[0], &parts[1]]);
    assert_eq!(code, 2);
    assert!(err.contains("shard 3/3 is missing"), "{err}");
    let (code, _, err) = rules(&["simulate", "merge", &parts[0], &parts[0], &parts[1]]);
    assert_eq!(code, 2);
    assert!(err.contains("given twice"), "{err}");
}

#[test]
fn impact_replays_the_same_seeds_once_per_card_of_the_kind() {
    let r = report(
        "games/statecraft",
        &["--games", "20", "--impact", "Emergency"],
        "impact",
    );
    let impact = r["impact"].as_array().expect("impact");
    assert_eq!(impact.len(), 4, "one entry per Emergency card: {r}");
    let largest: Vec<f64> = impact
        .iter()
        .map(|i| i["largest"].as_f64().expect("largest").abs())
        .collect();
    assert!(
        largest.windows(2).all(|w| w[0] >= w[1]),
        "largest first: {largest:?}"
    );
    for i in impact {
        for s in i["seats"].as_array().expect("seats") {
            let w = &s["win_rate"];
            let (lo, v, hi) = (
                w["low"].as_f64().unwrap_or(9.0),
                w["value"].as_f64().unwrap_or(9.0),
                w["high"].as_f64().unwrap_or(-9.0),
            );
            assert!(lo <= v && v <= hi, "{s}");
        }
    }
    // Taking a card out by hand gives that card's entry's games.
    let card = impact[0]["card"].as_str().expect("card").to_string();
    let without = report(
        "games/statecraft",
        &["--games", "20", "--without", &format!("@{card}")],
        "without",
    );
    assert_eq!(without["without"], serde_json::json!([card]));
    for (k, d) in impact[0]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .enumerate()
    {
        let rate =
            |r: &serde_json::Value| r["seats"][k]["win_rate"]["value"].as_f64().expect("rate");
        let delta = d["win_rate"]["value"].as_f64().expect("delta");
        assert!((delta - (rate(&without) - rate(&r))).abs() < 1e-12, "{d}");
    }
    let (code, _, err) = rules(&["simulate", "games/statecraft", "--without", "@no_such_card"]);
    assert_eq!(code, 2);
    assert!(err.contains("there is no card `@no_such_card`"), "{err}");
    // Statecraft's basic setup leaves the emergencies out of the deck: no game changes without
    // one, and the report says so rather than reading noise.
    for i in impact {
        assert_eq!(i["changed_games"], 0, "{i}");
        assert_eq!(i["significant"], false, "{i}");
        let verdict = i["verdict"].as_str().expect("verdict");
        assert!(
            verdict.contains("changed no game's outcome in 20 games"),
            "{verdict}"
        );
    }
    let warnings = r["impact_warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{r}");
    let w = warnings[0].as_str().expect("warning");
    assert!(
        w.contains("any of the 4 cards of Emergency changed no game's outcome")
            && w.contains("try --agent ismcts:200"),
        "{w}"
    );
}

/// `--impact FILE`: the cards written in one file; for each, the change of every seat's and
/// group's win rate and mean score with intervals, and a verdict; mean scores in the terminal.
#[test]
fn impact_of_a_file_reads_per_seat_and_group_with_a_verdict() {
    let r = report(
        "games/hegemony",
        &[
            "--games",
            "12",
            "--impact",
            "games/hegemony/final-crises.rules",
        ],
        "impact-file",
    );
    let impact = r["impact"].as_array().expect("impact");
    assert_eq!(impact.len(), 3, "the three final crises: {r}");
    for i in impact {
        assert_eq!(i["seats"].as_array().expect("seats").len(), 15);
        let groups = i["groups"].as_array().expect("groups");
        assert!(
            groups.iter().any(|g| g["seat"] == "faction FactionA")
                && groups.iter().any(|g| g["seat"] == "role MilitaryOfficer"),
            "{groups:?}"
        );
        for d in i["seats"].as_array().expect("seats").iter().chain(groups) {
            let m = &d["mean_score"];
            let (lo, v, hi) = (
                m["low"].as_f64().expect("low"),
                m["value"].as_f64().expect("value"),
                m["high"].as_f64().expect("high"),
            );
            assert!(lo <= v && v <= hi, "{d}");
        }
        assert!(
            i["verdict"].as_str().expect("verdict").starts_with('@'),
            "{i}"
        );
    }
    let (code, out, err) = rules(&[
        "simulate",
        "games/ambition",
        "--games",
        "30",
        "--impact",
        "games/ambition/intrigue.rules",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("      mean score: P"), "{out}");
    assert!(out.contains("      win rate: P"), "{out}");
    let (code, _, err) = rules(&["simulate", "games/ambition", "--impact", "nothing.rules"]);
    assert_eq!(code, 2);
    assert!(err.contains("nor a file of it by that name"), "{err}");
}

/// The HTML report: a page with the summary and an SVG chart per section, which headless
/// Chromium renders without console errors (the screenshot is kept in `target/`).
#[test]
fn the_html_report_holds_its_charts_and_renders() {
    let dir = std::env::temp_dir().join(format!("rules-sim-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let page = dir.join("report.html");
    let (code, _, err) = rules(&[
        "simulate",
        "games/statecraft",
        "--games",
        "30",
        "--impact",
        "Emergency",
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Win rates, length, one score chart per seat, lead over rounds, impact.
    assert_eq!(html.matches("<svg").count(), 1 + 1 + 4 + 1 + 1, "{html}");
    assert_eq!(html.matches("</svg>").count(), 8);
    assert!(html.contains("<h2>Lead over rounds"), "{html}");
    assert!(
        html.contains("bars: P1, P2, P3, P4, left to right"),
        "{html}"
    );
    assert!(html.contains("@market_crash"));
    // Every score chart counts every game.
    assert_eq!(html.matches("(all 30 games)").count(), 1 + 4, "{html}");
    // The summary is tables, not one preformatted block.
    assert!(!html.contains("<pre>"), "{html}");
    assert!(
        html.contains("<table>") && html.contains("<th>win rate</th>"),
        "{html}"
    );
    render(&page, "simulate-report.png");
}

/// Render `page` in headless Chromium (a screenshot kept in `target/`), with no console errors.
/// Without Chromium the page is only checked, except under CI (`CI=true`), where the missing
/// browser fails the test (`.ci/run` installs `chromium chromium-driver`).
fn render(page: &std::path::Path, name: &str) {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok());
    let Some(chromium) = chromium else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but chromium is not installed: .ci/run installs `chromium chromium-driver`"
        );
        eprintln!("chromium is not installed: the page was checked, not rendered");
        return;
    };
    // Kept under the repository's `target/` (made if the build went elsewhere, CARGO_TARGET_DIR).
    let shot = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join(name);
    if let Some(dir) = shot.parent() {
        std::fs::create_dir_all(dir).expect("target directory");
    }
    let _ = std::fs::remove_file(&shot);
    let profile = std::env::temp_dir().join(format!(
        "rules-chromium-{}-{}",
        std::process::id(),
        name.trim_end_matches(".png")
    ));
    let _ = std::fs::remove_dir_all(&profile);
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.display()),
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1000,3000",
            &format!("--screenshot={}", shot.display()),
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(shot.exists(), "no screenshot: {log}");
    assert!(!log.contains("CONSOLE"), "console messages: {log}");
}

/// A game without a score: no empty win-rate chart, and the page says why.
#[test]
fn a_game_without_a_score_draws_no_win_rate_chart() {
    let dir = std::env::temp_dir().join(format!("rules-sim-noscore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let page = dir.join("report.html");
    let (code, _, err) = rules(&[
        "simulate",
        "games/the-establishment.rules",
        "--games",
        "6",
        "--players",
        "4",
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(!html.contains("Win rate per seat"), "{html}");
    assert!(html.contains("there is no win-rate chart"), "{html}");
    // Only the length chart.
    assert_eq!(html.matches("<svg").count(), 1, "{html}");
    assert!(
        html.contains("Game length in choices (all 6 games)"),
        "{html}"
    );
    render(&page, "simulate-report-no-score.png");
}

/// The summary's corners: seeds as played, why the run stopped, the first player's advantage
/// only when every seat plays the same agent, a solo game as solo.
#[test]
fn the_summary_is_right_in_its_corners() {
    let (code, out, err) = rules(&[
        "simulate",
        "games/statecraft",
        "--games",
        "12",
        "--seed",
        "7",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("seeds 7 to 18)"), "{out}");
    assert!(
        out.contains("stopped: the 12 games of --games were played"),
        "{out}"
    );
    assert!(out.contains("first player advantage: "), "{out}");
    let r = report(
        "games/statecraft",
        &["--games", "12", "--seed", "7"],
        "corners",
    );
    assert_eq!(r["seeds"], serde_json::json!([7, 18]));
    assert_eq!(r["stopped"]["reason"], "games");
    assert!(r["first_player_advantage"].is_object(), "{r}");
    assert!(r["solo"].is_null(), "{r}");
    assert_eq!(r["fair_share"], 0.25);
    // Different agents per seat: seat 1's rate is its agent's strength, not its seat's.
    let mixed = report(
        "games/statecraft",
        &["--games", "6", "--agent", "P1=first,random"],
        "mixed",
    );
    assert!(mixed["first_player_advantage"].is_null(), "{mixed}");
    let why = mixed["first_player_advantage_omitted"]
        .as_str()
        .expect("why");
    assert!(why.contains("different agents"), "{why}");
    // Deep State solo: P1 against HOC (P2, played by the rules); P3 and P4 sit out.
    let solo = report(
        "games/deep-state",
        &["--games", "4", "--set", "solo=true"],
        "solo",
    );
    assert_eq!(solo["solo"]["seat"], "P1", "{solo}");
    assert_eq!(solo["solo"]["played_by_rules"], serde_json::json!(["P2"]));
    assert_eq!(solo["solo"]["sat_out"], serde_json::json!(["P3", "P4"]));
    assert!(solo["first_player_advantage"].is_null(), "{solo}");
    assert_eq!(solo["fair_share"], 0.5);
    let (code, out, err) = rules(&[
        "simulate",
        "games/deep-state",
        "--games",
        "4",
        "--set",
        "solo=true",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("solo: P1 plays against P2 (played by the rules); P3, P4 sit out"),
        "{out}"
    );
    assert!(!out.contains("\n  P3 "), "{out}");
}

#[test]
fn the_report_says_how_games_ended_who_led_and_how_many_choices_were_forced() {
    // tests/simulate/race.rules: a race that can end three ways; every turn has one forced choice.
    let r = report(
        "tests/simulate/race.rules",
        &["--games", "300", "--players", "2"],
        "race",
    );
    let games = r["games"].as_u64().expect("games");
    let ends = r["ended_by"].as_array().expect("ended_by");
    let reasons: Vec<&str> = ends
        .iter()
        .map(|e| e["reason"].as_str().expect("reason"))
        .collect();
    for want in ["rounds", "end_when", "end_game"] {
        assert!(reasons.contains(&want), "{reasons:?}");
    }
    let total: u64 = ends.iter().map(|e| e["games"].as_u64().expect("n")).sum();
    assert_eq!(total, games, "every game ends one way");
    let counts: Vec<u64> = ends
        .iter()
        .map(|e| e["games"].as_u64().expect("n"))
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "most common first: {counts:?}"
    );
    // One asked choice (3 options) and one forced choice per turn.
    let share = r["single_option_share"].as_f64().expect("share");
    assert!((share - 0.5).abs() < 1e-9, "{share}");
    let leads = &r["leads"];
    assert_eq!(leads["games"].as_u64(), Some(games));
    let by_round = leads["winner_leading"].as_array().expect("by round");
    assert_eq!(by_round.len(), 4, "one entry per round");
    // After the last round's end the sole winner is in front in every game.
    assert_eq!(by_round.last().and_then(|x| x.as_f64()), Some(1.0));
    let frac = leads["decided_fraction_mean"].as_f64().expect("fraction");
    assert!((0.0..1.0).contains(&frac), "{frac}");
    // `groups: [side]`: with two players each side is one seat, so it wins as that seat does.
    let side = &r["groups"][0];
    assert_eq!(side["name"], "side");
    let rows = side["groups"].as_array().expect("groups");
    let row = |g: &str| {
        rows.iter()
            .find(|x| x["group"] == g)
            .unwrap_or_else(|| panic!("no group {g}: {rows:?}"))
    };
    for (g, seat) in [("P1 side", 0), ("P2 side", 1)] {
        assert_eq!(row(g)["games"].as_u64(), Some(games));
        assert_eq!(row(g)["wins"], r["seats"][seat]["wins"]);
        assert_eq!(row(g)["shared_wins"], r["seats"][seat]["shared_wins"]);
    }
    // A game without a score has no leads.
    let e = report(
        "games/the-establishment.rules",
        &["--games", "5", "--players", "4"],
        "nolead",
    );
    assert!(e["leads"].is_null(), "{}", e["leads"]);
}

/// Groups as dealt: a seat's group is the one the game first set (or as `at setup` and `at end`
/// say), so the per-group table agrees with the seats dealt it.
#[test]
fn groups_are_read_as_dealt_unless_the_game_says_when() {
    for (file, winner) in [
        ("first_set", "Red"),
        ("at_setup", "Red"),
        ("at_end", "Blue"),
    ] {
        let r = report(
            &format!("tests/simulate/groups/{file}.rules"),
            &["--games", "6"],
            &format!("groups-{file}"),
        );
        let rows = r["groups"][0]["groups"].as_array().expect("groups");
        let wins = |g: &str| {
            rows.iter()
                .find(|x| x["group"] == g)
                .and_then(|x| x["wins"].as_u64())
                .unwrap_or_else(|| panic!("{file}: no group {g}: {rows:?}"))
        };
        assert_eq!(wins(winner), 6, "{file}: {rows:?}");
        assert_eq!(r["seats"][0]["wins"], 6, "{file}");
    }
    // Hegemony: the roles dealt at setup, not those left after the final session moved officers
    // into the Hegemony. The Military officers sit at P2, P7 and P12, the Leaders at P1, P6, P11.
    let r = report("games/hegemony", &["--games", "12"], "groups-hegemony");
    let seat_wins = |seats: &[usize]| -> u64 {
        seats
            .iter()
            .map(|&k| r["seats"][k]["wins"].as_u64().expect("wins"))
            .sum()
    };
    let roles = r["groups"]
        .as_array()
        .expect("groupings")
        .iter()
        .find(|g| g["name"] == "role")
        .expect("role")["groups"]
        .as_array()
        .expect("roles")
        .clone();
    let role = |name: &str| {
        roles
            .iter()
            .find(|x| x["group"] == name)
            .and_then(|x| x["wins"].as_u64())
            .unwrap_or_else(|| panic!("no role {name}: {roles:?}"))
    };
    assert_eq!(role("MilitaryOfficer"), seat_wins(&[1, 6, 11]), "{roles:?}");
    assert_eq!(role("Leader"), seat_wins(&[0, 5, 10]), "{roles:?}");
}

/// `random` is uniform over the ways to split an allocation, not line by line on what is left:
/// the 15 ways to split 4 among three lines come out alike (line by line, `[4, 0, 0]` would come
/// a fifth of the time, 600 of 3000).
#[test]
fn random_splits_an_allocation_uniformly_over_the_ways() {
    let r = report(
        "tests/simulate/allocate.rules",
        &["--games", "3000"],
        "allocate",
    );
    let rows = r["groups"][0]["groups"].as_array().expect("groups");
    assert_eq!(rows.len(), 15, "{rows:?}");
    for row in rows {
        let n = row["games"].as_u64().expect("games");
        assert!((140..265).contains(&n), "{row}");
    }
}

/// A game's own figures (`figures:`): a count added up over the games, and so many of so many
/// with a share and its interval; a share that stayed at 0 is a warning that names the agents.
#[test]
fn the_game_s_figures_are_added_up_and_a_share_never_met_is_a_warning() {
    let game = "tests/simulate/figures.rules";
    let r = report(
        game,
        &["--games", "30", "--agent", "first"],
        "figures-first",
    );
    let figures = r["figures"].as_array().expect("figures");
    let by = |name: &str| {
        figures
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no figure {name}: {figures:?}"))
            .clone()
    };
    // Two players, three rounds: six throws a game; `first` always aims at 1.
    let turns = by("turns");
    assert_eq!(turns["total"], 180);
    assert_eq!(turns["games"], 30);
    assert_eq!(turns["of"], serde_json::Value::Null);
    assert_eq!(turns["per_game"]["mean"], 6.0);
    let hits = by("hits");
    assert_eq!(
        (hits["total"].as_i64(), hits["of"].as_i64()),
        (Some(0), Some(180))
    );
    assert_eq!(hits["share"]["value"], 0.0);
    let warnings = r["figure_warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap_or("");
    assert!(
        w.starts_with("hits: 0 of 180 in 30 games under `first` play"),
        "{w}"
    );
    assert!(w.contains("--agent ismcts"), "{w}");
    // Random play aims at 3 about a third of the time: the share's interval holds a third.
    let r = report(game, &["--games", "60"], "figures-random");
    let hits = r["figures"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["name"] == "hits").cloned())
        .expect("hits");
    let (k, n) = (
        hits["total"].as_i64().expect("k"),
        hits["of"].as_i64().expect("n"),
    );
    assert_eq!(n, 360);
    let (lo, hi) = (
        hits["share"]["low"].as_f64().expect("low"),
        hits["share"]["high"].as_f64().expect("high"),
    );
    assert!(k > 0 && lo < 1.0 / 3.0 && 1.0 / 3.0 < hi, "{hits}");
    assert_eq!(r["figure_warnings"].as_array().map(Vec::len), Some(0));
    // The terminal says the same.
    let (code, out, err) = common::rules(&["simulate", game, "--games", "30", "--agent", "first"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("hits: 0 of 180 (0.0%, 95% interval 0.0% .. 2.1%) in 30 games"),
        "{out}"
    );
    assert!(
        out.contains("turns: 180 in 30 games; a game: mean 6.0"),
        "{out}"
    );
    assert!(out.contains("warning: hits: 0 of 180"), "{out}");
}

/// A copy of `games/hegemony` with a group's own card file dropped in (`tests/simulate/homemade/`),
/// as a group would: the game's files are not edited. Returns the folder and the card file.
fn homemade_hegemony(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("rules-sim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    for e in std::fs::read_dir("games/hegemony").expect("hegemony") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "rules") {
            std::fs::copy(&p, dir.join(p.file_name().expect("name"))).expect("copy");
        }
    }
    let ours = dir.join("our-cards.rules");
    std::fs::copy("tests/simulate/homemade/our-cards.rules", &ours).expect("copy");
    (dir, ours)
}

/// `--impact` on a group's own Hegemony cards: the overpowered crisis and technology come first
/// in the exposure and are marked significant, the ordinary session-1 crisis is not; each card
/// entered play (the technology, listed on no table, is drawn on its tier's table); ablation
/// compares each card with a placebo of its kind, played from outside the file.
#[test]
fn homemade_cards_are_judged_by_exposure_and_against_a_placebo() {
    let (dir, ours) = homemade_hegemony("homemade");
    // The technology on no table is said before anyone plays: drawn on its tier's table.
    let (code, out, err) = rules(&["check", &dir.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        format!("{out}{err}")
            .contains("`Orbital Foundry` is on no draw table: it is drawn on the Simple table"),
        "{out}{err}"
    );
    let r = report(
        &dir.display().to_string(),
        &[
            "--games",
            "200",
            "--jobs",
            "2",
            "--impact",
            &ours.display().to_string(),
        ],
        "homemade",
    );
    let ex = r["exposure"].as_array().expect("exposure");
    let cards: Vec<&str> = ex
        .iter()
        .map(|e| e["card"].as_str().expect("card"))
        .collect();
    assert_eq!(cards.len(), 3, "{cards:?}");
    let mut first: Vec<&str> = cards[..2].to_vec();
    first.sort_unstable();
    assert_eq!(first, ["comet_strike", "orbital_foundry"], "{ex:?}");
    for e in &ex[..2] {
        assert_eq!(e["significant"], true, "{e}");
        assert!(e["entered"].as_u64().expect("entered") > 0, "{e}");
    }
    assert_eq!(ex[2]["card"], "stray_satellite");
    assert_eq!(ex[2]["significant"], false, "{}", ex[2]);
    let comet = ex
        .iter()
        .find(|e| e["card"] == "comet_strike")
        .expect("comet");
    let verdict = comet["verdict"].as_str().expect("verdict");
    assert!(
        verdict
            .starts_with("Comet Strike (@comet_strike): the faction that gets it is in hegemony")
            && verdict.ends_with("strong (entered play in 95 of 200 games)"),
        "{verdict}"
    );
    // Ablation against a placebo of each kind, an ordinary card from outside the file.
    let placebos: Vec<&str> = r["placebos"]
        .as_array()
        .expect("placebos")
        .iter()
        .map(|p| p["card"].as_str().expect("card"))
        .collect();
    assert_eq!(placebos.len(), 2, "a crisis and a technology: {placebos:?}");
    for i in r["impact"].as_array().expect("impact") {
        let against = i["against"].as_str().expect("against a placebo");
        assert!(placebos.iter().any(|p| format!("@{p}") == against), "{i}");
        assert!(i["entered"].as_u64().expect("entered") > 0, "{i}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Exposure and the placebos depend on the seeds only, never on the number of threads.
#[test]
fn exposure_is_the_same_on_one_thread_and_on_two() {
    let (dir, ours) = homemade_hegemony("exposure-jobs");
    let game = dir.display().to_string();
    let ours = ours.display().to_string();
    let run = |jobs: &str, name: &str| {
        report(
            &game,
            &["--games", "16", "--jobs", jobs, "--impact", &ours],
            name,
        )
    };
    let (one, two) = (run("1", "exposure-j1"), run("2", "exposure-j2"));
    assert_eq!(one, two);
    assert_eq!(one["exposure"].as_array().expect("exposure").len(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

/// A technology lies in no zone: `--without` takes it off the draw tables (a rank that drew it
/// draws again), so games where it would have been drawn change. A card the rules' code names
/// cannot be taken out entirely, and the report says so for that card.
#[test]
fn a_card_on_a_draw_table_can_be_taken_out() {
    let plain = report("games/hegemony", &["--games", "40"], "plain-tech");
    let without = report(
        "games/hegemony",
        &["--games", "40", "--without", "@bug_guns"],
        "without-tech",
    );
    assert_eq!(without["errors"], 0, "{without}");
    assert_ne!(plain["seats"], without["seats"]);
    assert_eq!(without["not_removable"], serde_json::json!([]));
    let named = report(
        "games/hegemony",
        &["--games", "2", "--without", "@gift_table"],
        "without-named",
    );
    let why = &named["not_removable"][0];
    assert_eq!(why[0], "gift_table", "{named}");
    assert!(
        why[1]
            .as_str()
            .expect("why")
            .starts_with("the rules name it in their code (games/hegemony/hegemony.rules:"),
        "{why}"
    );
}

/// In a match, a seat's own worth cancels out of the score gap: each seed's gaps are averaged
/// over both seatings (the same deal, each agent in each seat) before the interval is taken over
/// the seeds. tests/simulate/seat_worth.rules gives P1 ten points: per game the gap is about
/// +-10, per seed only the picks are left (`random` picks 2 half the time, `first` never).
#[test]
fn a_match_s_score_gap_is_paired_by_seed_so_the_seat_cancels() {
    let game = "tests/simulate/seat_worth.rules";
    let r = report(
        game,
        &["--match", "random,first", "--games", "30", "--jobs", "2"],
        "paired",
    );
    let gap = &r["score_gap"];
    let (v, lo, hi) = (
        gap["value"].as_f64().expect("gap"),
        gap["low"].as_f64().expect("low"),
        gap["high"].as_f64().expect("high"),
    );
    assert_eq!(r["score_gap_seeds"], 30, "{r}");
    assert_eq!(r["score_gap_paired"], 30, "{r}");
    assert!(lo <= v && v <= hi, "{gap}");
    // Per game the gaps are +9..+10 and -11..-10: unpaired, their interval would be about 7
    // points wide. Paired, it is the picks' alone.
    assert!(hi - lo < 1.0, "{gap}");
    assert!(
        (0.2..0.8).contains(&v),
        "random less first is about +0.5: {gap}"
    );
    assert!(
        lo > 0.0,
        "random scores more, and the interval says so: {gap}"
    );
    let (code, out, err) = rules(&["simulate", game, "--match", "random,first", "--games", "30"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("per seed, both seatings (30 seeds): random scores more"),
        "{out}"
    );
}

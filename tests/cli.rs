//! The `rules` binary, run as a user would run it.

mod common;

use common::rules;
use std::process::Command;

#[test]
fn check_is_clean_on_the_game() {
    let (code, out, err) = rules(&["check", "games/the-establishment.rules"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
}

#[test]
fn check_fails_with_diagnostics_and_exit_1() {
    let (code, _, err) = rules(&["check", "tests/broken/unknown_realm.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("Elit"), "{err}");
    assert!(err.contains("did you mean"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(rules(&["check"]).0, 2);
    assert_eq!(rules(&["frobnicate"]).0, 2);
    assert_eq!(rules(&["check", "no/such/file.rules"]).0, 2);
    let (code, _, err) = rules(&["run", "games/the-establishment.rules", "--agent", "psychic"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown agent"), "{err}");
}

#[test]
fn a_player_count_the_game_does_not_allow_is_a_clear_error() {
    let (code, _, err) = rules(&["run", "games/the-establishment.rules", "--players", "7"]);
    assert_eq!(code, 2);
    assert!(err.contains("3 to 5 players, not 7"), "{err}");
}

#[test]
fn run_prints_an_account_of_the_game() {
    let (code, out, err) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--players",
        "4",
        "--seed",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "=== Round 1 ===",
        "=== Round 4 ===",
        "Society:",
        "rating",
        "wins; pull card #",
        "Epilogue 3:",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn json_is_one_event_per_line() {
    let (code, out, err) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--seed",
        "5",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut kinds = std::collections::BTreeSet::new();
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        kinds.insert(v["event"].as_str().unwrap_or("").to_string());
    }
    for k in [
        "start", "round", "phase", "choice", "say", "move", "shuffle", "end",
    ] {
        assert!(kinds.contains(k), "no {k} event");
    }
}

#[test]
fn a_log_replays_the_same_game() {
    let dir = std::env::temp_dir();
    let log = dir.join(format!("rules-cli-log-{}.txt", std::process::id()));
    let log_s = log.to_str().unwrap();
    let (c1, first, _) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--seed",
        "8",
        "--json",
        "--log",
        log_s,
    ]);
    assert_eq!(c1, 0);
    let script = format!("script:{log_s}");
    let (c2, second, err) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--seed",
        "8",
        "--json",
        "--agent",
        &script,
    ]);
    assert_eq!(c2, 0, "{err}");
    assert_eq!(first, second);
    // A script that runs out is a clear error.
    std::fs::write(&log, "P1 1\n").unwrap();
    let (c3, _, err) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--seed",
        "8",
        "--agent",
        &script,
    ]);
    assert_eq!(c3, 1);
    assert!(err.contains("ran out of answers"), "{err}");
    std::fs::remove_file(&log).ok();
}

#[test]
fn cards_lists_a_kind_as_a_table() {
    let (code, out, err) = rules(&[
        "cards",
        "games/the-establishment.rules",
        "--kind",
        "SocietyCard",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("SocietyCard (16 cards)"), "{out}");
    assert!(
        out.contains("@soc1")
            && out.contains("Backlash against privilege")
            && out.contains("NotOpposite"),
        "{out}"
    );
    let (code, _, err) = rules(&[
        "cards",
        "games/the-establishment.rules",
        "--kind",
        "Societycard",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `SocietyCard`?"), "{err}");
}

#[test]
fn a_new_card_file_dropped_into_a_game_folder_is_checked_and_played() {
    let dir = std::env::temp_dir().join(format!("rules-dropin-{}", std::process::id()));
    let game = dir.join("hegemony");
    std::fs::create_dir_all(&game).unwrap();
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/games/hegemony")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, game.join(p.file_name().unwrap())).unwrap();
    }
    // A group's own crisis, dropped in: no rebuilding.
    std::fs::write(
        game.join("our-crises.rules"),
        "# Our own crisis, with a penalty the rules have never seen: code of its own.\n\
         card Crisis our_locusts { name: \"Locust Cloud\", needs: [(Domestic, 9)], \
         turning_point: table { 1..3: [], 4..6: [(Research, 2)] }, reward: 1, \
         penalty: fn(f) { set bank[f] = 0; say \"  Locusts strip {f}: its bank is empty\" } }\n",
    )
    .unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = rules(&["check", g]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
    let (_, cards, _) = rules(&["cards", g, "--kind", "Crisis"]);
    assert!(cards.contains("Locust Cloud"), "{cards}");
    let played = (1..40).any(|seed| {
        let (code, out, _) = rules(&["run", g, "--seed", &seed.to_string()]);
        code == 0 && out.contains("Locust Cloud") && out.contains("Locusts strip")
    });
    assert!(
        played,
        "the new crisis and its own penalty never came up in 40 campaigns"
    );
    // A broken one is caught, located in the new file.
    std::fs::write(
        game.join("our-crises.rules"),
        "card Crisis our_locusts { name: \"Locust Cloud\", needs: [(Domestic, 2)], \
         turning_point: table { 1..3: [], 5..6: [(Research, 2)] } }\n",
    )
    .unwrap();
    let (code, _, err) = rules(&["check", g]);
    assert_eq!(code, 1);
    assert!(
        err.contains("our-crises.rules") && err.contains("does not cover die faces 4"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_folder_of_games_is_checked_one_game_at_a_time() {
    let (code, out, err) = rules(&["check", "games"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("games/the-establishment.rules: ok"), "{out}");
    assert!(out.contains("games/hegemony: ok"), "{out}");
}

#[test]
fn set_changes_a_game_option_for_run_and_bench() {
    let game = "tests/flow/options_default.rules";
    let (code, out, err) = rules(&["run", game, "--set", "solo=true", "--set", "hand=5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("solo true, hand 5, mode Short"), "{out}");
    let (code, out, err) = rules(&["run", game]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("solo false, hand 2, mode Short"), "{out}");
    let (code, _, err) = rules(&["bench", game, "--games", "3", "--set", "mode=Long"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_unknown_option_or_a_bad_value_is_a_usage_error_naming_the_options() {
    let game = "tests/flow/options_default.rules";
    for cmd in ["run", "bench", "repl"] {
        let (code, _, err) = rules(&[cmd, game, "--set", "sollo=true"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("unknown option `sollo`"), "{cmd}: {err}");
        assert!(err.contains("solo: bool = false"), "{cmd}: {err}");
        assert!(err.contains("hand: int in 1..5 = 2"), "{cmd}: {err}");
    }
    let (code, _, err) = rules(&["run", game, "--set", "hand=9"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`9` is not a value of option `hand`, which is int in 1..5"),
        "{err}"
    );
    let (code, _, err) = rules(&["run", game, "--set", "mode=Medium"]);
    assert_eq!(code, 2);
    assert!(err.contains("Mode (Short, Long)"), "{err}");
    let (code, _, err) = rules(&["run", "games/the-establishment.rules", "--set", "solo=true"]);
    assert_eq!(code, 2);
    assert!(err.contains("this game has no options"), "{err}");
}

#[test]
fn check_lists_a_games_options() {
    let (code, out, err) = rules(&["check", "tests/flow/options_default.rules"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("option solo: bool = false"), "{out}");
    assert!(out.contains("option hand: int in 1..5 = 2"), "{out}");
    assert!(
        out.contains("option mode: Mode (Short, Long) = Short"),
        "{out}"
    );
}

#[test]
fn a_log_names_the_options_it_was_played_with() {
    let dir = std::env::temp_dir().join(format!("rules-options-log-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let log = dir.join("game.log");
    let log_arg = log.display().to_string();
    let game = "tests/flow/options_default.rules";
    let (code, _, err) = rules(&["run", game, "--set", "solo=true", "--log", &log_arg]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("# options: solo=true"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_checks_the_player_count_before_building_anything() {
    let (code, _, err) = rules(&[
        "bench",
        "games/hegemony",
        "--players",
        "4294967295",
        "--games",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("played by 12 to 21 players"), "{err}");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(["run", "games/hegemony", "--seed", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("some output");
    // The reader is gone: the next write finds the pipe closed.
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}

#[test]
fn a_choice_log_must_be_a_regular_file_of_bounded_size() {
    let (code, _, err) = rules(&[
        "run",
        "games/the-establishment.rules",
        "--agent",
        "script:/dev/zero",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let big = std::env::temp_dir().join(format!("rules-big-log-{}", std::process::id()));
    let f = std::fs::File::create(&big).expect("create");
    f.set_len(1 << 30).expect("a sparse 1 GiB file");
    let arg = format!("script:{}", big.display());
    let (code, _, err) = rules(&["run", "games/the-establishment.rules", "--agent", &arg]);
    std::fs::remove_file(&big).ok();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("larger than"), "{err}");
}

#[test]
fn homemade_statecraft_cards_dropped_in_are_checked_and_played() {
    let dir = std::env::temp_dir().join(format!("rules-statecraft-{}", std::process::id()));
    let game = dir.join("statecraft");
    std::fs::create_dir_all(&game).unwrap();
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/games/statecraft")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, game.join(p.file_name().unwrap())).unwrap();
    }
    // A group's own scenario and event, with code the rules have never seen.
    std::fs::write(
        game.join("our-cards.rules"),
        "card Scenario our_snap_poll { name: \"Snap Poll\", end: AfterTurns, turns: 3, win: MostExtreme, \
         recruit_draw: 2, supporters: 5, text: \"Everyone starts at 2 Anarchism.\", \
         at_start: fn() { for p in players { set ideology[p, Anarchism] = 2 } } }\n\
         card Event our_heckler { name: \"Heckler\", option_a: \"Shout back\", \
         a: fn(p) { say \"  {p} shouts back at the heckler\" }, option_b: \"Ignore\", b: fn(p) = none }\n",
    )
    .unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = rules(&["check", g]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
    // By name: Culture War, Democratic Election, Grand Coalition, Landslide, One-Party State, Snap Poll.
    let scenario = "scenario_no=6";
    let (code, out, err) = rules(&[
        "run",
        g,
        "--seed",
        "1",
        "--set",
        "setup=Advanced",
        "--set",
        scenario,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Scenario: Snap Poll"), "{out}");
    let heckled = (1..30).any(|seed| {
        let (code, out, _) = rules(&[
            "run",
            g,
            "--seed",
            &seed.to_string(),
            "--set",
            "setup=Advanced",
            "--set",
            "events=3",
        ]);
        code == 0 && out.contains("Event: Heckler")
    });
    assert!(heckled, "the homemade event never came up in 30 games");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_syntax_error_in_one_file_is_the_only_error_reported() {
    let dir = std::env::temp_dir().join(format!("rules-cascade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The rules file has one slip (`let where`: `where` is a keyword); the card file uses the
    // names the rules file declares, which must not be reported as unknown.
    std::fs::write(
        dir.join("rules.rules"),
        "game \"G\" { players: 2, rounds: 1, round: [p] }\nvar score: int per player = 0\n\
         fn gain(q: player) { set score[q] += 1 }\nphase p { let where = 1 }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("cards.rules"),
        "kind K { name: text, effect: fn(q: player) }\ncard K a { name: \"A\", effect: fn(q) { gain(q) } }\n",
    )
    .unwrap();
    let (code, _, err) = rules(&["check", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches('×').count(), 1, "{err}");
    assert!(err.contains("syntax error"), "{err}");
}

#[test]
fn deny_warnings_makes_warnings_fail_the_check() {
    let warns = "tests/warnings/rank_table_one_and_ace.rules";
    let (code, out, _) = rules(&["check", warns]);
    assert_eq!(code, 0);
    assert!(out.contains("1 warning)"), "{out}");
    let (code, _, err) = rules(&["check", warns, "--deny-warnings"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("denied by --deny-warnings"), "{err}");
    let (_, out, _) = rules(&["check", "tests/examples/language/fits_refused_moves.rules"]);
    assert!(out.contains("ok (1 file, 0 cards"), "{out}");
    // Hegemony's authors acknowledged its warnings with `allow`: nothing is printed.
    let (code, out, err) = rules(&["check", "games/hegemony", "--deny-warnings"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    assert!(out.contains("ok (11 files"), "{out}"); // bots.rules is the tenth, reveal.rules the eleventh
}

#[test]
fn a_homemade_intrigue_card_dropped_into_ambition_is_checked_and_played() {
    let dir = std::env::temp_dir().join(format!("rules-ambition-dropin-{}", std::process::id()));
    let game = dir.join("ambition");
    std::fs::create_dir_all(&game).unwrap();
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/games/ambition")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, game.join(p.file_name().unwrap())).unwrap();
    }
    // A group's own intrigue card, with an effect the rules have never seen: code of its own.
    std::fs::write(
        game.join("our-intrigue.rules"),
        "# Our own intrigue card: every other player pays its player 2.\n\
         cards Intrigue (name, at_once, effect) {\n  \
           3 x tribute: \"Tribute\", true, fn(p) {\n    \
             for q in filter(q in players where q != p) { set currency[q] -= 2; set currency[p] += 2 }\n    \
             say \"  Tribute: the others pay {p} 2 each\"\n  \
           }\n\
         }\n",
    )
    .unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = rules(&["check", g]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
    let (_, cards, _) = rules(&["cards", g, "--kind", "Intrigue"]);
    assert!(cards.contains("Tribute"), "{cards}");
    let played = (1..40).any(|seed| {
        let (code, out, _) = rules(&["run", g, "--seed", &seed.to_string()]);
        code == 0 && out.contains("plays Tribute") && out.contains("the others pay")
    });
    assert!(played, "the new intrigue card never came up in 40 games");
    // A broken one is caught, located in the new file.
    std::fs::write(
        game.join("our-intrigue.rules"),
        "card Intrigue tribute { name: \"Tribute\", sort: NuclearArms, at_once: true }\n",
    )
    .unwrap();
    let (code, _, err) = rules(&["check", g]);
    assert_eq!(code, 1);
    assert!(
        err.contains("our-intrigue.rules") && err.contains("cannot be played at once"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_homemade_deep_state_treaty_dropped_into_the_folder_is_checked_and_played() {
    let dir = std::env::temp_dir().join(format!("rules-deepstate-{}", std::process::id()));
    let game = dir.join("deep-state");
    std::fs::create_dir_all(&game).unwrap();
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/games/deep-state")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, game.join(p.file_name().unwrap())).unwrap();
    }
    // A group's own treaty with an effect the rules have never seen: code of its own.
    std::fs::write(
        game.join("our-treaties.rules"),
        "# Our own treaty: anyone with an agent in reserve may make it; it doubles the pool.\n\
         card Treaty our_lodge { name: \"Lodge of the Nine\", family: \"Lodge\", influence: 2, \
         condition: fn(p) = reserve[p] >= 1, \
         immediate: fn(p) { set recruitment[p] += recruitment[p]; say \"  The Lodge doubles {p}'s pool\" } }\n",
    )
    .unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = rules(&["check", g]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ok"), "{out}");
    let (_, cards, _) = rules(&["cards", g, "--kind", "Treaty"]);
    assert!(cards.contains("Lodge of the Nine"), "{cards}");
    let played = (1..20).any(|seed| {
        let (code, out, _) = rules(&["run", g, "--seed", &seed.to_string()]);
        code == 0
            && out.contains("makes the treaty Lodge of the Nine")
            && out.contains("The Lodge doubles")
    });
    assert!(
        played,
        "the new treaty and its own effect never came up in 20 games"
    );
    // A broken one is caught, located in the new file.
    std::fs::write(
        game.join("our-treaties.rules"),
        "card Treaty our_lodge { name: \"Lodge of the Nine\", family: \"Lodge\", \
         condition: fn(p) = reserve[p] }\n",
    )
    .unwrap();
    let (code, _, err) = rules(&["check", g]);
    assert_eq!(code, 1);
    assert!(
        err.contains("our-treaties.rules") && err.contains("must be bool"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `rules bench --profile` counts the steps of each function, phase and the setup. In
/// tests/profile/costs.rules `dear` sums ten calls of `cheap` in each of 2 rounds; a call's step
/// is its caller's, so `cheap` takes none of its own and `dear` those of its sum. The rows come
/// costliest first and add up to the games' steps; functions never called are left out.
#[test]
fn bench_profile_counts_the_steps_of_each_function() {
    let (code, out, err) = rules(&[
        "bench",
        "tests/profile/costs.rules",
        "--games",
        "3",
        "--profile",
    ]);
    assert_eq!(code, 0, "{err}");
    // A row: own steps, share, calls, steps with callees, name.
    let row = |name: &str| -> (usize, Vec<u64>) {
        let (at, line) = out
            .lines()
            .enumerate()
            .find(|(_, l)| l.ends_with(&format!("  {name}")))
            .unwrap_or_else(|| panic!("no row for {name}: {out}"));
        let numbers = line
            .split_whitespace()
            .filter(|w| !w.ends_with('%'))
            .filter_map(|w| w.replace(',', "").parse().ok())
            .collect();
        (at, numbers)
    };
    let (dear, phase, cheap) = (row("dear"), row("phase play"), row("cheap"));
    assert_eq!(dear.1, [120, 6, 120], "{out}");
    assert_eq!(phase.1, [24, 6, 144], "{out}");
    assert_eq!(cheap.1, [0, 66, 0], "{out}");
    assert!(dear.0 < phase.0 && phase.0 < cheap.0, "{out}");
    assert!(out.contains("(48 steps/game)"), "{out}");
    assert!(!out.contains("setup"), "no setup was run: {out}");
    let (code, _, err) = rules(&["bench", "tests/profile/costs.rules", "--check", "--profile"]);
    assert_eq!(code, 2, "{err}");
    // A searching agent's playouts count for the functions they run, each interpreter on its
    // own: the phase that asked the choice is open in the game while the playouts run it again,
    // and each run counts in full.
    let (code, out, err) = rules(&[
        "bench",
        "tests/mc/small-parity.rules",
        "--games",
        "2",
        "--agent",
        "mc:3",
        "--profile",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(the searches' playouts included)"), "{out}");
    let phase: Vec<u64> = out
        .lines()
        .find(|l| l.ends_with("  phase play"))
        .unwrap_or_else(|| panic!("no phase row: {out}"))
        .split_whitespace()
        .filter(|w| !w.ends_with('%'))
        .filter_map(|w| w.replace(',', "").parse().ok())
        .collect();
    assert!(phase.len() == 3 && phase[1] > 2, "{out}");
    assert_eq!(
        phase[0], phase[2],
        "the phase calls no function of its own: {out}"
    );
}

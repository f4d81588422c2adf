//! Card text and how to play, through the command line: `describe` lines and rules text in
//! `rules cards` (a kind, `--wide`, one card), in the options a person is offered, the goal told
//! to the people at the table, `rules explain` for every game in `games/` (snapshots), and a
//! line for every card of the five games.

mod common;

use common::rules;
use rules::limits::Limits;
use rules::value::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const TRICKS: &str = "tests/card_text/tricks.rules";

#[test]
fn cards_show_each_card_line_and_rules_text() {
    let (code, out, err) = rules(&["cards", TRICKS, "--wide"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("tricks_cards", out);
}

#[test]
fn one_card_in_full() {
    let (code, out, err) = rules(&["cards", TRICKS, "@drain"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("tricks_drain", out);
    // Without the `@`, and a card with no rules text.
    let (code, out, err) = rules(&["cards", TRICKS, "blank"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("@blank (Trick)\nBlank (power 0): \n"),
        "{out}"
    );
    let (code, _, err) = rules(&["cards", TRICKS, "@bost"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no card `@bost`") && err.contains("@boost"),
        "{err}"
    );
}

#[test]
fn long_cells_are_cut_short_unless_wide() {
    let full = "Needs a Communists emblem. Each other player without one hands you a Mass Control card (any card if they have none).";
    let (code, out, err) = rules(&["cards", "games/deep-state", "--kind", "Treaty"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains(full) && out.contains("Needs a Communists emblem. Each o…"),
        "{out}"
    );
    // Code columns are left out where the text says what the code does.
    assert!(
        !out.contains("condition") && !out.contains("the code of"),
        "{out}"
    );
    let (code, out, err) = rules(&["cards", "games/deep-state", "--kind", "Treaty", "--wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("CheKa (1 Influence): {full}")),
        "{out}"
    );
}

/// Plays the tricks game with P1 at the keyboard, answering `answers`; gives stdout and stderr.
fn play_tricks(answers: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(["run", TRICKS, "--agent", "P1=human,first"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rules run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answers.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn the_people_at_the_table_are_told_the_goal_and_see_card_lines_in_options() {
    let (out, screen) = play_tricks("3\n");
    assert!(
        screen.starts_with(
            "Goal: Have the most points after one round.\n(`rules explain tests/card_text/tricks.rules` tells how to play)\n"
        ),
        "{screen}"
    );
    assert!(
        screen.contains("    2) Boost (power 2): Gain 2 points.\n")
            && screen.contains("    3) Blank (power 0): \n"),
        "{screen}"
    );
    // The account still names the card; answers may be typed as the start of the line.
    assert!(out.contains("P1: Play a trick -> Blank"), "{out}");
    let (out, _) = play_tricks("boost\n");
    assert!(out.contains("P1: Play a trick -> Boost"), "{out}");
    // Agents alone: nobody is told anything before the account.
    let (code, out, err) = rules(&["run", TRICKS, "--agent", "first"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("Goal") && out.starts_with("== Tricks"),
        "{out}"
    );
}

#[test]
fn explain_the_tricks_game() {
    let (code, out, err) = rules(&["explain", TRICKS]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("tricks_explained", out);
}

#[test]
fn explain_wants_a_game() {
    let (code, out, err) = rules(&["explain", "stdlib/dice.rules"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("this is a library, not a game"), "{err}");
    let (code, _, err) = rules(&["explain", "games"]);
    assert_eq!(code, 2);
    assert!(err.contains("games, not one"), "{err}");
}

#[test]
fn explain_every_game() {
    let games = rules::games_in(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/games")));
    assert!(games.len() >= 5, "{games:?}");
    for g in games {
        let name = g
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("game")
            .to_string();
        let rel = format!(
            "games/{}",
            g.file_name().and_then(|s| s.to_str()).unwrap_or("")
        );
        let (code, out, err) = rules(&["explain", &rel]);
        assert_eq!(code, 0, "{rel}: {err}");
        assert!(!err.contains("warning"), "{rel}: {err}");
        insta::assert_snapshot!(format!("explain_{name}"), out);
    }
}

/// Every card of every game in `games/` reads on one line of its own, and a card that carries
/// code of its own says in words what it does; every game states its goal and summary, and
/// every option and every phase of its round says what it is.
#[test]
fn every_card_of_the_games_has_a_line_and_its_code_has_text() {
    let games = rules::games_in(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/games")));
    let mut cards = 0;
    for g in games {
        let c = rules::check_path(&g, &Limits::default());
        let shown = c.render();
        let prog = c
            .program
            .unwrap_or_else(|| panic!("{}: {shown}", g.display()));
        // The game says how to play.
        assert!(prog.game.goal.is_some(), "{}: no goal", g.display());
        assert!(prog.game.summary.is_some(), "{}: no summary", g.display());
        for o in &prog.options {
            assert!(
                o.doc.is_some(),
                "{}: option `{}` has no doc",
                g.display(),
                o.name
            );
        }
        for &p in &prog.game.round_phases {
            let pd = &prog.phases[p as usize];
            assert!(
                pd.doc.is_some(),
                "{}: phase `{}` has no doc",
                g.display(),
                pd.name
            );
        }
        for (i, cd) in prog.cards.iter().enumerate() {
            let kind = &prog.kinds[cd.kind as usize];
            if kind.name == "TurnCard" || kind.name == "Description" {
                continue; // the turn-order cards of `std/turns.rules`, and plain titles
            }
            let line = prog.card_line(i as u32);
            assert!(
                line.is_some_and(|l| !l.trim().is_empty()),
                "{}: card `{}` of kind {} has no line",
                g.display(),
                cd.id,
                kind.name
            );
            let own_code = cd
                .fields
                .iter()
                .any(|v| matches!(v, Value::Fn(f) if prog.card_of_fn(*f) == Some(i as u32)));
            // A kind without rules text says it all in its line (Statecraft's events name their
            // two options there).
            if own_code && kind.text_field.is_some() {
                assert!(
                    prog.card_text(i as u32).is_some(),
                    "{}: card `{}` has code but no text",
                    g.display(),
                    cd.id
                );
            }
            cards += 1;
        }
    }
    assert!(cards > 400, "only {cards} cards");
}

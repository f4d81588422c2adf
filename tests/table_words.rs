//! Questions and the account in words at the terminal (`rules run --agent P1=human,...`): yes/no
//! questions, a split typed in one line, runs of one-option choices told in one line, costs and
//! wants beside options and on screens, no card ids or tuples, tie-breaks explained, lists never
//! cut. (Hot-seat catch-ups are in `table.rs`; play on a real terminal in `live.rs`.)

mod common;
use common::typed;

#[test]
fn a_yes_no_question_is_asked_and_answered_in_words() {
    // Ambition, seed 1: P1's first question is whether an alliance it proposes is secret.
    let (code, out, err) = typed(
        &[
            "run",
            "games/ambition",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        // `1`: whether to bring a secret alliance to light, asked of every player (none to bring).
        "1\nmaybe\nN\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("P1: Would an alliance you propose now be secret?\n"),
        "{err}"
    );
    assert!(err.contains("\nchoose yes or no> "), "{err}");
    assert!(!err.contains("1) true"), "{err}");
    assert!(
        err.contains("`maybe` is no answer here; type yes or no"),
        "{err}"
    );
    assert!(
        out.contains("  P1: Would an alliance you propose now be secret? -> no"),
        "{out}"
    );
}

#[test]
fn a_split_is_typed_in_one_line_and_an_empty_bank_is_told_in_one() {
    // Hegemony, seed 1: P2 splits its faction's 15 steel in secret, line by line.
    let (code, out, err) = typed(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "1",
            "--agent",
            "P2=human,random",
        ],
        // `1`: the agenda question every officer is asked in secret (P2's names nobody).
        "1\n3, 0 2 1\n1 1 1 1 1 1\n0\n",
    );
    assert_eq!(code, 0, "{err}");
    for line in [
        "how many to Military vs Faction B (15 left) -> 3 (secret: only you see this)",
        "how many to Military vs Faction C (12 left) -> 0 (secret: only you see this)",
        "how many to Foreign Affairs vs Faction B (12 left) -> 2 (secret: only you see this)",
        "how many to Foreign Affairs vs Faction C (10 left) -> 1 (secret: only you see this)",
        "how many to Domestic vs Faction B (9 left) -> 0 (secret: only you see this)",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(
        err.contains("(or several in a row: this line and up to 8 after it"),
        "{err}"
    );
    // More amounts than lines are refused, saying how many lines there are.
    assert!(
        err.contains("6 amounts, for 5 lines to split here"),
        "{err}"
    );
    // The screen is shown once for the split, not again for each line (and once before, for
    // the agenda question).
    let split = err.split("agenda name?").nth(1).unwrap_or("");
    assert_eq!(split.matches("--- what P2 sees").count(), 1, "{err}");
    // Seed 3: P2's bank is empty in two phases. Each split is asked once (the person is at the
    // keyboard: nobody learns whether they had a choice), and told in one line.
    let (code, out, err) = typed(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "3",
            "--agent",
            "P2=human,random",
        ],
        &"#1\n".repeat(800),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  P2: Planning phase: split the bank's 0 steel: 9 questions with one answer each -> 0 each (secret: only you see this)"),
        "{out}"
    );
    assert!(!out.contains("(0 left) ->"), "{out}");
    assert!(err.contains("choose 0 (Enter takes it)> "), "{err}");
    assert_eq!(err.matches("(0 left)").count(), 2, "{err}");
}

#[test]
fn deep_states_advance_says_its_cost_before_it_is_chosen() {
    // Deep State, seed 1: P1 advances whenever it may, in the Deep State Project when it can.
    let (code, _, err) = typed(
        &[
            "run",
            "games/deep-state",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        &"deep state\nadvance\n#1\n".repeat(300),
    );
    assert_eq!(code, 0, "{err}");
    // The notes beside the options, as one text (they wrap under the option).
    let words = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("3) Advance Unified Nations to Peace Initiatives I: costs 1 agent(s), 1 of them its Shady Coordinator; Deep State Project to Secret Societies I: costs 1 agent(s), 1 of them its Shady Coordinator; discard Objectives with 1 Special Interest 4) Recruit"),
        "{err}"
    );
    // The seat's projects in words, not as tuples.
    assert!(
        err.contains("Deep State Project stage 5: Master of the World"),
        "{err}"
    );
    assert!(!err.contains("(Deep State Project, "), "{err}");
}

/// No card id (`@simple_table`) and no tuple or bracketed list (`[(Faction A, 0), ...]`,
/// `(P2, Unity compact)`) in `text`.
fn in_words(text: &str) -> Result<(), String> {
    for line in text.lines() {
        let id = line
            .split('@')
            .skip(1)
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()));
        if id || line.contains("[(") || line.contains("-> (") {
            return Err(line.to_string());
        }
    }
    Ok(())
}

#[test]
fn the_account_names_things_in_words_without_card_ids_or_tuples() {
    for game in ["games/hegemony", "games/ambition"] {
        for seed in ["1", "2", "3"] {
            let (code, out, err) = common::rules(&[
                "run", game, "--seed", seed, "--agent", "random", "--viewer", "all",
            ]);
            assert_eq!(code, 0, "{err}");
            if let Err(line) = in_words(&out) {
                panic!("{game} seed {seed}: `{line}`");
            }
        }
    }
    let (_, out, _) = common::rules(&[
        "run",
        "games/hegemony",
        "--seed",
        "2",
        "--agent",
        "random",
        "--viewer",
        "all",
    ]);
    for line in [
        "Faction A: P1 Leader, P2 Military officer, P3 Foreign officer, P4 Domestic officer, P5 Science officer",
        "Session 1: banks Faction A 15, Faction B 15, Faction C 15; Control Faction A 0, Faction B 2, Faction C 0",
        "Faction A faces the minor crisis Grain Shortage: it needs 3 Domestic",
        "-> a draw from the Simple table (2 Research)",
        "-> Fortify Foreign Affairs against Faction C",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    // The same at the table, and on Hegemony's screen.
    let (code, out, err) = typed(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        &"#1\n".repeat(400),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(in_words(&out), Ok(()));
    assert!(
        err.contains("\nControl       Faction A 0, Faction B 0, Faction C 2\n"),
        "{err}"
    );
}

#[test]
fn statecraft_shows_what_floating_supporters_want_and_explains_a_tie() {
    let (code, _, err) = typed(
        &[
            "run",
            "games/statecraft",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        "#1\n",
    );
    assert_eq!(code, 0, "{err}");
    let words = err.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("Floating Commuters wants Capitalism 1 to 6, Socialism 1 to 6; Veterans wants Authoritarianism at least 2, Anarchism at most 2;"),
        "{err}"
    );
    // Quickplay plays without leader texts: the screen shows none.
    assert!(
        err.contains("\nYour leader      The Tycoon (Treasury)\n"),
        "{err}"
    );
    // Seed 3: P2 and P4 end with one supporter each; P4 holds the incumbent card.
    let (code, out, err) = common::rules(&["run", "games/statecraft", "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("P2, P4 tie with 1; P4 holds the incumbent card, which breaks the tie.\n"),
        "{out}"
    );
    assert!(out.contains("  Winner: P4"), "{out}");
}

#[test]
fn a_long_question_never_hides_a_card_of_the_hand() {
    // The Establishment, seed 1: P1's first question has 24 options; the hand is wrapped whole
    // above it on a 40-line page.
    let (code, _, err) = typed(
        &[
            "run",
            "games/the-establishment.rules",
            "--players",
            "3",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        &"#1\n".repeat(4),
    );
    assert_eq!(code, 0, "{err}");
    let asked = err.find("P1: Place an influencer").expect("asked");
    let before = err.get(..asked).unwrap_or("");
    let screen = before.rsplit("--- what P1 sees").next().unwrap_or("");
    let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        err.contains("   24) Marisol Quint (Politics 3) on row 3, Right"),
        "{err}"
    );
    assert!(
        words.contains("Hand Danai (Transportation 2, up to 2 stars); Ilya Brandt (Law 2, up to 2 stars); Tamsin Okoro (Media 1, up to 2 stars); Marisol Quint (Politics 3, up to 1 stars) Row 1"),
        "{screen}"
    );
}

#[test]
fn a_split_is_typed_in_one_line_by_the_names_of_its_lines() {
    // Hegemony, seed 1: P2 names the lines it puts steel on; the others get none.
    let (code, out, err) = typed(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "1",
            "--agent",
            "P2=human,random",
        ],
        // `1`: the agenda question every officer is asked in secret (P2's names nobody).
        "1\nM B 2, F C 7, R 1, E F B 1, Zebra 3\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("(or by name, the others 0: \"M F B 2, ...\" for Military vs Faction B)"),
        "{err}"
    );
    for line in [
        "how many to Military vs Faction B (15 left) -> 2 (secret",
        "how many to Military vs Faction C (13 left) -> 0 (secret",
        "how many to Foreign Affairs vs Faction B (13 left) -> 0 (secret",
        "how many to Foreign Affairs vs Faction C (13 left) -> 7 (secret",
        "how many to Domestic vs Faction B (6 left) -> 0 (secret",
        "how many to Research (6 left) -> 1 (secret",
        "how many to Espionage vs Faction B (5 left) -> 1 (secret",
        "how many to Espionage vs Faction C (4 left) -> 0 (secret",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(
        err.contains("`Zebra 3` names no line asked (the last line takes what is left)"),
        "{err}"
    );
    // The screen once, for the whole split (after the agenda question's).
    let split = err.split("`Zebra 3`").next().unwrap_or("");
    let split = split.split("agenda name?").nth(1).unwrap_or("");
    assert_eq!(split.matches("--- what P2 sees").count(), 1, "{err}");
}

//! People at the terminal (`rules run --agent P1=human,...`), answering on stdin: hot-seat
//! accounts, amounts, echoed answers, stopping and resuming, taking an answer back, `--json`.
//! (Playing on a real terminal, with Ctrl-C and the page size, is in `live.rs`.)

use std::io::Write;
use std::process::{Command, Stdio};

const ESTABLISHMENT: &str = "games/the-establishment.rules";

/// Run `rules` with `input` typed on stdin: (exit code, stdout, stderr).
fn typed(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rules");
    let mut stdin = child.stdin.take().expect("stdin");
    // The game may stop reading before all of it is written (a closed pipe is fine).
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("rules-table-{}-{name}", std::process::id()))
}

/// The answer lines of a choice log (`P1 2 label`).
fn answers(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The lines of a hot-seat account that `seat` read: those written while that seat was at the
/// keyboard, each part starting at the line saying so.
fn read_by(account: &str, seat: u32) -> Vec<String> {
    let mut at = None;
    let mut out = Vec::new();
    for line in account.lines() {
        if let Some(rest) = line.strip_prefix("--- P") {
            at = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u32>().ok());
            continue;
        }
        if at == Some(seat) && !line.is_empty() {
            out.push(line.to_string());
        }
    }
    out
}

#[test]
fn hot_seat_players_read_the_account_each_as_their_viewer_would() {
    // P1 and P2 share the keyboard and always take the first option; P3 is random.
    let (code, account, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--seed",
            "3",
            "--agent",
            "P1=human,P2=human,random",
        ],
        &"#1\n".repeat(2000),
    );
    assert_eq!(code, 0, "{err}");
    assert!(account.contains("=== Game over ==="), "{account}");
    for seat in [1u32, 2] {
        let (code, viewer, err) = typed(
            &[
                "run",
                ESTABLISHMENT,
                "--players",
                "3",
                "--seed",
                "3",
                "--agent",
                "P1=first,P2=first,random",
                "--viewer",
                &format!("P{seat}"),
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        let want: Vec<&str> = viewer.lines().filter(|l| !l.is_empty()).collect();
        // The seat's own secret answers are echoed to it, and choices made for it announced:
        // lines the viewer's account does not have.
        let read = read_by(&account, seat);
        let got: Vec<&str> = read
            .iter()
            .map(String::as_str)
            .filter(|l| {
                !l.ends_with("(secret: only you see this)")
                    && !l.ends_with("(the only option: taken for you)")
            })
            .collect();
        assert!(
            want.iter().any(|l| l.starts_with("Storyline 1, card #")),
            "{viewer}"
        );
        assert_eq!(got, want, "P{seat} reads what --viewer P{seat} shows");
    }
    // The public lines are readable; nothing is written `(hidden)` that a viewer may read.
    assert!(!account.contains("card #(hidden)"), "{account}");
}

#[test]
fn amounts_are_typed_as_numbers_and_secret_answers_are_echoed_to_their_giver() {
    // Hegemony, 15 players: P2 is FactionA's Military Officer and splits the bank in secret.
    let (code, out, err) = typed(
        &[
            "run",
            "games/hegemony",
            "--seed",
            "1",
            "--agent",
            "P2=human,random",
        ],
        "3\n#3\nfifteen\n99\n0\n",
    );
    assert_eq!(code, 0, "stopping at the end of input is no error: {err}");
    assert!(err.contains("an amount: 0-15"), "{err}");
    assert!(
        out.contains(
            "how many to Military vs Faction B (15 left) -> 3 (secret: only you see this)"
        ),
        "typing 3 gives 3 steel: {out}"
    );
    // `#3` is the third option: 2 steel, of the 12 left.
    assert!(
        out.contains("(12 left) -> 2 (secret: only you see this)"),
        "{out}"
    );
    assert!(err.contains("no option is `fifteen`"), "{err}");
    assert!(
        err.contains("99 is not one of the amounts you may choose: 0-10"),
        "{err}"
    );
    assert!(!err.contains("run::agent"), "{err}");
    // Deep State asks how many agents among amounts that do not start at 1.
    let (code, out, err) = typed(
        &[
            "run",
            "games/deep-state",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        "none\nInfiltrate\nConsulates\n4\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("an amount: 2-5"), "{err}");
    assert!(out.contains("P1: How many agents? -> 4"), "{out}");
    // A choice with one legal option is taken for the player, and they are told.
    assert!(out.contains("(the only option: taken for you)"), "{out}");
}

#[test]
fn a_stopped_game_is_saved_and_resumed_as_if_it_had_never_stopped() {
    let game = [
        "run",
        ESTABLISHMENT,
        "--players",
        "3",
        "--seed",
        "6",
        "--agent",
        "P1=human,random",
    ];
    let all = "2\n3\n1\n2\n".to_string() + &"#1\n".repeat(400);
    // Played in one go.
    let whole = temp("whole.log");
    let mut args = game.to_vec();
    let whole_s = whole.display().to_string();
    args.extend(["--log", &whole_s]);
    let (code, _, err) = typed(&args, &all);
    assert_eq!(code, 0, "{err}");
    // Stopped by the end of input after four answers: saved, quietly.
    let part = temp("part.log");
    let part_s = part.display().to_string();
    let mut args = game.to_vec();
    args.extend(["--log", &part_s]);
    let (code, _, err) = typed(&args, "2\n3\n1\n2\n");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("run::agent"), "{err}");
    assert!(
        err.contains(&format!("--resume {part_s}")),
        "the way to go on is given: {err}"
    );
    let saved = std::fs::read_to_string(&part).expect("saved log");
    assert!(saved.contains("# seed: 6") && saved.contains("# agents: P1=human,random"));
    // Resumed: the seed, players and seats come from the log; the rest is typed.
    let rest = temp("rest.log");
    let rest_s = rest.display().to_string();
    let (code, _, err) = typed(
        &["run", ESTABLISHMENT, "--resume", &part_s, "--log", &rest_s],
        &"#1\n".repeat(400),
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("answers replayed"), "{err}");
    let one_go = answers(&std::fs::read_to_string(&whole).expect("log"));
    let resumed = answers(&std::fs::read_to_string(&rest).expect("log"));
    assert!(one_go.len() > 20);
    assert_eq!(resumed, one_go);
    // A log of another game does not fit.
    let (code, _, err) = typed(
        &["run", ESTABLISHMENT, "--resume", &part_s, "--seed", "7"],
        "",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the log was played with seed 6"), "{err}");
}

#[test]
fn a_player_takes_back_their_last_answer_while_nobody_else_has_seen_it() {
    let game = [
        "run",
        ESTABLISHMENT,
        "--players",
        "3",
        "--seed",
        "6",
        "--agent",
        "P1=human,random",
    ];
    let straight = temp("straight.log");
    let straight_s = straight.display().to_string();
    let mut args = game.to_vec();
    args.extend(["--log", &straight_s]);
    let (code, _, err) = typed(&args, "2\n3\n1\n2\n");
    assert_eq!(code, 0, "{err}");
    // The same answers with two mistakes taken back, one of them twice over. (Taken back
    // before the other seats' decks are shuffled and their picks announced: past that, P1
    // has seen hidden draws, and the answer is P1's to keep.)
    let undone = temp("undone.log");
    let undone_s = undone.display().to_string();
    let mut args = game.to_vec();
    args.extend(["--log", &undone_s]);
    let (code, _, err) = typed(&args, "2\n1\n:undo\n3\n4\n:undo\n:undo\n3\n1\n2\n:undo\n");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("Your answer is taken back.").count(),
        3,
        "{err}"
    );
    assert!(
        err.contains("Your last answer cannot be taken back: the game has drawn at random since"),
        "{err}"
    );
    assert_eq!(
        answers(&std::fs::read_to_string(&undone).expect("log")),
        answers(&std::fs::read_to_string(&straight).expect("log"))
    );
    // Hot-seat: once P2 has sat down, P1's earlier answers are theirs to keep.
    let (code, _, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--seed",
            "6",
            "--agent",
            "P1=human,P2=human,random",
        ],
        &("\n1\n1\n1\n1\n\n1\n1\n1\n1\n".to_string() + &"\n:undo\n".repeat(3)),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("cannot be taken back: another player has seen what came of it"),
        "{err}"
    );
    assert!(!err.contains("Your answer is taken back."), "{err}");
}

#[test]
fn json_stays_on_stdout_and_the_persons_screen_on_the_terminal() {
    let (code, out, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--agent",
            "P1=human,random",
            "--json",
        ],
        &"#1\n".repeat(400),
    );
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "not JSON: {line}"
        );
    }
    assert!(out.contains("\"event\":\"end\""), "{out}");
    // The person reads the account and their screens on stderr.
    assert!(err.contains("--- what P1 sees"), "{err}");
    assert!(err.contains("=== Game over ==="), "{err}");
}

#[test]
fn enum_values_read_as_words_or_as_the_game_names_them() {
    let (code, out, err) = typed(
        &[
            "run",
            "tests/table/words.rules",
            "--agent",
            "P1=human,first",
        ],
        "raid\nHOCMove\n",
    );
    assert_eq!(code, 0, "{err}");
    // In words, unless the game gives the words (`Raid "a raid at dawn"`).
    for option in ["1) Covert operation", "2) a raid at dawn", "3) HOC move"] {
        assert!(err.contains(option), "{err}");
    }
    assert!(out.contains("P1: Your tactic -> a raid at dawn"), "{out}");
    // The rules' own name still answers.
    assert!(out.contains("P1: Your tactic -> HOC move"), "{out}");
    assert!(out.contains("P2: Your tactic -> Covert operation"), "{out}");
    // The screen reads values and keys the same way, and booleans as the language writes them.
    assert!(
        err.contains("last                     P1: a raid at dawn, P2: Covert operation"),
        "{err}"
    );
    assert!(err.contains("P1: true, P2: true"), "{err}");
    // The readable account reads them so for anybody; `--json` keeps the rules' names.
    let (_, plain, _) = typed(&["run", "tests/table/words.rules", "--agent", "first"], "");
    assert!(
        plain.contains("P1: Your tactic -> Covert operation"),
        "{plain}"
    );
    let (_, json, _) = typed(
        &[
            "run",
            "tests/table/words.rules",
            "--agent",
            "first",
            "--json",
        ],
        "",
    );
    assert!(json.contains("\"choice\":\"CovertOperation\""), "{json}");
}

#[test]
fn enum_values_in_text_the_game_builds_read_as_words() {
    let (code, out, err) = typed(
        &[
            "run",
            "tests/table/words_in_text.rules",
            "--agent",
            "P1=human,first",
        ],
        "hoc\n",
    );
    assert_eq!(code, 0, "{err}");
    // A screen's label and its values, the prompt and the notes beside the options.
    assert!(
        err.contains("Plan (Covert operation)  Covert operation, a raid at dawn\n"),
        "{err}"
    );
    assert!(
        err.contains("P1: P1: which tactic (HOC move beats Covert operation)?\n"),
        "{err}"
    );
    assert!(
        err.contains("    2) a raid at dawn    beats HOC move\n"),
        "{err}"
    );
    assert!(
        err.contains("    3) HOC move          beats Covert operation\n"),
        "{err}"
    );
    // A `say` line as each seat may read it: P1 reads its own plan, not P2's.
    assert!(
        out.contains("P1 plans HOC move, which beats Covert operation\n"),
        "{out}"
    );
    assert!(
        out.contains("P2 plans (hidden), which beats (hidden)\n"),
        "{out}"
    );
    let (_, p2, _) = typed(
        &[
            "run",
            "tests/table/words_in_text.rules",
            "--agent",
            "first",
            "--viewer",
            "P2",
        ],
        "",
    );
    assert!(
        p2.contains("P2 plans Covert operation, which beats a raid at dawn\n"),
        "{p2}"
    );
    // `--json`: texts are for people (words); a choice's answer keeps the rules' name.
    let (_, json, _) = typed(
        &[
            "run",
            "tests/table/words_in_text.rules",
            "--agent",
            "first",
            "--json",
        ],
        "",
    );
    assert!(
        json.contains("\"prompt\":\"P1: which tactic (HOC move beats Covert operation)?\""),
        "{json}"
    );
    assert!(json.contains("\"choice\":\"CovertOperation\""), "{json}");
    assert!(
        json.contains("\"text\":\"P1 plans Covert operation, which beats a raid at dawn\""),
        "{json}"
    );
}

#[test]
fn a_games_own_screen_is_read_through_the_seats_eyes_with_notes_beside_the_options() {
    let (code, out, err) = typed(
        &[
            "run",
            "tests/table/screen.rules",
            "--agent",
            "P1=human,first",
        ],
        "south\n",
    );
    assert_eq!(code, 0, "{err}");
    let screen: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("--- what P1 sees"))
        .take_while(|l| !l.starts_with("P1: Go where?"))
        .collect();
    // The declared lines, in order, and nothing of the default screen.
    assert_eq!(
        screen,
        [
            "--- what P1 sees (round 1, play) ---",
            "Gold          5",
            "Your secret   7",
            // Read as P1: another seat's owner var is hidden, their card unknown.
            "Their secret  (hidden)",
            // A card shows its `describe` line.
            "Your hand     Red token",
            "Their hand    a hidden card",
            // `Heading` is none yet: left out.
        ],
        "{err}"
    );
    // Each option with its note beside it.
    assert!(err.contains("    1) North  cold and far\n"), "{err}");
    assert!(err.contains("    2) South  warm\n"), "{err}");
    assert!(out.contains("P1: Go where? -> South"), "{out}");
    // `--full` shows the default screen, unfolded.
    let (_, _, full) = typed(
        &[
            "run",
            "tests/table/screen.rules",
            "--agent",
            "P1=human,first",
            "--full",
        ],
        "south\n",
    );
    assert!(full.contains("* hand[P1]"), "{full}");
    assert!(!full.contains("Their secret"), "{full}");
}

#[test]
fn a_forced_secret_choice_is_asked_like_any_other() {
    // Cut-down Skull: whoever was not dealt the skull has one kind of tile to lay, in secret.
    // Each seat is asked, whichever holds the skull (P2 in seed 1, P1 in seed 5), so whom the
    // game waits for says nothing; the answers of one option are not in the log.
    for seed in ["1", "5"] {
        let log = temp(&format!("skull-{seed}.log"));
        let log_s = log.display().to_string();
        let (code, out, err) = typed(
            &[
                "run",
                "tests/table/skull.rules",
                "--seed",
                seed,
                "--agent",
                "P1=human,P2=human",
                "--log",
                &log_s,
            ],
            "\n1\n\n1\n",
        );
        assert_eq!(code, 0, "{err}");
        for seat in ["P1", "P2"] {
            assert_eq!(
                err.matches(&format!("Pass the keyboard to {seat} for their turn"))
                    .count(),
                1,
                "seed {seed}: {seat} sits down for their turn\n{err}"
            );
            assert!(
                err.contains(&format!("{seat}: Lay a tile face down (secret)")),
                "seed {seed}: {seat} is asked\n{err}"
            );
        }
        assert!(err.contains("choose 1-1> "), "seed {seed}: {err}");
        assert!(
            !out.contains("taken for you"),
            "seed {seed}: a secret choice is not announced as taken\n{out}"
        );
        // The log is the one a game without people writes: one answer, the choice of two.
        let (code, _, err) = typed(
            &[
                "run",
                "tests/table/skull.rules",
                "--seed",
                seed,
                "--agent",
                "first",
                "--log",
                &temp(&format!("skull-first-{seed}.log"))
                    .display()
                    .to_string(),
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        let logged = answers(&std::fs::read_to_string(&log).expect("log"));
        assert_eq!(logged.len(), 1, "{logged:?}");
        assert_eq!(
            logged,
            answers(
                &std::fs::read_to_string(temp(&format!("skull-first-{seed}.log"))).expect("log")
            )
        );
    }
}

#[test]
fn an_answer_is_not_taken_back_once_its_player_saw_a_secret_answer_after_it() {
    // Rock-paper-scissors against an agent: taking back "ready" before the throws is fine;
    // taking back the throw once P2's secret throw is announced is refused, saying why.
    let log = temp("rps.log");
    let log_s = log.display().to_string();
    let (code, out, err) = typed(
        &[
            "run",
            "tests/table/rps.rules",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
            "--log",
            &log_s,
        ],
        "2\n:undo\n1\n1\n:undo\n1\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("Your answer is taken back.").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains(
            "Your last answer cannot be taken back: P2 has answered in secret since, and you may have seen what came of it."
        ),
        "{err}"
    );
    assert!(out.contains("P1 throws Rock, P2 throws"), "{out}");
    // Round 1's answers stand, and round 2 goes on from them.
    let logged = answers(&std::fs::read_to_string(&log).expect("log"));
    assert!(logged.len() >= 4, "{logged:?}");
    assert!(logged[0].starts_with("P1 1 "), "{logged:?}");
    assert!(logged[1].starts_with("P1 1 "), "{logged:?}");
    assert!(logged[3].starts_with("P1 1 "), "{logged:?}");
}

#[test]
fn an_answer_is_not_taken_back_past_a_card_drawn_or_revealed_after_it() {
    // Peek: round 1 shows P1 nothing hidden (its answer may be taken back), round 2 draws P1
    // a card from a hidden deck, round 3 reveals one to P1.
    let (code, _, err) = typed(
        &[
            "run",
            "tests/table/peek.rules",
            "--seed",
            "1",
            "--agent",
            "P1=human,random",
        ],
        "1\n:undo\n1\n1\n:undo\n1\n:undo\n1\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("Your answer is taken back.").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains(
            "Your last answer cannot be taken back: you have seen a card since that was hidden from you."
        ),
        "{err}"
    );
    assert!(
        err.contains("Your last answer cannot be taken back: a card was revealed to you since."),
        "{err}"
    );
}

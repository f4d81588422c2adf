//! People at the terminal (`rules run --agent P1=human,...`), answering on stdin: hot-seat
//! accounts, amounts, echoed answers, stopping and resuming, taking an answer back, `--json`.
//! (Playing on a real terminal, with Ctrl-C and the page size, is in `live.rs`.)

const ESTABLISHMENT: &str = "games/the-establishment.rules";

mod common;
use common::typed;

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
/// keyboard, each part starting at the line saying so. A catch-up's first part, what followed
/// the seat's last answer (read at the keyboard before, and again now), is read once.
fn read_by(account: &str, seat: u32) -> Vec<String> {
    let mut at = None;
    let mut again = false;
    let mut out = Vec::new();
    for line in account.lines() {
        if let Some(rest) = line.strip_prefix("--- P") {
            at = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u32>().ok());
            again = line.contains("what followed your last answer");
            continue;
        }
        if line.starts_with("--- since you passed the keyboard") {
            again = false;
            continue;
        }
        if at == Some(seat) && !again && !line.is_empty() {
            out.push(line.to_string());
        }
    }
    out
}

/// Each time `seat` sat down in a hot-seat account: the lines of the catch-up and what
/// followed on the account until the next person sat down.
fn turns_of(account: &str, seat: u32) -> Vec<Vec<String>> {
    let mut turns: Vec<Vec<String>> = Vec::new();
    let mut mine = false;
    for line in account.lines() {
        if let Some(rest) = line.strip_prefix("--- P") {
            if rest.contains(" at the keyboard") {
                mine = rest.split_whitespace().next() == Some(&(seat + 1).to_string());
                if mine {
                    turns.push(Vec::new());
                }
                continue;
            }
        }
        if let (true, Some(t)) = (mine, turns.last_mut()) {
            if !line.is_empty() {
                t.push(line.to_string());
            }
        }
    }
    turns
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
    // A game without a score says so at its end, pointing at its own last lines.
    assert!(
        account.contains("The rules name no winner: the game's last lines tell how it came out."),
        "{account}"
    );
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
        // `1`: the agenda question every officer is asked in secret (P2's names nobody).
        "1\n3\n#3\nfifteen\n99\n0\n",
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

/// A log's header value (`# seed: 5`).
fn header(log: &str, key: &str) -> Option<String> {
    log.lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
        .map(str::to_string)
}

/// The lowercase hex SHA-256 of `text`, as `sha256sum` prints it.
fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
}

#[test]
fn with_people_at_the_table_and_no_seed_the_seed_is_secret_until_the_end() {
    let log = temp("secret.log");
    let log_s = log.display().to_string();
    let (code, account, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--agent",
            "P1=human,P2=human,random",
            "--log",
            &log_s,
        ],
        &"\n#1\n".repeat(2000),
    );
    assert_eq!(code, 0, "{err}");
    let kept = std::fs::read_to_string(&log).expect("the log");
    let seed = header(&kept, "seed").expect("the log keeps the seed");
    let salt = header(&kept, "salt").expect("and its salt");
    #[cfg(unix)]
    assert_eq!(mode(&log), 0o600, "the log is its owner's only");
    // The account starts with the commitment, never the seed.
    let key = format!("{seed}:{salt}");
    let start = format!(
        "== The Establishment: 3 players, secret seed (SHA-256 {}) ==",
        sha256(&key)
    );
    for seat in [1, 2] {
        let read = read_by(&account, seat);
        assert_eq!(read.first(), Some(&start), "P{seat}: {read:?}");
    }
    // Nothing anybody read before the game was over shows the seed; the end does.
    let end = account.find("=== Game over ===").expect("the end");
    assert!(!account[..end].contains(&seed), "{}", &account[..end]);
    let over = err.find("=== Game over ===").unwrap_or(err.len());
    assert!(!err[..over].contains(&seed), "the screens show the seed");
    let shown = format!("The secret seed was {seed}: `printf %s {key} | sha256sum`");
    assert!(account[end..].contains(&shown), "{}", &account[end..]);
    // The JSON events: the start commits to the seed, the end shows it.
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
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let start = &events[0];
    let end = events.last().expect("the end");
    assert_eq!(start["event"], "start");
    assert!(start["seed"].is_null(), "{start}");
    let seed = end["seed"].as_u64().expect("the seed at the end");
    let key = end["seed_key"].as_str().expect("its key");
    assert!(key.starts_with(&format!("{seed}:")), "{key}");
    assert_eq!(start["seed_sha256"].as_str(), Some(sha256(key).as_str()));
    let before_end = &out[..out.rfind('\n').unwrap_or(0)];
    let before_end = &before_end[..before_end.rfind('\n').unwrap_or(0)];
    assert!(!before_end.contains(&seed.to_string()), "{before_end}");
}

#[test]
fn two_games_without_a_seed_get_different_seeds_and_a_given_seed_is_played() {
    let seeds: Vec<String> = (0..2)
        .map(|k| {
            let log = temp(&format!("drawn{k}.log"));
            let log_s = log.display().to_string();
            let (code, _, err) = typed(
                &[
                    "run",
                    ESTABLISHMENT,
                    "--agent",
                    "P1=human,random",
                    "--log",
                    &log_s,
                ],
                "",
            );
            assert_eq!(code, 0, "{err}");
            header(&std::fs::read_to_string(&log).expect("log"), "seed").expect("seed")
        })
        .collect();
    assert_ne!(seeds[0], seeds[1]);
    // `--seed 5`: played and shown as before, and its log replays it.
    let log = temp("seed5.log");
    let log_s = log.display().to_string();
    let args = [
        "run",
        ESTABLISHMENT,
        "--players",
        "3",
        "--seed",
        "5",
        "--agent",
        "P1=human,random",
    ];
    let mut with_log = args.to_vec();
    with_log.extend(["--log", &log_s]);
    let (code, account, err) = typed(&with_log, &"#1\n".repeat(400));
    assert_eq!(code, 0, "{err}");
    assert!(
        account.starts_with("== The Establishment: 3 players, seed 5 =="),
        "{account}"
    );
    assert!(!account.contains("secret seed"), "{account}");
    let kept = std::fs::read_to_string(&log).expect("log");
    assert_eq!(header(&kept, "seed").as_deref(), Some("5"));
    assert_eq!(header(&kept, "salt"), None);
    let script = format!("script:{log_s}");
    let (code, replayed, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--seed",
            "5",
            "--agent",
            &script,
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let tail = |a: &str| a.lines().rev().take(8).collect::<Vec<_>>().join("\n");
    assert_eq!(tail(&replayed), tail(&account));
}

#[test]
fn a_secret_game_stopped_and_resumed_keeps_its_commitment() {
    let (code, first, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--agent",
            "P1=human,random",
        ],
        "2\n3\n",
    );
    assert_eq!(code, 0, "{err}");
    // Saved in the temporary folder under a name that tells nothing, for its owner only.
    let path = err
        .split("the game is saved in ")
        .nth(1)
        .and_then(|r| r.split(". To go on").next())
        .expect("where it was saved");
    let saved = std::fs::read_to_string(path).expect("the saved game");
    let seed = header(&saved, "seed").expect("seed");
    assert!(!path.contains(&seed), "{path}");
    assert!(!err.contains(&seed) && !first.contains(&seed), "{err}");
    #[cfg(unix)]
    assert_eq!(mode(std::path::Path::new(path)), 0o600);
    let commitment = first.lines().next().expect("start").to_string();
    assert!(commitment.contains("secret seed (SHA-256 "), "{commitment}");
    // A wrong guess at the seed is refused without naming it.
    let (code, _, err) = typed(&["run", ESTABLISHMENT, "--resume", path, "--seed", "5"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the log's seed is secret"), "{err}");
    assert!(!err.contains(&seed), "{err}");
    let (code, rest, err) = typed(
        &["run", ESTABLISHMENT, "--resume", path],
        &"#1\n".repeat(400),
    );
    let _ = std::fs::remove_file(path);
    assert_eq!(code, 0, "{err}");
    let hash = commitment
        .split("SHA-256 ")
        .nth(1)
        .and_then(|h| h.split(')').next())
        .expect("hash");
    let key = rest
        .split("printf %s ")
        .nth(1)
        .and_then(|k| k.split(' ').next())
        .expect("the key at the end");
    assert!(key.starts_with(&format!("{seed}:")), "{key}");
    assert_eq!(sha256(key), hash);
}

#[cfg(unix)]
#[test]
fn a_log_is_never_written_through_a_planted_link() {
    let victim = temp("victim.txt");
    std::fs::write(&victim, "keep").expect("write");
    let link = temp("planted.log");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let link_s = link.display().to_string();
    let (code, account, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--agent",
            "P1=human,random",
            "--log",
            &link_s,
        ],
        &"#1\n".repeat(400),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    // Refused before anybody plays a game whose log could not be kept.
    assert!(account.is_empty(), "{account}");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    assert!(std::fs::symlink_metadata(&link)
        .expect("still there")
        .file_type()
        .is_symlink());
    let _ = std::fs::remove_file(&link);
    let _ = std::fs::remove_file(&victim);
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

/// A game resumed and stopped again is saved into the log it was resumed from, not a new one:
/// the log holds every answer, and the next `--resume` goes on from the latest.
#[test]
fn a_resumed_game_stopped_again_is_saved_into_its_own_log() {
    let (code, _, err) = typed(
        &[
            "run",
            ESTABLISHMENT,
            "--players",
            "3",
            "--seed",
            "4",
            "--agent",
            "P1=human,random",
        ],
        "1\n:quit\n",
    );
    assert_eq!(code, 0, "{err}");
    let path = err
        .split("the game is saved in ")
        .nth(1)
        .and_then(|r| r.split(". To go on").next())
        .expect("where it was saved")
        .to_string();
    let first = answers(&std::fs::read_to_string(&path).expect("the saved game")).len();
    let (code, _, err) = typed(&["run", ESTABLISHMENT, "--resume", &path], "1\n:quit\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("the game is saved in {path}. To go on")),
        "saved into the log it was resumed from: {err}"
    );
    let second = answers(&std::fs::read_to_string(&path).expect("the saved game")).len();
    let _ = std::fs::remove_file(&path);
    assert!(
        second > first,
        "the log holds the answers since: {first} then {second}"
    );
}

#[test]
fn a_hot_seat_player_catches_up_from_their_own_last_answer_and_is_told_the_goal() {
    // Ambition, seed 1: four people at one keyboard, each taking the first option.
    let (code, account, err) = typed(
        &["run", "games/ambition", "--seed", "1", "--agent", "human"],
        &"#1\n".repeat(300),
    );
    assert_eq!(code, 0, "{err}");
    // P2 challenges P1's claim; the bluff is exposed and P1 draws, all shown while P2 was at
    // the keyboard, and cleared away with the screen for P1. P2's next turn starts from there.
    let turns = turns_of(&account, 1);
    let answered = turns
        .iter()
        .position(|t| {
            t.iter()
                .any(|l| l == "  P2: Challenge P1's claim of 1? -> yes")
        })
        .expect("P2 challenges P1");
    let next = turns.get(answered + 1).expect("P2 sits down again");
    assert_eq!(
        next.first().map(String::as_str),
        Some("  P2: Challenge P1's claim of 1? -> yes"),
        "the catch-up starts at P2's own answer: {next:#?}"
    );
    for line in [
        "P2 exposes P1's bluff: P1 loses 1, P2 gains 1",
        "P1 draws an intrigue card",
    ] {
        assert!(next.iter().any(|l| l == line), "{line}: {next:#?}");
    }
    // Every catch-up after the first starts at the seat's own last answer.
    for seat in 0..4u32 {
        for t in turns_of(&account, seat).iter().skip(1) {
            let me = format!("  P{}: ", seat + 1);
            assert!(t.first().is_some_and(|l| l.starts_with(&me)), "{t:#?}");
        }
    }
    // Nothing hidden reaches P2 by it: P2 reads only what `--viewer P2` shows (its own
    // answers' echoes aside), and never the Elites P3 alone saw.
    let (code, viewer, err2) = typed(
        &[
            "run",
            "games/ambition",
            "--seed",
            "1",
            "--agent",
            "first",
            "--viewer",
            "P2",
        ],
        "",
    );
    assert_eq!(code, 0, "{err2}");
    // (Bools read yes and no at the table.)
    let seen: std::collections::BTreeSet<String> = viewer
        .lines()
        .map(
            |l| match (l.strip_suffix("-> true"), l.strip_suffix("-> false")) {
                (Some(h), _) => format!("{h}-> yes"),
                (_, Some(h)) => format!("{h}-> no"),
                _ => l.to_string(),
            },
        )
        .collect();
    let p2: Vec<String> = turns_of(&account, 1).concat();
    for l in &p2 {
        if l.starts_with("--- since")
            || l.ends_with("(secret: only you see this)")
            || l.ends_with("(the only option: taken for you)")
        {
            continue;
        }
        assert!(
            seen.contains(l.as_str()),
            "P2 reads `{l}`, which P2 may not see"
        );
    }
    assert!(
        account.contains("  revealed to P3: Attaché, Clerk, Courier"),
        "{account}"
    );
    assert!(
        !p2.iter().any(|l| l.contains("revealed to P3: Attaché")),
        "{p2:#?}"
    );
    // The goal: at the start, and to each person the first time they sit down (the start's
    // banner is cleared with the screen).
    assert_eq!(
        err.matches("Goal: Be the richest when the game ends")
            .count(),
        1 + 4,
        "{err}"
    );
}

/// Lists and tuples read in words on a person's screen, the game's own and the default one
/// (`--full`): a tuple's values side by side, a list "a, b and c", an empty one `none`; never
/// brackets or parentheses the rules would write.
#[test]
fn lists_and_tuples_on_a_screen_read_in_words() {
    let game = "tests/table/screen_words.rules";
    let (code, _, err) = typed(&["run", game, "--agent", "P1=human,first"], "south\n");
    assert_eq!(code, 0, "{err}");
    let screen: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("--- what P1 sees"))
        .take_while(|l| !l.starts_with("P1: Go where?"))
        .collect();
    assert_eq!(
        screen,
        [
            "--- what P1 sees (round 1, play) ---",
            "Control  Faction A 0, Faction B 3",
            "Lead     Faction B 3",
            "Needs    Faction A 2, Faction B 1",
            "Picked   none; x, y and z",
        ],
        "{err}"
    );
    let (code, _, full) = typed(
        &["run", game, "--agent", "P1=human,first", "--full"],
        "south\n",
    );
    assert_eq!(code, 0, "{full}");
    assert!(
        full.contains("  needs                    Faction A 2 and Faction B 1\n"),
        "{full}"
    );
    assert!(full.contains("  picked                   none\n"), "{full}");
    let lines: Vec<&str> = full
        .lines()
        .skip_while(|l| !l.starts_with("--- what P1 sees"))
        .skip(1)
        .take_while(|l| !l.starts_with("P1: Go where?"))
        .collect();
    for l in lines.iter().chain(screen.iter().skip(1)) {
        assert!(!l.contains('[') && !l.contains('('), "{l}");
    }
}

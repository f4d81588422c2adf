//! Hidden information: for every game in `games/` and in `tests/hidden/`, over many seeds, no
//! viewer's event stream names a card hidden from that viewer at that moment, every card the
//! viewer knows is named, and another player's secret choice shows neither its answer nor its
//! number of options.
//!
//! What a viewer knows is worked out here on its own, from the omniscient stream and the zones'
//! declared visibility (not from the interpreter's knowledge or the filtering code):
//! a card out of play is known to all, but nobody sees which card comes out of no zone, so a
//! card moving from no zone is known exactly to those who see its face where it lands; a card
//! moving from a zone stays known to those who see into its new zone and becomes known to those
//! who see its face there (public and face up: all; public face down, or `owner`: the zone's
//! player; `hidden`: nobody); a move may turn the cards first (`face_up`); a shuffle leaves only
//! those who see the faces; a flip teaches those who see the new face; a reveal teaches its
//! players. A move names a card to who knew it before or after; a reveal names a card to its
//! players and to whoever knew it already.

#[path = "common/hidden_model.rs"]
mod hidden_model;

use hidden_model::{cards_of, Model};
use rules::events::Event;
use rules::interp::Interp;
use rules::limits::Limits;
use rules::program::Program;
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn load(game: &Path) -> Program {
    let c = rules::check_path(game, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

fn play(prog: &Program, n: u32, seed: u64) -> Vec<Event> {
    let agents = rules::agent::make_agents("random", n, seed).expect("agents");
    let mut interp = Interp::new(prog, n, seed, agents, Limits::default()).expect("interp");
    if let Err(d) = interp.run() {
        panic!("seed {seed}: {}", d.render(&prog.sources));
    }
    interp.events
}

/// Check every viewer's stream of one game against the model.
fn check_game(prog: &Program, game: &str, n: u32, seed: u64) -> usize {
    let events = play(prog, n, seed);
    let omni: Vec<J> = events
        .iter()
        .map(|e| serde_json::to_value(e).expect("json"))
        .collect();
    let views: Vec<Vec<J>> = (0..n)
        .map(|v| {
            events
                .iter()
                .map(|e| serde_json::to_value(e.for_viewer(v)).expect("json"))
                .collect()
        })
        .collect();
    // A card's name, when no other card has it.
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, _) in prog.cards.iter().enumerate() {
        let v = rules::interp::View {
            prog,
            n_players: n,
            zone_base: &[],
        };
        names
            .entry(v.card_name(i as u32))
            .or_default()
            .push(prog.cards[i].id.to_string());
    }
    let mut model = Model {
        prog,
        n,
        zone: BTreeMap::new(),
        face_up: BTreeMap::new(),
        known: BTreeMap::new(),
    };
    let mut hidden_seen = 0;
    for (i, ev) in omni.iter().enumerate() {
        let at = format!("{game} seed {seed} event {i}: {ev}");
        // A choice naming one card: the chooser's name for it, if the viewer knows it.
        let chosen_card = ev["choice"]
            .as_str()
            .and_then(|t| names.get(t))
            .filter(|ids| ids.len() == 1)
            .map(|ids| ids[0].clone());
        let chosen_known = chosen_card.as_ref().map(|c| model.known(c));
        let sight = model.apply(ev);
        for v in 0..n {
            let seen = &views[v as usize][i];
            assert_eq!(seen["event"], ev["event"], "{at}");
            let cards = cards_of(seen);
            for (j, c) in cards.iter().enumerate() {
                let may = sight.get(j).is_some_and(|s| s & (1 << v) != 0);
                if may {
                    assert_eq!(c, &cards_of(ev)[j], "{at}: P{} knows card {j}", v + 1);
                } else {
                    assert_eq!(
                        c,
                        &serde_json::json!({"hidden": true}),
                        "{at}: card {j} is hidden from P{}",
                        v + 1
                    );
                    hidden_seen += 1;
                }
            }
            if ev["event"] == "choice" {
                let own = ev["player"].as_str() == Some(&format!("P{}", v + 1));
                if ev["secret"] == true && !own {
                    assert_eq!(seen["choice"], J::Null, "{at}: a secret choice of another");
                    assert_eq!(seen["index"], J::Null, "{at}: a secret choice of another");
                    assert_eq!(seen["options"], J::Null, "{at}: a secret choice of another");
                    // Its question was the chooser's alone (its prompt may read their secrets).
                    assert_eq!(seen["prompt"], "", "{at}: a secret choice of another");
                    hidden_seen += 1;
                    continue;
                }
                // An answer read as a hidden card comes without the number of options (it
                // could tell what the chooser holds).
                let veiled = !own
                    && seen["choice"]
                        .as_str()
                        .is_some_and(|c| c.contains("a hidden card"));
                let want = if veiled {
                    J::Null
                } else {
                    ev["options"].clone()
                };
                assert_eq!(seen["options"], want, "{at}: seen by P{}", v + 1);
                if let Some(k) = chosen_known {
                    let want = if k & (1 << v) != 0 {
                        ev["choice"].clone()
                    } else {
                        J::from("a hidden card")
                    };
                    assert_eq!(seen["choice"], want, "{at}: seen by P{}", v + 1);
                }
            }
        }
    }
    hidden_seen
}

#[test]
fn no_viewer_sees_a_hidden_card() {
    let games = rules::games_in(Path::new("games"));
    assert!(games.len() >= 2, "the games folder holds both games");
    for game in games {
        let prog = load(&game);
        let n = rules::default_players(&prog);
        let mut hidden = 0;
        for seed in 0..20 {
            hidden += check_game(&prog, &game.display().to_string(), n, seed);
        }
        // The check has something to check: some card or answer was hidden from somebody.
        assert!(hidden > 0, "{}: nothing was ever hidden", game.display());
    }
}

/// The small games of `tests/hidden/`, each written around one idiom: cards face down on a
/// player's public side, shuffled there, turned up and down in the middle (`faces`: who sees a
/// face differs between face up and face down in these zones, so the check tells the two apart,
/// which the games' shuffles and flips do not); cards dealt out of no zone (`dealt`); cards
/// moved face down (`face_down`); secret choices whose number of options tells what the chooser
/// holds (`secret`); reveals to some players (`peek`, `shown`); `say` lines (`say`).
#[test]
fn small_games_are_seen_as_the_model_says() {
    let mut games: Vec<_> = std::fs::read_dir("tests/hidden")
        .expect("tests/hidden")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    games.sort();
    assert!(games.len() >= 7, "{games:?}");
    for path in games {
        let game = path.display().to_string();
        let prog = load(&path);
        for n in [2, 3] {
            let mut hidden = 0;
            for seed in 0..10 {
                hidden += check_game(&prog, &game, n, seed);
            }
            assert!(
                hidden > 0,
                "{game} with {n} players: nothing was ever hidden"
            );
        }
    }
}

fn cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(args)
        .output()
        .expect("run rules");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn cli_viewer_stream_is_the_filtered_stream() {
    let game = "games/the-establishment.rules";
    let prog = load(Path::new(game));
    let events = play(&prog, 4, 5);
    let want: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(&e.for_viewer(1)).expect("json"))
        .collect();
    let got = cli(&["run", game, "--seed", "5", "--viewer", "P2", "--json"]);
    assert_eq!(got.lines().collect::<Vec<_>>(), want);
    // No flag and `--viewer all` are the omniscient stream, which names every card.
    let all = cli(&["run", game, "--seed", "5", "--viewer", "all", "--json"]);
    assert_eq!(all, cli(&["run", game, "--seed", "5", "--json"]));
    assert!(!all.contains("\"hidden\":true"));
    assert!(got.contains("\"hidden\":true"));
    // The readable account for P2 hides other hands' cards too.
    let text = cli(&["run", game, "--seed", "5", "--viewer", "P2"]);
    assert!(text.contains("a hidden card"), "{text}");
}

#[test]
fn cli_rejects_an_unknown_viewer() {
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(["run", "games/the-establishment.rules", "--viewer", "P9"])
        .output()
        .expect("run rules");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a player"));
}

#[test]
fn the_human_agent_is_shown_its_own_view() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args([
            "run",
            "games/the-establishment.rules",
            "--players",
            "3",
            "--agent",
            "human",
            // The default screen, whole (the game's own screen reads the same way: what a
            // seat may not see is hidden).
            "--full",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run rules");
    // Answer the first few choices, then end the input (the game stops there).
    let answers = "1\n".repeat(12);
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answers.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    // P2 sees its own hand by name, P1's hand only as a count.
    let p2 = err
        .split("--- what P2 sees")
        .nth(1)
        .expect("P2 was shown a view");
    let p2 = p2.split("P2:").next().unwrap_or("");
    assert!(p2.contains("* hand[P2]"), "{p2}");
    assert!(
        p2.contains("hand[P1]                 4 hidden cards"),
        "{p2}"
    );
    assert!(
        !p2.contains("hand[P2]                 4 hidden cards"),
        "{p2}"
    );
}

#[test]
fn a_reveal_to_others_names_no_card() {
    let game = "tests/hidden/peek.rules";
    let account = |v: &str| cli(&["run", game, "--players", "3", "--viewer", v]);
    let (p1, p2, p3) = (account("P1"), account("P2"), account("P3"));
    assert!(p1.contains("revealed to P1: Ruby"), "{p1}");
    // P2 shows its own card: it still sees it named; P3 sees only that P1 saw a card.
    assert!(p2.contains("revealed to P1: Ruby"), "{p2}");
    assert!(p3.contains("P1 saw 1 card") && !p3.contains("Ruby"), "{p3}");
    assert!(p2.contains("revealed to P1, P2: Opal"), "{p2}");
    assert!(p3.contains("P1, P2 saw 1 card"), "{p3}");
    assert!(p3.contains("revealed: Opal"), "{p3}");
    // P1 saw the Ruby go back under the deck; after the shuffle nobody knows the deck.
    let json = cli(&["run", game, "--players", "3", "--viewer", "P1", "--json"]);
    let lines: Vec<&str> = json.lines().collect();
    assert!(lines
        .iter()
        .any(|l| l.contains("\"to\":\"deck\"") && l.contains("Ruby")));
    let last_draw = lines
        .iter()
        .rfind(|l| l.contains("hand[P1]"))
        .expect("draw");
    assert!(
        !last_draw.contains("hidden"),
        "P1 sees its own draw: {last_draw}"
    );
    let p3_json = cli(&["run", game, "--players", "3", "--viewer", "P3", "--json"]);
    let p3_draw = p3_json
        .lines()
        .rfind(|l| l.contains("hand[P1]"))
        .expect("draw");
    assert!(p3_draw.contains("\"hidden\":true"), "{p3_draw}");
}

#[test]
fn a_say_line_shows_each_viewer_only_what_they_may_read() {
    let game = "tests/hidden/say.rules";
    let account = |v: &str| cli(&["run", game, "--players", "3", "--viewer", v]);
    let (all, p1, p2, p3) = (account("all"), account("P1"), account("P2"), account("P3"));
    let line = |text: &str| -> String {
        text.lines()
            .find(|l| l.starts_with("P2 holds"))
            .unwrap_or_else(|| panic!("no say line in {text}"))
            .to_string()
    };
    let gem = if all.contains("P2 holds Ruby") {
        "Ruby"
    } else {
        "Opal"
    };
    assert_eq!(
        line(&all),
        format!("P2 holds {gem}, number 7, hand [{gem}], 1 card")
    );
    assert_eq!(line(&p2), line(&all), "P2 may read its own card and var");
    for other in [&p1, &p3] {
        assert_eq!(
            line(other),
            "P2 holds (hidden), number (hidden), hand [a hidden card], 1 card"
        );
        assert!(other.contains(&format!("P2 shows {gem}")), "{other}");
    }
    // --json keeps the full line only for a viewer who may read it.
    let json = cli(&["run", game, "--players", "3", "--viewer", "P1", "--json"]);
    assert!(!json.contains(gem) || json.contains(&format!("P2 shows {gem}")));
    assert!(json.contains("\"text\":\"P2 holds (hidden)"), "{json}");
}

/// The `--json` stream of a small game as one viewer sees it, one event per line.
fn stream(game: &str, players: &str, seed: &str, viewer: &str) -> Vec<J> {
    cli(&[
        "run",
        game,
        "--players",
        players,
        "--seed",
        seed,
        "--viewer",
        viewer,
        "--json",
    ])
    .lines()
    .map(|l| serde_json::from_str(l).expect("json"))
    .collect()
}

fn moves_to<'a>(events: &'a [J], zone: &str) -> Vec<&'a J> {
    events
        .iter()
        .filter(|e| e["event"] == "move" && e["to"] == zone)
        .collect()
}

fn hidden_card() -> J {
    serde_json::json!({"hidden": true})
}

#[test]
fn cards_dealt_out_of_no_zone_are_known_only_where_they_land() {
    let game = "tests/hidden/dealt.rules";
    for seed in ["1", "2", "3"] {
        let (p1, p2, p3) = (
            stream(game, "3", seed, "P1"),
            stream(game, "3", seed, "P2"),
            stream(game, "3", seed, "P3"),
        );
        // P1's two gems, dealt at random from the card list: named to P1 alone.
        let dealt = |s: &[J]| moves_to(s, "hand[P1]")[0]["cards"].clone();
        assert!(dealt(&p1)
            .as_array()
            .expect("cards")
            .iter()
            .all(|c| c["id"].is_string()));
        for other in [&p2, &p3] {
            assert_eq!(
                dealt(other),
                serde_json::json!([hidden_card(), hidden_card()])
            );
        }
        // The coins go face down to P2's side: P2 sees them, the others do not.
        let coins = |s: &[J]| moves_to(s, "table[P2]")[0]["cards"].clone();
        assert!(coins(&p2)
            .as_array()
            .expect("cards")
            .iter()
            .all(|c| c["id"].is_string()));
        assert_eq!(coins(&p2).as_array().map(Vec::len), Some(3));
        for other in [&p1, &p3] {
            assert!(coins(other)
                .as_array()
                .expect("cards")
                .iter()
                .all(|c| *c == hidden_card()));
        }
        // P3 never learns a gem: no gem's id anywhere in its stream.
        let text = serde_json::to_string(&p3).expect("json");
        for gem in ["ruby", "opal", "jade", "onyx"] {
            assert!(!text.contains(&format!("\"{gem}\"")), "{text}");
        }
    }
}

#[test]
fn a_card_moved_face_down_is_not_shown_to_the_table() {
    let game = "tests/hidden/face_down.rules";
    for seed in ["1", "2", "3"] {
        let (all, p1, p2) = (
            stream(game, "2", seed, "all"),
            stream(game, "2", seed, "P1"),
            stream(game, "2", seed, "P2"),
        );
        let middle = moves_to(&all, "middle")[0];
        assert_eq!(middle["face_up"], false, "{middle}");
        assert!(middle["cards"][0]["id"].is_string());
        // P1 put it there and knows it; P2 does not, until it is turned up.
        assert_eq!(moves_to(&p1, "middle")[0]["cards"], middle["cards"]);
        assert_eq!(moves_to(&p2, "middle")[0]["cards"][0], hidden_card());
        let flip = p2.iter().find(|e| e["event"] == "flip").expect("flip");
        assert_eq!(flip["card"], middle["cards"][0]);
        // Face down on P1's side: P1 alone; P2's gem put face up there: everybody.
        let side = |s: &[J], i: usize| moves_to(s, "table[P1]")[i]["cards"][0].clone();
        assert!(side(&p1, 0)["id"].is_string());
        assert_eq!(side(&p2, 0), hidden_card());
        assert_eq!(moves_to(&all, "table[P1]")[1]["face_up"], true);
        assert!(side(&p1, 1)["id"].is_string() && side(&p2, 1)["id"].is_string());
    }
}

#[test]
fn a_secret_choice_shows_others_no_number_of_options() {
    let game = "tests/hidden/secret.rules";
    let choices = |viewer: &str| -> Vec<J> {
        stream(game, "3", "1", viewer)
            .into_iter()
            .filter(|e| e["event"] == "choice")
            .collect()
    };
    // P1 may lay a skull or a flower, the others only a flower: 2 options against 1.
    let all = choices("all");
    let counts: Vec<&J> = all.iter().map(|c| &c["options"]).collect();
    assert_eq!(counts, [&J::from(2), &J::from(1), &J::from(1)]);
    for (seat, viewer) in ["P1", "P2", "P3"].into_iter().enumerate() {
        let seen = choices(viewer);
        for (i, c) in seen.iter().enumerate() {
            if i == seat {
                assert_eq!(c, &all[i], "{viewer} sees its own choice whole");
            } else {
                assert_eq!(c["options"], J::Null, "{viewer}: {c}");
                assert_eq!(c["choice"], J::Null, "{viewer}: {c}");
            }
        }
    }
}

#[test]
fn a_reveal_to_others_still_names_a_card_the_viewer_knows() {
    let game = "tests/hidden/shown.rules";
    let account = |v: &str| cli(&["run", game, "--players", "3", "--viewer", v]);
    let (all, p2, p3) = (account("all"), account("P2"), account("P3"));
    let line = |text: &str, n: usize| -> String {
        text.lines()
            .filter(|l| l.contains("revealed") || l.contains(" saw "))
            .nth(n)
            .unwrap_or_else(|| panic!("no reveal {n} in {text}"))
            .to_string()
    };
    // P2's own gem shown to P1: P2 sees it named, P3 does not.
    assert_eq!(line(&p2, 0), line(&all, 0));
    assert_eq!(line(&p3, 0), "  P1 saw 1 card");
    // A gem face up in the middle shown to P1: everybody knew it already.
    assert_eq!(line(&p2, 1), line(&all, 1));
    assert_eq!(line(&p3, 1), line(&all, 1));
    assert!(line(&all, 1).starts_with("  revealed to P1: "), "{all}");
}

//! `rules serve`, through the binary and HTTP: whole games played by clients answering through
//! the server's own paths, every message each seat and the spectators received checked against
//! the hidden-information model of `tests/hidden.rs`; answers refused when stale, forged or
//! duplicated; hostile clients; the log, `--resume` with the same links, seats handed to agents
//! and back, and undo by everyone's consent.

#[path = "common/hidden_model.rs"]
mod hidden_model;
#[path = "common/web.rs"]
mod web;

use hidden_model::{cards_of, Model};
use rules::limits::Limits;
use rules::program::Program;
use rules::session::{SaveFile, Session};
use serde_json::Value as J;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;
use web::{play_out, request, scratch, Server};

fn load(game: &Path) -> Program {
    let c = rules::check_path(game, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

fn log_of(dir: &Path) -> String {
    dir.join("game.json").display().to_string()
}

/// The game's whole omniscient event stream, replayed from the server's log.
fn omniscient(prog: Program, log: &Path) -> Vec<J> {
    let text = std::fs::read_to_string(log).expect("the server wrote its log");
    let save: SaveFile = serde_json::from_str(&text).expect("the log is a save");
    let (s, misfit) = Session::load(prog, &save, Limits::default()).expect("the log loads");
    assert!(misfit.is_none(), "{misfit:?}");
    s.events
        .iter()
        .map(|e| serde_json::to_value(e).expect("json"))
        .collect()
}

/// Whole words of `text`, as a set, to look card names up in.
fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Check every message: no card hidden from its reader at that moment, and never shown to
/// them before, is named in it. A card's name counts only when no card the reader may have
/// seen shares it, and when it is no word of the game's own vocabulary (zones, phases, vars,
/// enum values) the page shows anyway.
fn check_messages(
    prog: &Program,
    game: &str,
    n: u32,
    omni: &[J],
    seen: &[(Option<u32>, J)],
) -> Result<usize, String> {
    let v = rules::interp::View {
        prog,
        n_players: n,
        zone_base: &[],
    };
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, c) in prog.cards.iter().enumerate() {
        names
            .entry(v.card_name(i as u32))
            .or_default()
            .push(c.id.to_string());
    }
    let mut vocabulary: BTreeSet<String> = BTreeSet::new();
    vocabulary.extend(prog.zones.iter().map(|z| z.name.clone()));
    vocabulary.extend(prog.phases.iter().map(|p| p.name.clone()));
    vocabulary.extend(prog.vars.iter().map(|x| x.name.clone()));
    for e in &prog.enums {
        vocabulary.extend(e.variants.iter().cloned());
    }
    vocabulary.insert(prog.game.name.clone());
    // Messages in the order of the events they follow.
    let mut order: Vec<(usize, usize)> = seen
        .iter()
        .enumerate()
        .map(|(i, (_, m))| (m["events"].as_u64().expect("events") as usize, i))
        .collect();
    order.sort();
    let mut model = Model {
        prog,
        n,
        zone: BTreeMap::new(),
        face_up: BTreeMap::new(),
        known: BTreeMap::new(),
    };
    // Who was ever shown each card (a reader may name a card they saw once).
    let mut ever: BTreeMap<String, u64> = BTreeMap::new();
    let mut applied = 0;
    let mut hidden_checked = 0;
    for (k, i) in order {
        while applied < k.min(omni.len()) {
            let ev = &omni[applied];
            let sight = model.apply(ev);
            for (j, c) in cards_of(ev).iter().enumerate() {
                if let (Some(id), Some(s)) = (c["id"].as_str(), sight.get(j)) {
                    *ever.entry(id.to_string()).or_default() |= s;
                }
            }
            applied += 1;
        }
        let (seat, m) = &seen[i];
        let text = m.to_string();
        let all = model.all();
        let may_know = |id: &str| -> bool {
            let now = model.known(id);
            let once = ever.get(id).copied().unwrap_or(0);
            let both = now | once;
            match seat {
                Some(p) => both & (1 << p) != 0,
                // Spectators see only what every player sees.
                None => now & all == all || once & all == all,
            }
        };
        for (name, ids) in &names {
            if ids.iter().any(|id| may_know(id)) || vocabulary.contains(name) {
                continue;
            }
            hidden_checked += 1;
            if contains_word(&text, name) {
                let who = seat
                    .map(|p| format!("P{}", p + 1))
                    .unwrap_or("spectators".into());
                return Err(format!(
                    "{game}: a message to {who} after event {k} names `{name}`, hidden from them: {text}"
                ));
            }
        }
    }
    Ok(hidden_checked)
}

fn serve_and_check(game: &Path, seed: u64) -> usize {
    let prog = load(game);
    let n = rules::default_players(&prog);
    let dir = scratch(&format!(
        "serve-leak-{}",
        game.file_stem().and_then(|s| s.to_str()).unwrap_or("game")
    ));
    let log = log_of(&dir);
    let seed_s = seed.to_string();
    let server = Server::start(&[
        &game.display().to_string(),
        "--seed",
        &seed_s,
        "--agent",
        "human",
        "--log",
        &log,
    ]);
    assert_eq!(server.seats.len(), n as usize, "{}", server.banner);
    let seen = play_out(&server, seed, 5000);
    // A game with a score names its winners at the end.
    if prog.game.score.is_some() {
        let end = &seen.last().expect("messages").1["end"];
        let winners = end["winners"].as_array().map_or(0, Vec::len);
        assert!(winners > 0, "{}: {end}", game.display());
    }
    let omni = omniscient(load(game), Path::new(&log));
    check_messages(&prog, &game.display().to_string(), n, &omni, &seen)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn no_seat_and_no_spectator_is_sent_a_hidden_card_in_any_game() {
    let games = rules::games_in(Path::new("games"));
    assert!(games.len() >= 5, "the five games");
    for game in games {
        let checked = serve_and_check(&game, 3);
        // The check had something to check: some card was hidden from somebody.
        assert!(checked > 0, "{}: nothing was ever hidden", game.display());
    }
}

#[test]
fn the_check_finds_a_hidden_card_named() {
    // The check must fail on a message naming a card its reader may not know: P1's first
    // message, with every card's name planted in it.
    let game = Path::new("games/the-establishment.rules");
    let prog = load(game);
    let n = rules::default_players(&prog);
    let dir = scratch("serve-planted");
    let log = log_of(&dir);
    let server = Server::start(&[
        &game.display().to_string(),
        "--seed",
        "1",
        "--log",
        &log,
        "--agent",
        "P1=human,P2=human,random",
    ]);
    let t1 = server.seats[0].clone().expect("P1 is human");
    let m1 = server.state(&t1);
    let omni = omniscient(load(game), Path::new(&log));
    // Unchanged, it passes.
    let seen = vec![(Some(0), m1.clone())];
    check_messages(&prog, "as sent", n, &omni, &seen).expect("P1's message as sent");
    let v = rules::interp::View {
        prog: &prog,
        n_players: n,
        zone_base: &[],
    };
    let every: Vec<String> = (0..prog.cards.len() as u32)
        .map(|c| v.card_name(c))
        .collect();
    let mut planted = m1.clone();
    planted["screen"] = J::from(every.join("; "));
    let seen = vec![(Some(0), planted)];
    let caught = check_messages(&prog, "planted", n, &omni, &seen);
    assert!(caught.is_err(), "the check missed the planted names");
}

/// Two human seats of The Establishment play it to its end through the server.
#[test]
fn two_people_play_the_establishment_to_the_end() {
    let dir = scratch("serve-two");
    let log = log_of(&dir);
    let server = Server::start(&[
        "games/the-establishment.rules",
        "--agent",
        "P1=human,P2=human,random",
        "--seed",
        "1",
        "--log",
        &log,
    ]);
    assert!(
        server.banner.contains("P1 http://127.0.0.1:"),
        "{}",
        server.banner
    );
    assert!(
        server.banner.contains("P2 http://127.0.0.1:"),
        "{}",
        server.banner
    );
    assert!(
        server.banner.contains("spectators http://"),
        "{}",
        server.banner
    );
    let seen = play_out(&server, 7, 5000);
    let last = &seen.last().expect("messages").1;
    assert!(last["end"]["scores"].is_array(), "{last}");
    // A placement's options come with the storyline's text beside each (choose's notes).
    let noted = seen.iter().any(|(_, m)| {
        let q = &m["question"];
        match (q["options"].as_array(), q["notes"].as_array()) {
            (Some(o), Some(n)) => {
                o.len() == n.len() && n.iter().any(|x| x.as_str().is_some_and(|t| !t.is_empty()))
            }
            _ => false,
        }
    });
    assert!(noted, "no question came with notes beside its options");
    assert!(last["end"]["reason"].is_string(), "{last}");
    // Each seat saw its own hand with its cards named.
    let p1 = seen
        .iter()
        .find(|(s, _)| *s == Some(0))
        .expect("P1's message");
    let mine: Vec<&J> = p1.1["zones"]
        .as_array()
        .expect("zones")
        .iter()
        .filter(|z| z["mine"] == true)
        .collect();
    assert!(!mine.is_empty(), "P1 has zones of their own: {}", p1.1);
    // Each seat's page is its screen: the game's own `screen` for it, zones named in words
    // with the cards it does not know counted, never listed, and no var the rules keep for
    // themselves (`internal`).
    let screen = p1.1["screen"].as_str().expect("P1's screen");
    assert!(screen.starts_with("--- what P1 sees"), "{screen}");
    assert!(screen.contains("Row 1"), "{screen}");
    for (seat, m) in &seen {
        for z in m["zones"].as_array().expect("zones") {
            let name = z["name"].as_str().unwrap_or("");
            assert!(
                !name.contains('_') && !name.contains('['),
                "a zone's bare name: {name}"
            );
            assert!(z["hidden"].is_u64(), "{z}");
            let listed = z["cards"].as_array().expect("cards");
            assert!(listed.iter().all(|c| c["hidden"].is_null()), "{z}");
        }
        let vars = m["vars"].as_array().expect("vars");
        assert!(
            vars.iter().all(|v| v["name"] != "Resolving"),
            "{seat:?} reads the internal var: {vars:?}"
        );
    }
    let piles = p1.1["zones"]
        .as_array()
        .expect("zones")
        .iter()
        .find(|z| z["name"] == "Story pile 1")
        .expect("story pile 1");
    assert!(piles["hidden"].as_u64().unwrap_or(0) > 20, "{piles}");
    // The end: no winner by these rules, and the game's own last lines (the epilogues).
    let end = &last["end"];
    assert_eq!(end["winners"], serde_json::json!([]), "{end}");
    let finals: Vec<&str> = end["final_lines"]
        .as_array()
        .expect("final lines")
        .iter()
        .filter_map(J::as_str)
        .collect();
    assert!(
        finals.iter().any(|l| l.starts_with("Epilogue 1:")),
        "{finals:?}"
    );
    assert!(finals.iter().any(|l| l.contains(" earned ")), "{finals:?}");
    // The tokens are kept beside the log, readable by the owner only.
    let tokens = format!("{log}.tokens");
    let meta = std::fs::metadata(&tokens).expect("tokens kept");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
    let _ = meta;
    let kept = std::fs::read_to_string(&tokens).expect("tokens");
    assert!(kept.contains(server.seats[0].as_deref().expect("P1")));
}

fn establishment(dir: &str, extra: &[&str]) -> Server {
    let dir = scratch(dir);
    let log = log_of(&dir);
    let mut args = vec![
        "games/the-establishment.rules",
        "--seed",
        "1",
        "--agent",
        "P1=human,P2=human,random",
        "--log",
    ];
    let log: &'static str = Box::leak(log.into_boxed_str());
    args.push(log);
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// The seat asked first, its token and its question.
fn asked(server: &Server) -> (usize, String, J) {
    for _ in 0..500 {
        for (k, t) in server.seats.iter().enumerate() {
            let Some(t) = t else { continue };
            let m = server.state(t);
            if m["question"].is_object() {
                return (k, t.clone(), m);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nobody was asked");
}

#[test]
fn stale_forged_and_duplicate_answers_are_refused() {
    let server = establishment("serve-refused", &[]);
    let (k, t, m) = asked(&server);
    let id = m["question"]["id"].as_u64().expect("id");
    let count = m["question"]["options"].as_array().expect("options").len();
    let other = server.seats[1 - k].clone().expect("the other seat");
    // Not this seat's question.
    let (code, body) = server.answer(&other, id, 0);
    assert_eq!(code, 409, "{body}");
    assert!(body.contains("not yours"), "{body}");
    // An option that does not exist.
    let (code, body) = server.answer(&t, id, count);
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("does not exist"), "{body}");
    // A question that is not the one asked.
    let (code, body) = server.answer(&t, id + 1000, 0);
    assert_eq!(code, 409, "{body}");
    assert!(body.contains("no longer asked"), "{body}");
    // A forged token.
    let (code, body) = server.answer("0123456789abcdef0123456789abcdef", id, 0);
    assert_eq!(code, 404, "{body}");
    // A spectator.
    let (code, body) = server.answer(&server.spectator, id, 0);
    assert_eq!(code, 403, "{body}");
    // The right answer, then the same again.
    let (code, body) = server.answer(&t, id, 0);
    assert_eq!(code, 200, "{body}");
    let (code, body) = server.answer(&t, id, 0);
    assert_eq!(code, 409, "{body}");
    assert!(
        body.contains("already answered")
            || body.contains("no longer asked")
            || body.contains("not yours"),
        "{body}"
    );
}

#[test]
fn hostile_clients_get_errors_and_the_game_goes_on() {
    let server = establishment("serve-hostile", &[]);
    let (_, t, m) = asked(&server);
    let path = format!("/s/{t}/answer");
    // Malformed bodies.
    for body in [
        &b"not json"[..],
        b"{\"question\": \"x\"}",
        b"[]",
        b"{}",
        &[0xff, 0xfe, 0x00],
    ] {
        let (code, reply) = request(&server.addr, "POST", &path, Some(body));
        assert_eq!(code, 400, "{reply}");
        assert!(reply.contains("error"), "{reply}");
    }
    // A wrong token, on every path.
    for p in ["/s/nope", "/s/nope/state", "/s/nope/events"] {
        let (code, _) = server.get(p);
        assert_eq!(code, 404, "{p}");
    }
    // A 10 MB body: refused before it is read.
    let big = vec![b'x'; 10 << 20];
    let (code, _) = request(&server.addr, "POST", &path, Some(&big));
    assert!(code == 413 || code == 0, "a 10 MB body got {code}");
    // A client that opens the live stream and never reads it.
    let mut sleeper = TcpStream::connect(&server.addr).expect("connect");
    write!(sleeper, "GET /s/{t}/events HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
    // A flood of requests from many connections at once.
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let addr = server.addr.clone();
            let path = path.clone();
            std::thread::spawn(move || {
                let mut codes = BTreeMap::new();
                for _ in 0..100 {
                    let (c, _) = request(
                        &addr,
                        "POST",
                        &path,
                        Some(b"{\"question\": 0, \"option\": 0}"),
                    );
                    *codes.entry(c).or_insert(0) += 1;
                }
                codes
            })
        })
        .collect();
    for th in threads {
        let codes = th.join().expect("flood");
        // Stale answers (409), or, past the seat's rate, too many (429).
        assert!(codes.keys().all(|c| *c == 409 || *c == 429), "{codes:?}");
    }
    // The page still answers, and the game plays to its end for everyone.
    assert_eq!(m["error"], J::Null);
    let seen = play_out(&server, 11, 5000);
    assert!(seen.last().expect("messages").1["end"].is_object());
    drop(sleeper);
}

#[test]
fn the_log_resumes_with_the_same_links() {
    let dir = scratch("serve-resume");
    let log = log_of(&dir);
    let (tokens, answered) = {
        let server = Server::start(&[
            "games/the-establishment.rules",
            "--agent",
            "P1=human,P2=human,random",
            "--seed",
            "1",
            "--log",
            &log,
        ]);
        // Answer a few questions, then stop the server.
        for _ in 0..3 {
            let (_, t, m) = asked(&server);
            let id = m["question"]["id"].as_u64().expect("id");
            let (code, body) = server.answer(&t, id, 0);
            assert_eq!(code, 200, "{body}");
            let _ = server.state_after(&t, m["version"].as_u64().expect("version"));
        }
        let (_, t, _) = asked(&server);
        let m = server.state(&t);
        (server.seats.clone(), m["account"].clone())
    };
    let save: SaveFile =
        serde_json::from_str(&std::fs::read_to_string(&log).expect("log")).expect("save");
    assert!(
        save.choices.len() >= 3,
        "the log holds the answers: {:?}",
        save.choices
    );
    let server = Server::start(&["games/the-establishment.rules", "--resume", &log]);
    assert_eq!(server.seats, tokens, "the same links");
    let (_, t, _) = asked(&server);
    let m = server.state(&t);
    assert_eq!(m["account"], answered, "the same position");
    // A resume with a damaged token file is refused.
    std::fs::write(format!("{log}.tokens"), "short\n").expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rules"))
        .args([
            "serve",
            "games/the-establishment.rules",
            "--resume",
            &log,
            "--port",
            "0",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tokens"));
}

#[test]
fn a_seat_is_handed_to_an_agent_and_back() {
    let mut server = establishment("serve-hand", &[]);
    let (k, t, m) = asked(&server);
    let seat = format!("P{}", k + 1);
    server.host(&format!("{seat} random"));
    // The agent answers the question waiting; the seat is no longer asked.
    let after = server.state_after(&t, m["version"].as_u64().expect("version"));
    let plays = after["seats"][k]["plays"].clone();
    assert_eq!(plays, "random", "{after}");
    server.host(&format!("{seat} human"));
    let mut back = after.clone();
    for _ in 0..100 {
        back = server.state(&t);
        if back["seats"][k]["plays"] == "human" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(back["seats"][k]["plays"], "human", "{back}");
    // A bad line is answered, and the game goes on.
    server.host("P9 dragon");
    assert!(server.is_running());
}

#[test]
fn undo_needs_every_person() {
    let server = establishment("serve-undo", &[]);
    let (_, t, m) = asked(&server);
    let id = m["question"]["id"].as_u64().expect("id");
    let (code, _) = server.answer(&t, id, 0);
    assert_eq!(code, 200);
    let m = server.state_after(&t, m["version"].as_u64().expect("version"));
    // P1's faction dealt P1 a hand from a shuffled deck: the faction is P1's to keep.
    assert_eq!(m["can_undo"], false, "{m}");
    let refused = m["undo_refused"].as_str().unwrap_or("");
    assert!(
        refused.contains("P1's last answer cannot be taken back"),
        "{m}"
    );
    // The next answer, a description card kept from those P1 holds, may be taken back.
    let id = m["question"]["id"].as_u64().expect("P1 is asked again");
    let (code, _) = server.answer(&t, id, 0);
    assert_eq!(code, 200);
    let m = server.state_after(&t, m["version"].as_u64().expect("version"));
    assert_eq!(m["can_undo"], true, "{m}");
    let before = m["events"].as_u64().expect("events");
    let q = m["undo_question"].as_u64().expect("a question waits");
    let tokens: Vec<String> = server.seats.iter().flatten().cloned().collect();
    let undo = |tok: &str, q: u64| {
        request(
            &server.addr,
            "POST",
            &format!("/s/{tok}/undo"),
            Some(format!(r#"{{"question": {q}}}"#).as_bytes()),
        )
    };
    // One person asks: nothing is taken back yet, and everyone sees the request.
    let (code, body) = undo(&tokens[0], q);
    assert_eq!(code, 200, "{body}");
    let m1 = server.state_after(&tokens[1], m["version"].as_u64().expect("version"));
    assert_eq!(m1["undo"]["agreed"], serde_json::json!(["P1"]), "{m1}");
    assert_eq!(m1["events"].as_u64(), Some(before));
    // The other agrees: the answer is taken back.
    let q = m1["undo_question"].as_u64().expect("question");
    let (code, body) = undo(&tokens[1], q);
    assert_eq!(code, 200, "{body}");
    let m2 = server.state_after(&tokens[1], m1["version"].as_u64().expect("version"));
    assert!(m2["events"].as_u64() < Some(before), "{m2}");
    assert!(m2["undo"].is_null());
    // A stale consent is refused.
    let (code, _) = undo(&tokens[0], q);
    assert_eq!(code, 409);
}

#[test]
fn repeated_undo_requests_neither_renumber_the_question_nor_write_the_log() {
    let server = establishment("serve-undo-spam", &[]);
    let log = std::path::PathBuf::from(&server.log);
    let mut answered = 0;
    for _ in 0..6 {
        let (k, t, m) = asked(&server);
        let id = m["question"]["id"].as_u64().expect("id");
        let other = server.seats[1 - k].clone().expect("the other seat");
        let before = (
            std::fs::read(&log).expect("the log"),
            std::fs::metadata(&log)
                .and_then(|d| d.modified())
                .expect("mtime"),
        );
        // The other seat asks to take back, again and again, between two answers.
        for _ in 0..4 {
            let q = server.state(&other)["undo_question"]
                .as_u64()
                .expect("a question waits");
            let (code, body) = request(
                &server.addr,
                "POST",
                &format!("/s/{other}/undo"),
                Some(format!(r#"{{"question": {q}}}"#).as_bytes()),
            );
            assert_eq!(code, 200, "{body}");
            std::thread::sleep(Duration::from_millis(40));
        }
        std::thread::sleep(Duration::from_millis(200));
        let after = (
            std::fs::read(&log).expect("the log"),
            std::fs::metadata(&log)
                .and_then(|d| d.modified())
                .expect("mtime"),
        );
        assert!(before == after, "an undo vote rewrote the log");
        // The question kept its number: the answer to it is taken.
        let m = server.state(&t);
        assert_eq!(m["question"]["id"].as_u64(), Some(id), "{m}");
        let (code, body) = server.answer(&t, id, 0);
        assert_eq!(code, 200, "{body}");
        answered += 1;
        server.state_after(&t, m["version"].as_u64().expect("version"));
    }
    assert_eq!(answered, 6);
}

#[test]
fn a_non_loopback_address_warns() {
    let dir = scratch("serve-bind");
    let log = log_of(&dir);
    let server = Server::start(&[
        "games/the-establishment.rules",
        "--seed",
        "1",
        "--bind",
        "0.0.0.0",
        "--log",
        &log,
    ]);
    assert!(server.banner.contains("warning:"), "{}", server.banner);
    let local = establishment("serve-bind-local", &[]);
    assert!(!local.banner.contains("warning:"), "{}", local.banner);
}

#[test]
fn the_page_and_its_assets_come_from_the_binary() {
    let server = establishment("serve-page", &[]);
    let t = server.seats[0].clone().expect("P1");
    let (code, page) = server.get(&format!("/s/{t}"));
    assert_eq!(code, 200);
    assert!(page.contains("<script src=\"/page.js\">"), "{page}");
    assert!(!page.contains("https://"), "no CDN");
    let (code, js) = server.get("/page.js");
    assert_eq!(code, 200);
    assert!(js.contains("EventSource"));
    let (code, _) = server.get("/page.css");
    assert_eq!(code, 200);
    // The live stream starts with the whole state.
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    write!(s, "GET /s/{t}/events HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
    let mut buf = vec![0u8; 65536];
    let mut got = Vec::new();
    while !String::from_utf8_lossy(&got).contains("data: {") {
        let n = s.read(&mut buf).expect("read");
        assert!(n > 0, "the stream closed");
        got.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&got).contains("text/event-stream"));
}

#[test]
fn a_connection_that_sends_nothing_is_dropped() {
    let server = establishment("serve-idle", &["--idle-seconds", "2"]);
    let t = server.seats[0].clone().expect("P1");
    // Sends nothing at all.
    let mut silent = TcpStream::connect(&server.addr).expect("connect");
    silent.set_read_timeout(Some(Duration::from_secs(20))).ok();
    let started = std::time::Instant::now();
    let mut buf = [0u8; 64];
    let n = silent.read(&mut buf).expect("closed, not timed out");
    assert_eq!(n, 0, "the server closes a silent connection");
    assert!(started.elapsed() < Duration::from_secs(15));
    // Half a request, then nothing.
    let mut half = TcpStream::connect(&server.addr).expect("connect");
    half.set_read_timeout(Some(Duration::from_secs(20))).ok();
    write!(half, "GET /s/{t}/state HTTP/1.1\r\nHost: x\r\n").expect("send");
    let started = std::time::Instant::now();
    let n = half.read(&mut buf).expect("closed, not timed out");
    assert_eq!(n, 0, "the server closes a request that never ends");
    assert!(started.elapsed() < Duration::from_secs(15));
    // The game is still served.
    assert!(server.state(&t)["question"].is_object() || server.state(&t)["waiting"].is_string());
}

/// Five people and fifty spectators on one game: every spectator's live stream sees the end,
/// and the answers are applied in the order they were given.
#[test]
fn five_seats_and_fifty_spectators_hold() {
    let dir = scratch("serve-load");
    let log = log_of(&dir);
    let server = Server::start(&[
        "games/the-establishment.rules",
        "--seed",
        "1",
        "--players",
        "5",
        "--log",
        &log,
    ]);
    assert_eq!(server.seats.iter().flatten().count(), 5);
    let watchers: Vec<_> = (0..50)
        .map(|_| {
            let addr = server.addr.clone();
            let token = server.spectator.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).expect("connect");
                s.set_read_timeout(Some(Duration::from_secs(120))).ok();
                write!(s, "GET /s/{token}/events HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
                let mut seen = Vec::new();
                let mut buf = vec![0u8; 65536];
                loop {
                    let n = s.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        return false;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    // Keep only the tail: enough to find the last message's end.
                    if seen.len() > 1 << 20 {
                        seen.drain(..seen.len() - (1 << 19));
                    }
                    let text = String::from_utf8_lossy(&seen);
                    if text.contains("\"end\":{") {
                        return true;
                    }
                }
            })
        })
        .collect();
    let seen = play_out(&server, 5, 20000);
    assert!(seen.last().expect("messages").1["end"].is_object());
    for w in watchers {
        assert!(
            w.join().expect("a spectator"),
            "a spectator's stream ended early"
        );
    }
    // Every answer given is in the log, in order: the log replays to the same end.
    let prog = load(Path::new("games/the-establishment.rules"));
    let omni = omniscient(prog, Path::new(&log));
    assert_eq!(omni.last().expect("events")["event"], "end");
}

/// The lowercase hex SHA-256 of `text`, as `sha256sum` prints it.
fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The first message of a seat's live stream (`/s/TOKEN/events`), as sent.
fn first_streamed(addr: &str, token: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).ok();
    write!(
        s,
        "GET /s/{token}/events HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut got = Vec::new();
    let mut buf = [0u8; 16384];
    while !String::from_utf8_lossy(&got).contains("\n\n") || !got.windows(5).any(|w| w == b"data:")
    {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&got).to_string()
}

/// Without `--seed`, no page, stream or message carries the seed while the game goes on: the
/// account starts with its SHA-256 commitment, the end shows the seed and the key, and the log
/// (with the tokens beside it, both its owner's only) keeps it.
#[test]
fn a_served_game_without_a_seed_keeps_it_secret_until_the_end() {
    let dir = scratch("serve-secret");
    let log = log_of(&dir);
    let server = Server::start(&[
        "games/the-establishment.rules",
        "--agent",
        "P1=human,P2=human,random",
        "--log",
        &log,
    ]);
    let save: SaveFile =
        serde_json::from_str(&std::fs::read_to_string(&log).expect("log")).expect("save");
    let seed = save.seed.to_string();
    let key = format!("{seed}:{}", save.salt.expect("a secret seed's salt"));
    let commitment = sha256(&key);
    assert!(!server.banner.contains(&seed), "{}", server.banner);
    assert!(server.banner.contains(&commitment), "{}", server.banner);
    let p1 = server.seats[0].clone().expect("P1");
    let streamed = first_streamed(&server.addr, &p1);
    assert!(streamed.contains("data:"), "{streamed}");
    assert!(!streamed.contains(&seed), "{streamed}");
    assert!(streamed.contains(&commitment), "{streamed}");
    let (code, page) = server.get(&format!("/s/{p1}"));
    assert_eq!(code, 200);
    assert!(!page.contains(&seed));
    let seen = play_out(&server, 5, 5000);
    for (who, m) in &seen {
        let text = m.to_string();
        if m["end"].is_object() {
            assert_eq!(m["end"]["seed_key"].as_str(), Some(key.as_str()), "{who:?}");
            assert!(
                text.contains(&format!("The secret seed was {seed}")),
                "{text}"
            );
        } else {
            assert!(!text.contains(&seed), "{who:?} was sent the seed: {text}");
            // The account's start, while it is still among the lines kept.
            let lines = m["account"].as_array().cloned().unwrap_or_default();
            for start in lines
                .iter()
                .filter_map(|l| l.as_str())
                .filter(|l| l.starts_with("== "))
            {
                assert!(start.contains(&commitment), "{start}");
            }
        }
    }
    assert!(seen.last().expect("messages").1["end"].is_object());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in [log.clone(), format!("{log}.tokens")] {
            let mode = std::fs::metadata(&f).expect("kept").permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{f}");
        }
    }
    // The game replays from its log: the same seed, and the end shows it.
    let text = std::fs::read_to_string(&log).expect("log");
    let save: SaveFile = serde_json::from_str(&text).expect("save");
    let omni = omniscient(
        load(Path::new("games/the-establishment.rules")),
        Path::new(&log),
    );
    assert_eq!(save.seed.to_string(), seed);
    assert_eq!(omni[0]["seed_sha256"].as_str(), Some(commitment.as_str()));
    assert_eq!(
        omni.last().expect("end")["seed_key"].as_str(),
        Some(key.as_str())
    );
}

/// A link, folder or FIFO where the log or its tokens go is refused before anything is served,
/// and nothing is written through it.
#[cfg(unix)]
#[test]
fn a_log_path_that_is_no_regular_file_is_refused() {
    let dir = scratch("serve-planted-log");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep").expect("write");
    let log = dir.join("game.json");
    let serve = |log: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rules"))
            .args([
                "serve",
                "games/the-establishment.rules",
                "--port",
                "0",
                "--no-qr",
            ])
            .arg("--log")
            .arg(log)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run")
    };
    std::os::unix::fs::symlink(&victim, &log).expect("symlink");
    let out = serve(&log);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    assert!(!dir.join("game.json.tokens").exists());
    // The tokens' path too.
    let log = dir.join("other.json");
    std::os::unix::fs::symlink(&victim, dir.join("other.json.tokens")).expect("symlink");
    let out = serve(&log);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
    // A folder.
    let folder = dir.join("folder.json");
    std::fs::create_dir(&folder).expect("mkdir");
    let out = serve(&folder);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("folder"));
}

/// A two-seat game of `game` served to two people on `seed`, played through by `waited_for`:
/// the server, the seats waited for in order, the options each was shown, and the log's path.
fn both_seats_waited_for(game: &str, seed: &str) -> (Server, Vec<(String, usize)>, String) {
    let stem = Path::new(game)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("game");
    let dir = scratch(&format!("serve-{stem}-{seed}"));
    let log = log_of(&dir);
    let server = Server::start(&[game, "--seed", seed, "--agent", "human", "--log", &log]);
    let waits = waited_for(&server);
    let seats: Vec<&str> = waits.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(seats, ["P1", "P2"], "{game}, seed {seed}: {waits:?}");
    (server, waits, log)
}

/// The seats a served game waits for, in order, each answering its first option, with the
/// number of options each was shown.
fn waited_for(server: &Server) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let spectator = server.spectator.clone();
    let mut m = server.state(&spectator);
    for _ in 0..50 {
        if !m["end"].is_null() {
            return out;
        }
        let Some(who) = m["waiting"].as_str().map(str::to_string) else {
            m = server.state_after(&spectator, m["version"].as_u64().expect("version"));
            continue;
        };
        let k: usize = who[1..].parse().expect("seat");
        let t = server.seats[k - 1].clone().expect("a person's seat");
        let mine = server.state(&t);
        let q = &mine["question"];
        let n = q["options"].as_array().map_or(0, Vec::len);
        out.push((who, n));
        let (code, body) = server.answer(&t, q["id"].as_u64().expect("id"), 0);
        assert_eq!(code, 200, "{body}");
        m = server.state_after(&spectator, m["version"].as_u64().expect("version"));
    }
    panic!("the game does not end: {out:?}");
}

#[test]
fn a_forced_secret_choice_keeps_its_seat_waited_on() {
    // Cut-down Skull: in seed 1 P1 holds the skull and P2 has one kind of tile to lay; in seed
    // 5 the other way round. The table sees the same waits either way.
    let mut shown = Vec::new();
    for seed in ["1", "5"] {
        let (_server, waits, log) = both_seats_waited_for("tests/table/skull.rules", seed);
        shown.push(waits.iter().map(|(_, n)| *n).collect::<Vec<_>>());
        // The log holds the one real answer, as a game without people would.
        let save: SaveFile =
            serde_json::from_str(&std::fs::read_to_string(&log).expect("log")).expect("a save");
        assert_eq!(save.choices.len(), 1, "seed {seed}: {:?}", save.choices);
    }
    assert_eq!(
        shown,
        [vec![2, 1], vec![1, 2]],
        "each seat saw its own options"
    );
}

#[test]
fn undo_is_refused_once_its_seat_saw_a_secret_answer() {
    // Rock-paper-scissors against an agent: P1's throw may not be taken back once P2's secret
    // throw was announced; "ready", before the throws, may.
    let dir = scratch("serve-rps-undo");
    let log = log_of(&dir);
    let server = Server::start(&[
        "tests/table/rps.rules",
        "--seed",
        "1",
        "--agent",
        "P1=human,random",
        "--log",
        &log,
    ]);
    let t = server.seats[0].clone().expect("P1 is a person");
    let undo = |q: u64| {
        request(
            &server.addr,
            "POST",
            &format!("/s/{t}/undo"),
            Some(format!(r#"{{"question": {q}}}"#).as_bytes()),
        )
    };
    let m = server.state(&t);
    let id = m["question"]["id"].as_u64().expect("ready?");
    assert_eq!(server.answer(&t, id, 0).0, 200);
    let m = server.state_after(&t, m["version"].as_u64().expect("version"));
    assert_eq!(m["question"]["prompt"], "Throw", "{m}");
    assert_eq!(m["can_undo"], true, "{m}");
    let id = m["question"]["id"].as_u64().expect("throw");
    assert_eq!(server.answer(&t, id, 0).0, 200);
    let m = server.state_after(&t, m["version"].as_u64().expect("version"));
    assert_eq!(m["question"]["prompt"], "Are you ready?", "{m}");
    assert_eq!(m["can_undo"], false, "{m}");
    let why = m["undo_refused"].as_str().unwrap_or("");
    assert!(
        why.contains("P1's last answer cannot be taken back: P2 has answered in secret since"),
        "{m}"
    );
    // Asked all the same: nothing is taken back.
    let q = m["undo_question"].as_u64().expect("question");
    let (code, body) = undo(q);
    assert_eq!(code, 200, "{body}");
    std::thread::sleep(Duration::from_millis(300));
    let after = server.state(&t);
    assert_eq!(after["events"], m["events"], "{after}");
    assert_eq!(after["round"], 2, "{after}");
    assert_eq!(after["question"]["prompt"], "Are you ready?", "{after}");
    assert_eq!(after["can_undo"], false, "{after}");
}

#[test]
fn a_forced_choice_among_hidden_cards_reads_like_any_other() {
    // Joker: a card that is not the Joker is played from a hidden hand, in the open. In seed 1
    // P1 holds the Joker (one card to play), in seed 5 P2 does: the waits and the spectators'
    // account are the same either way.
    let mut accounts = Vec::new();
    for seed in ["1", "5"] {
        let (server, _waits, _log) = both_seats_waited_for("tests/table/joker.rules", seed);
        let m = server.state(&server.spectator);
        let plays: Vec<String> = m["account"]
            .as_array()
            .expect("account")
            .iter()
            .filter_map(|l| l.as_str())
            .filter(|l| l.contains("Play a card"))
            .map(str::to_string)
            .collect();
        accounts.push(plays);
    }
    assert_eq!(accounts[0], accounts[1]);
    assert_eq!(
        accounts[0],
        [
            "  P1: Play a card -> a hidden card",
            "  P2: Play a card -> a hidden card"
        ]
    );
}

/// Whether page.js would show message `m` over `current`: its own test, read from the script,
/// is `if (current && m.instance === current.instance && m.version < current.version) return;`.
fn page_takes(current: &J, m: &J) -> bool {
    !(m["instance"] == current["instance"] && m["version"].as_u64() < current["version"].as_u64())
}

/// A stop that loses nothing: a second start of the same game over its log is refused, naming
/// `--resume` and `--new`; Ctrl-C says where the game is saved and the command to go on; that
/// command listens on the same port with the same links, and an open page takes the restarted
/// server's messages though their numbers start again.
#[test]
fn a_stopped_game_is_refused_a_second_start_and_resumed_on_the_same_links() {
    let dir = scratch("serve-stop");
    let log = log_of(&dir);
    let game = "games/the-establishment.rules";
    let args = [
        game,
        "--agent",
        "P1=human,P2=human,random",
        "--seed",
        "1",
        "--log",
        &log,
    ];
    let mut server = Server::start(&args);
    for _ in 0..3 {
        let (_, t, m) = asked(&server);
        let id = m["question"]["id"].as_u64().expect("id");
        let (code, body) = server.answer(&t, id, 0);
        assert_eq!(code, 200, "{body}");
        let _ = server.state_after(&t, m["version"].as_u64().expect("version"));
    }
    let (_, t, _) = asked(&server);
    // The page of the seat asked, as it stands before the stop.
    let before = server.state(&t);
    assert!(before["version"].as_u64() > Some(1), "{before}");
    let (code, said) = server.interrupt();
    assert_eq!(code, Some(130), "{said}");
    assert!(
        said.contains(&format!("the game is saved in {log}")),
        "{said}"
    );
    let command = format!("rules serve {game} --resume {log}");
    assert!(said.contains(&command), "{said}");
    // The same command again: refused, the log untouched.
    let kept = std::fs::read_to_string(&log).expect("log");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("serve")
        .args(args)
        .args(["--port", "0", "--no-qr"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds a stopped game"), "{err}");
    assert!(err.contains(&command) && err.contains("--new"), "{err}");
    assert_eq!(std::fs::read_to_string(&log).expect("log"), kept);
    // The command it named: the same port, the same links (no `--port` given).
    let resumed = Server::start_at(&[game, "--resume", &log], &[]);
    assert_eq!(resumed.addr, server.addr, "the same port and address");
    assert_eq!(resumed.seats, server.seats, "the same links");
    let after = resumed.state(&t);
    assert_eq!(after["question"]["prompt"], before["question"]["prompt"]);
    assert!(
        after["version"].as_u64() < before["version"].as_u64(),
        "the restarted server counts again: {} then {}",
        before["version"],
        after["version"]
    );
    assert!(
        page_takes(&before, &after),
        "the open page takes the new messages"
    );
    // ... and page.js decides so by that test.
    let (code, js) = resumed.get("/page.js");
    assert_eq!(code, 200);
    assert!(
        js.contains(
            "if (current && m.instance === current.instance && m.version < current.version) return;"
        ),
        "page.js's test changed: update `page_takes`"
    );
    // An answer on the page goes through.
    let id = after["question"]["id"].as_u64().expect("id");
    let (code, body) = resumed.answer(&t, id, 0);
    assert_eq!(code, 200, "{body}");
    // `--new` starts over.
    drop(resumed);
    let fresh = Server::start(&[game, "--seed", "2", "--log", &log, "--new"]);
    assert_ne!(fresh.seats, server.seats, "new links");
}

/// Listening on every interface, the links name this machine's address on its network, never
/// 0.0.0.0 or loopback, and a client reaches the game there.
#[test]
fn links_on_every_interface_name_the_network_address() {
    for flag in [&["--lan"][..], &["--bind", "0.0.0.0"][..]] {
        let dir = scratch(&format!("serve-lan{}", flag.len()));
        let log = log_of(&dir);
        let mut args = vec![
            "games/the-establishment.rules",
            "--seed",
            "1",
            "--log",
            &log,
        ];
        args.extend_from_slice(flag);
        let server = Server::start(&args);
        if server
            .banner
            .contains("no network address other machines reach")
        {
            // No network here: the banner says so (and what to do) instead.
            continue;
        }
        let links: Vec<&str> = server
            .banner
            .lines()
            .filter_map(|l| l.split_once(" http://").map(|(_, r)| r))
            .collect();
        assert!(!links.is_empty(), "{}", server.banner);
        for l in links {
            let host = l.split(':').next().unwrap_or("");
            let ip: std::net::IpAddr = host.parse().expect("an address");
            assert!(
                !ip.is_unspecified() && !ip.is_loopback(),
                "{}",
                server.banner
            );
        }
        assert!(!server.addr.starts_with("0.0.0.0"), "{}", server.banner);
        let t = server.seats[0].clone().expect("P1");
        assert!(server.state(&t)["game"].is_string());
    }
}

/// One seat flooding the server is answered 429 past its rate, and another seat's answer goes
/// through meanwhile, at once.
#[test]
fn a_flooding_seat_is_limited_and_the_other_seat_still_answers() {
    let server = establishment("serve-flood", &["--requests-per-second", "20"]);
    let (k, t, m) = asked(&server);
    let flooder = server.seats[1 - k].clone().expect("the other seat");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let addr = server.addr.clone();
            let path = format!("/s/{flooder}/undo");
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut codes = BTreeMap::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let (c, _) = request(&addr, "POST", &path, Some(b"{\"question\": 1}"));
                    *codes.entry(c).or_insert(0u32) += 1;
                }
                codes
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let id = m["question"]["id"].as_u64().expect("id");
    let started = std::time::Instant::now();
    let body = format!(r#"{{"question": {id}, "option": 0}}"#);
    let (code, reply) = request(
        &server.addr,
        "POST",
        &format!("/s/{t}/answer"),
        Some(body.as_bytes()),
    );
    let took = started.elapsed();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut all = BTreeMap::new();
    for th in threads {
        for (c, n) in th.join().expect("flood") {
            *all.entry(c).or_insert(0) += n;
        }
    }
    assert_eq!(code, 200, "{reply}");
    assert!(took < Duration::from_secs(5), "the answer took {took:?}");
    assert!(all.get(&429).copied().unwrap_or(0) > 0, "{all:?}");
    assert!(all.keys().all(|c| [200, 409, 429].contains(c)), "{all:?}");
}

/// A request's head trickled a byte at a time is cut at the head's deadline, however often a
/// byte comes; and strangers holding many connections open take no seat's.
#[test]
fn a_trickled_head_is_cut_and_strangers_do_not_crowd_out_a_seat() {
    let server = establishment("serve-trickle", &["--head-seconds", "2"]);
    let t = server.seats[0].clone().expect("P1");
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    let started = std::time::Instant::now();
    let head = format!("GET /s/{t}/state HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    let mut cut = false;
    for b in head.bytes().chain(std::iter::repeat(b'a')) {
        if s.write_all(&[b]).is_err() {
            cut = true;
            break;
        }
        if started.elapsed() > Duration::from_secs(12) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        cut,
        "a head trickled for {:?} was not cut",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    // 300 connections that send nothing: the seat's request is still answered at once.
    let silent: Vec<TcpStream> = (0..300)
        .filter_map(|_| TcpStream::connect(&server.addr).ok())
        .collect();
    assert!(silent.len() > 256, "{}", silent.len());
    std::thread::sleep(Duration::from_millis(300));
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    write!(
        s,
        "GET /s/{t}/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    let (code, _) = web::parse_response(&got);
    assert_eq!(code, 200, "the seat was locked out");
    drop(silent);
    // 260 spectators' live streams: those past the spectators' count are refused (503), and
    // the seat is still answered.
    let streams: Vec<TcpStream> = (0..260)
        .filter_map(|_| {
            let mut s = TcpStream::connect(&server.addr).ok()?;
            write!(
                s,
                "GET /s/{}/events HTTP/1.1\r\nHost: x\r\n\r\n",
                server.spectator
            )
            .ok()?;
            Some(s)
        })
        .collect();
    assert!(streams.len() > 256, "{}", streams.len());
    std::thread::sleep(Duration::from_millis(500));
    let started = std::time::Instant::now();
    let (code, body) = request(&server.addr, "GET", &format!("/s/{t}/state"), None);
    assert_eq!(code, 200, "{body}");
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(streams);
}

/// Live streams whose readers never read hold one message each, not a queue: a whole game
/// played past 100 of them leaves the server's memory about where it was.
#[test]
fn streams_that_never_read_hold_no_queue() {
    let mut server = establishment("serve-sleepers", &[]);
    let sleepers: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).expect("connect");
            write!(
                s,
                "GET /s/{}/events HTTP/1.1\r\nHost: x\r\n\r\n",
                server.spectator
            )
            .expect("send");
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let Some(before) = server.rss_kib() else {
        return;
    };
    let seen = play_out(&server, 3, 5000);
    assert!(seen.last().expect("messages").1["end"].is_object());
    // More messages, the largest (the whole account): P3 handed from one agent to another.
    let mut v = server.state(&server.spectator)["version"]
        .as_u64()
        .expect("version");
    let target = v + 400;
    for k in 0..400 {
        server.host(if k % 2 == 0 { "P3 first" } else { "P3 random" });
    }
    while v < target {
        v = server.state_after(&server.spectator, v)["version"]
            .as_u64()
            .expect("version");
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = server.rss_kib().expect("rss");
    let grown = after.saturating_sub(before);
    let size = server.state(&server.spectator).to_string().len();
    eprintln!("rss {before} KiB -> {after} KiB, the last message {size} bytes");
    assert!(
        grown < 20 * 1024,
        "the server grew by {grown} KiB: {before} -> {after}"
    );
    drop(sleepers);
}

/// The links and their QR codes fit on one screen: two seats' codes side by side, each of the
/// smallest size (version 3: 29 modules and the margin, 17 lines), the whole banner well under
/// the 63 lines it took.
#[test]
fn the_links_and_their_codes_fit_on_one_screen() {
    let dir = scratch("serve-qr");
    let log = log_of(&dir);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rules"))
        .args([
            "serve",
            "games/the-establishment.rules",
            "--seed",
            "1",
            "--agent",
            "P1=human,P2=human,random",
            "--lan",
            "--port",
            "0",
            "--log",
            &log,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        // No terminal: the codes are laid out for 80 columns.
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("serve");
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut banner = Vec::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut lines, &mut line).expect("read");
        assert!(n > 0, "{banner:?}");
        if line.starts_with("at this terminal") {
            break;
        }
        banner.push(line.trim_end_matches('\n').to_string());
    }
    let _ = child.kill();
    let _ = child.wait();
    let text = banner.join("\n");
    assert!(banner.len() <= 26, "{} lines:\n{text}", banner.len());
    let code: Vec<&String> = banner
        .iter()
        .filter(|l| l.contains('▀') || l.contains('█'))
        .collect();
    assert_eq!(code.len(), 17, "one row of codes, 17 lines:\n{text}");
    // Two codes side by side, 33 columns each and a gap.
    assert_eq!(code[0].chars().count(), 33 + 2 + 33, "{text}");
    assert!(text.contains("\nP1 ") && text.contains("\nP2 ") && text.contains("\nspectators "));
}

#[test]
fn a_served_search_answers_at_the_tables_pace() {
    // `tests/pace/forced.rules`: after each answer of P1's, P2 (a search) picks a token in secret
    // from its one and then a number, each a pace after the answer before it, so P1's next
    // question comes two paces after P1's answer at the earliest (a lower bound: a sleep lasts at
    // least its time).
    let dir = scratch("serve-pace");
    let log = log_of(&dir);
    let server = Server::start(&[
        "tests/pace/forced.rules",
        "--seed",
        "1",
        "--agent",
        "P1=human,P2=mc:20",
        "--pace",
        "1s",
        "--log",
        &log,
    ]);
    let t = server.seats[0].clone().expect("P1 is a person");
    let mut m = server.state(&t);
    for _ in 0..50 {
        if m["question"].is_object() {
            break;
        }
        m = server.state_after(&t, m["version"].as_u64().expect("version"));
    }
    let id = m["question"]["id"].as_u64().expect("P1 is asked");
    let start = std::time::Instant::now();
    let (code, body) = server.answer(&t, id, 0);
    assert_eq!(code, 200, "{body}");
    // At once, every page is told the game goes on (nobody asked, nobody waited on), and not
    // left showing the question answered until P2's paced answers are in.
    let spectator = server.spectator.clone();
    let moving = server.state_after(&spectator, m["version"].as_u64().expect("version"));
    assert!(
        moving["question"].is_null() && moving["waiting"].is_null(),
        "{moving}"
    );
    for _ in 0..50 {
        m = server.state_after(&t, m["version"].as_u64().expect("version"));
        if m["question"]["id"].as_u64().is_some_and(|q| q != id) {
            break;
        }
    }
    assert!(m["question"].is_object(), "P1 is asked again: {m}");
    let took = start.elapsed();
    assert!(
        took >= Duration::from_secs(2),
        "P2's two answers came {took:?} after P1's"
    );
}

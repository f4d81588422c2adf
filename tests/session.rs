//! The REPL's model: undo, redo, save and load at random points of random games.

use rules::limits::Limits;
use rules::program::Program;
use rules::session::{Auto, Mode, Session, Stop, Until};
use std::path::Path;

fn program() -> Program {
    let c = rules::check_path(
        Path::new("games/the-establishment.rules"),
        &Limits::default(),
    );
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

/// A small deterministic generator for picking options and points in the tests.
struct Pick(u64);
impl Pick {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// What identifies a position: the choices, where it stopped, the account and the state's summary.
fn fingerprint(s: &Session) -> String {
    format!(
        "{:?}|{:?}|{:?}|{}|{:?}",
        s.answers(),
        s.stop,
        s.pending,
        s.events.len(),
        (
            s.state.round,
            s.state.phase,
            &s.state.zones,
            &s.state.card_vars,
            &s.state.face_up
        )
    )
}

fn play_some(s: &mut Session, pick: &mut Pick, moves: usize) {
    for _ in 0..moves {
        match (&s.stop, &s.pending) {
            (Stop::Done, _) => return,
            (_, Some(p)) => {
                let n = p.options.len();
                s.choose(pick.next(n)).expect("choose");
            }
            _ => s.advance(Until::Choice, Auto::Off),
        }
        assert!(s.error.is_none(), "{:?}", s.error);
    }
}

#[test]
fn a_session_plays_to_the_end() {
    let mut s = Session::new(program(), 4, 3, Limits::default()).expect("session");
    s.modes = vec![Mode::Random; 4];
    s.advance(Until::End, Auto::Off);
    assert_eq!(s.stop, Stop::Done);
    assert!(s.answers().len() > 40);
    // Determinism: the same seed and agents give the same game.
    let mut t = Session::new(program(), 4, 3, Limits::default()).expect("session");
    t.modes = vec![Mode::Random; 4];
    t.advance(Until::End, Auto::Off);
    assert_eq!(fingerprint(&s), fingerprint(&t));
}

#[test]
fn undo_and_redo_round_trip_at_random_points() {
    let prog = program();
    for seed in 0..6u64 {
        let mut pick = Pick(0x9E37_79B9 ^ (seed + 1));
        let mut s = Session::new(prog.clone(), 3 + (seed % 3) as u32, seed, Limits::default())
            .expect("session");
        let moves = 5 + pick.next(40);
        play_some(&mut s, &mut pick, moves);
        let before = fingerprint(&s);
        let available = s.can_undo();
        let k = 1 + pick.next(available.max(1));
        let undone = s.undo(k);
        assert_eq!(
            undone,
            k.min(available),
            "seed {seed}: undo {k} of {available}"
        );
        assert_eq!(s.can_redo(), undone);
        if undone > 0 {
            assert_ne!(fingerprint(&s), before, "seed {seed}: undo changed nothing");
        }
        for _ in 0..undone {
            assert!(s.redo());
        }
        assert_eq!(fingerprint(&s), before, "seed {seed}: undo {k} then redo");
        // Undo one move, then make the same choice again by hand: the same choices follow.
        let answers = s.answers().to_vec();
        if s.undo(1) == 1 {
            let kept = s.answers().len();
            assert_eq!(
                s.answers(),
                &answers[..kept],
                "seed {seed}: undo keeps a prefix"
            );
            if let (Some(next), Some(_)) = (answers.get(kept), s.pending.as_ref()) {
                s.choose(next.index).expect("choose");
                assert_eq!(
                    s.answers()[..=kept],
                    answers[..=kept],
                    "seed {seed}: the same choice again"
                );
            }
        }
    }
}

#[test]
fn undo_goes_back_to_the_same_pending_choice() {
    let mut s = Session::new(program(), 4, 11, Limits::default()).expect("session");
    s.advance(Until::Choice, Auto::Off);
    let first = fingerprint(&s);
    let pending = s.pending.clone().expect("a choice waits");
    s.choose(0).expect("choose");
    assert_ne!(fingerprint(&s), first);
    s.undo(1);
    assert_eq!(s.pending.as_ref(), Some(&pending));
    assert_eq!(fingerprint(&s), first);
}

#[test]
fn save_load_save_is_byte_identical_and_play_continues_the_same() {
    let prog = program();
    for seed in [1u64, 5, 9] {
        let mut pick = Pick(seed * 7 + 3);
        let mut s = Session::new(prog.clone(), 4, seed, Limits::default()).expect("session");
        let moves = 10 + pick.next(30);
        play_some(&mut s, &mut pick, moves);
        let saved =
            serde_json::to_string_pretty(&s.save("games/the-establishment.rules")).expect("json");
        let file: rules::session::SaveFile = serde_json::from_str(&saved).expect("parse");
        let (mut loaded, misfit) =
            Session::load(prog.clone(), &file, Limits::default()).expect("load");
        assert_eq!(misfit, None);
        let again = serde_json::to_string_pretty(&loaded.save("games/the-establishment.rules"))
            .expect("json");
        assert_eq!(saved, again, "seed {seed}");
        assert_eq!(fingerprint(&loaded), fingerprint(&s));
        // Playing on from the loaded session matches playing on without saving.
        let mut p1 = Pick(seed);
        let mut p2 = Pick(seed);
        play_some(&mut s, &mut p1, 15);
        play_some(&mut loaded, &mut p2, 15);
        assert_eq!(fingerprint(&s), fingerprint(&loaded), "seed {seed}");
    }
}

#[test]
fn steps_stop_at_phase_and_round_boundaries() {
    let mut s = Session::new(program(), 3, 2, Limits::default()).expect("session");
    s.modes = vec![Mode::First; 3];
    s.advance(Until::Phase, Auto::Off);
    assert!(matches!(s.stop, Stop::Boundary { .. }), "{:?}", s.stop);
    s.advance(Until::Round, Auto::Off);
    assert_eq!(s.where_now().0, 2, "{:?}", s.stop);
    s.advance(Until::End, Auto::Off);
    assert_eq!(s.stop, Stop::Done);
}

#[test]
fn auto_answers_a_number_of_choices() {
    let mut s = Session::new(program(), 4, 4, Limits::default()).expect("session");
    s.advance(Until::Choice, Auto::Off);
    let before = s.answers().len();
    s.advance(Until::Choice, Auto::Choices(5));
    assert_eq!(s.answers().len(), before + 5);
    assert!(s.pending.is_some());
}

#[test]
fn expressions_are_evaluated_against_the_position() {
    let mut s = Session::new(program(), 4, 6, Limits::default()).expect("session");
    let mut env = Vec::new();
    s.modes = vec![Mode::Random; 4];
    s.advance(Until::Round, Auto::Off); // from before setup: to the start of round 1
    assert_eq!(s.eval("round", &mut env, None).expect("eval"), "1");
    s.advance(Until::Round, Auto::Off);
    assert_eq!(s.eval("round", &mut env, None).expect("eval"), "2");
    assert_eq!(s.eval("len(players)", &mut env, None).expect("eval"), "4");
    let score = s.eval("side_score(1, Left)", &mut env, None).expect("eval");
    assert!(score.parse::<i64>().is_ok(), "{score}");
    let err = s
        .eval("side_scor(1, Left)", &mut env, None)
        .expect_err("unknown name");
    assert!(err
        .0
        .iter()
        .any(|d| d.help.as_deref() == Some("did you mean `side_score`?")));
}

#[test]
fn a_typed_line_cannot_ask_for_a_choice() {
    let s = Session::new(program(), 4, 1, Limits::default()).expect("session");
    let err = s
        .eval("choose(P1, [1, 2], \"pick\")", &mut Vec::new(), None)
        .expect_err("no choices");
    assert!(
        err.0.iter().any(|d| d.code == "repl::choice"),
        "{:?}",
        err.0
    );
    // A choice with one option is no choice at all, and works.
    assert_eq!(
        s.eval("choose(P1, [7], \"pick\")", &mut Vec::new(), None)
            .expect("eval"),
        "7"
    );
}

#[test]
fn reload_says_where_the_replay_stops_fitting() {
    // A copy of the game in a scratch folder, so the test can edit its rules.
    let dir = std::env::temp_dir().join(format!("rules-reload-{}", std::process::id()));
    let cards = dir.join("the-establishment");
    std::fs::create_dir_all(&cards).unwrap();
    std::fs::copy(
        "games/the-establishment.rules",
        dir.join("the-establishment.rules"),
    )
    .unwrap();
    for e in std::fs::read_dir("games/the-establishment").unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, cards.join(p.file_name().unwrap())).unwrap();
    }
    let main = dir.join("the-establishment.rules");
    let load = || {
        let c = rules::check_path(&main, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        c.program.expect("program")
    };
    let mut s = Session::new(load(), 4, 2, Limits::default()).expect("session");
    s.modes = vec![Mode::First; 4];
    s.advance(Until::Round, Auto::Off);
    s.advance(Until::Round, Auto::Off);
    let made = s.answers().len();
    assert!(made > 10);
    // Unchanged rules: every choice fits.
    assert_eq!(s.reload(load()).expect("reload"), None);
    assert_eq!(s.answers().len(), made);
    // Keep 2 description cards instead of 3: the replay stops at the first choice that differs.
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        text.replace("const description_keep = 3", "const description_keep = 2"),
    )
    .unwrap();
    let misfit = s
        .reload(load())
        .expect("reload")
        .expect("the replay no longer fits");
    assert!(misfit.starts_with("choice "), "{misfit}");
    let fit = s.answers().len();
    assert!(fit < made);
    // The choices that did not fit are kept for `:redo`: with the rules still changed it
    // replays no further, and keeps them.
    assert!(s.can_redo() > 0, "the rest is kept for redo");
    assert!(s.redo());
    assert_eq!(s.answers().len(), fit);
    // Mended and reloaded, `:redo` plays every one of them again.
    std::fs::write(&main, &text).unwrap();
    assert_eq!(s.reload(load()).expect("reload"), None);
    assert_eq!(s.answers().len(), fit);
    assert!(s.redo());
    assert_eq!(s.answers().len(), made);
    std::fs::remove_dir_all(&dir).ok();
}

/// `random` in the REPL is `rules run`'s random agent: the same seed plays the same game.
#[test]
fn random_agents_play_the_same_game_as_rules_run() {
    for (game, players) in [
        ("games/the-establishment.rules", 3),
        ("games/statecraft", 4),
        ("games/ambition", 4),
    ] {
        let prog = rules::check_path(Path::new(game), &Limits::default())
            .program
            .expect("checks");
        let mut s = Session::new(prog, players, 5, Limits::default()).expect("session");
        s.modes = vec![Mode::Random; players as usize];
        // Undo and redo on the way: replays draw as the first run did.
        s.advance(Until::Round, Auto::Off);
        assert_eq!(s.undo(1), 1);
        assert!(s.redo());
        s.advance(Until::End, Auto::Off);
        let repl: Vec<String> = s
            .answers()
            .iter()
            .map(|a| format!("P{} {}", a.player + 1, a.index + 1))
            .collect();
        let log = std::env::temp_dir().join(format!(
            "rules-same-game-{}-{players}.log",
            std::process::id()
        ));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rules"))
            .args(["run", game, "--seed", "5", "--players"])
            .arg(players.to_string())
            .arg("--log")
            .arg(&log)
            .output()
            .expect("rules run");
        assert!(out.status.success(), "{game}");
        let text = std::fs::read_to_string(&log).expect("log");
        let run: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect();
        assert!(run.len() > 10, "{game}: {text}");
        assert_eq!(repl, run, "{game}");
        std::fs::remove_file(&log).ok();
    }
}

#[test]
fn options_are_kept_in_saves_and_reloads() {
    let c = rules::check_path(
        std::path::Path::new("tests/flow/options_default.rules"),
        &rules::limits::Limits::default(),
    );
    let prog = c.program.expect("checked");
    let s = Session::with_options(
        prog.clone(),
        2,
        1,
        vec!["hand=4".into()],
        rules::limits::Limits::default(),
    )
    .expect("session");
    let saved = s.save("tests/flow/options_default.rules");
    assert_eq!(saved.options, vec!["hand=4".to_string()]);
    let text = serde_json::to_string(&saved).expect("json");
    let file: rules::session::SaveFile = serde_json::from_str(&text).expect("parse");
    let (mut loaded, misfit) =
        Session::load(prog.clone(), &file, rules::limits::Limits::default()).expect("load");
    assert!(misfit.is_none());
    let mut env = Vec::new();
    assert_eq!(loaded.eval("hand", &mut env, None).expect("eval"), "4");
    assert_eq!(loaded.reload(prog).expect("reload"), None);
    assert_eq!(loaded.eval("hand", &mut env, None).expect("eval"), "4");
    // A save from before options existed reads as a game with none set.
    let old = text.replace(",\"options\":[\"hand=4\"]", "");
    let file: rules::session::SaveFile = serde_json::from_str(&old).expect("old save");
    assert!(file.options.is_empty());
}

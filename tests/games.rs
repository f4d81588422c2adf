//! Whole games: many seeds finish, and a seed plus a choice log replays the same game.

use rules::agent::{Agent, Script, ScriptAgent};
use rules::events::Event;
use rules::interp::Interp;
use rules::limits::Limits;
use rules::program::Program;
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

fn load(game: &str) -> Program {
    let c = rules::check_path(Path::new(game), &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    c.program.expect("program")
}

fn play(prog: &Program, n: u32, seed: u64, agents: Vec<Box<dyn Agent>>) -> (Vec<Event>, String) {
    play_agents_with(prog, n, seed, agents, &[])
}

#[test]
fn establishment_random_games_finish() {
    let prog = load("games/the-establishment.rules");
    for seed in 0..50u64 {
        let n = 3 + (seed % 3) as u32;
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (events, _) = play(&prog, n, seed, agents);
        // Four rounds, three resolutions each, three epilogues.
        let rounds = events
            .iter()
            .filter(|e| matches!(e, Event::Round { .. }))
            .count();
        assert_eq!(rounds, 4, "seed {seed}");
        let epilogues = events
            .iter()
            .filter(|e| matches!(e, Event::Say { text, .. } if text.starts_with("Epilogue")))
            .count();
        assert_eq!(epilogues, 3, "seed {seed}");
        // Every player placed three influencers per round, or passed for want of a legal one.
        let placements = events
            .iter()
            .filter(|e| matches!(e, Event::Choice { prompt, .. } if prompt.starts_with("Place")))
            .count();
        let passes = events
            .iter()
            .filter(|e| matches!(e, Event::Say { text, .. } if text.contains("no legal placement")))
            .count();
        assert_eq!(placements + passes, 4 * 3 * n as usize, "seed {seed}");
    }
}

#[test]
fn same_seed_and_log_replay_the_same_game() {
    let prog = load("games/the-establishment.rules");
    for seed in [3u64, 17, 99] {
        let n = 4;
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (events, log) = play(&prog, n, seed, agents);
        assert!(!log.is_empty());
        // The same seed again gives the same stream.
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (again, log2) = play(&prog, n, seed, agents);
        assert_eq!(events, again);
        assert_eq!(log, log2);
        // Replaying the log as a script gives the same stream too.
        let script = Rc::new(RefCell::new(Script::parse("log", &log)));
        let agents: Vec<Box<dyn Agent>> = (0..n)
            .map(|_| Box::new(ScriptAgent(script.clone())) as Box<dyn Agent>)
            .collect();
        let (replayed, log3) = play(&prog, n, seed, agents);
        assert_eq!(events, replayed);
        assert_eq!(log, log3);
    }
}

#[test]
fn different_seeds_give_different_games() {
    let prog = load("games/the-establishment.rules");
    let a = play(
        &prog,
        4,
        1,
        rules::agent::make_agents("random", 4, 1).expect("agents"),
    )
    .0;
    let b = play(
        &prog,
        4,
        2,
        rules::agent::make_agents("random", 4, 2).expect("agents"),
    )
    .0;
    assert_ne!(a, b);
}

#[test]
fn hegemony_campaigns_finish_and_name_a_hegemony() {
    let prog = load("games/hegemony");
    for seed in 0..50u64 {
        let n = [15u32, 12, 21, 16, 13][(seed % 5) as usize];
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (events, _) = play(&prog, n, seed, agents);
        let sessions = events
            .iter()
            .filter(|e| matches!(e, Event::Round { .. }))
            .count();
        assert_eq!(sessions, 3, "seed {seed}");
        let named = events
            .iter()
            .any(|e| matches!(e, Event::Say { text, .. } if text.contains("becomes the Hegemony")));
        assert!(named, "seed {seed}: no Hegemony named");
        let final_word = events
            .iter()
            .any(|e| matches!(e, Event::Say { text, .. } if text.starts_with("The Hegemony ")));
        assert!(final_word, "seed {seed}: the final crisis had no outcome");
        assert!(
            matches!(events.last(), Some(Event::End { winners, .. }) if !winners.is_empty()),
            "seed {seed}"
        );
    }
}

#[test]
fn hegemony_replays_from_seed_and_log() {
    let prog = load("games/hegemony");
    let agents = rules::agent::make_agents("random", 15, 4).expect("agents");
    let (events, log) = play(&prog, 15, 4, agents);
    let script = Rc::new(RefCell::new(Script::parse("log", &log)));
    let agents: Vec<Box<dyn Agent>> = (0..15)
        .map(|_| Box::new(ScriptAgent(script.clone())) as Box<dyn Agent>)
        .collect();
    let (replayed, _) = play(&prog, 15, 4, agents);
    assert_eq!(events, replayed);
}

/// A player's final score, from the game's `End` event.
fn final_score(events: &[Event], player: &str) -> Option<i64> {
    events.iter().rev().find_map(|e| match e {
        Event::End { scores, .. } => scores.iter().find(|(p, _)| p == player).map(|(_, s)| *s),
        _ => None,
    })
}

/// Hegemony's final session scored as printed, in whole games by random agents. Seed 4 (15
/// players): Faction B becomes the Hegemony. P10, its Science Officer with "Really Like Your
/// Job", has 13 office + 13 personal points after session 3; in the Hegemony session the Leader
/// adopts P10's plan (+2) with 5 Research (+5): 20 office points, doubled ("Double the benefit of
/// all office goal points"): 40. The Leader, P6, is present in a fourth session: 1 more point
/// (20). P4, Faction A's Radical Politico, leads its faction after session 3 and goes to the
/// Hegemony as its representative: the Hegemony is blown up. Seed 1 (12 players): Faction A is
/// the Hegemony, and P1, its Leader and Assistant, gets 1 + 2 points for the Hegemony session.
#[test]
fn hegemony_final_session_is_scored_as_printed() {
    let prog = load("games/hegemony");
    let agents = rules::agent::make_agents("random", 15, 4).expect("agents");
    let (events, _) = play(&prog, 15, 4, agents);
    assert_eq!(final_score(&events, "P10"), Some(40));
    assert_eq!(final_score(&events, "P6"), Some(20));
    let said = |events: &[Event], s: &str| {
        events
            .iter()
            .any(|e| matches!(e, Event::Say { text, .. } if text.contains(s)))
    };
    assert!(said(&events, "P4 takes over from P8"));
    assert!(said(&events, "destroyed from within by a Radical Politico"));
    let agents = rules::agent::make_agents("random", 12, 1).expect("agents");
    let (events, _) = play(&prog, 12, 1, agents);
    assert!(said(&events, "Faction A becomes the Hegemony"));
    assert_eq!(final_score(&events, "P1"), Some(34));
}

/// A game with options set, played to the end by random agents.
fn play_with(prog: &Program, n: u32, seed: u64, sets: &[&str]) -> (Vec<Event>, String) {
    let agents = rules::agent::make_agents("random", n, seed).expect("agents");
    play_agents_with(prog, n, seed, agents, sets)
}

fn has_winner(events: &[Event]) -> bool {
    matches!(events.last(), Some(Event::End { winners, .. }) if !winners.is_empty())
}

#[test]
fn statecraft_quickplay_finishes_for_every_player_count() {
    let prog = load("games/statecraft");
    for n in 2..=6u32 {
        for seed in 0..50u64 {
            let (events, _) = play_with(&prog, n, seed, &[]);
            assert!(has_winner(&events), "{n} players, seed {seed}");
            // Democratic Election: eight turns each, a round being one turn for everyone.
            let rounds = events
                .iter()
                .filter(|e| matches!(e, Event::Round { .. }))
                .count();
            assert!(rounds <= 9, "{n} players, seed {seed}: {rounds} rounds");
        }
    }
}

#[test]
fn statecraft_every_scenario_finishes_in_an_advanced_game() {
    let prog = load("games/statecraft");
    let scenarios = prog
        .cards
        .iter()
        .filter(|c| prog.kinds[c.kind as usize].name == "Scenario")
        .count();
    assert!(scenarios >= 5);
    for sc in 1..=scenarios {
        for seed in 0..50u64 {
            let n = 2 + (seed % 5) as u32;
            let events_set = format!("events={}", 1 + seed % 3);
            let sc_set = format!("scenario_no={sc}");
            let (events, _) = play_with(&prog, n, seed, &["setup=Advanced", &sc_set, &events_set]);
            assert!(has_winner(&events), "scenario {sc}, seed {seed}");
        }
    }
}

#[test]
fn statecraft_replays_from_seed_and_log() {
    let prog = load("games/statecraft");
    let sets = ["setup=Advanced", "events=3"];
    let (events, log) = play_with(&prog, 4, 9, &sets);
    let script = Rc::new(RefCell::new(Script::parse("log", &log)));
    let agents: Vec<Box<dyn Agent>> = (0..4)
        .map(|_| Box::new(ScriptAgent(script.clone())) as Box<dyn Agent>)
        .collect();
    let options = rules::options::parse_sets(&prog, &sets.map(String::from)).expect("options");
    let mut interp = Interp::new(&prog, 4, 9, agents, Limits::default()).expect("interp");
    for (id, v) in options {
        interp.set_option(id, v);
    }
    interp.run().expect("replay");
    assert_eq!(events, interp.events);
}

#[test]
fn ambition_random_games_finish_for_every_player_count() {
    let prog = load("games/ambition");
    for n in 2..=6u32 {
        for seed in 0..50u64 {
            let agents = rules::agent::make_agents("random", n, seed).expect("agents");
            let (events, _) = play(&prog, n, seed, agents);
            let rounds = events
                .iter()
                .filter(|e| matches!(e, Event::Round { .. }))
                .count();
            // Armageddon, or the round cap of the `max_rounds` option (40).
            let doom = events.iter().any(
                |e| matches!(e, Event::Say { text, .. } if text.starts_with("Armageddon: the world burns")),
            );
            assert!(
                doom || rounds == 40,
                "{n} players, seed {seed}: {rounds} rounds"
            );
            assert!(rounds <= 40, "{n} players, seed {seed}");
            assert!(
                matches!(events.last(), Some(Event::End { winners, .. }) if !winners.is_empty()),
                "{n} players, seed {seed}: no winner"
            );
        }
    }
}

#[test]
fn ambition_replays_from_seed_and_log() {
    let prog = load("games/ambition");
    for (n, seed) in [(2u32, 5u64), (4, 11), (6, 23)] {
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (events, log) = play(&prog, n, seed, agents);
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (again, _) = play(&prog, n, seed, agents);
        assert_eq!(events, again);
        let script = Rc::new(RefCell::new(Script::parse("log", &log)));
        let agents: Vec<Box<dyn Agent>> = (0..n)
            .map(|_| Box::new(ScriptAgent(script.clone())) as Box<dyn Agent>)
            .collect();
        let (replayed, log2) = play(&prog, n, seed, agents);
        assert_eq!(events, replayed);
        assert_eq!(log, log2);
    }
}

/// A game with options set, played to the end by the given agents; its events and choice log.
fn play_agents_with(
    prog: &Program,
    n: u32,
    seed: u64,
    agents: Vec<Box<dyn Agent>>,
    sets: &[&str],
) -> (Vec<Event>, String) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let options = rules::options::parse_sets(prog, &sets).expect("options");
    let mut interp = Interp::new(prog, n, seed, agents, Limits::default()).expect("interp");
    for (id, v) in options {
        interp.set_option(id, v);
    }
    if let Err(d) = interp.run() {
        panic!("seed {seed} {sets:?}: {}", d.render(&prog.sources));
    }
    let log: String = interp
        .choice_log
        .iter()
        .map(|r| format!("P{} {} {}\n", r.player + 1, r.index + 1, r.label))
        .collect();
    (interp.events, log)
}

fn deep_state_counted(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::Say { text, .. } if text.ends_with(" Influence")))
}

#[test]
fn deep_state_games_finish_for_every_player_count() {
    let prog = load("games/deep-state");
    for n in 2..=5u32 {
        for seed in 0..50u64 {
            let agents = rules::agent::make_agents("random", n, seed).expect("agents");
            let (events, _) = play_agents_with(&prog, n, seed, agents, &[]);
            assert!(
                deep_state_counted(&events),
                "{n} players, seed {seed}: no final count"
            );
            assert!(
                matches!(events.last(), Some(Event::End { winners, .. }) if !winners.is_empty()),
                "{n} players, seed {seed}: no winner"
            );
        }
    }
}

#[test]
fn deep_state_solo_games_against_hoc_finish() {
    let prog = load("games/deep-state");
    let levels = ["Beginner", "Normal", "Hard", "UltraHard"];
    for seed in 0..50u64 {
        let level = format!("difficulty={}", levels[(seed % 4) as usize]);
        let identity = if seed % 2 == 0 {
            "identity=Male"
        } else {
            "identity=Female"
        };
        let agents = rules::agent::make_agents("random", 2, seed).expect("agents");
        let sets = ["solo=true", level.as_str(), identity];
        let (events, _) = play_agents_with(&prog, 2, seed, agents, &sets);
        assert!(
            deep_state_counted(&events),
            "solo seed {seed}: no final count"
        );
        // HOC plays by the rules: it is never asked a question.
        let asked_hoc = events
            .iter()
            .any(|e| matches!(e, Event::Choice { player, .. } if player == "P2"));
        assert!(!asked_hoc, "solo seed {seed}: HOC was asked to choose");
        let hoc_acted = events
            .iter()
            .any(|e| matches!(e, Event::Say { text, .. } if text.starts_with("P2 sends")));
        assert!(hoc_acted, "solo seed {seed}: HOC never infiltrated");
        assert!(
            matches!(events.last(), Some(Event::End { winners, .. }) if !winners.is_empty()),
            "solo seed {seed}: no winner"
        );
    }
}

#[test]
fn deep_state_replays_from_seed_and_log() {
    let prog = load("games/deep-state");
    for (n, seed, sets) in [
        (4u32, 7u64, vec![]),
        (2, 3, vec!["solo=true", "difficulty=Hard"]),
    ] {
        let agents = rules::agent::make_agents("random", n, seed).expect("agents");
        let (events, log) = play_agents_with(&prog, n, seed, agents, &sets);
        assert!(!log.is_empty());
        let script = Rc::new(RefCell::new(Script::parse("log", &log)));
        let agents: Vec<Box<dyn Agent>> = (0..n)
            .map(|_| Box::new(ScriptAgent(script.clone())) as Box<dyn Agent>)
            .collect();
        let (replayed, log2) = play_agents_with(&prog, n, seed, agents, &sets);
        assert_eq!(events, replayed, "{n} players, seed {seed}");
        assert_eq!(log, log2);
    }
}

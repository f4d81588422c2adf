//! `mc:N/bot:NAME` and `ismcts:N/bot:NAME`: a search whose playouts the game's own bot plays
//! out finds a plan random playouts miss (`tests/bot_playouts/long_shot.rules`); the spec is read
//! and refused as `--agent` is; a game with such a search is the same for a seed, on one
//! thread or two.

mod common;

use common::rules;

const LONG_SHOT: &str = "tests/bot_playouts/long_shot.rules";

/// P1's first answer in the long shot, with P1 played by `agent`.
fn first_answer(agent: &str) -> String {
    first_answer_in(LONG_SHOT, agent)
}

/// P1's first answer in a long shot game file, with P1 played by `agent`.
fn first_answer_in(file: &str, agent: &str) -> String {
    let (code, out, err) = rules(&[
        "run",
        file,
        "--seed",
        "1",
        "--agent",
        &format!("P1={agent},random"),
    ]);
    assert_eq!(code, 0, "{agent}: {out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("Play it safe"))
        .unwrap_or_else(|| panic!("{agent}: P1 was not asked: {out}"));
    line.rsplit("-> ").next().unwrap_or("").trim().to_string()
}

#[test]
fn bot_playouts_find_the_plan_random_playouts_miss() {
    // Random playouts almost never hit the code: safe looks better.
    assert_eq!(first_answer("mc:20"), "safe");
    assert_eq!(first_answer("ismcts:40"), "safe");
    // Played out by the bot that knows the code, the long shot wins a third of its playouts.
    assert_eq!(first_answer("mc:20/bot:Oracle"), "long shot");
    assert_eq!(first_answer("ismcts:40/bot:Oracle"), "long shot");
    assert_eq!(first_answer("ismcts:4x:end/bot:Oracle"), "long shot");
    // `/random` is the default, spelt out.
    assert_eq!(first_answer("mc:20/random"), "safe");
}

/// A game that names its bot for the playouts (`playouts: Oracle`) has `mc:N` and `ismcts:N`
/// play out with it; `/random` still plays out at random.
#[test]
fn a_game_names_the_bot_that_plays_out_its_searches() {
    let declared = "tests/bot_playouts/long_shot_declared.rules";
    assert_eq!(first_answer_in(declared, "mc:20"), "long shot");
    assert_eq!(first_answer_in(declared, "ismcts:40"), "long shot");
    assert_eq!(first_answer_in(declared, "mc:20/random"), "safe");
    assert_eq!(first_answer_in(declared, "ismcts:40/random"), "safe");
}

/// Among options whose playouts come out alike, a search played out by a bot takes the bot's
/// own answer; with random playouts, the first.
#[test]
fn the_bot_breaks_ties_between_options_playouts_cannot_tell_apart() {
    let pick = |agent: &str| {
        let (code, out, err) = rules(&[
            "run",
            "tests/bot_playouts/tie.rules",
            "--agent",
            &format!("P1={agent},random"),
        ]);
        assert_eq!(code, 0, "{agent}: {out}{err}");
        let line = out
            .lines()
            .find(|l| l.contains("Pick a number"))
            .unwrap_or("");
        line.rsplit("-> ").next().unwrap_or("").trim().to_string()
    };
    assert_eq!(pick("mc:5"), "1");
    assert_eq!(pick("ismcts:10"), "1");
    assert_eq!(pick("mc:5/bot:Four"), "4");
    assert_eq!(pick("ismcts:10/bot:Four"), "4");
}

#[test]
fn playout_specs_are_read_and_refused_as_agents_are() {
    use rules::agent::{search_playouts, seat_specs};
    assert_eq!(
        search_playouts("mc:50/bot:Steward"),
        Some(Ok(("mc:50", Some("Steward"))))
    );
    assert_eq!(
        search_playouts("ismcts:10x:end/bot:Steward"),
        Some(Ok(("ismcts:10x:end", Some("Steward"))))
    );
    assert_eq!(
        search_playouts("ismcts:10/random"),
        Some(Ok(("ismcts:10", None)))
    );
    assert_eq!(search_playouts("mc:5"), Some(Ok(("mc:5", None))));
    assert_eq!(search_playouts("bot:Steward"), None);
    assert_eq!(search_playouts("script:runs/mc:5/log"), None);
    assert!(seat_specs("P1=mc:5/bot:Oracle,ismcts:10/bot:Oracle", 2, "random").is_ok());
    for bad in [
        "mc:5/",
        "mc:5/bot:",
        "mc:5/greedy",
        "mc:5/bot:A/bot:B",
        "ismcts:5/first",
        "mc:0/bot:Oracle",
        "ismcts:0/bot:Oracle",
        "random/bot:Oracle",
        "bot:Oracle/random",
    ] {
        let (code, _, err) = rules(&["simulate", LONG_SHOT, "--games", "1", "--agent", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(!err.contains("panicked"), "{bad}: {err}");
    }
    // A bot the game does not declare is refused before any game, naming the game's bots.
    let (code, _, err) = rules(&[
        "simulate",
        LONG_SHOT,
        "--games",
        "1",
        "--agent",
        "mc:5/bot:Orakel",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no bot `Orakel`") && err.contains("Oracle"),
        "{err}"
    );
}

#[test]
fn bot_playouts_are_the_same_for_a_seed_on_one_thread_or_two() {
    let report = |jobs: &str| {
        let path = std::env::temp_dir().join(format!(
            "rules-bot-playouts-j{jobs}-{}.json",
            std::process::id()
        ));
        let p = path.display().to_string();
        let (code, out, err) = rules(&[
            "simulate",
            LONG_SHOT,
            "--games",
            "6",
            "--agent",
            "P1=ismcts:20/bot:Oracle,mc:3/bot:Oracle",
            "--jobs",
            jobs,
            "--json",
            &p,
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let text = std::fs::read_to_string(&path).expect("report");
        std::fs::remove_file(&path).ok();
        text
    };
    let one = report("1");
    assert_eq!(one, report("2"));
    assert_eq!(one, report("1"));
}

/// The bot driving a search's playouts reads each copy as the seat it answers for: its own
/// secret, never another seat's. A bot that would read another's stops the game with the
/// error `bot:NAME` gives at that seat, whichever seat searches; one that reads only its own
/// seat's plays on.
#[test]
fn a_bot_in_a_playout_reads_only_what_its_seat_may() {
    let play = |agent: &str| {
        rules(&[
            "run",
            "tests/bot_playouts/peek.rules",
            "--seed",
            "1",
            "--agent",
            agent,
        ])
    };
    for agent in [
        "P1=bot:Peeker",
        "P1=mc:3/bot:Peeker",
        "P1=ismcts:5/bot:Peeker",
        "P2=mc:3/bot:Peeker",
    ] {
        let (code, out, err) = play(agent);
        assert_eq!(code, 1, "{agent}: {out}{err}");
        assert!(
            err.contains("the bot `Peeker` playing P1 read what P1 may not see"),
            "{agent}: {err}"
        );
    }
    for agent in ["mc:3/bot:Fair", "ismcts:5/bot:Fair"] {
        let (code, out, err) = play(agent);
        assert_eq!(code, 0, "{agent}: {out}{err}");
        assert!(out.contains("Game over"), "{agent}: {out}");
    }
}

/// Where no copy leads back to a choice (`no_copy.rules`: P2's two unseen chips are told to the
/// table, and a copy deals others), a search played out by a bot takes the bot's answer, and the
/// report says so rather than "at random". (Hegemony was the case once: its officers' agenda
/// points were public, and a copy showed others.)
#[test]
fn the_report_names_the_bot_that_answered_for_want_of_a_copy() {
    let search_line = |agent: &str| {
        let (code, out, err) = rules(&[
            "simulate",
            "tests/bot_playouts/no_copy.rules",
            "--games",
            "1",
            "--jobs",
            "1",
            "--agent",
            agent,
        ]);
        assert_eq!(code, 0, "{agent}: {out}{err}");
        out.lines()
            .find(|l| l.trim_start().starts_with("search:"))
            .unwrap_or_else(|| panic!("{agent}: no search line: {out}"))
            .to_string()
    };
    let by_bot = search_line("mc:1/bot:Low");
    assert!(
        by_bot.contains("answered by the playouts' bot for want of a copy"),
        "{by_bot}"
    );
    assert!(!by_bot.contains("picked at random"), "{by_bot}");
    let random = search_line("mc:1/random");
    assert!(
        random.contains("picked at random for want of a copy"),
        "{random}"
    );
    assert!(!random.contains("bot"), "{random}");
}

/// P1's answers to the prior game's two questions, with P1 played by `agent`, for seed `seed`.
fn prior_answers(agent: &str, seed: u32) -> (String, String) {
    let (code, out, err) = rules(&[
        "run",
        "tests/bot_playouts/prior.rules",
        "--seed",
        &seed.to_string(),
        "--agent",
        &format!("P1={agent},random"),
    ]);
    assert_eq!(code, 0, "{agent}: {out}{err}");
    let answer = |q: &str| {
        out.lines()
            .find(|l| l.contains(q))
            .and_then(|l| l.rsplit("-> ").next())
            .unwrap_or_else(|| panic!("{agent}, seed {seed}: P1 was not asked {q:?}: {out}"))
            .trim()
            .to_string()
    };
    (answer("Pick a number"), answer("Bold or timid"))
}

/// A search whose playouts the game's bot plays keeps the bot's answer among options whose
/// playouts differ by chance alone, and replaces it where every copy shows another better;
/// with random playouts (no prior) the same noise moves its pick from seed to seed.
#[test]
fn the_bot_answer_stands_until_the_playouts_tell_another_apart() {
    for agent in ["mc:10/bot:Seven", "ismcts:10x/bot:Seven"] {
        let answers: Vec<(String, String)> = (1..=20).map(|s| prior_answers(agent, s)).collect();
        let sevens = answers.iter().filter(|(n, _)| n == "7").count();
        assert!(
            sevens >= 18,
            "{agent}: 7 kept in {sevens} of 20 seeds: {answers:?}"
        );
        assert!(
            answers.iter().all(|(_, s)| s == "Bold"),
            "{agent}: not bold every time: {answers:?}"
        );
    }
    let noisy: std::collections::BTreeSet<String> = (1..=20)
        .map(|s| prior_answers("mc:10/random", s).0)
        .collect();
    assert!(noisy.len() >= 4, "random playouts picked only {noisy:?}");
}

/// `rules simulate` says how often the prior stood against a better mean and how often the
/// playouts replaced it, in words and in the JSON: in the prior game, the bot's 7 stands in some
/// games against a number with a better mean, and the bold answer replaces the timid one in all.
#[test]
fn the_report_counts_the_bot_answers_kept_and_replaced() {
    let json = std::env::temp_dir().join(format!("rules-prior-{}.json", std::process::id()));
    let (code, out, err) = rules(&[
        "simulate",
        "tests/bot_playouts/prior.rules",
        "--games",
        "10",
        "--agent",
        "P1=mc:10/bot:Seven,random",
        "--json",
        &json.display().to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    let _ = std::fs::remove_file(&json);
    let search = &report["search"];
    assert_eq!(search["decisions"], 20, "{report}");
    assert_eq!(
        search["beat_bot"], 10,
        "the bold answer in every game: {report}"
    );
    let kept = search["kept_bot"].as_u64().unwrap_or(0);
    assert!((1..=10).contains(&kept), "{report}");
    // The same run's words, on the terminal beside the JSON file.
    assert!(
        out.contains(&format!(
            "the playouts' bot's answer: kept in {kept} choices where another option's mean was better but the copies did not tell it apart, replaced in 10 where they did"
        )),
        "{out}"
    );
}

//! The language reference stays true: every code block in `grammar/README.md`'s rulebook
//! sections checks clean with the real checker, and every block that declares a `game` is a
//! small game that plays to the end for several seeds and player counts.

use rules::interp::Interp;
use rules::limits::Limits;

/// The `rules` code blocks of the reference's rulebook part, in order.
fn rulebook_blocks() -> Vec<String> {
    let text = std::fs::read_to_string("grammar/README.md").expect("read the reference");
    let start = text
        .find("# How each rulebook is written")
        .expect("rulebook part");
    let mut rest = &text[start..];
    let mut blocks = Vec::new();
    while let Some(open) = rest.find("```rules\n") {
        let body = &rest[open + 9..];
        let close = body.find("```").expect("closed block");
        blocks.push(body[..close].to_string());
        rest = &body[close + 3..];
    }
    blocks
}

#[test]
fn rulebook_sections_of_the_reference_check_clean() {
    let blocks = rulebook_blocks();
    for (i, code) in blocks.iter().enumerate() {
        let c = rules::check_text(
            &format!("grammar/README.md block {}", i + 1),
            code,
            &Limits::default(),
        );
        assert_eq!(c.errors(), 0, "block {}:\n{}", i + 1, c.render());
    }
    assert!(
        blocks.len() >= 5,
        "expected a block per rulebook, found {}",
        blocks.len()
    );
}

#[test]
fn rulebook_sections_with_a_game_play_to_the_end() {
    let mut played = 0;
    for (i, code) in rulebook_blocks().iter().enumerate() {
        if !code.contains("\ngame \"") {
            continue;
        }
        let name = format!("grammar/README.md block {}", i + 1);
        let c = rules::check_text(&name, code, &Limits::default());
        let prog = c.program.expect("checked");
        let (lo, hi) = (prog.game.min_players, prog.game.max_players);
        for seed in 1..=6u64 {
            let n = lo + (seed as u32 % (hi - lo + 1));
            let agents = rules::agent::make_agents("random", n, seed).expect("agents");
            let mut interp =
                Interp::new(&prog, n, seed, agents, Limits::default()).expect("interp");
            interp.record = false;
            match interp.run() {
                Ok(outcome) => assert!(
                    outcome.scores.is_empty() || outcome.scores.len() as u32 == n,
                    "{name} seed {seed}: {} scores for {n} players",
                    outcome.scores.len()
                ),
                Err(d) => panic!(
                    "{name}, seed {seed}, {n} players:\n{}",
                    d.render(&c.sources)
                ),
            }
        }
        played += 1;
    }
    assert!(
        played >= 1,
        "expected runnable rulebook sections, found {played}"
    );
}

/// The reference's tables of builtins say what each returns, in the words of the builtin's one
/// declaration (`BuiltinDef::returns` in `src/builtins/`): a row naming the call holds them.
#[test]
fn the_builtin_tables_say_what_each_builtin_returns() {
    let text = std::fs::read_to_string("grammar/README.md").expect("read the reference");
    for b in rules::builtins::all() {
        let call = format!("`{}(", b.name);
        assert!(
            text.lines()
                .any(|l| l.starts_with('|') && l.contains(&call) && l.contains(b.returns)),
            "grammar/README.md has no table row for `{}` saying it returns \"{}\"",
            b.name,
            b.returns
        );
    }
}

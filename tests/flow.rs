//! Small games for the constructs of game flow: each file in `tests/flow/` is a whole game that
//! must check clean and play to the end. Its `# expect: ...` lines must appear, in order, among
//! the lines of the game's readable account. Optional `# players: N`, `# seed: N`,
//! `# set: name=value` (repeatable) and `# agent: first|random` (default `first`); a
//! `# never: ...` line must not appear at all.

use rules::interp::Interp;
use rules::limits::Limits;

fn header<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(key))
        .map(|s| s.trim())
        .collect()
}

#[test]
fn flow_games_play_to_the_end() {
    let mut ran = 0;
    insta::glob!("flow/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("read game");
        let expect = header(&text, "# expect:");
        assert!(
            !expect.is_empty(),
            "{} has no `# expect:` line",
            path.display()
        );
        let c = rules::check_path(path, &Limits::default());
        assert_eq!(c.errors(), 0, "{}:\n{}", path.display(), c.render());
        let prog = c.program.expect("checked");
        let n = header(&text, "# players:")
            .first()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| rules::default_players(&prog));
        let seed = header(&text, "# seed:")
            .first()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        let agent = header(&text, "# agent:")
            .first()
            .copied()
            .unwrap_or("first");
        let sets: Vec<String> = header(&text, "# set:")
            .iter()
            .map(|s| s.to_string())
            .collect();
        let options = rules::options::parse_sets(&prog, &sets).expect("options");
        let agents = rules::agent::make_agents(agent, n, seed).expect("agents");
        let mut interp = Interp::new(&prog, n, seed, agents, Limits::default()).expect("interp");
        for (id, v) in options {
            interp.set_option(id, v);
        }
        if let Err(d) = interp.run() {
            panic!("{}: {}", path.display(), d.render(&prog.sources));
        }
        let account: Vec<String> = interp
            .events
            .iter()
            .filter_map(|e| e.text())
            .flat_map(|t| t.lines().map(|l| l.trim().to_string()).collect::<Vec<_>>())
            .collect();
        let mut at = 0;
        for want in &expect {
            match account[at..].iter().position(|l| l == want) {
                Some(i) => at += i + 1,
                None => panic!(
                    "{}: `{want}` not found (in order) in the account:\n{}",
                    path.display(),
                    account.join("\n")
                ),
            }
        }
        for never in header(&text, "# never:") {
            assert!(
                !account.iter().any(|l| l == never),
                "{}: `{never}` appears in the account:\n{}",
                path.display(),
                account.join("\n")
            );
        }
        ran += 1;
    });
    assert!(ran >= 8, "only {ran} flow games ran");
}

//! The rulebooks' worked examples. Each file in `tests/examples/<game>/` is loaded together with
//! the real game (`games/<game>.rules` or `games/<game>/`), so it can call the game's real rules.
//! It defines `fn example()`, which sets up the position the rulebook describes and returns what
//! the rulebook prints; `# expect: ...` lines hold the printed result (as the REPL would show it).
//! Optional `# players: N`. Every choice is answered by the `first` agent, unless the example has
//! `# answer: P<n> <option number>` lines: then those answer the choices, in order, as a choice
//! log does (`script:` agent), and a choice left without an answer fails the example.
//! `tests/examples/language/` holds small programs of the language itself, checked on their own.

use rules::interp::Interp;
use rules::limits::Limits;
use std::path::{Path, PathBuf};

fn game_path(game: &str) -> PathBuf {
    let file = Path::new("games").join(format!("{game}.rules"));
    if file.exists() {
        file
    } else {
        Path::new("games").join(game)
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn worked_examples() {
    let mut ran = 0;
    insta::glob!("examples/*/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("read example");
        let game = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .expect("game folder");
        let expect: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("# expect:"))
            .map(|s| s.trim().to_string())
            .collect();
        assert!(
            !expect.is_empty(),
            "{} has no `# expect:` line",
            path.display()
        );
        let players = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("# players:"))
            .and_then(|s| s.trim().parse().ok());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("example")
            .to_string();
        let c = if game == "language" {
            rules::check_text(&relative(path), &text, &Limits::default())
        } else {
            rules::check_path_with(
                &game_path(game),
                &[(name.clone(), text.clone())],
                &Limits::default(),
            )
        };
        assert_eq!(c.errors(), 0, "{}:\n{}", path.display(), c.render());
        let prog = c.program.expect("checked");
        let n = players.unwrap_or_else(|| rules::default_players(&prog));
        let answers: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("# answer:"))
            .map(str::trim)
            .collect();
        // The answers become a choice log, read once when the agents are made.
        let log = (!answers.is_empty()).then(|| {
            let log = std::env::temp_dir().join(format!(
                "rules-example-{}-{game}-{name}.log",
                std::process::id()
            ));
            std::fs::write(&log, answers.join("\n")).expect("write the answers");
            log
        });
        let spec = match &log {
            Some(log) => format!("script:{}", log.display()),
            None => "first".to_string(),
        };
        let agents = rules::agent::make_agents(&spec, n, 1).expect("agents");
        if let Some(log) = &log {
            let _ = std::fs::remove_file(log);
        }
        let mut interp = Interp::new(&prog, n, 1, agents, Limits::default()).expect("interp");
        interp.init().expect("init");
        let f = prog
            .fn_by_name("example")
            .expect("the example defines `fn example()`");
        let value = match interp.call_fn(f, vec![], prog.fns[f as usize].span) {
            Ok(v) => v,
            Err(d) => panic!("{}:\n{}", path.display(), d.render(&c.sources)),
        };
        let shown = interp.show(&value);
        assert_eq!(shown, expect.join(" "), "{}", path.display());
        ran += 1;
    });
    assert!(ran >= 5, "expected the worked examples to run, ran {ran}");
}

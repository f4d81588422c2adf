//! Snapshot tests of the rendered diagnostics: one broken `.rules` file per mistake.
//! `tests/broken/*.rules` must fail `rules check`; `tests/runtime/*.rules` must check clean and
//! then stop with a runtime diagnostic (`# agent: ...` seats other agents than `first`).

use rules::interp::Interp;
use rules::limits::Limits;
use std::path::Path;

fn relative(path: &Path) -> &Path {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
}

#[test]
fn broken_files_are_reported() {
    insta::glob!("broken/*.rules", |path| {
        let c = rules::check_path(relative(path), &Limits::default());
        assert!(c.errors() > 0, "{} should not check clean", path.display());
        insta::assert_snapshot!(c.render());
    });
}

/// A group's homemade Hegemony cards, each checked together with the real game folder, as if
/// dropped into `games/hegemony/`.
#[test]
fn homemade_hegemony_cards_are_checked() {
    insta::glob!("hegemony_cards/*.rules", |path| {
        insta::assert_snapshot!(homemade_errors(path, "games/hegemony"));
    });
}

#[test]
fn warnings_are_reported_without_failing() {
    insta::glob!("warnings/*.rules", |path| {
        let c = rules::check_path(relative(path), &Limits::default());
        assert_eq!(
            c.errors(),
            0,
            "{} should check without errors:\n{}",
            path.display(),
            c.render()
        );
        assert!(!c.diags.is_empty(), "{} should warn", path.display());
        insta::assert_snapshot!(c.render());
    });
}

#[test]
fn acknowledged_warnings_are_not_reported() {
    insta::glob!("allowed/*.rules", |path| {
        let c = rules::check_path(relative(path), &Limits::default());
        assert!(c.program.is_some());
        assert_eq!(c.render(), "", "{}", path.display());
    });
}

/// `tests/quiet/*.rules`: games written the way a warning's help says, or near a warning's case
/// without its mistake (each beside its twin in `tests/warnings/`): they check with nothing to say.
#[test]
fn quiet_games_check_without_a_word() {
    insta::glob!("quiet/*.rules", |path| {
        let c = rules::check_path(relative(path), &Limits::default());
        assert!(c.program.is_some(), "{}", path.display());
        assert_eq!(c.render(), "", "{}", path.display());
    });
}

#[test]
fn runtime_failures_are_reported() {
    // A small step budget so the runaway cases end quickly.
    let limits = Limits {
        max_steps: 200_000,
        ..Limits::default()
    };
    insta::glob!("runtime/*.rules", |path| {
        let c = rules::check_path(relative(path), &limits);
        assert_eq!(
            c.errors(),
            0,
            "{} should check clean:\n{}",
            path.display(),
            c.render()
        );
        let prog = c.program.expect("checked");
        let n = rules::default_players(&prog);
        // `# agent: P1=bot:Peeker,first` seats other agents (default `first`).
        let text = std::fs::read_to_string(path).expect("read");
        let agent = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("# agent:"))
            .map_or("first", str::trim);
        let agents = rules::agent::make_agents(agent, n, 1).expect("agents");
        let mut interp = Interp::new(&prog, n, 1, agents, limits).expect("interp");
        let err = match interp.run() {
            Ok(_) => panic!("{} should fail at run time", path.display()),
            Err(d) => d,
        };
        insta::assert_snapshot!(err.render(&c.sources));
    });
}

/// A group's homemade Statecraft cards, each checked together with the real game folder.
#[test]
fn homemade_statecraft_cards_are_checked() {
    insta::glob!("statecraft_cards/*.rules", |path| {
        insta::assert_snapshot!(homemade_errors(path, "games/statecraft"));
    });
}

/// Broken homemade Ambition cards (`tests/ambition_cards/`), each as if dropped into
/// `games/ambition/`: one mistake per file, caught by the checker or the game's own card rules.
#[test]
fn homemade_ambition_cards_are_checked() {
    insta::glob!("ambition_cards/*.rules", |path| {
        insta::assert_snapshot!(homemade_errors(path, "games/ambition"));
    });
}

#[test]
fn homemade_deep_state_treaties_are_checked() {
    insta::glob!("deep_state_cards/*.rules", |path| {
        insta::assert_snapshot!(homemade_errors(path, "games/deep-state"));
    });
}

/// A homemade card file checked together with the real game folder, as if dropped into it: the
/// rendered errors of the new file only (the real game's own warnings are left out), drawn with
/// the labels in the file of their first (those in other files, such as the rule in the game's
/// file that a card breaks, would tie the snapshot to the game's lines). It must have at least
/// one.
fn homemade_errors(path: &Path, game: &str) -> String {
    let text = std::fs::read_to_string(path).expect("read");
    let name = relative(path).display().to_string();
    let c = rules::check_path_with(Path::new(game), &[(name, text)], &Limits::default());
    assert!(c.errors() > 0, "{} should not check clean", path.display());
    c.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let mut d = d.clone();
            let file = d.primary_span().map(|s| s.file);
            d.labels.retain(|l| Some(l.span.file) == file);
            d.render(&c.sources)
        })
        .collect::<Vec<_>>()
        .join("")
}

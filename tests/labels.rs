//! A choice's prompt and labels fail the same way in every command: `rules run` shows them, and
//! `rules bench` and `rules simulate`, which show nothing, work them out all the same (without
//! building their texts). Each game in `tests/labels/` checks clean and stops at a choice with
//! the error its `# error: ...` line gives, in all three.

mod common;

use common::rules;

#[test]
fn label_errors_stop_run_bench_and_simulate_alike() {
    let mut games = 0;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labels");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/labels")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("read");
        let want = text
            .lines()
            .find_map(|l| l.strip_prefix("# error: "))
            .expect("an `# error:` line");
        let game = format!(
            "tests/labels/{}",
            path.file_name().expect("name").to_string_lossy()
        );
        let (code, out, err) = rules(&["check", &game]);
        assert_eq!(code, 0, "{game} should check clean:\n{out}{err}");

        let (code, _, err) = rules(&["run", &game]);
        assert_ne!(code, 0, "{game}: `run` should stop");
        assert!(err.contains(want), "{game}: `run` gave\n{err}");

        let (code, _, err) = rules(&["bench", &game, "--games", "2"]);
        assert_ne!(code, 0, "{game}: `bench` should stop");
        assert!(err.contains(want), "{game}: `bench` gave\n{err}");
        // Bench names the seed and the line that replays it.
        assert!(
            err.contains(&format!(
                "the game of seed 0 stopped on this error; replay it, with its choice log: rules run {game} --players 2 --seed 0 --agent random --log seed-0.log"
            )),
            "{game}: `bench` gave\n{err}"
        );

        let json = std::env::temp_dir().join(format!(
            "rules-labels-{}-{}.json",
            path.file_stem().expect("stem").to_string_lossy(),
            std::process::id()
        ));
        let j = json.display().to_string();
        // `simulate` reports the games an error stopped (and exits 1 for them).
        let (code, out, err) = rules(&["simulate", &game, "--games", "3", "--json", &j]);
        assert_eq!(code, 1, "{game}: {out}{err}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
        let _ = std::fs::remove_file(&json);
        assert_eq!(report["errors"], 3, "{game}: every game stops:\n{report}");
        let first = report["first_error"].to_string();
        assert!(first.contains(want), "{game}: `simulate` gave {first}");
        // The line the report gives replays the first error's game: `run` stops with the same
        // error, and writes the choice log up to it.
        let replay = report["replay"]
            .as_str()
            .expect("a replay line")
            .to_string();
        assert!(out.contains(&replay), "{game}: {out}");
        let log = std::env::temp_dir().join(format!(
            "rules-labels-{}-{}",
            path.file_stem().expect("stem").to_string_lossy(),
            std::process::id()
        ));
        std::fs::create_dir_all(&log).expect("dir");
        let words: Vec<String> = replay
            .split_whitespace()
            .skip(2)
            .map(String::from)
            .collect();
        assert_eq!(words.first(), Some(&game), "{replay}");
        let mut args: Vec<&str> = vec!["run"];
        let log_file = log.join("seed.log").display().to_string();
        for w in words.iter().map(String::as_str) {
            args.push(if w.starts_with("seed-") { &log_file } else { w });
        }
        let (code, _, err) = rules(&args);
        assert_ne!(code, 0, "{game}: the replay should stop");
        assert!(err.contains(want), "{game}: the replay gave\n{err}");
        assert!(
            std::fs::metadata(&log_file).is_ok(),
            "{game}: the replay wrote no log"
        );
        let _ = std::fs::remove_dir_all(&log);
        games += 1;
    }
    assert!(games >= 3, "only {games} games in tests/labels");
}

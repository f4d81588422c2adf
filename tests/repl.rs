//! Scripted REPL sessions: each `tests/repl/*.txt` is fed to `rules repl` on stdin and the
//! transcript is an insta snapshot. The first line names the game and its options:
//! `# rules repl games/the-establishment.rules --players 3 --seed 2`.

use std::io::Write;
use std::process::{Command, Stdio};

fn run_script(text: &str) -> String {
    let first = text.lines().next().unwrap_or("");
    let args: Vec<&str> = first
        .strip_prefix("# rules repl ")
        .expect("the first line is `# rules repl GAME [options]`")
        .split_whitespace()
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("repl")
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "RULES_HISTORY",
            std::env::temp_dir().join("rules-test-history"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rules repl");
    // `$TMP` in a script is a scratch folder of this test run; transcripts show it as `$TMP`.
    let tmp = std::env::temp_dir().join(format!("rules-repl-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("scratch folder");
    let tmp_s = tmp.display().to_string();
    let body: String = text
        .lines()
        .skip(1)
        .map(|l| format!("{}\n", l.replace("$TMP", &tmp_s)))
        .collect();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(body.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "rules repl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).replace(&tmp_s, "$TMP")
}

#[test]
fn scripted_sessions() {
    insta::glob!("repl/*.txt", |path| {
        let text = std::fs::read_to_string(path).expect("read script");
        insta::assert_snapshot!(run_script(&text));
    });
}

#[test]
fn every_game_has_a_scripted_session() {
    let scripts: Vec<String> = std::fs::read_dir("tests/repl")
        .expect("tests/repl")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    for entry in std::fs::read_dir("games").expect("games") {
        let path = entry.expect("entry").path();
        let is_game = path.extension().is_some_and(|e| e == "rules")
            || (path.is_dir() && !path.with_extension("rules").exists());
        if !is_game {
            continue;
        }
        let name = path.display().to_string();
        assert!(
            scripts
                .iter()
                .any(|s| s.lines().next().is_some_and(|l| l.contains(&name))),
            "no REPL script in tests/repl plays {name}"
        );
    }
}

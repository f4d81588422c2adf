//! Commands that do what they say: a folder of games, a card set, a save loaded into a named
//! game from another directory.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn rules_in(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rules");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rules-commands-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

#[test]
fn a_folder_of_games_is_named_not_merged() {
    for cmd in ["run", "repl", "bench", "cards"] {
        let (code, _, err) = rules_in(root(), &[cmd, "games"], "");
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("`games` holds 5 games, not one"),
            "{cmd}: {err}"
        );
        assert!(err.contains("games/hegemony"), "{cmd}: {err}");
        assert!(
            !err.contains('×'),
            "{cmd}: no diagnostics from merging them: {err}"
        );
    }
}

#[test]
fn a_card_set_says_it_is_one() {
    let dir = scratch("cardset");
    std::fs::write(
        dir.join("set.rules"),
        "kind K { name: text }\ncard K a { name: \"A\" }\ncard K b { name: \"B\" }\n",
    )
    .expect("write");
    let d = dir.display().to_string();
    let (code, out, _) = rules_in(root(), &["check", &d], "");
    assert_eq!(code, 0);
    assert!(
        out.contains("ok (1 file, 2 cards; a card set: no `game` block)"),
        "{out}"
    );
    for cmd in ["run", "bench", "repl"] {
        let (code, _, err) = rules_in(root(), &[cmd, &d], "");
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("is a card set (2 cards), not a game"),
            "{cmd}: {err}"
        );
    }
    // Its cards can still be listed.
    let (code, out, _) = rules_in(root(), &["cards", &d], "");
    assert_eq!(code, 0);
    assert!(out.contains('B'), "{out}");
}

#[test]
fn repl_load_uses_the_game_named_on_the_command_line_from_any_directory() {
    let dir = scratch("load");
    let save = dir.join("s.json");
    let game = root().join("games/the-establishment.rules");
    let (game_s, save_s) = (game.display().to_string(), save.display().to_string());
    // Made with 3 players and seed 5, from the repository.
    let (code, out, err) = rules_in(
        root(),
        &["repl", &game_s, "--players", "3", "--seed", "5"],
        &format!(":auto 4\n:save {save_s}\n"),
    );
    assert_eq!(code, 0, "{out}{err}");
    // A copy of the game elsewhere, started from a third directory: the save's own game path
    // points at the repository, outside the REPL's folder, yet GAME is used.
    let copy = scratch("load-copy");
    std::fs::copy(&game, copy.join("the-establishment.rules")).expect("copy");
    let sub = copy.join("the-establishment");
    std::fs::create_dir_all(&sub).expect("dir");
    for e in std::fs::read_dir(root().join("games/the-establishment")).expect("read") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, sub.join(p.file_name().expect("name"))).expect("copy");
    }
    let copy_game = copy.join("the-establishment.rules").display().to_string();
    let (code, out, err) = rules_in(&dir, &["repl", &copy_game, "--load", &save_s], ":log\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Loaded"), "{out}");
    assert!(out.contains("4 choices replayed"), "{out}");
    assert!(
        out.contains(
            "The save's game has 3 players and seed 5: they replace the 4 players and seed 1"
        ),
        "{out}"
    );
}

#[test]
fn a_missing_import_is_one_error_that_names_the_import() {
    let dir = scratch("import");
    let game = root().join("games/the-establishment.rules");
    let text = std::fs::read_to_string(&game)
        .expect("read")
        .replace("import \"the-establishment/kinds.rules\"", "");
    std::fs::write(dir.join("the-establishment.rules"), text).expect("write");
    let sub = dir.join("the-establishment");
    std::fs::create_dir_all(&sub).expect("dir");
    for e in std::fs::read_dir(root().join("games/the-establishment")).expect("read") {
        let p = e.expect("entry").path();
        std::fs::copy(&p, sub.join(p.file_name().expect("name"))).expect("copy");
    }
    let g = dir.join("the-establishment.rules").display().to_string();
    let (code, _, err) = rules_in(root(), &["check", &g], "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches('×').count(), 1, "one error: {err}");
    assert!(err.contains("check::missing_import"), "{err}");
    assert!(
        err.contains("add `import \"the-establishment/kinds.rules\"`"),
        "{err}"
    );
}

/// A save holds the seed and every secret answer: `:save` writes it for its owner only, and a
/// link planted where it goes is refused, not followed.
#[cfg(unix)]
#[test]
fn repl_saves_are_private_and_never_written_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("private-save");
    let game = root().join("games/the-establishment.rules");
    let game_s = game.display().to_string();
    let save = dir.join("s.json");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep").expect("write");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let (code, out, err) = rules_in(
        root(),
        &["repl", &game_s, "--players", "3", "--seed", "5"],
        &format!(
            ":auto 2\n:save {}\n:save {}\n",
            save.display(),
            link.display()
        ),
    );
    assert_eq!(code, 0, "{out}{err}");
    let mode = std::fs::metadata(&save)
        .expect("saved")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    assert!(out.contains("symbolic link"), "{out}");
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "keep");
}

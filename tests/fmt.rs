//! `rules fmt`: formatting twice changes nothing, formatted inputs full of comments
//! (snapshots), every game plays the same game once formatted, and a file with a syntax error
//! is refused with its diagnostic and left as it was.

use rules::fmt::format_source;
use rules::limits::Limits;
use std::path::{Path, PathBuf};
use std::process::Command;

fn rules_files(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    rules::fmt::rules_files(Path::new(dir), &mut out);
    out
}

fn format(path: &Path, text: &str) -> String {
    match format_source(&path.display().to_string(), text, &Limits::default()) {
        Ok(s) => s,
        Err(d) => panic!("{} did not format: {:?}", path.display(), d),
    }
}

/// Every `.rules` file of the repository that parses (so every file that checks, and the
/// broken ones whose mistakes are past the parser) is formatted, and formatting the result again
/// changes nothing.
#[test]
fn formatting_twice_changes_nothing() {
    let limits = Limits::default();
    let mut n = 0;
    for dir in ["games", "stdlib", "tests"] {
        for f in rules_files(dir) {
            let text = std::fs::read_to_string(&f).expect("read");
            if rules::fmt::syntax_signature(&text, &limits).is_none() {
                continue;
            }
            let once = format(&f, &text);
            let twice = format(&f, &once);
            assert_eq!(
                once,
                twice,
                "{}: a second run changed the layout",
                f.display()
            );
            n += 1;
        }
    }
    assert!(n > 300, "only {n} files found");
}

#[test]
fn formatted_inputs() {
    insta::glob!("fmt/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("read");
        insta::assert_snapshot!(format(path, &text));
    });
}

/// Under a small file size limit (600 bytes): a file whose aligned layout would pass it is
/// laid out without the padding; one that would pass it anyway is refused, naming the limit
/// and the sizes (not blaming the formatter). The output is formatted again to itself.
#[test]
fn formatted_inputs_at_a_small_file_limit() {
    let limits = Limits {
        max_file_bytes: 600,
        ..Limits::default()
    };
    insta::glob!("fmt/limit/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("read");
        let name = path.file_name().expect("name").to_string_lossy();
        let shown = match format_source(&name, &text, &limits) {
            Ok(once) => {
                let twice = format_source(&name, &once, &limits).expect("formats again");
                assert_eq!(once, twice, "{}: a second run changed it", path.display());
                assert!(once.len() <= 600, "{}", path.display());
                once
            }
            Err(d) => format!("refused: {}: {}", d.code, d.message),
        };
        insta::assert_snapshot!(shown);
    });
}

/// Copy `from` into `to`, with the standard library beside each game as `stdcopy/` (imports
/// of `std/` rewritten to it), formatting every `.rules` file when `fmt` is set.
fn copy_tree(from: &Path, to: &Path, fmt: bool) {
    std::fs::create_dir_all(to).expect("mkdir");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for e in entries {
        let dest = to.join(e.file_name().expect("name"));
        if e.is_dir() {
            copy_tree(&e, &dest, fmt);
        } else if e.extension().is_some_and(|x| x == "rules") {
            let text = std::fs::read_to_string(&e).expect("read");
            let text = if fmt { format(&e, &text) } else { text };
            std::fs::write(&dest, text.replace("\"std/", "\"stdcopy/")).expect("write");
        }
    }
    copy_std(to, fmt);
}

fn copy_std(to: &Path, fmt: bool) {
    let dir = to.join("stdcopy");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for f in rules_files("stdlib") {
        let text = std::fs::read_to_string(&f).expect("read");
        let text = if fmt { format(&f, &text) } else { text };
        let name = f.file_name().expect("name");
        std::fs::write(dir.join(name), text.replace("\"std/", "\"stdcopy/")).expect("write");
    }
}

fn run(game: &Path, seed: u64) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("run")
        .arg(game)
        .args(["--json", "--seed", &seed.to_string()])
        .output()
        .expect("run rules");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn every_game_plays_the_same_once_formatted() {
    let tmp = std::env::temp_dir().join(format!("rules-fmt-play-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (before, after) = (tmp.join("before"), tmp.join("after"));
    copy_tree(Path::new("games"), &before, false);
    copy_tree(Path::new("games"), &after, true);
    let games = rules::games_in(Path::new("games"));
    assert!(games.len() >= 5, "{games:?}");
    let mut played = 0;
    for g in games {
        let name = g.file_name().expect("name");
        for seed in [1, 2, 3] {
            let a = run(&before.join(name), seed);
            let b = run(&after.join(name), seed);
            assert!(
                a.0,
                "{} seed {seed} did not play before formatting",
                g.display()
            );
            assert!(
                a.1.len() > 100,
                "{} seed {seed}: too short an account",
                g.display()
            );
            assert_eq!(a, b, "{} seed {seed} played differently", g.display());
            played += 1;
        }
    }
    assert!(played >= 15);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_syntax_error_is_refused_and_nothing_is_written() {
    let dir = std::env::temp_dir().join(format!("rules-fmt-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let broken = dir.join("broken.rules");
    let text = "# the brace is never closed\nphase   play {\n  say \"hi\"\n";
    std::fs::write(&broken, text).expect("write");
    let messy = dir.join("messy.rules");
    std::fs::write(&messy, "const   a=1\n").expect("write");
    for check in [true, false] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rules"));
        cmd.arg("fmt");
        if check {
            cmd.arg("--check");
        }
        let out = cmd.arg(&broken).env("NO_COLOR", "1").output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("broken.rules"), "{err}");
        assert!(err.contains("parse::"), "no diagnostic: {err}");
        assert_eq!(std::fs::read_to_string(&broken).expect("read"), text);
    }
    // --check lists the file that would change and leaves it alone; without it, it is rewritten.
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(["fmt", "--check"])
        .arg(&messy)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("messy.rules"));
    assert_eq!(
        std::fs::read_to_string(&messy).expect("read"),
        "const   a=1\n"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("fmt")
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the broken file still fails the run"
    );
    assert_eq!(
        std::fs::read_to_string(&messy).expect("read"),
        "const a = 1\n"
    );
    assert_eq!(std::fs::read_to_string(&broken).expect("read"), text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_rules"))
        .args(["fmt", "no/such/file.rules"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

/// `rules fmt` (and `--check`) on something that is not a regular file says what it is and
/// fails: a symbolic link (never followed: rewriting it would change the file it points to), a
/// FIFO, a device, and a link or FIFO named `.rules` inside a folder. The file a link points to
/// is left as it was.
#[cfg(unix)]
#[test]
fn anything_but_a_regular_file_is_refused() {
    let dir = std::env::temp_dir().join(format!("rules-fmt-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("folder")).expect("mkdir");
    let target = dir.join("target.rules");
    std::fs::write(&target, "const   a=1\n").expect("write");
    let link = dir.join("link.rules");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let dangling = dir.join("dangling.rules");
    std::os::unix::fs::symlink(dir.join("nowhere.rules"), &dangling).expect("symlink");
    let fifo = dir.join("fifo.rules");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    std::os::unix::fs::symlink(&target, dir.join("folder/inner.rules")).expect("symlink");
    let cases: [(&Path, &str); 5] = [
        (&link, "a symbolic link"),
        (&dangling, "a symbolic link"),
        (&fifo, "a FIFO"),
        (Path::new("/dev/null"), "a device"),
        (&dir.join("folder"), "a symbolic link"),
    ];
    for check in [true, false] {
        for (path, what) in cases {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_rules"));
            cmd.arg("fmt");
            if check {
                cmd.arg("--check");
            }
            let out = cmd.arg(path).env("NO_COLOR", "1").output().expect("run");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
            assert!(
                err.contains(what) && err.contains("not a regular file"),
                "{}: {err}",
                path.display()
            );
            assert!(out.stdout.is_empty(), "{}", path.display());
        }
    }
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        "const   a=1\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

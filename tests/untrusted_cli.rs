//! The worst hostile inputs against the `rules` binary, under a memory cap (`ulimit -v`) and a
//! time cap (`timeout`): each must end with a refusal or a diagnostic, not an abort or a hang.

use std::process::Command;

/// Run `rules ARGS` through `sh -c` with 1 GiB of address space and 60 seconds; stdin from
/// `input`. Returns (exit code, stdout, stderr).
fn capped(args: &str, input: &str) -> (i32, String, String) {
    let bin = env!("CARGO_BIN_EXE_rules");
    let script = format!("ulimit -v 1048576; exec timeout 60 '{bin}' {args}");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "RULES_HISTORY",
            std::env::temp_dir().join("rules-untrusted-history"),
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    let code = out.status.code().unwrap_or(-1);
    assert_ne!(code, 124, "timed out: rules {args}");
    assert_ne!(code, 101, "panicked: rules {args}");
    (
        code,
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rules-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

#[test]
fn bench_refuses_a_huge_player_count_and_a_card_set() {
    let (code, _, err) = capped(
        "bench games/the-establishment.rules --players 4294967295 --games 1",
        "",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not 4294967295"), "{err}");
    let d = scratch("bench");
    std::fs::write(d.join("set.rules"), "const x = 1\n").expect("write");
    let (code, _, err) = capped(&format!("bench {}/set.rules --games 1", d.display()), "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("this is a library, not a game"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_choice_log_must_be_a_small_regular_file() {
    let (code, _, err) = capped(
        "run games/the-establishment.rules --agent script:/dev/zero",
        "",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    // A sparse 1 GB log is refused at the cap, not read whole.
    let d = scratch("log");
    let log = d.join("big.log");
    let f = std::fs::File::create(&log).expect("create");
    f.set_len(1 << 30).expect("sparse");
    let (code, _, err) = capped(
        &format!(
            "run games/the-establishment.rules --agent script:{}",
            log.display()
        ),
        "",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("larger than"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let bin = env!("CARGO_BIN_EXE_rules");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{bin}' check games/the-establishment.rules tests/broken | head -c 1 >/dev/null; \
             '{bin}' run games/the-establishment.rules | head -c 1 >/dev/null"
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_repl_caps_lines_and_keeps_load_inside_the_game() {
    // A 3 MB word is refused at once; the session goes on.
    let long = format!(":show {}\n:state\n", "x".repeat(3 << 20));
    let (code, out, _) = capped("repl games/the-establishment.rules", &long);
    assert_eq!(code, 0);
    assert!(out.contains("the REPL reads at most"), "{out}");
    // An unclosed `[` and many short lines: linear, then refused at the cap.
    let lines = format!("[\n{}", "1,\n".repeat(8000));
    let (code, _, _) = capped("repl games/the-establishment.rules", &lines);
    assert_eq!(code, 0);
    // Balanced lines that each ask for more (`1 +`): decided from the line, not by parsing the
    // whole input again per line; the input is read to its end, then refused once as too deep.
    let sum = format!("{}1\n:quit\n", "1 +\n".repeat(900));
    let (code, out, _) = capped("repl games/the-establishment.rules", &sum);
    assert_eq!(code, 0);
    assert_eq!(
        out.matches("limit::nesting").count(),
        1,
        "one input, one error"
    );
    let sum = format!("{}1\n", "1 +\n".repeat(30));
    let (_, out, _) = capped("repl games/the-establishment.rules", &sum);
    assert!(out.ends_with("\n31\n"), "{out}");
    // A save naming a game outside the folder the REPL was started on is refused.
    let d = scratch("save");
    let outside = d.join("other.rules");
    std::fs::write(&outside, "const secret = \"LEAKED\"\n").expect("write");
    let real = d.join("real.json");
    capped(
        "repl games/the-establishment.rules",
        &format!(":save {}\n", real.display()),
    );
    let text = std::fs::read_to_string(&real).expect("a save");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("json");
    json["game"] = serde_json::Value::String(outside.display().to_string());
    let save = d.join("evil.json");
    std::fs::write(&save, json.to_string()).expect("write");
    let (_, out, _) = capped(
        "repl games/the-establishment.rules",
        &format!(":load {}\n", save.display()),
    );
    assert!(!out.contains("LEAKED"), "{out}");
    assert!(out.contains("is outside"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn hostile_files_end_in_diagnostics_under_caps() {
    let d = scratch("files");
    let cases = [
        (
            "add.rules",
            format!("const x = {}\n", vec!["1"; 20000].join(" + ")),
        ),
        (
            "keys.rules",
            "var v: int per 1..10000, 1..10000, 1..10000 = 0\n".to_string(),
        ),
        (
            "errs.rules",
            (0..20000)
                .map(|i| format!("const x{i} = 1 + true\n"))
                .collect(),
        ),
    ];
    for (name, text) in &cases {
        std::fs::write(d.join(name), text).expect("write");
        let (code, _, err) = capped(&format!("check {}", d.join(name).display()), "");
        assert_eq!(code, 1, "{name}: {err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

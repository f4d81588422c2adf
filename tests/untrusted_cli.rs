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

/// A game whose text holds terminal sequences: a window title in its name, concealed text and
/// a clipboard write (OSC 52) in a card's name, a screen clear in a `say` line and a doc line.
const HOSTILE_TEXT: &str =
    "game \"G\x1b]0;pwned\x07\" {\n  players: 2\n  rounds: 1\n  round: [p]\n}\n\
## Doc \x1b[2J here\nkind K { name: text }\n\
card K k { name: \"Hid\x1b[8mden\x1b]52;c;aGk=\x07\" }\n\
phase p {\n  say \"hello \x1b[2J\u{9b}31m there \u{202e}cba\"\n}\n";

#[test]
fn control_characters_in_game_text_reach_no_terminal_raw() {
    let d = scratch("escapes");
    let game = d.join("g.rules");
    std::fs::write(&game, HOSTILE_TEXT).expect("write");
    let g = game.display();
    // `check` warns, at the first, and the game still checks.
    let (code, _, err) = capped(&format!("check {g}"), "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("check::control_char"), "{err}");
    assert!(err.contains("U+001B"), "{err}");
    let runs = [
        (format!("check {g}"), ""),
        (format!("cards {g}"), ""),
        (format!("explain {g}"), ""),
        (format!("run {g}"), ""),
        (format!("repl {g}"), ":show @k\n:step\n"),
    ];
    for (args, input) in &runs {
        let (_, out, err) = capped(args, input);
        for (what, text) in [("stdout", &out), ("stderr", &err)] {
            let raw = text.chars().find(|&c| {
                matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}')
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            });
            assert_eq!(raw, None, "rules {args}: raw control in {what}: {text:?}");
        }
        assert!(
            out.contains("\\u001b") || err.contains("\\u001b"),
            "rules {args}: escaped visibly: {out}{err}"
        );
    }
    let (_, out, _) = capped(&format!("cards {g} --wide"), "");
    assert!(
        out.contains("Hid\\u001b[8mden\\u001b]52;c;aGk=\\u0007"),
        "{out}"
    );
    let (_, out, _) = capped(&format!("run {g}"), "");
    assert!(
        out.contains("hello \\u001b[2J\\u009b31m there \\u202ecba"),
        "{out}"
    );
    // JSON passes through valid, its text the same when read back.
    let (code, out, err) = capped(&format!("run {g} --json"), "");
    assert_eq!(code, 0, "{err}");
    let said: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect();
    assert_eq!(said, ["hello \x1b[2J\u{9b}31m there \u{202e}cba"], "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// A serve log of the Establishment for three, at its start.
fn serve_log(d: &std::path::Path, agents: &str, tokens: &[&str]) -> std::path::PathBuf {
    let log = d.join("game.serve.json");
    std::fs::write(
        &log,
        format!(
            "{{\"format\":1,\"game\":\"The Establishment\",\"players\":3,\"seed\":1,\
             \"agents\":[{agents}],\"stop\":{{\"kind\":\"boundary\",\"pos\":{{\"at\":\"setup\"}}}},\
             \"choices\":[]}}"
        ),
    )
    .expect("write");
    std::fs::write(d.join("game.serve.json.tokens"), tokens.join("\n") + "\n").expect("write");
    log
}

#[test]
fn resume_refuses_repeated_or_zero_tokens_and_a_script_seat() {
    let d = scratch("resume");
    let a = "0123456789abcdef0123456789abcdef";
    let b = "fedcba9876543210fedcba9876543210";
    let c = "1111111111111111aaaaaaaaaaaaaaaa";
    let e = "2222222222222222bbbbbbbbbbbbbbbb";
    let humans = "\"human\",\"human\",\"human\"";
    let cases: [(&str, Vec<&str>, &str); 4] = [
        // The spectators' token is P1's: their link would open P1's seat.
        (humans, vec![a, b, c, a], "are the same"),
        // P2's is P1's.
        (humans, vec![a, a, c, e], "are the same"),
        (
            humans,
            vec![a, b, "00000000000000000000000000000000", e],
            "all zeros",
        ),
        // A seat no log answers for, and nobody is asked: it waited forever.
        (
            "\"human\",\"script\",\"human\"",
            vec![a, b, c, e],
            "`script`",
        ),
    ];
    for (agents, tokens, says) in &cases {
        let log = serve_log(&d, agents, tokens);
        let (code, _, err) = capped(
            &format!(
                "serve games/the-establishment.rules --resume {} --port 0 --no-qr",
                log.display()
            ),
            "",
        );
        assert_eq!(code, 2, "{tokens:?} {agents}: {err}");
        assert!(err.contains(says), "{tokens:?} {agents}: {err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(unix)]
#[test]
fn a_fifo_link_or_folder_named_as_a_report_is_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let d = scratch("reports");
    let run = |target: &std::path::Path| {
        capped(
            &format!(
                "simulate games/the-establishment.rules --games 2 --shard 1/2 --json {}",
                target.display()
            ),
            "",
        )
    };
    // A FIFO: written in place, to the reader waiting on it.
    let fifo = d.join("shard.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let path = fifo.clone();
        let reader = std::thread::spawn(move || std::fs::read_to_string(path));
        let (code, _, err) = run(&fifo);
        assert_eq!(code, 0, "{err}");
        let kind = std::fs::symlink_metadata(&fifo).expect("meta").file_type();
        assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
        let got = reader.join().expect("reader").expect("read");
        assert!(got.contains("\"results_digest\""), "{got}");
    }
    // A link to a file (as `/dev/stdout` is to a device): written through, still a link.
    let victim = d.join("victim.json");
    std::fs::write(&victim, "old").expect("write");
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&victim, &link).expect("symlink");
    let (code, _, err) = run(&link);
    assert_eq!(code, 0, "{err}");
    let kind = std::fs::symlink_metadata(&link).expect("meta").file_type();
    assert!(kind.is_symlink(), "the link was replaced: {kind:?}");
    let text = std::fs::read_to_string(&victim).expect("read");
    assert!(text.contains("\"results_digest\""), "{text}");
    // A folder: refused, with a message.
    let folder = d.join("folder");
    std::fs::create_dir(&folder).expect("mkdir");
    let (code, _, err) = run(&folder);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a folder"), "{err}");
    assert!(folder.is_dir());
    // `serve --log` refuses a FIFO before serving.
    if fifo.exists() {
        let (code, _, err) = capped(
            &format!(
                "serve games/the-establishment.rules --log {} --port 0 --no-qr",
                fifo.display()
            ),
            "",
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("FIFO"), "{err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

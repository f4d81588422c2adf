//! Hostile inputs of issue 32 against the `rules` binary: saves, simulation requests and shards,
//! and outputs that cannot be written. Each must end with a refusal or a message under a memory
//! cap (`ulimit -v`) and a time cap (`timeout`), never a panic, an abort, a hang or a silently
//! wrong result.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const GAME: &str = "games/the-establishment.rules";

/// Run `rules ARGS` (a shell word list) through `sh -c` with 1 GiB of address space and 600
/// seconds; stdin from `input`. Returns (exit code, stdout, stderr).
fn capped(args: &str, input: &str) -> (i32, String, String) {
    let bin = env!("CARGO_BIN_EXE_rules");
    let script = format!("ulimit -v 1048576; exec timeout 600 '{bin}' {args}");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "RULES_HISTORY",
            std::env::temp_dir().join("rules-untrusted-input-history"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    let code = out.status.code().unwrap_or(-1);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_ne!(code, 124, "timed out: rules {args}\n{err}");
    assert_ne!(code, 101, "panicked: rules {args}\n{err}");
    assert_ne!(code, 70, "panicked: rules {args}\n{err}");
    assert!(!err.contains("panicked"), "rules {args}: {err}");
    (code, String::from_utf8_lossy(&out.stdout).to_string(), err)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rules-input-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

/// A real save of the Establishment after its first choice, as JSON to edit.
fn real_save(d: &Path) -> serde_json::Value {
    let file = d.join("real.json");
    let (code, out, _) = capped(
        &format!("repl {GAME}"),
        &format!(":step\n:choose 1\n:save {}\n", file.display()),
    );
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(&file).expect("a save");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn a_save_with_an_out_of_range_choice_or_agent_is_a_message() {
    let d = scratch("save");
    let save = real_save(&d);
    // The largest index and player a save can hold: the replay stops there and says so.
    for (field, value, said) in [
        ("index", u64::MAX, "chose option 18446744073709551616 of"),
        ("player", u64::from(u32::MAX), "answers for P4294967296"),
    ] {
        let mut json = save.clone();
        json["choices"][0][field] = serde_json::Value::from(value);
        let file = d.join(format!("{field}.json"));
        std::fs::write(&file, json.to_string()).expect("write");
        let (code, out, err) = capped(
            &format!("repl {GAME} --load {}", file.display()),
            ":state\n:quit\n",
        );
        assert_eq!(code, 0, "{field}: {err}");
        assert!(out.contains(said), "{field}: {out}");
        // The session goes on after the message.
        assert!(out.contains("zones:"), "{field}: {out}");
    }
    // An `mc` agent with more playouts than `mc:N` accepts is refused, not searched for hours.
    let mut json = save.clone();
    json["agents"] = serde_json::json!([{ "mc": u32::MAX }, "human", "human", "human"]);
    let file = d.join("mc.json");
    std::fs::write(&file, json.to_string()).expect("write");
    let (code, out, err) = capped(
        &format!("repl {GAME}"),
        &format!(":load {}\n:step\n:quit\n", file.display()),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("mc:4294967295"), "{out}");
    assert!(out.contains("from 1 to 10000"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// Run `rules ARGS > /dev/full`: (exit code, stderr).
fn to_full(args: &str, input: &str) -> (i32, String) {
    let (code, _, err) = capped(&format!("{args} > /dev/full"), input);
    (code, err)
}

/// One framed language-server message.
fn lsp_message(json: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{json}", json.len())
}

#[test]
fn an_output_that_cannot_be_written_ends_every_command_with_an_error() {
    let d = scratch("full");
    // A file `fmt` rewrites (and names on stdout), and two shards to merge.
    let messy = d.join("messy.rules");
    std::fs::write(&messy, "const  x  =  1\n").expect("write");
    let shards: Vec<PathBuf> = (1..=2).map(|i| d.join(format!("part{i}.json"))).collect();
    for (i, s) in shards.iter().enumerate() {
        let (code, _, err) = capped(
            &format!(
                "simulate {GAME} --games 4 --shard {}/2 --json {}",
                i + 1,
                s.display()
            ),
            "",
        );
        assert_eq!(code, 0, "{err}");
    }
    let lsp = lsp_message(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    );
    let cases: Vec<(String, String)> = vec![
        (format!("check {GAME}"), String::new()),
        (format!("run {GAME}"), String::new()),
        (format!("run {GAME} --json"), String::new()),
        (format!("cards {GAME}"), String::new()),
        (format!("repl {GAME}"), ":state\n".into()),
        (format!("simulate {GAME} --games 2"), String::new()),
        (
            format!(
                "simulate merge {} {}",
                shards[0].display(),
                shards[1].display()
            ),
            String::new(),
        ),
        (format!("fmt {}", messy.display()), String::new()),
        (format!("bench {GAME} --games 1"), String::new()),
        (format!("bench {GAME} --check --runs 1"), String::new()),
        ("lsp".into(), lsp),
        ("--help".into(), String::new()),
        ("--version".into(), String::new()),
        ("check --help".into(), String::new()),
    ];
    for (args, input) in &cases {
        let (code, err) = to_full(args, input);
        assert_ne!(code, 0, "rules {args} > /dev/full claimed success: {err}");
        assert!(
            err.contains("No space left on device") || err.contains("stopped"),
            "rules {args}: {err}"
        );
    }
    // Where stdout works and stderr does not, nothing panics either.
    let (code, _, _) = capped(&format!("check {GAME} tests/broken 2>/dev/full"), "");
    assert_eq!(code, 1);
    std::fs::remove_dir_all(&d).ok();
}

/// A game whose `say` calls `f0`, which calls `f1`, ... up to `f{n-1}`, which returns 1 or
/// (with `effect`) rolls a die; the functions spread over files of 20,000 each.
fn call_chain(d: &Path, n: usize, effect: bool) -> PathBuf {
    let mut main = String::new();
    for (k, start) in (0..n).step_by(20_000).enumerate() {
        let part: String = (start..n.min(start + 20_000))
            .map(|i| {
                let body = match (i + 1 == n, effect) {
                    (false, _) => format!("f{}()", i + 1),
                    (true, false) => "1".to_string(),
                    (true, true) => "roll(6)".to_string(),
                };
                format!("fn f{i}() -> int {{ {body} }}\n")
            })
            .collect();
        std::fs::write(d.join(format!("part{k}.rules")), part).expect("write");
        main.push_str(&format!("import \"part{k}.rules\"\n"));
    }
    main.push_str("game \"G\" {\n players: 2\n rounds: 1\n round: [p]\n}\n");
    main.push_str("phase p { say \"{f0()}\" }\n");
    let file = d.join("main.rules");
    std::fs::write(&file, main).expect("write");
    file
}

#[test]
fn the_purity_check_walks_long_call_chains_without_stack_or_quadratic_memory() {
    // 65,000 calls deep overflowed the 64 MiB stack when the check recursed along the calls.
    let d = scratch("purity-deep");
    let game = call_chain(&d, 65_000, false);
    let (code, out, err) = capped(&format!("check {}", game.display()), "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": ok ("), "{out}");
    std::fs::remove_dir_all(&d).ok();
    // 10,000 calls to a die roll took 4.6 GB, each function keeping its whole chain; the
    // diagnostic shows the first calls, how many more there are, and the effect.
    let d = scratch("purity-chain");
    let game = call_chain(&d, 10_000, true);
    let (code, _, err) = capped(&format!("check {}", game.display()), "");
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches("check::purity").count(), 1, "{err}");
    assert!(
        err.contains("calls `f7`, which (through 9992 more calls) rolls"),
        "{err}"
    );
    assert!(err.contains("this rolls or shuffles (`roll`)"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

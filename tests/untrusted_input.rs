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
        // `print` writes its sheets to a file: that file is its output.
        (format!("print {GAME} --pdf /dev/full"), String::new()),
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

/// Run `rules ARGS` under the memory cap and send it Ctrl-C (SIGINT) after `secs` seconds:
/// (exit code, stdout, stderr).
fn interrupted_after(secs: f64, args: &str) -> (i32, String, String) {
    let bin = env!("CARGO_BIN_EXE_rules");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576; exec timeout --preserve-status -s INT {secs} '{bin}' {args}"
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sh");
    let code = out.status.code().unwrap_or(-1);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "rules {args}: {err}");
    assert!(
        code == 0 || code == 1 || code == 2,
        "rules {args}: exit {code}: {err}"
    );
    (code, String::from_utf8_lossy(&out.stdout).to_string(), err)
}

#[test]
fn a_simulation_of_any_length_streams_its_games() {
    // Sizing a list of every seed first aborted under the cap (1e8) or panicked (u64::MAX).
    for games in ["100000000", "18446744073709551615"] {
        let (code, out, err) =
            interrupted_after(8.0, &format!("simulate {GAME} --games {games} --jobs 1"));
        assert_eq!(code, 0, "{games}: {err}");
        assert!(out.contains(", interrupted"), "{games}: {out}");
    }
}

#[test]
fn an_interrupted_impact_compares_only_cards_played_on_every_seed() {
    let d = scratch("impact");
    let json = d.join("r.json");
    let game = "games/statecraft";
    let t = std::time::Instant::now();
    capped(&format!("simulate {game} --games 300 --jobs 1"), "");
    let base = t.elapsed().as_secs_f64();
    // Ctrl-C about halfway into the second run: the first card's games, most likely.
    let (code, out, err) = interrupted_after(
        base * 1.5,
        &format!(
            "simulate {game} --games 300 --jobs 1 --impact Emergency --json {}",
            json.display()
        ),
    );
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    assert_eq!(r["interrupted"], true, "{out}");
    let games = r["games"].as_u64().expect("games");
    let rows = r["impact"].as_array().expect("impact");
    let unfinished = r["impact_unfinished"].as_array().expect("unfinished");
    // Every card either compared on all the report's seeds or named as unfinished.
    for row in rows {
        assert_eq!(row["games"].as_u64(), Some(games), "{row}");
    }
    assert_eq!(rows.len() + unfinished.len(), 4, "{r}");
    assert!(!unfinished.is_empty(), "{r}");
    assert!(out.contains("interrupted before these cards"), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// A shard file as JSON, to edit.
fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

/// Give an edited shard's games their digest again (as `simulate::shard` computes it), so the
/// checks behind the digest are reached.
fn redigest(shard: &mut serde_json::Value) {
    let mut d = rules::simulate::shard::Digest::default();
    for r in shard["results"].as_array().expect("results") {
        let r: rules::simulate::GameResult = serde_json::from_value(r.clone()).expect("result");
        d.result(&r);
    }
    shard["results_digest"] = serde_json::Value::String(d.hex());
}

#[test]
fn merge_takes_only_the_slices_of_one_run_each_once() {
    let d = scratch("merge");
    let shard = |name: &str, extra: &str, i: u64| -> PathBuf {
        let p = d.join(format!("{name}{i}.json"));
        let (code, _, err) = capped(
            &format!(
                "simulate {GAME} --games 6 --shard {i}/3 --json {} {extra}",
                p.display()
            ),
            "",
        );
        assert_eq!(code, 0, "{err}");
        p
    };
    let parts: Vec<PathBuf> = (1..=3).map(|i| shard("part", "", i)).collect();
    let merge = |files: &[&Path]| -> (i32, String, String) {
        let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        capped(&format!("simulate merge {}", list.join(" ")), "")
    };
    let (code, out, err) = merge(&[&parts[0], &parts[1], &parts[2]]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("6 games of 4 players"), "{out}");
    let refused = |files: &[&Path], said: &str, named: &Path| {
        let (code, _, err) = merge(files);
        assert_eq!(code, 2, "{said}: {err}");
        assert!(err.contains(said), "{said}: {err}");
        assert!(
            err.contains(&named.display().to_string()),
            "{said}: the file is not named: {err}"
        );
    };
    // Another game, other settings.
    let other_game = d.join("other2.json");
    let (code, _, err) = capped(
        &format!(
            "simulate games/ambition --players 4 --games 6 --shard 2/3 --json {}",
            other_game.display()
        ),
        "",
    );
    assert_eq!(code, 0, "{err}");
    refused(
        &[&parts[0], &other_game, &parts[2]],
        "the game's text",
        &other_game,
    );
    let seeded = shard("seeded", "--seed 2", 2);
    refused(&[&parts[0], &seeded, &parts[2]], "the seeds", &seeded);
    let agents = shard("agents", "--agent first", 2);
    refused(&[&parts[0], &agents, &parts[2]], "the agents", &agents);
    // The same slice twice, and a slice missing.
    refused(&[&parts[0], &parts[1], &parts[1]], "given twice", &parts[1]);
    refused(&[&parts[0], &parts[2]], "shard 2/3 is missing", &parts[0]);
    // Edited files: each refusal names the file.
    let edit = |name: &str, f: &dyn Fn(&mut serde_json::Value)| -> PathBuf {
        let mut j = read_json(&parts[1]);
        f(&mut j);
        let p = d.join(name);
        std::fs::write(&p, j.to_string()).expect("write");
        p
    };
    let first = read_json(&parts[0]);
    // Another slice's games under this slice's name.
    let stolen = edit("stolen.json", &|j| {
        j["results"] = first["results"].clone();
        redigest(j);
    });
    refused(&[&parts[0], &stolen, &parts[2]], "another slice", &stolen);
    // Its own games twice.
    let twice = edit("twice.json", &|j| {
        let one = j["results"][0].clone();
        j["results"] = serde_json::json!([one.clone(), one]);
        redigest(j);
    });
    refused(
        &[&parts[0], &twice, &parts[2]],
        "the same game twice",
        &twice,
    );
    // No games at all.
    let none = edit("none.json", &|j| {
        j["results"] = serde_json::json!([]);
        redigest(j);
    });
    refused(&[&parts[0], &none, &parts[2]], "do not add up", &none);
    // Slice 1 relabelled as slice 2: its seeds overlap slice 1's.
    let relabelled = d.join("relabelled.json");
    let mut j = first.clone();
    j["shard"] = serde_json::json!([2, 3]);
    std::fs::write(&relabelled, j.to_string()).expect("write");
    refused(
        &[&parts[0], &relabelled, &parts[2]],
        "plays 2 from seed 3",
        &relabelled,
    );
    // A game's winner changed: the digest says so.
    let edited = edit("edited.json", &|j| {
        j["results"][0]["winners"] = serde_json::json!([3]);
    });
    refused(&[&parts[0], &edited, &parts[2]], "digest", &edited);
    // Numbers that would size something, or overflow a sum.
    let players = edit("players.json", &|j| {
        j["players"] = serde_json::json!(u32::MAX)
    });
    refused(&[&players], "4294967295 players", &players);
    let count = edit("count.json", &|j| {
        j["shard"] = serde_json::json!([2, u64::MAX]);
    });
    refused(&[&count], "shard 2/18446744073709551615", &count);
    // Counts and scores at their limits, consistent with their digest: added up without
    // overflow, drawn without panic.
    let big = d.join("big.json");
    let mut j = read_json(&parts[1]);
    for (k, r) in j["results"]
        .as_array_mut()
        .expect("results")
        .iter_mut()
        .enumerate()
    {
        r["choices"] = serde_json::json!(u64::MAX);
        r["forced_choices"] = serde_json::json!(u64::MAX);
        r["steps"] = serde_json::json!(u64::MAX);
        r["scores"] = serde_json::json!([i64::MIN, i64::MAX, 0, k]);
        r["round_leaders"] = serde_json::json!([0, 1, null, 2]);
        r["search"] = serde_json::json!({"decisions": u64::MAX, "fallbacks": u64::MAX, "worlds": u64::MAX, "rejected": u64::MAX});
        r["error"] = serde_json::Value::Null;
    }
    redigest(&mut j);
    std::fs::write(&big, j.to_string()).expect("write");
    let html = d.join("r.html");
    let (code, out, err) = capped(
        &format!(
            "simulate merge {} {} {} --html {}",
            parts[0].display(),
            big.display(),
            parts[2].display(),
            html.display()
        ),
        "",
    );
    assert!(code == 0 || code == 1, "{err}");
    assert!(out.contains("6 games"), "{out}");
    assert!(html.exists());
    std::fs::remove_dir_all(&d).ok();
}

//! Untrusted input: generated inputs that must end in a diagnostic, never a crash.

use rules::limits::Limits;

fn codes(name: &str, text: &str) -> Vec<&'static str> {
    let c = rules::check_text(name, text, &Limits::default());
    c.diags.iter().map(|d| d.code).collect()
}

#[test]
fn deep_brackets_are_a_diagnostic_not_a_stack_overflow() {
    for depth in [65usize, 1000, 200_000] {
        let text = format!("const x = {}1{}", "(".repeat(depth), ")".repeat(depth));
        assert_eq!(
            codes("deep.rules", &text),
            vec!["limit::nesting"],
            "depth {depth}"
        );
    }
}

#[test]
fn long_prefix_chains_are_a_diagnostic() {
    let text = format!("const x = {}1", "-".repeat(100_000));
    assert_eq!(codes("neg.rules", &text), vec!["limit::nesting"]);
    let text = format!("const x = {}true", "not ".repeat(100_000));
    assert_eq!(codes("not.rules", &text), vec!["limit::nesting"]);
}

#[test]
fn deep_blocks_and_if_chains_are_a_diagnostic() {
    let text = format!(
        "fn f() {{ {} 1 {} }}",
        "if true { ".repeat(5000),
        "}".repeat(5000)
    );
    assert_eq!(codes("ifs.rules", &text), vec!["limit::nesting"]);
}

#[test]
fn nesting_within_the_limit_is_fine() {
    let text = format!("const x = {}1{}", "(".repeat(40), ")".repeat(40));
    assert!(codes("ok.rules", &text).is_empty());
}

/// Texts that once made the parser backtrack exponentially (each unclosed bracket tried as a
/// literal and then as an expression) and their neighbours, 60 deep.
fn bracket_shapes() -> Vec<String> {
    let n = 60;
    let row = |cell: String| format!("kind K {{ a: int }}\ncards K (a) {{\n  k: {cell}\n}}\n");
    vec![
        format!("const x = {}", "(".repeat(n)),
        format!("const x = {}", "[".repeat(n)),
        format!("const x = {}", "([f(".repeat(n / 3)),
        format!("const x = {}1 +{}", "(".repeat(n), ")".repeat(n)),
        format!("const x = {}1{}", "(".repeat(n), ")+1".repeat(n)),
        format!("const x = {}1{}", "[".repeat(n), "] + [1]".repeat(n)),
        format!("phase p {{ let x = {}", "(".repeat(n)),
        format!("phase p {{ {}", "f(".repeat(n)),
        format!("kind K {{ a: int }}\ncard K k {{ a: {} }}", "(".repeat(n)),
        row("(".repeat(n)),
        row(format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        row(format!("[{}]", "(1, 2), ".repeat(n))),
    ]
}

#[test]
fn unclosed_brackets_take_linear_parsing_work() {
    // 100 parser steps a byte is far below the default budget and far above what any of these
    // needs (about 65): an exponential path would need more than 2^60.
    let limits = Limits {
        max_parse_steps_per_byte: 100,
        ..Limits::default()
    };
    for text in bracket_shapes() {
        let c = rules::check_text("brackets.rules", &text, &limits);
        assert!(
            c.diags.iter().all(|d| d.code != "limit::parse_work"),
            "{text}\n{}",
            c.render()
        );
    }
}

#[test]
fn running_out_of_parsing_work_is_a_diagnostic() {
    let limits = Limits {
        max_parse_steps_per_byte: 1,
        ..Limits::default()
    };
    let text = std::fs::read_to_string("games/the-establishment.rules").unwrap();
    let c = rules::check_text("establishment.rules", &text, &limits);
    let codes: Vec<_> = c.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["limit::parse_work"], "{}", c.render());
    assert!(c.render().contains("parser steps"), "{}", c.render());
}

#[test]
fn huge_files_are_refused() {
    let limits = Limits::default();
    let text = format!("# {}\n", "x".repeat(limits.max_file_bytes + 10));
    assert_eq!(codes("huge.rules", &text), vec!["limit::file_size"]);
}

#[test]
fn imports_cannot_leave_the_game_folder() {
    let dir = std::env::temp_dir().join(format!("rules-escape-{}", std::process::id()));
    let game = dir.join("game");
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(dir.join("secret.rules"), "const secret = 1\n").unwrap();
    std::fs::write(
        game.join("main.rules"),
        "import \"../secret.rules\"\nimport \"/etc/passwd\"\nimport \"notes.txt\"\n",
    )
    .unwrap();
    let c = rules::check_path(&game.join("main.rules"), &Limits::default());
    let codes: Vec<&str> = c.diags.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec!["import::escape", "import::escape", "import::not_rules"]
    );
    // A symbolic link inside the folder that points outside is refused as well.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("secret.rules"), game.join("link.rules")).unwrap();
        std::fs::write(game.join("main.rules"), "import \"link.rules\"\n").unwrap();
        let c = rules::check_path(&game.join("main.rules"), &Limits::default());
        let codes: Vec<&str> = c.diags.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["import::escape"]);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every `.rules` file in the repository, for mutation.
fn corpus() -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![
        std::path::PathBuf::from("games"),
        std::path::PathBuf::from("tests"),
        std::path::PathBuf::from("stdlib"),
    ];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rules") {
                out.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap deterministic fuzz: cut, splice and duplicate pieces of every rules file in the
    // repository; each mutant must only produce diagnostics, and one that checks clean must run
    // to its end or to a diagnostic. `RULES_FUZZ_ITERS` runs it longer.
    let files = corpus();
    let iters: usize = std::env::var("RULES_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let limits = Limits {
        max_steps: 20_000,
        ..Limits::default()
    };
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n.max(1) as u64) as usize
    };
    for _ in 0..iters {
        let a = files[next(files.len())].as_bytes();
        let b = files[next(files.len())].as_bytes();
        let cut = next(a.len());
        let keep = next(200);
        let from = next(b.len());
        let take = next(300).min(b.len() - from);
        let mut m = a[..cut].to_vec();
        match next(3) {
            0 => m.extend_from_slice(&a[(cut + keep).min(a.len())..]),
            1 => {
                m.extend_from_slice(&b[from..from + take]);
                m.extend_from_slice(&a[cut..]);
            }
            _ => {
                m.extend_from_slice(&a[cut..]);
                m.extend_from_slice(&a[cut..(cut + keep).min(a.len())]);
            }
        }
        let text = String::from_utf8_lossy(&m).to_string();
        let c = rules::check_text("fuzz.rules", &text, &limits);
        let _ = c.render();
        if let Some(prog) = c.program {
            if prog.game.max_players > 0 && !prog.game.round_phases.is_empty() {
                let n = rules::default_players(&prog);
                let agents = rules::agent::make_agents("random", n, 1).unwrap();
                if let Ok(mut i) = rules::interp::Interp::new(&prog, n, 1, agents, limits) {
                    if let Err(d) = i.run() {
                        let _ = d.render(&c.sources);
                    }
                }
            }
        }
    }
}

#[test]
fn an_ace_entry_wins_rank_one_over_a_range_from_one() {
    let text = r#"
kind Research { name: text, draws: table 1..13 of text }
card Research simple { name: "Simple", draws: table { 1..2: "Bug Guns", 3..13: "Other", A: "Advanced" } }
"#;
    let c = rules::check_text("ace.rules", text, &Limits::default());
    assert_eq!(c.errors(), 0, "{}", c.render());
    assert_eq!(c.diags.iter().filter(|d| d.code == "check::ace").count(), 1);
    let prog = c.program.expect("program");
    // The stored table: the `1..2` entry now starts at 2; rank 1 is the `A` entry.
    let card = prog
        .cards
        .iter()
        .find(|c| c.id.to_string() == "simple")
        .expect("card");
    let table = format!("{:?}", card.fields);
    assert!(
        table.contains("Int(2), Int(2), Text(\"Bug Guns\")"),
        "{table}"
    );
    assert!(
        table.contains("Int(1), Int(1), Text(\"Advanced\")"),
        "{table}"
    );
}

#[test]
fn nesting_without_brackets_is_a_diagnostic() {
    // `list of list of ...`, `else if` chains and `not` split over lines nest inside pest
    // without any bracket; the pre-pass counts them too.
    let types = format!("kind K {{ f: {}int }}", "list of ".repeat(50_000));
    assert_eq!(codes("types.rules", &types), vec!["limit::nesting"]);
    let chain = format!(
        "fn f() -> int = if true {{ 1 }} {}else {{ 2 }}",
        "else if true { 1 } ".repeat(40_000)
    );
    assert_eq!(codes("chain.rules", &chain), vec!["limit::nesting"]);
    let nots = format!("const x = {}true", "not\n".repeat(100_000));
    assert_eq!(codes("nots.rules", &nots), vec!["limit::nesting"]);
    // Ordinary chains are fine.
    let ok = format!(
        "fn f(x: int) -> int = if x == 0 {{ 0 }} {}else {{ 9 }}",
        "else if x == 1 { 1 } ".repeat(20)
    );
    assert!(codes("ok.rules", &ok).is_empty());
}

#[test]
fn a_diagnostic_on_an_enormous_line_renders_without_a_snippet() {
    let text = format!("const x = [{}1 2]", "1, ".repeat(200_000));
    let c = rules::check_text("long.rules", &text, &Limits::default());
    assert!(c.errors() > 0);
    let rendered = c.render();
    assert!(rendered.contains("long.rules:1:"), "{rendered}");
}

#[test]
fn long_flat_operator_and_postfix_chains_are_a_diagnostic() {
    for (name, text) in [
        ("plus", format!("const x = {}", vec!["1"; 5000].join(" + "))),
        (
            "and",
            format!("const x = {}", vec!["true"; 5000].join(" and ")),
        ),
        ("eq", format!("const x = {}", vec!["1"; 5000].join(" == "))),
        ("range", format!("const x = {}", vec!["1"; 5000].join(".."))),
        ("index", format!("const x = [1]{}", "[0]".repeat(5000))),
        ("field", format!("fn f(c: card) = c{}", ".id".repeat(5000))),
    ] {
        assert_eq!(codes(name, &text), vec!["limit::nesting"], "{name}");
    }
}

fn on_stack(kib: usize, f: impl FnOnce() + Send + 'static) {
    let worker = std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(f)
        .expect("spawn");
    worker.join().expect("no stack overflow");
}

/// The real games check and play on a thread with a 256 KiB stack.
#[test]
fn the_games_check_and_play_on_a_256_kib_stack() {
    on_stack(256, || {
        for game in ["games/the-establishment.rules", "games/hegemony"] {
            let c = rules::check_path(std::path::Path::new(game), &Limits::default());
            assert_eq!(c.errors(), 0, "{game}");
            let prog = c.program.expect("program");
            let n = rules::default_players(&prog);
            let agents = rules::agent::make_agents("random", n, 7).expect("agents");
            let mut interp =
                rules::interp::Interp::new(&prog, n, 7, agents, Limits::default()).expect("interp");
            interp.run().expect("the game runs");
        }
    });
}

/// The worst nesting the limits allow (brackets and operators counted together) checks on a
/// 1 MiB stack, a quarter of a default thread's: the depth limit, not the stack, decides. (In a
/// debug build the checker's frames do not yet fit the worst case into 256 KiB.)
#[test]
fn the_deepest_nesting_allowed_checks_on_a_small_stack() {
    on_stack(1024, || {
        let nested = format!(
            "fn f(n: int) -> int = {}n{}\nconst x = {}",
            "(1 + ".repeat(30),
            ")".repeat(30),
            vec!["1"; 60].join(" + ")
        );
        assert!(codes("nested.rules", &nested).is_empty());
        let deeper = format!(
            "fn f(n: int) -> int = {}n{}",
            "(1 + ".repeat(40),
            ")".repeat(40)
        );
        assert_eq!(codes("deeper.rules", &deeper), vec!["limit::nesting"]);
    });
}

/// A folder with more files and folders than `max_folder_entries` is refused as a game before
/// it is walked to its end; one with as many is read.
#[test]
fn folders_with_too_many_entries_are_refused() {
    let dir = std::env::temp_dir().join(format!("rules-limits-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("game.rules"),
        "game \"G\" {\n  players: 2\n  rounds: 1\n  round: [play]\n}\nphase play { say \"x\" }\n",
    )
    .unwrap();
    for i in 0..49 {
        std::fs::create_dir(dir.join(format!("d{i}"))).unwrap();
    }
    let limits = Limits {
        max_folder_entries: 50,
        ..Limits::default()
    };
    let c = rules::check_path(&dir, &limits);
    assert!(c.diags.is_empty(), "{}", c.render());
    std::fs::create_dir(dir.join("one-more")).unwrap();
    let c = rules::check_path(&dir, &limits);
    std::fs::remove_dir_all(&dir).ok();
    let codes: Vec<_> = c.diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["limit::folder_entries"], "{}", c.render());
    assert!(
        c.render().contains("more than 50 files and folders"),
        "{}",
        c.render()
    );
}

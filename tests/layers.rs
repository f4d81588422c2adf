//! Rooms without circles: the builtins, the checker and the program description sit below the
//! interpreter. None of their code names `interp` (a comment may point at it); the interpreter
//! implements what they declare (`builtins::Host`) and owns what it calls out through.

use std::path::Path;

/// The `.rs` files at `path`: the file itself, or every one under the folder.
fn sources(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .expect("read a source folder")
            .map(|e| e.expect("a folder entry").path())
            .collect();
        entries.sort();
        for e in entries {
            sources(&e, out);
        }
    } else if path.extension().is_some_and(|x| x == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The lines of code (not comments) under `roots` that name the interpreter.
fn naming_interp(roots: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    for r in roots {
        sources(Path::new(r), &mut files);
    }
    assert!(!files.is_empty(), "no sources under {roots:?}");
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read a source file");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let names = code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "interp");
            if names {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn builtins_checker_and_program_do_not_import_the_interpreter() {
    let found = naming_interp(&["src/builtins", "src/check", "src/program", "src/program.rs"]);
    assert!(
        found.is_empty(),
        "below the interpreter, code names `interp`:\n{}",
        found.join("\n")
    );
}

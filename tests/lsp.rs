//! `rules lsp` driven as an editor would: each `tests/lsp/*.json` is a session of steps (open a
//! file, change it, ask for hover, definition, references, completion, symbols, formatting),
//! sent over JSON-RPC to the real binary; every message the server sends back is snapshot.
//!
//! A step names a file of the repository and a place in it by text: `at` is a piece of the
//! file's text, `plus` bytes into it (the first match, or the `nth`).

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn root() -> String {
    env!("CARGO_MANIFEST_DIR").to_string()
}

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The byte offset of a step's place, as an LSP position (the test files are ASCII).
fn position(text: &str, step: &Value) -> Value {
    if let Some(p) = step["pos"].as_array() {
        return json!({ "line": p[0], "character": p[1] });
    }
    let at = step["at"].as_str().unwrap_or("");
    let nth = step["nth"].as_u64().unwrap_or(0) as usize;
    let plus = step["plus"].as_u64().unwrap_or(0) as usize;
    let found = text
        .match_indices(at)
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("`{at}` is not in the file"));
    let off = found + plus;
    let before = &text[..off];
    let line = before.matches('\n').count();
    let col = off - before.rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": col })
}

fn run_session(script: &Value) -> String {
    let root = root();
    let mut texts: std::collections::BTreeMap<String, String> = Default::default();
    let mut input = frame(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": format!("file://{root}")}}));
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    ));
    let mut id = 1;
    for step in script.as_array().expect("a list of steps") {
        let file = step["file"].as_str().expect("a file");
        let uri = format!("file://{root}/{file}");
        let method = step["method"].as_str().expect("a method");
        let text = texts.entry(file.to_string()).or_insert_with(|| {
            std::fs::read_to_string(format!("{root}/{file}")).expect("the file")
        });
        if let Some(all) = step["text"].as_str() {
            *text = all.to_string();
        }
        if let Some(pair) = step["replace"].as_array() {
            let (a, b) = (
                pair[0].as_str().expect("from"),
                pair[1].as_str().expect("to"),
            );
            assert!(text.contains(a), "`{a}` is not in {file}");
            *text = text.replacen(a, b, 1);
        }
        let doc = json!({ "uri": uri });
        let (params, notify) = match method {
            "textDocument/didOpen" => (
                json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}),
                true,
            ),
            "textDocument/didChange" => (
                json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
                true,
            ),
            "textDocument/didClose" => {
                *text = std::fs::read_to_string(format!("{root}/{file}")).expect("the file");
                (json!({ "textDocument": doc }), true)
            }
            "textDocument/documentSymbol" => (json!({ "textDocument": doc }), false),
            "textDocument/formatting" => (
                json!({"textDocument": doc, "options": {"tabSize": 2, "insertSpaces": true}}),
                false,
            ),
            "textDocument/references" => (
                json!({"textDocument": doc, "position": position(text, step),
                       "context": {"includeDeclaration": true}}),
                false,
            ),
            _ => (
                json!({"textDocument": doc, "position": position(text, step)}),
                false,
            ),
        };
        if notify {
            input.extend(frame(
                &json!({"jsonrpc": "2.0", "method": method, "params": params}),
            ));
        } else {
            input.extend(frame(
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            ));
            id += 1;
        }
    }
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "id": id, "method": "shutdown"}),
    ));
    input.extend(frame(&json!({"jsonrpc": "2.0", "method": "exit"})));
    let mut child = Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("lsp")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rules lsp");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write");
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = child.wait().expect("wait");
    assert!(status.success(), "the server ends cleanly after exit");
    // Split the frames; keep every message but the answer to `initialize`.
    let text = String::from_utf8_lossy(&out).to_string();
    let mut shown = Vec::new();
    for part in text.split("Content-Length: ").skip(1) {
        let body = part.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        let v: Value = serde_json::from_str(body).expect("a JSON message");
        if v["id"] == json!(0) {
            continue;
        }
        shown.push(v);
    }
    serde_json::to_string_pretty(&shown)
        .expect("json")
        .replace(&root, "$ROOT")
}

#[test]
fn scripted_sessions() {
    insta::glob!("lsp/*.json", |path| {
        let script: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
        insta::assert_snapshot!(run_session(&script));
    });
}

/// The highlighting grammar is valid JSON and names every keyword of the language's grammar.
#[test]
fn the_textmate_grammar_knows_every_keyword() {
    let tm = std::fs::read_to_string(format!("{}/editors/rules.tmLanguage.json", root()))
        .expect("editors/rules.tmLanguage.json");
    let parsed: Value = serde_json::from_str(&tm).expect("valid JSON");
    assert_eq!(parsed["scopeName"], "source.rules");
    let grammar =
        std::fs::read_to_string(format!("{}/grammar/rules.pest", root())).expect("grammar");
    let mut missing = Vec::new();
    for line in grammar.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (k, part) in code.split('"').enumerate() {
            let word = k % 2 == 1
                && part.starts_with(|c: char| c.is_ascii_lowercase())
                && part.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if word
                && !tm.contains(&format!("|{part}|"))
                && !tm.contains(&format!("({part}|"))
                && !tm.contains(&format!("|{part})"))
            {
                missing.push(part.to_string());
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "keywords missing from the TextMate grammar: {missing:?}"
    );
}

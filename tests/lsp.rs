//! `rules lsp` driven as an editor would: each `tests/lsp/*.json` is a session of steps (open a
//! file, change it, ask for hover, definition, references, completion, symbols, formatting),
//! sent over JSON-RPC to the real binary; every message the server sends back is snapshot.
//!
//! A step names a file of the repository and a place in it by text: `at` is a piece of the
//! file's text, `plus` bytes into it (the first match, or the `nth`).
//!
//! Each `tests/lsp/raw/*.txt` is a session as raw bytes (one message a line, or `RAW` bytes:
//! `fuzz_common::lsp_stream`), malformed, oversized or out of order; every answer and the exit
//! code are snapshot. They seed the `lsp_messages` fuzz target too.

#[path = "../fuzz/common.rs"]
mod fuzz_common;

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

fn start() -> Child {
    Command::new(env!("CARGO_BIN_EXE_rules"))
        .arg("lsp")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start rules lsp")
}

/// Send a whole byte stream (from another thread, so a long one cannot block on the answers),
/// then close it; the exit code and every message the server wrote.
fn serve_raw(input: Vec<u8>) -> (i32, Vec<Value>) {
    let mut child = start();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        // The server may exit (`exit`) before it has read everything.
        let _ = stdin.write_all(&input);
    });
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = child.wait().expect("wait");
    writer.join().expect("writer");
    (status.code().unwrap_or(-1), fuzz_common::lsp_answers(&out))
}

/// Each raw session: the answers (but the capabilities `initialize` gives) and the exit code.
#[test]
fn raw_sessions() {
    insta::glob!("lsp/raw/*.txt", |path| {
        let data = std::fs::read(path).expect("read");
        let (code, answers) = serve_raw(fuzz_common::lsp_stream(&data));
        let shown: Vec<Value> = answers
            .into_iter()
            .filter(|a| !(a["id"] == json!(0) && a.get("result").is_some()))
            .collect();
        let text = serde_json::to_string_pretty(&shown).expect("json");
        // A JSON error's column counts the repository's path written in the message: the same
        // error wherever the repository is cloned.
        let text = text.replace(&root(), "$REPO");
        let mut parts = text.split(" column ");
        let mut text = parts.next().unwrap_or_default().to_string();
        for p in parts {
            text.push_str(" column N");
            text.push_str(p.trim_start_matches(|c: char| c.is_ascii_digit()));
        }
        insta::assert_snapshot!(format!("exit code {code}\n{text}"));
    });
}

/// One framed message read from the server's output, while its input stays open.
fn read_message(out: &mut impl Read) -> Value {
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        out.read_exact(&mut byte).expect("a header");
        head.push(byte[0]);
    }
    let text = String::from_utf8(head).expect("ASCII");
    let n: usize = text
        .trim()
        .strip_prefix("Content-Length: ")
        .and_then(|n| n.parse().ok())
        .expect("a length");
    let mut body = vec![0u8; n];
    out.read_exact(&mut body).expect("a body");
    serde_json::from_slice(&body).expect("JSON")
}

/// The most memory the process has held, in bytes (`VmHWM`; Linux only).
fn peak_memory(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn init_message(root_uri: &str) -> Vec<u8> {
    frame(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": root_uri}}))
}

/// A message that claims more bytes than it holds costs only what it holds: 40 bytes claiming
/// 2 GB (over the cap: skipped as it arrives), or just under the 16 MiB cap (read as it arrives).
#[test]
fn a_claimed_length_is_not_allocated_before_its_bytes_arrive() {
    if peak_memory(std::process::id()).is_none() {
        return;
    }
    for claim in [2_000_000_000u64, (16 << 20) - 1] {
        let mut child = start();
        let pid = child.id();
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = child.stdout.take().expect("stdout");
        stdin
            .write_all(&init_message(&format!("file://{}", root())))
            .expect("write");
        read_message(&mut stdout);
        let before = peak_memory(pid).expect("VmHWM");
        let forty = [b' '; 40];
        stdin
            .write_all(format!("Content-Length: {claim}\r\n\r\n").as_bytes())
            .and_then(|_| stdin.write_all(&forty))
            .and_then(|_| stdin.flush())
            .expect("write");
        std::thread::sleep(Duration::from_millis(700));
        let after = peak_memory(pid).expect("VmHWM");
        drop(stdin);
        let answer = read_message(&mut stdout);
        child.wait().expect("wait");
        assert!(
            after.saturating_sub(before) < 4 << 20,
            "claiming {claim} bytes took {} more bytes",
            after - before
        );
        assert!(answer["error"]["code"].is_i64(), "{answer}");
    }
}

/// A message over the cap is read and dropped in pieces; the next one is answered.
#[test]
fn an_oversized_message_is_skipped_and_the_next_answered() {
    let mut input = init_message(&format!("file://{}", root()));
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":\"{}\"}}",
        "a".repeat(17 << 20)
    );
    input.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes());
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    ));
    input.extend(frame(&json!({"jsonrpc": "2.0", "method": "exit"})));
    let (code, answers) = serve_raw(input);
    assert_eq!(code, 0);
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[1]["error"]["code"], json!(-32600));
    assert_eq!(answers[1]["id"], Value::Null);
    assert_eq!(
        answers[2],
        json!({"jsonrpc": "2.0", "id": 2, "result": null})
    );
}

/// A fresh folder under the system's temporary folder.
fn temp_folder(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rules-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

/// Send `messages` after `initialize` on `folder`, reading each answer as it comes; the time
/// each request took.
fn timed_requests(folder: &std::path::Path, open: Value, requests: &[Value]) -> Vec<(Value, f64)> {
    let mut child = start();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    stdin
        .write_all(&init_message(&format!("file://{}", folder.display())))
        .expect("write");
    read_message(&mut stdout);
    stdin.write_all(&frame(&open)).expect("write");
    // The check of the opened file, before any request is timed.
    let published = read_message(&mut stdout);
    assert_eq!(published["method"], "textDocument/publishDiagnostics");
    let mut out = Vec::new();
    for r in requests {
        let t = Instant::now();
        stdin.write_all(&frame(r)).expect("write");
        let answer = read_message(&mut stdout);
        out.push((answer, t.elapsed().as_secs_f64()));
    }
    drop(stdin);
    child.wait().expect("wait");
    out
}

/// Symbols, references and hover take time linear in the document: 3,000 constants on lines
/// of 300 bytes (under 1 MB) answer in well under the time a quadratic walk takes (minutes).
#[test]
fn requests_are_linear_in_their_document() {
    let dir = temp_folder("linear");
    let mut text = String::from(
        "game \"Many\" {\n  players: 2\n  rounds: 1\n  round: [play]\n}\nphase play { say \"x\" }\nconst base = 1\n",
    );
    let pad = "#".repeat(280);
    for i in 0..3000 {
        text.push_str(&format!("const c{i} = base {pad}\n"));
    }
    let path = dir.join("many.rules");
    std::fs::write(&path, &text).expect("write");
    let uri = format!("file://{}", path.display());
    let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}});
    let at = json!({"line": 6, "character": 7});
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "textDocument/documentSymbol",
               "params": {"textDocument": {"uri": uri}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/references",
               "params": {"textDocument": {"uri": uri}, "position": at,
                          "context": {"includeDeclaration": true}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
               "params": {"textDocument": {"uri": uri}, "position": at}}),
    ];
    let answers = timed_requests(&dir, open, &requests);
    std::fs::remove_dir_all(&dir).ok();
    let symbols = answers[0].0["result"].as_array().expect("symbols");
    assert_eq!(symbols.len(), 3002);
    assert_eq!(
        symbols[3001]["range"]["start"],
        json!({"line": 3006, "character": 6})
    );
    let refs = answers[1].0["result"].as_array().expect("references");
    assert_eq!(refs.len(), 3001);
    assert!(answers[2].0["result"]["contents"]["value"]
        .as_str()
        .is_some_and(|v| v.contains("const base = 1")));
    for (answer, secs) in &answers {
        assert!(*secs < 20.0, "request {} took {secs:.1} s", answer["id"]);
    }
}

/// A folder with more entries than a game folder may have is not walked as one game: the file
/// is checked alone, and the `.rules` file deep inside is not read.
#[test]
fn a_huge_folder_is_not_walked() {
    let dir = temp_folder("huge");
    for i in 0..10_100 {
        std::fs::create_dir(dir.join(format!("d{i:05}"))).expect("mkdir");
    }
    std::fs::write(dir.join("d10099/other.rules"), "const broken = \n").expect("write");
    let text = "game \"Alone\" {\n  players: 2\n  rounds: 1\n  round: [play]\n}\nphase play { say \"x\" }\n";
    let path = dir.join("alone.rules");
    std::fs::write(&path, text).expect("write");
    let uri = format!("file://{}", path.display());
    let mut input = init_message(&format!("file://{}", dir.display()));
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}}),
    ));
    input.extend(frame(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}),
    ));
    input.extend(frame(&json!({"jsonrpc": "2.0", "method": "exit"})));
    let (code, answers) = serve_raw(input);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0);
    let published: Vec<&Value> = answers
        .iter()
        .filter(|a| a["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0]["params"]["uri"], json!(uri));
    assert_eq!(published[0]["params"]["diagnostics"], json!([]));
}

//! `docs/events.md` against the real stream: every event `rules run --json` writes, in every
//! game and flow test, is a documented kind with exactly its documented fields, and every
//! documented kind is seen.

use std::collections::BTreeMap;
use std::process::Command;

/// The kinds in the document: name -> (required fields, optional fields).
fn documented() -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/events.md"))
        .expect("docs/events.md");
    let mut kinds = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        if let Some(k) = line.strip_prefix("### `").and_then(|l| l.strip_suffix('`')) {
            current = Some(k.to_string());
        } else if let (Some(k), Some(fields)) = (&current, line.strip_prefix("Fields: ")) {
            let mut req = Vec::new();
            let mut opt = Vec::new();
            for f in fields.trim_end_matches('.').split(", ") {
                if f == "none" {
                    continue;
                }
                let name = f
                    .split('`')
                    .nth(1)
                    .expect("a field in backticks")
                    .to_string();
                if f.contains("(optional)") {
                    opt.push(name);
                } else {
                    req.push(name);
                }
            }
            kinds.insert(k.clone(), (req, opt));
            current = None;
        }
    }
    kinds
}

fn games() -> Vec<String> {
    let mut g = vec![
        "games/the-establishment.rules".to_string(),
        "games/hegemony".to_string(),
        "games/statecraft".to_string(),
        "games/ambition".to_string(),
        "games/deep-state".to_string(),
    ];
    let mut flow: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/flow"))
            .expect("tests/flow")
            .filter_map(|e| e.ok())
            .map(|e| format!("tests/flow/{}", e.file_name().to_string_lossy()))
            .filter(|p| p.ends_with(".rules"))
            .collect();
    flow.sort();
    g.extend(flow);
    g
}

fn is_card(v: &serde_json::Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let keys: Vec<&str> = o.keys().map(String::as_str).collect();
    match keys.as_slice() {
        ["hidden"] => o["hidden"] == serde_json::Value::Bool(true),
        ["id", "name"] => o["id"].is_string() && o["name"].is_string(),
        _ => false,
    }
}

#[test]
fn every_event_is_documented_with_exactly_its_fields() {
    let doc = documented();
    assert!(doc.len() >= 13, "the document lists the kinds: {doc:?}");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for game in games() {
        for (seed, viewer) in [("1", "all"), ("2", "P1")] {
            let out = Command::new(env!("CARGO_BIN_EXE_rules"))
                .args(["run", &game, "--json", "--seed", seed, "--viewer", viewer])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("run rules");
            let text = String::from_utf8_lossy(&out.stdout);
            for line in text.lines() {
                let ev: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{game}: not JSON ({e}): {line}"));
                let o = ev.as_object().expect("an object");
                let kind = o["event"].as_str().expect("event names its kind");
                let (req, opt) = doc
                    .get(kind)
                    .unwrap_or_else(|| panic!("{game}: `{kind}` is not in docs/events.md"));
                for f in req {
                    assert!(o.contains_key(f), "{game}: `{kind}` lacks `{f}`: {line}");
                }
                for k in o.keys().filter(|k| *k != "event") {
                    assert!(
                        req.contains(k) || opt.contains(k),
                        "{game}: `{kind}` has `{k}`, which the document does not list: {line}"
                    );
                }
                for f in ["cards"] {
                    if let Some(cards) = o.get(f) {
                        let cards = cards.as_array().expect("a list of cards");
                        assert!(cards.iter().all(is_card), "{game}: {line}");
                    }
                }
                if let Some(c) = o.get("card") {
                    assert!(is_card(c), "{game}: {line}");
                }
                if kind == "move" {
                    let n = o["cards"].as_array().map(Vec::len);
                    assert_eq!(o["from"].as_array().map(Vec::len), n, "{game}: {line}");
                }
                *seen.entry(kind.to_string()).or_default() += 1;
            }
        }
    }
    let unseen: Vec<&String> = doc.keys().filter(|k| !seen.contains_key(*k)).collect();
    assert!(unseen.is_empty(), "documented but never seen: {unseen:?}");
}

//! A name the game uses but does not declare, declared in a file it does not import (a file of
//! the game's folder, or of the standard library): one error that names the import to add,
//! instead of an error at every use of every name that file declares.

use crate::ast::{File, Item};
use crate::diag::{Diag, Sources};
use crate::limits::Limits;
use std::collections::BTreeMap;
use std::path::Path;

/// The codes of problems a missing import causes.
const CAUSED: &[&str] = &[
    "check::unknown_name",
    "check::unknown_kind",
    "check::unknown_type",
    "check::unknown_field",
    "check::unknown_key",
    "check::unknown_card",
    "check::unknown_event",
    "check::unknown_fn",
    "check::unknown_phase",
    "check::unknown_zone",
];

/// Every name a file declares: its items, kinds' fields, enum variants and card ids.
fn declared(file: &File) -> Vec<String> {
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            Item::Kind(k) => {
                out.push(k.name.node.clone());
                out.extend(k.fields.iter().map(|f| f.name.node.clone()));
            }
            Item::Enum(e) => {
                out.push(e.name.node.clone());
                out.extend(e.variants.iter().map(|v| v.node.clone()));
            }
            Item::Card(c) => out.push(c.id.node.to_string()),
            Item::Zone(z) => out.push(z.name.node.clone()),
            Item::Var(v) => out.push(v.name.node.clone()),
            Item::Const(c) => out.push(c.name.node.clone()),
            Item::Fn(f) => out.push(f.name.node.clone()),
            Item::Phase(p) => out.push(p.name.node.clone()),
            Item::Table(t) => out.push(t.name.node.clone()),
            Item::Event(e) => out.push(e.name.node.clone()),
            Item::Option(o) => out.push(o.name.node.clone()),
            _ => {}
        }
    }
    out
}

/// The files a game could import but did not: `(import path, text)`. `seen` holds the keys of
/// the files read (`std/NAME` and canonical paths). On disk these are the files of the folders
/// below the game's folder that hold a file the game reads, and the folder named after the
/// game's file (`the-establishment/` beside `the-establishment.rules`); never the game's own
/// folder, where other games may sit.
fn unread(
    root: Option<&Path>,
    entry: Option<&Path>,
    seen: &[String],
    limits: &Limits,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = crate::loader::STDLIB
        .iter()
        .map(|(n, t)| (format!("std/{n}"), t.to_string()))
        .filter(|(k, _)| !seen.contains(k))
        .collect();
    let Some(root) = root else { return out };
    let mut dirs: Vec<std::path::PathBuf> = seen
        .iter()
        .filter_map(|k| Path::new(k).parent().map(Path::to_path_buf))
        .filter(|d| d.starts_with(root) && d.as_path() != root)
        .collect();
    if let Some(stem) = entry.and_then(|e| e.file_stem()) {
        dirs.push(root.join(stem));
    }
    dirs.sort();
    dirs.dedup();
    let mut found = Vec::new();
    let mut entries = limits.max_folder_entries;
    for d in &dirs {
        if found.len() < limits.max_imports {
            crate::loader::collect_rules_files(d, &mut found, 0, limits.max_imports, &mut entries);
        }
    }
    found.sort();
    found.dedup();
    for p in found {
        let canon = p.canonicalize().unwrap_or_else(|_| p.clone());
        if seen.contains(&canon.display().to_string()) || !canon.starts_with(root) {
            continue;
        }
        let Ok(text) = crate::files::read_text(&p, limits.max_file_bytes) else {
            continue;
        };
        let rel = canon.strip_prefix(root).unwrap_or(&canon);
        let import: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        out.push((import.join("/"), text));
    }
    out
}

/// Replace the problems a missing import causes by one error per missing file.
pub fn report(
    diags: &mut Vec<Diag>,
    sources: &Sources,
    root: Option<&Path>,
    seen: &[String],
    limits: &Limits,
) {
    let caused = |d: &Diag| d.is_error() && CAUSED.contains(&d.code);
    if !diags.iter().any(caused) {
        return;
    }
    // Which unread file declares each name (the first one, in a stable order).
    // The entry file: the first file read from disk.
    let entry = sources
        .files
        .iter()
        .map(|f| Path::new(&f.name))
        .find(|p| p.extension().is_some_and(|x| x == "rules") && !p.starts_with("std"));
    let files = unread(root, entry, seen, limits);
    let mut owner: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (_, text)) in files.iter().enumerate() {
        let parsed = crate::parser::parse_file(text, u32::MAX, limits);
        let Some(file) = parsed.value else { continue };
        for name in declared(&file) {
            owner.entry(name).or_insert(i);
        }
    }
    if owner.is_empty() {
        return;
    }
    // Group the caused problems by the file that declares their name.
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, d) in diags.iter().enumerate() {
        if !caused(d) {
            continue;
        }
        let Some(label) = d.labels.first() else {
            continue;
        };
        let name = sources.text_of(label.span).trim_start_matches('@');
        if let Some(&f) = owner.get(name) {
            groups.entry(f).or_default().push(k);
        }
    }
    let mut drop = vec![false; diags.len()];
    let mut replaced: Vec<(usize, Diag)> = Vec::new();
    for (f, ks) in &groups {
        let Some(&first) = ks.first() else { continue };
        let Some(path) = files.get(*f).map(|(p, _)| p.as_str()) else {
            continue;
        };
        let Some(d) = diags.get(first) else { continue };
        let Some(label) = d.labels.first() else {
            continue;
        };
        let name = sources
            .text_of(label.span)
            .trim_start_matches('@')
            .to_string();
        let more = ks.len() - 1;
        let also = if more > 0 {
            format!(
                " ({more} more use{} of its names {} not reported)",
                if more == 1 { "" } else { "s" },
                if more == 1 { "is" } else { "are" }
            )
        } else {
            String::new()
        };
        let importer = sources
            .get(label.span.file)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        replaced.push((
            first,
            Diag::error(
                "check::missing_import",
                format!("`{name}` is declared in `{path}`, which the game does not import{also}"),
            )
            .label(label.span, format!("declared in `{path}`"))
            .help(format!(
                "add `import \"{path}\"` near the top of `{importer}`"
            )),
        ));
        for &k in ks {
            if let Some(x) = drop.get_mut(k) {
                *x = true;
            }
        }
    }
    let mut kept = Vec::with_capacity(diags.len());
    for (k, d) in std::mem::take(diags).into_iter().enumerate() {
        if let Some(pos) = replaced.iter().position(|(at, _)| *at == k) {
            kept.push(replaced.swap_remove(pos).1);
        } else if !drop.get(k).copied().unwrap_or(false) {
            kept.push(d);
        }
    }
    *diags = kept;
}

//! `allow CODE "reason"`: warnings the game's authors have read. An allow silences the
//! warnings with that code whose place is in the same file; it must give a reason, and one
//! that silences nothing is itself a warning (the problem it acknowledged is gone).

use crate::ast::{File, Item};
use crate::diag::{Diag, Span};

/// One `allow` of a game.
#[derive(Debug, Clone)]
pub struct Allow {
    pub code: String,
    pub code_span: Span,
    pub reason_empty: bool,
}

/// Every `allow` in the game's files.
pub fn collect(files: &[(u32, File)]) -> Vec<Allow> {
    files
        .iter()
        .flat_map(|(_, f)| f.items.iter())
        .filter_map(|item| match item {
            Item::Allow(a) => Some(Allow {
                code: a.code.node.clone(),
                code_span: a.code.span,
                reason_empty: a.reason.node.trim().is_empty(),
            }),
            _ => None,
        })
        .collect()
}

/// Which warnings were looked for: none while a file of the game has a syntax error (the game
/// is not checked), and those of the card rules (`check::rule`) and of the secrets followed into
/// text (`check/secrets/`) only once the game checks clean (they run only then). An `allow` of
/// warnings nobody looked for is not judged unused.
#[derive(Debug, Clone, Copy)]
pub struct Looked {
    pub checker: bool,
    /// The game checked clean: its card rules ran and its secrets were followed.
    pub card_rules: bool,
}

/// The warnings looked for only in a game that checks clean.
const ONCE_CLEAN: &[&str] = &[
    "check::rule",
    "check::hidden_said",
    "check::unknown_shown",
    "check::hidden_asked",
    "check::hidden_stored",
    "check::secrets_unproven",
    "check::unreachable_card",
];

impl Looked {
    fn for_code(self, code: &str) -> bool {
        self.checker && (!ONCE_CLEAN.contains(&code) || self.card_rules)
    }
}

/// Drop the warnings the allows acknowledge, then warn about allows without a reason or that
/// silenced nothing (among the warnings that were looked for). Errors are never silenced.
pub fn apply(diags: &mut Vec<Diag>, allows: &[Allow], looked: Looked) {
    if allows.is_empty() {
        return;
    }
    let mut used = vec![false; allows.len()];
    diags.retain(|d| {
        if d.is_error() {
            return true;
        }
        let Some(file) = d.labels.first().map(|l| l.span.file) else {
            return true;
        };
        let hit = allows
            .iter()
            .position(|a| a.code == d.code && a.code_span.file == file);
        match hit {
            Some(i) => {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                false
            }
            None => true,
        }
    });
    for (a, used) in allows.iter().zip(used) {
        if a.reason_empty {
            diags.push(
                Diag::warning("check::allow_reason", "this `allow` gives no reason")
                    .label(a.code_span, "allowed here")
                    .help("say why the warning is fine, like `allow check::ace \"the rulebook prints both\"`"),
            );
        } else if !used && looked.for_code(&a.code) {
            let errors_only = diags.iter().any(|d| d.is_error() && d.code == a.code);
            let help = if errors_only {
                "errors cannot be allowed, only warnings"
            } else {
                "nothing in this file gives that warning any more: remove the `allow`"
            };
            diags.push(
                Diag::warning(
                    "check::unused_allow",
                    format!("`allow {}` silences no warning in this file", a.code),
                )
                .label(a.code_span, "this code")
                .help(help),
            );
        }
    }
}

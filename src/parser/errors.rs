//! Syntax errors in words: human names for grammar rules, the furthest point reached, unclosed
//! brackets and strings, and hints for common slips.

use super::*;

pub(super) const DECLARATION: &str =
    "a declaration (`kind`, `card`, `zone`, `var`, `fn`, `phase`, ...)";

/// A human name for a grammar rule, used in syntax errors.
pub fn rule_name(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        EOI => "end of file",
        file | file_detailed | item => DECLARATION,
        repl_line | repl_line_detailed => "a statement or an expression",
        import_decl => DECLARATION,
        allow_decl => DECLARATION,
        diag_code => "a diagnostic code like `check::ace`",
        game_decl => DECLARATION,
        game_entry => "a game setting like `players: 3..5`",
        enum_decl => DECLARATION,
        variant => "a variant like `Left` or `Left \"the left\"`",
        kind_decl => DECLARATION,
        field_decl => "a field like `rating: int`",
        describe_decl => "a line like `describe \"{name} ({value})\"`",
        describe_kw => "`describe`",
        var_kw => "`var`",
        type_expr | list_type | tuple_type => "a type",
        card_decl => DECLARATION,
        field_init => "a field like `rating: 3`",
        card_id => "a card id",
        cards_decl => DECLARATION,
        card_row => "a table row like `id: value, value`",
        zone_decl => DECLARATION,
        per_clause => "`per`",
        key_type | key_range => "a key type",
        visibility => "`public`, `owner` or `hidden`",
        var_decl => DECLARATION,
        bounds => "bounds like `in 0..7`",
        bound_policy => "`clamp` or `refuse`",
        internal_kw => "`internal`",
        const_decl => DECLARATION,
        fn_decl => DECLARATION,
        params | param => "a parameter",
        fn_body => "`=` or `{`",
        phase_decl => DECLARATION,
        phase_each => "`for p in list`",
        setup_decl => DECLARATION,
        trigger_decl => DECLARATION,
        event_pat | ev_name => "an event (`enter`, `flip`, `phase_start`, ...)",
        table_decl => DECLARATION,
        table_entry => "a table entry like `1..3: value`",
        check_decl | check_kw => DECLARATION,
        face_decl => DECLARATION,
        face_entry => "a face entry (`title: c.name`)",
        screen_decl | screen_kw => DECLARATION,
        screen_entry => "a screen line (`\"Bank\": bank[p]`)",
        bot_decl | bot_kw => DECLARATION,
        prefer_rule | prefer_kw => "a bot's rule (`prefer c in Card => c.value`)",
        prefer_where | prefer_value => "an expression",
        check_where | check_require | check_help => "an expression",
        option_decl | option_kw | event_decl | event_kw => DECLARATION,
        copies | x_kw => "a number of copies like `3 x`",
        ev_keys => "zone keys like `[p]`",
        custom_ev => "an event like `challenged(p, n)`",
        repeat_upto | repeat_until | up_kw | until_kw => "`up to N until condition`",
        end_stmt | end_kw | game_kw | eliminate_stmt | eliminate_kw | emit_stmt | emit_kw
        | break_stmt | break_kw | continue_stmt | continue_kw | while_stmt | while_kw => {
            "a statement"
        }
        at_round_end | at_kw | round_kw => "`at round end`",
        at_setup | setup_kw => "`at setup`",
        at_end => "`at end`",
        unique_kw => "`unique`",
        table_type | fn_type | fn_type_param => "a type",
        fn_kw => "`fn`",
        fn_lit => "a `fn` value",
        table_lit => "a table like `table { 1..3: value }`",
        block => "a block `{ ... }`",
        stmt | stmt_kw => "a statement",
        let_stmt | set_stmt | move_stmt | draw_stmt | shuffle_stmt | flip_stmt | reveal_stmt
        | for_stmt | repeat_stmt | say_stmt | return_stmt | secretly_stmt | step_stmt
        | expr_stmt => "a statement",
        assign_op => "`=`, `+=` or `-=`",
        position => "`top` or `bottom`",
        flip_dir => "`up` or `down`",
        move_face | face_kw => "`face up` or `face down`",
        to_kw => "`to`",
        expr | postfix_expr | primary | paren | prefix => "an expression",
        // Only taken outside detailed mode, so never in an error; named all the same.
        lit | scalar_lit | flat_list | flat_item | flat_tuple | lit_next | row_lits | cell
        | field_value | in_square | in_round => "an expression",
        infix | range_op | add | sub | mul | div | rem | eq | ne | le | ge | lt | gt | and_op
        | or_op => "an operator",
        neg | not_op => "an expression",
        postfix | field_access | index | call_args => "`.`, `[` or `(`",
        ident | ident_char => "a name",
        keyword => "a keyword",
        int | neg_int => "a number",
        card_ref => "a card reference like `@12`",
        string | str_part | str_text | interp => "text in quotes",
        true_lit | false_lit => "`true` or `false`",
        none_lit => "`none`",
        if_expr => "`if`",
        match_expr => "`match`",
        match_arm => "a match arm like `Left => 1`",
        pattern | wildcard | pat_range | pat_atom => "a pattern",
        aggregate | agg_kw => "an aggregate like `count(c in hand where ...)`",
        agg_where => "`where`",
        agg_map => "`=>`",
        trailing_comma => "`,`",
        as_kw => "`as`",
        list_lit => "a list `[...]`",
        WHITESPACE | comment_text | detailing => "whitespace",
    }
}

pub(super) const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "..", ".", "[", "(",
];

pub(super) fn syntax_error(e: &pest::error::Error<Rule>, text: &str, file: u32) -> Diag {
    let mut pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut tokens: Vec<String> = Vec::new();
    let mut use_rules = true;
    let mut tokens_ok = true;
    if let Some(attempts) = e.parse_attempts() {
        // The furthest point pest reached is where the text stopped making sense.
        // (A failed lookahead can count as progress inside a keyword; a furthest point that
        // lands on white space is such a one, and the rule-level position is better.)
        let lands_on_space = text
            .get(attempts.max_position..)
            .is_some_and(|r| r.starts_with(char::is_whitespace));
        if attempts.max_position > pos && !lands_on_space {
            pos = attempts.max_position;
            use_rules = false;
        } else if attempts.max_position > pos {
            tokens_ok = false;
        }
        for t in attempts.expected_tokens().into_iter().filter(|_| tokens_ok) {
            // `ParsingToken` is not exported by pest; its `Display` is the token itself.
            let tok = t.to_string();
            let tok = tok.trim();
            if tok.is_empty()
                || tok == "#"
                || tok == "\\"
                || tok == "BUILTIN_RULE"
                || (tok.len() > 1 && tok.contains(".."))
            {
                continue;
            }
            if !tokens.iter().any(|x| x == tok) {
                tokens.push(tok.to_string());
            }
        }
    }
    let mut expected: Vec<String> = Vec::new();
    let mut operator = false;
    // At the top level every item keyword is expected: say "a declaration" once.
    const ITEMS: &[&str] = &[
        "import", "game", "enum", "kind", "card", "cards", "zone", "var", "const", "fn", "phase",
        "setup", "on", "table", "check", "warn", "option", "event", "allow", "face", "screen",
        "bot",
    ];
    if tokens
        .iter()
        .filter(|t| ITEMS.contains(&t.as_str()))
        .count()
        >= 3
    {
        tokens.retain(|t| !ITEMS.contains(&t.as_str()));
        expected.push(DECLARATION.into());
    }
    const TYPE_STARTS: &[&str] = &["fn", "list", "table", "_"];
    if tokens.iter().any(|t| t == "list") && tokens.iter().any(|t| t == "table") {
        tokens.retain(|t| !TYPE_STARTS.contains(&t.as_str()));
        expected.push("a type".into());
    }
    // Where an expression may start, pest lists the keywords and symbols that can begin one:
    // say "an expression" instead. Likewise for a type.
    const EXPR_STARTS: &[&str] = &[
        "\"", "@", "_", "all", "any", "best", "count", "sum", "min", "max", "filter", "map",
        "sort", "first", "if", "match", "not", "(", "[", "-", "true", "false", "none", "fn",
        "table", "{",
    ];
    let mut collapsed: Vec<&str> = Vec::new();
    if tokens.iter().filter(|t| starts_statement(t)).count() >= 3 {
        tokens.retain(|t| !starts_statement(t) && !EXPR_STARTS.contains(&t.as_str()));
        collapsed.push("a statement");
    } else if tokens
        .iter()
        .filter(|t| EXPR_STARTS.contains(&t.as_str()))
        .count()
        >= 3
    {
        tokens.retain(|t| !EXPR_STARTS.contains(&t.as_str()));
        collapsed.push("an expression");
    }
    // Closing brackets first: they are the likeliest fix.
    tokens.sort_by_key(|t| !matches!(t.as_str(), "}" | ")" | "]"));
    for t in &tokens {
        if OPERATORS.contains(&t.as_str()) {
            operator = true;
        } else if t == "\"" {
            expected.push("text in quotes".into());
        } else {
            expected.push(format!("`{t}`"));
        }
    }
    // After the closing brackets, the likeliest fix.
    let at = expected
        .iter()
        .take_while(|x| matches!(x.as_str(), "`}`" | "`)`" | "`]`"))
        .count();
    for (k, c) in collapsed.iter().enumerate() {
        expected.insert(at + k, (*c).to_string());
    }
    if use_rules || expected.is_empty() {
        if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
            for r in positives {
                let n = rule_name(*r).to_string();
                let dup = (n.starts_with("a block") && expected.iter().any(|x| x == "`{`"))
                    || (n == DECLARATION && expected.iter().any(|x| x == DECLARATION));
                if n != "whitespace" && n != "an operator" && !dup && !expected.contains(&n) {
                    expected.push(n);
                }
            }
        }
    }
    // An expression is a statement too.
    if expected.iter().any(|x| x == "a statement") {
        expected.retain(|x| x != "an expression");
    }
    expected.truncate(6);
    if operator {
        expected.push("an operator".into());
    }
    let found = found_token(text, pos);
    let at_end = pos >= text.trim_end().len();
    let what = match expected.len() {
        0 => "something else".to_string(),
        1 => expected[0].clone(),
        n => format!("{} or {}", expected[..n - 1].join(", "), expected[n - 1]),
    };
    let rest = text.get(pos..).unwrap_or("");
    let help = if rest.starts_with("&&") {
        Some("write `and` instead of `&&`".to_string())
    } else if rest.starts_with("||") {
        Some("write `or` instead of `||`".to_string())
    } else if rest.starts_with('!') && !rest.starts_with("!=") {
        Some("write `not` instead of `!`".to_string())
    } else if rest.starts_with("per ") {
        Some(
            "in a `var`, `per` comes before the initial value: `var name: int per Key = 0`"
                .to_string(),
        )
    } else if rest.starts_with('=') && !rest.starts_with("==") && operator {
        Some("to compare, write `==`; to change a value, write `set name = value`".to_string())
    } else {
        None
    };
    let end = (pos + found_len(text, pos)).min(text.len());
    if at_end {
        let mut d = Diag::error(
            "parse::unexpected_end",
            format!("unexpected end of input; expected {what}"),
        );
        match unclosed(text) {
            Some((at, '"')) => {
                d = d
                    .label(Span::new(file, at, at + 1), "this text is never closed")
                    .help("add the closing `\"`");
            }
            Some((at, c)) => {
                let close = match c {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                };
                d = d
                    .label(
                        Span::new(file, at, at + 1),
                        format!("this `{c}` is never closed"),
                    )
                    .help(format!("add the matching `{close}`"));
            }
            None => {
                d = d.label(
                    Span::new(file, pos.min(text.len()), end),
                    format!("expected {what}"),
                );
            }
        }
        return d.maybe_help(help);
    }
    Diag::error(
        "parse::syntax",
        format!("syntax error: expected {what}, found {found}"),
    )
    .label(
        Span::new(file, pos.min(text.len()), end),
        format!("expected {what}"),
    )
    .maybe_help(help)
}

/// The innermost bracket or quote left open at the end of the text, if any.
pub(super) fn unclosed(text: &str) -> Option<(usize, char)> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(usize, char)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                let open = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= bytes.len() {
                    return Some((open, '"'));
                }
            }
            b'(' | b'[' | b'{' => stack.push((i, bytes[i] as char)),
            b')' | b']' | b'}' => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    stack.pop()
}

pub(super) fn found_token(text: &str, pos: usize) -> String {
    let rest = text.get(pos..).unwrap_or("");
    let tok: String = if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    } else {
        rest.chars().take(1).collect()
    };
    if tok.is_empty() {
        "end of input".into()
    } else if tok == "\n" {
        "end of line".into()
    } else {
        format!("`{tok}`")
    }
}

pub(super) fn found_len(text: &str, pos: usize) -> usize {
    let rest = text.get(pos..).unwrap_or("");
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .map(|c| c.len_utf8())
            .sum()
    } else {
        rest.chars().next().map(|c| c.len_utf8()).unwrap_or(0)
    }
}

/// The keywords a statement starts with (the checker offers them for a misspelt name too).
pub const STATEMENT_KEYWORDS: &[&str] = &[
    "let",
    "set",
    "move",
    "draw",
    "shuffle",
    "flip",
    "reveal",
    "for",
    "repeat",
    "say",
    "return",
    "secretly",
    "step",
    "end",
    "eliminate",
    "emit",
    "break",
    "continue",
];

/// Whether pest's expected token begins a statement: a statement keyword, `while` (parsed only
/// to point at `repeat up to`), or an empty one (`;`).
fn starts_statement(t: &str) -> bool {
    t == ";" || t == "while" || STATEMENT_KEYWORDS.contains(&t)
}

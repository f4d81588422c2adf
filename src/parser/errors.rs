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
        let left_open = match unclosed(text) {
            Some((at, '"')) => Some((at, '"')),
            other => open_by_layout(text, text.len())
                .map(|(at, c, _, _)| (at, c))
                .or(other),
        };
        match left_open {
            Some((at, '"')) => {
                d = d
                    .label(Span::new(file, at, at + 1), "this text is never closed")
                    .help("add the closing `\"`");
            }
            Some((at, c)) => {
                let before = open_by_layout(text, text.len())
                    .filter(|o| o.0 == at)
                    .and_then(|o| o.2);
                d = d
                    .label(
                        Span::new(file, at, at + 1),
                        format!("this `{c}`{} is never closed", owner_of(text, at)),
                    )
                    .help(close_help(text, c, before));
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
    // A bracket the layout shows was meant to be closed above: one error, at both ends.
    if let Some((at, c, before, early)) = open_by_layout(text, pos) {
        let owner = owner_of(text, at);
        return Diag::error(
            "parse::syntax",
            format!("syntax error: this `{c}`{owner} is never closed"),
        )
        .label(
            Span::new(file, at, at + 1),
            format!("this `{c}`{owner} is never closed"),
        )
        .label(
            Span::new(file, pos.min(text.len()), end),
            if early {
                // A `}` meant for an outer bracket closed it: the parser is in the outer one.
                format!("so the parser gave up here: expected {what}, found {found}")
            } else {
                format!("still inside it here: expected {what}, found {found}")
            },
        )
        .help(close_help(text, c, before));
    }
    if let Some((insert, next)) = missing_comma(text, pos, &expected) {
        let prev = value_before(text, insert);
        let next_word = value_after(text, next);
        return Diag::error(
            "parse::syntax",
            format!("syntax error: a `,` is missing between `{prev}` and `{next_word}`"),
        )
        .label(
            Span::new(file, insert, next.max(insert)),
            "a `,` belongs here",
        )
        .help(format!("separate them with a comma: `{prev}, {next_word}`"));
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

/// "add the matching `}`", and where when the layout shows it.
fn close_help(text: &str, c: char, before_line: Option<usize>) -> String {
    let close = match c {
        '(' => ')',
        '[' => ']',
        _ => '}',
    };
    match before_line {
        Some(at) => {
            let line = text
                .get(..at)
                .map_or(0, |t| t.bytes().filter(|&b| b == b'\n').count())
                + 1;
            format!("add the matching `{close}` before line {line}")
        }
        None => format!("add the matching `{close}`"),
    }
}

/// The brackets at byte `pos`, found in one pass over the text before it (outside strings and
/// comments; the `{` of a text's `{...}` part counts as code again up to its `}`).
struct Brackets {
    /// Those still open, outermost first: where, which, and the indentation of its line.
    open: Vec<(usize, u8, usize)>,
    /// Those closed by a bracket that begins a line indented less than the opening one's (the
    /// closing bracket of an outer one, most likely): where, which, and where that line begins.
    closed_early: Vec<(usize, u8, usize)>,
}

fn brackets_at(text: &str, pos: usize) -> Brackets {
    let bytes = text.as_bytes();
    let end = pos.min(bytes.len());
    // Frames: a bracket, `"` (inside a text) or `i` (a text's `{...}` part), with the
    // indentation of the line it is on.
    let mut stack: Vec<(usize, u8, usize)> = Vec::new();
    let mut closed_early = Vec::new();
    let mut line_start = 0;
    // The indentation of the current line, once something other than a space is on it.
    let mut indent: Option<usize> = None;
    let mut i = 0;
    while i < end {
        let b = bytes[i];
        if b == b'\n' {
            line_start = i + 1;
            indent = None;
            i += 1;
            continue;
        }
        let first_on_line = indent.is_none() && !matches!(b, b' ' | b'\t' | b'\r');
        if first_on_line {
            indent = Some(i - line_start);
        }
        let here = indent.unwrap_or(0);
        if stack.last().is_some_and(|f| f.1 == b'"') {
            match b {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'{' => stack.push((i, b'i', here)),
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'#' => {
                while i < end && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => stack.push((i, b'"', here)),
            b'(' | b'[' | b'{' => stack.push((i, b, here)),
            b')' | b']' | b'}' => {
                let closes = stack.last().is_some_and(|f| match b {
                    b'}' => f.1 != b'"',
                    _ => matches!(f.1, b'(' | b'[' | b'{'),
                });
                if closes {
                    if let Some(f) = stack.pop() {
                        if first_on_line && f.1 != b'i' && here < f.2 {
                            closed_early.push((f.0, f.1, line_start));
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack.retain(|f| matches!(f.1, b'(' | b'[' | b'{'));
    Brackets {
        open: stack,
        closed_early,
    }
}

/// The bracket left open that the layout shows was meant to be closed before `pos`, when the
/// text leaves a bracket open at its end: the innermost of those open at `pos` after whose line
/// a line begins, before `pos`, at its line's indentation or less (and, at the same indentation,
/// not with a closing bracket); or, when a bracket inside that one was closed by a line indented
/// less than its own (the closing bracket of the outer one, most likely), the first such. With
/// the bracket: the line it should be closed before, and whether it was closed early.
fn open_by_layout(text: &str, pos: usize) -> Option<(usize, char, Option<usize>, bool)> {
    if brackets_at(text, text.len()).open.is_empty() {
        return None;
    }
    let found = brackets_at(text, pos);
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    for &(at, b, own) in found.open.iter().rev() {
        let Some(after) = text
            .get(at..)
            .and_then(|t| t.find('\n'))
            .map(|n| at + n + 1)
        else {
            continue;
        };
        let mut start = after;
        while start < pos.min(text.len()) {
            let line_end = text
                .get(start..)
                .and_then(|t| t.find('\n'))
                .map_or(text.len(), |n| start + n);
            let line = text.get(start..line_end).unwrap_or("");
            let ind = indent(line);
            let first = line.get(ind..).and_then(|l| l.chars().next());
            let counts = start + ind <= pos && !matches!(first, None | Some('#') | Some('\r'));
            if counts && (ind < own || (ind == own && !matches!(first, Some(')' | ']' | '}')))) {
                let inner = found.closed_early.iter().find(|c| c.0 > at && c.2 <= start);
                return Some(match inner {
                    Some(&(o, c, line)) => (o, c as char, Some(line), true),
                    None => (at, b as char, Some(start), false),
                });
            }
            start = line_end + 1;
        }
    }
    // At the end of the text, with no such line: the first bracket inside the innermost one
    // left open that was closed early.
    let &(at, _, _) = found.open.last()?;
    if pos < text.len() {
        return None;
    }
    found
        .closed_early
        .iter()
        .find(|c| c.0 > at)
        .map(|&(o, c, line)| (o, c as char, Some(line), true))
}

/// " of card comet_strike": what a `{` opens, read from the start of its line.
fn owner_of(text: &str, at: usize) -> String {
    if text.as_bytes().get(at) != Some(&b'{') {
        return String::new();
    }
    let line_start = text
        .get(..at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |n| n + 1);
    let head = text.get(line_start..at).unwrap_or("");
    let words: Vec<&str> = head
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let (Some(first), second, last) = (words.first(), words.get(1), words.last()) else {
        return String::new();
    };
    match (*first, second, last) {
        ("card", Some(_), Some(id)) if words.len() >= 3 => format!(" of card {id}"),
        ("cards", Some(k), _) => format!(" of `cards {k}`"),
        ("kind" | "enum" | "phase" | "fn" | "bot" | "table" | "event", Some(n), _) => {
            format!(" of {first} {n}")
        }
        ("game", ..) => " of the `game` block".to_string(),
        ("setup", ..) => " of `setup`".to_string(),
        ("for" | "if" | "repeat" | "secretly" | "step" | "match" | "on", ..) => {
            format!(" of this `{first}`")
        }
        // `penalty: fn(f) {`: a card's code.
        _ if head.trim_end().ends_with(')') => words
            .iter()
            .rposition(|w| *w == "fn")
            .and_then(|k| words.get(k.checked_sub(1)?))
            .map_or(String::new(), |f| format!(" of the code of `{f}`")),
        _ => String::new(),
    }
}

/// Where a `,` was left out between two values: where to write it, and where the value after
/// it begins. Either pest wanted a `,` and found the start of another value on the same line,
/// or, in a `cards` table, pest stopped right after a word that follows a value on the same line
/// with only spaces between (read as the id of another row, whose `:` is missing, or a keyword
/// value such as `true`).
fn missing_comma(text: &str, pos: usize, expected: &[String]) -> Option<(usize, usize)> {
    let value_end = |t: &str| {
        t.chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | ')' | ']' | '"' | '}'))
    };
    let before = text.get(..pos)?.trim_end_matches([' ', '\t']);
    let rest = text.get(pos..)?;
    let starts_value = rest
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '(' | '[' | '"' | '@'));
    const NOT_VALUES: &[&str] = &["and", "or", "not", "in", "of", "x"];
    let last_word = |t: &str| {
        let w = t.len()
            - t.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_')
                .len();
        t.get(t.len() - w..).unwrap_or("").to_string()
    };
    if expected.iter().any(|e| e == "`,`")
        && starts_value
        && value_end(before)
        && !NOT_VALUES.contains(&last_word(before).as_str())
    {
        return Some((before.len(), pos));
    }
    // A row of a `cards` table read on into another row.
    let in_rows = brackets_at(text, pos)
        .open
        .last()
        .is_some_and(|&(at, b, _)| b == b'{' && owner_of(text, at).starts_with(" of `cards "));
    if in_rows {
        // The word may end the line before (`... (Domestic, 1)] 1` then the next row).
        let before = text.get(..pos)?.trim_end();
        let word = last_word(before);
        let word_start = before.len() - word.len();
        let ahead = text.get(..word_start)?.trim_end_matches([' ', '\t']);
        let value = !word.is_empty() && !NOT_VALUES.contains(&word.as_str());
        if value && ahead.len() < word_start && value_end(ahead) {
            return Some((ahead.len(), word_start));
        }
    }
    None
}

/// The value that begins at `start`, as written up to the end of its line (a bracketed value to
/// its closing bracket, a text to its closing quote, else the word), or its first 40 characters.
fn value_after(text: &str, start: usize) -> String {
    let rest = text.get(start..).unwrap_or("");
    let line = rest
        .get(..rest.find('\n').unwrap_or(rest.len()))
        .unwrap_or("");
    let bytes = line.as_bytes();
    let mut end = found_len(text, start).min(line.len());
    match bytes.first() {
        Some(b'(' | b'[') => {
            let mut depth = 0i32;
            for (i, &b) in bytes.iter().enumerate() {
                match b {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
        }
        Some(b'"') => {
            end = line
                .get(1..)
                .and_then(|l| l.find('"'))
                .map_or(line.len(), |n| n + 2);
        }
        _ => {}
    }
    let v = line.get(..end).unwrap_or("");
    if v.chars().count() > 40 {
        format!("{}...", v.chars().take(40).collect::<String>())
    } else {
        v.to_string()
    }
}

/// The value that ends at `end`, as written (a bracketed value from its opening bracket on that
/// line, a text from its opening quote, else the word), or its last 40 characters when longer.
fn value_before(text: &str, end: usize) -> String {
    let Some(t) = text.get(..end) else {
        return String::new();
    };
    let line = t.get(t.rfind('\n').map_or(0, |n| n + 1)..).unwrap_or("");
    let bytes = line.as_bytes();
    let mut start = line.len();
    match bytes.last() {
        Some(b')' | b']' | b'}') => {
            let mut depth = 0i32;
            for (i, &b) in bytes.iter().enumerate().rev() {
                match b {
                    b')' | b']' | b'}' => depth += 1,
                    b'(' | b'[' | b'{' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    start = i;
                    break;
                }
            }
        }
        Some(b'"') => {
            start = line
                .get(..line.len() - 1)
                .and_then(|l| l.rfind('"'))
                .unwrap_or(line.len() - 1);
        }
        _ => {
            start = line
                .trim_end_matches(|c: char| c.is_alphanumeric() || c == '_')
                .len();
        }
    }
    let v = line.get(start..).unwrap_or("");
    if v.chars().count() > 40 {
        let skip = v.chars().count() - 40;
        format!("...{}", v.chars().skip(skip).collect::<String>())
    } else {
        v.to_string()
    }
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

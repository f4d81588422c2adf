//! Text to syntax tree: the pre-pass that bounds nesting, pest, and pairs to AST.
//! One function per grammar rule; operator precedence with pest's `PrattParser`.

use crate::ast::*;
use crate::diag::{Diag, Span};
use crate::limits::Limits;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser as _;
use std::sync::LazyLock;

mod flow;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/rules.pest"]
pub struct RulesParser;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::range_op, Assoc::Left))
        .op(Op::infix(Rule::or_op, Assoc::Left))
        .op(Op::infix(Rule::and_op, Assoc::Left))
        .op(Op::prefix(Rule::not_op))
        .op(Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left)
            | Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left)
            | Op::infix(Rule::div, Assoc::Left)
            | Op::infix(Rule::rem, Assoc::Left))
        .op(Op::prefix(Rule::neg))
});

/// What a parse produced: the tree (when the text parsed) and every problem found.
pub struct Parsed<T> {
    pub value: Option<T>,
    pub diags: Vec<Diag>,
}

/// Parse a whole `.rules` file.
pub fn parse_file(text: &str, file: u32, limits: &Limits) -> Parsed<File> {
    parse_with(text, file, limits, Rule::file, |b, pair| b.file(pair))
}

/// Parse statements typed at the REPL as one block.
pub fn parse_repl_line(text: &str, file: u32, limits: &Limits) -> Parsed<Block> {
    parse_with(text, file, limits, Rule::repl_line, |b, pair| {
        let span = b.span(&pair);
        let stmts = children(pair).filter_map(|p| b.stmt(p)).collect();
        Block { stmts, span }
    })
}

fn parse_with<T>(
    text: &str,
    file: u32,
    limits: &Limits,
    rule: Rule,
    build: impl FnOnce(&mut Builder, Pair<Rule>) -> T,
) -> Parsed<T> {
    if text.len() > limits.max_file_bytes {
        return Parsed {
            value: None,
            diags: vec![Diag::error(
                "limit::file_size",
                format!(
                    "this file is {} bytes; the limit is {} bytes",
                    text.len(),
                    limits.max_file_bytes
                ),
            )
            .label(Span::new(file, 0, 0), "file starts here")
            .help("split the card sets into several files and import them")],
        };
    }
    if let Some(d) = nesting_prepass(text, file, limits.max_depth) {
        return Parsed {
            value: None,
            diags: vec![d],
        };
    }
    pest::set_error_detail(true);
    match RulesParser::parse(rule, text) {
        Ok(mut pairs) => {
            let Some(pair) = pairs.next() else {
                return Parsed {
                    value: None,
                    diags: vec![Diag::error("parse::empty", "nothing to parse")],
                };
            };
            let mut b = Builder {
                file,
                depth: 0,
                max_depth: limits.max_depth,
                diags: Vec::new(),
            };
            let value = build(&mut b, pair);
            let ok = !b.diags.iter().any(|d| d.is_error());
            Parsed {
                value: ok.then_some(value),
                diags: b.diags,
            }
        }
        Err(e) => Parsed {
            value: None,
            diags: vec![syntax_error(&e, text, file)],
        },
    }
}

/// Bounds nesting on the raw text before pest runs, so pest's recursion is bounded too.
/// Counts brackets (outside strings and comments) and the constructs that nest without them:
/// runs of prefix operators (`-`, `not`), `list of list of ...` types, and `else if` chains.
fn nesting_prepass(text: &str, file: u32, max_depth: usize) -> Option<Diag> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut depth = 0usize;
    let mut i = 0usize;
    let mut prefix_run = 0usize;
    let mut of_run = 0usize;
    // Per bracket depth: how long the `} else if ... {` chain at that depth has grown.
    let mut else_runs: Vec<usize> = vec![0];
    // A `}` just brought the text back to this depth (an `else` may follow).
    let mut closed_to: Option<usize> = None;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'{' {
                        depth += 1;
                        if depth > max_depth {
                            return Some(too_deep(file, i, max_depth));
                        }
                    } else if bytes[i] == b'}' {
                        depth = depth.saturating_sub(1);
                    }
                    i += 1;
                }
                prefix_run = 0;
                closed_to = None;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth + prefix_run > max_depth {
                    return Some(too_deep(file, i, max_depth));
                }
                while else_runs.len() <= depth {
                    else_runs.push(0);
                }
                else_runs[depth] = 0;
                closed_to = None;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                prefix_run = 0;
                of_run = 0;
                closed_to = (c == b'}').then_some(depth);
            }
            b'-' => {
                prefix_run += 1;
                if depth + prefix_run > max_depth {
                    return Some(too_deep(file, i, max_depth));
                }
                closed_to = None;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ if is_word(c) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                let word = text.get(start..i).unwrap_or("");
                match word {
                    "not" => prefix_run += 1,
                    "of" => of_run += 1,
                    "else" if closed_to == Some(depth) => {
                        if let Some(run) = else_runs.get_mut(depth) {
                            *run += 1;
                            if depth + *run > max_depth {
                                return Some(too_deep(file, start, max_depth));
                            }
                        }
                    }
                    _ => {}
                }
                if word != "not" {
                    prefix_run = 0;
                }
                // `list of`, `table 1..3 of` and `table -3..-1 of` nest types without brackets.
                let in_type = matches!(word, "of" | "list" | "table")
                    || word.bytes().all(|b| b.is_ascii_digit());
                if !in_type {
                    of_run = 0;
                }
                if word != "else" && closed_to == Some(depth) {
                    if let Some(run) = else_runs.get_mut(depth) {
                        *run = 0;
                    }
                }
                if depth + prefix_run.max(of_run) > max_depth {
                    return Some(too_deep(file, start, max_depth));
                }
                closed_to = None;
                continue;
            }
            _ => {
                prefix_run = 0;
                if c != b'.' {
                    of_run = 0;
                }
                if closed_to == Some(depth) {
                    if let Some(run) = else_runs.get_mut(depth) {
                        *run = 0;
                    }
                }
                closed_to = None;
            }
        }
        i += 1;
    }
    None
}

/// How many brackets are still open at the end of `text` (outside strings and comments).
/// Linear; the REPL uses it to tell unfinished input without parsing it again.
pub fn open_brackets(text: &str) -> usize {
    open_brackets_from(0, text)
}

/// `open_brackets` continued from `depth` brackets already open (one line after another).
pub fn open_brackets_from(depth: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut depth = depth;
    let mut i = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    depth
}

fn too_deep(file: u32, at: usize, max: usize) -> Diag {
    Diag::error(
        "limit::nesting",
        format!("this is nested more than {max} levels deep"),
    )
    .label(Span::new(file, at, at + 1), "too deep here")
    .help("split the expression with `let` bindings or helper functions")
}

const DECLARATION: &str = "a declaration (`kind`, `card`, `zone`, `var`, `fn`, `phase`, ...)";

/// A human name for a grammar rule, used in syntax errors.
pub fn rule_name(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        EOI => "end of file",
        file | item => DECLARATION,
        repl_line => "a statement or an expression",
        import_decl => DECLARATION,
        game_decl => DECLARATION,
        game_entry => "a game setting like `players: 3..5`",
        enum_decl => DECLARATION,
        kind_decl => DECLARATION,
        field_decl => "a field like `rating: int`",
        var_kw => "`var`",
        type_expr | list_type => "a type",
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
        const_decl => DECLARATION,
        fn_decl => DECLARATION,
        params | param => "a parameter",
        fn_body => "`=` or `{`",
        phase_decl => DECLARATION,
        setup_decl => DECLARATION,
        trigger_decl => DECLARATION,
        event_pat | ev_name => "an event (`enter`, `flip`, `phase_start`, ...)",
        table_decl => DECLARATION,
        table_entry => "a table entry like `1..3: value`",
        check_decl | check_kw => DECLARATION,
        check_where | check_require | check_help => "an expression",
        option_decl | option_kw | event_decl | event_kw => DECLARATION,
        copies | x_kw => "a number of copies like `3 x`",
        ev_keys => "zone keys like `[p]`",
        custom_ev => "an event like `challenged(p, n)`",
        repeat_upto | repeat_until | up_kw | until_kw => "`up to N until condition`",
        end_stmt | end_kw | game_kw | eliminate_stmt | eliminate_kw | emit_stmt | emit_kw => {
            "a statement"
        }
        unique_kw => "`unique`",
        table_type => "a type",
        table_lit => "a table like `table { 1..3: value }`",
        block => "a block `{ ... }`",
        stmt => "a statement",
        let_stmt | set_stmt | move_stmt | draw_stmt | shuffle_stmt | flip_stmt | reveal_stmt
        | for_stmt | repeat_stmt | say_stmt | return_stmt | secretly_stmt | step_stmt
        | expr_stmt => "a statement",
        assign_op => "`=`, `+=` or `-=`",
        position => "`top` or `bottom`",
        flip_dir => "`up` or `down`",
        to_kw => "`to`",
        expr | postfix_expr | primary | paren | prefix => "an expression",
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
        list_lit => "a list `[...]`",
        WHITESPACE | COMMENT => "whitespace",
    }
}

const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "..", ".", "[", "(",
];

fn syntax_error(e: &pest::error::Error<Rule>, text: &str, file: u32) -> Diag {
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
        "setup", "on", "table", "check", "warn", "option", "event",
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
fn unclosed(text: &str) -> Option<(usize, char)> {
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

fn found_token(text: &str, pos: usize) -> String {
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

fn found_len(text: &str, pos: usize) -> usize {
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

struct Builder {
    file: u32,
    depth: usize,
    max_depth: usize,
    diags: Vec<Diag>,
}

fn children(pair: Pair<Rule>) -> Pairs<Rule> {
    pair.into_inner()
}

impl Builder {
    /// The pair's span, without the spaces and comments pest skipped after its last token
    /// (a repetition that found nothing more still consumed them).
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.file, s.start(), s.start() + written_len(s.as_str()))
    }

    fn ident(&self, pair: Pair<Rule>) -> Ident {
        Spanned::new(pair.as_str().to_string(), self.span(&pair))
    }

    fn int_value(&mut self, pair: &Pair<Rule>) -> i64 {
        match pair.as_str().parse::<i64>() {
            Ok(n) => n,
            Err(_) => {
                self.diags.push(
                    Diag::error("parse::number", "this number is too large")
                        .label(self.span(pair), "does not fit in 64 bits"),
                );
                0
            }
        }
    }

    fn enter(&mut self, span: Span) -> bool {
        self.depth += 1;
        if self.depth > self.max_depth {
            if !self.diags.iter().any(|d| d.code == "limit::nesting") {
                self.diags.push(
                    Diag::error(
                        "limit::nesting",
                        format!("this is nested more than {} levels deep", self.max_depth),
                    )
                    .label(span, "too deep here")
                    .help("split the expression with `let` bindings or helper functions"),
                );
            }
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Enter `n` levels at once: a chain of `n` operators or postfixes builds a tree `n` deep
    /// (`1 + 1 + 1` is `(1 + 1) + 1`), so every later walk over it recurses that deep. Counting
    /// chains here bounds the depth of every tree by `max_depth`, whatever its shape.
    fn enter_n(&mut self, n: usize, span: Span) -> bool {
        self.depth = self.depth.saturating_add(n.saturating_sub(1));
        if self.enter(span) {
            true
        } else {
            self.depth = self.depth.saturating_sub(n);
            false
        }
    }

    fn leave_n(&mut self, n: usize) {
        self.depth = self.depth.saturating_sub(n);
    }

    // ------------------------------------------------------------ items

    fn file(&mut self, pair: Pair<Rule>) -> File {
        let mut items = Vec::new();
        for p in children(pair) {
            if p.as_rule() == Rule::EOI {
                continue;
            }
            if p.as_rule() == Rule::cards_decl {
                items.extend(self.cards_decl(p).into_iter().map(Item::Card));
            } else if let Some(item) = self.item(p) {
                items.push(item);
            }
        }
        File { items }
    }

    fn item(&mut self, pair: Pair<Rule>) -> Option<Item> {
        Some(match pair.as_rule() {
            Rule::import_decl => Item::Import(self.import_decl(pair)),
            Rule::game_decl => Item::Game(self.game_decl(pair)),
            Rule::enum_decl => Item::Enum(self.enum_decl(pair)),
            Rule::kind_decl => Item::Kind(self.kind_decl(pair)),
            Rule::card_decl => Item::Card(self.card_decl(pair)),
            Rule::zone_decl => Item::Zone(self.zone_decl(pair)),
            Rule::var_decl => Item::Var(self.var_decl(pair)),
            Rule::const_decl => Item::Const(self.const_decl(pair)),
            Rule::fn_decl => Item::Fn(self.fn_decl(pair)),
            Rule::phase_decl => Item::Phase(self.phase_decl(pair)),
            Rule::setup_decl => Item::Setup(self.setup_decl(pair)),
            Rule::trigger_decl => Item::Trigger(self.trigger_decl(pair)),
            Rule::table_decl => Item::Table(self.table_decl(pair)),
            Rule::check_decl => Item::Check(Box::new(self.check_decl(pair))),
            Rule::option_decl => Item::Option(self.option_decl(pair)?),
            Rule::event_decl => Item::Event(self.event_decl(pair)?),
            _ => return None,
        })
    }

    fn import_decl(&mut self, pair: Pair<Rule>) -> Spanned<String> {
        let span = self.span(&pair);
        let s = children(pair).next().map(|p| self.plain_string(p));
        Spanned::new(s.unwrap_or_default(), span)
    }

    fn plain_string(&mut self, pair: Pair<Rule>) -> String {
        let mut out = String::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::str_text => out.push_str(&unescape(p.as_str())),
                _ => {
                    self.diags.push(
                        Diag::error("parse::interpolation", "interpolation is not allowed here")
                            .label(self.span(&p), "a plain text is expected"),
                    );
                }
            }
        }
        out
    }

    fn game_decl(&mut self, pair: Pair<Rule>) -> GameDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let name_pair = it.next();
        let name = match name_pair {
            Some(p) => {
                let sp = self.span(&p);
                Spanned::new(self.plain_string(p), sp)
            }
            None => Spanned::new(String::new(), span),
        };
        let mut entries = Vec::new();
        for e in it {
            let mut inner = children(e);
            if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                let k = self.ident(k);
                entries.push((k, self.expr(v)));
            }
        }
        GameDecl {
            name,
            entries,
            span,
        }
    }

    fn enum_decl(&mut self, pair: Pair<Rule>) -> EnumDecl {
        let mut it = children(pair).map(|p| self.ident(p));
        let name = it
            .next()
            .unwrap_or_else(|| Spanned::new(String::new(), Span::default()));
        EnumDecl {
            name,
            variants: it.collect(),
        }
    }

    fn type_expr(&mut self, pair: Pair<Rule>) -> Spanned<TypeExpr> {
        let span = self.span(&pair);
        let Some(inner) = children(pair).next() else {
            return Spanned::new(TypeExpr::Named(Spanned::new(String::new(), span)), span);
        };
        match inner.as_rule() {
            Rule::table_type => {
                let mut lo = 0;
                let mut hi = 0;
                let mut elem = None;
                for p in children(inner) {
                    match p.as_rule() {
                        Rule::key_range => {
                            let nums: Vec<Pair<Rule>> = children(p).collect();
                            lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
                            hi = nums.get(1).map(|p| self.int_value(p)).unwrap_or(0);
                        }
                        Rule::type_expr => elem = Some(self.type_expr(p)),
                        _ => {}
                    }
                }
                let elem = elem.unwrap_or_else(|| {
                    Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
                });
                Spanned::new(TypeExpr::Table(lo, hi, Box::new(elem)), span)
            }
            Rule::list_type => {
                let elem = children(inner)
                    .next()
                    .map(|p| self.type_expr(p))
                    .unwrap_or_else(|| {
                        Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
                    });
                Spanned::new(TypeExpr::List(Box::new(elem)), span)
            }
            _ => Spanned::new(TypeExpr::Named(self.ident(inner)), span),
        }
    }

    fn kind_decl(&mut self, pair: Pair<Rule>) -> KindDecl {
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let fields = it.map(|p| self.field_decl(p)).collect();
        KindDecl { name, fields }
    }

    fn field_decl(&mut self, pair: Pair<Rule>) -> FieldDecl {
        let span = self.span(&pair);
        let mut mutable = false;
        let mut name = Spanned::new(String::new(), span);
        let mut ty = None;
        let mut default = None;
        let mut bounds = None;
        let mut unique = false;
        for p in children(pair) {
            match p.as_rule() {
                Rule::var_kw => mutable = true,
                Rule::unique_kw => unique = true,
                Rule::ident => name = self.ident(p),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::bounds => bounds = Some(self.bounds(p)),
                Rule::expr => default = Some(self.expr(p)),
                _ => {}
            }
        }
        FieldDecl {
            mutable,
            bounds,
            unique,
            name,
            ty: ty.unwrap_or_else(|| {
                Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
            }),
            default,
        }
    }

    fn card_id(&mut self, pair: Pair<Rule>) -> Spanned<CardId> {
        let span = self.span(&pair);
        let inner = children(pair).next();
        let id = match inner {
            Some(p) if p.as_rule() == Rule::int => CardId::Num(self.int_value(&p)),
            Some(p) => CardId::Name(p.as_str().to_string()),
            None => CardId::Name(String::new()),
        };
        Spanned::new(id, span)
    }

    fn card_decl(&mut self, pair: Pair<Rule>) -> CardDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let kind = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let id = match it.next() {
            Some(p) => self.card_id(p),
            None => Spanned::new(CardId::Name(String::new()), span),
        };
        let mut fields = Vec::new();
        for f in it {
            let mut inner = children(f);
            if let (Some(k), Some(v)) = (inner.next(), inner.next()) {
                let k = self.ident(k);
                fields.push((k, self.expr(v)));
            }
        }
        CardDecl {
            kind,
            id,
            fields,
            span,
            copy: None,
        }
    }

    /// A `cards` table becomes one card declaration per row.
    fn cards_decl(&mut self, pair: Pair<Rule>) -> Vec<CardDecl> {
        let mut kind = None;
        let mut columns: Vec<Ident> = Vec::new();
        let mut out = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident if kind.is_none() => kind = Some(self.ident(p)),
                Rule::ident => columns.push(self.ident(p)),
                Rule::card_row => {
                    let span = self.span(&p);
                    let mut it = children(p).peekable();
                    let copies = match it.peek() {
                        Some(c) if c.as_rule() == Rule::copies => it.next().map(|c| self.copies(c)),
                        _ => None,
                    };
                    let id = match it.next() {
                        Some(idp) => self.card_id(idp),
                        None => continue,
                    };
                    let values: Vec<Expr> = it.map(|v| self.expr(v)).collect();
                    if values.len() != columns.len() {
                        self.diags.push(
                            Diag::error(
                                "parse::row_width",
                                format!(
                                    "this row has {} values but the table has {} columns",
                                    values.len(),
                                    columns.len()
                                ),
                            )
                            .label(span, "in this row")
                            .help(format!(
                                "the columns are: {}",
                                columns
                                    .iter()
                                    .map(|c| c.node.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                        );
                        continue;
                    }
                    let fields: Vec<(Ident, Expr)> = columns.iter().cloned().zip(values).collect();
                    let kind = kind.clone().unwrap_or_default_ident();
                    out.extend(flow::copies_of(kind, id, fields, span, copies));
                }
                _ => {}
            }
        }
        out
    }

    fn per_clause(&mut self, pair: Pair<Rule>) -> Vec<KeyType> {
        let mut keys = Vec::new();
        for k in children(pair) {
            let span = self.span(&k);
            let Some(inner) = children(k).next() else {
                continue;
            };
            match inner.as_rule() {
                Rule::key_range => {
                    let nums: Vec<Pair<Rule>> = children(inner).collect();
                    let lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
                    let hi = nums.get(1).map(|p| self.int_value(p)).unwrap_or(0);
                    keys.push(KeyType::Range(lo, hi, span));
                }
                _ => keys.push(KeyType::Named(self.ident(inner))),
            }
        }
        keys
    }

    fn zone_decl(&mut self, pair: Pair<Rule>) -> ZoneDecl {
        let mut name = None;
        let mut kind = None;
        let mut per = Vec::new();
        let mut visibility = Visibility::Public;
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident if name.is_none() => name = Some(self.ident(p)),
                Rule::ident => kind = Some(self.ident(p)),
                Rule::per_clause => per = self.per_clause(p),
                Rule::visibility => visibility = visibility_of(p.as_str()),
                _ => {}
            }
        }
        ZoneDecl {
            name: name.unwrap_or_default_ident(),
            kind,
            per,
            visibility,
        }
    }

    fn var_decl(&mut self, pair: Pair<Rule>) -> VarDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut ty = None;
        let mut bounds = None;
        let mut per = Vec::new();
        let mut visibility = Visibility::Public;
        let mut init = None;
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_expr => ty = Some(self.type_expr(p)),
                Rule::bounds => bounds = Some(self.bounds(p)),
                Rule::per_clause => per = self.per_clause(p),
                Rule::visibility => visibility = visibility_of(p.as_str()),
                Rule::expr => init = Some(self.expr(p)),
                _ => {}
            }
        }
        VarDecl {
            name: name.unwrap_or_default_ident(),
            ty: ty.unwrap_or_else(|| {
                Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span)
            }),
            bounds,
            per,
            visibility,
            init: init.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
        }
    }

    fn bounds(&mut self, pair: Pair<Rule>) -> Bounds {
        let mut span = self.span(&pair);
        // The span ends with the last thing written, not the space after it.
        if let Some(last) = children(pair.clone()).last() {
            span.end = self.span(&last).end;
        }
        let mut refuse = false;
        let mut nums: Vec<Pair<Rule>> = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::bound_policy => refuse = p.as_str() == "refuse",
                _ => nums.push(p),
            }
        }
        let lo = nums.first().map(|p| self.int_value(p)).unwrap_or(0);
        let hi = nums.get(1).map(|p| self.int_value(p));
        Bounds {
            lo,
            hi,
            refuse,
            span,
        }
    }

    fn check_decl(&mut self, pair: Pair<Rule>) -> CheckDecl {
        let span = self.span(&pair);
        let mut warn = false;
        let mut var = None;
        let mut exprs: Vec<Expr> = Vec::new();
        let mut filter = None;
        let mut require = None;
        let mut help = None;
        let mut at = None;
        for p in children(pair) {
            match p.as_rule() {
                Rule::check_kw => warn = p.as_str() == "warn",
                Rule::ident if var.is_none() => var = Some(self.ident(p)),
                Rule::ident => at = Some(self.ident(p)),
                Rule::check_where => filter = children(p).next().map(|e| self.expr(e)),
                Rule::check_require => require = children(p).next().map(|e| self.expr(e)),
                Rule::check_help => help = children(p).next().map(|e| self.expr(e)),
                Rule::expr => exprs.push(self.expr(p)),
                _ => {}
            }
        }
        let none = || Expr {
            kind: ExprKind::None,
            span,
        };
        let mut exprs = exprs.into_iter();
        let source = exprs.next().unwrap_or_else(none);
        let message = exprs.next().unwrap_or_else(none);
        CheckDecl {
            warn,
            var: var.unwrap_or_default_ident(),
            source,
            filter,
            require: require.unwrap_or_else(none),
            message,
            at,
            help,
            span,
        }
    }

    fn const_decl(&mut self, pair: Pair<Rule>) -> ConstDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let value = it.next().map(|p| self.expr(p)).unwrap_or(Expr {
            kind: ExprKind::None,
            span,
        });
        ConstDecl { name, value }
    }

    fn fn_decl(&mut self, pair: Pair<Rule>) -> FnDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut params = Vec::new();
        let mut ret = None;
        let mut body = None;
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::params => {
                    for param in children(p) {
                        let mut it = children(param);
                        let pname = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
                        let ty = it.next().map(|t| self.type_expr(t));
                        params.push(Param { name: pname, ty });
                    }
                }
                Rule::type_expr => ret = Some(self.type_expr(p)),
                Rule::fn_body => {
                    let bspan = self.span(&p);
                    if let Some(inner) = children(p).next() {
                        body = Some(match inner.as_rule() {
                            Rule::block => Expr {
                                kind: ExprKind::Block(self.block(inner)),
                                span: bspan,
                            },
                            _ => self.expr(inner),
                        });
                    }
                }
                _ => {}
            }
        }
        FnDecl {
            name: name.unwrap_or_default_ident(),
            params,
            ret,
            body: body.unwrap_or(Expr {
                kind: ExprKind::None,
                span,
            }),
        }
    }

    fn phase_decl(&mut self, pair: Pair<Rule>) -> PhaseDecl {
        let span = self.span(&pair);
        let mut it = children(pair);
        let name = it.next().map(|p| self.ident(p)).unwrap_or_default_ident();
        let body = it.next().map(|b| self.block(b)).unwrap_or(Block {
            stmts: vec![],
            span,
        });
        PhaseDecl { name, body }
    }

    fn setup_decl(&mut self, pair: Pair<Rule>) -> Block {
        let span = self.span(&pair);
        children(pair)
            .next()
            .map(|b| self.block(b))
            .unwrap_or(Block {
                stmts: vec![],
                span,
            })
    }

    fn trigger_decl(&mut self, pair: Pair<Rule>) -> TriggerDecl {
        let span = self.span(&pair);
        let mut event = Spanned::new(EventKind::RoundStart, span);
        let mut target = None;
        let mut binding = None;
        let mut params = Vec::new();
        let mut condition = None;
        let mut body = Block {
            stmts: vec![],
            span,
        };
        for p in children(pair) {
            match p.as_rule() {
                Rule::event_pat if self.custom_event(&p, &mut event, &mut target, &mut params) => {}
                Rule::event_pat => {
                    let ev_text = p.as_str().to_string();
                    let ev_start = p.as_span().start();
                    for q in children(p) {
                        match q.as_rule() {
                            Rule::ev_name => {
                                let k = match q.as_str() {
                                    "enter" => EventKind::Enter,
                                    "flip" => EventKind::Flip,
                                    "phase_start" => EventKind::PhaseStart,
                                    "phase_end" => EventKind::PhaseEnd,
                                    "round_end" => EventKind::RoundEnd,
                                    _ => EventKind::RoundStart,
                                };
                                event = Spanned::new(k, self.span(&q));
                            }
                            Rule::ev_keys => params = children(q).map(|k| self.ident(k)).collect(),
                            Rule::ident => {
                                // The target comes before `as`, the binding after it.
                                let start = q.as_span().start() - ev_start;
                                let before = ev_text.get(..start).unwrap_or("").trim_end();
                                if before.ends_with("as") {
                                    binding = Some(self.ident(q));
                                } else {
                                    target = Some(self.ident(q));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Rule::expr => condition = Some(self.expr(p)),
                Rule::block => body = self.block(p),
                _ => {}
            }
        }
        TriggerDecl {
            event,
            target,
            params,
            binding,
            condition,
            body,
        }
    }

    fn table_decl(&mut self, pair: Pair<Rule>) -> TableDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut types = Vec::new();
        let mut entries = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_expr => types.push(self.type_expr(p)),
                Rule::table_entry => {
                    let mut it = children(p);
                    if let (Some(pat), Some(v)) = (it.next(), it.next()) {
                        let pat = self.pattern(pat);
                        entries.push((pat, self.expr(v)));
                    }
                }
                _ => {}
            }
        }
        let any = || Spanned::new(TypeExpr::Named(Spanned::new("any".into(), span)), span);
        let mut types = types.into_iter();
        TableDecl {
            name: name.unwrap_or_default_ident(),
            key_ty: types.next().unwrap_or_else(any),
            val_ty: types.next().unwrap_or_else(any),
            entries,
        }
    }

    fn pattern(&mut self, pair: Pair<Rule>) -> Spanned<Pattern> {
        let span = self.span(&pair);
        let Some(inner) = children(pair).next() else {
            return Spanned::new(Pattern::Wildcard, span);
        };
        let pat = match inner.as_rule() {
            Rule::wildcard => Pattern::Wildcard,
            Rule::pat_range => {
                let atoms: Vec<Pair<Rule>> =
                    children(inner).filter_map(|a| children(a).next()).collect();
                let is_int = |p: &Pair<Rule>| p.as_rule() == Rule::neg_int;
                match atoms.as_slice() {
                    [a] if is_int(a) => Pattern::Int(self.int_value(a)),
                    [a] => Pattern::Name(a.as_str().to_string()),
                    [a, b] if is_int(a) && is_int(b) => {
                        let (x, y) = (self.int_value(a), self.int_value(b));
                        Pattern::Range(x, y)
                    }
                    [a, b] => Pattern::NamedRange(a.as_str().to_string(), b.as_str().to_string()),
                    _ => Pattern::Wildcard,
                }
            }
            Rule::string => Pattern::Text(self.plain_string(inner)),
            _ => Pattern::Name(inner.as_str().to_string()),
        };
        Spanned::new(pat, span)
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, pair: Pair<Rule>) -> Block {
        let span = self.span(&pair);
        if !self.enter(span) {
            return Block {
                stmts: vec![],
                span,
            };
        }
        let stmts = children(pair).filter_map(|p| self.stmt(p)).collect();
        self.leave();
        Block { stmts, span }
    }

    /// `reveal e [to players]`: the cards, then the players after `to`, if any.
    fn reveal_stmt(&mut self, mut it: Pairs<Rule>) -> Option<StmtKind> {
        let what = self.expr(it.next()?);
        let to = it.find(|p| p.as_rule() == Rule::expr).map(|p| self.expr(p));
        Some(StmtKind::Reveal(what, to))
    }

    fn stmt(&mut self, pair: Pair<Rule>) -> Option<Stmt> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut it = children(pair);
        let kind = match rule {
            Rule::let_stmt => {
                let name = self.ident(it.next()?);
                let mut next = it.next()?;
                let ty = if next.as_rule() == Rule::type_expr {
                    let t = self.type_expr(next);
                    next = it.next()?;
                    Some(t)
                } else {
                    None
                };
                StmtKind::Let(name, ty, self.expr(next))
            }
            Rule::set_stmt => {
                let target = self.expr(it.next()?);
                let op = match it.next()?.as_str() {
                    "+=" => AssignOp::Add,
                    "-=" => AssignOp::Sub,
                    _ => AssignOp::Set,
                };
                StmtKind::Set(target, op, self.expr(it.next()?))
            }
            Rule::move_stmt => {
                let what = self.expr(it.next()?);
                let to = self.expr(it.next()?);
                let pos = match it.next().map(|p| p.as_str().to_string()) {
                    Some(s) if s == "bottom" => Position::Bottom,
                    Some(s) if s == "top" => Position::Top,
                    _ => Position::Bottom,
                };
                StmtKind::Move(what, to, pos)
            }
            Rule::draw_stmt => {
                let n = self.expr(it.next()?);
                let from = self.expr(it.next()?);
                StmtKind::Draw(n, from, self.expr(it.next()?))
            }
            Rule::shuffle_stmt => StmtKind::Shuffle(self.expr(it.next()?)),
            Rule::flip_stmt => {
                let what = self.expr(it.next()?);
                let dir = it.next().map(|p| p.as_str() == "up");
                StmtKind::Flip(what, dir)
            }
            Rule::reveal_stmt => self.reveal_stmt(it)?,
            Rule::for_stmt => {
                let var = self.ident(it.next()?);
                let src = self.expr(it.next()?);
                StmtKind::For(var, src, self.block(it.next()?))
            }
            Rule::repeat_stmt => {
                let head = it.next()?;
                let body = self.block(it.next()?);
                return self.repeat(head, body, span);
            }
            Rule::end_stmt => StmtKind::EndGame,
            Rule::eliminate_stmt => StmtKind::Eliminate(self.expr(it.nth(1)?)),
            Rule::emit_stmt => {
                let name = self.ident(it.nth(1)?);
                let args = it.next().map(children);
                let args = args.map(|a| a.map(|p| self.expr(p)).collect());
                StmtKind::Emit(name, args.unwrap_or_default())
            }
            Rule::say_stmt => StmtKind::Say(self.expr(it.next()?)),
            Rule::return_stmt => StmtKind::Return(it.next().map(|p| self.expr(p))),
            Rule::secretly_stmt => StmtKind::Secretly(self.block(it.next()?)),
            Rule::step_stmt => {
                let name = self.ident(it.next()?);
                StmtKind::Step(name, self.block(it.next()?))
            }
            Rule::expr_stmt => StmtKind::Expr(self.expr(it.next()?)),
            _ => return None,
        };
        Some(Stmt { kind, span })
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        // One level for the expression and one per operator in its flat chain.
        let ops = pair
            .clone()
            .into_inner()
            .filter(|p| p.as_rule() != Rule::postfix_expr)
            .count();
        if !self.enter_n(1 + ops, span) {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        }
        let file = self.file;
        let result = PRATT
            .map_primary(|p| self.postfix_expr(p))
            .map_prefix(|op, rhs| {
                let sp = Span::new(file, op.as_span().start(), 0).to(rhs.span);
                let sp = Span {
                    start: op.as_span().start() as u32,
                    ..sp
                };
                let op = if op.as_rule() == Rule::neg {
                    UnOp::Neg
                } else {
                    UnOp::Not
                };
                Expr {
                    kind: ExprKind::Unary(op, Box::new(rhs)),
                    span: sp,
                }
            })
            .map_infix(|lhs, op, rhs| {
                let bop = match op.as_rule() {
                    Rule::add => BinOp::Add,
                    Rule::sub => BinOp::Sub,
                    Rule::mul => BinOp::Mul,
                    Rule::div => BinOp::Div,
                    Rule::rem => BinOp::Rem,
                    Rule::eq => BinOp::Eq,
                    Rule::ne => BinOp::Ne,
                    Rule::lt => BinOp::Lt,
                    Rule::le => BinOp::Le,
                    Rule::gt => BinOp::Gt,
                    Rule::ge => BinOp::Ge,
                    Rule::and_op => BinOp::And,
                    Rule::or_op => BinOp::Or,
                    _ => BinOp::Range,
                };
                let sp = lhs.span.to(rhs.span);
                Expr {
                    kind: ExprKind::Binary(bop, Box::new(lhs), Box::new(rhs)),
                    span: sp,
                }
            })
            .parse(pair.into_inner());
        self.leave_n(1 + ops);
        result
    }

    fn postfix_expr(&mut self, pair: Pair<Rule>) -> Expr {
        let mut it = children(pair);
        let Some(first) = it.next() else {
            return Expr {
                kind: ExprKind::None,
                span: Span::default(),
            };
        };
        let posts = it.len();
        let span = self.span(&first);
        if posts > 0 && !self.enter_n(posts, span) {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        }
        let mut e = self.primary(first);
        let e = {
            for post in it {
                let pspan = self.span(&post);
                let span = e.span.to(pspan);
                let kind = match post.as_rule() {
                    Rule::field_access => {
                        let Some(name) = children(post).next() else {
                            continue;
                        };
                        let name = self.ident(name);
                        ExprKind::Field(Box::new(e), name)
                    }
                    Rule::index => {
                        let args = children(post).map(|p| self.expr(p)).collect();
                        ExprKind::Index(Box::new(e), args)
                    }
                    Rule::call_args => {
                        let args = children(post).map(|p| self.expr(p)).collect();
                        ExprKind::Call(Box::new(e), args)
                    }
                    _ => continue,
                };
                e = Expr { kind, span };
            }
            e
        };
        self.leave_n(posts);
        e
    }

    fn primary(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::int => ExprKind::Int(self.int_value(&pair)),
            Rule::string => ExprKind::Text(self.string(pair)),
            Rule::true_lit => ExprKind::Bool(true),
            Rule::false_lit => ExprKind::Bool(false),
            Rule::none_lit => ExprKind::None,
            Rule::card_ref => {
                let body = pair.as_str().get(1..).unwrap_or("");
                ExprKind::CardRef(match body.parse::<i64>() {
                    Ok(n) if body.bytes().all(|b| b.is_ascii_digit()) => CardId::Num(n),
                    _ => CardId::Name(body.to_string()),
                })
            }
            Rule::if_expr => return self.if_expr(pair),
            Rule::match_expr => {
                let mut it = children(pair);
                let Some(scrut) = it.next() else {
                    return Expr {
                        kind: ExprKind::None,
                        span,
                    };
                };
                let scrut = self.expr(scrut);
                let mut arms = Vec::new();
                for arm in it {
                    let mut patterns = Vec::new();
                    let mut body = None;
                    for p in children(arm) {
                        match p.as_rule() {
                            Rule::pattern => patterns.push(self.pattern(p)),
                            _ => body = Some(self.expr(p)),
                        }
                    }
                    if let Some(body) = body {
                        arms.push(MatchArm { patterns, body });
                    }
                }
                ExprKind::Match(Box::new(scrut), arms)
            }
            Rule::aggregate => {
                let mut kind = AggKind::Count;
                let mut var = None;
                let mut exprs: Vec<(Rule, Expr)> = Vec::new();
                let mut saw_where = false;
                // Distinguish `where` from `=>` by the text between the parts.
                let text = pair.as_str().to_string();
                let base = pair.as_span().start();
                for p in children(pair) {
                    match p.as_rule() {
                        Rule::agg_kw => {
                            kind = match p.as_str() {
                                "sum" => AggKind::Sum,
                                "min" => AggKind::Min,
                                "max" => AggKind::Max,
                                "any" => AggKind::Any,
                                "all" => AggKind::All,
                                "filter" => AggKind::Filter,
                                "map" => AggKind::Map,
                                "best" => AggKind::Best,
                                "first" => AggKind::First,
                                "sort" => AggKind::Sort,
                                _ => AggKind::Count,
                            }
                        }
                        Rule::ident => var = Some(self.ident(p)),
                        Rule::expr => {
                            let start = p.as_span().start() - base;
                            let before = text.get(..start).unwrap_or("").trim_end();
                            let r = if before.ends_with("where") {
                                saw_where = true;
                                Rule::and_op
                            } else if before.ends_with("=>") {
                                Rule::or_op
                            } else {
                                Rule::expr
                            };
                            let e = self.expr(p);
                            exprs.push((r, e));
                        }
                        _ => {}
                    }
                }
                let _ = saw_where;
                let mut source = None;
                let mut filter = None;
                let mut map = None;
                for (r, e) in exprs {
                    match r {
                        Rule::and_op => filter = Some(Box::new(e)),
                        Rule::or_op => map = Some(Box::new(e)),
                        _ => source = Some(Box::new(e)),
                    }
                }
                ExprKind::Agg {
                    kind,
                    var: var.unwrap_or_default_ident(),
                    source: source.unwrap_or_else(|| {
                        Box::new(Expr {
                            kind: ExprKind::None,
                            span,
                        })
                    }),
                    filter,
                    map,
                }
            }
            Rule::block => ExprKind::Block(self.block(pair)),
            Rule::table_lit => {
                let mut entries = Vec::new();
                for e in children(pair) {
                    let mut it = children(e);
                    if let (Some(pat), Some(v)) = (it.next(), it.next()) {
                        let pat = self.pattern(pat);
                        entries.push((pat, self.expr(v)));
                    }
                }
                ExprKind::TableLit(entries)
            }
            Rule::list_lit => {
                if !self.enter(span) {
                    return Expr {
                        kind: ExprKind::None,
                        span,
                    };
                }
                let items = children(pair).map(|p| self.expr(p)).collect();
                self.leave();
                ExprKind::List(items)
            }
            Rule::paren => {
                let text = pair.as_str().to_string();
                let mut items: Vec<Expr> = children(pair).map(|p| self.expr(p)).collect();
                let trailing_comma = text.trim_end_matches(')').trim_end().ends_with(',');
                if items.len() == 1 && !trailing_comma {
                    let mut e = items.remove(0);
                    e.span = span;
                    return e;
                }
                ExprKind::Tuple(items)
            }
            Rule::ident => ExprKind::Name(pair.as_str().to_string()),
            _ => ExprKind::None,
        };
        Expr { kind, span }
    }

    fn if_expr(&mut self, pair: Pair<Rule>) -> Expr {
        let span = self.span(&pair);
        let mut it = children(pair);
        let (Some(c), Some(b)) = (it.next(), it.next()) else {
            return Expr {
                kind: ExprKind::None,
                span,
            };
        };
        let cond = self.expr(c);
        let then = self.block(b);
        let els = it.next().map(|p| {
            let pspan = self.span(&p);
            Box::new(match p.as_rule() {
                Rule::if_expr => {
                    if self.enter(pspan) {
                        let e = self.if_expr(p);
                        self.leave();
                        e
                    } else {
                        Expr {
                            kind: ExprKind::None,
                            span: pspan,
                        }
                    }
                }
                _ => Expr {
                    kind: ExprKind::Block(self.block(p)),
                    span: pspan,
                },
            })
        });
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            span,
        }
    }

    fn string(&mut self, pair: Pair<Rule>) -> Vec<StrPart> {
        let mut parts = Vec::new();
        for p in children(pair) {
            match p.as_rule() {
                Rule::str_text => parts.push(StrPart::Text(unescape(p.as_str()))),
                Rule::interp => {
                    if let Some(e) = children(p).next() {
                        parts.push(StrPart::Expr(self.expr(e)));
                    }
                }
                _ => {}
            }
        }
        parts
    }
}

fn visibility_of(s: &str) -> Visibility {
    match s {
        "owner" => Visibility::Owner,
        "hidden" => Visibility::Hidden,
        _ => Visibility::Public,
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

trait DefaultIdent {
    fn unwrap_or_default_ident(self) -> Ident;
}

impl DefaultIdent for Option<Ident> {
    fn unwrap_or_default_ident(self) -> Ident {
        self.unwrap_or_else(|| Spanned::new(String::new(), Span::default()))
    }
}

/// The length of `text` without trailing whitespace and `#` comments.
fn written_len(text: &str) -> usize {
    let mut end = text.len();
    loop {
        let trimmed = text.get(..end).unwrap_or("").trim_end();
        end = trimmed.len();
        // A comment on the last line: a `#` outside a string.
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        let line = trimmed.get(line_start..).unwrap_or("");
        let mut in_string = false;
        let mut comment = None;
        let mut prev = ' ';
        for (i, ch) in line.char_indices() {
            match ch {
                '"' if prev != '\\' => in_string = !in_string,
                '#' if !in_string => {
                    comment = Some(i);
                    break;
                }
                _ => {}
            }
            prev = ch;
        }
        match comment {
            Some(i) if line_start + i < end => end = line_start + i,
            _ => return end,
        }
    }
}

//! Every limit that protects the process from untrusted `.rules` files, in one place.

/// Limits applied while loading, checking and running a game. Exceeding any of them is a
/// diagnostic, never a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting in one file (default 64): brackets, blocks and prefix operators, and
    /// also each infix operator of a chain (`1 + 1 + 1` is three levels) and each `.field`,
    /// `[key]` or `(args)` of a postfix chain, since each makes the syntax tree one level deeper.
    /// Checked on the raw text before pest runs and again while building the syntax tree,
    /// so the answer never depends on the size of the stack. At run time it also bounds how
    /// deeply lists and tuples may nest inside each other.
    pub max_depth: usize,
    /// Largest `.rules` file read, in bytes (default 1 MiB).
    pub max_file_bytes: usize,
    /// Most files one game may import, directly or not (default 256).
    pub max_imports: usize,
    /// Evaluation steps one game may take from setup to the end (default 50 million).
    /// Every statement, loop iteration, aggregate element and function call counts one step.
    pub max_steps: u64,
    /// Deepest chain of function calls at run time (default 64). The checker already rejects
    /// recursion; this guards the interpreter as well.
    pub max_call_depth: usize,
    /// Deepest chain of triggers firing triggers (default 16).
    pub max_trigger_depth: usize,
    /// Longest list a rule may build, e.g. with `..` or `map` (default 100 000 elements).
    pub max_list_len: usize,
    /// Most options one choice may offer (default 100 000).
    pub max_options: usize,
    /// Widest key range of a zone, var or table field, like `per 1..10000` (default 10 000 keys).
    pub max_key_range: i64,
    /// Most slots one zone or var declaration may hold: the product of its key ranges, counted
    /// per player for `player` keys at the most players the game allows (default 1 000 000).
    /// A game never holds more than this many slots per declaration.
    pub max_slots: u64,
    /// Longest text a rule may build, in bytes (default 1 MiB). A game never holds a text longer.
    pub max_text_bytes: usize,
    /// Most diagnostics reported for one game; the rest are counted in one last line
    /// ("and N more") (default 100).
    pub max_diags: usize,
    /// Longest choice log (`--agent script:FILE`) or REPL save read, in bytes (default 16 MiB).
    pub max_log_bytes: usize,
    /// Longest line or argument typed at the REPL, in bytes (default 64 KiB).
    pub max_line_bytes: usize,
    /// Most parser steps (pest's rule and combinator calls) per byte of a file or REPL line
    /// (default 256, plus a floor of 64 KiB steps for short texts). The grammar is linear: real
    /// files take under 15 steps a byte, and the worst texts we know (unclosed brackets 60 deep)
    /// about 65. This guards against a text that would make the parser backtrack without end.
    pub max_parse_steps_per_byte: usize,
    /// Most directory entries looked at when a folder is read as one game, or searched for the
    /// files a game did not import (default 10 000), at most 8 folders deep. A game folder holds
    /// far fewer; a folder with more (a home folder, `/`) is refused with a diagnostic instead
    /// of being walked.
    pub max_folder_entries: usize,
    /// Longest message `rules lsp` reads, in bytes (default 16 MiB: a `.rules` file at
    /// `max_file_bytes` with every character escaped fits). A message that declares more is
    /// read and dropped in small pieces, never held, and answered with an error; a body is read
    /// as it arrives, so a message claiming more bytes than it holds costs only what it holds.
    pub max_lsp_message_bytes: usize,
    /// Most games `rules lsp` keeps checked at once (default 8), each with its files' texts and
    /// index (about ten times the game's text). The least recently used is dropped first (and
    /// checked again if asked about); a game is also dropped when its last open file closes.
    pub max_lsp_games: usize,
    /// Most bytes of open documents `rules lsp` keeps (default 64 MiB). A document that would
    /// pass it, or is longer than `max_file_bytes`, is not kept: the editor hears why on it.
    pub max_lsp_open_bytes: usize,
    /// Largest request body `rules serve` reads (default 4 KiB; an answer is a few dozen
    /// bytes): a longer one is refused (413) before it is read.
    pub max_serve_body_bytes: usize,
    /// Connections `rules serve` keeps open before their first request names a seat's or the
    /// spectators' token (default 64); past it, a new one closes the oldest such. Each seat's
    /// and the spectators' connections are counted apart (`serve::slots`).
    pub max_serve_connections: usize,
    /// Connections of one seat `rules serve` keeps open (default 16); past it, a new one
    /// closes that seat's oldest.
    pub max_serve_seat_connections: usize,
    /// Connections of the spectators `rules serve` keeps open (default 128); past it, a new
    /// one is refused (503).
    pub max_serve_spectator_connections: usize,
    /// Requests a second each seat of `rules serve` may make, three seconds' worth at once
    /// (default 20; the spectators, who share a link, ten times that); past it, 429.
    pub serve_requests_per_second: u32,
    /// Seconds a `rules serve` client has to send a request's head, however it trickles it
    /// (default 10), and as long again for its body.
    pub serve_head_seconds: u64,
    /// Seconds a `rules serve` connection may go with nothing read or written before it is
    /// dropped (default 60): a client that sends nothing, or never reads, holds its buffers
    /// only that long. A live stream writes a keep-alive every 15 s.
    pub serve_idle_seconds: u64,
    /// Seconds a long poll of `rules serve` (`/state?after=V`) waits for a change (default 20).
    pub serve_poll_seconds: u64,
    /// Lines of the account each `rules serve` message carries, the latest (default 400).
    pub max_serve_account_lines: usize,
    /// Answers and requests queued for the game's thread of `rules serve` (default 64); past
    /// it, a request is told the game is busy.
    pub max_serve_queue: usize,
}

impl Limits {
    /// The stack `rules` runs a game on (64 MiB, reserved, not used, until needed). Evaluation
    /// nests at most `max_depth` levels per function body, through at most `max_call_depth`
    /// calls and `max_trigger_depth` triggers: with the default limits, a few thousand levels,
    /// which fit in this stack even in an unoptimised build (`tests/untrusted.rs` runs that
    /// worst case). So no input can overflow the stack, and no answer depends on its size.
    pub const STACK_BYTES: usize = 64 << 20;

    /// Longest header of one `rules lsp` message, in bytes (4 KiB; a real one is about 25):
    /// a longer header is read to its end without being kept, and answered with an error.
    pub const LSP_HEADER_BYTES: usize = 4096;

    /// Most characters `rules print` prints in one grapheme (a letter and the marks, joiners
    /// and modifiers that join it): 32, as HarfBuzz sorts at most 32 marks on one letter and
    /// Unicode's stream-safe text allows 30 in a row. The shaper and the PDF writer take time
    /// quadratic in a cluster's length, so the rest of a longer one is left out, with a warning
    /// naming the card.
    pub const PRINT_GRAPHEME_CHARS: usize = 32;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_file_bytes: 1 << 20,
            max_imports: 256,
            max_steps: 50_000_000,
            max_call_depth: 64,
            max_trigger_depth: 16,
            max_list_len: 100_000,
            max_options: 100_000,
            max_key_range: 10_000,
            max_slots: 1_000_000,
            max_text_bytes: 1 << 20,
            max_diags: 100,
            max_log_bytes: 16 << 20,
            max_line_bytes: 64 << 10,
            max_parse_steps_per_byte: 256,
            max_folder_entries: 10_000,
            max_lsp_message_bytes: 16 << 20,
            max_lsp_games: 8,
            max_lsp_open_bytes: 64 << 20,
            max_serve_body_bytes: 4096,
            max_serve_connections: 64,
            max_serve_seat_connections: 16,
            max_serve_spectator_connections: 128,
            serve_requests_per_second: 20,
            serve_head_seconds: 10,
            serve_idle_seconds: 60,
            serve_poll_seconds: 20,
            max_serve_account_lines: 400,
            max_serve_queue: 64,
        }
    }
}

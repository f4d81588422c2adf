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
    /// Largest choice log (`--agent script:FILE`) or REPL save read, in bytes (default 16 MiB).
    pub max_log_bytes: usize,
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_file_bytes: 1 << 20,
            max_log_bytes: 16 << 20,
            max_imports: 256,
            max_steps: 50_000_000,
            max_call_depth: 64,
            max_trigger_depth: 16,
            max_list_len: 100_000,
            max_options: 100_000,
        }
    }
}

//! Calling a builtin: its arguments are evaluated here, then its own `eval` (in `src/builtins/`)
//! runs. What a builtin may do is declared with it, so a `say` or a label that would roll or
//! choose is refused here, in one place.
//!
//! The builtins sit below the interpreter: they ask it for what they need through
//! `builtins::Host`, implemented here, and the interpreter calls its own instantiation of their
//! tables (`Builtin`), so each evaluation calls `Interp` directly, with no dynamic dispatch.

use super::compile::Ev;
use super::*;
use crate::builtins::{Args, BuiltinDef, Effect, Host, HostKind, Split, Table, MAX_ARGS};
use crate::diag::Span;
use crate::value::Value;

/// The interpreter as a kind of builtin host: its tables of builtins evaluate on `Interp`.
pub(crate) enum OnInterp {}

impl HostKind for OnInterp {
    type At<'p> = Interp<'p>;
}

/// A builtin as the interpreter calls it.
pub(crate) type Builtin = BuiltinDef<OnInterp>;

/// The interpreter's own definition of the builtin `b` names (the program holds the default
/// one): looked up once per call site compiled, or per call of the tree walk.
pub(crate) fn own(b: &BuiltinDef) -> &'static Builtin {
    Table::<OnInterp>::twin(b)
}

impl<'p> Interp<'p> {
    /// Call builtin `b` on `args`, written at `span`; `site`, for a call with texts for showing
    /// compiled with the program, numbers it (`compile::next_site`), else its span stands for it.
    pub(super) fn builtin<E: Ev>(
        &mut self,
        b: &Builtin,
        args: &[E],
        span: Span,
        site: Option<u32>,
    ) -> R<Value> {
        // Builtins take at most `MAX_ARGS` arguments (checked), so they fit on the stack.
        let mut buf: [Value; MAX_ARGS] = Default::default();
        let mut spans = [span; MAX_ARGS];
        let mut given = args.len().min(MAX_ARGS);
        // Whether the texts for showing are skipped, decided at the first of them.
        let mut skip = None;
        for (i, a) in args.iter().enumerate().take(MAX_ARGS) {
            spans[i] = a.span();
            if b.shown_only.contains(&i) {
                let skip = *skip.get_or_insert_with(|| {
                    self.unshown || (!self.record && self.sketched_before(span, site))
                });
                if skip {
                    // A playout, or a silent run that has worked this site's texts out once:
                    // what is shown is never seen. The arguments for showing are the last ones,
                    // all optional: the builtin is called without.
                    given = i;
                    break;
                }
                buf[i] = self.shown_arg(a)?;
                continue;
            }
            buf[i] = a.ev(self)?;
        }
        self.builtin_vals(b, &buf[..given], &spans[..given], span)
    }

    /// `builtin` for a call whose first two arguments are plain and worked out already
    /// (`first`), and whose others are all for showing (`choose(p, options, prompt, labels)`):
    /// the same values, steps and errors, without a test per argument.
    pub(super) fn builtin_after_two<E: Ev>(
        &mut self,
        b: &Builtin,
        args: &[E],
        span: Span,
        site: Option<u32>,
        first: [Value; 2],
    ) -> R<Value> {
        let mut spans = [span; MAX_ARGS];
        for (s, a) in spans.iter_mut().zip(args) {
            *s = a.span();
        }
        if self.unshown || (!self.record && self.sketched_before(span, site)) {
            return self.builtin_vals(b, &first, spans.get(..2).unwrap_or(&[]), span);
        }
        let mut buf: [Value; MAX_ARGS] = Default::default();
        let given = args.len().min(MAX_ARGS);
        let [b0, b1, ..] = &mut buf;
        [*b0, *b1] = first;
        for (slot, a) in buf.iter_mut().zip(args).take(given).skip(2) {
            *slot = self.shown_arg(a)?;
        }
        self.builtin_vals(b, &buf[..given], &spans[..given], span)
    }

    /// An argument for showing worked out: it may not change the game. A silent run works it
    /// out the first time its site is reached, so it fails as `run` does, but builds no text.
    /// A sketch's steps count against the limit while it runs, then are given back: the game's
    /// steps are the same whether this game or an earlier one of the same run sketched the
    /// site (`Interp::keep_sketched`).
    fn shown_arg<E: Ev + ?Sized>(&mut self, a: &E) -> R<Value> {
        let sketch = u32::from(!self.record);
        let left = self.state.steps_left;
        self.displaying += 1;
        self.sketching += sketch;
        let v = a.ev(self);
        self.sketching -= sketch;
        self.displaying -= 1;
        let v = v?;
        if sketch > 0 {
            self.state.steps_left = left;
        }
        Ok(v)
    }

    /// Whether this silent run has worked out the texts of the choice at `site` (else at
    /// `span`) already, in this game or an earlier one of the run; marks it worked out from
    /// now on.
    #[inline]
    fn sketched_before(&mut self, span: Span, site: Option<u32>) -> bool {
        let Some(site) = site else {
            return self.sketched_span(span);
        };
        let (word, bit) = ((site / 64) as usize, 1u64 << (site % 64));
        match self.sketched.sites.get_mut(word) {
            Some(w) if *w & bit != 0 => true,
            Some(w) => {
                *w |= bit;
                false
            }
            None => {
                self.sketched.sites.resize(word + 1, 0);
                if let Some(w) = self.sketched.sites.get_mut(word) {
                    *w |= bit;
                }
                false
            }
        }
    }

    /// `sketched_before` for a call the tree walk makes (the REPL, rare forms): by its span.
    #[cold]
    #[inline(never)]
    fn sketched_span(&mut self, span: Span) -> bool {
        let key = |s: &Span| (s.file, s.start, s.end);
        match self.sketched.spans.binary_search_by_key(&key(&span), key) {
            Ok(_) => true,
            Err(at) => {
                self.sketched.spans.insert(at, span);
                false
            }
        }
    }

    /// Call a builtin on its evaluated arguments (`spans`: where each was written).
    #[inline(always)]
    pub(super) fn builtin_vals(
        &mut self,
        b: &Builtin,
        vals: &[Value],
        spans: &[Span],
        span: Span,
    ) -> R<Value> {
        if self.displaying > 0 && b.effect != Effect::Pure {
            return Err(self.not_while_displaying(span));
        }
        // Texts for showing are charged as they are worked out, not again here: a silent game
        // that skips them (`builtin`) takes the same steps as one that sketches them.
        let walked = b
            .shown_only
            .first()
            .map_or(vals, |&i| vals.get(..i).unwrap_or(vals));
        self.charge_args(walked, span)?;
        let call = Args { vals, spans, span };
        (b.eval)(self, &call)
    }

    /// A builtin walks its list and text arguments (copying, comparing, searching, sorting
    /// them): charge their size, times log n for the ones that sort or dedupe.
    #[inline]
    pub(super) fn charge_args(&mut self, vals: &[Value], span: Span) -> R<()> {
        let work = vals.iter().fold(0u64, |w, v| w.saturating_add(arg_cost(v)));
        self.charge_work(work, span)
    }

    /// `charge_args` for two arguments.
    #[inline]
    pub(super) fn charge_pair(&mut self, a: &Value, b: &Value, span: Span) -> R<()> {
        self.charge_work(pair_work(a, b), span)
    }

    /// Charge for `work`, as `charge_args` does for arguments worth that much (`pair_work`).
    #[inline]
    pub(super) fn charge_work(&mut self, work: u64, span: Span) -> R<()> {
        if work > 1 {
            let log = 64 - work.leading_zeros() as u64;
            self.charge(work.saturating_mul(log), span)?;
        }
        Ok(())
    }

    /// How many cards a zone slot holds.
    pub(crate) fn zone_len(&self, z: u32) -> usize {
        self.state.zones.get(z as usize).map_or(0, |z| z.len())
    }

    /// The cards in a zone slot, top first.
    pub(crate) fn zone_cards(&self, z: u32) -> &[u32] {
        self.state.zones.get(z as usize).map_or(&[], |z| &z[..])
    }

    /// The top card of a zone slot, or `none`.
    pub(crate) fn zone_top(&self, z: u32) -> Value {
        self.state
            .zones
            .get(z as usize)
            .and_then(|z| z.first())
            .map(|&c| Value::Card(c))
            .unwrap_or(Value::None)
    }

    /// The zone slot a card is in, if any.
    pub(crate) fn zone_of(&self, c: u32) -> Option<u32> {
        match self.state.card_zone.get(c as usize) {
            Some(&z) if z != NOWHERE => Some(z),
            _ => None,
        }
    }
}

impl Host for Interp<'_> {
    #[inline]
    fn charge(&mut self, n: u64, span: Span) -> R<()> {
        Interp::charge(self, n, span)
    }
    #[inline]
    fn check_len(&self, n: usize, span: Span) -> R<()> {
        Interp::check_len(self, n, span)
    }
    #[inline]
    fn limits(&self) -> &Limits {
        &self.limits
    }
    #[inline]
    fn as_list(&self, v: &Value, span: Span) -> R<Rc<Items>> {
        Interp::as_list(self, v, span)
    }
    fn words(&self, v: &Value) -> String {
        Interp::words(self, v)
    }
    fn words_append(&self, v: &Value, out: &mut String) {
        Interp::words_append(self, v, out)
    }
    #[inline]
    fn record(&self) -> bool {
        self.record
    }
    #[inline]
    fn observed(&self) -> bool {
        self.observer.is_some()
    }
    #[inline]
    fn peek(&self, c: u32, span: Span) -> R<()> {
        Interp::peek(self, c, span)
    }
    #[inline]
    fn peek_value(&self, v: &Value, span: Span) -> R<()> {
        Interp::peek_value(self, v, span)
    }
    #[inline]
    fn watch_read(&mut self, v: &Value) {
        let prog = self.prog;
        if let Some(w) = self.watch.as_mut() {
            w(prog, Watched::Read(v));
        }
    }
    #[inline]
    fn draw_below(&mut self, n: u32) -> u32 {
        Interp::draw_below(self, n)
    }
    fn decide_labelled(
        &mut self,
        player: u32,
        options: &[Value],
        labels: Option<&[Value]>,
        notes: Option<&[Value]>,
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        Interp::decide_labelled(self, player, options, labels, notes, prompt, span)
    }
    fn decide(
        &mut self,
        player: u32,
        options: &[Value],
        prompt: &str,
        span: Span,
    ) -> R<Option<usize>> {
        Interp::decide(self, player, options, prompt, span)
    }
    #[inline]
    fn allocating(&mut self, lines: Option<u64>, split: Option<Split>) {
        self.allocation = lines;
        self.split = split;
    }
    #[inline]
    fn n_players(&self) -> u32 {
        self.state.n_players
    }
    #[inline]
    fn is_in(&self, p: u32) -> bool {
        Interp::is_in(self, p)
    }
    fn players_in(&self) -> Rc<Items> {
        Interp::players_in(self)
    }
    fn finish_game(&mut self) {
        self.state.finished = true;
    }
    #[inline]
    fn zone_len(&self, z: u32) -> usize {
        Interp::zone_len(self, z)
    }
    #[inline]
    fn zone_cards(&self, z: u32) -> &[u32] {
        Interp::zone_cards(self, z)
    }
    #[inline]
    fn zone_top(&self, z: u32) -> Value {
        Interp::zone_top(self, z)
    }
    #[inline]
    fn zone_of(&self, c: u32) -> Option<u32> {
        Interp::zone_of(self, c)
    }
}

/// What two arguments cost to walk, together (`charge_pair`).
#[inline]
pub(super) fn pair_work(a: &Value, b: &Value) -> u64 {
    arg_cost(a).saturating_add(arg_cost(b))
}

/// What a builtin's argument costs to walk: its size, nothing for a number, boolean or `none`.
#[inline]
fn arg_cost(v: &Value) -> u64 {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::None => 0,
        v => v.cost(),
    }
}

#[cfg(test)]
mod tests {
    /// Every builtin the program may hold has its twin in the interpreter's table (`own` never
    /// falls back on the missing builtin), with the same declaration.
    #[test]
    fn every_builtin_has_its_interpreter_twin() {
        for b in crate::builtins::all() {
            let own = super::own(b);
            assert_eq!(own.name, b.name);
            assert_eq!(own.params, b.params, "{}", b.name);
            assert_eq!(own.effect, b.effect, "{}", b.name);
            assert_eq!(own.shown_only, b.shown_only, "{}", b.name);
        }
    }

    /// A builtin's value from plain arguments (`plain`, which compiled calls take) is the one
    /// its evaluation gives them, for every list of its arity drawn from plain values at the
    /// edges of their kinds; and it is declared only where nothing is charged or shown.
    #[test]
    fn plain_values_are_the_evaluations() {
        use crate::builtins::Effect;
        use crate::diag::Span;
        use crate::limits::Limits;
        use crate::value::Value;
        let text = "game \"g\" { players: 3, rounds: 1, round: [p] }\n\
            enum Side { Left, Right }\n\
            phase p { }\n";
        let c = crate::check_text("plain.rules", text, &Limits::default());
        assert_eq!(c.errors(), 0, "{}", c.render());
        let prog = c.program.expect("program");
        let agents = crate::agent::make_agents("first", 3, 1).expect("agents");
        let mut me = super::Interp::new(&prog, 3, 1, agents, Limits::default()).expect("interp");
        let samples = [
            Value::Int(i64::MIN),
            Value::Int(-7),
            Value::Int(0),
            Value::Int(2),
            Value::Int(9),
            Value::Int(i64::MAX),
            Value::Bool(true),
            Value::None,
            Value::Player(0),
            Value::Player(2),
            Value::Card(0),
            Value::Enum(0, 1),
        ];
        let mut tried = 0;
        for b in crate::builtins::all() {
            let Some(plain) = b.plain else { continue };
            assert_eq!(b.effect, Effect::Pure, "{}", b.name);
            assert!(b.shown_only.is_empty(), "{}", b.name);
            let n = b.params.len();
            let spans = vec![Span::default(); n];
            let mut at = vec![0usize; n];
            loop {
                let vals: Vec<Value> = at.iter().map(|&i| samples[i].clone()).collect();
                if let Some(v) = plain(&vals) {
                    let own = super::own(b);
                    let general = me.builtin_vals(own, &vals, &spans, Span::default());
                    assert_eq!(general.ok(), Some(v), "{}{:?}", b.name, vals);
                    tried += 1;
                }
                // The next list of arguments, as an odometer over the samples.
                let Some(k) = at.iter().rposition(|&i| i + 1 < samples.len()) else {
                    break;
                };
                at[k] += 1;
                for i in at.iter_mut().skip(k + 1) {
                    *i = 0;
                }
            }
        }
        assert!(tried > 100, "only {tried} plain calls tried");
    }
}

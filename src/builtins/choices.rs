//! Choices, asked of a player's agent: choose, choose_many, choose_number, ask, choose_player,
//! allocate.

use super::{ret_bool, ret_player, Args, BuiltinDef, Effect, Host, HostKind, Split, P};
use crate::diag::R;
use crate::program::Ty;
use crate::value::{Items, Value};
use std::marker::PhantomData;
use std::rc::Rc;

/// This family's builtins, evaluated on hosts of kind `K`.
pub struct Family<K>(PhantomData<K>);

impl<K: HostKind> Family<K> {
    pub const DEFS: &'static [BuiltinDef<K>] = &[
        BuiltinDef {
            name: "choose",
            returns: "one element of the list `options`",
            params: &[
                ("player", P::Player),
                ("options", P::List),
                ("prompt", P::Text),
                ("labels", P::List),
                ("notes", P::List),
            ],
            min_args: 2,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            // Labels and notes are for showing: worked out only when something shows them.
            shown_only: &[2, 3, 4],
            plain: None,
            ret: |args| args.get(1).map(|t| t.elem()).unwrap_or(Ty::Any),
            eval: |me, a| {
                let p = a.player(0)?;
                let options = a.list(me, 1)?;
                let prompt = a.prompt(me, 2, "Choose");
                let labels = labels(me, a, 3, options.len(), "options")?;
                let labels = labels.as_deref().map(|l| &l[..]);
                let notes = labels_named(me, a, 4, options.len(), "notes")?;
                let notes = notes.as_deref().map(|l| &l[..]);
                Ok(
                    match me.decide_labelled(p, &options, labels, notes, &prompt, a.span)? {
                        Some(i) => options.get(i).cloned().unwrap_or(Value::None),
                        None => Value::None,
                    },
                )
            },
        },
        BuiltinDef {
            name: "choose_many",
            returns: "a list of `k` distinct elements of `options`, in the order chosen",
            params: &[
                ("player", P::Player),
                ("options", P::List),
                ("count", P::Int),
                ("prompt", P::Text),
            ],
            min_args: 3,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[3],
            plain: None,
            ret: |args| match args.get(1) {
                Some(Ty::Zone(k)) => Ty::List(Box::new(Ty::Card(*k))),
                Some(t) => t.clone(),
                None => Ty::Any,
            },
            eval: |me, a| {
                let p = a.player(0)?;
                let mut options = a.list(me, 1)?.to_vec();
                let k = usize::try_from(a.int(2)?.max(0)).unwrap_or(usize::MAX);
                let prompt = a.prompt(me, 3, "Choose");
                let mut out = Vec::new();
                for n in 0..k.min(options.len()) {
                    // Written only when something shows it.
                    let pr = if me.record() {
                        std::borrow::Cow::Owned(format!("{prompt} ({} of {k})", n + 1))
                    } else {
                        std::borrow::Cow::Borrowed(&*prompt)
                    };
                    match me.decide(p, &options, &pr, a.span)? {
                        Some(i) if i < options.len() => out.push(options.remove(i)),
                        _ => break,
                    }
                }
                Ok(Value::list(out))
            },
        },
        BuiltinDef {
            name: "choose_number",
            returns: "an integer in `lo..hi`",
            params: &[
                ("player", P::Player),
                ("lo", P::Int),
                ("hi", P::Int),
                ("prompt", P::Text),
            ],
            min_args: 3,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[3],
            plain: None,
            ret: super::ret_int,
            eval: |me, a| {
                let p = a.player(0)?;
                let (lo, hi) = (a.int(1)?, a.int(2)?);
                if hi < lo || hi.abs_diff(lo) >= me.limits().max_options as u64 {
                    return Err(a.err(format!("cannot offer the numbers {lo}..{hi}")));
                }
                let options: Vec<Value> = (lo..=hi).map(Value::Int).collect();
                let prompt = a.prompt(me, 3, "Choose a number");
                Ok(match me.decide(p, &options, &prompt, a.span)? {
                    Some(i) => options.get(i).cloned().unwrap_or(Value::None),
                    None => Value::None,
                })
            },
        },
        BuiltinDef {
            name: "ask",
            returns: "`true` or `false`",
            params: &[("player", P::Player), ("prompt", P::Text)],
            min_args: 1,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[1],
            plain: None,
            ret: ret_bool,
            eval: |me, a| {
                let p = a.player(0)?;
                let prompt = a.prompt(me, 1, "Yes or no?");
                let options = [Value::Bool(true), Value::Bool(false)];
                Ok(Value::Bool(
                    me.decide(p, &options, &prompt, a.span)? == Some(0),
                ))
            },
        },
        BuiltinDef {
            name: "choose_player",
            returns: "the player chosen (any player)",
            params: &[("player", P::Player), ("prompt", P::Text)],
            min_args: 1,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            shown_only: &[1],
            plain: None,
            ret: ret_player,
            eval: |me, a| {
                let p = a.player(0)?;
                let prompt = a.prompt(me, 1, "Choose a player");
                let options: Vec<Value> = me.players_in().to_vec();
                Ok(match me.decide(p, &options, &prompt, a.span)? {
                    Some(i) => options.get(i).cloned().unwrap_or(Value::None),
                    None => Value::None,
                })
            },
        },
        BuiltinDef {
            name: "allocate",
            returns: "a list of non-negative integers, one per category, summing to `total`",
            params: &[
                ("player", P::Player),
                ("total", P::Int),
                ("among", P::List),
                ("prompt", P::Text),
                ("labels", P::List),
            ],
            min_args: 3,
            effect: Effect::Choice,
            values_only: false,
            secrets: super::Secrets::Reads,
            // The prompt and the categories' labels are for showing (see `choose`).
            shown_only: &[3, 4],
            plain: None,
            ret: |_| Ty::List(Box::new(Ty::Int)),
            eval: |me, a| {
                let p = a.player(0)?;
                let total = a.int(1)?;
                let cats = a.list(me, 2)?;
                let prompt = a.prompt(me, 3, "Allocate");
                let labels = labels(me, a, 4, cats.len(), "categories")?;
                if total < 0 || total as u64 > me.limits().max_options as u64 {
                    return Err(a.err_at(1, format!("cannot allocate {total} points")));
                }
                let mut left = total;
                let mut out = Vec::with_capacity(cats.len());
                for (i, c) in cats.iter().enumerate() {
                    if i + 1 == cats.len() {
                        out.push(Value::Int(left));
                        break;
                    }
                    let options: Vec<Value> = (0..=left).map(Value::Int).collect();
                    // Each category's prompt is written only when something shows it, piece by
                    // piece (this runs once per category of every allocation).
                    let written;
                    let pr: &str = if me.record() {
                        let mut pr = String::with_capacity(prompt.len() + 40);
                        pr.push_str(&prompt);
                        pr.push_str(": how many to ");
                        let shown = labels.as_ref().and_then(|l| l.get(i)).unwrap_or(c);
                        me.words_append(shown, &mut pr);
                        pr.push_str(" (");
                        pr.push_str(itoa(left, &mut [0; 24]));
                        pr.push_str(" left)");
                        written = pr;
                        &written
                    } else {
                        &prompt
                    };
                    // The whole split, for a page that shows it as one form.
                    let split = if me.record() {
                        let labels = cats
                            .iter()
                            .enumerate()
                            .map(|(j, c)| {
                                me.words(labels.as_ref().and_then(|l| l.get(j)).unwrap_or(c))
                            })
                            .collect();
                        let given = out
                            .iter()
                            .map(|v| match v {
                                Value::Int(n) => *n,
                                _ => 0,
                            })
                            .collect();
                        Some(Split {
                            labels,
                            total,
                            given,
                        })
                    } else {
                        None
                    };
                    me.allocating(Some((cats.len() - i) as u64), split);
                    let n = me.decide(p, &options, pr, a.span);
                    me.allocating(None, None);
                    let n = match n? {
                        Some(i) => i as i64,
                        None => 0,
                    };
                    left -= n;
                    out.push(Value::Int(n));
                }
                Ok(Value::list(out))
            },
        },
    ];
}

/// Argument `i`, when given: one label for each of `n` things (`options`, `categories`). A
/// silent run checks them as `run` does, then leaves them out (their texts were not built).
fn labels<H: Host + ?Sized>(
    me: &H,
    a: &Args,
    i: usize,
    n: usize,
    what: &str,
) -> R<Option<Rc<Items>>> {
    let Some(v) = a.get(i) else {
        return Ok(None);
    };
    let l = me.as_list(v, a.span_of(i))?;
    if l.len() != n {
        return Err(a.err_at(i, format!("{} labels for {n} {what}", l.len())));
    }
    Ok(me.record().then_some(l))
}

/// `choose`'s notes: one text per option, shown beside it (`none` for an option without one).
fn labels_named<H: Host + ?Sized>(
    me: &H,
    a: &Args,
    i: usize,
    n: usize,
    what: &str,
) -> R<Option<Rc<Items>>> {
    let Some(v) = a.get(i) else {
        return Ok(None);
    };
    let l = me.as_list(v, a.span_of(i))?;
    if l.len() != n {
        return Err(a.err_at(i, format!("{} {what} for {n} options", l.len())));
    }
    Ok(me.record().then_some(l))
}

/// The argument holding a choice's labels, if the builtin takes them.
pub(crate) fn labels_arg<K: HostKind>(b: &BuiltinDef<K>) -> Option<usize> {
    match b.name {
        "choose" => Some(3),
        "allocate" => Some(4),
        _ => None,
    }
}

/// `n` in decimal, written into `buf` (no formatting machinery).
fn itoa(n: i64, buf: &mut [u8; 24]) -> &str {
    let mut i = buf.len();
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("")
}

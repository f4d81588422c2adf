//! Game options (`option solo: bool = false`): reading `--set name=value` against a game's
//! declarations, and describing them for `rules check`. A game is a function of its rules
//! files, its options, its seed and its choices.

use crate::program::{Id, Program, Ty};
use crate::value::Value;

/// `name: type = default`, one line per option, for `rules check` and usage errors.
pub fn describe(prog: &Program) -> Vec<String> {
    prog.options
        .iter()
        .map(|o| {
            format!(
                "{}: {} = {}",
                o.name,
                type_text(prog, &o.ty, o.bounds),
                value_text(prog, &o.default)
            )
        })
        .collect()
}

fn type_text(prog: &Program, ty: &Ty, bounds: Option<(i64, i64)>) -> String {
    match (ty, bounds) {
        (Ty::Int, Some((lo, hi))) if hi == i64::MAX => format!("int in {lo}.."),
        (Ty::Int, Some((lo, hi))) => format!("int in {lo}..{hi}"),
        (Ty::Int, None) => "int".into(),
        (Ty::Bool, _) => "bool".into(),
        (Ty::Enum(e), _) => match prog.enums.get(*e as usize) {
            Some(en) => format!("{} ({})", en.name, en.variants.join(", ")),
            None => "enum".into(),
        },
        _ => "any".into(),
    }
}

/// An option's value as `--set` takes it.
pub fn value_text(prog: &Program, v: &Value) -> String {
    match v {
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Enum(e, i) => prog
            .enums
            .get(*e as usize)
            .and_then(|en| en.variants.get(*i as usize))
            .cloned()
            .unwrap_or_default(),
        _ => "none".into(),
    }
}

fn valid_options(prog: &Program) -> String {
    if prog.options.is_empty() {
        return "this game has no options".into();
    }
    format!("the options are: {}", describe(prog).join("; "))
}

/// Read `name=value` settings. The error names the valid options (or values).
pub fn parse_sets(prog: &Program, sets: &[String]) -> Result<Vec<(Id, Value)>, String> {
    let mut out: Vec<(Id, Value)> = Vec::new();
    for s in sets {
        let Some((name, text)) = s.split_once('=') else {
            return Err(format!(
                "`--set {s}` needs the form `name=value`; {}",
                valid_options(prog)
            ));
        };
        let (name, text) = (name.trim(), text.trim());
        let Some(id) = prog.options.iter().position(|o| o.name == name) else {
            return Err(format!("unknown option `{name}`; {}", valid_options(prog)));
        };
        let od = &prog.options[id];
        let bad = || {
            format!(
                "`{text}` is not a value of option `{name}`, which is {}",
                type_text(prog, &od.ty, od.bounds)
            )
        };
        let v = match &od.ty {
            Ty::Bool => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(bad()),
            },
            Ty::Int => {
                let n: i64 = text.parse().map_err(|_| bad())?;
                if let Some((lo, hi)) = od.bounds {
                    if n < lo || n > hi {
                        return Err(bad());
                    }
                }
                Value::Int(n)
            }
            Ty::Enum(e) => {
                let variants = prog
                    .enums
                    .get(*e as usize)
                    .map(|en| en.variants.as_slice())
                    .unwrap_or(&[]);
                match variants.iter().position(|v| v == text) {
                    Some(i) => Value::Enum(*e, i as u32),
                    None => return Err(bad()),
                }
            }
            _ => return Err(bad()),
        };
        out.retain(|(o, _)| *o != id as Id);
        out.push((id as Id, v));
    }
    Ok(out)
}

//! Runtime values. No floats: game state is integers, booleans, text and references.

use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// The elements of a list or tuple, with how deeply it nests (a flat list is 1). Knowing the depth
/// without walking lets the interpreter refuse values nested beyond its limit, so dropping,
/// comparing or printing a value never recurses without bound.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Items {
    depth: u32,
    items: Vec<Value>,
    /// How many values the list holds counting every nested one, as if shared parts were copied
    /// (saturating). Comparing or printing costs at most this; the interpreter charges it to
    /// the step budget. Last, so the derived order is the order of `items`.
    size: u64,
}

impl Items {
    pub fn new(items: Vec<Value>) -> Items {
        // One pass: plain values add 1 to the size and nothing to the depth.
        let (mut inner, mut size) = (0u32, 1u64);
        for v in &items {
            match v {
                Value::List(l) | Value::Tuple(l) => {
                    inner = inner.max(l.depth);
                    size = size.saturating_add(l.size);
                }
                _ => size = size.saturating_add(1),
            }
        }
        Items {
            depth: 1 + inner,
            items,
            size,
        }
    }
}

impl Deref for Items {
    type Target = Vec<Value>;
    fn deref(&self) -> &Vec<Value> {
        &self.items
    }
}

impl DerefMut for Items {
    fn deref_mut(&mut self) -> &mut Vec<Value> {
        &mut self.items
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum Value {
    None,
    Int(i64),
    Bool(bool),
    Text(Rc<String>),
    /// (enum id, variant index)
    Enum(u32, u32),
    Card(u32),
    Player(u32),
    /// A zone slot (a zone family's key already applied).
    Zone(u32),
    List(Rc<Items>),
    Tuple(Rc<Items>),
    /// Code written in a card's `fn` field: an index into `Program::card_fns`.
    Fn(u32),
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "none",
            Value::Int(_) => "int",
            Value::Bool(_) => "bool",
            Value::Text(_) => "text",
            Value::Enum(..) => "enum value",
            Value::Card(_) => "card",
            Value::Player(_) => "player",
            Value::Zone(_) => "zone",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Fn(_) => "fn",
        }
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(Items::new(v)))
    }
    pub fn tuple(v: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(Items::new(v)))
    }
    /// How deeply lists and tuples nest in this value (0 for a plain value).
    pub fn depth(&self) -> u32 {
        match self {
            Value::List(l) | Value::Tuple(l) => l.depth,
            _ => 0,
        }
    }
    /// How many values this one holds, itself included, counting shared parts every time they
    /// appear (saturating): a bound on the work of comparing or printing it.
    pub fn size(&self) -> u64 {
        match self {
            Value::List(l) | Value::Tuple(l) => l.size,
            _ => 1,
        }
    }
    /// The work of comparing, hashing or printing this value, in steps: its size, with a text
    /// counting one step per 64 bytes.
    pub fn cost(&self) -> u64 {
        match self {
            Value::Text(t) => 1 + (t.len() / 64) as u64,
            other => other.size(),
        }
    }
    pub fn text(s: &str) -> Value {
        Value::Text(Rc::new(s.to_string()))
    }
    pub fn truthy(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

// Values are moved constantly; keep them two words.
const _: () = assert!(std::mem::size_of::<Value>() == 16);

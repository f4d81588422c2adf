//! Runtime values. No floats: game state is integers, booleans, text and references.

use std::rc::Rc;

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
    List(Rc<Vec<Value>>),
    Tuple(Rc<Vec<Value>>),
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
        }
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(v))
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

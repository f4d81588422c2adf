//! Runtime values. No floats: game state is integers, booleans, text and references.

use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// How many elements a list or tuple holds in place, without an allocation of their own.
pub const INLINE: usize = 3;

/// The elements of a list or tuple, with how deeply it nests (a flat list is 1). Knowing the depth
/// without walking lets the interpreter refuse values nested beyond its limit, so dropping,
/// comparing or printing a value never recurses without bound.
///
/// Up to `INLINE` elements are held in place, so a small list or tuple is one allocation (the
/// `Rc` holding it). Equality, order and hashing are those of (depth, elements, size).
#[derive(Clone, Default)]
pub struct Items {
    depth: u32,
    items: Store,
    /// How many values the list holds counting every nested one, as if shared parts were copied
    /// (saturating). Comparing or printing costs at most this; the interpreter charges it to
    /// the step budget.
    size: u64,
}

#[derive(Clone)]
enum Store {
    /// The first `len` of the array (the rest are `none`).
    Inline(u8, [Value; INLINE]),
    Heap(Vec<Value>),
}

impl Default for Store {
    fn default() -> Store {
        Store::Inline(0, Default::default())
    }
}

impl Items {
    pub fn new(items: Vec<Value>) -> Items {
        Items::with(Store::Heap(items))
    }

    /// The values of `v`, taken out of it: in place when they are few, else moved to a vector
    /// of their exact size. `v` is left empty with its allocation, for reuse (a pooled vector
    /// keeps its capacity, and the list holds no spare room).
    pub fn take(v: &mut Vec<Value>) -> Items {
        if v.len() <= INLINE {
            let mut arr: [Value; INLINE] = Default::default();
            let n = v.len();
            // Popped from the end into place (cheaper than draining).
            while let Some(x) = v.pop() {
                if let Some(slot) = arr.get_mut(v.len()) {
                    *slot = x;
                }
            }
            return Items::with(Store::Inline(n as u8, arr));
        }
        let mut out = Vec::with_capacity(v.len());
        out.append(v);
        Items::with(Store::Heap(out))
    }

    /// The first `n` values of `arr` (at most `INLINE`).
    #[inline]
    pub fn inline(n: usize, arr: [Value; INLINE]) -> Items {
        let n = n.min(INLINE);
        let (depth, size) = Items::measure(arr.get(..n).unwrap_or(&[]));
        Items {
            depth,
            items: Store::Inline(n as u8, arr),
            size,
        }
    }

    fn with(items: Store) -> Items {
        let all = match &items {
            Store::Inline(n, arr) => arr.get(..*n as usize).unwrap_or(&[]),
            Store::Heap(v) => &v[..],
        };
        let (depth, size) = Items::measure(all);
        Items { depth, items, size }
    }

    /// The depth and size of a list of `all`. One pass: plain values add 1 to the size and
    /// nothing to the depth.
    #[inline]
    fn measure(all: &[Value]) -> (u32, u64) {
        let (mut inner, mut size) = (0u32, 1u64);
        for v in all {
            match v {
                Value::List(l) | Value::Tuple(l) => {
                    inner = inner.max(l.depth);
                    size = size.saturating_add(l.size);
                }
                _ => size = size.saturating_add(1),
            }
        }
        (1 + inner, size)
    }
}

impl Deref for Items {
    type Target = [Value];
    #[inline]
    fn deref(&self) -> &[Value] {
        match &self.items {
            Store::Inline(n, arr) => arr.get(..*n as usize).unwrap_or(&[]),
            Store::Heap(v) => v,
        }
    }
}

impl DerefMut for Items {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Value] {
        match &mut self.items {
            Store::Inline(n, arr) => arr.get_mut(..*n as usize).unwrap_or(&mut []),
            Store::Heap(v) => v,
        }
    }
}

impl PartialEq for Items {
    fn eq(&self, other: &Items) -> bool {
        self.depth == other.depth && **self == **other && self.size == other.size
    }
}

impl Eq for Items {}

impl PartialOrd for Items {
    fn partial_cmp(&self, other: &Items) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Items {
    fn cmp(&self, other: &Items) -> std::cmp::Ordering {
        self.depth
            .cmp(&other.depth)
            .then_with(|| (**self).cmp(&**other))
            .then_with(|| self.size.cmp(&other.size))
    }
}

impl std::hash::Hash for Items {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.depth.hash(h);
        (**self).hash(h);
        self.size.hash(h);
    }
}

impl std::fmt::Debug for Items {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Items")
            .field("depth", &self.depth)
            .field("items", &&**self)
            .field("size", &self.size)
            .finish()
    }
}

/// A value of the language. The variants that hold a shared handle come last, so dropping or
/// copying a value tells them from the plain ones with one range test (their order is not
/// the order values compare in: see `Ord`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum Value {
    #[default]
    None,
    Int(i64),
    Bool(bool),
    /// (enum id, variant index)
    Enum(u32, u32),
    Card(u32),
    Player(u32),
    /// A zone slot (a zone family's key already applied).
    Zone(u32),
    /// Code written in a card's `fn` field: an index into `Program::card_fns`.
    Fn(u32),
    Text(Rc<String>),
    List(Rc<Items>),
    Tuple(Rc<Items>),
}

impl Value {
    /// Where a value's kind comes in the order of values of different kinds: none, numbers,
    /// booleans, texts, enum values, cards, players, zones, lists, tuples, code.
    fn rank(&self) -> u8 {
        match self {
            Value::None => 0,
            Value::Int(_) => 1,
            Value::Bool(_) => 2,
            Value::Text(_) => 3,
            Value::Enum(..) => 4,
            Value::Card(_) => 5,
            Value::Player(_) => 6,
            Value::Zone(_) => 7,
            Value::List(_) => 8,
            Value::Tuple(_) => 9,
            Value::Fn(_) => 10,
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Values of one kind by their contents, values of different kinds by `rank`.
impl Ord for Value {
    fn cmp(&self, other: &Value) -> std::cmp::Ordering {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Enum(a, x), Value::Enum(b, y)) => (a, x).cmp(&(b, y)),
            (Value::Card(a), Value::Card(b))
            | (Value::Player(a), Value::Player(b))
            | (Value::Zone(a), Value::Zone(b))
            | (Value::Fn(a), Value::Fn(b)) => a.cmp(b),
            (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
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
    /// A list of the values in `v`, taken out of it (see `Items::take`).
    pub fn list_from(v: &mut Vec<Value>) -> Value {
        Value::List(Rc::new(Items::take(v)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    /// Values of different kinds compare in a fixed order (a `BTreeSet` of values, as
    /// `distinct` keeps, depends on it), whatever the order the variants are declared in.
    #[test]
    fn kinds_compare_in_their_fixed_order() {
        let one = |x| Rc::new(Items::new(vec![Value::Int(x)]));
        let mut all = vec![
            Value::Fn(0),
            Value::Tuple(one(1)),
            Value::List(one(1)),
            Value::Zone(2),
            Value::Player(1),
            Value::Card(3),
            Value::Enum(1, 0),
            Value::text("a"),
            Value::Bool(false),
            Value::Int(-5),
            Value::None,
        ];
        all.sort();
        let names: Vec<&str> = all.iter().map(Value::type_name).collect();
        assert_eq!(
            names,
            [
                "none",
                "int",
                "bool",
                "text",
                "enum value",
                "card",
                "player",
                "zone",
                "list",
                "tuple",
                "fn"
            ]
        );
        // Within a kind, by contents.
        assert!(Value::Int(1) < Value::Int(2));
        assert!(Value::Enum(0, 5) < Value::Enum(1, 0));
        assert!(Value::Enum(1, 0) < Value::Enum(1, 1));
        assert!(Value::text("a") < Value::text("b"));
        assert!(Value::List(one(1)) < Value::List(one(2)));
    }

    fn hash(v: &Value) -> u64 {
        let mut h = DefaultHasher::new();
        v.hash(&mut h);
        h.finish()
    }

    /// A list held in place and the same list in a vector are one value: equal, ordered and
    /// hashed alike, with the same depth and size.
    #[test]
    fn small_lists_in_place_equal_the_same_lists_in_a_vector() {
        for n in 0..=INLINE + 2 {
            let vals: Vec<Value> = (0..n as i64)
                .map(|i| {
                    if i % 2 == 0 {
                        Value::Int(i)
                    } else {
                        Value::tuple(vec![Value::Int(i), Value::Bool(true)])
                    }
                })
                .collect();
            let heap = Value::list(vals.clone());
            let mut v = vals.clone();
            let taken = Value::list_from(&mut v);
            assert!(v.is_empty());
            assert_eq!(heap, taken);
            assert_eq!(heap.cmp(&taken), std::cmp::Ordering::Equal);
            assert_eq!(hash(&heap), hash(&taken));
            assert_eq!((heap.depth(), heap.size()), (taken.depth(), taken.size()));
            assert_eq!(format!("{heap:?}"), format!("{taken:?}"));
            if let Value::List(l) = &taken {
                assert_eq!(&l[..], &vals[..]);
            }
        }
        let mut arr: [Value; INLINE] = Default::default();
        arr[0] = Value::Int(7);
        let small = Value::Tuple(Rc::new(Items::inline(1, arr)));
        assert_eq!(small, Value::tuple(vec![Value::Int(7)]));
        assert!(small < Value::tuple(vec![Value::Int(8)]));
    }
}

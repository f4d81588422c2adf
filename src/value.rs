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
    #[inline]
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

    #[inline]
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
        // Plain values and packed tuples add at most 5 each: counted in `flat` without a check
        // (a slice holds far fewer than `u64::MAX / 5` values); nested lists, whose sizes may
        // be huge, saturate apart; the sum is the saturating sum of all.
        let (mut inner, mut flat, mut nested) = (0u32, 1u64, 0u64);
        for v in all {
            match v {
                Value::List(l) | Value::Tuple(l) => {
                    inner = inner.max(l.depth);
                    nested = nested.saturating_add(l.size);
                }
                Value::Packed(p) => {
                    inner = inner.max(1);
                    flat = flat.wrapping_add(1 + p.len() as u64);
                }
                _ => flat = flat.wrapping_add(1),
            }
        }
        (1 + inner, flat.saturating_add(nested))
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

/// A tuple of one to four plain values held in one 64-bit word, so a value holding one is a
/// tag and one word (see `Value`). The top two bits hold how many values less one. One to three
/// values: 20 bits each from the bottom, the kind in the top three and the contents in the
/// other 17 (an `int` from -2^16 to 2^16 - 1, an enum value of an enum below 128 with fewer
/// than 1,024 values, a card, player, zone or code index below 2^17). Four values: 15 bits
/// each, the kind in three and the contents in 12 (an `int` from -2^11 to 2^11 - 1, an enum
/// value of an enum below 32 with fewer than 128 values, an index below 2^12). Unused bits are
/// zero, so each tuple has one packed form, and two packed tuples are equal when their words
/// are. Building one takes no allocation, and dropping one nothing: the options a game offers
/// are most often such tuples (`(card, row, side)`, Statecraft's four-item manoeuvres), made
/// at every choice and read once.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Packed(u64);

/// The most values a packed tuple holds.
pub const PACKED_MAX: usize = 4;

/// Where the count (less one) sits.
const COUNT_SHIFT: u32 = 62;
/// Bits a value takes in a tuple of one to three, and in one of four.
const SLOT3: u32 = 20;
const SLOT4: u32 = 15;
// The edges of what `encode` holds, which the tests try: 17 bits of contents in a tuple of
// one to three, 12 in a tuple of four.
#[cfg(test)]
const PAYLOAD: u32 = (1 << 17) - 1;
#[cfg(test)]
const LEAST: i64 = -(1 << 16);
#[cfg(test)]
const MOST: i64 = (1 << 16) - 1;
#[cfg(test)]
const PAYLOAD4: u32 = (1 << 12) - 1;
#[cfg(test)]
const LEAST4: i64 = -(1 << 11);
#[cfg(test)]
const MOST4: i64 = (1 << 11) - 1;

impl Packed {
    /// Plain value `v` in `BITS` bits of contents with its kind in the three bits above them,
    /// if it fits: an `int` in two's complement, an enum value as its enum above its variant's
    /// `VARIANT` bits, an index as itself.
    #[inline(always)]
    fn encode<const BITS: u32, const VARIANT: u32>(v: &Value) -> Option<u64> {
        let payload = (1u32 << BITS) - 1;
        let (least, most) = (-(1i64 << (BITS - 1)), (1i64 << (BITS - 1)) - 1);
        let (kind, p) = match *v {
            Value::None => (0u32, 0u32),
            Value::Int(n) if (least..=most).contains(&n) => (1, (n as u32) & payload),
            Value::Bool(b) => (2, u32::from(b)),
            Value::Enum(e, x) if e < (1 << (BITS - VARIANT)) && x < (1 << VARIANT) => {
                (3, (e << VARIANT) | x)
            }
            Value::Card(c) if c <= payload => (4, c),
            Value::Player(c) if c <= payload => (5, c),
            Value::Zone(c) if c <= payload => (6, c),
            Value::Fn(c) if c <= payload => (7, c),
            _ => return None,
        };
        Some(u64::from((kind << BITS) | p))
    }

    /// The value `encode` put in the low `BITS + 3` bits of `w`.
    #[inline(always)]
    fn decode<const BITS: u32, const VARIANT: u32>(w: u64) -> Value {
        let w = (w & ((1u64 << (BITS + 3)) - 1)) as u32;
        let p = w & ((1u32 << BITS) - 1);
        match w >> BITS {
            0 => Value::None,
            // The contents widened with their sign.
            1 => Value::Int(i64::from(((p << (32 - BITS)) as i32) >> (32 - BITS))),
            2 => Value::Bool(p != 0),
            3 => Value::Enum(p >> VARIANT, p & ((1 << VARIANT) - 1)),
            4 => Value::Card(p),
            5 => Value::Player(p),
            6 => Value::Zone(p),
            _ => Value::Fn(p),
        }
    }

    /// The bits holding `v` in a tuple of one to three, if it is plain and fits.
    #[inline(always)]
    fn bits3(v: &Value) -> Option<u64> {
        Packed::encode::<17, 10>(v)
    }

    /// The bits holding `v` in a tuple of four, if it is plain and fits.
    #[inline(always)]
    fn bits4(v: &Value) -> Option<u64> {
        Packed::encode::<12, 7>(v)
    }

    /// `items` packed, if there are one to four and each fits.
    #[inline(always)]
    pub fn new(items: &[Value]) -> Option<Packed> {
        let n = items.len();
        let mut w = match n {
            1..=3 => {
                let mut w = 0u64;
                for (i, v) in items.iter().enumerate() {
                    w |= Packed::bits3(v)? << (SLOT3 * i as u32);
                }
                w
            }
            PACKED_MAX => {
                let mut w = 0u64;
                for (i, v) in items.iter().enumerate() {
                    w |= Packed::bits4(v)? << (SLOT4 * i as u32);
                }
                w
            }
            _ => return None,
        };
        w |= ((n as u64) - 1) << COUNT_SHIFT;
        Some(Packed(w))
    }

    /// Three values packed, if each fits.
    #[inline(always)]
    pub fn of3(a: &Value, b: &Value, c: &Value) -> Option<Packed> {
        Some(Packed(
            Packed::bits3(a)?
                | (Packed::bits3(b)? << SLOT3)
                | (Packed::bits3(c)? << (2 * SLOT3))
                | (2 << COUNT_SHIFT),
        ))
    }

    /// How many values it holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.0 >> COUNT_SHIFT) as usize + 1
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Value `i`, if it holds that many.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<Value> {
        let n = self.len();
        if i >= n {
            return None;
        }
        Some(if n == PACKED_MAX {
            Packed::decode::<12, 7>(self.0 >> (SLOT4 * i as u32))
        } else {
            Packed::decode::<17, 10>(self.0 >> (SLOT3 * i as u32))
        })
    }

    /// Its values, unpacked.
    #[inline]
    pub fn values(&self) -> Seq<'static> {
        let mut arr: [Value; PACKED_MAX] = Default::default();
        let n = self.len();
        for (i, slot) in arr.iter_mut().enumerate().take(n) {
            *slot = self.get(i).unwrap_or_default();
        }
        Seq::Own(n, arr)
    }

    /// Whether it holds the same tuple as `shared` (out of line: comparing the two forms is
    /// rare, and `Value::eq` stays small enough to be inlined).
    #[cold]
    #[inline(never)]
    fn same_as(&self, shared: &Items) -> bool {
        self.items() == *shared
    }

    /// Its values as the `Items` of the same tuple held in a `Tuple`.
    pub fn items(&self) -> Items {
        let n = self.len();
        if n > INLINE {
            return Items::new(self.values().to_vec());
        }
        let mut arr: [Value; INLINE] = Default::default();
        for (i, slot) in arr.iter_mut().enumerate().take(n) {
            *slot = self.get(i).unwrap_or_default();
        }
        Items::inline(n, arr)
    }
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.values().iter()).finish()
    }
}

/// The items of a list or tuple: borrowed from a shared one, or unpacked from a `Packed` one.
pub enum Seq<'a> {
    Shared(&'a Items),
    Own(usize, [Value; PACKED_MAX]),
}

impl Deref for Seq<'_> {
    type Target = [Value];
    #[inline]
    fn deref(&self) -> &[Value] {
        match self {
            Seq::Shared(items) => items,
            Seq::Own(n, arr) => arr.get(..*n).unwrap_or(&[]),
        }
    }
}

/// A value of the language. The variants that hold a shared handle come last, so dropping or
/// copying a value tells them from the plain ones with one range test (their order is not
/// the order values compare in: see `Ord`).
#[derive(Debug, Clone, Default)]
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
    /// A tuple of one to four plain values held in the value itself, with no allocation (see
    /// `Packed`): the tuples a game builds as it goes. The same tuple may also be held in
    /// `Tuple` (the tuples written in cards and constants, which are read far more often than
    /// made): the two forms are one value, equal, ordered and hashed alike.
    Packed(Packed),
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
            Value::Tuple(_) | Value::Packed(_) => 9,
            Value::Fn(_) => 10,
        }
    }
}

impl PartialEq for Value {
    #[inline]
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Enum(a, x), Value::Enum(b, y)) => a == b && x == y,
            (Value::Card(a), Value::Card(b))
            | (Value::Player(a), Value::Player(b))
            | (Value::Zone(a), Value::Zone(b))
            | (Value::Fn(a), Value::Fn(b)) => a == b,
            (Value::Packed(a), Value::Packed(b)) => a == b,
            (Value::Text(a), Value::Text(b)) => a == b,
            (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => a == b,
            (Value::Packed(a), Value::Tuple(b)) | (Value::Tuple(b), Value::Packed(a)) => {
                a.same_as(b)
            }
            _ => false,
        }
    }
}

impl Eq for Value {}

/// Hashed as `Eq` compares: a packed tuple as the same tuple held in `Tuple`.
impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.rank().hash(h);
        match self {
            Value::None => {}
            Value::Int(n) => n.hash(h),
            Value::Bool(b) => b.hash(h),
            Value::Enum(e, x) => (e, x).hash(h),
            Value::Card(c) | Value::Player(c) | Value::Zone(c) | Value::Fn(c) => c.hash(h),
            Value::Packed(p) => p.items().hash(h),
            Value::Text(t) => t.hash(h),
            Value::List(l) | Value::Tuple(l) => l.hash(h),
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
            (Value::Packed(a), Value::Packed(b)) => (*a.values()).cmp(&*b.values()),
            // Only a tuple that cannot be packed is held in `Tuple`: compared as its items.
            (Value::Packed(a), Value::Tuple(b)) => a.items().cmp(b),
            (Value::Tuple(a), Value::Packed(b)) => (**a).cmp(&b.items()),
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
            Value::Tuple(_) | Value::Packed(_) => "tuple",
            Value::Fn(_) => "fn",
        }
    }
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Rc::new(Items::new(v)))
    }
    /// A tuple of the values in `v`, shared (for tuples read more often than made: cards'
    /// fields, constants).
    pub fn tuple(v: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(Items::new(v)))
    }
    /// A tuple of the values in `v`: packed when it can be (see `Packed`), for a tuple the game
    /// builds as it goes.
    pub fn tuple_made(v: Vec<Value>) -> Value {
        match Packed::new(&v) {
            Some(p) => Value::Packed(p),
            None => Value::Tuple(Rc::new(Items::new(v))),
        }
    }
    /// A tuple of the first `n` values of `arr` (at most `INLINE`): packed when it can be.
    #[inline(always)]
    pub fn tuple_inline(n: usize, arr: [Value; INLINE]) -> Value {
        match Packed::new(arr.get(..n).unwrap_or(&[])) {
            Some(p) => Value::Packed(p),
            None => Value::Tuple(Rc::new(Items::inline(n, arr))),
        }
    }
    /// The items of a tuple, however it is held.
    #[inline]
    pub fn tuple_items(&self) -> Option<Seq<'_>> {
        match self {
            Value::Tuple(t) => Some(Seq::Shared(t)),
            Value::Packed(p) => Some(p.values()),
            _ => None,
        }
    }
    /// The items of a list or a tuple, however it is held.
    #[inline]
    pub fn seq_items(&self) -> Option<Seq<'_>> {
        match self {
            Value::List(t) | Value::Tuple(t) => Some(Seq::Shared(t)),
            Value::Packed(p) => Some(p.values()),
            _ => None,
        }
    }
    /// A list of the values in `v`, taken out of it (see `Items::take`).
    pub fn list_from(v: &mut Vec<Value>) -> Value {
        Value::List(Rc::new(Items::take(v)))
    }
    /// How deeply lists and tuples nest in this value (0 for a plain value).
    #[inline]
    pub fn depth(&self) -> u32 {
        match self {
            Value::List(l) | Value::Tuple(l) => l.depth,
            Value::Packed(_) => 1,
            _ => 0,
        }
    }
    /// How many values this one holds, itself included, counting shared parts every time they
    /// appear (saturating): a bound on the work of comparing or printing it.
    #[inline]
    pub fn size(&self) -> u64 {
        match self {
            Value::List(l) | Value::Tuple(l) => l.size,
            Value::Packed(p) => 1 + p.len() as u64,
            _ => 1,
        }
    }
    /// The work of comparing, hashing or printing this value, in steps: its size, with a text
    /// counting one step per 64 bytes.
    #[inline]
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
            Value::tuple(vec![Value::Int(1)]),
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
        let small = Value::tuple_inline(1, arr);
        assert!(matches!(small, Value::Packed(_)));
        assert_eq!(small, Value::tuple(vec![Value::Int(7)]));
        assert!(small < Value::tuple(vec![Value::Int(8)]));
    }

    /// Plain values at the edges of what a tuple of one to three holds (20 bits each), and just
    /// past them.
    fn edges() -> (Vec<Value>, Vec<Value>) {
        let fit = vec![
            Value::None,
            Value::Int(0),
            Value::Int(-1),
            Value::Int(LEAST),
            Value::Int(MOST),
            Value::Bool(false),
            Value::Bool(true),
            Value::Enum(0, 0),
            Value::Enum(127, 1023),
            Value::Card(0),
            Value::Card(PAYLOAD),
            Value::Player(3),
            Value::Zone(PAYLOAD),
            Value::Fn(9),
        ];
        let past = vec![
            Value::Int(LEAST - 1),
            Value::Int(MOST + 1),
            Value::Int(i64::MIN),
            Value::Enum(128, 0),
            Value::Enum(0, 1024),
            Value::Card(PAYLOAD + 1),
            Value::Player(u32::MAX),
            Value::text("a"),
            Value::list(vec![Value::Int(1)]),
        ];
        (fit, past)
    }

    /// A list's size counts every value it holds, a packed tuple as its items and itself, a
    /// shared list each time it appears, and stops at `u64::MAX` however the huge part and the
    /// small ones are ordered.
    #[test]
    fn sizes_count_every_value_and_saturate() {
        let three = Value::Packed(
            Packed::new(&[Value::Int(1), Value::Int(2), Value::Int(3)]).expect("packed"),
        );
        let small = Value::list(vec![Value::Int(1), three.clone(), Value::None]);
        // 1 for the list, 1 for the number, 4 for the tuple, 1 for `none`.
        assert_eq!(small.size(), 7);
        assert_eq!(small.depth(), 2);
        let mut huge = small.clone();
        for _ in 0..70 {
            huge = Value::list(vec![huge.clone(), huge]);
        }
        assert_eq!(huge.size(), u64::MAX);
        for l in [
            vec![huge.clone(), Value::Int(1), three.clone()],
            vec![Value::Int(1), three.clone(), huge.clone()],
            vec![three, huge.clone(), small],
        ] {
            assert_eq!(Value::list(l).size(), u64::MAX);
        }
    }

    /// A tuple of values that fit is packed and gives them back as they were; one with a value
    /// past the edge is shared, never packed.
    #[test]
    fn tuples_of_plain_values_are_packed_and_read_back() {
        let (fit, past) = edges();
        for a in &fit {
            for b in &fit {
                let t = Value::tuple_made(vec![a.clone(), b.clone(), a.clone()]);
                let Value::Packed(p) = &t else {
                    panic!("{a:?}, {b:?} not packed");
                };
                assert_eq!(p.len(), 3);
                assert_eq!(
                    (p.get(0), p.get(1), p.get(2), p.get(3)),
                    (Some(a.clone()), Some(b.clone()), Some(a.clone()), None)
                );
                assert_eq!((t.depth(), t.size()), (1, 4));
                let two = Value::tuple_made(vec![a.clone(), b.clone()]);
                assert_eq!(
                    two.tuple_items().as_deref(),
                    Some(&[a.clone(), b.clone()][..])
                );
            }
            for x in &past {
                let t = Value::tuple_made(vec![a.clone(), x.clone()]);
                assert!(matches!(t, Value::Tuple(_)), "{x:?} packed");
                assert_eq!(
                    t.tuple_items().as_deref(),
                    Some(&[a.clone(), x.clone()][..])
                );
            }
        }
        assert!(matches!(Value::tuple_made(vec![]), Value::Tuple(_)));
        let five = vec![Value::Int(1); 5];
        assert!(matches!(Value::tuple_made(five), Value::Tuple(_)));
    }

    /// Plain values at the edges of what a value of a four-value tuple holds (15 bits), and
    /// just past them.
    fn edges4() -> (Vec<Value>, Vec<Value>) {
        let fit = vec![
            Value::None,
            Value::Int(0),
            Value::Int(-1),
            Value::Int(LEAST4),
            Value::Int(MOST4),
            Value::Bool(false),
            Value::Bool(true),
            Value::Enum(0, 0),
            Value::Enum(31, 127),
            Value::Card(0),
            Value::Card(PAYLOAD4),
            Value::Player(3),
            Value::Zone(PAYLOAD4),
            Value::Fn(PAYLOAD4),
        ];
        let past = vec![
            Value::Int(LEAST4 - 1),
            Value::Int(MOST4 + 1),
            Value::Enum(32, 0),
            Value::Enum(0, 128),
            Value::Card(PAYLOAD4 + 1),
            Value::Player(PAYLOAD4 + 1),
            Value::Zone(u32::MAX),
            Value::Fn(PAYLOAD4 + 1),
            Value::text("a"),
            Value::list(vec![Value::Int(1)]),
        ];
        (fit, past)
    }

    /// A tuple of four values that fit is packed, each value in every place, and gives them
    /// back as they were; one with a value past the edge is shared, never packed.
    #[test]
    fn tuples_of_four_plain_values_are_packed_and_read_back() {
        let (fit, past) = edges4();
        for a in &fit {
            for b in &fit {
                let items = vec![a.clone(), b.clone(), b.clone(), a.clone()];
                let t = Value::tuple_made(items.clone());
                let Value::Packed(p) = &t else {
                    panic!("{a:?}, {b:?} not packed");
                };
                assert_eq!(p.len(), 4);
                let got: Vec<Option<Value>> = (0..5).map(|i| p.get(i)).collect();
                let want: Vec<Option<Value>> =
                    items.iter().cloned().map(Some).chain([None]).collect();
                assert_eq!(got, want);
                assert_eq!(t.tuple_items().as_deref(), Some(&items[..]));
                assert_eq!((t.depth(), t.size()), (1, 5));
            }
            for x in &past {
                for at in 0..4 {
                    let mut items = vec![a.clone(); 4];
                    items[at] = x.clone();
                    let t = Value::tuple_made(items.clone());
                    assert!(matches!(t, Value::Tuple(_)), "{x:?} packed at {at}");
                    assert_eq!(t.tuple_items().as_deref(), Some(&items[..]));
                }
            }
        }
    }

    /// Packed tuples order, equal, hash and measure exactly as the same items held in `Items`
    /// do, against each other, against the same tuples shared and against tuples that cannot
    /// be packed; a list of them too.
    #[test]
    fn packed_tuples_compare_as_their_items() {
        let (fit, past) = edges();
        let (fit4, past4) = edges4();
        let mut all: Vec<Vec<Value>> = Vec::new();
        for a in fit.iter().chain(&past) {
            all.push(vec![a.clone()]);
            for b in fit.iter().step_by(3).chain(past.iter().step_by(4)) {
                all.push(vec![a.clone(), b.clone()]);
                all.push(vec![b.clone(), a.clone(), Value::Int(2)]);
            }
        }
        // Four values (packed with 15 bits each, or shared past those edges), and five.
        for a in fit4.iter().chain(past4.iter().step_by(2)) {
            for b in fit4.iter().step_by(4) {
                all.push(vec![a.clone(), b.clone(), Value::None, Value::Int(2)]);
                all.push(vec![b.clone(), Value::Int(2), a.clone(), b.clone()]);
            }
            all.push(vec![a.clone(); 5]);
        }
        let shared = |v: &Vec<Value>| Items::new(v.clone());
        for x in &all {
            let vx = Value::tuple_made(x.clone());
            assert_eq!((vx.depth(), vx.size()), (shared(x).depth, shared(x).size));
            // The same tuple shared is the same value.
            let sx = Value::tuple(x.clone());
            assert_eq!(vx, sx);
            assert_eq!(sx, vx);
            assert_eq!(vx.cmp(&sx), std::cmp::Ordering::Equal);
            assert_eq!(hash(&vx), hash(&sx));
            for y in &all {
                let vy = Value::tuple_made(y.clone());
                let sy = Value::tuple(y.clone());
                let want = shared(x).cmp(&shared(y));
                assert_eq!(vx.cmp(&vy), want, "{x:?} against {y:?}");
                assert_eq!(vx.cmp(&sy), want, "{x:?} against {y:?} shared");
                assert_eq!(sx.cmp(&vy), want, "{x:?} shared against {y:?}");
                assert_eq!(vx == vy, want == std::cmp::Ordering::Equal);
                assert_eq!(vx == sy, want == std::cmp::Ordering::Equal);
                if vx == vy {
                    assert_eq!(hash(&vx), hash(&vy));
                }
            }
        }
        let listed = Value::list(all.iter().map(|x| Value::tuple_made(x.clone())).collect());
        let plain = Items::new(
            all.iter()
                .map(|x| Value::Tuple(Rc::new(shared(x))))
                .collect(),
        );
        assert_eq!((listed.depth(), listed.size()), (plain.depth, plain.size));
    }
}

//! Go values as `text/template` sees them.
//!
//! Parity depends on keeping Go's type distinctions: template literals are `int`, data numbers
//! are `int64`, Sprig returns `[]string` or `map[string]string` in places, a missing map key is
//! an *invalid* `reflect.Value` (printed `<no value>`) while a JSON `null` inside a map is a nil
//! `interface{}`. This module owns the representation and the type-level helpers (type names,
//! the parameter types functions declare, truth, `reflect.DeepEqual`, JSON decoding with
//! kube-compare's number rule). It knows nothing about parsing or executing templates, nor about
//! the function library.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// Go's integer kinds. Unsigned values are kept in an `i64` (nothing in templates reaches 2^63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntKind {
    Int,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uintptr,
}

impl IntKind {
    pub fn name(self) -> &'static str {
        match self {
            IntKind::Int => "int",
            IntKind::Int8 => "int8",
            IntKind::Int16 => "int16",
            IntKind::Int32 => "int32",
            IntKind::Int64 => "int64",
            IntKind::Uint => "uint",
            IntKind::Uint8 => "uint8",
            IntKind::Uint16 => "uint16",
            IntKind::Uint32 => "uint32",
            IntKind::Uint64 => "uint64",
            IntKind::Uintptr => "uintptr",
        }
    }

    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            IntKind::Uint | IntKind::Uint8 | IntKind::Uint16 | IntKind::Uint32 | IntKind::Uint64 | IntKind::Uintptr
        )
    }
}

/// A Go parameter type as text/template checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `interface{}`: anything; a missing value arrives as [`Value::Nil`].
    Any,
    String,
    Bool,
    Int(IntKind),
    Float64,
    /// `[]interface{}`; a missing value arrives as a nil list.
    List,
    /// `map[string]interface{}`; a missing value arrives as a nil map.
    Map,
    /// A named type provided by an [`Object`], matched by `%T` name
    /// (`"time.Time"`, `"sprig.certificate"`).
    Named(&'static str),
}

/// A Go static type, as far as templates can observe it (`%T`, `typeOf`, `reflect.DeepEqual`,
/// function parameter checks).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `interface {}`
    Interface,
    Bool,
    Int(IntKind),
    Float64,
    Complex128,
    String,
    /// `[]T`
    Slice(Rc<Type>),
    /// `map[string]T` (templates never see other key types)
    Map(Rc<Type>),
    /// A named Go type provided by an [`Object`], e.g. `time.Time`, `*semver.Version`.
    Named(Rc<str>),
}

impl Type {
    pub fn slice_of(elem: Type) -> Type {
        Type::Slice(Rc::new(elem))
    }
    pub fn map_of(elem: Type) -> Type {
        Type::Map(Rc::new(elem))
    }
    /// `reflect.Kind` name, as Sprig's `kindOf` prints it.
    pub fn kind_name(&self) -> &str {
        match self {
            Type::Interface => "interface",
            Type::Bool => "bool",
            Type::Int(k) => k.name(),
            Type::Float64 => "float64",
            Type::Complex128 => "complex128",
            Type::String => "string",
            Type::Slice(_) => "slice",
            Type::Map(_) => "map",
            Type::Named(n) => {
                if n.starts_with('*') {
                    "ptr"
                } else {
                    "struct"
                }
            }
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Interface => f.write_str("interface {}"),
            Type::Bool => f.write_str("bool"),
            Type::Int(k) => f.write_str(k.name()),
            Type::Float64 => f.write_str("float64"),
            Type::Complex128 => f.write_str("complex128"),
            Type::String => f.write_str("string"),
            Type::Slice(e) => write!(f, "[]{e}"),
            Type::Map(e) => write!(f, "map[string]{e}"),
            Type::Named(n) => f.write_str(n),
        }
    }
}

/// A Go slice. Slices are values in templates: functions build new ones, nothing mutates one
/// in place, so the items are shared immutably.
#[derive(Clone, Debug)]
pub struct List {
    pub elem: Type,
    pub items: Rc<Vec<Value>>,
    /// A nil slice (prints `[]`, `toJson` gives `null`).
    pub nil: bool,
}

/// A Go map with string keys. Maps are references in Go (`set`, `unset`, `merge` mutate them and
/// every holder sees it), hence the shared `RefCell`. Keys iterate sorted, as Go's `fmt` and
/// `range` do.
#[derive(Clone, Debug)]
pub struct Map {
    pub elem: Type,
    pub entries: Rc<RefCell<BTreeMap<String, Value>>>,
    /// A nil map (prints `map[]`; assigning into it panics in Go).
    pub nil: bool,
}

/// An error from a template function, turned into `error calling NAME: …` by the executor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FuncError {
    /// Any error or recovered panic; the text is Go's message.
    Msg(String),
    /// kube-compare's `doNotMatch`: the reference asks not to match this CR.
    DoNotMatch(String),
    /// A resource limit (output, list or string size) was exceeded.
    Limit(String),
}

impl FuncError {
    pub fn msg(m: impl Into<String>) -> FuncError {
        FuncError::Msg(m.into())
    }
}

impl fmt::Display for FuncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FuncError::Msg(m) | FuncError::Limit(m) => f.write_str(m),
            FuncError::DoNotMatch(reason) => write!(f, "Do not match: {reason}"),
        }
    }
}

/// A value of a named Go type with fields and methods: `*semver.Version`, `time.Time`,
/// Sprig's certificate struct, `*url.URL`.
pub trait Object: fmt::Debug {
    /// `%T`: e.g. `*semver.Version`, `time.Time`.
    fn type_name(&self) -> &str;
    /// An exported struct field (`.Cert`), `None` when there is none.
    fn field(&self, _name: &str) -> Option<Value> {
        None
    }
    /// A method call (`.Major`, `.Format "2006"`); `None` when there is no such method.
    fn call_method(&self, _name: &str, _args: &[Value]) -> Option<Result<Value, FuncError>> {
        None
    }
    /// Whether the type has a method of that name (text/template checks methods before fields).
    fn has_method(&self, _name: &str) -> bool {
        false
    }
    /// The Go parameter types of a method (fixed, then variadic), when the type declares them:
    /// the executor then converts and checks arguments exactly as for table functions
    /// (`expected string; found 5`). `None` passes arguments as `interface {}` values.
    fn method_params(&self, _name: &str) -> Option<(&'static [Param], Option<Param>)> {
        None
    }
    /// The integer underneath a named Go integer type (`time.Month`, `time.Weekday`), which
    /// spf13/cast's `ToInt64`/`ToFloat64` read as that integer; `None` for every other type.
    fn int_value(&self) -> Option<i64> {
        None
    }
    /// `%v` form: what Go's fmt prints, honouring `String()`/`Error()` methods.
    fn display(&self) -> String;
    /// `%#v` form; defaults to the `%v` form.
    fn go_syntax(&self) -> String {
        self.display()
    }
    /// `reflect.DeepEqual` with another object of the same type name.
    fn deep_equal(&self, other: &dyn Object) -> bool;
    /// For functions whose parameter is this concrete type.
    fn as_any(&self) -> &dyn Any;
    /// A nil pointer of this type (false for structs).
    fn is_nil(&self) -> bool {
        false
    }
}

/// A Go string. Go strings are bytes and may hold invalid UTF-8 (after byte slicing or base64
/// decoding); Rust strings cannot. The text is what every function and the output see (each
/// invalid sequence as U+FFFD, as Go's `encoding/json` shows it); the raw bytes are kept only
/// when they differ, for what counts bytes (`len`) or re-encodes them (`b64enc`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoStr {
    text: Rc<str>,
    raw: Option<Rc<[u8]>>,
}

impl GoStr {
    /// From arbitrary bytes; the raw bytes are kept only when they are not valid UTF-8.
    pub fn from_bytes(b: &[u8]) -> GoStr {
        match std::str::from_utf8(b) {
            Ok(s) => GoStr::from(s),
            Err(_) => GoStr { text: Rc::from(String::from_utf8_lossy(b).as_ref()), raw: Some(Rc::from(b)) },
        }
    }
    /// The bytes Go would hold.
    pub fn as_bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }
    /// Go's `len`: the number of bytes.
    pub fn go_len(&self) -> usize {
        self.as_bytes().len()
    }
    pub fn as_rc(&self) -> &Rc<str> {
        &self.text
    }
}

impl std::ops::Deref for GoStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for GoStr {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl std::borrow::Borrow<str> for GoStr {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for GoStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<&str> for GoStr {
    fn from(s: &str) -> GoStr {
        GoStr { text: Rc::from(s), raw: None }
    }
}

impl From<String> for GoStr {
    fn from(s: String) -> GoStr {
        GoStr { text: Rc::from(s), raw: None }
    }
}

impl From<Rc<str>> for GoStr {
    fn from(text: Rc<str>) -> GoStr {
        GoStr { text, raw: None }
    }
}

/// A Go value seen by a template.
#[derive(Clone, Debug)]
pub enum Value {
    /// The zero `reflect.Value`: no value at all (missing map key, nil interface returned by a
    /// function, nil data). Printed `<no value>` by the executor.
    Invalid,
    /// A nil `interface{}` held in a map, slice or passed as an argument (`null` in data). It has
    /// type `interface {}` for parameter checks and prints `<nil>` inside containers.
    Nil,
    Bool(bool),
    Int(i64, IntKind),
    Float(f64),
    Complex(f64, f64),
    String(GoStr),
    List(List),
    Map(Map),
    Object(Rc<dyn Object>),
}

impl Value {
    pub fn str(s: impl AsRef<str>) -> Value {
        Value::String(GoStr::from(s.as_ref()))
    }
    /// A Go string made of arbitrary bytes (base64-decoded data, a byte-cut `trunc`).
    pub fn go_bytes(b: &[u8]) -> Value {
        Value::String(GoStr::from_bytes(b))
    }
    /// A Go `int` (template literals, `len`, `atoi`).
    pub fn int(i: i64) -> Value {
        Value::Int(i, IntKind::Int)
    }
    /// A Go `int64` (data numbers, Sprig integer math).
    pub fn int64(i: i64) -> Value {
        Value::Int(i, IntKind::Int64)
    }
    /// `[]interface {}`
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List { elem: Type::Interface, items: Rc::new(items), nil: false })
    }
    /// `[]T` for a given element type.
    pub fn typed_list(elem: Type, items: Vec<Value>) -> Value {
        Value::List(List { elem, items: Rc::new(items), nil: false })
    }
    /// `[]string`
    pub fn string_list<I: IntoIterator<Item = S>, S: AsRef<str>>(items: I) -> Value {
        Value::typed_list(Type::String, items.into_iter().map(Value::str).collect())
    }
    /// A nil slice of the given element type.
    pub fn nil_list(elem: Type) -> Value {
        Value::List(List { elem, items: Rc::new(Vec::new()), nil: true })
    }
    /// `map[string]interface {}`
    pub fn map(entries: BTreeMap<String, Value>) -> Value {
        Value::Map(Map { elem: Type::Interface, entries: Rc::new(RefCell::new(entries)), nil: false })
    }
    /// `map[string]T` for a given element type.
    pub fn typed_map(elem: Type, entries: BTreeMap<String, Value>) -> Value {
        Value::Map(Map { elem, entries: Rc::new(RefCell::new(entries)), nil: false })
    }
    /// A nil `map[string]interface {}`.
    pub fn nil_map() -> Value {
        Value::Map(Map { elem: Type::Interface, entries: Rc::new(RefCell::new(BTreeMap::new())), nil: true })
    }
    pub fn object(o: impl Object + 'static) -> Value {
        Value::Object(Rc::new(o))
    }

    /// The dynamic Go type. `Invalid` and `Nil` have none (`None`); `%T` prints `<nil>` for both.
    pub fn type_of(&self) -> Option<Type> {
        Some(match self {
            Value::Invalid | Value::Nil => return None,
            Value::Bool(_) => Type::Bool,
            Value::Int(_, k) => Type::Int(*k),
            Value::Float(_) => Type::Float64,
            Value::Complex(..) => Type::Complex128,
            Value::String(_) => Type::String,
            Value::List(l) => Type::Slice(Rc::new(l.elem.clone())),
            Value::Map(m) => Type::Map(Rc::new(m.elem.clone())),
            Value::Object(o) => Type::Named(Rc::from(o.type_name())),
        })
    }

    /// `%T` / Sprig `typeOf`.
    pub fn type_name(&self) -> String {
        match self.type_of() {
            Some(t) => t.to_string(),
            None => "<nil>".to_string(),
        }
    }

    /// Sprig `kindOf` (`reflect.Kind` name); `invalid` for nil.
    pub fn kind_name(&self) -> String {
        match self.type_of() {
            Some(t) => t.kind_name().to_string(),
            None => "invalid".to_string(),
        }
    }

    pub fn is_invalid(&self) -> bool {
        matches!(self, Value::Invalid)
    }

    /// text/template's `isTrue`: the zero value of its type is false. The second element is
    /// false when truth is undefined (`Invalid`), which `if` treats as false too.
    pub fn truth(&self) -> (bool, bool) {
        match self {
            Value::Invalid => (false, false),
            Value::Nil => (false, true),
            Value::Bool(b) => (*b, true),
            Value::Int(i, _) => (*i != 0, true),
            Value::Float(f) => (*f != 0.0, true),
            Value::Complex(r, i) => (*r != 0.0 || *i != 0.0, true),
            Value::String(s) => (!s.is_empty(), true),
            Value::List(l) => (!l.items.is_empty(), true),
            Value::Map(m) => (!m.entries.borrow().is_empty(), true),
            Value::Object(o) => (!o.is_nil(), true),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// `reflect.DeepEqual`: same dynamic types and deeply equal contents. Maps compare by
    /// identity first (as Go does for the same map), nil and empty slices/maps differ.
    pub fn deep_equal(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Invalid, Value::Invalid) => true,
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a, ka), Value::Int(b, kb)) => ka == kb && a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Complex(ar, ai), Value::Complex(br, bi)) => ar == br && ai == bi,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.elem == b.elem
                    && a.nil == b.nil
                    && a.items.len() == b.items.len()
                    && a.items.iter().zip(b.items.iter()).all(|(x, y)| x.deep_equal(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.elem != b.elem || a.nil != b.nil {
                    return false;
                }
                if Rc::ptr_eq(&a.entries, &b.entries) {
                    return true;
                }
                let (ea, eb) = (a.entries.borrow(), b.entries.borrow());
                ea.len() == eb.len() && ea.iter().all(|(k, v)| eb.get(k).is_some_and(|w| v.deep_equal(w)))
            }
            (Value::Object(a), Value::Object(b)) => a.type_name() == b.type_name() && a.deep_equal(b.as_ref()),
            _ => false,
        }
    }

    /// Decode JSON the way kube-compare hands CRs to templates (`UnmarshalCaseSensitivePreserveInts`):
    /// objects → `map[string]interface {}`, arrays → `[]interface {}`, integers that fit `int64`
    /// → `int64`, every other number → `float64`, `null` → nil interface.
    pub fn from_json(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Nil,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::int64(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::str(s),
            serde_json::Value::Array(a) => Value::list(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => {
                // Inserted one by one: `collect` would first gather and sort a vector, an
                // allocation more per map (CR maps are small; keys are unique already).
                let mut entries = BTreeMap::new();
                for (k, v) in o {
                    entries.insert(k.clone(), Value::from_json(v));
                }
                Value::map(entries)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_follow_go() {
        assert_eq!(Value::int(1).type_name(), "int");
        assert_eq!(Value::int64(1).type_name(), "int64");
        assert_eq!(Value::list(vec![]).type_name(), "[]interface {}");
        assert_eq!(Value::string_list(["a"]).type_name(), "[]string");
        assert_eq!(Value::map(BTreeMap::new()).type_name(), "map[string]interface {}");
        assert_eq!(Value::typed_list(Type::slice_of(Type::Interface), vec![]).type_name(), "[][]interface {}");
        assert_eq!(Value::Nil.type_name(), "<nil>");
        assert_eq!(Value::list(vec![]).kind_name(), "slice");
    }

    #[test]
    fn json_numbers_keep_int64_float64_split() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a":3,"b":3.0,"c":18446744073709551616,"d":null}"#).unwrap();
        let Value::Map(m) = Value::from_json(&v) else { panic!("not a map") };
        let m = m.entries.borrow();
        assert!(matches!(m["a"], Value::Int(3, IntKind::Int64)));
        assert!(matches!(m["b"], Value::Float(f) if f == 3.0));
        assert!(matches!(m["c"], Value::Float(_)));
        assert!(matches!(m["d"], Value::Nil));
    }

    #[test]
    fn go_strings_keep_invalid_bytes_for_len_and_reencoding() {
        let v = Value::go_bytes(&[b'h', 0xc3]);
        let Value::String(s) = &v else { panic!("not a string") };
        assert_eq!(s.go_len(), 2, "Go counts bytes, not the U+FFFD shown");
        assert_eq!(&**s, "h\u{fffd}");
        assert_eq!(s.as_bytes(), &[b'h', 0xc3]);
        let valid = Value::go_bytes("é".as_bytes());
        let Value::String(s) = &valid else { panic!("not a string") };
        assert_eq!((s.go_len(), &**s), (2, "é"));
        assert!(valid.deep_equal(&Value::str("é")), "valid bytes are the same string");
    }

    #[test]
    fn deep_equal_is_type_sensitive() {
        assert!(!Value::int(1).deep_equal(&Value::int64(1)));
        assert!(Value::int64(1).deep_equal(&Value::int64(1)));
        assert!(!Value::nil_list(Type::Interface).deep_equal(&Value::list(vec![])));
        assert!(!Value::string_list(["a"]).deep_equal(&Value::list(vec![Value::str("a")])));
    }
}

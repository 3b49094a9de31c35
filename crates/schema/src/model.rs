//! The compiled form of one OpenAPI v3 (structural) schema, as a CRD's `openAPIV3Schema`
//! states it: what validation and the Composition checks read. [`crate::compile`] builds it
//! from the spanned YAML tree, once per kind and version per run. This module knows nothing of
//! instances or Compositions.

use std::ops::Range;
use std::sync::Arc;

use driftlint_goregex::GoRegex;
use indexmap::IndexMap;
use serde_json::Value;

/// A JSON type as the schema's `type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Type {
    pub fn parse(name: &str) -> Option<Type> {
        Some(match name {
            "object" => Type::Object,
            "array" => Type::Array,
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::Object => "object",
            Type::Array => "array",
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
        }
    }
}

/// One node of a compiled schema.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// `None`: no `type` (anything goes, e.g. int-or-string or a schema that failed to compile).
    pub ty: Option<Type>,
    pub properties: IndexMap<String, Schema>,
    /// `additionalProperties` as a schema (`true` gives an empty, accept-all schema).
    pub additional: Option<Box<Schema>>,
    pub items: Option<Box<Schema>>,
    pub required: Vec<String>,
    pub enumeration: Vec<Value>,
    pub pattern: Option<Pattern>,
    pub minimum: Option<Bound>,
    pub maximum: Option<Bound>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub format: Option<String>,
    pub nullable: bool,
    pub int_or_string: bool,
    pub preserve_unknown: bool,
    pub embedded_resource: bool,
    pub default: Option<Value>,
    /// A CRD list's `x-kubernetes-list-type`: `map` (items unique by [`Schema::list_map_keys`])
    /// or `set` (items unique). Read from CRDs only: for built-in kinds the API server's own
    /// validation decides (duplicate env names are only a warning there).
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys` of a `map` list.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-validations`: CEL rules on this level's value (see [`crate::cel`]).
    pub validations: Vec<Arc<Validation>>,
}

/// The `x-kubernetes-list-type`s that constrain items (`atomic` does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListType {
    Map,
    Set,
}

/// A `pattern`, compiled with Go's RE2 syntax.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub source: String,
    pub regex: Arc<GoRegex>,
}

/// `minimum`/`maximum` with its `exclusive…` flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub value: f64,
    pub exclusive: bool,
}

impl Schema {
    /// A schema that accepts anything below it (used where compilation failed).
    pub fn any() -> Schema {
        Schema { preserve_unknown: true, ..Schema::default() }
    }

    /// An object schema with these properties.
    pub fn object(properties: impl IntoIterator<Item = (&'static str, Schema)>, required: &[&str]) -> Schema {
        Schema {
            ty: Some(Type::Object),
            properties: properties.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            required: required.iter().map(|s| s.to_string()).collect(),
            ..Schema::default()
        }
    }

    pub fn of(ty: Type) -> Schema {
        Schema { ty: Some(ty), ..Schema::default() }
    }

    /// A string with an `enum`.
    pub fn string_enum(values: &[&str]) -> Schema {
        Schema {
            enumeration: values.iter().map(|v| Value::String(v.to_string())).collect(),
            ..Schema::of(Type::String)
        }
    }

    /// An array of `items`.
    pub fn array(items: Schema) -> Schema {
        Schema { items: Some(Box::new(items)), ..Schema::of(Type::Array) }
    }

    /// A map of strings (`additionalProperties: {type: string}`).
    pub fn string_map() -> Schema {
        Schema { additional: Some(Box::new(Schema::of(Type::String))), ..Schema::of(Type::Object) }
    }

    /// The schema of property `key`: the named one, else the `additionalProperties` one.
    pub fn property(&self, key: &str) -> Option<&Schema> {
        self.properties.get(key).or(self.additional.as_deref())
    }
}

/// A problem in a schema, at its place in the schema's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaProblem {
    pub span: Range<usize>,
    pub message: String,
}

/// One `x-kubernetes-validations` entry.
#[derive(Debug)]
pub struct Validation {
    /// The rule's text, for messages.
    pub source: String,
    /// The `rule:` key in the schema's file.
    pub span: Range<usize>,
    pub compiled: Result<driftlint_cel::Rule, Skipped>,
}

/// Why a rule is not evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skipped {
    Transition,
    Unsupported(String),
}

impl Skipped {
    pub fn why(&self) -> String {
        match self {
            Skipped::Transition => {
                "it is a transition rule (it uses `oldSelf`): there is no previous object offline".into()
            }
            Skipped::Unsupported(why) => why.clone(),
        }
    }
}

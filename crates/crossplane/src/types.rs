//! Types of Composition field paths and of patch values: a field path resolved in a schema (with
//! Crossplane's built-in `metadata` schema), and a value's type followed through transforms.
//!
//! This follows Crossplane's run-time behaviour where its webhook differs: `math` keeps its
//! input's numeric type (crossplane/crossplane#5081) and array sources stay arrays (so `Join`
//! accepts them).

use driftlint_yaml::Node;

use super::fieldpath::Segment;
use super::text;
use driftlint_schema::{Schema, Type};

/// A value's type as far as it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VType {
    Unknown,
    Is(Type),
    /// `math` on an input of unknown type: integer or number.
    Numeric,
}

impl VType {
    pub fn name(self) -> &'static str {
        match self {
            VType::Unknown => "unknown",
            VType::Is(t) => t.name(),
            VType::Numeric => "integer or number",
        }
    }
}

/// The type of the node `path` ends on in `schema`, or why the path does not exist.
pub fn resolve(schema: &Schema, path: &[Segment]) -> Result<VType, String> {
    if let Some(Segment::Field(first)) = path.first()
        && first == "metadata"
    {
        return metadata(&path[1..]);
    }
    let mut node = schema;
    for (i, seg) in path.iter().enumerate() {
        let shown = || super::fieldpath::to_string(&path[..=i]);
        match seg {
            Segment::Field(name) => {
                if node.ty.is_some_and(|t| t != Type::Object) {
                    return Err(format!(
                        "`{}` is a {}, it has no field `{name}`",
                        super::fieldpath::to_string(&path[..i]),
                        node.ty.map_or("", Type::name)
                    ));
                }
                if let Some(p) = node.properties.get(name) {
                    node = p;
                } else if node.preserve_unknown {
                    return Ok(VType::Unknown);
                } else if let Some(a) = node.additional.as_deref() {
                    node = a;
                } else {
                    return Err(format!("no field `{}`", shown()));
                }
            }
            Segment::Index(idx) => {
                if node.ty != Some(Type::Array) {
                    if node.ty.is_none() && node.preserve_unknown {
                        return Ok(VType::Unknown);
                    }
                    return Err(format!("`{}` indexes a field that is not an array", shown()));
                }
                if node.max_items.is_some_and(|m| (*idx as u64) >= m) {
                    return Err(format!("`{}` is beyond maxItems {}", shown(), node.max_items.unwrap_or_default()));
                }
                match node.items.as_deref() {
                    Some(items) => node = items,
                    None => return Ok(VType::Unknown),
                }
            }
        }
    }
    Ok(match node.ty {
        Some(t) if !node.int_or_string => VType::Is(t),
        _ => VType::Unknown,
    })
}

/// Crossplane's built-in metadata schema: name, generateName, namespace and uid are strings,
/// labels and annotations maps of strings; other metadata fields are accepted untyped.
fn metadata(rest: &[Segment]) -> Result<VType, String> {
    let field = |s: &Segment| match s {
        Segment::Field(f) => Some(f.clone()),
        Segment::Index(_) => None,
    };
    let Some(first) = rest.first() else { return Ok(VType::Is(Type::Object)) };
    let Some(name) = field(first) else { return Err("`metadata` is not an array".into()) };
    match name.as_str() {
        "name" | "generateName" | "namespace" | "uid" if rest.len() == 1 => Ok(VType::Is(Type::String)),
        "name" | "generateName" | "namespace" | "uid" => Err(format!("`metadata.{name}` is a string")),
        "labels" | "annotations" => match rest.len() {
            1 => Ok(VType::Is(Type::Object)),
            2 if field(&rest[1]).is_some() => Ok(VType::Is(Type::String)),
            _ => Err(format!("`metadata.{name}` is a map of strings")),
        },
        _ => Ok(VType::Unknown),
    }
}

/// Whether a value of type `value` may be written to a field of type `dest`.
pub fn fits(value: VType, dest: VType) -> bool {
    match (value, dest) {
        (VType::Unknown, _) | (_, VType::Unknown) => true,
        (VType::Numeric, VType::Is(Type::Integer | Type::Number)) => true,
        (VType::Is(Type::Integer), VType::Is(Type::Number)) => true,
        (a, b) => a == b,
    }
}

/// For a string transform's `convert` value: whether it needs a string input (`Some(true)`),
/// takes any (`Some(false)`), or is unknown (`None`).
pub fn string_convert_input(convert: &str) -> Option<bool> {
    match convert {
        "ToUpper" | "ToLower" | "ToBase64" | "FromBase64" => Some(true),
        "ToJson" | "ToSha1" | "ToSha256" | "ToSha512" | "ToAdler32" => Some(false),
        _ => None,
    }
}

/// The output type of transform `t` for an input of type `input`, or why the input is refused.
pub fn transform(t: &Node, input: VType) -> Result<VType, String> {
    let ty = text(t, "type").unwrap_or_default();
    let block = t.get(ty);
    let need = |accepted: &[Type], what: &str| -> Result<(), String> {
        match input {
            VType::Unknown => Ok(()),
            VType::Numeric if accepted.contains(&Type::Integer) => Ok(()),
            VType::Is(t) if accepted.contains(&t) => Ok(()),
            other => Err(format!("a {what} transform takes {}, not {}", names(accepted), other.name())),
        }
    };
    match ty {
        "map" | "match" => need(&[Type::String], ty).map(|()| VType::Unknown),
        "math" => {
            need(&[Type::Integer, Type::Number], "math")?;
            Ok(if input == VType::Unknown { VType::Numeric } else { input })
        }
        "string" => {
            let block = block.ok_or_else(String::new)?;
            let sub = text(block, "type").unwrap_or("Format");
            let needs_string = match sub {
                "Convert" => string_convert_input(text(block, "convert").unwrap_or_default()).unwrap_or(false),
                "TrimPrefix" | "TrimSuffix" | "Regexp" => true,
                "Join" => {
                    need(&[Type::Array], "string Join")?;
                    false
                }
                _ => false,
            };
            if needs_string {
                need(&[Type::String], &format!("string {sub}"))?;
            }
            Ok(VType::Is(Type::String))
        }
        "convert" => {
            let block = block.ok_or_else(String::new)?;
            let to = text(block, "toType").unwrap_or_default();
            let format = text(block, "format").unwrap_or("none");
            let target = match to {
                "string" => Type::String,
                "bool" => Type::Boolean,
                "int" | "int64" => Type::Integer,
                "float64" => Type::Number,
                "object" => Type::Object,
                _ => Type::Array,
            };
            let ok = match input {
                VType::Unknown => true,
                VType::Numeric => {
                    [Type::Integer, Type::Number].into_iter().any(|t| t == target || convertible(t, target, format))
                }
                VType::Is(t) => t == target || convertible(t, target, format),
            };
            if ok {
                Ok(VType::Is(target))
            } else {
                Err(format!("convert cannot turn {} into {to} (format {format})", input.name()))
            }
        }
        _ => Ok(VType::Unknown),
    }
}

/// Crossplane's conversion table (pairs of different types).
fn convertible(from: Type, to: Type, format: &str) -> bool {
    use Type::*;
    match (from, format) {
        (String, "none") => matches!(to, Integer | Boolean | Number),
        (String, "quantity") => to == Number,
        (String, "json") => matches!(to, Object | Array),
        (Integer, "none") => matches!(to, String | Boolean | Number),
        (Boolean, "none") => matches!(to, String | Integer | Number),
        (Number, "none") => matches!(to, String | Integer | Boolean),
        _ => false,
    }
}

fn names(types: &[Type]) -> String {
    types.iter().map(|t| t.name()).collect::<Vec<_>>().join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fieldpath::parse;

    fn transform_text(text: &str, input: VType) -> Result<VType, String> {
        let node = driftlint_yaml::parse_stream(text).documents.remove(0).root;
        transform(&node, input)
    }

    #[test]
    fn types_through_transforms() {
        let int = VType::Is(Type::Integer);
        let string = VType::Is(Type::String);
        assert_eq!(transform_text("type: math\nmath: {multiply: 2}", int), Ok(int));
        assert_eq!(transform_text("type: math\nmath: {multiply: 2}", VType::Unknown), Ok(VType::Numeric));
        assert!(transform_text("type: math\nmath: {multiply: 2}", string).is_err());
        assert_eq!(transform_text("type: map\nmap: {a: 1}", string), Ok(VType::Unknown));
        assert!(transform_text("type: map\nmap: {a: 1}", int).is_err());
        assert_eq!(transform_text("type: string\nstring: {fmt: '%d'}", int), Ok(string));
        assert!(transform_text("type: string\nstring: {type: Convert, convert: ToUpper}", int).is_err());
        assert!(transform_text("type: string\nstring: {type: Join, join: {separator: ','}}", string).is_err());
        assert_eq!(transform_text("type: convert\nconvert: {toType: int64}", string), Ok(int));
        assert!(transform_text("type: convert\nconvert: {toType: int64, format: quantity}", string).is_err());
        assert_eq!(
            transform_text("type: convert\nconvert: {toType: float64, format: quantity}", string),
            Ok(VType::Is(Type::Number))
        );
        assert!(transform_text("type: convert\nconvert: {toType: array}", VType::Is(Type::Boolean)).is_err());
        assert!(fits(int, VType::Is(Type::Number)) && !fits(VType::Is(Type::Number), int));
        assert!(fits(VType::Numeric, int) && !fits(VType::Numeric, string));
    }

    #[test]
    fn resolves_paths_in_schemas() {
        let schema = Schema::object(
            [
                ("tags", Schema { max_items: Some(2), ..Schema::array(Schema::of(Type::String)) }),
                ("labels", Schema::string_map()),
                ("free", Schema { preserve_unknown: true, ..Schema::of(Type::Object) }),
            ],
            &[],
        );
        let r = |p: &str| resolve(&schema, &parse(p).unwrap());
        assert_eq!(r("tags[1]"), Ok(VType::Is(Type::String)));
        assert!(r("tags[2]").is_err() && r("tags.0").is_err() && r("labels[0]").is_err());
        assert_eq!(r("labels[a.b/c]"), Ok(VType::Is(Type::String)));
        assert!(r("labels.a.b").is_err());
        assert_eq!(r("free.x[3].y"), Ok(VType::Unknown));
        assert_eq!(r("free"), Ok(VType::Is(Type::Object)));
        assert_eq!(r("metadata.labels[crossplane.io/claim-name]"), Ok(VType::Is(Type::String)));
        assert!(r("nope").is_err());
    }
}

//! Kubernetes' JSON patch library (`k8s.io/apiserver/pkg/cel/library/jsonpatch.go`):
//! `jsonpatch.escapeKey(string)`, a key escaped for a JSON pointer (RFC 6901: `~` → `~0`,
//! then `/` → `~1`).

use cel::common::value::CowVal;
use cel::{DeclarationError, Env, Value};

use super::{Res, give, global, string_arg, values};
use crate::cost;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "jsonpatch.escapeKey", 1, escape_key)
}

fn escape_key<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("jsonpatch.escapeKey", &a[0])?;
    let out = s.replace('~', "~0").replace('/', "~1");
    cost::produce("jsonpatch.escapeKey", out.len())?;
    give(Value::String(out.into()))
}

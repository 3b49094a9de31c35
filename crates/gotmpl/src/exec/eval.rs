//! Expression evaluation: pipelines, commands, arguments, fields, variables and function
//! calls, with Go's argument rules (`evalArg`, `validateType`, `evalCall` in `exec.go`).
//!
//! The rules that decide verdicts live here: a literal `3` becomes whatever the parameter
//! wants (`int`, `float64`, …), a data value must already have the parameter's type
//! (`wrong type for value; expected int; got int64`), a missing value becomes the zero value of
//! a nillable parameter or an `invalid value` error, and a command's nil-interface result
//! becomes "no value" between pipeline stages.

use std::fmt;

use super::{At, Exec, R};
use crate::error::ErrorKind;
use crate::funcs::{Ctx, Func, Param};
use crate::node::{Arg, Builtin, Command, FuncRef, Number, Pipe};
use crate::value::{FuncError, IntKind, List, Map, Type, Value};

/// A parameter type: a Go type from the function table, or `reflect.Value` (the builtins take
/// their arguments unconverted, missing values included).
#[derive(Clone, Copy, Debug)]
pub(crate) enum ArgType {
    Reflect,
    P(Param),
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgType::Reflect => f.write_str("reflect.Value"),
            ArgType::P(p) => f.write_str(&param_name(*p)),
        }
    }
}

/// The Go spelling of a parameter type.
pub(crate) fn param_name(p: Param) -> String {
    match p {
        Param::Any => "interface {}".into(),
        Param::String => "string".into(),
        Param::Bool => "bool".into(),
        Param::Int(k) => k.name().into(),
        Param::Float64 => "float64".into(),
        Param::List => "[]interface {}".into(),
        Param::Map => "map[string]interface {}".into(),
        Param::Named(n) => n.into(),
    }
}

/// Does a (valid, non-nil) value's type equal the parameter type (Go's `AssignableTo`)?
fn assignable(v: &Value, p: Param) -> bool {
    match (p, v) {
        (Param::Any, _) => true,
        (Param::String, Value::String(_)) | (Param::Bool, Value::Bool(_)) | (Param::Float64, Value::Float(_)) => true,
        (Param::Int(k), Value::Int(_, vk)) => k == *vk,
        (Param::List, Value::List(l)) => l.elem == Type::Interface,
        (Param::Map, Value::Map(m)) => m.elem == Type::Interface,
        (Param::Named(n), Value::Object(o)) => o.type_name() == n,
        _ => false,
    }
}

impl<'t> Exec<'t> {
    pub(super) fn eval_pipeline(&mut self, dot: &Value, pipe: &'t Pipe) -> R<Value> {
        self.at = At::Pipe(pipe);
        let mut value: Option<Value> = None;
        // `$l = append $l x`: the old `$l` is dead once read, so it is moved, not shared, and
        // `append` can grow it in place (a loop of appends stays linear).
        // A parenthesized pipeline inside has its own (none); the outer one's is restored after.
        let outer = std::mem::replace(&mut self.moving, pipe.reassigns_sole_use());
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take());
            let v = match v {
                Ok(v) => v,
                Err(e) => {
                    self.moving = outer;
                    return Err(e);
                }
            };
            // A nil interface{} result is "no value" from here on (Go digs into interfaces).
            value = Some(if matches!(v, Value::Nil) { Value::Invalid } else { v });
        }
        self.moving = outer;
        let value = value.unwrap_or(Value::Invalid);
        for (_, name) in &pipe.decl {
            if pipe.is_assign {
                self.set_var(name, value.clone())?;
            } else {
                self.vars.push((name.as_str(), value.clone()));
            }
        }
        Ok(value)
    }

    /// A parenthesized pipeline: the one place where expressions nest, so the stack is grown
    /// here (the parser bounds the nesting, the stack must still hold it).
    fn eval_nested_pipeline(&mut self, dot: &Value, pipe: &'t Pipe) -> R<Value> {
        stacker::maybe_grow(super::RED_ZONE, super::STACK_SEGMENT, || self.eval_pipeline(dot, pipe))
    }

    fn not_a_function(&self, args: &[Arg], fin: &Option<Value>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return Err(self.errorf(format!("can't give argument to non-function {}", args[0])));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Value, cmd: &'t Command, fin: Option<Value>) -> R<Value> {
        self.burn()?;
        let first = &cmd.args[0];
        match first {
            Arg::Field { idents, .. } => {
                self.at = At::Arg(first);
                return self.eval_field_chain(dot, dot.clone(), self.dot_iface, idents, &cmd.args, fin);
            }
            Arg::Chain { node, fields, .. } => return self.eval_chain(dot, first, node, fields, &cmd.args, fin),
            Arg::Ident { name, func, .. } => {
                return self.eval_function(dot, first, At::Cmd(cmd), name, *func, &cmd.args[1..], fin);
            }
            Arg::Pipe(p) => {
                self.not_a_function(&cmd.args, &fin)?;
                return self.eval_nested_pipeline(dot, p);
            }
            Arg::Variable { idents, .. } => return self.eval_variable(dot, first, idents, &cmd.args, fin),
            _ => {}
        }
        self.at = At::Arg(first);
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Arg::Bool(_, b) => Ok(Value::Bool(*b)),
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Err(self.errorf("nil is not a command")),
            Arg::Number(_, n) => self.ideal_constant(n),
            Arg::Str { text, .. } => Ok(Value::str(text)),
            _ => Err(self.errorf(format!("can't evaluate command {first:?}"))),
        }
    }

    /// Go's `idealConstant`: a literal number as a value of its natural type.
    fn ideal_constant(&self, n: &Number) -> R<Value> {
        let t = n.text.as_str();
        let is_hex_int =
            t.len() > 2 && t.starts_with('0') && matches!(t.as_bytes()[1], b'x' | b'X') && !t.contains(['p', 'P']);
        let is_rune = t.starts_with('\'');
        if n.is_complex {
            return Ok(Value::Complex(n.complex.0, n.complex.1));
        }
        if n.is_float && !is_hex_int && !is_rune && t.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Value::Float(n.float64));
        }
        if n.is_int {
            return Ok(Value::int(n.int64));
        }
        if n.is_uint {
            return Err(self.errorf(format!("{t} overflows int")));
        }
        Ok(Value::Invalid)
    }

    fn eval_variable(
        &mut self,
        dot: &Value,
        node: &'t Arg,
        idents: &'t [String],
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        self.at = At::Arg(node);
        let value = if idents.len() == 1 && self.moving == Some(idents[0].as_str()) {
            self.moving = None;
            self.take_var(&idents[0])?
        } else {
            self.var_value(&idents[0])?
        };
        if idents.len() == 1 {
            if !args.is_empty() {
                self.not_a_function(args, &fin)?;
            }
            return Ok(value);
        }
        self.eval_field_chain(dot, value, false, &idents[1..], args, fin)
    }

    fn eval_chain(
        &mut self,
        dot: &Value,
        chain: &'t Arg,
        node: &'t Arg,
        fields: &'t [String],
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        self.at = At::Arg(chain);
        if let Arg::Nil(_) = node {
            return Err(self.errorf(format!("indirection through explicit nil in {chain}")));
        }
        let recv = self.eval_operand(dot, node)?;
        self.at = At::Arg(chain);
        self.eval_field_chain(dot, recv, false, fields, args, fin)
    }

    /// An operand evaluated without a parameter type (Go's `evalArg` with a nil type).
    fn eval_operand(&mut self, dot: &Value, arg: &'t Arg) -> R<Value> {
        self.eval_arg(dot, ArgType::Reflect, arg)
    }

    /// Field steps from `recv`. `iface` says whether `recv` is held in an `interface {}` (an
    /// element of a data map or list), which is the type Go names in its error messages.
    pub(super) fn eval_field_chain(
        &mut self,
        dot: &Value,
        mut recv: Value,
        mut iface: bool,
        idents: &'t [String],
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        let n = idents.len();
        for name in &idents[..n - 1] {
            let next_iface = matches!(&recv, Value::Map(m) if m.elem == Type::Interface);
            recv = self.eval_field(dot, name, &[], None, recv, iface)?;
            iface = next_iface;
        }
        self.eval_field(dot, &idents[n - 1], args, fin, recv, iface)
    }

    /// Go's `evalField`: a method of an object, a struct field, or a map key.
    fn eval_field(
        &mut self,
        dot: &Value,
        name: &str,
        args: &'t [Arg],
        fin: Option<Value>,
        recv: Value,
        iface: bool,
    ) -> R<Value> {
        let has_args = args.len() > 1 || fin.is_some();
        let type_name = |v: &Value| if iface { "interface {}".to_string() } else { v.type_name() };
        match &recv {
            Value::Invalid => Ok(Value::Invalid),
            Value::Nil => Err(self.errorf(format!("nil pointer evaluating interface {{}}.{name}"))),
            Value::Object(o) => {
                if o.has_method(name) {
                    let at = self.at;
                    let call_args = args.get(1..).unwrap_or(&[]);
                    let argv = match o.method_params(name) {
                        Some((params, variadic)) => {
                            self.eval_args(dot, name, Sig::Method(params, variadic), call_args, fin)?
                        }
                        None => {
                            let mut argv = Vec::with_capacity(call_args.len() + 1);
                            for a in call_args {
                                argv.push(self.eval_arg(dot, ArgType::P(Param::Any), a)?);
                            }
                            if let Some(f) = fin {
                                argv.push(self.validate_type(f, ArgType::P(Param::Any))?);
                            }
                            argv
                        }
                    };
                    self.at = at;
                    return match o.call_method(name, &argv) {
                        Some(Ok(v)) => Ok(v),
                        Some(Err(e)) => Err(self.func_error(name, e)),
                        None => Err(self.errorf(format!("can't evaluate field {name} in type {}", type_name(&recv)))),
                    };
                }
                if let Some(v) = o.field(name) {
                    if has_args {
                        return Err(self.errorf(format!("{name} has arguments but cannot be invoked as function")));
                    }
                    return Ok(v);
                }
                if o.is_nil() {
                    return Err(self.errorf(format!("nil pointer evaluating {}.{name}", o.type_name())));
                }
                Err(self.errorf(format!("can't evaluate field {name} in type {}", type_name(&recv))))
            }
            Value::Map(m) => {
                if has_args {
                    return Err(self.errorf(format!("{name} is not a method but has arguments")));
                }
                Ok(m.entries.borrow().get(name).cloned().unwrap_or(Value::Invalid))
            }
            other => Err(self.errorf(format!("can't evaluate field {name} in type {}", type_name(other)))),
        }
    }

    pub(super) fn func_error(&self, name: &str, e: FuncError) -> Box<crate::Error> {
        match e {
            FuncError::Msg(m) => self.errorf(format!("error calling {name}: {m}")),
            FuncError::Limit(m) => self.fail(ErrorKind::Limit, format!("error calling {name}: {m}")),
            e @ FuncError::DoNotMatch(_) => self.fail(ErrorKind::DoNotMatch, format!("error calling {name}: {e}")),
        }
    }

    /// Go's `evalArg`: one argument for a parameter of type `ty`.
    pub(super) fn eval_arg(&mut self, dot: &Value, ty: ArgType, arg: &'t Arg) -> R<Value> {
        self.at = At::Arg(arg);
        let v = match arg {
            Arg::Dot(_) => dot.clone(),
            Arg::Nil(_) => {
                return match ty {
                    ArgType::Reflect => Ok(Value::Invalid),
                    ArgType::P(Param::Any) => Ok(Value::Nil),
                    ArgType::P(Param::List) => Ok(Value::nil_list(Type::Interface)),
                    ArgType::P(Param::Map) => Ok(Value::nil_map()),
                    _ => Err(self.errorf(format!("cannot assign nil to {ty}"))),
                };
            }
            Arg::Field { idents, .. } => {
                self.eval_field_chain(dot, dot.clone(), self.dot_iface, idents, std::slice::from_ref(arg), None)?
            }
            Arg::Variable { idents, .. } => self.eval_variable(dot, arg, idents, &[], None)?,
            Arg::Pipe(p) => self.eval_nested_pipeline(dot, p)?,
            Arg::Ident { name, func, .. } => self.eval_function(dot, arg, At::Arg(arg), name, *func, &[], None)?,
            Arg::Chain { node, fields, .. } => self.eval_chain(dot, arg, node, fields, &[], None)?,
            Arg::Bool(..) | Arg::Number(..) | Arg::Str { .. } => return self.eval_literal(ty, arg),
        };
        self.at = At::Arg(arg);
        self.validate_type(v, ty)
    }

    fn eval_literal(&self, ty: ArgType, arg: &Arg) -> R<Value> {
        let p = match ty {
            ArgType::Reflect => Param::Any,
            ArgType::P(p) => p,
        };
        match (p, arg) {
            (Param::Any, Arg::Bool(_, b)) | (Param::Bool, Arg::Bool(_, b)) => Ok(Value::Bool(*b)),
            (Param::Any, Arg::Str { text, .. }) | (Param::String, Arg::Str { text, .. }) => Ok(Value::str(text)),
            (Param::Any, Arg::Number(_, n)) => self.ideal_constant(n),
            (Param::Bool, _) => Err(self.errorf(format!("expected bool; found {arg}"))),
            (Param::String, _) => Err(self.errorf(format!("expected string; found {arg}"))),
            (Param::Int(k), Arg::Number(_, n)) if k.is_unsigned() && n.is_uint => Ok(Value::Int(n.uint64 as i64, k)),
            (Param::Int(k), Arg::Number(_, n)) if !k.is_unsigned() && n.is_int => {
                Ok(Value::Int(wrap_int(n.int64, k), k))
            }
            (Param::Int(k), _) if k.is_unsigned() => {
                Err(self.errorf(format!("expected unsigned integer; found {arg}")))
            }
            (Param::Int(_), _) => Err(self.errorf(format!("expected integer; found {arg}"))),
            (Param::Float64, Arg::Number(_, n)) if n.is_float => Ok(Value::Float(n.float64)),
            (Param::Float64, _) => Err(self.errorf(format!("expected float; found {arg}"))),
            _ => Err(self.errorf(format!("can't handle {arg} for arg of type {ty}"))),
        }
    }

    /// Go's `validateType`: a computed value against a parameter type.
    pub(super) fn validate_type(&self, v: Value, ty: ArgType) -> R<Value> {
        let p = match ty {
            ArgType::Reflect => return Ok(v),
            ArgType::P(p) => p,
        };
        if let Value::Invalid = v {
            return match p {
                Param::Any => Ok(Value::Nil),
                Param::List => Ok(Value::List(List { elem: Type::Interface, items: Default::default(), nil: true })),
                Param::Map => Ok(Value::Map(Map { elem: Type::Interface, entries: Default::default(), nil: true })),
                _ => Err(self.errorf(format!("invalid value; expected {ty}"))),
            };
        }
        if assignable(&v, p) {
            return Ok(v);
        }
        let got = match &v {
            Value::Nil => "interface {}".to_string(),
            v => v.type_name(),
        };
        Err(self.errorf(format!("wrong type for value; expected {ty}; got {got}")))
    }

    /// Go's `evalFunction` + `evalCall`: `args` excludes the function name.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn eval_function(
        &mut self,
        dot: &Value,
        ident: &'t Arg,
        call_at: At<'t>,
        name: &str,
        func: FuncRef,
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        self.at = At::Arg(ident);
        match func {
            FuncRef::Table(f) => self.call_table(dot, call_at, f, args, fin),
            FuncRef::Builtin(b) => self.call_builtin(dot, call_at, name, b, args, fin),
        }
    }

    /// Checks the argument count and evaluates the arguments for a signature.
    pub(super) fn eval_args(
        &mut self,
        dot: &Value,
        name: &str,
        sig: Sig<'_>,
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Vec<Value>> {
        let num_in = args.len() + usize::from(fin.is_some());
        let num_fixed = sig.len();
        let variadic = sig.variadic();
        match variadic {
            Some(_) if num_in < num_fixed => {
                return Err(self
                    .errorf(format!("wrong number of args for {name}: want at least {num_fixed} got {}", args.len())));
            }
            None if num_in != num_fixed => {
                return Err(self.errorf(format!("wrong number of args for {name}: want {num_fixed} got {num_in}")));
            }
            _ => {}
        }
        let mut argv = Vec::with_capacity(num_in);
        for (i, a) in args.iter().enumerate() {
            let ty = if i < num_fixed { sig.at(i) } else { variadic.unwrap_or(ArgType::Reflect) };
            argv.push(self.eval_arg(dot, ty, a)?);
        }
        if let Some(f) = fin {
            let ty = match variadic {
                Some(v) if num_in > num_fixed => v,
                Some(_) => sig.at(num_in - 1),
                None => sig.at(num_fixed - 1),
            };
            argv.push(self.validate_type(f, ty)?);
        }
        Ok(argv)
    }

    fn call_table(
        &mut self,
        dot: &Value,
        call_at: At<'t>,
        f: &'static Func,
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        let argv = self.eval_args(dot, f.name, Sig::Table(f), args, fin)?;
        // Work that does not show in the result (key generation, hashing) is paid up front,
        // so a call the run's budget cannot pay for never starts.
        let upfront = crate::funcs::cost::before(f.name, &argv);
        if upfront > 0 {
            self.at = call_at;
            self.spend(upfront)?;
        }
        let mut ctx = Ctx { limits: self.limits, crs: self.crs };
        let mut argv = argv;
        if let Some(result) = crate::funcs::lists::grow_in_place(&mut ctx, f.name, &mut argv) {
            // Only the new elements were built: that is what the budget pays (one step each).
            self.at = call_at;
            return match result {
                Ok((v, added)) => {
                    self.spend(added)?;
                    Ok(v)
                }
                Err(e) => Err(self.func_error(f.name, e)),
            };
        }
        // Go's `safeCall` turns a panicking function into `error calling X: …`; a panic in a
        // library function (a bug, reached by untrusted input) must not take the process down.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (f.imp)(&mut ctx, &argv)))
            .unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "internal error".into());
                Err(FuncError::Msg(format!("internal error: {msg}")))
            });
        match result {
            Ok(v) => {
                self.at = call_at;
                self.spend(crate::funcs::cost::after(&v))?;
                Ok(v)
            }
            Err(e) => {
                self.at = call_at;
                Err(self.func_error(f.name, e))
            }
        }
    }

    fn call_builtin(
        &mut self,
        dot: &Value,
        call_at: At<'t>,
        name: &str,
        b: Builtin,
        args: &'t [Arg],
        fin: Option<Value>,
    ) -> R<Value> {
        use ArgType::Reflect;
        const ANY: ArgType = ArgType::P(Param::Any);
        let (params, variadic): (&[ArgType], Option<ArgType>) = match b {
            Builtin::And | Builtin::Or | Builtin::Call | Builtin::Index | Builtin::Slice | Builtin::Eq => {
                (&[Reflect], Some(Reflect))
            }
            Builtin::Not | Builtin::Len => (&[Reflect], None),
            Builtin::Html | Builtin::Js | Builtin::UrlQuery | Builtin::Print | Builtin::Println => (&[], Some(ANY)),
            Builtin::Printf => (&[ArgType::P(Param::String)], Some(ANY)),
            Builtin::Ne | Builtin::Lt | Builtin::Le | Builtin::Gt | Builtin::Ge => (&[Reflect, Reflect], None),
        };
        if matches!(b, Builtin::And | Builtin::Or) {
            // Short-circuit: operands are evaluated left to right until one decides.
            let num_in = args.len() + usize::from(fin.is_some());
            if num_in < 1 {
                return Err(self.errorf(format!("wrong number of args for {name}: want at least 1 got {}", args.len())));
            }
            let want = b == Builtin::Or;
            let mut v = Value::Invalid;
            for a in args {
                v = self.eval_arg(dot, Reflect, a)?;
                if super::builtins::truth(&v) == want {
                    return Ok(v);
                }
            }
            if let Some(f) = fin {
                v = f;
            }
            return Ok(v);
        }
        let argv = self.eval_args(dot, name, Sig::Builtin(params, variadic), args, fin)?;
        match super::builtins::call(b, &argv, args) {
            // `print $s $s` in a loop doubles a string per step: bound what builtins build.
            Ok(Value::String(s)) if s.len() > self.limits.max_string_len => {
                self.at = call_at;
                Err(self.fail(
                    ErrorKind::Limit,
                    format!("error calling {name}: result exceeds the limit of {} bytes", self.limits.max_string_len),
                ))
            }
            Ok(v) => {
                self.at = call_at;
                self.spend(crate::funcs::cost::after(&v))?;
                Ok(v)
            }
            Err(m) => {
                self.at = call_at;
                Err(self.errorf(format!("error calling {name}: {m}")))
            }
        }
    }
}

/// A function signature: a table entry's Go parameter types or a builtin's.
#[derive(Clone, Copy)]
pub(super) enum Sig<'a> {
    Table(&'static Func),
    Method(&'static [Param], Option<Param>),
    Builtin(&'a [ArgType], Option<ArgType>),
}

impl Sig<'_> {
    fn len(&self) -> usize {
        match self {
            Sig::Table(f) => f.params.len(),
            Sig::Method(p, _) => p.len(),
            Sig::Builtin(p, _) => p.len(),
        }
    }
    fn at(&self, i: usize) -> ArgType {
        match self {
            Sig::Table(f) => ArgType::P(f.params[i]),
            Sig::Method(p, _) => ArgType::P(p[i]),
            Sig::Builtin(p, _) => p[i],
        }
    }
    fn variadic(&self) -> Option<ArgType> {
        match self {
            Sig::Table(f) => f.variadic.map(ArgType::P),
            Sig::Method(_, v) => v.map(ArgType::P),
            Sig::Builtin(_, v) => *v,
        }
    }
}

/// Go's `reflect.Value.SetInt` on a narrower integer type keeps the low bits.
fn wrap_int(i: i64, k: IntKind) -> i64 {
    match k {
        IntKind::Int8 => i as i8 as i64,
        IntKind::Int16 => i as i16 as i64,
        IntKind::Int32 => i as i32 as i64,
        _ => i,
    }
}

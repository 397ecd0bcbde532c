//! The names an expression sees: the render's context and `now`, bindings of `$let`,
//! `$map` and the other loops in nested scopes, then json-e's builtins.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::fromnow;
use super::value::{Builtin, V};

/// The names visible to an expression: the render's context, then `$let`, `$map`, ...
/// bindings in nested scopes.
pub(crate) struct Scope<'a> {
    vars: Vec<(Cow<'a, str>, V<'a>)>,
    parent: Option<&'a Scope<'a>>,
    root: &'a Root<'a>,
}

/// The outermost names: the caller's context and `now`, then the builtins.
pub(crate) struct Root<'a> {
    pub(crate) context: &'a Map<String, Value>,
    /// The render's one `now`, formatted on first use: most templates never read it.
    pub(crate) now: std::cell::OnceCell<Value>,
    /// A fixed `now` (json-e's test suite); the clock's otherwise.
    pub(crate) fixed_now: Option<&'a str>,
}

impl Root<'_> {
    fn now(&self) -> &Value {
        self.now
            .get_or_init(|| Value::String(self.fixed_now.map_or_else(fromnow::now, str::to_owned)))
    }
}

impl<'a> Scope<'a> {
    pub(crate) fn root(root: &'a Root<'a>) -> Self {
        Scope {
            vars: Vec::new(),
            parent: None,
            root,
        }
    }

    pub(crate) fn child(&'a self) -> Scope<'a> {
        Scope {
            vars: Vec::new(),
            parent: Some(self),
            root: self.root,
        }
    }

    pub(crate) fn bind(&mut self, name: impl Into<Cow<'a, str>>, value: V<'a>) {
        self.vars.push((name.into(), value));
    }

    pub(crate) fn get(&self, name: &str) -> Option<V<'_>> {
        let mut scope = Some(self);
        while let Some(current) = scope {
            if let Some((_, value)) = current.vars.iter().rev().find(|(n, _)| n == name) {
                return Some(match value {
                    V::Json(json) => V::borrowed(json.as_ref()),
                    V::Func(f) => V::Func(*f),
                });
            }
            scope = current.parent;
        }
        if name == "now" {
            return Some(V::borrowed(self.root.now()));
        }
        // Compared, not hashed: a context has a few names, and a debug build hashes a name
        // at about 2 K instructions.
        if let Some((_, value)) = self.root.context.iter().find(|(key, _)| *key == name) {
            return Some(V::borrowed(value));
        }
        Builtin::named(name).map(V::Func)
    }

    pub(crate) fn now(&self) -> &str {
        match self.get("now") {
            Some(V::Json(Cow::Borrowed(Value::String(now)))) => now,
            _ => self.root.now().as_str().unwrap_or_default(),
        }
    }
}

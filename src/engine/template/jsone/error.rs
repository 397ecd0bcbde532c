//! Render errors, in json-e's three kinds plus the budget's own.

use std::fmt;

/// What went wrong, in json-e's terms: the kind tells a template that can never render
/// (syntax, template structure, a limit) from one that failed on this call's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The expression does not parse.
    Syntax,
    /// The template's structure is wrong (an operator's properties, a value's type).
    Template,
    /// Evaluating an expression failed on the data it was given.
    Interpreter,
    /// A builtin function was called with arguments it does not take.
    Builtin,
    /// A resource limit: nesting, length, steps, time or output size.
    Limit,
}

/// A render error with json-e's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    pub(crate) kind: Kind,
    pub(crate) message: String,
    /// Set for a reference to a name the context does not have: an interpreter error that no
    /// arguments can fix (only `args` and the script's names exist).
    pub(crate) unknown_name: bool,
}

impl Error {
    fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            unknown_name: false,
        }
    }

    pub(crate) fn syntax(message: impl Into<String>) -> Self {
        Error::new(Kind::Syntax, message)
    }

    pub(crate) fn template(message: impl Into<String>) -> Self {
        Error::new(Kind::Template, message)
    }

    pub(crate) fn interpreter(message: impl Into<String>) -> Self {
        Error::new(Kind::Interpreter, message)
    }

    pub(crate) fn builtin(message: impl Into<String>) -> Self {
        Error::new(Kind::Builtin, message)
    }

    pub(crate) fn limit(message: impl Into<String>) -> Self {
        Error::new(Kind::Limit, message)
    }

    pub(crate) fn unknown(name: &str) -> Self {
        Error {
            unknown_name: true,
            ..Error::interpreter(format!("unknown context value {name}"))
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            Kind::Syntax => "SyntaxError",
            Kind::Template => "TemplateError",
            Kind::Interpreter => "InterpreterError",
            Kind::Builtin => "BuiltinError",
            Kind::Limit => "LimitError",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

impl std::error::Error for Error {}

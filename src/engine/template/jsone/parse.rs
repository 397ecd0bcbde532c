//! The expression language: a lexer and a precedence-climbing parser, linear in the length of
//! the expression and bounded in nesting. (The json-e crate's combinator parser re-parses each
//! operand on backtracking, so its time doubles with every level of parentheses, and it
//! recurses without a limit: 24 levels took 20 s, 1,000 overflowed the stack.)

use super::error::Error;

/// The deepest an expression may nest: brackets, calls, unary and binary operators all count.
pub(crate) const MAX_DEPTH: usize = 128;
/// The longest expression accepted, in bytes.
pub(crate) const MAX_LEN: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Or,
    And,
    In,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    Not,
    Neg,
    Plus,
}

/// A parsed expression, borrowing names and strings from its source.
#[derive(Debug, Clone)]
pub(crate) enum Node<'s> {
    Number(f64),
    Str(&'s str),
    Ident(&'s str),
    Bool(bool),
    Null,
    Array(Vec<Node<'s>>),
    Object(Vec<(&'s str, Node<'s>)>),
    Unary(UnOp, Box<Node<'s>>),
    Binary(Box<Node<'s>>, BinOp, Box<Node<'s>>),
    Index(Box<Node<'s>>, Box<Node<'s>>),
    Slice(Box<Node<'s>>, Option<Box<Node<'s>>>, Option<Box<Node<'s>>>),
    Dot(Box<Node<'s>>, &'s str),
    Call(Box<Node<'s>>, Vec<Node<'s>>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'s> {
    Number(&'s str),
    Str(&'s str),
    Ident(&'s str),
    Punct(&'static str),
    End,
}

/// Parses a whole string as one expression (`$eval`, `$if`, ...).
pub(crate) fn parse_all(source: &str) -> Result<Node<'_>, Error> {
    check_len(source)?;
    let mut parser = Parser::new(source, 0);
    let node = parser.expression()?;
    match parser.next()? {
        (Tok::End, _) => Ok(node),
        (token, at) => Err(parser.unexpected(token, at)),
    }
}

/// Parses the expression of a `${...}` that starts at byte `start` of `source`; returns it and
/// the offset just past its closing `}`.
pub(crate) fn parse_interpolation(source: &str, start: usize) -> Result<(Node<'_>, usize), Error> {
    let mut parser = Parser::new(source, start);
    let node = parser.expression()?;
    match parser.next()? {
        (Tok::Punct("}"), _) => {
            check_len(&source[start..parser.pos])?;
            Ok((node, parser.pos))
        }
        _ => Err(Error::syntax("unterminated ${..} expression")),
    }
}

fn check_len(source: &str) -> Result<(), Error> {
    if source.len() > MAX_LEN {
        return Err(Error::limit(format!(
            "an expression is {} bytes long; the limit is {MAX_LEN}",
            source.len()
        )));
    }
    Ok(())
}

struct Parser<'s> {
    src: &'s str,
    pos: usize,
    peeked: Option<(Tok<'s>, usize, usize)>,
    level: usize,
}

const PUNCT: [&str; 23] = [
    "**", "<=", ">=", "==", "!=", "&&", "||", "*", "/", "+", "-", "<", ">", "!", ".", "[", "]",
    "(", ")", "{", "}", ",", ":",
];

impl<'s> Parser<'s> {
    fn new(src: &'s str, pos: usize) -> Self {
        Parser {
            src,
            pos,
            peeked: None,
            level: 0,
        }
    }

    fn lex(&self, mut at: usize) -> Result<(Tok<'s>, usize, usize), Error> {
        let bytes = self.src.as_bytes();
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
            at += 1;
        }
        let start = at;
        let Some(&first) = bytes.get(at) else {
            return Ok((Tok::End, start, at));
        };
        let token = match first {
            b'0'..=b'9' => {
                while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                    at += 1;
                }
                if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                {
                    at += 1;
                    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                        at += 1;
                    }
                }
                Tok::Number(&self.src[start..at])
            }
            b'"' | b'\'' => {
                let Some(len) = self.src[at + 1..].find(first as char) else {
                    return Err(Error::syntax(format!(
                        "unterminated string starting at offset {start}"
                    )));
                };
                at += len + 2;
                Tok::Str(&self.src[start + 1..at - 1])
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    at += 1;
                }
                Tok::Ident(&self.src[start..at])
            }
            _ => {
                let rest = &self.src[at..];
                let Some(punct) = PUNCT.iter().find(|p| rest.starts_with(**p)) else {
                    let c = rest.chars().next().unwrap_or('?');
                    return Err(Error::syntax(format!(
                        "unexpected character `{c}` at offset {start}"
                    )));
                };
                at += punct.len();
                Tok::Punct(punct)
            }
        };
        Ok((token, start, at))
    }

    fn peek(&mut self) -> Result<Tok<'s>, Error> {
        if let Some((token, _, _)) = self.peeked {
            return Ok(token);
        }
        let lexed = self.lex(self.pos)?;
        self.peeked = Some(lexed);
        Ok(lexed.0)
    }

    fn next(&mut self) -> Result<(Tok<'s>, usize), Error> {
        let (token, start, end) = match self.peeked.take() {
            Some(lexed) => lexed,
            None => self.lex(self.pos)?,
        };
        self.pos = end;
        Ok((token, start))
    }

    fn expect(&mut self, punct: &'static str) -> Result<(), Error> {
        match self.next()? {
            (Tok::Punct(p), _) if p == punct => Ok(()),
            (token, at) => Err(self.unexpected(token, at)),
        }
    }

    fn eat(&mut self, punct: &'static str) -> Result<bool, Error> {
        if self.peek()? == Tok::Punct(punct) {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn unexpected(&self, token: Tok<'_>, at: usize) -> Error {
        let found = match token {
            Tok::End => "the end of the expression".to_owned(),
            Tok::Number(n) => format!("`{n}`"),
            Tok::Str(s) => format!("the string `{s}`"),
            Tok::Ident(i) => format!("`{i}`"),
            Tok::Punct(p) => format!("`{p}`"),
        };
        Error::syntax(format!("found {found} at offset {at}"))
    }

    /// Every recursion passes here, so no input can nest the parser (or the evaluator that
    /// walks its tree) deeper than [`MAX_DEPTH`].
    fn enter(&mut self) -> Result<(), Error> {
        self.level += 1;
        if self.level > MAX_DEPTH {
            return Err(Error::limit(format!(
                "an expression nests deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(())
    }

    fn expression(&mut self) -> Result<Node<'s>, Error> {
        self.binary(0)
    }

    fn binary(&mut self, min: u8) -> Result<Node<'s>, Error> {
        self.enter()?;
        let mut lhs = self.power()?;
        // A left-associative chain deepens the tree without recursing: count each link.
        let level = self.level;
        while let Some((op, prec)) = self.binary_op()? {
            if prec < min {
                break;
            }
            self.next()?;
            let rhs = self.binary(prec + 1)?;
            lhs = Node::Binary(Box::new(lhs), op, Box::new(rhs));
            self.enter()?;
        }
        self.level = level - 1;
        Ok(lhs)
    }

    fn binary_op(&mut self) -> Result<Option<(BinOp, u8)>, Error> {
        Ok(Some(match self.peek()? {
            Tok::Punct("||") => (BinOp::Or, 1),
            Tok::Punct("&&") => (BinOp::And, 2),
            Tok::Ident("in") => (BinOp::In, 3),
            Tok::Punct("==") => (BinOp::Eq, 4),
            Tok::Punct("!=") => (BinOp::Ne, 4),
            Tok::Punct("<") => (BinOp::Lt, 5),
            Tok::Punct("<=") => (BinOp::Le, 5),
            Tok::Punct(">") => (BinOp::Gt, 5),
            Tok::Punct(">=") => (BinOp::Ge, 5),
            Tok::Punct("+") => (BinOp::Add, 6),
            Tok::Punct("-") => (BinOp::Sub, 6),
            Tok::Punct("*") => (BinOp::Mul, 7),
            Tok::Punct("/") => (BinOp::Div, 7),
            _ => return Ok(None),
        }))
    }

    /// `**` is right-associative and binds tighter than `*`.
    fn power(&mut self) -> Result<Node<'s>, Error> {
        let base = self.postfix()?;
        if self.eat("**")? {
            self.enter()?;
            let exponent = self.power()?;
            self.level -= 1;
            return Ok(Node::Binary(Box::new(base), BinOp::Pow, Box::new(exponent)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<Node<'s>, Error> {
        let level = self.level;
        let mut node = self.unary()?;
        loop {
            node = match self.peek()? {
                Tok::Punct(".") => {
                    self.next()?;
                    match self.next()? {
                        (Tok::Ident(name), _) => Node::Dot(Box::new(node), name),
                        (token, at) => return Err(self.unexpected(token, at)),
                    }
                }
                Tok::Punct("[") => {
                    self.next()?;
                    self.index(node)?
                }
                Tok::Punct("(") => {
                    self.next()?;
                    let args = self.list(")")?;
                    Node::Call(Box::new(node), args)
                }
                _ => break,
            };
            self.enter()?;
        }
        self.level = level;
        Ok(node)
    }

    fn index(&mut self, target: Node<'s>) -> Result<Node<'s>, Error> {
        let target = Box::new(target);
        let from = if self.peek()? == Tok::Punct(":") {
            None
        } else {
            Some(Box::new(self.expression()?))
        };
        if self.eat(":")? {
            let to = if self.peek()? == Tok::Punct("]") {
                None
            } else {
                Some(Box::new(self.expression()?))
            };
            self.expect("]")?;
            return Ok(Node::Slice(target, from, to));
        }
        self.expect("]")?;
        match from {
            Some(index) => Ok(Node::Index(target, index)),
            None => Err(Error::syntax("an index needs an expression")),
        }
    }

    fn list(&mut self, close: &'static str) -> Result<Vec<Node<'s>>, Error> {
        let mut items = Vec::new();
        if self.eat(close)? {
            return Ok(items);
        }
        loop {
            items.push(self.expression()?);
            if self.eat(close)? {
                return Ok(items);
            }
            self.expect(",")?;
        }
    }

    fn unary(&mut self) -> Result<Node<'s>, Error> {
        let op = match self.peek()? {
            Tok::Punct("!") => UnOp::Not,
            Tok::Punct("-") => UnOp::Neg,
            Tok::Punct("+") => UnOp::Plus,
            _ => return self.value(),
        };
        self.next()?;
        self.enter()?;
        let operand = self.unary()?;
        self.level -= 1;
        Ok(Node::Unary(op, Box::new(operand)))
    }

    fn value(&mut self) -> Result<Node<'s>, Error> {
        let (token, at) = self.next()?;
        Ok(match token {
            Tok::Number(text) => Node::Number(
                text.parse()
                    .map_err(|_| Error::syntax(format!("`{text}` is not a number")))?,
            ),
            Tok::Str(text) => Node::Str(text),
            Tok::Ident("true") => Node::Bool(true),
            Tok::Ident("false") => Node::Bool(false),
            Tok::Ident("null") => Node::Null,
            Tok::Ident(name) => Node::Ident(name),
            // Brackets recurse through `expression`, which counts the level.
            Tok::Punct("(") => {
                let inner = self.expression()?;
                self.expect(")")?;
                inner
            }
            Tok::Punct("[") => Node::Array(self.list("]")?),
            Tok::Punct("{") => self.object()?,
            token => return Err(self.unexpected(token, at)),
        })
    }

    fn object(&mut self) -> Result<Node<'s>, Error> {
        let mut entries = Vec::new();
        if self.eat("}")? {
            return Ok(Node::Object(entries));
        }
        loop {
            let key = match self.next()? {
                (Tok::Str(key) | Tok::Ident(key), _) => key,
                (token, at) => return Err(self.unexpected(token, at)),
            };
            self.expect(":")?;
            entries.push((key, self.expression()?));
            if self.eat("}")? {
                return Ok(Node::Object(entries));
            }
            self.expect(",")?;
        }
    }
}

/// Whether `name` is a json-e identifier (`$let` keys, context keys, `each(..)` names).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !matches!(name, "true" | "false" | "null" | "in")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_past_the_limit_is_a_limit_error_not_a_stack_overflow() {
        for (open, close) in [
            ("(", ")"),
            ("[", "]"),
            ("str(", ")"),
            ("{a:", "}"),
            ("-", ""),
        ] {
            let deep = format!("{}1{}", open.repeat(10_000), close.repeat(10_000));
            let error = parse_all(&deep).expect_err("too deep");
            assert!(error.message.contains("nests deeper"), "{open}: {error}");
        }
        let chain = vec!["1"; 10_000].join("+");
        assert!(
            parse_all(&chain)
                .expect_err("too long a chain")
                .message
                .contains("nests")
        );
        let dots = format!("args{}", ".a".repeat(10_000));
        assert!(parse_all(&dots).is_err());
        let power = vec!["2"; 10_000].join("**");
        assert!(parse_all(&power).is_err());
    }

    #[test]
    fn nesting_within_the_limit_parses_in_linear_time() {
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(parse_all(&deep).is_ok());
        let wide = vec!["(((((1)))))"; 1_000].join(",");
        assert!(parse_all(&format!("[{wide}]")).is_ok());
    }
}

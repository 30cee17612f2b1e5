//! The element path grammar: `window[0]/group[1]/button["Save"]`.
//!
//! A path is relative to an app and walks the raw tree by child steps. `role[N]` is the N-th
//! child of that role (counting from 0); `role["title"]` is the first child of that role
//! with that title. Inside quotes, `"` and `\` are escaped with a backslash. Roles are the
//! normalised snake_case names. [`ElementPath::parse`] and `Display` round-trip.

use std::fmt;

use crate::role::Role;

/// How a step picks among the children of one role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    Index(usize),
    Title(String),
}

/// One child step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub role: Role,
    pub selector: Selector,
}

/// A parsed element path. The empty path names the application element.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ElementPath {
    pub steps: Vec<Step>,
}

/// Why a path did not parse; `at` is a byte offset into the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad element path at byte {at}: {message}. Expected steps like window[0]/button[\"Save\"]")]
pub struct PathError {
    pub at: usize,
    pub message: String,
}

impl ElementPath {
    pub fn parse(input: &str) -> Result<ElementPath, PathError> {
        let mut parser = Parser { src: input, pos: 0 };
        let mut steps = Vec::new();
        if input.is_empty() {
            return Ok(ElementPath { steps });
        }
        loop {
            steps.push(parser.step()?);
            match parser.peek() {
                None => break,
                Some('/') => parser.pos += 1,
                Some(c) => return Err(parser.error(format!("unexpected {c:?} after a step"))),
            }
        }
        Ok(ElementPath { steps })
    }

    /// The path of a child of `self`.
    pub fn child(&self, step: Step) -> ElementPath {
        let mut steps = self.steps.clone();
        steps.push(step);
        ElementPath { steps }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.selector {
            Selector::Index(i) => write!(f, "{}[{i}]", self.role),
            Selector::Title(t) => {
                write!(f, "{}[\"", self.role)?;
                for c in t.chars() {
                    if c == '"' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("\"]")
            }
        }
    }
}

impl fmt::Display for ElementPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn error(&self, message: String) -> PathError {
        PathError {
            at: self.pos,
            message,
        }
    }

    fn expect(&mut self, want: char) -> Result<(), PathError> {
        match self.peek() {
            Some(c) if c == want => {
                self.pos += c.len_utf8();
                Ok(())
            }
            Some(c) => Err(self.error(format!("expected {want:?}, found {c:?}"))),
            None => Err(self.error(format!("expected {want:?}, found the end"))),
        }
    }

    fn step(&mut self) -> Result<Step, PathError> {
        let start = self.pos;
        let len = self.src[start..]
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(self.src.len() - start);
        let name = &self.src[start..start + len];
        if name.is_empty() {
            return Err(self.error("expected a role name such as button".into()));
        }
        let role = Role::parse(name).ok_or_else(|| PathError {
            at: start,
            message: format!("unknown role {name:?}"),
        })?;
        self.pos += len;
        self.expect('[')?;
        let selector = match self.peek() {
            Some('"') => Selector::Title(self.quoted()?),
            Some(c) if c.is_ascii_digit() => Selector::Index(self.index()?),
            _ => return Err(self.error("expected an index or a quoted title inside [ ]".into())),
        };
        self.expect(']')?;
        Ok(Step { role, selector })
    }

    fn index(&mut self) -> Result<usize, PathError> {
        let start = self.pos;
        let len = self.src[start..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.src.len() - start);
        self.pos += len;
        self.src[start..start + len].parse().map_err(|_| PathError {
            at: start,
            message: "index out of range".into(),
        })
    }

    fn quoted(&mut self) -> Result<String, PathError> {
        self.expect('"')?;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("unterminated quoted title".into()));
            };
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => match self.peek() {
                    Some(e @ ('"' | '\\')) => {
                        self.pos += 1;
                        out.push(e);
                    }
                    _ => return Err(self.error("only \\\" and \\\\ are escapes".into())),
                },
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expect: Result<&str, usize>) {
        match (ElementPath::parse(input), expect) {
            (Ok(path), Ok(text)) => assert_eq!(path.to_string(), text, "{input}"),
            (Err(e), Err(at)) => assert_eq!(e.at, at, "{input}: {e}"),
            (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn parses_and_formats() {
        check(
            "window[0]/group[1]/button[\"Save\"]",
            Ok("window[0]/group[1]/button[\"Save\"]"),
        );
        check(
            "window[\"Untitled\"]/text_field[0]",
            Ok("window[\"Untitled\"]/text_field[0]"),
        );
        check(
            "button[\"say \\\"hi\\\" \\\\ bye\"]",
            Ok("button[\"say \\\"hi\\\" \\\\ bye\"]"),
        );
        check("", Ok(""));
        check("menu_item[\"Save As…\"]", Ok("menu_item[\"Save As…\"]"));
    }

    #[test]
    fn rejects_with_position() {
        check("window", Err(6));
        check("window[x]", Err(7));
        check("widget[0]", Err(0));
        check("window[0]/", Err(10));
        check("window[0]button[1]", Err(9));
        check("button[\"open", Err(12));
        check("button[\"a\\n\"]", Err(10));
        check("window[99999999999999999999999]", Err(7));
    }

    proptest::proptest! {
        #[test]
        fn format_then_parse_round_trips(
            steps in proptest::collection::vec(
                (0..Role::ALL.len(), proptest::option::of(0usize..50), ".{0,12}"),
                0..6,
            )
        ) {
            let path = ElementPath {
                steps: steps
                    .into_iter()
                    .map(|(r, i, t)| Step {
                        role: Role::ALL[r],
                        selector: i.map_or(Selector::Title(t), Selector::Index),
                    })
                    .collect(),
            };
            let text = path.to_string();
            proptest::prop_assert_eq!(ElementPath::parse(&text), Ok(path));
        }

        #[test]
        fn arbitrary_input_never_panics(input in ".{0,64}") {
            let _ = ElementPath::parse(&input);
        }
    }
}

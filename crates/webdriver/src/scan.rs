//! The one lexer of the selector languages [`crate::predicate`] and [`crate::xpath`]: they
//! differ in what a word, a number and a symbol may be (each says so in a [`Lexicon`]), not
//! in how text is walked, so the walk ([`Scan`]) and the token type are written once.

/// A token of either language.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A name, key or keyword (XPath: with its `prefix:`).
    Word(String),
    /// A quoted string, quotes removed.
    Str(String),
    Num(f64),
    Sym(&'static str),
}

/// What one language's tokens may be.
pub(crate) struct Lexicon {
    /// A backslash in a quoted string takes the next character as it is.
    pub(crate) escapes: bool,
    /// The character other than a digit that starts a number when a digit follows it.
    pub(crate) number_lead: char,
    /// Whether a word starts at this character.
    pub(crate) word_start: fn(char) -> bool,
    /// Reads the word under the cursor.
    pub(crate) word: fn(&mut Scan) -> String,
    /// The symbols, each before the shorter ones it starts with.
    pub(crate) symbols: &'static [&'static str],
}

/// The tokens of `text`, or why it is not made of them.
pub(crate) fn lex(text: &str, lexicon: &Lexicon) -> Result<Vec<Tok>, String> {
    let mut scan = Scan::new(text);
    let mut out = Vec::new();
    while let Some(c) = scan.next_token_start() {
        let lead = c == lexicon.number_lead && scan.peek(1).is_some_and(|c| c.is_ascii_digit());
        out.push(if c == '\'' || c == '"' {
            let quoted = scan.quoted(lexicon.escapes);
            Tok::Str(quoted.ok_or("a quoted string is not closed")?)
        } else if c.is_ascii_digit() || lead {
            let first = usize::from(lead && lexicon.number_lead == '-');
            Tok::Num(scan.number(first).ok_or("a number is malformed")?)
        } else if (lexicon.word_start)(c) {
            Tok::Word((lexicon.word)(&mut scan))
        } else {
            let symbol = scan.symbol(lexicon.symbols);
            Tok::Sym(symbol.ok_or_else(|| format!("unexpected character {c:?}"))?)
        });
    }
    Ok(out)
}

/// The characters of one selector and the place read up to.
pub(crate) struct Scan {
    chars: Vec<char>,
    at: usize,
}

impl Scan {
    pub(crate) fn new(text: &str) -> Scan {
        Scan {
            chars: text.chars().collect(),
            at: 0,
        }
    }

    /// The next character that is not white space, passing over the white space; `None` at
    /// the end.
    pub(crate) fn next_token_start(&mut self) -> Option<char> {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.at += 1;
        }
        self.peek(0)
    }

    /// The character `ahead` places after the cursor.
    pub(crate) fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Moves past `count` characters.
    pub(crate) fn skip(&mut self, count: usize) {
        self.at = (self.at + count).min(self.chars.len());
    }

    /// Takes `first` characters, then as many more as `more` accepts; what was taken.
    pub(crate) fn take(&mut self, first: usize, more: impl Fn(char) -> bool) -> String {
        let start = self.at;
        self.skip(first);
        while self.peek(0).is_some_and(&more) {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// A number's digits and dots, `first` characters (a sign, a leading digit) included.
    pub(crate) fn number(&mut self, first: usize) -> Option<f64> {
        self.take(first, |c| c.is_ascii_digit() || c == '.')
            .parse()
            .ok()
    }

    /// The string quoted by the character under the cursor, the cursor past its closing
    /// quote. With `escapes`, a backslash takes the next character as it is. `None` when
    /// the quote is not closed.
    pub(crate) fn quoted(&mut self, escapes: bool) -> Option<String> {
        let quote = self.peek(0)?;
        let mut out = String::new();
        self.at += 1;
        loop {
            let c = self.peek(0)?;
            self.at += 1;
            match c {
                '\\' if escapes => {
                    out.extend(self.peek(0));
                    self.skip(1);
                }
                c if c == quote => return Some(out),
                c => out.push(c),
            }
        }
    }

    /// The first of `symbols` that the text under the cursor starts with, the cursor past
    /// it; list longer symbols before their prefixes.
    pub(crate) fn symbol(&mut self, symbols: &[&'static str]) -> Option<&'static str> {
        let symbol = *symbols
            .iter()
            .find(|s| s.chars().enumerate().all(|(n, c)| self.peek(n) == Some(c)))?;
        self.skip(symbol.chars().count());
        Some(symbol)
    }
}

#[cfg(test)]
mod tests {
    use super::Scan;

    #[test]
    fn tokens_are_walked_over_white_space_quotes_numbers_and_symbols() {
        let mut scan = Scan::new("  'a\\'b' \"c\\d\" -1.5 <= <");
        assert_eq!(scan.next_token_start(), Some('\''));
        assert_eq!(scan.quoted(true).as_deref(), Some("a'b"));
        assert_eq!(scan.next_token_start(), Some('"'));
        assert_eq!(scan.quoted(false).as_deref(), Some("c\\d"));
        assert_eq!(scan.next_token_start(), Some('-'));
        assert_eq!(scan.number(1), Some(-1.5));
        scan.next_token_start();
        assert_eq!(scan.symbol(&["<=", "<"]), Some("<="));
        scan.next_token_start();
        assert_eq!(scan.symbol(&["<=", "<"]), Some("<"));
        assert_eq!(scan.next_token_start(), None);
    }

    #[test]
    fn an_unclosed_quote_and_a_malformed_number_are_none() {
        assert_eq!(Scan::new("'open").quoted(false), None);
        assert_eq!(Scan::new("'open\\'").quoted(true), None);
        assert_eq!(Scan::new("1.2.3").number(0), None);
        assert_eq!(Scan::new("?").symbol(&["<"]), None);
    }
}

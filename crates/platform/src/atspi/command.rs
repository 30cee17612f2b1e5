//! Splitting a `launch_app` spec into a program and its arguments, shell-style but without a
//! shell: words separated by whitespace, `'…'` and `"…"` quoting, backslash escapes outside
//! single quotes. Nothing is expanded. Plain logic.

/// The words of a command line; an error for an empty line or an unclosed quote.
pub(super) fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed ' in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err(format!("unclosed \" in {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unclosed \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("the command is empty".to_owned());
    }
    Ok(words)
}

/// The name an app started by `program` most likely has on the desktop: its file name.
pub(super) fn program_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_quotes_and_escapes() {
        assert_eq!(
            split("gtk3-widget-factory").unwrap(),
            ["gtk3-widget-factory"]
        );
        assert_eq!(
            split("/usr/bin/python3  'my app.py' \"a \\\"b\\\"\" c\\ d ''").unwrap(),
            ["/usr/bin/python3", "my app.py", "a \"b\"", "c d", ""]
        );
        assert!(split("   ").is_err());
        assert!(split("x 'y").is_err());
        assert_eq!(program_name("/usr/bin/gtk3-demo"), "gtk3-demo");
        assert_eq!(program_name("gedit"), "gedit");
    }
}

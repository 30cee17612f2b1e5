//! `axgate audit verify`: checks the hash chain of trail files given in chain order (rotated
//! files oldest first, then the current one) and reports either every file's line count or
//! the first break — file, line number and what is wrong.
//!
//! What a break means: when line N's `prev` does not match line N−1, the line that was
//! changed is usually N−1 (its own `prev` still matched, so its content changed after it was
//! written), but lines removed or inserted between them, or an edited `prev` in line N, look
//! the same. A line that is no longer JSON is reported itself. A torn last line — bytes
//! after the last newline, left by a crash mid-write — is reported as a break of its own
//! kind: it was never acknowledged, and opening the trail (starting the server) cuts it away.
//!
//! Retention removes the oldest files after writing a marker line whose `dropped_head` is the
//! hash the oldest kept line chains from; a first line that does not chain from the genesis
//! value is accepted when, and only when, such a marker names its `prev`. With an anchor (the
//! head exported by the writer, `--anchor FILE`), the anchored line must be in the chain:
//! lines cut from the end of the trail are then a break too.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::chain::{GENESIS, line_hash, short};

/// How strict the check is.
#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    /// Accept a first line that chains from an earlier file not given (older rotated files
    /// were removed); by default the first line must chain from the genesis value.
    pub partial: bool,
    /// A head hash taken earlier (the anchor file): the line it is the hash of must be in the
    /// chain.
    pub anchor: Option<String>,
}

/// The head hash in an anchor file (`{"head": "<64 hex digits>", …}`).
pub fn read_anchor(path: &Path) -> io::Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display())))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not an anchor file: {e}", path.display()),
        )
    })?;
    match value.get("head").and_then(Value::as_str) {
        Some(h) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(h.to_owned()),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} has no `head` hash", path.display()),
        )),
    }
}

/// What is wrong at a break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The line is not a JSON object.
    BadJson(String),
    /// The line has no string `prev`.
    NoPrev,
    /// `prev` is not what the chain expects here.
    PrevMismatch {
        expected: String,
        found: String,
        /// Where the expected hash comes from.
        after: Chained,
    },
    /// Bytes after the last newline of a file.
    Torn { bytes: u64, last_file: bool },
    /// The anchored line is not in the chain: lines were cut from its end.
    CutTail { anchor: String },
}

/// What the line at a break should have chained from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chained {
    Genesis,
    /// The last line of the previous file given.
    PreviousFile(PathBuf),
    /// The line before, in the same file.
    PreviousLine,
}

/// The first place the chain breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Break {
    pub path: PathBuf,
    /// 1-based.
    pub line: u64,
    pub problem: Problem,
}

/// The lines of one file that were checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSummary {
    pub path: PathBuf,
    pub lines: u64,
}

/// The outcome of a check: the files read (up to the break) and the break, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub files: Vec<FileSummary>,
    pub broken: Option<Break>,
    /// The hash the first line chained from when it is not the genesis value (with
    /// `partial`, or after retention).
    pub starts_after: Option<String>,
    /// The retention marker that names `starts_after`: file and line.
    pub retained_at: Option<(PathBuf, u64)>,
}

impl Report {
    pub fn intact(&self) -> bool {
        self.broken.is_none()
    }
}

/// Checks `paths` as one chain, in the order given. Errors only when a file cannot be read.
pub fn verify(paths: &[PathBuf], options: VerifyOptions) -> io::Result<Report> {
    let mut report = Report {
        files: Vec::new(),
        broken: None,
        starts_after: None,
        retained_at: None,
    };
    // A first line that chains from something other than the genesis value, until a
    // retention marker names it.
    let mut unexplained_head: Option<String> = None;
    let mut anchor_seen = false;
    let mut expected: Option<String> = None;
    let mut previous_file: Option<&Path> = None;
    for (index, path) in paths.iter().enumerate() {
        let last_file = index + 1 == paths.len();
        let mut reader = BufReader::new(File::open(path).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
        })?);
        let mut lines = 0u64;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let read = reader.read_until(b'\n', &mut buf).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
            })?;
            if read == 0 {
                break;
            }
            let number = lines + 1;
            let fail = |problem| Break {
                path: path.clone(),
                line: number,
                problem,
            };
            let Some(line) = buf.strip_suffix(b"\n") else {
                report.broken = Some(fail(Problem::Torn {
                    bytes: buf.len() as u64,
                    last_file,
                }));
                break;
            };
            let found = match serde_json::from_slice::<Value>(line) {
                Err(e) => Err(Problem::BadJson(e.to_string())),
                Ok(Value::Object(map)) => match map.get("prev") {
                    Some(Value::String(prev)) => Ok((
                        prev.clone(),
                        map.get("dropped_head")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    )),
                    _ => Err(Problem::NoPrev),
                },
                Ok(_) => Err(Problem::BadJson("not an object".into())),
            };
            let (found, dropped_head) = match found {
                Ok(found) => found,
                Err(problem) => {
                    report.broken = Some(fail(problem));
                    break;
                }
            };
            let (want, after) = match (&expected, previous_file) {
                (Some(hash), _) if lines > 0 => (hash.clone(), Chained::PreviousLine),
                (Some(hash), Some(file)) => (hash.clone(), Chained::PreviousFile(file.into())),
                // The first line of the chain.
                _ if options.partial => {
                    if found != GENESIS {
                        report.starts_after = Some(found.clone());
                    }
                    (found.clone(), Chained::Genesis)
                }
                // Accepted for now: a retention marker further on must name it.
                _ if found != GENESIS => {
                    unexplained_head = Some(found.clone());
                    (found.clone(), Chained::Genesis)
                }
                _ => (GENESIS.to_owned(), Chained::Genesis),
            };
            if found != want {
                report.broken = Some(fail(Problem::PrevMismatch {
                    expected: want,
                    found,
                    after,
                }));
                break;
            }
            if dropped_head.is_some() && dropped_head == unexplained_head {
                report.starts_after = unexplained_head.take();
                report.retained_at = Some((path.clone(), number));
            }
            let hash = line_hash(line);
            anchor_seen |= options.anchor.as_deref() == Some(hash.as_str());
            expected = Some(hash);
            lines += 1;
        }
        report.files.push(FileSummary {
            path: path.clone(),
            lines,
        });
        if report.broken.is_some() {
            break;
        }
        if lines > 0 {
            previous_file = Some(path);
        }
    }
    if let Some(found) = unexplained_head {
        // No marker names the head: lines were removed from the start.
        report.files.truncate(1);
        report.broken = Some(Break {
            path: paths[0].clone(),
            line: 1,
            problem: Problem::PrevMismatch {
                expected: GENESIS.to_owned(),
                found,
                after: Chained::Genesis,
            },
        });
    }
    if let Some(anchor) = &options.anchor
        && !anchor_seen
        && report.broken.is_none()
        && let Some(last) = report.files.last()
    {
        report.broken = Some(Break {
            path: last.path.clone(),
            line: last.lines + 1,
            problem: Problem::CutTail {
                anchor: anchor.clone(),
            },
        });
    }
    Ok(report)
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::BadJson(why) => write!(
                f,
                "the line is not valid JSON ({why}): it was altered or corrupted"
            ),
            Problem::NoPrev => {
                f.write_str("the line has no `prev` hash: it is not an audit line or was altered")
            }
            Problem::Torn {
                bytes,
                last_file: true,
            } => write!(
                f,
                "torn last line ({bytes} bytes without a newline): a write cut short by a \
                 crash; it was never acknowledged, and opening the trail (starting axgate) \
                 cuts it away"
            ),
            Problem::Torn { bytes, .. } => write!(
                f,
                "torn line ({bytes} bytes without a newline) at the end of a file that is \
                 not the last given: files given out of order, or the file was cut"
            ),
            Problem::CutTail { anchor } => write!(
                f,
                "the anchored line {}… is not in the trail: lines were cut from its end (or \
                 the anchor belongs to another trail)",
                short(anchor)
            ),
            Problem::PrevMismatch {
                expected,
                found,
                after,
            } => {
                let (found, expected) = (short(found), short(expected));
                match after {
                    Chained::PreviousLine => write!(
                        f,
                        "`prev` is {found}… but the previous line hashes to {expected}…: the \
                         previous line was altered after it was written (its own `prev` still \
                         matched), or lines were removed or inserted between the two, or \
                         this line's `prev` was edited"
                    ),
                    Chained::PreviousFile(file) => write!(
                        f,
                        "`prev` is {found}… but the last line of {} hashes to {expected}…: \
                         files given out of order or one is missing between them, or the \
                         end of {} or this line was altered",
                        file.display(),
                        file.display()
                    ),
                    Chained::Genesis => write!(
                        f,
                        "`prev` is {found}… but the first line of a trail chains from the \
                         genesis value {expected}…: earlier files are missing (give them \
                         first, or pass --partial) or lines were removed from the start"
                    ),
                }
            }
        }
    }
}

/// `ok`/`BROKEN` lines for the command line.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checked = self.files.len() - usize::from(self.broken.is_some());
        for file in &self.files[..checked] {
            writeln!(f, "ok      {} ({} lines)", file.path.display(), file.lines)?;
        }
        match &self.broken {
            Some(b) => writeln!(
                f,
                "BROKEN  {} line {}: {}",
                b.path.display(),
                b.line,
                b.problem
            ),
            None => {
                let lines: u64 = self.files.iter().map(|s| s.lines).sum();
                match (&self.starts_after, &self.retained_at) {
                    (Some(start), Some((file, line))) => writeln!(
                        f,
                        "note: the first line chains from {}…, removed by retention as the \
                         marker at {} line {line} records",
                        short(start),
                        file.display()
                    )?,
                    (Some(start), None) => writeln!(
                        f,
                        "note: the first line chains from {}… (an earlier file, not checked)",
                        short(start)
                    )?,
                    _ => {}
                }
                writeln!(
                    f,
                    "intact: {lines} lines in {} file{}",
                    self.files.len(),
                    if self.files.len() == 1 { "" } else { "s" }
                )
            }
        }
    }
}

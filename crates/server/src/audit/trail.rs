//! The trail on disk: the current file `<path>`, rotated files `<path>.1`, `<path>.2`, …
//! (oldest first, numbers never reused), reading a file's last line without reading the
//! whole file, and opening the current file for appending — which cuts away a torn last
//! line. Trail files are the owner's only (0600); a missing folder is created 0700.
//!
//! A torn line is bytes after the last newline: a write cut short by a crash. Every line is
//! fsync'd before its caller is answered, so a torn line was never acknowledged and removing
//! it loses nothing anyone was told was recorded. Leaving it would put garbage in the middle
//! of the chain once the next line is appended.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::chain::{GENESIS, line_hash};

/// The name of rotated file number `n`: `<path>.<n>`.
pub(crate) fn rotated_path(path: &Path, n: u64) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// The numbers of the rotated files of `path` that exist, ascending.
pub(crate) fn rotated_numbers(path: &Path) -> io::Result<Vec<u64>> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(Vec::new());
    };
    let dir = parent(path);
    let prefix = format!("{name}.");
    let mut numbers = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        if !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = rest.parse::<u64>()
        {
            numbers.push(n);
        }
    }
    numbers.sort_unstable();
    Ok(numbers)
}

/// Every file of the trail at `path` in chain order: rotated files, then the current one
/// (when it exists).
pub fn trail_files(path: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = rotated_numbers(path)?
        .into_iter()
        .map(|n| rotated_path(path, n))
        .collect();
    if path.exists() {
        files.push(path.to_owned());
    }
    Ok(files)
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates the folder holding `path`, readable by its owner only (0700), when it is missing;
/// an existing folder is left as it is.
pub(crate) fn ensure_folder(path: &Path) -> io::Result<()> {
    let dir = parent(path);
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Opens a trail file (created 0600), and makes an existing one owner-only too.
pub(crate) fn open_owner_only(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        let file = options.open(path)?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        options.open(path)
    }
}

/// Makes a file creation or rename in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The end of a file.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Tail {
    /// Bytes up to and including the last newline.
    pub(crate) complete_len: u64,
    /// The last complete line, without its newline.
    pub(crate) last_line: Option<Vec<u8>>,
    /// Bytes after the last newline: a torn line.
    pub(crate) torn: u64,
}

const CHUNK: u64 = 8192;

/// Reads backwards from the end until the last complete line is found.
pub(crate) fn read_tail(file: &mut File) -> io::Result<Tail> {
    let size = file.metadata()?.len();
    let mut start = size;
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = CHUNK;
    loop {
        if let Some(last) = buf.iter().rposition(|&b| b == b'\n') {
            let complete_len = start + last as u64 + 1;
            let line_start = match buf[..last].iter().rposition(|&b| b == b'\n') {
                Some(p) => Some(p + 1),
                None if start == 0 => Some(0),
                None => None,
            };
            if let Some(from) = line_start {
                return Ok(Tail {
                    complete_len,
                    last_line: Some(buf[from..last].to_vec()),
                    torn: size - complete_len,
                });
            }
        } else if start == 0 {
            return Ok(Tail {
                complete_len: 0,
                last_line: None,
                torn: size,
            });
        }
        let take = chunk.min(start);
        start -= take;
        let mut more = vec![0; take as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut more)?;
        more.extend_from_slice(&buf);
        buf = more;
        chunk = chunk.saturating_mul(2);
    }
}

/// The hash of the last complete line of `path`, if it has one.
pub(crate) fn last_hash(path: &Path) -> io::Result<Option<String>> {
    let mut file = File::open(path)?;
    Ok(read_tail(&mut file)?.last_line.map(|l| line_hash(&l)))
}

/// The current file opened for appending.
pub(crate) struct Current {
    pub(crate) file: File,
    pub(crate) size: u64,
    /// The hash of its last line; `None` when it is empty.
    pub(crate) last_hash: Option<String>,
    /// Bytes of a torn last line that were cut away.
    pub(crate) truncated: u64,
    /// The file did not exist before.
    pub(crate) created: bool,
}

/// Opens (or creates) the current file for appending, cutting away a torn last line.
pub(crate) fn open_current(path: &Path) -> io::Result<Current> {
    let created = !path.exists();
    let mut file = open_owner_only(
        path,
        OpenOptions::new().read(true).append(true).create(true),
    )?;
    if created {
        sync_dir(parent(path))?;
    }
    let tail = read_tail(&mut file)?;
    if tail.torn > 0 {
        file.set_len(tail.complete_len)?;
        file.sync_all()?;
    }
    Ok(Current {
        file,
        size: tail.complete_len,
        last_hash: tail.last_line.map(|l| line_hash(&l)),
        truncated: tail.torn,
        created,
    })
}

/// Where a trail whose current file is empty continues from: the last line of the newest
/// rotated file, or [`GENESIS`].
pub(crate) fn chain_start(path: &Path, rotated: &[u64]) -> io::Result<String> {
    for &n in rotated.iter().rev() {
        if let Some(hash) = last_hash(&rotated_path(path, n))? {
            return Ok(hash);
        }
    }
    Ok(GENESIS.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn tail_of(bytes: &[u8]) -> Tail {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t");
        std::fs::write(&path, bytes).expect("write");
        read_tail(&mut File::open(&path).expect("open")).expect("tail")
    }

    #[test]
    fn tail_finds_the_last_complete_line_and_torn_bytes() {
        assert_eq!(
            tail_of(b""),
            Tail {
                complete_len: 0,
                last_line: None,
                torn: 0
            }
        );
        assert_eq!(
            tail_of(b"ab"),
            Tail {
                complete_len: 0,
                last_line: None,
                torn: 2
            }
        );
        assert_eq!(
            tail_of(b"one\n"),
            Tail {
                complete_len: 4,
                last_line: Some(b"one".to_vec()),
                torn: 0
            }
        );
        assert_eq!(
            tail_of(b"one\ntwo\nthr"),
            Tail {
                complete_len: 8,
                last_line: Some(b"two".to_vec()),
                torn: 3
            }
        );
    }

    #[test]
    fn tail_reads_lines_longer_than_a_chunk() {
        let long = vec![b'x'; 3 * CHUNK as usize + 17];
        let mut bytes = b"first\n".to_vec();
        bytes.extend_from_slice(&long);
        bytes.push(b'\n');
        bytes.extend_from_slice(&vec![b'y'; CHUNK as usize + 5]);
        let tail = tail_of(&bytes);
        assert_eq!(tail.last_line.as_deref(), Some(&long[..]));
        assert_eq!(tail.torn, CHUNK + 5);
        assert_eq!(tail.complete_len, 6 + long.len() as u64 + 1);
    }

    #[test]
    fn rotated_files_are_found_in_numeric_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        for name in [
            "audit.jsonl",
            "audit.jsonl.10",
            "audit.jsonl.2",
            "audit.jsonl.x",
            "audit.jsonl.",
            "other.1",
        ] {
            File::create(dir.path().join(name))
                .and_then(|mut f| f.write_all(b""))
                .expect("create");
        }
        assert_eq!(rotated_numbers(&path).expect("list"), [2, 10]);
        assert_eq!(
            trail_files(&path).expect("list"),
            [
                rotated_path(&path, 2),
                rotated_path(&path, 10),
                path.clone()
            ]
        );
    }
}

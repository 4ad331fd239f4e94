//! Reading files a session names, safely: only regular files (a FIFO or a
//! device such as `/dev/zero` is refused before it is read, so nothing
//! blocks or grows without bound), and only up to a size that matches
//! what providers accept.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

const MB: u64 = 1024 * 1024;

/// The largest session file read. Sessions may embed base64 media and hold
/// more than one request, so this is well above any provider's request
/// limit, yet far below what would exhaust memory.
pub const SESSION_LIMIT: u64 = 256 * MB;

/// The largest media file (or download) one block may carry: 20 MB is the
/// most any of the six providers takes inline for one item (OpenAI's image
/// limit, and Gemini's limit for a whole request's inline data; Anthropic
/// takes 5 MB per image, DashScope 10 MB).
pub const MEDIA_LIMIT: u64 = 20 * MB;

/// The most media one formatted request may read or download in all: 50 MB
/// is the largest request payload any of the six providers accepts
/// (OpenAI's; Anthropic's is 32 MB, Gemini's inline data 20 MB).
pub const REQUEST_MEDIA_LIMIT: u64 = 50 * MB;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("no such file")]
    NotFound,
    #[error("not a regular file (it is {0}); formatscope reads only regular files")]
    NotRegular(&'static str),
    #[error("it is a pseudo-file of the system ({0}); formatscope never reads /proc, /sys, /dev or another pseudo filesystem")]
    Pseudo(String),
    #[error("{} is larger than the {} limit ({what})", megabytes(*size), megabytes(*limit))]
    TooLarge {
        size: u64,
        limit: u64,
        what: &'static str,
    },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ReadError {
    pub fn is_not_found(&self) -> bool {
        match self {
            ReadError::NotFound => true,
            ReadError::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }
}

/// `n` bytes as people say it: `1.5 MB`, `20 MB`, `512 KB`.
pub fn megabytes(n: u64) -> String {
    if n >= MB {
        let mb = n as f64 / MB as f64;
        if mb.fract() == 0.0 {
            format!("{mb:.0} MB")
        } else {
            format!("{mb:.1} MB")
        }
    } else {
        format!("{} KB", n.div_ceil(1024))
    }
}

/// Opens `path` for reading without ever blocking: a FIFO opened for
/// reading would wait for a writer, so the open is non-blocking and the
/// file type is checked on the open file before anything is read.
fn open_regular(path: &Path) -> Result<(File, u64), ReadError> {
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
    };
    #[cfg(not(unix))]
    let file = File::open(path);
    let file = file.map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound,
        _ => ReadError::Io(e),
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(file_kind(&meta)));
    }
    refuse_pseudo(path, &file)?;
    Ok((file, meta.len()))
}

/// Where the kernel's pseudo-files live: they pass for regular files
/// (`/proc/self/environ` holds every key in the environment), so they are
/// refused by where they really are, symlinks followed.
pub(crate) const PSEUDO_ROOTS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Refuses a file of the kernel's (procfs, sysfs, a device folder, ...):
/// by its resolved path, and by the filesystem of the file actually
/// opened (which a rename or a bind mount cannot disguise).
fn refuse_pseudo(path: &Path, file: &File) -> Result<(), ReadError> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if PSEUDO_ROOTS.iter().any(|root| real.starts_with(root)) {
        return Err(ReadError::Pseudo(real.display().to_string()));
    }
    #[cfg(target_os = "linux")]
    if let Some(kind) = pseudo_filesystem(file) {
        return Err(ReadError::Pseudo(format!("{} on {kind}", real.display())));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
    Ok(())
}

/// The pseudo filesystem `file` is on, if it is on one (`fstatfs`'s
/// magic numbers, from linux/magic.h).
#[cfg(target_os = "linux")]
fn pseudo_filesystem(file: &File) -> Option<&'static str> {
    use std::os::fd::AsRawFd;
    const KINDS: [(u64, &str); 12] = [
        (0x9fa0, "procfs"),
        (0x6265_6572, "sysfs"),
        (0x1cd1, "devpts"),
        (0x6462_6720, "debugfs"),
        (0x7472_6163, "tracefs"),
        (0x7363_6673, "securityfs"),
        (0x0027_e0eb, "cgroupfs"),
        (0x6367_7270, "cgroup2"),
        (0xcafe_4a11, "bpffs"),
        (0x6265_6570, "configfs"),
        (0xde5e_81e4, "efivarfs"),
        (0x6165_676c, "pstore"),
    ];
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid open descriptor and a statfs the call fills in.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } != 0 {
        return None;
    }
    let magic = (st.f_type as u64) & 0xffff_ffff;
    KINDS
        .iter()
        .find(|(m, _)| *m == magic)
        .map(|(_, kind)| *kind)
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// The whole file, if it is a regular file of at most `limit` bytes.
/// `what` names the limit in the error ("session files", "media").
pub fn read_regular(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let (file, size) = open_regular(path)?;
    if size > limit {
        return Err(ReadError::TooLarge { size, limit, what });
    }
    let mut buf = Vec::with_capacity(size as usize);
    // The file may grow between the check and the read: never past limit.
    file.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: buf.len() as u64,
            limit,
            what,
        });
    }
    Ok(buf)
}

/// The largest config or state file read: profiles.toml, prices.json, a
/// theme and the `.tmTheme` it names, the recent list, trusted folders.
/// Each is a few kilobytes; a megabyte is already not one of them.
pub const CONFIG_LIMIT: u64 = MB;

/// Why a file of the user's own was not read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is there but is not UTF-8.
    #[error("{}: not UTF-8 text", path.display())]
    NotUtf8 { path: PathBuf },
    /// The guarded read refused it or failed.
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: ReadError },
}

/// A file of the user's own (config, state, a theme) as text, through
/// [`read_regular`]: a FIFO or a device is refused before it is read (a
/// FIFO would block the reader, `/dev/zero` never ends), and a file over
/// [`CONFIG_LIMIT`] is not read. `Ok(None)`: there is no such file. Errors
/// name the file: `PATH: not a regular file (it is a FIFO); ...`.
pub fn read_config(path: &Path, what: &'static str) -> Result<Option<String>, ConfigError> {
    match read_regular(path, CONFIG_LIMIT, what) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ConfigError::NotUtf8 {
                path: path.to_path_buf(),
            }),
        Err(e) if e.is_not_found() => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The first `n` bytes of a regular file (a header), and its size.
pub fn read_prefix(path: &Path, n: u64) -> Result<(Vec<u8>, u64), ReadError> {
    let (file, size) = open_regular(path)?;
    let mut buf = Vec::new();
    file.take(n).read_to_end(&mut buf)?;
    Ok((buf, size))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_folders_are_refused_before_reading() {
        let err = read_regular(Path::new("/dev/zero"), MB, "media").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a regular file (it is a character device); formatscope reads only regular files"
        );
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.png");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        // Would block forever if the open or the read waited for a writer.
        assert!(matches!(
            read_regular(&fifo, MB, "media"),
            Err(ReadError::NotRegular("a FIFO"))
        ));
        assert!(matches!(
            read_prefix(&fifo, 10),
            Err(ReadError::NotRegular("a FIFO"))
        ));
        assert!(matches!(
            read_regular(dir.path(), MB, "media"),
            Err(ReadError::NotRegular("a folder"))
        ));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pseudo_files_are_never_read_directly_or_through_a_symlink() {
        let err = read_regular(Path::new("/proc/self/environ"), MB, "media").unwrap_err();
        assert!(matches!(err, ReadError::Pseudo(_)), "{err}");
        assert!(err.to_string().contains("pseudo-file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("env.png");
        std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
        assert!(matches!(
            read_regular(&link, MB, "media"),
            Err(ReadError::Pseudo(_))
        ));
        assert!(matches!(read_prefix(&link, 10), Err(ReadError::Pseudo(_))));
        // A /proc/self/fd path resolves to the file it names: the test of
        // the filesystem, not the path, refuses what lives on procfs.
        let status = File::open("/proc/self/status").unwrap();
        assert_eq!(pseudo_filesystem(&status), Some("procfs"));
        for path in [
            "/sys/kernel/mm/transparent_hugepage/enabled",
            "/proc/version",
        ] {
            if Path::new(path).exists() {
                assert!(matches!(
                    read_regular(Path::new(path), MB, "media"),
                    Err(ReadError::Pseudo(_))
                ));
            }
        }
    }

    #[test]
    fn a_sparse_file_over_the_limit_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.png");
        let f = File::create(&path).unwrap();
        f.set_len(500 * MB).unwrap();
        let err = read_regular(&path, MEDIA_LIMIT, "media").unwrap_err();
        assert_eq!(
            err.to_string(),
            "500 MB is larger than the 20 MB limit (media)"
        );
        assert!(read_regular(Path::new("/no/such/file"), MB, "x")
            .unwrap_err()
            .is_not_found());
    }
}

/// Which of the user's base folders a file of ours belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserDir {
    /// Settings the user edits: `$XDG_CONFIG_HOME`, else `~/.config`.
    Config,
    /// What the program keeps between runs: `$XDG_STATE_HOME`, else
    /// `~/.local/state`.
    State,
    /// Data the user keeps: `$XDG_DATA_HOME`, else `~/.local/share`.
    Data,
}

/// Where the user's own files go: `BASE/formatscope/NAME`, BASE being the
/// [`UserDir`]'s folder as the XDG base directory specification names it
/// (etcetera's strategy for this system: the variable when it holds an
/// absolute path, else its default under the home folder). None when no
/// home folder can be found. The one answer for prices, profiles, trusted
/// folders, recovery files, recent sessions, captures and the history.
pub fn user_file(dir: UserDir, name: &str) -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    let strategy = etcetera::choose_base_strategy().ok()?;
    let base = match dir {
        UserDir::Config => strategy.config_dir(),
        // Only the XDG strategy has a state folder; elsewhere (Windows)
        // state lives with the data, as it does for most programs there.
        UserDir::State => strategy.state_dir().unwrap_or_else(|| strategy.data_dir()),
        UserDir::Data => strategy.data_dir(),
    };
    Some(base.join("formatscope").join(name))
}

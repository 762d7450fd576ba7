//! The in-memory store's disk tier: results too large for memory, kept in
//! files under a directory of their own.
//!
//! Each store that spills makes one directory, `mcp-light-spill-<pid>-<n>`,
//! under the configured one (or the system's temporary directory), and
//! holds an exclusive lock on a `lock` file inside it for as long as it
//! lives. An entry is two files there: its body and its index (where each
//! list item starts, eight bytes an item). A file is removed when its entry
//! expires, is evicted, or is dropped before it was committed; the
//! directory when the store is dropped. A directory whose lock nobody holds
//! was left by a process that did not stop cleanly, and the next store made
//! under the same directory removes it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::store::index::{self, OFFSET_BYTES};

/// What every spill directory's name starts with.
const DIR_PREFIX: &str = "mcp-light-spill-";

/// The name of the file each live spill directory holds locked.
const LOCK_FILE: &str = "lock";

/// Tells the stores of one process apart in their directories' names.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

/// A store's own spill directory, locked while the store lives and removed
/// with it.
#[derive(Debug)]
pub(super) struct SpillDir {
    path: PathBuf,
    next_file: AtomicU64,
    /// Held open: the lock lives as long as the file handle.
    _lock: File,
}

impl SpillDir {
    /// Makes a fresh spill directory under `base` (created if missing) and
    /// locks it.
    pub(super) fn create(base: &Path) -> io::Result<SpillDir> {
        fs::create_dir_all(base)?;
        let name = format!(
            "{DIR_PREFIX}{}-{}",
            std::process::id(),
            NEXT_DIR.fetch_add(1, Ordering::Relaxed)
        );
        let path = base.join(&name);
        // A directory of that name was left by an earlier process with the
        // same pid: it is stale, since this process did not make it.
        if path.exists() {
            fs::remove_dir_all(&path)?;
        }
        // Made and locked under a name no sweep looks at, then renamed: a
        // store starting at the same moment never sees it unlocked.
        let making = base.join(format!(".{name}"));
        fs::create_dir(&making)?;
        let lock = File::create(making.join(LOCK_FILE))?;
        lock.try_lock().map_err(io::Error::other)?;
        fs::rename(&making, &path)?;
        Ok(SpillDir {
            path,
            next_file: AtomicU64::new(0),
            _lock: lock,
        })
    }

    /// Whether the directory is still there (a cleaner may remove it).
    pub(super) fn exists(&self) -> bool {
        self.path.is_dir()
    }

    /// The directory's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the two files of a new entry.
    pub(super) fn create_file(&self) -> io::Result<(SpillFile, File, File)> {
        let n = self.next_file.fetch_add(1, Ordering::Relaxed);
        let file = SpillFile {
            body: self.path.join(format!("{n}.body")),
            index: self.path.join(format!("{n}.index")),
        };
        let body = create_new(&file.body)?;
        let index = create_new(&file.index)?;
        Ok((file, body, index))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), %error, "cannot remove the continuation store's spill directory");
        }
    }
}

/// A new file only this user may read: results are the callers' data.
fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Removes the spill directories under `base` that no live store holds:
/// those a process left when it stopped without dropping its store.
/// Returns how many were removed; a directory that cannot be read is left.
pub(super) fn remove_stale(base: &Path) -> usize {
    let Ok(dirs) = fs::read_dir(base) else {
        return 0;
    };
    let mut removed = 0;
    for dir in dirs.flatten() {
        let is_spill_dir = dir.file_name().to_string_lossy().starts_with(DIR_PREFIX)
            && dir.file_type().is_ok_and(|kind| kind.is_dir());
        if !is_spill_dir {
            continue;
        }
        let path = dir.path();
        // Held by a live store: its lock cannot be taken.
        let stale = match File::open(path.join(LOCK_FILE)) {
            Ok(lock) => lock.try_lock().is_ok(),
            Err(error) => error.kind() == io::ErrorKind::NotFound,
        };
        if stale && fs::remove_dir_all(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The two files of one spilled entry, removed when the last handle to it
/// is dropped (an entry being read outlives its eviction until the read
/// is done).
#[derive(Debug)]
pub(super) struct SpillFile {
    body: PathBuf,
    index: PathBuf,
}

impl SpillFile {
    /// The whole body.
    pub(super) fn read_body(&self) -> io::Result<Vec<u8>> {
        fs::read(&self.body)
    }

    /// The items `range` of the list this entry holds, `total` items and
    /// `size` bytes long.
    pub(super) fn read_items(
        &self,
        range: std::ops::Range<usize>,
        total: usize,
        size: u64,
    ) -> io::Result<Vec<Vec<u8>>> {
        let range = index::clamp(range, total);
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let through_the_end = range.end == total;
        // The page's offsets and the one after it, where its last item ends.
        let wanted = range.len() + usize::from(!through_the_end);
        let mut offsets = vec![0; wanted * OFFSET_BYTES];
        read_at(
            &File::open(&self.index)?,
            &mut offsets,
            (range.start * OFFSET_BYTES) as u64,
        )?;
        let starts = index::from_bytes(&offsets);
        let chunk_end = if through_the_end {
            size
        } else {
            starts[range.len()]
        };
        let mut chunk = vec![0; (chunk_end - starts[0]) as usize];
        read_at(&File::open(&self.body)?, &mut chunk, starts[0])?;
        Ok(index::split_items(
            &chunk,
            &starts[..range.len()],
            through_the_end,
        ))
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        // Already gone with its directory when the store was dropped first.
        let _ = fs::remove_file(&self.body);
        let _ = fs::remove_file(&self.index);
    }
}

/// Fills `buf` from `file` at `offset`.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// The files of an entry being written, and what they hold so far.
#[derive(Debug)]
pub(super) struct Spilling {
    pub(super) file: SpillFile,
    body: io::BufWriter<File>,
    index: io::BufWriter<File>,
}

impl Spilling {
    /// Starts an entry's files in `dir`.
    pub(super) fn start(dir: &SpillDir) -> io::Result<Spilling> {
        let (file, body, index) = dir.create_file()?;
        Ok(Spilling {
            file,
            body: io::BufWriter::with_capacity(1 << 20, body),
            index: io::BufWriter::new(index),
        })
    }

    /// Appends `bytes` to the body and `starts` to the index.
    pub(super) fn append(&mut self, bytes: &[u8], starts: &[u64]) -> io::Result<()> {
        self.body.write_all(bytes)?;
        self.index.write_all(&index::to_bytes(starts))
    }

    /// Flushes both files, handing back the entry's file handle.
    pub(super) fn finish(mut self) -> io::Result<SpillFile> {
        self.body.flush()?;
        self.index.flush()?;
        Ok(self.file)
    }
}

//! WAL checkpoints off the committing connection.
//!
//! SQLite, left to itself, checkpoints on the connection that commits: once
//! the WAL holds 1,000 pages, the commit that crossed the line copies every
//! page back into the database file and syncs both, and the write call
//! that made it waits for all of that. Under a stream of writes that is
//! one checkpoint every few calls, each copying again the index pages the
//! last one copied.
//!
//! A file database instead turns the writer's automatic checkpoints off
//! and gives the work to a [`Checkpointer`]: a thread with a connection of
//! its own. The writer's WAL hook, called after each commit with the WAL's
//! page count, wakes it once the WAL holds [`CHECKPOINT_PAGES`]; it runs a
//! `PASSIVE` checkpoint, which copies what no reader still needs and never
//! blocks the writer or a reader, then waits at least [`CHECKPOINT_GAP`]
//! before the next. Each page is copied once per checkpoint however many
//! commits rewrote it since, and no call waits for a checkpoint.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

/// How many WAL pages (4 KiB each) wake the checkpointer: 4,096, 16 MiB.
/// Under `synchronous = normal` the WAL is synced at each checkpoint, so
/// this is also about how much a power cut can roll back.
pub const CHECKPOINT_PAGES: i32 = 4_096;

/// The least time between two checkpoints: a WAL a reader keeps from being
/// reset stays past [`CHECKPOINT_PAGES`], and each commit would wake the
/// checkpointer again.
pub const CHECKPOINT_GAP: Duration = Duration::from_millis(200);

/// What the writer's hook and the thread share.
#[derive(Default)]
struct Signal {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    due: bool,
    stop: bool,
}

/// The thread that checkpoints a file database's WAL; stopped and joined
/// when dropped.
pub struct Checkpointer {
    signal: Arc<Signal>,
    thread: Option<JoinHandle<()>>,
}

/// Wakes a [`Checkpointer`]: what the writer's WAL hook holds.
#[derive(Clone)]
pub struct Waker(Arc<Signal>);

impl Waker {
    /// Called after each commit with the WAL's page count: wakes the
    /// checkpointer once the WAL holds [`CHECKPOINT_PAGES`].
    pub fn committed(&self, pages: i32) {
        if pages >= CHECKPOINT_PAGES {
            let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
            if !state.due {
                state.due = true;
                self.0.changed.notify_one();
            }
        }
    }
}

impl Checkpointer {
    /// Starts the thread, which checkpoints on `conn`, a read-write
    /// connection to the database of its own.
    pub fn start(conn: Connection) -> std::io::Result<Checkpointer> {
        let signal = Arc::new(Signal::default());
        let thread = std::thread::Builder::new()
            .name("inventory-checkpoint".to_owned())
            .spawn({
                let signal = Arc::clone(&signal);
                move || run(&conn, &signal)
            })?;
        Ok(Checkpointer {
            signal,
            thread: Some(thread),
        })
    }

    /// What wakes this checkpointer, for the writer's WAL hook.
    pub fn waker(&self) -> Waker {
        Waker(Arc::clone(&self.signal))
    }
}

fn run(conn: &Connection, signal: &Signal) {
    loop {
        {
            let mut state = signal.state.lock().unwrap_or_else(PoisonError::into_inner);
            while !state.due && !state.stop {
                state = signal
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.stop {
                return;
            }
            state.due = false;
        }
        // A failed checkpoint (the disk is full, the file went away) leaves
        // the WAL as it is; the next commit past the mark tries again.
        if let Err(error) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            eprintln!("inventory: a WAL checkpoint failed: {error}");
        }
        let state = signal.state.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = signal
            .changed
            .wait_timeout_while(state, CHECKPOINT_GAP, |state| !state.stop);
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let mut state = self
            .signal
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.stop = true;
        self.signal.changed.notify_all();
        drop(state);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database file in WAL mode whose writer never checkpoints, with
    /// its WAL holding `rows` rows of 1 KiB; and the file's path.
    fn wal_with_rows(rows: i64) -> (Connection, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!(
            "inventory-checkpoint-{}-{rows}.db",
            std::process::id()
        ));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let writer = Connection::open(&path).unwrap();
        writer
            .pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))
            .unwrap();
        writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        writer
            .execute_batch("CREATE TABLE t (v BLOB); BEGIN;")
            .unwrap();
        for _ in 0..rows {
            writer
                .execute("INSERT INTO t VALUES (zeroblob(1024))", [])
                .unwrap();
        }
        writer.execute_batch("COMMIT").unwrap();
        (writer, path)
    }

    fn file_size(path: &std::path::Path) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    #[test]
    fn a_wal_past_the_mark_is_checkpointed_on_the_thread_and_one_below_is_left() {
        let (_writer, path) = wal_with_rows(2_000);
        let before = file_size(&path);
        let checkpointer = Checkpointer::start(Connection::open(&path).unwrap()).unwrap();
        let waker = checkpointer.waker();

        waker.committed(CHECKPOINT_PAGES - 1);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(file_size(&path), before, "checkpointed below the mark");

        waker.committed(CHECKPOINT_PAGES);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while file_size(&path) < before + 2_000 * 1024 {
            assert!(
                std::time::Instant::now() < deadline,
                "the WAL's pages never reached the database file"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // Dropping it stops and joins the thread.
        drop(checkpointer);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}

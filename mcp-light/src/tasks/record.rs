//! A task's record as the store keeps it, its id, and its timestamps.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use serde::{Deserialize, Serialize};

/// What the store keeps of a task: whom it belongs to, the tool, its
/// state as `tasks/get` answers it, and until when its replica vouches
/// for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The identity of the caller that started it ([`Caller::identity`](crate::Caller::identity)).
    pub(crate) owner: String,
    pub(crate) tool: String,
    pub(crate) task: DetailedTask,
    /// Milliseconds since the Unix epoch; a task not yet terminal whose
    /// lease lapsed is reported failed.
    pub(crate) lease_until_ms: u64,
}

impl Record {
    pub(crate) fn encode(&self) -> Vec<u8> {
        // A record is plain data: it always serializes.
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn decode(bytes: &[u8]) -> Option<Record> {
        serde_json::from_slice(bytes).ok()
    }

    /// The record of a task `id` just created by `owner` calling `tool`.
    pub(crate) fn new(
        id: &str,
        owner: String,
        tool: &str,
        ttl: Duration,
        poll_interval: Duration,
        lease: Duration,
    ) -> Record {
        let now = now_iso();
        let task = Task::new(id, TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(millis(ttl).max(1))
            .with_poll_interval_ms(millis(poll_interval).max(1));
        Record {
            owner,
            tool: tool.to_owned(),
            task: DetailedTask::new(task, TaskPayload::Working),
            lease_until_ms: now_ms() + millis(lease),
        }
    }

    /// The record moved on to `payload`, with `message` (or none), its
    /// lease renewed for `lease`.
    pub(crate) fn moved(&mut self, payload: TaskPayload, message: Option<String>, lease: Duration) {
        let mut task = self.task.task.clone();
        task.status_message = message;
        task.last_updated_at = now_iso();
        self.task = DetailedTask::new(task, payload);
        self.lease_until_ms = now_ms() + millis(lease);
    }

    /// Whether the replica running it stopped vouching for it.
    pub(crate) fn lapsed(&self) -> bool {
        !self.task.status().is_terminal() && now_ms() > self.lease_until_ms
    }
}

/// A JSON-RPC error object, as a failed task carries it.
pub(crate) fn error_object(code: i32, message: String) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".to_owned(), code.into());
    error.insert("message".to_owned(), message.into());
    error
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, millis)
}

/// A new task id: 128 random bits, as 32 lowercase hex digits.
pub(crate) fn new_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Whether `id` has the shape of an id this server issues.
pub(crate) fn is_task_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// Now, as an ISO 8601 UTC timestamp with milliseconds.
pub(crate) fn now_iso() -> String {
    iso(now_ms())
}

/// `ms` since the Unix epoch as `YYYY-MM-DDThh:mm:ss.mmmZ`.
fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso(1_796_083_199_999), "2026-11-30T23:59:59.999Z");
    }

    #[test]
    fn ids_are_32_hex_digits_and_nothing_else_passes_for_one() {
        let id = new_id().unwrap();
        assert!(is_task_id(&id), "{id}");
        assert_ne!(id, new_id().unwrap());
        for bad in [
            "",
            "tasks-conformance-nonexistent-12345",
            &id[1..],
            &id.to_uppercase(),
        ] {
            assert!(!is_task_id(bad), "{bad}");
        }
    }

    #[test]
    fn a_record_round_trips_and_lapses_only_while_not_terminal() {
        let mut record = Record::new(
            &new_id().unwrap(),
            "principal:a".into(),
            "slow",
            Duration::from_secs(60),
            Duration::from_millis(500),
            Duration::ZERO,
        );
        std::thread::sleep(Duration::from_millis(2));
        assert!(record.lapsed());
        let back = Record::decode(&record.encode()).unwrap();
        assert_eq!(back.task, record.task);
        record.moved(TaskPayload::Cancelled, None, Duration::ZERO);
        assert!(!record.lapsed());
    }
}

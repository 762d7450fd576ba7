//! `--check`: the configuration the other flags give, audited instead of
//! served. mcp-light's audit (`Server::audit`) checks the transport and its
//! authentication, the OAuth issuer, the continuation store and the output
//! schemas; the inventory adds its database, which mcp-light knows nothing
//! of: that it answers, and that a SQLite file is on a local disk. One line
//! per check goes to stdout; the exit status is 1 when any check is an
//! error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use inventory::database::Database;
use inventory::db::Db;
use mcp_light::audit::{self, Audit, Finding, Severity};

use crate::cli::{Cli, DbTarget, Store, shown_store};

/// The check that the database opens and answers.
const DATABASE: &str = "database";

/// The check that a SQLite file is on a local filesystem.
const DATABASE_DISK: &str = "database disk";

/// Filesystem types (`/proc/self/mountinfo`'s) on which SQLite's locks and
/// WAL cannot be trusted: network and cluster filesystems, and the FUSE
/// ones that reach a remote store.
const NETWORK_FILESYSTEMS: [&str; 22] = [
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ncpfs",
    "9p",
    "afs",
    "coda",
    "ceph",
    "glusterfs",
    "lustre",
    "gpfs",
    "beegfs",
    "davfs",
    "fuse.sshfs",
    "fuse.s3fs",
    "fuse.rclone",
    "fuse.gcsfuse",
    "fuse.glusterfs",
    "fuse.ceph-fuse",
    "fuse.juicefs",
];

/// Runs `--check`: prints the report, and answers 1 if any check is an
/// error (or the flags cannot make a server at all), 0 otherwise.
pub fn main(cli: &Cli) -> ExitCode {
    if let Err(message) = cli.check_features() {
        eprintln!("inventory: {message}");
        return ExitCode::FAILURE;
    }
    let Some(runtime) = crate::runtime() else {
        return ExitCode::FAILURE;
    };
    let audited = runtime.block_on(audit(cli));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match audited {
        Ok(audit) => {
            print!("{audit}");
            match audit.has_errors() {
                true => ExitCode::FAILURE,
                false => ExitCode::SUCCESS,
            }
        }
        Err(message) => {
            eprintln!("inventory: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The server the flags describe, built as serving would build it and
/// audited where `--http` says (stdio without it), then the database's
/// checks. A database that does not open is an error of the report (and
/// its disk is not looked at), and the rest is checked on an in-memory one
/// in its place.
async fn audit(cli: &Cli) -> Result<Audit, String> {
    cli.check_store_options()?;
    let mut own = Vec::new();
    let db = match crate::open(cli).await {
        Ok(db) => {
            own.push(answers(&db, cli).await);
            if let Some(DbTarget::File(path)) = &cli.db {
                own.extend(disk(path));
            }
            db
        }
        Err(message) => {
            own.push(Finding::error(
                DATABASE,
                format!("{message}, so the server would not start; check --db"),
            ));
            Db::open(None)
                .map(Database::from)
                .map_err(|e| format!("cannot open an in-memory database: {e}"))?
        }
    };
    let server = crate::build(db, cli, false).await?;
    let auditor = server.audit();
    let auditor = match cli.http {
        Some(addr) => {
            let drain = mcp_light::defaults::DRAIN_TIMEOUT;
            let options = crate::http_options(cli, crate::auth(cli)?, drain)?;
            auditor.http(addr, &options)
        }
        None => auditor,
    };
    let mut audit = auditor.await;
    audit.extend(own);
    Ok(audit
        .into_iter()
        .map(|finding| with_flags(finding, cli))
        .collect())
}

/// That the database answers a query, and where the inventory is kept.
async fn answers(db: &Database, cli: &Cli) -> Finding {
    let devices = match db.count_devices().await {
        Ok(devices) => devices,
        Err(error) => {
            return Finding::error(
                DATABASE,
                format!("the database opens but does not answer a query: {error}"),
            );
        }
    };
    Finding::pass(
        DATABASE,
        match &cli.db {
            None => "the inventory is kept in this process's memory, and lost when it stops \
                     (--db PATH keeps it in a SQLite file)"
                .to_owned(),
            Some(DbTarget::File(path)) => format!(
                "the SQLite file {} opens and answers: {devices} devices",
                path.display()
            ),
            Some(DbTarget::Postgres(url)) => format!(
                "PostgreSQL at {} answers: {devices} devices",
                url.rsplit_once('@').map_or(url.as_str(), |(_, host)| host)
            ),
        },
    )
}

/// Whether the SQLite file at `path` is on a network filesystem, from the
/// mount that holds it in `/proc/self/mountinfo` (Linux; elsewhere not
/// checked).
fn disk(path: &Path) -> Option<Finding> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let unknown = |why: String| {
        Finding::warning(
            DATABASE_DISK,
            format!(
                "cannot tell which filesystem holds the SQLite file {} ({why}); keep it on \
                 a local disk: SQLite's locks and WAL are not reliable on a network \
                 filesystem",
                path.display()
            ),
        )
    };
    let mountinfo = match std::fs::read_to_string("/proc/self/mountinfo") {
        Ok(mountinfo) => mountinfo,
        Err(error) => return Some(unknown(format!("/proc/self/mountinfo: {error}"))),
    };
    let mounts = mounts(&mountinfo);
    let Some(mount) = mount_of(&mounts, &located(path)) else {
        return Some(unknown("no mount holds it".to_owned()));
    };
    Some(match is_network(&mount.fstype) {
        true => Finding::warning(
            DATABASE_DISK,
            format!(
                "the SQLite file {} is on {}, a network filesystem ({} at {}): SQLite's \
                 locks are not reliable over it and its WAL needs memory shared on one host, \
                 so two processes writing the file can corrupt it; keep the file on a local \
                 disk (--db PATH), or the inventory on PostgreSQL (--db postgres://…) for \
                 replicas on several hosts",
                path.display(),
                mount.fstype,
                mount.source,
                mount.point.display()
            ),
        ),
        false => Finding::pass(
            DATABASE_DISK,
            format!(
                "the SQLite file {} is on a local filesystem ({} at {})",
                path.display(),
                mount.fstype,
                mount.point.display()
            ),
        ),
    })
}

/// Where `path` really is: the file itself when it exists, else its
/// directory, with symbolic links resolved, as the mounts name places.
fn located(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    dir.canonicalize().unwrap_or(dir)
}

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq)]
struct Mount {
    /// Where it is mounted.
    point: PathBuf,
    /// Its filesystem type: `ext4`, `nfs4`, `fuse.sshfs`.
    fstype: String,
    /// What is mounted: a device, `server:/export`.
    source: String,
}

/// The mounts of a `/proc/self/mountinfo` text: per line, the mount point
/// is the fifth field, and the filesystem type and the source the two
/// after the `-` that ends the optional fields.
fn mounts(mountinfo: &str) -> Vec<Mount> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let point = fields.get(4)?;
            let dash = fields.iter().skip(6).position(|field| *field == "-")? + 6;
            Some(Mount {
                point: PathBuf::from(unescaped(point)),
                fstype: unescaped(fields.get(dash + 1)?),
                source: unescaped(fields.get(dash + 2)?),
            })
        })
        .collect()
}

/// The mount that holds `path`: the longest mount point it lies under, the
/// last listed of several at one point (it hides the ones before it).
fn mount_of<'m>(mounts: &'m [Mount], path: &Path) -> Option<&'m Mount> {
    mounts
        .iter()
        .filter(|mount| path.starts_with(&mount.point))
        .max_by_key(|mount| mount.point.components().count())
}

/// A mountinfo field with its octal escapes (`\040` for a space) undone.
fn unescaped(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|digits| {
            bytes[i] == b'\\' && digits.iter().all(|digit| (b'0'..=b'7').contains(digit))
        });
        match octal {
            Some(digits) => {
                let value = digits
                    .iter()
                    .fold(0u32, |value, digit| value * 8 + u32::from(digit - b'0'));
                out.push(value as u8);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `fstype` is a network (or cluster) filesystem.
fn is_network(fstype: &str) -> bool {
    NETWORK_FILESYSTEMS.contains(&fstype)
}

/// `finding` with, for a warning or an error of mcp-light's checks, the
/// inventory's flags that change the setting it names.
fn with_flags(mut finding: Finding, cli: &Cli) -> Finding {
    if finding.severity == Severity::Pass {
        return finding;
    }
    let port = cli.http.map_or(8080, |addr| addr.port());
    let hint = match &*finding.check {
        audit::TRANSPORT => {
            format!("--auth-token NAME=SECRET or --oauth-issuer URL, or --http 127.0.0.1:{port}")
        }
        audit::OAUTH_ISSUER => "--oauth-issuer, or --oauth-jwks-url".to_owned(),
        audit::OAUTH_KEYS => "--oauth-jwks-url".to_owned(),
        audit::STORE => match &cli.store {
            Store::Memory => "--store redis://HOST:PORT (the `redis` feature)".to_owned(),
            other => format!("--store {}", redacted(other)),
        },
        audit::STORE_PERSISTENCE | audit::STORE_EVICTION => {
            format!("the Redis of --store {}", redacted(&cli.store))
        }
        audit::OUTPUT_SCHEMAS => "leave out --output-schema".to_owned(),
        _ => return finding,
    };
    finding.message.push_str(&format!(" [inventory: {hint}]"));
    finding
}

/// `--store`'s value as given, its password (if any) left out.
fn redacted(store: &Store) -> String {
    match store {
        Store::Redis(url) => match url.split_once("://") {
            Some((scheme, rest)) if rest.contains('@') => {
                format!("{scheme}://…@{}", shown_store(store))
            }
            _ => url.clone(),
        },
        Store::RedisCluster(_) => format!("redis-cluster://{}", shown_store(store)),
        Store::Memory => shown_store(store),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of a real mountinfo: the root on ext4, an NFS export, an
    /// sshfs mount whose point has a space, a tmpfs mounted over a part
    /// of the export.
    const MOUNTINFO: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro
40 22 0:45 / /mnt/data rw,relatime shared:20 - nfs4 nas.internal:/export/data rw,vers=4.2
41 22 0:46 / /home/ops/remote\\040box rw,nosuid master:3 - fuse.sshfs ops@box:/srv rw
42 40 0:47 / /mnt/data/scratch rw - tmpfs tmpfs rw
43 22 0:48 / /mnt/data rw - ext4 /dev/sdb1 rw";

    #[test]
    fn mountinfo_lines_give_the_point_the_type_and_the_source() {
        let mounts = mounts(MOUNTINFO);
        assert_eq!(mounts.len(), 5);
        assert_eq!(
            mounts[1],
            Mount {
                point: "/mnt/data".into(),
                fstype: "nfs4".into(),
                source: "nas.internal:/export/data".into(),
            }
        );
        // Optional fields (`master:3`) come before the `-`; `\040` is a space.
        assert_eq!(mounts[2].point, PathBuf::from("/home/ops/remote box"));
        assert_eq!(mounts[2].fstype, "fuse.sshfs");
        assert!(super::mounts("").is_empty());
        assert!(super::mounts("not a mountinfo line").is_empty());
    }

    #[test]
    fn a_path_is_held_by_the_longest_mount_point_above_it() {
        let mounts = mounts(MOUNTINFO);
        let fstype = |path: &str| mount_of(&mounts, Path::new(path)).map(|m| m.fstype.as_str());
        assert_eq!(fstype("/var/lib/inventory.db"), Some("ext4"));
        assert_eq!(
            fstype("/home/ops/remote box/inventory.db"),
            Some("fuse.sshfs")
        );
        assert_eq!(fstype("/mnt/data/scratch/inventory.db"), Some("tmpfs"));
        // A path that only starts with a mount point's text is not under it.
        assert_eq!(fstype("/mnt/database/inventory.db"), Some("ext4"));
        assert_eq!(fstype("relative.db"), None);
    }

    #[test]
    fn of_mounts_at_one_point_the_last_is_the_one_seen() {
        let mounts = mounts(MOUNTINFO);
        let found = mount_of(&mounts, Path::new("/mnt/data/inventory.db")).unwrap();
        assert_eq!(
            (found.fstype.as_str(), found.source.as_str()),
            ("ext4", "/dev/sdb1")
        );
        let nfs_only: Vec<Mount> = mounts.iter().take(4).cloned().collect();
        let found = mount_of(&nfs_only, Path::new("/mnt/data/inventory.db")).unwrap();
        assert!(is_network(&found.fstype), "{found:?}");
    }

    #[test]
    fn network_filesystems_are_told_from_local_ones() {
        for network in ["nfs", "nfs4", "cifs", "smb3", "9p", "fuse.sshfs", "ceph"] {
            assert!(is_network(network), "{network}");
        }
        for local in [
            "ext4", "xfs", "btrfs", "zfs", "tmpfs", "overlay", "fuseblk", "fuse",
        ] {
            assert!(!is_network(local), "{local}");
        }
    }

    #[test]
    fn escapes_are_undone_and_other_backslashes_kept() {
        assert_eq!(unescaped(r"a\040b\011c\134d"), "a b\tc\\d");
        assert_eq!(unescaped(r"a\0x"), r"a\0x");
        assert_eq!(unescaped(r"end\04"), r"end\04");
    }

    #[test]
    fn a_store_is_named_as_given_without_its_password() {
        let named = |store: Store| redacted(&store);
        assert_eq!(named(Store::Memory), "memory");
        assert_eq!(
            named(Store::Redis("redis://10.0.0.1:6379".into())),
            "redis://10.0.0.1:6379"
        );
        assert_eq!(
            named(Store::Redis("rediss://:s3cret@cache:6380/2".into())),
            "rediss://…@cache:6380/2"
        );
        let nodes = vec!["redis://a:7000".into(), "redis://b:7000".into()];
        assert_eq!(
            named(Store::RedisCluster(nodes)),
            "redis-cluster://a:7000,b:7000"
        );
    }

    #[test]
    fn the_database_directory_is_resolved_when_the_file_is_missing() {
        let dir = std::env::temp_dir().canonicalize().unwrap();
        let missing = dir.join("inventory-check-missing.db");
        assert_eq!(located(&missing), dir);
        assert_eq!(
            located(Path::new("missing.db")),
            std::env::current_dir().unwrap().canonicalize().unwrap()
        );
    }
}

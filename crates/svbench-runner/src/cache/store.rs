//! The SQLite file behind the response cache.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::Value;

/// Marks a SQLite file as an svbench response cache (`PRAGMA application_id`;
/// the bytes spell `svRC`), so a foreign database is never written to.
const APPLICATION_ID: i64 = 0x7376_5243;

/// Layout of the `responses` table (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

/// The one table, as harness §2.5 fixes it.
const CREATE_TABLE: &str = "CREATE TABLE responses (\
    key TEXT PRIMARY KEY, \
    response_json TEXT NOT NULL, \
    base_url TEXT NOT NULL, \
    model TEXT NOT NULL, \
    created_at TEXT NOT NULL, \
    svbench_version TEXT NOT NULL)";

/// `PRAGMA table_info(responses)` of [`CREATE_TABLE`]: name, declared type,
/// not-null flag and primary-key position of each column.
const EXPECTED_COLUMNS: [(&str, &str, i64, i64); 6] = [
    ("key", "TEXT", 0, 1),
    ("response_json", "TEXT", 1, 0),
    ("base_url", "TEXT", 1, 0),
    ("model", "TEXT", 1, 0),
    ("created_at", "TEXT", 1, 0),
    ("svbench_version", "TEXT", 1, 0),
];

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SELECT: &str = "SELECT response_json FROM responses WHERE key = ?1";

const UPSERT: &str = "INSERT OR REPLACE INTO responses \
    (key, response_json, base_url, model, created_at, svbench_version) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

/// Errors opening or using the response cache. Every variant names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// The directory that should hold the cache file could not be created.
    #[error("cannot create the response cache directory {}: {source}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// SQLite could not open or set up the file (for example it is not a
    /// database, or it is corrupt).
    #[error(
        "cannot open the response cache {}: {source} \
         (hint: the cache is safe to delete; or choose another --cache-path / cache_path)",
        path.display()
    )]
    Open {
        /// The cache file.
        path: PathBuf,
        /// Cause.
        source: rusqlite::Error,
    },
    /// The file is a SQLite database, but not an svbench response cache (or
    /// one in a format this version does not know); it is left untouched.
    #[error(
        "{} is not an svbench response cache: {reason} \
         (hint: choose another --cache-path / cache_path, or delete the file if it is an old cache)",
        path.display()
    )]
    NotACache {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// The file system refused write-ahead logging for the file.
    #[error(
        "the response cache {} cannot use write-ahead logging (journal mode stayed `{journal_mode}`); \
         hint: put the cache on a local file system",
        path.display()
    )]
    NoWal {
        /// The cache file.
        path: PathBuf,
        /// The journal mode SQLite reported.
        journal_mode: String,
    },
    /// A lookup or store failed.
    #[error("response cache {}: {source}", path.display())]
    Sqlite {
        /// The cache file.
        path: PathBuf,
        /// Cause.
        source: rusqlite::Error,
    },
    /// A stored response is not valid JSON (the file was edited or damaged).
    #[error(
        "response cache {} holds an unreadable response for key {key}: {source} \
         (hint: the cache is safe to delete)",
        path.display()
    )]
    CorruptEntry {
        /// The cache file.
        path: PathBuf,
        /// The entry's key.
        key: String,
        /// Cause.
        source: serde_json::Error,
    },
}

/// The response cache: one SQLite file (WAL, 5 s busy timeout) shared by
/// every task of a process, and safely by several processes.
///
/// [`get`](Self::get) and [`put`](Self::put) are short synchronous calls on
/// one connection behind a mutex, with prepared statements kept cached; async
/// callers may run them in `spawn_blocking`.
pub struct ResponseCache {
    path: PathBuf,
    handle: Mutex<Handle>,
}

/// The open connection and the identity of the file it opened.
struct Handle {
    conn: Connection,
    file: Option<FileId>,
}

impl Handle {
    /// Opens the file, creating its parent directories first.
    fn open(path: &Path) -> Result<Self, CacheError> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| CacheError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let conn = connect(path)?;
        Ok(Self {
            conn,
            file: file_id(path),
        })
    }
}

impl fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseCache")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ResponseCache {
    /// Opens the cache at `path`, creating its parent directories, the file
    /// and the `responses` table as needed, and switches it to WAL.
    ///
    /// A file that is not a SQLite database, or a database that is not an
    /// svbench response cache, is an error naming the path; it is never
    /// overwritten.
    pub fn open(path: &Path) -> Result<Self, CacheError> {
        Ok(Self {
            path: path.to_path_buf(),
            handle: Mutex::new(Handle::open(path)?),
        })
    }

    /// `<user cache dir>/svbench/responses.sqlite` (`$XDG_CACHE_HOME` or
    /// `~/.cache` on Linux), or `None` when the platform has no cache
    /// directory.
    pub fn default_path() -> Option<PathBuf> {
        dirs::cache_dir().map(|dir| dir.join("svbench").join("responses.sqlite"))
    }

    /// The file this cache reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key of a request: lowercase hex SHA-256 of the canonical JSON of
    /// `{"v":1, base_url, model, messages, tools, tool_choice, params,
    /// rollout_index}`, where `model`, `messages`, `tools` and `tool_choice`
    /// are those fields of `body` (null when absent) and `params` is the
    /// object of all the body's other fields (temperature, top_p, the token
    /// limit, seed, stop, response_format, merged `extra_body` fields, …).
    ///
    /// `body` is the request body as sent; the order of its keys does not
    /// matter, and trailing `/` on `base_url` is ignored. Headers and API keys
    /// are not part of a body and have no way into the key.
    pub fn key(base_url: &str, body: &Value, rollout_index: usize) -> String {
        super::key::request_key(base_url, body, rollout_index)
    }

    /// The response stored under `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<Value>, CacheError> {
        let stored: Option<String> = self.with_conn(|conn| {
            conn.prepare_cached(SELECT)?
                .query_row([key], |row| row.get(0))
                .optional()
        })?;
        stored
            .map(|text| {
                serde_json::from_str(&text).map_err(|source| CacheError::CorruptEntry {
                    path: self.path.clone(),
                    key: key.to_owned(),
                    source,
                })
            })
            .transpose()
    }

    /// Stores `response` under `key`, replacing any earlier entry, with the
    /// endpoint's `base_url`, the requested `model`, the current UTC time and
    /// this svbench version. The caller stores only well-formed successes.
    pub fn put(
        &self,
        key: &str,
        response: &Value,
        base_url: &str,
        model: &str,
    ) -> Result<(), CacheError> {
        let response_json = response.to_string();
        let created_at = Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true);
        self.with_conn(|conn| {
            conn.prepare_cached(UPSERT)?
                .execute(params![
                    key,
                    response_json,
                    base_url,
                    model,
                    created_at,
                    env!("CARGO_PKG_VERSION"),
                ])
                .map(drop)
        })
    }

    /// Runs `op` on the connection, first reopening the path if the file was
    /// deleted or replaced since it was opened. (SQLite would go on reading
    /// and writing the unlinked file, serving entries the user meant to
    /// drop and losing new ones.) One `stat` per call buys that.
    fn with_conn<T>(
        &self,
        op: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, CacheError> {
        let mut handle = self.lock();
        if handle.file.is_some() && file_id(&self.path) != handle.file {
            *handle = Handle::open(&self.path)?;
        }
        op(&handle.conn).map_err(|source| CacheError::Sqlite {
            path: self.path.clone(),
            source,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Handle> {
        // A panic while the lock was held cannot leave the connection
        // half-changed: every statement is its own transaction.
        self.handle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Device and inode of the file at a path.
type FileId = (u64, u64);

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Elsewhere an open file cannot be deleted, so there is nothing to detect.
#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<FileId> {
    None
}

/// Opens `path` and makes it a ready cache: busy timeout, WAL, and the
/// `responses` table checked or created.
fn connect(path: &Path) -> Result<Connection, CacheError> {
    let open_err = |source| CacheError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open(path).map_err(open_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
    let journal_mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
        .map_err(open_err)?;
    if !journal_mode.eq_ignore_ascii_case("wal") {
        return Err(CacheError::NoWal {
            path: path.to_path_buf(),
            journal_mode,
        });
    }
    // In WAL mode NORMAL loses no consistency, only (on power loss) the last
    // few entries, which a cache can afford; it spares an fsync per store.
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(open_err)?;
    // Checkpoints (the only fsyncs left) every ~16 MB of log instead of
    // SQLite's ~4 MB: about a third more stores per second.
    conn.pragma_update(None, "wal_autocheckpoint", 4000)
        .map_err(open_err)?;
    match ensure_schema(&mut conn) {
        Ok(Ok(())) => Ok(conn),
        Ok(Err(reason)) => Err(CacheError::NotACache {
            path: path.to_path_buf(),
            reason,
        }),
        Err(source) => Err(open_err(source)),
    }
}

/// Creates the table in an empty database, or checks that a non-empty one is
/// an svbench cache; `Ok(Err(reason))` when it is not. Runs in an immediate
/// transaction so that processes opening a new file at once agree.
fn ensure_schema(conn: &mut Connection) -> rusqlite::Result<Result<(), String>> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let application_id: i64 = tx.pragma_query_value(None, "application_id", |row| row.get(0))?;
    let user_version: i64 = tx.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if application_id != 0 && application_id != APPLICATION_ID {
        return Ok(Err(format!(
            "it belongs to another application (application_id {application_id:#x})"
        )));
    }
    let tables: Vec<String> = tx
        .prepare(
            "SELECT name FROM sqlite_master \
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
             ORDER BY name",
        )?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if tables.is_empty() {
        tx.execute_batch(CREATE_TABLE)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.commit()?;
        return Ok(Ok(()));
    }
    if tables != ["responses"] {
        return Ok(Err(format!(
            "it holds other tables ({})",
            tables.join(", ")
        )));
    }
    if user_version > SCHEMA_VERSION {
        return Ok(Err(format!(
            "it was written by a newer svbench (cache format {user_version}, this one reads {SCHEMA_VERSION})"
        )));
    }
    let columns: Vec<(String, String, i64, i64)> = tx
        .prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info('responses')")?
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let as_expected = columns.len() == EXPECTED_COLUMNS.len()
        && columns
            .iter()
            .zip(EXPECTED_COLUMNS)
            .all(|(found, expected)| {
                found.0 == expected.0
                    && found.1.eq_ignore_ascii_case(expected.1)
                    && (found.2, found.3) == (expected.2, expected.3)
            });
    if !as_expected {
        let names: Vec<&str> = columns.iter().map(|c| c.0.as_str()).collect();
        return Ok(Err(format!(
            "its responses table has other columns ({})",
            names.join(", ")
        )));
    }
    Ok(Ok(()))
}

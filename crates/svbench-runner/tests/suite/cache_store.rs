//! The response cache file: round trips, replacement, concurrent use,
//! deletion, WAL, and files that are not caches (harness §2.5).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use rusqlite::Connection;
use serde_json::{json, Value};
use svbench_runner::cache::{CacheError, ResponseCache};

const BASE_URL: &str = "http://127.0.0.1:8000/v1";

/// A temp dir with the cache path inside it (the file does not exist yet).
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("svbench").join("responses.sqlite");
    (dir, path)
}

fn response(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "qwen3-4b",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "reasoning_content": null},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 41, "completion_tokens": 9, "total_tokens": 50},
        "system_fingerprint": "fp_ü✓"
    })
}

fn key(n: usize) -> String {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": format!("q{n}")}],
                      "temperature": 0});
    ResponseCache::key(BASE_URL, &body, 0)
}

/// A plain connection to inspect the file the way another tool would.
fn inspect(path: &Path) -> Connection {
    Connection::open(path).expect("open for inspection")
}

fn row_count(path: &Path) -> i64 {
    inspect(path)
        .query_row("SELECT count(*) FROM responses", [], |r| r.get(0))
        .expect("count")
}

fn open_err(path: &Path) -> CacheError {
    ResponseCache::open(path).expect_err("open should fail")
}

#[test]
fn cache_is_send_sync_and_debug_names_the_file() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ResponseCache>();
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    assert_eq!(cache.path(), path);
    assert!(format!("{cache:?}").contains("responses.sqlite"));
}

#[test]
fn default_path_is_under_the_user_cache_dir() {
    if let Some(path) = ResponseCache::default_path() {
        assert!(path.ends_with("svbench/responses.sqlite"), "{path:?}");
        assert!(path.is_absolute());
    }
}

#[test]
fn open_creates_parent_dirs_and_the_exact_table() {
    let (dir, _) = scratch();
    let path = dir.path().join("a").join("b").join("c.sqlite");
    ResponseCache::open(&path).expect("open");
    assert!(path.is_file());
    let conn = inspect(&path);
    let columns: Vec<(String, String, bool, bool)> = conn
        .prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info('responses')")
        .expect("prepare")
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, i64>(3)? > 0))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let expected = [
        ("key", false, true),
        ("response_json", true, false),
        ("base_url", true, false),
        ("model", true, false),
        ("created_at", true, false),
        ("svbench_version", true, false),
    ];
    assert_eq!(columns.len(), expected.len());
    for ((name, ty, not_null, pk), (e_name, e_not_null, e_pk)) in columns.iter().zip(expected) {
        assert_eq!(
            (name.as_str(), ty.as_str(), *not_null, *pk),
            (e_name, "TEXT", e_not_null, e_pk)
        );
    }
}

#[test]
fn wal_mode_is_on_and_persistent() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(0), &response("x"), BASE_URL, "m")
        .expect("put");
    let mode: String = inspect(&path)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("journal_mode");
    assert_eq!(mode, "wal");
    assert!(PathBuf::from(format!("{}-wal", path.display())).exists());
}

#[test]
fn put_then_get_round_trips_the_response_exactly() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    assert_eq!(cache.get(&key(1)).expect("get"), None);
    let stored = json!({
        "choices": [{"message": {"content": "{\"label\":\"Malicious\",\"confidence\":0.9}"}}],
        "usage": {"completion_tokens_details": {"reasoning_tokens": 0}},
        "floats": [0.1, 1e-7, 123456789.123, -0.0],
        "z_first": 1, "a_second": 2
    });
    cache.put(&key(1), &stored, BASE_URL, "m").expect("put");
    let got = cache.get(&key(1)).expect("get").expect("hit");
    assert_eq!(got, stored);
    // Same bytes back, key order included (records are written in order).
    assert_eq!(got.to_string(), stored.to_string());
    assert_eq!(cache.get(&key(2)).expect("get"), None);
}

#[test]
fn put_records_endpoint_model_time_and_version_but_nothing_else() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(3), &response("ok"), BASE_URL, "Qwen/Qwen3-4B")
        .expect("put");
    let (base_url, model, created_at, version): (String, String, String, String) = inspect(&path)
        .query_row(
            "SELECT base_url, model, created_at, svbench_version FROM responses WHERE key = ?1",
            [key(3)],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .expect("row");
    assert_eq!(base_url, BASE_URL);
    assert_eq!(model, "Qwen/Qwen3-4B");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let parsed = chrono::DateTime::parse_from_rfc3339(&created_at).expect("RFC 3339");
    assert_eq!(parsed.offset().local_minus_utc(), 0);
    assert!(created_at.ends_with('Z'), "{created_at}");
    let age = chrono::Utc::now().signed_duration_since(parsed);
    assert!(age.num_minutes().abs() < 5, "{created_at}");
}

#[test]
fn put_again_replaces_the_entry() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(4), &response("first"), BASE_URL, "m")
        .expect("put");
    cache
        .put(&key(4), &response("second"), BASE_URL, "m2")
        .expect("put");
    assert_eq!(cache.get(&key(4)).expect("get"), Some(response("second")));
    assert_eq!(row_count(&path), 1);
    let model: String = inspect(&path)
        .query_row("SELECT model FROM responses", [], |r| r.get(0))
        .expect("model");
    assert_eq!(model, "m2");
}

#[test]
fn entries_survive_reopening() {
    let (_dir, path) = scratch();
    {
        let cache = ResponseCache::open(&path).expect("open");
        cache
            .put(&key(5), &response("kept"), BASE_URL, "m")
            .expect("put");
    }
    let cache = ResponseCache::open(&path).expect("reopen");
    assert_eq!(cache.get(&key(5)).expect("get"), Some(response("kept")));
}

#[test]
fn many_threads_and_two_handles_share_one_file() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 150;
    let (_dir, path) = scratch();
    let first = Arc::new(ResponseCache::open(&path).expect("open"));
    // A second handle on the same file stands in for a second process.
    let second = Arc::new(ResponseCache::open(&path).expect("open again"));
    let barrier = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let cache = if t % 2 == 0 {
                first.clone()
            } else {
                second.clone()
            };
            let barrier = barrier.clone();
            thread::spawn(move || {
                barrier.wait();
                for i in 0..PER_THREAD {
                    let n = t * PER_THREAD + i;
                    let k = key(n);
                    assert_eq!(cache.get(&k).expect("get"), None);
                    cache
                        .put(&k, &response(&n.to_string()), BASE_URL, "m")
                        .expect("put");
                    assert_eq!(cache.get(&k).expect("get"), Some(response(&n.to_string())));
                    // Read another thread's entries as they appear.
                    let _ = cache
                        .get(&key((n + PER_THREAD) % (THREADS * PER_THREAD)))
                        .expect("get");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker panicked");
    }
    for n in 0..THREADS * PER_THREAD {
        let handle = if n % 3 == 0 { &first } else { &second };
        assert_eq!(
            handle.get(&key(n)).expect("get"),
            Some(response(&n.to_string()))
        );
    }
    assert_eq!(row_count(&path), (THREADS * PER_THREAD) as i64);
}

#[test]
fn busy_timeout_waits_for_another_writer() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    let mut other = inspect(&path);
    let locked = Arc::new(Barrier::new(2));
    let holder = {
        let locked = locked.clone();
        thread::spawn(move || {
            let tx = other
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .expect("write lock");
            locked.wait();
            thread::sleep(Duration::from_millis(300));
            tx.commit().expect("commit");
        })
    };
    locked.wait();
    // Without a busy timeout this would fail at once with SQLITE_BUSY.
    cache
        .put(&key(6), &response("waited"), BASE_URL, "m")
        .expect("put waits");
    holder.join().expect("holder");
    assert_eq!(cache.get(&key(6)).expect("get"), Some(response("waited")));
}

fn remove_cache_files(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("remove {}: {e}", file.display()),
        }
    }
}

#[test]
fn reopen_after_delete_starts_empty() {
    let (_dir, path) = scratch();
    {
        let cache = ResponseCache::open(&path).expect("open");
        cache
            .put(&key(7), &response("gone"), BASE_URL, "m")
            .expect("put");
    }
    remove_cache_files(&path);
    std::fs::remove_dir(path.parent().expect("parent")).expect("remove dir");
    let cache = ResponseCache::open(&path).expect("reopen recreates");
    assert_eq!(cache.get(&key(7)).expect("get"), None);
    cache
        .put(&key(7), &response("new"), BASE_URL, "m")
        .expect("put");
    assert_eq!(cache.get(&key(7)).expect("get"), Some(response("new")));
}

#[test]
fn deleting_the_file_while_open_is_safe() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(8), &response("old"), BASE_URL, "m")
        .expect("put");
    remove_cache_files(&path);
    // The next store goes to a fresh file at the same path.
    cache
        .put(&key(9), &response("after"), BASE_URL, "m")
        .expect("put after delete");
    assert!(path.is_file());
    assert_eq!(cache.get(&key(9)).expect("get"), Some(response("after")));
    assert_eq!(cache.get(&key(8)).expect("get"), None);
    let fresh = ResponseCache::open(&path).expect("open fresh");
    assert_eq!(fresh.get(&key(9)).expect("get"), Some(response("after")));
}

#[test]
fn deleting_the_whole_cache_directory_while_open_is_safe() {
    let (dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(13), &response("old"), BASE_URL, "m")
        .expect("put");
    std::fs::remove_dir_all(dir.path().join("svbench")).expect("rm -r");
    assert_eq!(cache.get(&key(13)).expect("get recreates"), None);
    assert!(path.is_file());
}

#[test]
fn a_directory_where_the_parent_should_be_is_an_error_naming_it() {
    let (dir, _) = scratch();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").expect("write");
    let path = blocker.join("responses.sqlite");
    let err = open_err(&path);
    assert!(matches!(err, CacheError::CreateDir { .. }), "{err:?}");
    assert_names_path(&err, &blocker);
}

#[test]
fn an_empty_file_is_a_new_cache() {
    let (_dir, path) = scratch();
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, b"").expect("touch");
    let cache = ResponseCache::open(&path).expect("open empty file");
    cache
        .put(&key(10), &response("x"), BASE_URL, "m")
        .expect("put");
    assert_eq!(row_count(&path), 1);
}

fn assert_names_path(err: &CacheError, path: &Path) {
    let message = err.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "message does not name {}: {message}",
        path.display()
    );
}

#[test]
fn a_file_that_is_not_sqlite_is_an_error_naming_it_and_left_alone() {
    let (dir, _) = scratch();
    for (name, bytes) in [
        ("text.sqlite", b"this is not a database\n".repeat(200)),
        ("short.sqlite", b"hello".to_vec()),
        (
            "truncated-header.sqlite",
            b"SQLite format 3\0\x10\0".to_vec(),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).expect("write");
        let err = open_err(&path);
        assert!(matches!(err, CacheError::Open { .. }), "{name}: {err:?}");
        assert_names_path(&err, &path);
        assert!(err.to_string().contains("safe to delete"), "{err}");
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "{name} was modified"
        );
    }
}

#[test]
fn a_directory_at_the_path_is_an_error_naming_it() {
    let (dir, _) = scratch();
    let path = dir.path().join("is-a-dir");
    std::fs::create_dir(&path).expect("mkdir");
    let err = open_err(&path);
    assert_names_path(&err, &path);
}

#[test]
fn a_foreign_database_is_refused_and_untouched() {
    let (dir, _) = scratch();
    let path = dir.path().join("foreign.sqlite");
    inspect(&path)
        .execute_batch("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ada');")
        .expect("create foreign");
    let err = open_err(&path);
    assert!(matches!(err, CacheError::NotACache { .. }), "{err:?}");
    assert_names_path(&err, &path);
    assert!(err.to_string().contains("users"), "{err}");
    let tables: Vec<String> = inspect(&path)
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(tables, ["users"]);
}

#[test]
fn another_applications_id_or_an_unknown_layout_is_refused() {
    let (dir, _) = scratch();
    let cases = [
        (
            "app-id.sqlite",
            "PRAGMA application_id = 1234;",
            "application_id",
        ),
        (
            "columns.sqlite",
            "CREATE TABLE responses(key TEXT PRIMARY KEY, body BLOB);",
            "columns",
        ),
        (
            "newer.sqlite",
            "CREATE TABLE responses(key TEXT PRIMARY KEY, response_json TEXT NOT NULL, \
             base_url TEXT NOT NULL, model TEXT NOT NULL, created_at TEXT NOT NULL, \
             svbench_version TEXT NOT NULL); PRAGMA user_version = 99;",
            "newer",
        ),
    ];
    for (name, sql, expected) in cases {
        let path = dir.path().join(name);
        inspect(&path).execute_batch(sql).expect("prepare file");
        let err = open_err(&path);
        assert!(
            matches!(err, CacheError::NotACache { .. }),
            "{name}: {err:?}"
        );
        assert_names_path(&err, &path);
        assert!(err.to_string().contains(expected), "{name}: {err}");
    }
}

#[test]
fn a_cache_made_by_another_tool_with_the_spec_table_is_accepted() {
    let (dir, _) = scratch();
    let path = dir.path().join("handmade.sqlite");
    inspect(&path)
        .execute_batch(
            "CREATE TABLE responses(key text primary key, response_json text not null, \
             base_url text not null, model text not null, created_at text not null, \
             svbench_version text not null);",
        )
        .expect("create");
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(11), &response("x"), BASE_URL, "m")
        .expect("put");
    assert_eq!(cache.get(&key(11)).expect("get"), Some(response("x")));
}

#[test]
fn an_unreadable_stored_response_is_an_error_naming_file_and_key() {
    let (_dir, path) = scratch();
    let cache = ResponseCache::open(&path).expect("open");
    cache
        .put(&key(12), &response("x"), BASE_URL, "m")
        .expect("put");
    inspect(&path)
        .execute(
            "UPDATE responses SET response_json = '{\"choices\": [' ",
            [],
        )
        .expect("damage");
    let err = cache.get(&key(12)).expect_err("damaged entry");
    assert!(matches!(err, CacheError::CorruptEntry { .. }), "{err:?}");
    assert_names_path(&err, &path);
    assert!(err.to_string().contains(&key(12)), "{err}");
    // Storing a good response repairs the entry.
    cache
        .put(&key(12), &response("y"), BASE_URL, "m")
        .expect("put");
    assert_eq!(cache.get(&key(12)).expect("get"), Some(response("y")));
}

#[test]
fn damaged_pages_give_errors_not_panics() {
    let (_dir, path) = scratch();
    {
        let cache = ResponseCache::open(&path).expect("open");
        for n in 0..300 {
            cache
                .put(&key(n), &response(&"z".repeat(500)), BASE_URL, "m")
                .expect("put");
        }
    }
    // Fold the WAL into the main file, then overwrite pages after the first.
    inspect(&path)
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
    let mut bytes = std::fs::read(&path).expect("read");
    assert!(bytes.len() > 16_384);
    for b in &mut bytes[4096..16_384] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).expect("write");
    match ResponseCache::open(&path) {
        Err(err) => assert_names_path(&err, &path),
        Ok(cache) => {
            let mut failures = 0;
            for n in 0..300 {
                match cache.get(&key(n)) {
                    Ok(_) => {}
                    Err(err) => {
                        assert_names_path(&err, &path);
                        failures += 1;
                    }
                }
            }
            assert!(failures > 0, "damage went unnoticed");
        }
    }
}

//! Opening the database and migrating it, on either backend.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use docsieve_migrations::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, SqlxSqliteConnector, Statement,
};

use super::{Backend, Store, StoreError};

/// Arbitrary but fixed key of the PostgreSQL advisory lock that serialises migrations.
const MIGRATION_LOCK_KEY: i64 = 0x646f_6373_6965_7665; // "docsieve"

/// What the store needs from the configuration.
#[derive(Clone, Debug)]
pub struct StoreSettings {
    /// `sqlite://PATH` or `postgres://...`.
    pub url: String,
    pub max_connections: u32,
    pub busy_timeout: Duration,
    pub connect_timeout: Duration,
    /// How long the audit writer waits after an HTTP request's entry for others to share its write.
    pub audit_linger: Duration,
    /// Document jobs up to this size go to the small lane (`jobs.small_max_bytes`).
    pub small_max_bytes: i64,
}

fn backend_of(url: &str) -> Result<Backend, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Backend::Sqlite)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Backend::Postgres)
    } else {
        Err(StoreError::InvalidUrl(
            "database.url must start with sqlite:// or postgres://".to_string(),
        ))
    }
}

/// The file path of a `sqlite://` URL (query string removed).
fn sqlite_path(url: &str) -> PathBuf {
    let rest = url
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:");
    let path = rest.split('?').next().unwrap_or(rest);
    PathBuf::from(path)
}

async fn connect_sqlite(settings: &StoreSettings) -> Result<DatabaseConnection, StoreError> {
    let path = sqlite_path(&settings.url);
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::SqliteFile {
            path: parent.display().to_string(),
            source,
        })?;
    }
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        .map_err(|error| StoreError::InvalidUrl(error.to_string()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(settings.busy_timeout)
        .foreign_keys(true)
        // A deleted row's bytes are overwritten with zeros in the page that held it, not left in a
        // freed page for anyone who copies the file (erasure, retention and closure rely on it; see
        // `Store::scrub_freed` for the write-ahead log).
        .pragma("secure_delete", "ON");
    // A connection to an embedded database cannot go stale: pinging it through its worker thread before
    // every query (sqlx's default) only added a round trip per statement.
    let pool = SqlitePoolOptions::new()
        .test_before_acquire(false)
        .max_connections(settings.max_connections)
        .acquire_timeout(settings.connect_timeout)
        .connect_with(options)
        .await
        .map_err(|error| {
            StoreError::Database(sea_orm::DbErr::Conn(sea_orm::RuntimeErr::SqlxError(error)))
        })?;
    Ok(SqlxSqliteConnector::from_sqlx_sqlite_pool(pool))
}

async fn connect_postgres(
    url: &str,
    max_connections: u32,
    connect_timeout: Duration,
) -> Result<DatabaseConnection, StoreError> {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .max_connections(max_connections)
        .min_connections(1)
        .connect_timeout(connect_timeout)
        .acquire_timeout(connect_timeout)
        .sqlx_logging(false);
    Ok(Database::connect(options).await?)
}

/// Counts every statement the pool sends, read or write (`docsieve_db_statements_total{kind}`): the
/// load example reports them per document. Two counter handles made once; a statement costs an
/// increment.
fn count_statements(db: &mut DatabaseConnection) {
    let reads = metrics::counter!(crate::metric_names::DB_STATEMENTS_TOTAL, "kind" => "read");
    let writes = metrics::counter!(crate::metric_names::DB_STATEMENTS_TOTAL, "kind" => "write");
    db.set_metric_callback(move |info| {
        let sql = info.statement.sql.trim_start();
        let read = sql
            .get(..6)
            .is_some_and(|first| first.eq_ignore_ascii_case("SELECT"));
        if read {
            reads.increment(1);
        } else {
            writes.increment(1);
        }
    });
}

impl Store {
    /// Connects without migrating (used by `serve` after [`Store::migrate`], and by tools).
    pub async fn connect(settings: &StoreSettings) -> Result<Store, StoreError> {
        let backend = backend_of(&settings.url)?;
        let mut db = match backend {
            Backend::Sqlite => connect_sqlite(settings).await?,
            Backend::Postgres => {
                connect_postgres(
                    &settings.url,
                    settings.max_connections,
                    settings.connect_timeout,
                )
                .await?
            }
        };
        count_statements(&mut db);
        // On SQLite the writers of the process (the audit and credit writers, the job queue's writes)
        // take turns before they ask for the database's one write lock: a writer that found it taken
        // would sleep in SQLite's busy handler (steps of up to 100 ms) instead of starting the moment
        // the other one commits (see `Store::write_turn`).
        let gate = (backend == Backend::Sqlite).then(|| Arc::new(tokio::sync::Mutex::new(())));
        let audit = super::audit::AuditQueue::start(&db, settings.audit_linger, gate.clone());
        let bare = Store {
            db,
            backend,
            audit: None,
            credits: None,
            completer: None,
            subject_indexer: None,
            gate,
            small_max_bytes: settings.small_max_bytes,
        };
        // The completer nudges the subject index writer: it holds a store that knows the writer.
        let bare = Store {
            subject_indexer: super::subject_queue::start(&bare),
            ..bare
        };
        let credits = super::credits::start(&bare);
        let completer = super::completer::start(&bare);
        Ok(Store {
            audit,
            credits,
            completer,
            ..bare
        })
    }

    /// Applies pending migrations. On PostgreSQL this runs on one dedicated session holding an advisory
    /// lock, so several processes starting together migrate once and the others wait.
    pub async fn migrate(settings: &StoreSettings) -> Result<(), StoreError> {
        match backend_of(&settings.url)? {
            Backend::Sqlite => {
                let store = Store::connect(settings).await?;
                Migrator::up(&store.db, None).await?;
                store.close().await
            }
            Backend::Postgres => {
                let session = connect_postgres(&settings.url, 1, settings.connect_timeout).await?;
                let backend = session.get_database_backend();
                session
                    .execute(Statement::from_string(
                        backend,
                        format!("SELECT pg_advisory_lock({MIGRATION_LOCK_KEY})"),
                    ))
                    .await?;
                let migrated = Migrator::up(&session, None).await;
                let unlocked = session
                    .execute(Statement::from_string(
                        backend,
                        format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_KEY})"),
                    ))
                    .await;
                session.close().await?;
                migrated?;
                unlocked?;
                Ok(())
            }
        }
    }

    /// The names of the migrations applied so far, oldest first.
    pub async fn applied_migrations(&self) -> Result<Vec<String>, StoreError> {
        let applied = Migrator::get_applied_migrations(&self.db).await?;
        Ok(applied.iter().map(|m| m.name().to_string()).collect())
    }
}

/// The SQLite URL for a database file inside `data_dir` (the default when `database.url` is empty).
pub fn default_sqlite_url(data_dir: &Path) -> String {
    format!("sqlite://{}", data_dir.join("docsieve.sqlite3").display())
}

impl StoreSettings {
    /// A SQLite file inside `data_dir` with a small pool, for tests, benchmarks and tools (the server
    /// builds its settings from the configuration instead).
    pub fn sqlite_in(data_dir: &Path) -> StoreSettings {
        StoreSettings {
            url: default_sqlite_url(data_dir),
            max_connections: 4,
            busy_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            audit_linger: Duration::from_millis(1),
            small_max_bytes: 64 * 1024,
        }
    }
}

impl Store {
    /// A migrated SQLite store in `data_dir` ([`StoreSettings::sqlite_in`]), for unit tests.
    #[cfg(test)]
    pub(crate) async fn sqlite_for_tests(data_dir: &Path) -> Store {
        let settings = StoreSettings::sqlite_in(data_dir);
        Store::migrate(&settings).await.expect("migrate");
        Store::connect(&settings).await.expect("connect")
    }

    /// The steps of the plan SQLite picks for `sql` (`EXPLAIN QUERY PLAN`), for tests that a
    /// statement's cost does not grow with a table.
    #[cfg(test)]
    pub(crate) async fn query_plan(&self, sql: &str, values: Vec<sea_orm::Value>) -> Vec<String> {
        use sea_orm::ConnectionTrait;
        self.connection()
            .query_all(self.statement(&format!("EXPLAIN QUERY PLAN {sql}"), values))
            .await
            .expect("explain")
            .iter()
            .map(|row| row.try_get::<String>("", "detail").expect("detail"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_is_chosen_by_scheme() {
        assert_eq!(backend_of("sqlite://x.db").ok(), Some(Backend::Sqlite));
        assert_eq!(
            backend_of("postgres://u@h/db").ok(),
            Some(Backend::Postgres)
        );
        assert_eq!(
            backend_of("postgresql://u@h/db").ok(),
            Some(Backend::Postgres)
        );
        assert!(backend_of("mysql://h/db").is_err());
    }

    #[test]
    fn sqlite_path_drops_scheme_and_query() {
        assert_eq!(
            sqlite_path("sqlite:///tmp/a.db?mode=rwc"),
            PathBuf::from("/tmp/a.db")
        );
        assert_eq!(
            sqlite_path("sqlite://data/a.db"),
            PathBuf::from("data/a.db")
        );
    }

    #[tokio::test]
    async fn migrates_a_fresh_sqlite_file_twice() {
        let dir = tempfile::tempdir().expect("tempdir");
        let settings = StoreSettings {
            max_connections: 2,
            ..StoreSettings::sqlite_in(dir.path())
        };
        Store::migrate(&settings).await.expect("first migration");
        Store::migrate(&settings)
            .await
            .expect("second migration is a no-op");
        let store = Store::connect(&settings).await.expect("connect");
        let applied = store.applied_migrations().await.expect("applied");
        assert_eq!(applied[0], "m20261121_000001_initial");
        use docsieve_migrations::MigratorTrait;
        assert_eq!(
            applied.len(),
            docsieve_migrations::Migrator::migrations().len()
        );
        assert!(store.ping().await.is_ok());
    }
}

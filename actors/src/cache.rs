//! Shared short-lived state: rate-limit windows, locks and wake-ups.
//!
//! Redis when `redis.url` is set (so several processes agree), an in-process implementation of the same
//! trait otherwise. Windows are measured with the service [`Clock`], not Redis TTLs, so time-based rules
//! behave the same on both and tests can move time. Never stores personal data or secrets in clear.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use tokio::sync::broadcast;

use crate::clock::Clock;

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("redis error: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("redis pool error: {0}")]
    Pool(String),
    #[error("invalid redis.url: {0}")]
    InvalidUrl(String),
}

/// A counter inside a fixed time window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowCount {
    /// Hits in the current window, including this one.
    pub count: u64,
    /// Time until the window closes.
    pub remaining: Duration,
}

#[async_trait]
pub trait Cache: Send + Sync {
    /// `redis` or `in-process`.
    fn kind(&self) -> &'static str;
    /// Counts one hit on `key` in a window of `window` that opens with the first hit.
    async fn hit(&self, key: &str, window: Duration) -> Result<WindowCount, CacheError>;
    /// Time left in `key`'s open window, if one is open.
    async fn remaining(&self, key: &str) -> Result<Option<Duration>, CacheError>;
    /// Closes `key`'s window (resets the count).
    async fn clear(&self, key: &str) -> Result<(), CacheError>;
    /// Takes the lock `key` for `ttl` if nobody holds it; returns the token that releases it.
    async fn try_lock(&self, key: &str, ttl: Duration) -> Result<Option<String>, CacheError>;
    /// Releases the lock if `token` still holds it.
    async fn unlock(&self, key: &str, token: &str) -> Result<bool, CacheError>;
    /// Wakes every subscriber of `channel`, in every process.
    async fn wake(&self, channel: &str) -> Result<(), CacheError>;
    /// Channel names woken from now on.
    fn wakeups(&self) -> broadcast::Receiver<String>;
    /// One round trip to the backing service.
    async fn ping(&self) -> Result<Duration, CacheError>;
}

/// The wake-up channel of queued jobs (the job routers listen).
pub const JOBS_WAKE: &str = "jobs";
/// The wake-up channel of new webhook outbox rows (the webhook senders listen).
pub const WEBHOOKS_WAKE: &str = "webhooks";
/// The wake-up channel of new fine-tune jobs (the fine-tuners listen).
pub const FINE_TUNE_WAKE: &str = "fine_tune";

/// Calls `wake` for every wake-up of `channel` (and after missed ones) until the cache goes away.
pub async fn on_wake(
    mut wakeups: broadcast::Receiver<String>,
    channel: &'static str,
    wake: impl Fn(),
) {
    loop {
        match wakeups.recv().await {
            Ok(name) if name == channel => wake(),
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => wake(),
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

fn new_token() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

// ---------------------------------------------------------------------------------------------------
// In-process

struct Window {
    count: u64,
    closes_at_ms: i64,
}

struct Lock {
    token: String,
    until: Instant,
}

/// The in-process cache for a single `docsieve serve`.
pub struct LocalCache {
    clock: Clock,
    windows: Mutex<HashMap<String, Window>>,
    locks: Mutex<HashMap<String, Lock>>,
    wakeups: broadcast::Sender<String>,
}

fn guard<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl LocalCache {
    pub fn new(clock: Clock) -> LocalCache {
        LocalCache {
            clock,
            windows: Mutex::new(HashMap::new()),
            locks: Mutex::new(HashMap::new()),
            wakeups: broadcast::channel(1024).0,
        }
    }

    fn now_ms(&self) -> i64 {
        self.clock.now().timestamp_millis()
    }
}

#[async_trait]
impl Cache for LocalCache {
    fn kind(&self) -> &'static str {
        "in-process"
    }

    async fn hit(&self, key: &str, window: Duration) -> Result<WindowCount, CacheError> {
        let now = self.now_ms();
        let mut windows = guard(&self.windows);
        // Bound memory: drop closed windows once the map grows.
        if windows.len() > 100_000 {
            windows.retain(|_, w| w.closes_at_ms > now);
        }
        let entry = windows.entry(key.to_string()).or_insert(Window {
            count: 0,
            closes_at_ms: now + millis(window),
        });
        if entry.closes_at_ms <= now {
            entry.count = 0;
            entry.closes_at_ms = now + millis(window);
        }
        entry.count += 1;
        Ok(WindowCount {
            count: entry.count,
            remaining: Duration::from_millis((entry.closes_at_ms - now).max(0) as u64),
        })
    }

    async fn remaining(&self, key: &str) -> Result<Option<Duration>, CacheError> {
        let now = self.now_ms();
        Ok(guard(&self.windows)
            .get(key)
            .filter(|w| w.closes_at_ms > now)
            .map(|w| Duration::from_millis((w.closes_at_ms - now) as u64)))
    }

    async fn clear(&self, key: &str) -> Result<(), CacheError> {
        guard(&self.windows).remove(key);
        Ok(())
    }

    async fn try_lock(&self, key: &str, ttl: Duration) -> Result<Option<String>, CacheError> {
        let now = Instant::now();
        let mut locks = guard(&self.locks);
        if locks.get(key).is_some_and(|lock| lock.until > now) {
            return Ok(None);
        }
        let token = new_token();
        locks.insert(
            key.to_string(),
            Lock {
                token: token.clone(),
                until: now + ttl,
            },
        );
        Ok(Some(token))
    }

    async fn unlock(&self, key: &str, token: &str) -> Result<bool, CacheError> {
        let mut locks = guard(&self.locks);
        if locks.get(key).is_some_and(|lock| lock.token == token) {
            locks.remove(key);
            return Ok(true);
        }
        Ok(false)
    }

    async fn wake(&self, channel: &str) -> Result<(), CacheError> {
        // No receivers is fine: nobody is waiting.
        let _ = self.wakeups.send(channel.to_string());
        Ok(())
    }

    fn wakeups(&self) -> broadcast::Receiver<String> {
        self.wakeups.subscribe()
    }

    async fn ping(&self) -> Result<Duration, CacheError> {
        Ok(Duration::ZERO)
    }
}

// ---------------------------------------------------------------------------------------------------
// Redis

const HIT_SCRIPT: &str = r#"
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local closes = tonumber(redis.call('HGET', KEYS[1], 'closes') or '0')
if closes <= now then
  closes = now + window
  redis.call('HSET', KEYS[1], 'count', 0, 'closes', closes)
end
local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('PEXPIRE', KEYS[1], window + 86400000)
return {count, closes - now}
"#;

const UNLOCK_SCRIPT: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;

/// The Redis cache shared by every process of a deployment.
pub struct RedisCache {
    pool: deadpool_redis::Pool,
    prefix: String,
    clock: Clock,
    wakeups: broadcast::Sender<String>,
}

impl RedisCache {
    /// Creates the pool and starts the wake-up listener (it reconnects by itself).
    pub fn connect(url: &str, key_prefix: &str, clock: Clock) -> Result<RedisCache, CacheError> {
        let client =
            redis::Client::open(url).map_err(|error| CacheError::InvalidUrl(error.to_string()))?;
        let pool = deadpool_redis::Config::from_url(url)
            .create_pool(Some(deadpool_redis::Runtime::Tokio1))
            .map_err(|error| CacheError::Pool(error.to_string()))?;
        let (wakeups, _) = broadcast::channel(1024);
        let cache = RedisCache {
            pool,
            prefix: key_prefix.to_string(),
            clock,
            wakeups: wakeups.clone(),
        };
        tokio::spawn(listen_for_wakeups(
            client,
            format!("{key_prefix}wake:"),
            wakeups,
        ));
        Ok(cache)
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    async fn connection(&self) -> Result<deadpool_redis::Connection, CacheError> {
        self.pool
            .get()
            .await
            .map_err(|error| CacheError::Pool(error.to_string()))
    }
}

async fn listen_for_wakeups(
    client: redis::Client,
    channel_prefix: String,
    wakeups: broadcast::Sender<String>,
) {
    use futures_util::StreamExt;
    let mut delay = Duration::from_millis(200);
    loop {
        match client.get_async_pubsub().await {
            Ok(mut pubsub) => {
                if let Err(error) = pubsub.psubscribe(format!("{channel_prefix}*")).await {
                    tracing::warn!(%error, "redis wake-up subscription failed");
                } else {
                    delay = Duration::from_millis(200);
                    let mut messages = pubsub.on_message();
                    while let Some(message) = messages.next().await {
                        let name = message.get_channel_name();
                        let channel = name.strip_prefix(&channel_prefix).unwrap_or(name);
                        let _ = wakeups.send(channel.to_string());
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "redis wake-up listener cannot connect"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(10));
    }
}

#[async_trait]
impl Cache for RedisCache {
    fn kind(&self) -> &'static str {
        "redis"
    }

    async fn hit(&self, key: &str, window: Duration) -> Result<WindowCount, CacheError> {
        let mut connection = self.connection().await?;
        let (count, remaining): (u64, i64) = redis::Script::new(HIT_SCRIPT)
            .key(self.key(key))
            .arg(self.clock.now().timestamp_millis())
            .arg(millis(window))
            .invoke_async(&mut connection)
            .await?;
        Ok(WindowCount {
            count,
            remaining: Duration::from_millis(remaining.max(0) as u64),
        })
    }

    async fn remaining(&self, key: &str) -> Result<Option<Duration>, CacheError> {
        let mut connection = self.connection().await?;
        let closes: Option<i64> = redis::cmd("HGET")
            .arg(self.key(key))
            .arg("closes")
            .query_async(&mut connection)
            .await?;
        let now = self.clock.now().timestamp_millis();
        Ok(closes
            .filter(|closes| *closes > now)
            .map(|closes| Duration::from_millis((closes - now) as u64)))
    }

    async fn clear(&self, key: &str) -> Result<(), CacheError> {
        let mut connection = self.connection().await?;
        let _: i64 = redis::cmd("DEL")
            .arg(self.key(key))
            .query_async(&mut connection)
            .await?;
        Ok(())
    }

    async fn try_lock(&self, key: &str, ttl: Duration) -> Result<Option<String>, CacheError> {
        let mut connection = self.connection().await?;
        let token = new_token();
        let taken: Option<String> = redis::cmd("SET")
            .arg(self.key(key))
            .arg(&token)
            .arg("NX")
            .arg("PX")
            .arg(millis(ttl).max(1))
            .query_async(&mut connection)
            .await?;
        Ok(taken.map(|_| token))
    }

    async fn unlock(&self, key: &str, token: &str) -> Result<bool, CacheError> {
        let mut connection = self.connection().await?;
        let deleted: i64 = redis::Script::new(UNLOCK_SCRIPT)
            .key(self.key(key))
            .arg(token)
            .invoke_async(&mut connection)
            .await?;
        Ok(deleted == 1)
    }

    async fn wake(&self, channel: &str) -> Result<(), CacheError> {
        let mut connection = self.connection().await?;
        let _: i64 = redis::cmd("PUBLISH")
            .arg(format!("{}wake:{channel}", self.prefix))
            .arg("1")
            .query_async(&mut connection)
            .await?;
        Ok(())
    }

    fn wakeups(&self) -> broadcast::Receiver<String> {
        self.wakeups.subscribe()
    }

    async fn ping(&self) -> Result<Duration, CacheError> {
        let started = Instant::now();
        let mut connection = self.connection().await?;
        let _: String = redis::cmd("PING").query_async(&mut connection).await?;
        Ok(started.elapsed())
    }
}

/// The cache for this configuration: Redis when a URL is given, in-process otherwise.
pub fn open(redis_url: &str, key_prefix: &str, clock: Clock) -> Result<Arc<dyn Cache>, CacheError> {
    if redis_url.trim().is_empty() {
        Ok(Arc::new(LocalCache::new(clock)))
    } else {
        Ok(Arc::new(RedisCache::connect(redis_url, key_prefix, clock)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn windows_count_and_reopen_when_the_clock_moves() {
        let clock = Clock::default();
        let cache = LocalCache::new(clock.clone());
        let window = Duration::from_secs(300);
        for expected in 1..=3 {
            assert_eq!(cache.hit("k", window).await.expect("hit").count, expected);
        }
        assert!(cache.remaining("k").await.expect("remaining").is_some());
        clock.advance(301);
        assert_eq!(cache.remaining("k").await.expect("remaining"), None);
        assert_eq!(cache.hit("k", window).await.expect("hit").count, 1);
        cache.clear("k").await.expect("clear");
        assert_eq!(cache.remaining("k").await.expect("remaining"), None);
    }

    #[tokio::test]
    async fn locks_are_exclusive_and_released_by_their_token() {
        let cache = LocalCache::new(Clock::default());
        let token = cache
            .try_lock("l", Duration::from_secs(10))
            .await
            .expect("lock")
            .expect("free");
        assert!(cache
            .try_lock("l", Duration::from_secs(10))
            .await
            .expect("lock")
            .is_none());
        assert!(!cache.unlock("l", "someone-else").await.expect("unlock"));
        assert!(cache.unlock("l", &token).await.expect("unlock"));
        assert!(cache
            .try_lock("l", Duration::from_secs(10))
            .await
            .expect("lock")
            .is_some());
    }

    #[tokio::test]
    async fn wakeups_reach_subscribers() {
        let cache = LocalCache::new(Clock::default());
        let mut receiver = cache.wakeups();
        cache.wake("jobs").await.expect("wake");
        assert_eq!(receiver.recv().await.expect("woken"), "jobs");
    }
}

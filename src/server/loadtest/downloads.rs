//! The pack downloaders of `emoted loadtest --pack-downloads K`: K HTTP
//! clients that fetch the served resource pack from emoted's own pack
//! server over loopback while the ticks are measured, each starting its
//! next download as soon as one ends.
//!
//! # The model
//!
//! - **The server is the real one.** The load test adds the real
//!   [`ResourcePackPlugin`](crate::server::resource_pack::ResourcePackPlugin):
//!   hyper's HTTP/1 server on its own low-priority runtime as in `emoted
//!   serve`, on `127.0.0.1` and a free port,
//!   serving a [`ServedPackOverride`](crate::server::resource_pack::ServedPackOverride)
//!   of `--pack-bytes` bytes ([`sized_pack`]). Nothing in the serving path
//!   knows it is a test.
//! - **The clients have a runtime of their own**, one worker per core. On
//!   the server's runtime they would queue among its connection tasks and
//!   take its worker's turns. They stand in for players' machines, so
//!   their workers run at the same lower priority as the pack server's
//!   ([`lower_this_threads_priority`]): at normal priority they would take
//!   cores from the tick that real players, downloading on their own
//!   machines, never take. They still use every cycle the tick leaves
//!   (reading 1 MiB from a socket costs about what writing it does), so
//!   the figures remain a worst case for the tick, over a loopback far
//!   faster than players' networks.
//! - **Each download is one connection** (the server closes it after the
//!   answer, as it does for a game client) made by hyper's client, which
//!   keeps no idle connection. Its body is counted as it arrives, never
//!   kept.
//!
//! # What counts
//!
//! A download is *completed* when the answer is 200 and the body has exactly
//! the pack's length; only completed downloads add to the bytes, so the
//! bytes are always completed × pack bytes. Anything else is a *failure*:
//! no connection, another status, an error in the body, another length
//! (the first failure's reason is kept). After a failure a client waits
//! [`RETRY_PAUSE`] so that a broken server does not become a busy loop.
//! When the measurement ends ([`PackDownloads::finish`]) no client starts
//! another download, and those under way are waited for (up to
//! [`FINISH_TIMEOUT`], after which they are failures): every download
//! started during the measured ticks is counted, and the rate is over the
//! time until the last one ended.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::body::HttpBody;
use hyper::client::HttpConnector;
use hyper::header::USER_AGENT;
use hyper::{Body, Client, Request, StatusCode, Uri};
use serde::Serialize;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::server::resource_pack::ServedPack;
use crate::server::runtime::lower_this_threads_priority;

/// How long a client waits after a failed download before the next.
pub const RETRY_PAUSE: Duration = Duration::from_millis(10);

/// How long the downloads under way when the measurement ends may take to
/// finish.
pub const FINISH_TIMEOUT: Duration = Duration::from_secs(30);

/// What the pack downloads did (the `pack_downloads` object of the load
/// test's JSON line).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PackDownloadReport {
    /// Downloads run at once (K).
    pub clients: usize,
    /// The size of the served pack in bytes (B).
    pub pack_bytes: u64,
    /// Downloads that got the whole pack.
    pub completed: u64,
    /// Bytes of the completed downloads' bodies (completed × pack bytes).
    pub bytes: u64,
    /// Downloads that failed (see the module docs).
    pub failures: u64,
    /// Seconds from the first download's start to the last one's end.
    pub secs: f64,
    /// `bytes` per second over `secs`, in millions of bytes.
    pub mb_per_s: f64,
    /// Why the first failure failed, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
}

/// The pack served to the downloads: `size_bytes` bytes that do not
/// compress, standing in for a real pack (a zip, mostly deflated data)
/// until the pack builder makes one. Nothing on the way compresses it
/// either; the bytes only have to be `size_bytes` long and deterministic.
pub fn sized_pack(size_bytes: usize) -> ServedPack {
    // xorshift64*, seeded: the same bytes, so the same SHA-1, every run.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut bytes = Vec::with_capacity(size_bytes + 8);
    while bytes.len() < size_bytes {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        bytes.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    bytes.truncate(size_bytes);
    ServedPack::new(bytes)
}

/// K clients downloading the pack again and again (see the module docs),
/// from [`PackDownloads::start`] to [`PackDownloads::finish`].
pub struct PackDownloads {
    runtime: Runtime,
    tasks: Vec<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    tally: Arc<Mutex<Tally>>,
    clients: usize,
    pack_bytes: u64,
    started: Instant,
}

/// What the clients have done so far, under one lock so that the bytes and
/// the count always agree.
#[derive(Default)]
struct Tally {
    completed: u64,
    bytes: u64,
    failures: u64,
    first_failure: Option<String>,
    last_end: Option<Instant>,
}

impl Tally {
    fn fail(&mut self, reason: String) {
        self.failures += 1;
        self.first_failure.get_or_insert(reason);
    }
}

impl PackDownloads {
    /// Starts `clients` downloaders of `url`, whose body must be
    /// `pack_bytes` long, on a runtime of their own with one worker per
    /// core, at the pack server's lower priority (they stand in for
    /// players' machines, which would not take this machine's cores).
    pub fn start(url: Uri, pack_bytes: u64, clients: usize) -> std::io::Result<PackDownloads> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("emoted-loadtest-downloads")
            .on_thread_start(lower_this_threads_priority)
            .build()?;
        let stop = Arc::new(AtomicBool::new(false));
        let tally = Arc::new(Mutex::new(Tally::default()));
        let client: Client<HttpConnector> =
            Client::builder().pool_max_idle_per_host(0).build_http();
        let started = Instant::now();
        let tasks = (0..clients)
            .map(|_| {
                let run = download_until_stopped(
                    client.clone(),
                    url.clone(),
                    pack_bytes,
                    Arc::clone(&stop),
                    Arc::clone(&tally),
                );
                runtime.spawn(run)
            })
            .collect();
        Ok(PackDownloads {
            runtime,
            tasks,
            stop,
            tally,
            clients,
            pack_bytes,
            started,
        })
    }

    /// Lets the downloads under way end (up to [`FINISH_TIMEOUT`]), starts no
    /// more, stops the clients' runtime and reports.
    pub fn finish(self) -> PackDownloadReport {
        self.stop.store(true, Ordering::Relaxed);
        let tasks = self.tasks;
        let ended = self.runtime.block_on(async {
            tokio::time::timeout(FINISH_TIMEOUT, async {
                for task in tasks {
                    // A task that panicked counted nothing more; the
                    // others' counts stand.
                    let _ = task.await;
                }
            })
            .await
            .is_ok()
        });
        self.runtime.shutdown_timeout(Duration::from_secs(1));
        let mut tally = match self.tally.lock() {
            Ok(mut tally) => std::mem::take(&mut *tally),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        if !ended {
            tally.fail(format!(
                "downloads were still running {} s after the measurement",
                FINISH_TIMEOUT.as_secs()
            ));
        }
        let secs = tally
            .last_end
            .map_or(0.0, |end| end.duration_since(self.started).as_secs_f64());
        PackDownloadReport {
            clients: self.clients,
            pack_bytes: self.pack_bytes,
            completed: tally.completed,
            bytes: tally.bytes,
            failures: tally.failures,
            secs,
            mb_per_s: if secs > 0.0 {
                tally.bytes as f64 / secs / 1e6
            } else {
                0.0
            },
            first_failure: tally.first_failure,
        }
    }
}

/// One client: download, count, again, until `stop`.
async fn download_until_stopped(
    client: Client<HttpConnector>,
    url: Uri,
    pack_bytes: u64,
    stop: Arc<AtomicBool>,
    tally: Arc<Mutex<Tally>>,
) {
    while !stop.load(Ordering::Relaxed) {
        let outcome = download(&client, &url, pack_bytes).await;
        let failed = outcome.is_err();
        if let Ok(mut tally) = tally.lock() {
            match outcome {
                Ok(()) => {
                    tally.completed += 1;
                    tally.bytes += pack_bytes;
                }
                Err(reason) => tally.fail(reason),
            }
            tally.last_end = Some(Instant::now());
        }
        if failed {
            tokio::time::sleep(RETRY_PAUSE).await;
        }
    }
}

/// One GET of `url`: `Ok` when the answer is 200 with a body of exactly
/// `pack_bytes` bytes, else why not.
async fn download(
    client: &Client<HttpConnector>,
    url: &Uri,
    pack_bytes: u64,
) -> Result<(), String> {
    let request = Request::get(url.clone())
        .header(USER_AGENT, "emoted-loadtest")
        .body(Body::empty())
        .map_err(|e| format!("cannot make the request: {e}"))?;
    let mut answer = client
        .request(request)
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    if answer.status() != StatusCode::OK {
        return Err(format!("GET {url}: {}", answer.status()));
    }
    let body = answer.body_mut();
    let mut received = 0u64;
    while let Some(chunk) = body.data().await {
        let chunk = chunk.map_err(|e| format!("GET {url}: the body broke off: {e}"))?;
        received += chunk.len() as u64;
    }
    if received != pack_bytes {
        return Err(format!(
            "GET {url}: {received} bytes, the pack has {pack_bytes}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sized_pack_has_the_size_and_the_same_bytes_every_time() {
        for size in [0, 1, 7, 8, 65_536, 1_000_003] {
            let pack = sized_pack(size);
            assert_eq!(pack.size_bytes(), size);
            assert_eq!(pack, sized_pack(size));
        }
        // Not a run of one byte value: it stands in for deflated data.
        let pack = sized_pack(4096);
        let distinct: std::collections::BTreeSet<u8> = pack.bytes().iter().copied().collect();
        assert!(distinct.len() > 200, "{}", distinct.len());
    }

    #[test]
    fn a_server_that_is_not_there_gives_failures_and_no_bytes() {
        // A port that was free a moment ago: nobody listens on it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let url: Uri = format!("http://127.0.0.1:{port}/pack/x.zip")
            .parse()
            .expect("a URL");
        let downloads = PackDownloads::start(url, 10, 2).expect("a runtime");
        std::thread::sleep(Duration::from_millis(50));
        let report = downloads.finish();
        assert_eq!(report.clients, 2);
        assert_eq!(report.completed, 0);
        assert_eq!(report.bytes, 0);
        assert!(report.failures > 0, "{report:?}");
        assert!(report.first_failure.is_some(), "{report:?}");
    }
}

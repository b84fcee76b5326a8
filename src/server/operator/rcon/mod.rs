//! RCON: the operator's commands over the Source RCON protocol, for the
//! tools admins use (`mcrcon`, backup scripts, panels).
//!
//! `[rcon]` turns it on with a password ([`RconSection`]); it listens on
//! the server's network runtime. A client logs in ([`packet::TYPE_AUTH`])
//! and then runs the console's commands ([`crate::server::operator`]), each
//! answered with the console's text, cut into packets of at most 4,096
//! bytes. What keeps it safe to leave on:
//! - the password is compared in constant time (both sides hashed, the
//!   digests compared without an early exit);
//! - [`MAX_FAILED_LOGINS`] failed logins from one address within
//!   [`FAILED_LOGIN_WINDOW`] lock that address out for the rest of the
//!   window: its connections are closed at once, one log line per lockout;
//!   every failed login is logged with the address;
//! - at most [`MAX_CONNECTIONS`] connections at once; one more is closed
//!   at once, logged;
//! - a connection must log in within [`LOGIN_TIMEOUT`];
//! - a packet whose length is over the protocol's 4,096 bytes (or under
//!   its 10) closes that connection with a log line; a packet that is
//!   framed but unreadable (no terminator, not UTF-8) is answered with the
//!   reason and the connection stays;
//! - a command before logging in is answered as a refused login (id −1),
//!   as vanilla does.

pub mod packet;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use self::packet::*;
use super::{OperatorSender, OperatorSource};
use crate::server::config::RconSection;
use crate::server::runtime::{accept_retrying, NetworkRuntime};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 4;
/// Failed logins from one address that lock it out.
pub const MAX_FAILED_LOGINS: u32 = 3;
/// The window failed logins are counted in, and the lockout's length.
pub const FAILED_LOGIN_WINDOW: Duration = Duration::from_secs(60);
/// How long a new connection has to log in.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a command may take to answer (a reload of many files).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Why RCON did not start.
#[derive(Debug, thiserror::Error)]
pub enum RconError {
    /// The address cannot be listened on.
    #[error("RCON cannot listen on {address}: {source}")]
    Listen {
        /// `[rcon] listen`.
        address: SocketAddr,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Failed logins per address (see the module docs).
#[derive(Debug, Default)]
struct LoginLimits {
    by_address: HashMap<IpAddr, Failures>,
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    window_start: Instant,
    lockout_logged: bool,
}

impl LoginLimits {
    /// True when `address` is locked out at `now`; logs the lockout once.
    fn is_locked_out(&mut self, address: IpAddr, now: Instant) -> bool {
        self.forget_old(now);
        let Some(failures) = self.by_address.get_mut(&address) else {
            return false;
        };
        if failures.count < MAX_FAILED_LOGINS {
            return false;
        }
        if !failures.lockout_logged {
            failures.lockout_logged = true;
            tracing::warn!(
                "RCON: {address} is locked out after {MAX_FAILED_LOGINS} failed logins; its connections are closed for up to {} s",
                FAILED_LOGIN_WINDOW.as_secs()
            );
        }
        true
    }

    /// Counts a failed login.
    fn fail(&mut self, address: IpAddr, now: Instant) {
        self.forget_old(now);
        let failures = self.by_address.entry(address).or_insert(Failures {
            count: 0,
            window_start: now,
            lockout_logged: false,
        });
        failures.count += 1;
    }

    fn forget_old(&mut self, now: Instant) {
        self.by_address
            .retain(|_, f| now.duration_since(f.window_start) < FAILED_LOGIN_WINDOW);
    }
}

/// What every connection shares.
struct Shared {
    password_digest: [u8; 32],
    operator: OperatorSender,
    limits: Mutex<LoginLimits>,
    connections: Arc<Semaphore>,
}

impl Shared {
    /// The password check, in constant time for a given password length
    /// and independent of where the first difference is.
    fn password_matches(&self, attempt: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(attempt.as_bytes()).into();
        let difference = digest
            .iter()
            .zip(self.password_digest.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(difference) == 0
    }

    fn lock_limits(&self) -> std::sync::MutexGuard<'_, LoginLimits> {
        self.limits.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Starts RCON when `[rcon]` turns it on: binds now (so an address in use
/// is reported at start-up) and serves on `runtime`. Returns the bound
/// address, `None` when RCON is off.
pub fn start_rcon(
    section: &RconSection,
    runtime: &NetworkRuntime,
    operator: OperatorSender,
) -> Result<Option<SocketAddr>, RconError> {
    if !section.is_on() {
        return Ok(None);
    }
    let listen_error = |source| RconError::Listen {
        address: section.listen,
        source,
    };
    let std_listener = std::net::TcpListener::bind(section.listen).map_err(listen_error)?;
    std_listener.set_nonblocking(true).map_err(listen_error)?;
    let address = std_listener.local_addr().map_err(listen_error)?;
    let shared = Arc::new(Shared {
        password_digest: Sha256::digest(section.password.as_bytes()).into(),
        operator,
        limits: Mutex::new(LoginLimits::default()),
        connections: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
    });
    let handle = runtime.handle().clone();
    let _guard = handle.enter();
    let listener = TcpListener::from_std(std_listener).map_err(listen_error)?;
    handle.spawn(accept_loop(listener, shared));
    Ok(Some(address))
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let (stream, peer) = accept_retrying(&listener, "RCON").await;
        if shared
            .lock_limits()
            .is_locked_out(peer.ip(), Instant::now())
        {
            continue; // dropped: closed
        }
        let Ok(permit) = shared.connections.clone().try_acquire_owned() else {
            tracing::warn!("RCON: {peer} refused: {MAX_CONNECTIONS} connections are open already");
            continue;
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let _permit = permit;
            if let Err(e) = serve_connection(stream, peer, &shared).await {
                tracing::debug!("RCON: {peer}: {e}");
            }
        });
    }
}

/// One connection, until the client leaves or breaks the protocol.
async fn serve_connection(
    mut stream: TcpStream,
    peer: SocketAddr,
    shared: &Shared,
) -> std::io::Result<()> {
    let connected = Instant::now();
    let mut logged_in = false;
    loop {
        let mut length = [0u8; 4];
        let read = stream.read_exact(&mut length);
        if logged_in {
            read.await?;
        } else {
            let left = LOGIN_TIMEOUT.saturating_sub(connected.elapsed());
            match tokio::time::timeout(left, read).await {
                Ok(result) => {
                    result?;
                }
                Err(_) => {
                    tracing::info!(
                        "RCON: {peer} did not log in within {} s: closed",
                        LOGIN_TIMEOUT.as_secs()
                    );
                    return Ok(());
                }
            }
        }
        let length = match check_length(i32::from_le_bytes(length)) {
            Ok(length) => length,
            Err(e) => {
                tracing::warn!("RCON: {peer}: {e}; connection closed");
                return Ok(());
            }
        };
        let mut body = vec![0u8; length];
        stream.read_exact(&mut body).await?;
        let packet = match decode_body(&body) {
            Ok(packet) => packet,
            Err((request_id, e)) => {
                tracing::info!("RCON: {peer} sent an unreadable packet: {e}");
                let answer = format!("Unreadable packet: {e}");
                stream
                    .write_all(&encode_response(request_id.unwrap_or(0), &answer))
                    .await?;
                continue;
            }
        };
        match packet.kind {
            TYPE_AUTH => {
                let now = Instant::now();
                if shared.lock_limits().is_locked_out(peer.ip(), now) {
                    stream
                        .write_all(&encode(REFUSED_ID, TYPE_COMMAND, ""))
                        .await?;
                    return Ok(());
                }
                if shared.password_matches(&packet.payload) {
                    logged_in = true;
                    tracing::info!("RCON: {peer} logged in");
                    stream
                        .write_all(&encode(packet.request_id, TYPE_COMMAND, ""))
                        .await?;
                } else {
                    shared.lock_limits().fail(peer.ip(), now);
                    tracing::warn!("RCON: failed login from {peer}");
                    stream
                        .write_all(&encode(REFUSED_ID, TYPE_COMMAND, ""))
                        .await?;
                }
            }
            TYPE_COMMAND if !logged_in => {
                stream
                    .write_all(&encode(REFUSED_ID, TYPE_COMMAND, ""))
                    .await?;
            }
            TYPE_COMMAND => {
                let answer = run_command(shared, packet.payload, peer).await;
                stream
                    .write_all(&encode_response(packet.request_id, &answer))
                    .await?;
            }
            other => {
                let answer = format!("Unknown request type {other}");
                stream
                    .write_all(&encode_response(packet.request_id, &answer))
                    .await?;
            }
        }
    }
}

/// Runs one command line in the tick and waits for its answer.
async fn run_command(shared: &Shared, line: String, peer: SocketAddr) -> String {
    let answer = shared.operator.send(line, OperatorSource::Rcon(peer));
    match tokio::time::timeout(ANSWER_TIMEOUT, answer).await {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => "The server is stopping; the command was not run.".to_owned(),
        Err(_) => "No answer yet; the command may still finish (see the server log).".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_failed_logins_lock_an_address_out_for_the_window() {
        let mut limits = LoginLimits::default();
        let start = Instant::now();
        let bad: IpAddr = [10, 0, 0, 1].into();
        let other: IpAddr = [10, 0, 0, 2].into();
        for _ in 0..MAX_FAILED_LOGINS - 1 {
            limits.fail(bad, start);
        }
        assert!(
            !limits.is_locked_out(bad, start),
            "two failures are allowed"
        );
        limits.fail(bad, start);
        assert!(limits.is_locked_out(bad, start));
        assert!(!limits.is_locked_out(other, start), "per address");
        assert!(
            !limits.is_locked_out(bad, start + FAILED_LOGIN_WINDOW),
            "the lockout ends with the window"
        );
    }

    #[test]
    fn the_password_check_takes_the_right_one_only() {
        let inbox = crate::server::operator::OperatorInbox::default();
        let shared = Shared {
            password_digest: Sha256::digest(b"hunter2").into(),
            operator: inbox.sender(),
            limits: Mutex::new(LoginLimits::default()),
            connections: Arc::new(Semaphore::new(1)),
        };
        assert!(shared.password_matches("hunter2"));
        assert!(!shared.password_matches("hunter3"));
        assert!(!shared.password_matches(""));
        assert!(!shared.password_matches("hunter2 "));
    }
}

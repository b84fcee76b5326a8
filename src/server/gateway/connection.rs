//! A logged-in client's TCP connection in the play state, as valence's
//! [`ClientConnection`]: a reader task that cuts the stream into packet
//! frames, a writer task that sends what the server encoded, and two byte
//! limits so a slow or flooding client costs bounded memory.
//!
//! - **Incoming**: each frame costs its body's length (plus the record
//!   around it) against the incoming byte limit; when the queue is full the
//!   reader stops reading until the server has taken packets, so TCP pushes
//!   back on the client. A frame that alone is over the limit, or that does
//!   not decode, ends the connection.
//! - **Outgoing**: bytes queued for the writer count against the outgoing
//!   limit; past it `try_send` fails and valence disconnects the client (it
//!   was not reading).
//!
//! Dropping the connection (valence despawns the client) stops both tasks
//! and runs the [`PlayerSlot`] release.

use std::mem;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinHandle;
use valence::client::{ClientConnection, ReceivedPacket};
use valence::protocol::bytes::BytesMut;
use valence::protocol::PacketDecoder;

/// How much is read from the socket at a time.
const READ_CHUNK_BYTES: usize = 4096;

/// Holds one of the server's `max_players` places; gives it back when dropped.
#[derive(Debug)]
pub struct PlayerSlot {
    count: Arc<AtomicUsize>,
}

impl PlayerSlot {
    /// Takes a place if fewer than `max` are taken.
    pub fn take(count: &Arc<AtomicUsize>, max: usize) -> Option<PlayerSlot> {
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| PlayerSlot {
                count: Arc::clone(count),
            })
    }
}

impl Drop for PlayerSlot {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The byte limits of one connection.
#[derive(Clone, Copy, Debug)]
pub struct ByteLimits {
    /// Received packets waiting for the server, in bytes.
    pub incoming_bytes: usize,
    /// Encoded packets waiting for the socket, in bytes.
    pub outgoing_bytes: usize,
}

/// The play-state connection handed to valence.
pub struct TcpConnection {
    outgoing: mpsc::UnboundedSender<BytesMut>,
    outgoing_queued: Arc<AtomicUsize>,
    outgoing_limit: usize,
    incoming: mpsc::UnboundedReceiver<ReceivedPacket>,
    incoming_room: Arc<Semaphore>,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
    _slot: PlayerSlot,
}

/// The permits one received packet holds.
fn cost_of(body_len: usize) -> usize {
    mem::size_of::<ReceivedPacket>() + body_len
}

impl TcpConnection {
    /// Starts the reader and writer tasks (call inside the tokio runtime).
    /// `decoder` keeps any bytes it already holds past the login, and the
    /// compression it was set to.
    pub fn start(
        stream: TcpStream,
        mut decoder: PacketDecoder,
        limits: ByteLimits,
        slot: PlayerSlot,
    ) -> TcpConnection {
        let (mut read_half, mut write_half) = stream.into_split();
        let incoming_limit = limits.incoming_bytes.min(Semaphore::MAX_PERMITS);
        let incoming_room = Arc::new(Semaphore::new(incoming_limit));
        let (incoming_send, incoming) = mpsc::unbounded_channel();
        let room = Arc::clone(&incoming_room);
        let reader = tokio::spawn(async move {
            let mut buf = BytesMut::new();
            loop {
                let frame = match decoder.try_next_packet() {
                    Ok(Some(frame)) => frame,
                    Ok(None) => {
                        buf.reserve(READ_CHUNK_BYTES);
                        match read_half.read_buf(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => decoder.queue_bytes(buf.split()),
                        }
                        continue;
                    }
                    Err(e) => {
                        tracing::warn!("a client sent a packet frame that does not decode: {e:#}");
                        break;
                    }
                };
                let cost = cost_of(frame.body.len());
                if cost > incoming_limit {
                    tracing::warn!(
                        "a client sent a {} byte packet, over the {incoming_limit} byte limit",
                        frame.body.len()
                    );
                    break;
                }
                let Ok(permits) = room.acquire_many(cost as u32).await else {
                    break;
                };
                permits.forget();
                let packet = ReceivedPacket {
                    timestamp: Instant::now(),
                    id: frame.id,
                    body: frame.body.freeze(),
                };
                if incoming_send.send(packet).is_err() {
                    break;
                }
            }
        });
        let (outgoing, mut outgoing_recv) = mpsc::unbounded_channel::<BytesMut>();
        let outgoing_queued = Arc::new(AtomicUsize::new(0));
        let queued = Arc::clone(&outgoing_queued);
        let writer = tokio::spawn(async move {
            while let Some(bytes) = outgoing_recv.recv().await {
                let len = bytes.len();
                let written = write_half.write_all(&bytes).await;
                queued.fetch_sub(len, Ordering::SeqCst);
                if written.is_err() {
                    break;
                }
            }
        });
        TcpConnection {
            outgoing,
            outgoing_queued,
            outgoing_limit: limits.outgoing_bytes,
            incoming,
            incoming_room,
            reader,
            writer,
            _slot: slot,
        }
    }
}

impl ClientConnection for TcpConnection {
    fn try_send(&mut self, bytes: BytesMut) -> anyhow::Result<()> {
        let len = bytes.len();
        let queued = self.outgoing_queued.fetch_add(len, Ordering::SeqCst);
        if queued + len > self.outgoing_limit {
            self.outgoing_queued.fetch_sub(len, Ordering::SeqCst);
            bail!(
                "reached the outgoing limit of {} bytes (the client is not reading)",
                self.outgoing_limit
            );
        }
        if self.outgoing.send(bytes).is_err() {
            bail!("client disconnected");
        }
        Ok(())
    }

    fn try_recv(&mut self) -> anyhow::Result<Option<ReceivedPacket>> {
        match self.incoming.try_recv() {
            Ok(packet) => {
                self.incoming_room.add_permits(cost_of(packet.body.len()));
                Ok(Some(packet))
            }
            Err(mpsc::error::TryRecvError::Empty) => Ok(None),
            Err(mpsc::error::TryRecvError::Disconnected) => bail!("client disconnected"),
        }
    }

    fn len(&self) -> usize {
        self.incoming.len()
    }
}

impl Drop for TcpConnection {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_slots_are_counted_and_given_back() {
        let count = Arc::new(AtomicUsize::new(0));
        let a = PlayerSlot::take(&count, 2).expect("first");
        let b = PlayerSlot::take(&count, 2).expect("second");
        assert!(PlayerSlot::take(&count, 2).is_none(), "full");
        drop(a);
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let c = PlayerSlot::take(&count, 2);
        assert!(c.is_some());
        drop((b, c));
        assert_eq!(count.load(Ordering::SeqCst), 0);
    }
}

//! The headless server the load test (and the in-process server tests)
//! run, and the clients that join it: valence's own client code on
//! connections that encode and compress every packet as a real one would
//! and only count the bytes (optionally by packet kind).

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use valence::client::{ClientBundle, ClientBundleArgs, ClientConnection, ReceivedPacket};
use valence::keepalive::KeepaliveSettings;
use valence::network::NetworkPlugin;
use valence::prelude::*;
use valence::protocol::bytes::BytesMut;
use valence::protocol::PacketEncoder;

use crate::server::app::EmotePlugins;
use crate::server::config::Config;
use crate::server::emote::{DisplayUpdatePolicy, SimulatedWallClock};
use crate::server::emote_library::EmoteFolders;
use crate::server::resource_pack::{ResourcePackPlugin, ServedPack, ServedPackOverride};

/// The compression threshold of a real connection (valence's default).
const COMPRESSION_THRESHOLD: u32 = 256;

/// The server as `emoted serve` builds it ([`EmotePlugins`], every schedule
/// on one thread), without the network, the file watcher, the resource pack
/// and tick statistics, and with the emote camera off (set
/// `Config::camera.enabled` to fly them): clients join with
/// [`join_counting_client`].
/// Keep-alives are off, as no client answers them, and `server_sync` follows
/// the tick counter ([`SimulatedWallClock`]). The startup systems have run.
pub fn headless_app(emote_roots: &[PathBuf], policy: DisplayUpdatePolicy) -> App {
    build_headless_app(emote_roots, policy, None)
}

/// [`headless_app`] with the resource pack served as `emoted serve` serves
/// it: the real [`ResourcePackPlugin`], its HTTP server on the runtime of
/// its own it makes, listening on `127.0.0.1` on a free port and serving
/// `pack` ([`ServedPackOverride`]). Clients that join are offered it, and
/// never answer. The
/// [`PackServer`](crate::server::resource_pack::PackServer) resource says
/// where it listens; it is missing when the server could not bind (logged).
pub fn headless_app_serving_pack(
    emote_roots: &[PathBuf],
    policy: DisplayUpdatePolicy,
    pack: ServedPack,
) -> App {
    build_headless_app(emote_roots, policy, Some(pack))
}

fn build_headless_app(
    emote_roots: &[PathBuf],
    policy: DisplayUpdatePolicy,
    serve: Option<ServedPack>,
) -> App {
    let mut app = App::new();
    let mut plugins = EmotePlugins
        .build()
        .disable::<crate::server::reload::EmoteReloadPlugin>()
        .disable::<crate::server::tick_stats::TickStatsPlugin>()
        // No store: players start with no favourites, and nothing is written.
        .disable::<crate::server::storage::StoragePlugin>();
    // No emote camera unless a caller turns it on (the load test's
    // `--cameras`): the figures of earlier commits had none.
    let mut config = Config::default();
    config.camera.enabled = false;
    match serve {
        None => plugins = plugins.disable::<ResourcePackPlugin>(),
        Some(pack) => {
            // The plugin reads `enabled` and `listen` when it is added.
            config.resource_pack.enabled = true;
            config.resource_pack.listen = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
            app.insert_resource(ServedPackOverride(pack));
        }
    }
    app.insert_resource(config);
    app.insert_resource(KeepaliveSettings {
        period: Duration::from_secs(24 * 3600),
    })
    .insert_resource(EmoteFolders {
        roots: emote_roots.to_vec(),
    })
    .insert_resource(policy)
    .insert_resource(SimulatedWallClock { start_tick: 0 })
    .add_plugins(DefaultPlugins.build().disable::<NetworkPlugin>())
    .add_plugins(plugins);
    crate::server::app::run_schedules_on_one_thread(&mut app);
    // Startup: the world and the library.
    app.update();
    app
}

/// Spawns client number `index` (`load<index>`) with a connection that
/// encodes and compresses every packet as a real one would, and only counts
/// the bytes; returns its entity and the counter. It joins on the next
/// update.
pub fn join_counting_client(app: &mut App, index: usize) -> (Entity, Arc<AtomicU64>) {
    join_counting_client_with(app, index, None)
}

/// [`join_counting_client`], also adding each frame's bytes to its packet
/// kind in `breakdown`.
pub fn join_counting_client_with(
    app: &mut App,
    index: usize,
    breakdown: Option<Arc<PacketBreakdown>>,
) -> (Entity, Arc<AtomicU64>) {
    let bytes = Arc::new(AtomicU64::new(0));
    let connection = CountingConnection {
        bytes: Arc::clone(&bytes),
        breakdown,
        partial_frame: Vec::new(),
    };
    (join_client(app, index, Box::new(connection)), bytes)
}

/// Spawns client number `index` (`load<index>`) on `connection`, which gets
/// every packet encoded and compressed (threshold 256) as a real
/// connection would; it joins on the next update. Tests pass a connection
/// that keeps the bytes to read what a client was sent.
pub fn join_client(app: &mut App, index: usize, connection: Box<dyn ClientConnection>) -> Entity {
    let mut enc = PacketEncoder::new();
    enc.set_compression(Some(COMPRESSION_THRESHOLD));
    let bundle = ClientBundle::new(ClientBundleArgs {
        username: format!("load{index}"),
        uuid: Uuid::from_u128(0x10AD_0000_0000_0000_0000_0000_0000_0000 + index as u128),
        ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        properties: Vec::new(),
        conn: connection,
        enc,
    });
    app.world.spawn(bundle).id()
}

/// Wire bytes by packet kind, shared by the connections that count them.
pub type PacketBreakdown = Mutex<BTreeMap<&'static str, u64>>;

/// A connection that counts what the server sends and never receives.
struct CountingConnection {
    bytes: Arc<AtomicU64>,
    breakdown: Option<Arc<PacketBreakdown>>,
    /// The start of a frame the last write ended inside (a tick may be
    /// sent in several writes that split a packet), for the breakdown.
    partial_frame: Vec<u8>,
}

impl ClientConnection for CountingConnection {
    fn try_send(&mut self, bytes: BytesMut) -> anyhow::Result<()> {
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if let Some(breakdown) = &self.breakdown {
            if let Ok(mut map) = breakdown.lock() {
                self.partial_frame.extend_from_slice(&bytes);
                let whole = add_frames(&self.partial_frame, &mut map);
                self.partial_frame.drain(..whole);
            }
        }
        Ok(())
    }

    fn try_recv(&mut self) -> anyhow::Result<Option<ReceivedPacket>> {
        Ok(None)
    }

    fn len(&self) -> usize {
        0
    }
}

/// Reads a VarInt at the start of `bytes`: its value and length.
fn read_var_int(bytes: &[u8]) -> Option<(i32, usize)> {
    let mut value = 0i32;
    for (i, byte) in bytes.iter().take(5).enumerate() {
        value |= i32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Adds the wire size of each whole compressed-format frame at the start
/// of `bytes` to its packet kind; the bytes those frames take (the rest
/// starts a frame still to come).
fn add_frames(bytes: &[u8], map: &mut BTreeMap<&'static str, u64>) -> usize {
    let mut taken = 0;
    while let Some((length, header)) = read_var_int(&bytes[taken..]) {
        let Ok(length) = usize::try_from(length) else {
            return bytes.len(); // not a frame: nothing to wait for
        };
        let Some(frame) = bytes.get(taken + header..taken + header + length) else {
            return taken;
        };
        let kind = match read_var_int(frame) {
            Some((0, used)) => read_var_int(&frame[used..]).map_or("?", |(id, _)| packet_name(id)),
            Some(_) => "compressed",
            None => "?",
        };
        *map.entry(kind).or_default() += (header + length) as u64;
        taken += header + length;
    }
    taken
}

/// The name of a play-state clientbound packet the stress test sees.
fn packet_name(id: i32) -> &'static str {
    use valence::protocol::packets::play::{
        EntitiesDestroyS2c, EntitySpawnS2c, EntityTrackerUpdateS2c, GameMessageS2c,
        OverlayMessageS2c, ParticleS2c, PlaySoundS2c, TitleS2c,
    };
    use valence::protocol::Packet;
    match id {
        EntityTrackerUpdateS2c::ID => EntityTrackerUpdateS2c::NAME,
        EntitySpawnS2c::ID => EntitySpawnS2c::NAME,
        EntitiesDestroyS2c::ID => EntitiesDestroyS2c::NAME,
        PlaySoundS2c::ID => PlaySoundS2c::NAME,
        ParticleS2c::ID => ParticleS2c::NAME,
        GameMessageS2c::ID => GameMessageS2c::NAME,
        OverlayMessageS2c::ID => OverlayMessageS2c::NAME,
        TitleS2c::ID => TitleS2c::NAME,
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_counted_by_packet_kind_with_their_headers() {
        use valence::protocol::packets::play::EntityTrackerUpdateS2c;
        use valence::protocol::Packet;
        let id = u8::try_from(EntityTrackerUpdateS2c::ID).expect("a one-byte id");
        let mut bytes = Vec::new();
        // Two uncompressed frames: length, data length 0, id, body.
        bytes.extend_from_slice(&[4, 0, id, 1, 2]);
        bytes.extend_from_slice(&[3, 0, id, 9]);
        // A compressed frame: length 3, data length 300 (a 2-byte VarInt).
        bytes.extend_from_slice(&[3, 0xac, 0x02, 7]);
        // An unknown packet, and a frame cut short (left for later).
        bytes.extend_from_slice(&[2, 0, 0x7f]);
        let whole = bytes.len();
        bytes.extend_from_slice(&[9, 0, id]);
        let mut map = BTreeMap::new();
        assert_eq!(add_frames(&bytes, &mut map), whole, "up to the cut frame");
        assert_eq!(map.get(EntityTrackerUpdateS2c::NAME), Some(&9));
        assert_eq!(map.get("compressed"), Some(&4));
        assert_eq!(map.get("other"), Some(&3));
        assert_eq!(map.len(), 3);
    }
}

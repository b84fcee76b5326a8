//! One connection from its first byte to the play state: the handshake, a
//! status ping or a login, and for a login the proxy's forwarding checked
//! ([`super::forwarding`]) before the player exists anywhere in the server.
//! Every refusal is a login disconnect with its sentence and one log line
//! that names the peer's address.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context as _};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use valence::protocol::decode::PacketFrame;
use valence::protocol::packets::handshaking::handshake_c2s::HandshakeNextState;
use valence::protocol::packets::handshaking::HandshakeC2s;
use valence::protocol::packets::login::{
    LoginCompressionS2c, LoginDisconnectS2c, LoginHelloC2s, LoginQueryRequestS2c,
    LoginQueryResponseC2s, LoginSuccessS2c,
};
use valence::protocol::packets::status::{
    QueryPingC2s, QueryPongS2c, QueryRequestC2s, QueryResponseS2c,
};
use valence::protocol::{Encode, Packet, PacketDecoder, PacketEncoder, RawBytes, VarInt};
use valence::text::IntoText;
use valence::{CompressionThreshold, MINECRAFT_VERSION, PROTOCOL_VERSION};

use super::connection::{PlayerSlot, TcpConnection};
use super::forwarding::{self, ForwardedPlayer, Refusal};
use super::{GatewayShared, ProxyMode};
use crate::server::listener::SHUTDOWN_MESSAGE;
use valence::client::ClientBundleArgs;
use valence::prelude::Ident;

/// How long a client has to answer Velocity's player-info request.
pub const VELOCITY_ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

/// A socket with the packet framing of the handshake and login states.
struct FrameIo {
    stream: TcpStream,
    encoder: PacketEncoder,
    decoder: PacketDecoder,
}

impl FrameIo {
    async fn send<P: Packet + Encode>(&mut self, packet: &P) -> anyhow::Result<()> {
        self.encoder.append_packet(packet)?;
        let bytes = self.encoder.take();
        self.stream.write_all(&bytes).await?;
        Ok(())
    }

    /// Reads the next packet frame (decode it with [`PacketFrame::decode`]).
    async fn next_frame(&mut self) -> anyhow::Result<PacketFrame> {
        loop {
            if let Some(frame) = self.decoder.try_next_packet()? {
                return Ok(frame);
            }
            self.decoder.reserve(4096);
            let mut buf = self.decoder.take_capacity();
            if self.stream.read_buf(&mut buf).await? == 0 {
                bail!("the client closed the connection");
            }
            self.decoder.queue_bytes(buf);
        }
    }

    /// Sends a login disconnect with `message`.
    async fn refuse(&mut self, message: String) -> anyhow::Result<()> {
        self.send(&LoginDisconnectS2c {
            reason: Cow::Owned(message.into_text()),
        })
        .await
    }
}

/// Handles one accepted connection; a client that gets in is sent to the
/// server through `shared`.
pub async fn handle_connection(shared: GatewayShared, stream: TcpStream, peer: SocketAddr) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!("TCP_NODELAY on {peer}: {e}");
    }
    let io = FrameIo {
        stream,
        encoder: PacketEncoder::new(),
        decoder: PacketDecoder::new(),
    };
    if let Err(e) = serve(&shared, io, peer).await {
        tracing::debug!("connection from {peer} ended before play: {e:#}");
    }
}

async fn serve(shared: &GatewayShared, mut io: FrameIo, peer: SocketAddr) -> anyhow::Result<()> {
    let frame = io.next_frame().await.context("reading the handshake")?;
    let handshake: HandshakeC2s = frame.decode().context("reading the handshake")?;
    match handshake.next_state {
        HandshakeNextState::Status => status(shared, &mut io).await,
        HandshakeNextState::Login => {
            let protocol = handshake.protocol_version.0;
            let address = handshake.server_address.to_owned();
            login(shared, io, peer, protocol, address).await
        }
    }
}

async fn status(shared: &GatewayShared, io: &mut FrameIo) -> anyhow::Result<()> {
    io.next_frame().await?.decode::<QueryRequestC2s>()?;
    let json = serde_json::json!({
        "version": {"name": MINECRAFT_VERSION, "protocol": PROTOCOL_VERSION},
        "players": {"online": shared.online(), "max": shared.max_players, "sample": []},
        "description": {"text": shared.listener.motd()},
    });
    io.send(&QueryResponseS2c {
        json: &json.to_string(),
    })
    .await?;
    let payload = io.next_frame().await?.decode::<QueryPingC2s>()?.payload;
    io.send(&QueryPongS2c { payload }).await
}

/// A player name as the vanilla server accepts it: 1 to 16 of `A-Z a-z 0-9 _`.
pub fn is_valid_username(name: &str) -> bool {
    (1..=16).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

async fn login(
    shared: &GatewayShared,
    mut io: FrameIo,
    peer: SocketAddr,
    protocol: i32,
    address: String,
) -> anyhow::Result<()> {
    if protocol != PROTOCOL_VERSION {
        return io
            .refuse(format!(
                "Mismatched Minecraft version (server is on {MINECRAFT_VERSION})"
            ))
            .await;
    }
    if !shared.listener.is_open() {
        return io.refuse(SHUTDOWN_MESSAGE.to_owned()).await;
    }
    let frame = io.next_frame().await.context("reading the login hello")?;
    let username = frame
        .decode::<LoginHelloC2s>()
        .context("reading the login hello")?
        .username
        .to_owned();
    if !is_valid_username(&username) {
        tracing::warn!("refused a login from {peer}: `{username}` is not a valid player name");
        return io.refuse("Invalid player name.".to_owned()).await;
    }
    let forwarded = match &shared.mode {
        ProxyMode::BungeeCord => forwarding::parse_bungeecord(&address),
        ProxyMode::Velocity { secret } => velocity_exchange(&mut io, &username, secret).await?,
    };
    let player = match forwarded {
        Ok(player) => player,
        Err(refusal) => {
            return refuse(&mut io, peer, &username, shared.mode.name(), &refusal).await
        }
    };
    let Some(slot) = PlayerSlot::take(&shared.player_count, shared.max_players) else {
        tracing::info!("refused {username} from {}: the server is full", player.ip);
        return io.refuse("The server is full.".to_owned()).await;
    };
    admit(shared, io, peer, username, player, slot).await
}

async fn refuse(
    io: &mut FrameIo,
    peer: SocketAddr,
    username: &str,
    mode: &str,
    refusal: &Refusal,
) -> anyhow::Result<()> {
    tracing::warn!("refused the {mode} login of `{username}` from {peer}: {refusal}");
    io.refuse(refusal.client_message()).await
}

/// Asks the client for Velocity's player info and reads the answer; the
/// outer `Err` is a broken connection, the inner one a refusal.
async fn velocity_exchange(
    io: &mut FrameIo,
    username: &str,
    secret: &str,
) -> anyhow::Result<Result<ForwardedPlayer, Refusal>> {
    let message_id: i32 = rand_message_id();
    io.send(&LoginQueryRequestS2c {
        message_id: VarInt(message_id),
        channel: Ident::new(forwarding::VELOCITY_CHANNEL)?,
        data: RawBytes(&[forwarding::VELOCITY_REQUESTED_VERSION]),
    })
    .await?;
    let frame = match tokio::time::timeout(VELOCITY_ANSWER_TIMEOUT, io.next_frame()).await {
        Err(_) => {
            return Ok(Err(Refusal::VelocityMissing(format!(
                "no answer within {} s",
                VELOCITY_ANSWER_TIMEOUT.as_secs()
            ))))
        }
        Ok(frame) => frame?,
    };
    let Ok(answer) = frame.decode::<LoginQueryResponseC2s>() else {
        return Ok(Err(Refusal::VelocityMissing(format!(
            "packet {:#04x} instead of a login plugin answer",
            frame.id
        ))));
    };
    Ok(if answer.message_id.0 != message_id {
        Err(Refusal::VelocityMissing(format!(
            "the answer is to message {}, not {message_id}",
            answer.message_id.0
        )))
    } else {
        forwarding::parse_velocity(answer.data.map(|d| d.0), username, secret.as_bytes())
    })
}

/// A message id for the player-info request that a client cannot guess
/// ahead (it only has to match the answer).
fn rand_message_id() -> i32 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x656d_6f74_6564);
    (hasher.finish() as i32) & i32::MAX
}

async fn admit(
    shared: &GatewayShared,
    mut io: FrameIo,
    peer: SocketAddr,
    username: String,
    player: ForwardedPlayer,
    slot: PlayerSlot,
) -> anyhow::Result<()> {
    let threshold: CompressionThreshold = shared.compression;
    if let Some(bytes) = threshold {
        io.send(&LoginCompressionS2c {
            threshold: VarInt(bytes as i32),
        })
        .await?;
        io.encoder.set_compression(threshold);
        io.decoder.set_compression(threshold);
    }
    io.send(&LoginSuccessS2c {
        uuid: player.uuid,
        username: &username,
        properties: Cow::Borrowed(&player.properties),
    })
    .await?;
    tracing::info!(
        "{username} ({}) logged in from {} through the {} proxy at {peer}",
        player.uuid,
        player.ip,
        shared.mode.name()
    );
    let FrameIo {
        stream,
        encoder,
        decoder,
    } = io;
    let connection = TcpConnection::start(stream, decoder, shared.limits, slot);
    let args = ClientBundleArgs {
        username,
        uuid: player.uuid,
        ip: player.ip,
        properties: player.properties,
        conn: Box::new(connection),
        enc: encoder,
    };
    if shared.new_clients.send(args).is_err() {
        bail!("the server is shutting down");
    }
    Ok(())
}

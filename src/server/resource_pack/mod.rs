//! emoted's own resource pack: made from the loaded emotes, served over
//! HTTP on a port of its own, offered to every player at join, and what
//! each player's client did with it kept as a [`PackStatus`].
//!
//! # The model
//!
//! - **One pack at a time.** A [`ServedPack`] is the pack file's bytes and
//!   their SHA-1. [`current_pack`] makes it from the emote library, once the
//!   first tick runs and again whenever a reload changed the library (off
//!   the tick, [`build`]); a pack with a new SHA-1 replaces the old one as
//!   soon as it is built. A [`ServedPackOverride`]
//!   resource, when present, is served instead (`emoted loadtest
//!   --pack-bytes` serves a pack of a chosen size that way).
//! - **The admin's own pack** (`resource_pack.merge`) is merged in by
//!   [`current_pack`] ([`crate::pack::merge`] has the rule), read again at
//!   every rebuild: a reload (which re-reads the configuration) picks up a
//!   changed pack or a changed `merge`, and the file watcher also watches
//!   the path configured at start-up. The paths both packs had are logged
//!   at warn level, one line each, whenever a new pack is served; one that
//!   cannot be read is an error in the log, and the admin pack last read
//!   from the same path stays merged (emoted's pack is served alone only
//!   when none was read from there before). [`PackMergeReport`] keeps what
//!   the last build met.
//! - **Served by emoted** ([`http`]): hyper's HTTP/1 server answers
//!   `GET /pack/<sha1>.zip` for the current pack and 404 for anything else,
//!   an older pack's path included. The SHA-1 is in the path because a
//!   1.20.1 client caches server packs by URL ([`url`]).
//! - **Offered at join**: once valence has put the player in the world (in
//!   `PostUpdate`, after valence's `UpdateClientsSet` wrote the join packet
//!   and the chunks), the client gets the URL (`public_url` plus the path),
//!   the SHA-1, whether the pack is required, and the prompt. The player gets
//!   [`PackStatus::Offered`] and a [`PackOffer`].
//! - **Answers** arrive as valence's `ResourcePackStatusEvent` and move the
//!   [`PackStatus`] ([`status`]): a declined or failed pack gets that player
//!   one chat line saying why and that emotes show heads; declining a
//!   required pack is a kick with the reason (the connection closes
//!   [`KICK_GRACE_TICKS`] later, so the reason arrives). Each answer is a
//!   log line.
//! - **After a reload** that built a pack with a new SHA-1, every player
//!   online is offered the new one, except those who declined: they are not
//!   asked again before they rejoin.
//!
//! Nothing breaks for a client that never answers: it stays
//! [`PackStatus::Offered`], which every feature reads as "not loaded". A
//! status packet that does not decode is logged and dropped by valence's
//! event loop; an answer that makes no sense now changes nothing and is a
//! warning (the first per player; later ones are debug lines).
//!
//! # Configuration
//!
//! `[resource_pack]` ([`ResourcePackSection`]): `enabled` and `listen` are
//! read at start-up only (a reload keeps what the server started with);
//! `public_url`, `required` and `prompt` apply to the offers made after a
//! reload, not to offers already made; `merge` is read with every rebuild,
//! and a reload always rebuilds (it changes the configuration and the
//! library).
//!
//! # The runtime
//!
//! The HTTP server runs on a runtime of its own: [`PACK_WORKER_THREADS`]
//! worker at a lower scheduling priority
//! ([`NetworkRuntime::background`]). A pack download is a bulk transfer
//! that can wait a few milliseconds; the tick and the game connections
//! cannot. On the game's runtime, a hundred players downloading at once
//! kept every worker busy and the tick waited for a core (on 2 cores, the
//! tick's p99 went from 1.6 to 8.7–11.6 ms in the load test, see the
//! README); on one low-priority worker the serving takes at most one core,
//! and only what the tick leaves. Should that runtime fail to start, the
//! server shares the game's ([`NetworkRuntime`], or the handle the host
//! gave valence).

pub mod build;
pub mod http;
pub mod pack;
pub mod status;
pub mod url;

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::path::PathBuf;

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::network::NetworkSettings;
use valence::prelude::bevy_ecs::query::Has;
use valence::prelude::*;
use valence::protocol::packets::play::DisconnectS2c;
use valence::protocol::WritePacket;
use valence::resource_pack::ResourcePackStatusEvent;

pub use self::build::PackBuilder;
use self::http::PackSlot;
pub use self::pack::{current_pack, current_pack_keeping, PackBuild, ServedPack};
pub use self::status::PackStatus;
use self::status::{reply, Reply, LOADED_LINE};
use crate::pack::ids::SliceTable;
use crate::pack::merge::MergeConflict;
use crate::pack::slices::library_slices;
use crate::server::config::{Config, ResourcePackSection};
use crate::server::counters::ServerCounters;
use crate::server::emote_library::EmoteLibrary;
use crate::server::runtime::NetworkRuntime;
use crate::server::skin::PackSlices;

/// Serves the resource pack and offers it at join (see the module docs).
/// Reads [`Config`] when added: with `resource_pack.enabled = false` it
/// adds nothing.
pub struct ResourcePackPlugin;

impl Plugin for ResourcePackPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Config>()
            .init_resource::<EmoteLibrary>();
        if !app.world.resource::<Config>().resource_pack.enabled {
            tracing::info!("the resource pack is off (resource_pack.enabled = false)");
            return;
        }
        let Some(runtime) = network_runtime(&app.world) else {
            return;
        };
        app.insert_resource(PackRuntime(runtime))
            .init_resource::<PackBuilder>()
            .add_systems(PostStartup, start_pack_server)
            .add_systems(
                Update,
                (refresh_pack, handle_pack_answers, close_kicked_connections).chain(),
            )
            .add_systems(
                PostUpdate,
                offer_pack_on_join
                    .after(UpdateClientsSet)
                    .before(FlushPacketsSet),
            );
    }
}

/// The running pack server: the address it is bound to and the pack it
/// serves. Present once the server listens.
#[derive(Resource, Clone, Debug)]
pub struct PackServer {
    bound: SocketAddr,
    slot: PackSlot,
}

impl PackServer {
    /// The address the HTTP server is bound to (with the real port when
    /// `listen` asked for port 0).
    pub fn bound(&self) -> SocketAddr {
        self.bound
    }

    /// The pack served now (`None` before the first tick built it).
    pub fn current(&self) -> Option<ServedPack> {
        self.slot.current()
    }
}

/// Serve this pack instead of the one [`current_pack`] makes from the
/// emote library: for tools and tests that need particular bytes, such as
/// `emoted loadtest --pack-downloads`, which serves a pack of
/// `--pack-bytes` bytes. Insert it before the first update (the first pack
/// served is then this one) or replace it later: the next tick serves it
/// under its SHA-1 and offers it to the players online as a reload's new
/// pack would be. Removing it takes effect at the next library change.
#[derive(Resource, Clone, Debug)]
pub struct ServedPackOverride(pub ServedPack);

/// What merging the admin's pack (`resource_pack.merge`) met in the last
/// build of the pack from the library: present once a pack was built that
/// way (not for a [`ServedPackOverride`]).
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub struct PackMergeReport {
    /// The admin's pack, `None` when `merge` is empty.
    pub source: Option<PathBuf>,
    /// The paths both packs had and who won each.
    pub conflicts: Vec<MergeConflict>,
    /// Why the admin's pack was left out, if it was.
    pub error: Option<String>,
}

/// The offer a player's client was last sent.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct PackOffer {
    /// The offered pack's SHA-1.
    pub sha1_hex: String,
    /// The URL it was offered at.
    pub url: String,
    /// Whether it was offered as required.
    pub required: bool,
    /// Answers that made no sense for the status at the time.
    pub unexpected_answer_count: u32,
}

/// How long a kicked player's connection stays open after the disconnect
/// message, so that the message reaches the client before the socket
/// closes (valence's own `DisconnectClient` closes it at once and can lose
/// the message). The client usually hangs up first.
pub const KICK_GRACE_TICKS: u32 = 10;

/// A player sent a disconnect message, whose connection the server closes
/// when `ticks_left` reaches 0.
#[derive(Component, Clone, Copy, Debug)]
struct Kicked {
    ticks_left: u32,
}

/// The runtime the HTTP server runs on.
#[derive(Resource)]
struct PackRuntime(NetworkRuntime);

/// A background runtime of one worker for the pack server (see the module
/// docs); failing that, the shared runtime or the handle the host gave
/// valence; `None` (logged) when there is none.
fn network_runtime(world: &World) -> Option<NetworkRuntime> {
    match NetworkRuntime::background("emoted-pack", PACK_WORKER_THREADS) {
        Ok(runtime) => return Some(runtime),
        Err(e) => tracing::warn!(
            "cannot start the resource pack server's own runtime ({e}); it shares the game's"
        ),
    }
    if let Some(shared) = world.get_resource::<NetworkRuntime>() {
        return Some(shared.clone());
    }
    let given = world
        .get_resource::<NetworkSettings>()
        .and_then(|settings| settings.tokio_handle.clone());
    if let Some(handle) = given {
        return Some(NetworkRuntime::from_handle(handle));
    }
    tracing::error!("no runtime for the resource pack server; players are not offered the pack");
    None
}

/// Worker threads of the pack server's runtime.
pub const PACK_WORKER_THREADS: usize = 1;

fn start_pack_server(
    mut commands: Commands,
    config: Res<Config>,
    runtime: Res<PackRuntime>,
    counters: Option<Res<ServerCounters>>,
) {
    let section = &config.resource_pack;
    let listener = match http::bind(section.listen, runtime.0.handle()) {
        Ok(listener) => listener,
        Err(e) => {
            tracing::error!(
                "cannot serve the resource pack on {}: {e}. Players are not offered it; free \
                 the port or set resource_pack.listen (port 0 picks a free one)",
                section.listen
            );
            return;
        }
    };
    let bound = listener.local_addr().unwrap_or(section.listen);
    let slot = PackSlot::default();
    runtime.0.handle().spawn(http::serve(
        listener,
        slot.clone(),
        counters.map(|c| c.clone()).unwrap_or_default(),
    ));
    tracing::info!(
        "serving the resource pack on {bound}; players are offered {}",
        self::url::pack_url(&section.public_base(bound), "<sha1>")
    );
    commands.insert_resource(PackServer { bound, slot });
}

/// Sends `client` the offer of `pack` and returns what was offered.
fn offer(
    client: &mut Client,
    section: &ResourcePackSection,
    bound: SocketAddr,
    pack: &ServedPack,
) -> PackOffer {
    let url = self::url::pack_url(&section.public_base(bound), pack.sha1_hex());
    let prompt = (!section.prompt.is_empty()).then(|| section.prompt.clone().into_text());
    client.set_resource_pack(&url, pack.sha1_hex(), section.required, prompt);
    PackOffer {
        sha1_hex: pack.sha1_hex().to_owned(),
        url,
        required: section.required,
        unexpected_answer_count: 0,
    }
}

/// Builds the pack (or takes the [`ServedPackOverride`]) when there is none
/// yet or the library, the configuration or the override changed; a new
/// SHA-1 is served at once and offered again to the players online who did
/// not decline. The first pack is built in the tick; later ones off it
/// ([`build`]), applied on the tick they are ready.
#[allow(clippy::too_many_arguments)]
fn refresh_pack(
    mut commands: Commands,
    server: Option<Res<PackServer>>,
    library: Res<EmoteLibrary>,
    overridden: Option<Res<ServedPackOverride>>,
    config: Res<Config>,
    mut builder: ResMut<PackBuilder>,
    mut players: Query<(&mut Client, &Username, &mut PackStatus, &mut PackOffer)>,
) {
    let Some(server) = server else {
        return;
    };
    let changed = library.is_changed()
        || config.is_changed()
        || overridden.as_ref().is_some_and(|o| o.is_changed());
    // Most ticks: nothing changed, a pack is served and none is building;
    // nothing is copied or read.
    if !changed && server.slot.is_set() && !builder.is_building() {
        return;
    }
    let served = server.slot.current();
    let merge_path = || config.resource_pack.merge_path().map(PathBuf::from);
    let (built, merged) = match &overridden {
        // The override's bytes are served; the displays still number their
        // slices by the library's table.
        Some(overridden) => (
            Ok(PackBuild {
                pack: overridden.0.clone(),
                table: SliceTable::new(library_slices(&library.0)),
                conflicts: Vec::new(),
                merge_error: None,
            }),
            None,
        ),
        None if served.is_none() => builder.build_now(&library.0, merge_path()),
        None => {
            if changed {
                builder.start(library.0.clone(), merge_path());
            }
            match builder.finished() {
                Some(finished) => {
                    if builder.take_again() {
                        builder.start(library.0.clone(), merge_path());
                    }
                    finished
                }
                None => return,
            }
        }
    };
    let built = match built {
        Ok(built) => built,
        Err(e) => {
            // Keep serving (and offering) the last good pack.
            tracing::error!("resource pack not rebuilt: {e}");
            return;
        }
    };
    if overridden.is_none() {
        commands.insert_resource(PackMergeReport {
            source: merged.clone(),
            conflicts: built.conflicts.clone(),
            error: built.merge_error.clone(),
        });
    }
    let merge = merged;
    let PackBuild {
        pack,
        table,
        conflicts,
        ..
    } = built;
    if served
        .as_ref()
        .is_some_and(|s| s.sha1_hex() == pack.sha1_hex())
    {
        return;
    }
    if overridden.is_some() {
        tracing::info!(
            "resource pack {} ({} bytes), set by ServedPackOverride",
            pack.sha1_hex(),
            pack.size_bytes()
        );
    } else {
        tracing::info!(
            "resource pack {} ({} bytes) for {} emotes",
            pack.sha1_hex(),
            pack.size_bytes(),
            library.0.len()
        );
    }
    if let (Some(merge), false) = (merge, conflicts.is_empty()) {
        tracing::info!(
            "resource pack: merged {} (paths in both packs: {})",
            merge.display(),
            conflicts.len()
        );
        for conflict in &conflicts {
            tracing::warn!("resource pack merge conflict: {conflict}");
        }
    }
    server.slot.set(pack.clone());
    commands.insert_resource(PackSlices::new(table));
    for (mut client, name, mut status, mut offered) in &mut players {
        if *status == PackStatus::Declined || offered.sha1_hex == pack.sha1_hex() {
            continue;
        }
        *offered = offer(&mut client, &config.resource_pack, server.bound, &pack);
        *status = PackStatus::Offered;
        tracing::debug!("offered {name} the new resource pack {}", offered.url);
    }
}

fn offer_pack_on_join(
    mut commands: Commands,
    server: Option<Res<PackServer>>,
    config: Res<Config>,
    mut joined: Query<(Entity, &mut Client, &Username), Added<Client>>,
) {
    let Some(server) = server else {
        return;
    };
    if joined.is_empty() {
        return; // most ticks: take no copy of the pack
    }
    let Some(pack) = server.slot.current() else {
        return;
    };
    for (player, mut client, name) in &mut joined {
        let offered = offer(&mut client, &config.resource_pack, server.bound, &pack);
        tracing::debug!("offered {name} the resource pack {}", offered.url);
        commands
            .entity(player)
            .insert((PackStatus::Offered, offered));
    }
}

/// On a player told [`LOADED_LINE`] (it is said once per connection).
#[derive(Component)]
struct ToldAboutParts;

fn handle_pack_answers(
    mut commands: Commands,
    mut answers: EventReader<ResourcePackStatusEvent>,
    mut players: Query<(
        &mut Client,
        &Username,
        Option<&mut PackStatus>,
        Option<&mut PackOffer>,
        Has<ToldAboutParts>,
    )>,
) {
    for answer in answers.iter() {
        let Ok((mut client, name, status, offered, told_about_parts)) =
            players.get_mut(answer.client)
        else {
            continue;
        };
        let (Some(mut status), Some(mut offered)) = (status, offered) else {
            tracing::debug!(
                "{name} answered {:?} to a resource pack offer never made; ignored",
                answer.status
            );
            continue;
        };
        let Some(next) = status.after(answer.status) else {
            offered.unexpected_answer_count += 1;
            if offered.unexpected_answer_count == 1 {
                tracing::warn!(
                    "{name} answered {:?} to the resource pack while it was {:?}; ignored \
                     (more such answers from {name} are logged at debug level)",
                    answer.status,
                    *status
                );
            } else {
                tracing::debug!("{name} answered {:?} while {:?}", answer.status, *status);
            }
            continue;
        };
        *status = next;
        log_answer(name, next, &offered);
        if next == PackStatus::Loaded && !told_about_parts {
            client.send_chat_message(LOADED_LINE.color(Color::GRAY));
            commands.entity(answer.client).insert(ToldAboutParts);
        }
        match reply(next, offered.required) {
            Reply::None => {}
            Reply::Chat(line) => client.send_chat_message(line.color(Color::YELLOW)),
            Reply::Kick(message) => {
                client.write_packet(&DisconnectS2c {
                    reason: message.into_text().into(),
                });
                commands.entity(answer.client).insert(Kicked {
                    ticks_left: KICK_GRACE_TICKS,
                });
            }
        }
    }
}

fn close_kicked_connections(mut commands: Commands, mut kicked: Query<(Entity, &mut Kicked)>) {
    for (player, mut kick) in &mut kicked {
        if kick.ticks_left == 0 {
            // valence then despawns the player as for any disconnect.
            commands.entity(player).remove::<(Client, Kicked)>();
        } else {
            kick.ticks_left -= 1;
        }
    }
}

fn log_answer(name: &Username, status: PackStatus, offered: &PackOffer) {
    let sha = &offered.sha1_hex;
    match status {
        PackStatus::Offered => {}
        PackStatus::Accepted => tracing::debug!("{name} accepted the resource pack {sha}"),
        PackStatus::Loaded => tracing::info!("{name} loaded the resource pack {sha}"),
        PackStatus::Declined if offered.required => {
            tracing::info!("{name} declined the resource pack, which is required: disconnected")
        }
        PackStatus::Declined => {
            tracing::info!("{name} declined the resource pack; their emotes show heads")
        }
        PackStatus::Failed => tracing::warn!(
            "{name} could not download or apply the resource pack from {}; their emotes show \
             heads. Check that resource_pack.public_url is reachable from players' machines",
            offered.url
        ),
    }
}

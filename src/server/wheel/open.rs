//! Opening the wheel: what one player is shown ([`shown_emotes`]) and the
//! system that opens it for each [`OpenWheelRequest`].

use valence::op_level::OpLevel;
use valence::prelude::*;

use super::book::{offered_by, EmoteKind, PageKind, ShownEmote, WheelBook};
use super::icons::IconCache;
use super::window::WheelWindow;
use crate::format::{EmoteFile, EmoteId};
use crate::library::Library;
use crate::playback::partner::OFFER_ANNOUNCE_BLOCKS;
use crate::server::config::Config;
use crate::server::emote::{ActiveEmote, EmoteCooldowns};
use crate::server::emote_library::EmoteLibrary;
use crate::server::events::OpenWheelRequest;
use crate::server::permissions::{PlayerIdentity, PlayerPermissions};
use crate::server::storage::PlayerChoices;

/// What one player's wheel is made from, besides the library.
pub struct Viewer<'a> {
    /// What the player may do.
    pub perms: &'a PlayerPermissions<'a>,
    /// Their favourites and wheel order.
    pub choices: &'a PlayerChoices,
    /// Their cooldowns: the ticks left for an emote.
    pub cooldown_ticks: &'a dyn Fn(&EmoteId) -> u64,
    /// Open offers of two-player Sequences nearby: the emote and who offers.
    pub offers: &'a [(EmoteId, String)],
}

/// The emotes `viewer` may play, in library order, as the wheel shows them.
/// Only what they may play themselves: standalone emotes their permissions
/// allow (everything for players who bypass).
pub fn shown_emotes(library: &Library, viewer: &Viewer) -> Vec<ShownEmote> {
    viewer
        .perms
        .playable(library)
        .map(|(id, loaded)| {
            let meta = loaded.file.metadata();
            let kind = match &*loaded.file {
                EmoteFile::Animation(_) => EmoteKind::Animation,
                EmoteFile::Sequence(s) if s.is_two_player() => EmoteKind::TwoPlayer,
                EmoteFile::Sequence(_) => EmoteKind::Sequence,
                EmoteFile::Controller(_) => EmoteKind::Controller,
            };
            let offered_by = offered_by(kind, id, viewer.offers);
            ShownEmote {
                id: id.clone(),
                name: meta.name.clone(),
                description: meta.description.clone(),
                kind,
                icon: meta.icon.clone(),
                favourite: viewer.choices.is_favourite(id),
                cooldown_ticks: (viewer.cooldown_ticks)(id),
                offered_by,
            }
        })
        .collect()
}

/// The players a wheel is opened for.
type Openers<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Client,
        &'static Username,
        &'static UniqueId,
        Option<&'static OpLevel>,
        Option<&'static PlayerChoices>,
        &'static Inventory,
        &'static CursorItem,
        &'static Position,
        &'static VisibleChunkLayer,
        Option<&'static ActiveEmote>,
        Option<&'static mut WheelWindow>,
    ),
>;

/// Open two-player offers, for the "Join" icons.
type Offers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static ActiveEmote,
        &'static Position,
        &'static VisibleChunkLayer,
        &'static Username,
    ),
>;

/// The open two-player offers a player at `position` in `layer` is
/// shown, by emote and offerer (their own left out).
fn nearby_offers(
    offers: &Offers,
    player: Entity,
    position: DVec3,
    layer: Entity,
) -> Vec<(EmoteId, String)> {
    offers
        .iter()
        .filter(|(offerer, playback, p, l, _)| {
            *offerer != player
                && l.0 == layer
                && p.0.distance(position) <= OFFER_ANNOUNCE_BLOCKS
                && playback.duo.as_ref().is_some_and(|d| d.is_open())
        })
        .map(|(_, playback, .., by)| (playback.emote().clone(), by.0.clone()))
        .collect()
}

/// How often open wheels are checked for a cooldown that ended or an
/// offer that opened: four times a second.
pub const REFRESH_EVERY_TICKS: i64 = 5;

/// The open wheels, to refresh.
type OpenWheels<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut Client,
        &'static UniqueId,
        &'static Inventory,
        &'static CursorItem,
        &'static Position,
        &'static VisibleChunkLayer,
        &'static mut WheelWindow,
    ),
>;

/// Draws an open wheel again, on the page it shows, when a cooldown of
/// the player's started or ended or a two-player offer near them opened
/// or closed (checked every [`REFRESH_EVERY_TICKS`]), so a player who
/// keeps the wheel open sees an emote become playable, or "Join" appear,
/// without clicking.
pub(super) fn refresh_open_wheels(
    server: Res<Server>,
    cooldowns: Res<EmoteCooldowns>,
    mut icons: ResMut<IconCache>,
    mut wheels: OpenWheels,
    offers: Offers,
) {
    let now_tick = server.current_tick();
    if now_tick % REFRESH_EVERY_TICKS != 0 || wheels.is_empty() {
        return;
    }
    let now = u64::try_from(now_tick).unwrap_or(0);
    for (player, mut client, uuid, inventory, cursor, position, layer, mut window) in &mut wheels {
        let nearby = nearby_offers(&offers, player, position.0, layer.0);
        let cooldown_ticks = |id: &EmoteId| cooldowns.0.remaining_ticks(&uuid.0, id, now);
        if window.book.refresh_facts(&cooldown_ticks, &nearby) {
            window.redraw(&mut icons);
            window.resync(&mut client, inventory, cursor);
        }
    }
}

/// Wheels opened at most in one tick. Opening one is about 50 µs (most of
/// it compressing its contents for the connection), so a crowd asking in
/// the same tick is spread: 100 players get their wheels over three ticks,
/// none of which grows past about 2 ms for it, and the last waits 100 ms.
pub const MAX_WHEEL_OPENS_PER_TICK: usize = 40;

/// Players waiting for their wheel, first come first served, each once.
#[derive(Default)]
pub(super) struct PendingOpens {
    queue: std::collections::VecDeque<Entity>,
    queued: std::collections::HashSet<Entity>,
}

/// Opens the wheel for each request, on its first page: the favourites when
/// the player has any, else every emote; at most
/// [`MAX_WHEEL_OPENS_PER_TICK`] a tick, the rest in the next ticks. A
/// wheel already open is built again and shown from its first page.
#[allow(clippy::too_many_arguments)]
pub(super) fn open_requested_wheels(
    mut requests: EventReader<OpenWheelRequest>,
    mut commands: Commands,
    library: Res<EmoteLibrary>,
    config: Res<Config>,
    cooldowns: Res<EmoteCooldowns>,
    server: Res<Server>,
    mut icons: ResMut<IconCache>,
    mut pending: Local<PendingOpens>,
    mut openers: Openers,
    offers: Offers,
) {
    if library.is_changed() {
        icons.clear();
    }
    for request in requests.iter() {
        if pending.queued.insert(request.client) {
            pending.queue.push_back(request.client);
        }
    }
    if pending.queue.is_empty() {
        return;
    }
    let now = u64::try_from(server.current_tick()).unwrap_or(0);
    let no_choices = PlayerChoices::default();
    let take = pending.queue.len().min(MAX_WHEEL_OPENS_PER_TICK);
    let opening: Vec<Entity> = pending.queue.drain(..take).collect();
    for player in &opening {
        pending.queued.remove(player);
    }
    for player in opening {
        let request = OpenWheelRequest { client: player };
        let Ok((
            mut client,
            name,
            uuid,
            op,
            choices,
            inventory,
            cursor,
            position,
            layer,
            playing,
            open,
        )) = openers.get_mut(request.client)
        else {
            continue; // gone
        };
        let perms = PlayerPermissions::resolve(
            &config.permissions,
            PlayerIdentity {
                name: &name.0,
                uuid: uuid.0,
            },
            op.map_or(0, |o| o.get()),
        );
        let nearby = nearby_offers(&offers, request.client, position.0, layer.0);
        let choices = choices.unwrap_or(&no_choices);
        let player = uuid.0;
        let cooldown_ticks = |id: &EmoteId| cooldowns.0.remaining_ticks(&player, id, now);
        let viewer = Viewer {
            perms: &perms,
            choices,
            cooldown_ticks: &cooldown_ticks,
            offers: &nearby,
        };
        let mut book = WheelBook::new(shown_emotes(&library.0, &viewer), &choices.wheel_order);
        book.set_camera(config.camera.enabled.then_some(!choices.camera_off));
        let first = book.first_page(PageKind::Favourites).unwrap_or(0);
        let playing = playing.map(|p| p.state.name.clone());
        let mut window = WheelWindow::new(book, first, playing, &mut icons);
        window.open(&mut client, inventory, cursor);
        match open {
            Some(mut open) => *open = window,
            None => {
                commands.entity(request.client).insert(window);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::permissions::PermissionsSection;

    fn bundled() -> Library {
        let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/emotes"));
        Library::load(&[root]).library
    }

    fn shown_for(library: &Library, rules: &PermissionsSection, op: u8) -> Vec<ShownEmote> {
        let perms = PlayerPermissions::resolve(
            rules,
            PlayerIdentity {
                name: "alice",
                uuid: Uuid::nil(),
            },
            op,
        );
        let choices = PlayerChoices {
            favourites: vec!["example:wave".into()],
            wheel_order: Vec::new(),
            ..PlayerChoices::default()
        };
        let cooldown = |id: &EmoteId| if id.as_str() == "example:bow" { 30 } else { 0 };
        let offers = [(
            EmoteId::parse("example:handshake").expect("id"),
            "bob".into(),
        )];
        shown_emotes(
            library,
            &Viewer {
                perms: &perms,
                choices: &choices,
                cooldown_ticks: &cooldown,
                offers: &offers,
            },
        )
    }

    #[test]
    fn only_what_the_player_may_play_is_shown() {
        let library = bundled();
        let rules: PermissionsSection = toml::from_str(
            "disabled = [\"example:bow\"]\n[[emote_groups]]\nemotes = [\"example:guitar\"]\nnode = \"emote.vip\"\n",
        )
        .expect("rules");
        let shown = shown_for(&library, &rules, 0);
        let ids: Vec<&str> = shown.iter().map(|e| e.id.as_str()).collect();
        assert!(!ids.contains(&"example:guitar"), "a VIP emote: {ids:?}");
        assert!(!ids.contains(&"example:bow"), "disabled: {ids:?}");
        // Parts of Sequences are not standalone: never on the wheel.
        assert!(!ids.contains(&"example:handshake_offer"));
        assert!(ids.contains(&"example:wave"));
        // An operator holds every node and bypasses: everything loaded.
        assert_eq!(shown_for(&library, &rules, 4).len(), library.len());
    }

    #[test]
    fn each_emote_carries_its_player_facts() {
        let library = bundled();
        let shown = shown_for(&library, &PermissionsSection::default(), 0);
        let find = |id: &str| shown.iter().find(|e| e.id.as_str() == id).expect(id);
        assert!(find("example:wave").favourite);
        assert!(!find("example:bow").favourite);
        assert_eq!(find("example:bow").cooldown_ticks, 30);
        assert_eq!(find("example:handshake").kind, EmoteKind::TwoPlayer);
        assert_eq!(find("example:handshake").offered_by.as_deref(), Some("bob"));
        assert_eq!(find("example:sit_session").kind, EmoteKind::Sequence);
        assert_eq!(find("example:sit_session").offered_by, None);
        assert_eq!(find("example:wave").name, "Wave");
    }
}

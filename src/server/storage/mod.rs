//! Per-player state that survives a restart, as the server's features see
//! it: the [`PlayerStoreResource`] (the SQLite file of [`crate::store`],
//! opened at start-up from `[storage] data_folder`), and each online
//! player's [`PlayerChoices`] (their favourite emotes, wheel order,
//! whether they see body parts or heads and whether their emotes fly a
//! camera), read from it when they join and written through on every
//! change.
//!
//! # Parts or heads
//! A client whose shader pack (OptiFine, Iris) or skull mod replaces
//! vanilla's entity shader cannot draw emoted's body parts, and no server
//! can tell. `/emote parts off` lets such a player see every emote as
//! heads, as a player who declined the pack does (the culling cells treat
//! them as one: [`PlayerChoices::sees_parts`]); `/emote parts on` brings
//! the parts back. The choice is the player's own: others still see the
//! parts of that player's emotes.
//!
//! # The camera
//! `/emote camera off` keeps a player's own view while they emote (the
//! camera plugin reads [`PlayerChoices::camera_off`]); `/emote camera on`
//! brings the camera
//! back. Both choices are [`OnOffChoice`]s, stored one table each.
//!
//! The store is optional. Without one (storage turned off, or a file the
//! store refused) choices still work, for as long as the player stays
//! online; a write that fails is logged and the choice is kept in memory.
//! Nothing else is affected by the store's trouble.

use std::sync::Mutex;

use valence::prelude::*;

use crate::format::EmoteId;
use crate::server::config::Config;
use crate::server::events::{add_shared_events, OnOffChoiceRequest};
use crate::store::{OnOffChoice, PlayerStore, StoreError};

/// Opens the store at start-up and reads each joining player's choices.
pub struct StoragePlugin;

impl Plugin for StoragePlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<Config>()
            .init_resource::<PlayerStoreResource>()
            .add_systems(PreStartup, open_player_store)
            .add_systems(PreUpdate, read_joined_players_choices)
            .add_systems(Update, apply_on_off_choices);
    }
}

/// The open store, if any (see the module docs).
#[derive(Resource, Default)]
pub struct PlayerStoreResource(Option<Mutex<PlayerStore>>);

impl PlayerStoreResource {
    /// A resource holding `store`.
    pub fn new(store: PlayerStore) -> Self {
        Self(Some(Mutex::new(store)))
    }

    /// Whether a store is open.
    pub fn is_open(&self) -> bool {
        self.0.is_some()
    }

    /// Closes the store (its SQLite file); choices are kept in memory from
    /// then on. True when one was open.
    pub fn close(&mut self) -> bool {
        self.0.take().is_some()
    }

    /// Runs `write` on the store; `what` names it in the log when it fails.
    /// Without a store nothing happens.
    fn with_store<T>(
        &self,
        what: &str,
        write: impl FnOnce(&mut PlayerStore) -> Result<T, StoreError>,
    ) -> Option<T> {
        let store = self.0.as_ref()?;
        let mut store = match store.lock() {
            Ok(store) => store,
            Err(poisoned) => poisoned.into_inner(),
        };
        match write(&mut store) {
            Ok(value) => Some(value),
            Err(e) => {
                tracing::warn!("cannot {what}: {e}");
                None
            }
        }
    }
}

/// A player's favourite emotes and wheel order (on the player entity).
///
/// Ids are kept as stored, loaded or not: a reload may bring an emote back,
/// and whoever shows them filters by what is loaded.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerChoices {
    /// Favourite emote ids, in the order they were added.
    pub favourites: Vec<String>,
    /// The wheel order: emote ids first to last (empty: the default order).
    pub wheel_order: Vec<String>,
    /// True after `/emote parts off`: this player sees heads instead of
    /// emoted's body parts, even with the pack loaded.
    pub parts_hidden: bool,
    /// True after `/emote camera off`: this player's emotes fly no camera.
    pub camera_off: bool,
}

impl PlayerChoices {
    /// Whether `id` is a favourite.
    pub fn is_favourite(&self, id: &EmoteId) -> bool {
        self.favourites.iter().any(|f| f == id.as_str())
    }

    /// Makes `id` a favourite or no longer one, in memory and in the store;
    /// returns whether it is a favourite now.
    pub fn toggle_favourite(
        &mut self,
        player: Uuid,
        id: &EmoteId,
        store: &PlayerStoreResource,
    ) -> bool {
        let now = match self.favourites.iter().position(|f| f == id.as_str()) {
            Some(index) => {
                self.favourites.remove(index);
                false
            }
            None => {
                self.favourites.push(id.to_string());
                true
            }
        };
        store.with_store("store a favourite", |s| {
            s.toggle_favourite(player, id.as_str()).map(|stored| {
                if stored != now {
                    // The file disagreed with memory (edited while the
                    // player was online): say it, keep the player's choice.
                    tracing::warn!("{player}'s favourite {id} was out of step with the store");
                }
            })
        });
        now
    }

    /// Whether a viewer whose client `pack_loaded` sees body parts.
    pub fn sees_parts(choices: Option<&PlayerChoices>, pack_loaded: bool) -> bool {
        pack_loaded && !choices.is_some_and(|c| c.parts_hidden)
    }

    /// Whether an on/off choice is on.
    pub fn is_on(&self, choice: OnOffChoice) -> bool {
        match choice {
            OnOffChoice::Parts => !self.parts_hidden,
            OnOffChoice::Camera => !self.camera_off,
        }
    }

    /// Makes an on/off choice, in memory and in the store.
    pub fn set_on(
        &mut self,
        player: Uuid,
        choice: OnOffChoice,
        on: bool,
        store: &PlayerStoreResource,
    ) {
        store.with_store("store an on/off choice", |s| {
            s.set_choice(player, choice, on)
        });
        match choice {
            OnOffChoice::Parts => self.parts_hidden = !on,
            OnOffChoice::Camera => self.camera_off = !on,
        }
    }

    /// Replaces the wheel order, in memory and in the store.
    pub fn set_wheel_order(
        &mut self,
        player: Uuid,
        order: Vec<String>,
        store: &PlayerStoreResource,
    ) {
        store.with_store("store a wheel order", |s| s.set_wheel_order(player, &order));
        self.wheel_order = order;
    }
}

/// Opens `[storage] data_folder`'s store; every trouble is a log line.
fn open_player_store(config: Res<Config>, mut resource: ResMut<PlayerStoreResource>) {
    if resource.is_open() {
        return; // a host inserted its own
    }
    let Some(folder) = config.storage.data_folder() else {
        tracing::info!("storage.data_folder is empty: favourites and wheel orders are not kept");
        return;
    };
    match PlayerStore::open(folder) {
        Ok(opened) => {
            for warning in &opened.warnings {
                tracing::warn!("{warning}");
            }
            tracing::info!(
                "player choices are kept in {}",
                opened.store.file().display()
            );
            *resource = PlayerStoreResource::new(opened.store);
        }
        Err(e) => tracing::error!("{e}; favourites and wheel orders are not kept"),
    }
}

fn read_joined_players_choices(
    mut commands: Commands,
    store: Res<PlayerStoreResource>,
    joined: Query<(Entity, &UniqueId), Added<Client>>,
) {
    for (player, uuid) in &joined {
        let favourites = store
            .with_store("read favourites", |s| s.favourites(uuid.0))
            .unwrap_or_default();
        let wheel_order = store
            .with_store("read a wheel order", |s| s.wheel_order(uuid.0))
            .unwrap_or_default();
        let on = |choice| {
            store
                .with_store("read an on/off choice", |s| s.choice(uuid.0, choice))
                .unwrap_or(true)
        };
        commands.entity(player).insert(PlayerChoices {
            favourites,
            wheel_order,
            parts_hidden: !on(OnOffChoice::Parts),
            camera_off: !on(OnOffChoice::Camera),
        });
    }
}

/// What `/emote parts` or `/emote camera` answers a player whose choice
/// is `on`, having just chosen (`chosen`: `on` or `off` typed) or asked.
pub fn choice_answer(choice: OnOffChoice, on: bool, chosen: bool) -> &'static str {
    match (choice, on, chosen) {
        (OnOffChoice::Parts, true, true) => "You now see emotes' bodies drawn in players' skins (with emoted's resource pack). If they look broken, /emote parts off shows heads instead.",
        (OnOffChoice::Parts, false, true) => "You now see heads instead of emotes' body parts, here and after you rejoin. /emote parts on brings the parts back.",
        (OnOffChoice::Parts, true, false) => "You see emotes' bodies drawn in players' skins (with emoted's resource pack). /emote parts off shows heads instead.",
        (OnOffChoice::Parts, false, false) => "You see heads instead of emotes' body parts. /emote parts on brings the parts back.",
        (OnOffChoice::Camera, true, true) => "Your emotes now show you yourself, from a camera you steer with the mouse (Shift ends the emote). /emote camera off keeps your own view.",
        (OnOffChoice::Camera, false, true) => "Your emotes now keep your own view, here and after you rejoin. /emote camera on brings the camera back.",
        (OnOffChoice::Camera, true, false) => "Your emotes show you yourself, from a camera you steer with the mouse. /emote camera off keeps your own view.",
        (OnOffChoice::Camera, false, false) => "Your emotes keep your own view. /emote camera on shows you yourself from a camera.",
    }
}

/// Applies `/emote parts [on|off]` and `/emote camera [on|off]` and
/// answers the player.
fn apply_on_off_choices(
    mut requests: EventReader<OnOffChoiceRequest>,
    store: Res<PlayerStoreResource>,
    mut players: Query<(&mut Client, &UniqueId, Option<&mut PlayerChoices>)>,
) {
    for request in requests.iter() {
        let Ok((mut client, uuid, choices)) = players.get_mut(request.client) else {
            continue;
        };
        let Some(mut choices) = choices else {
            // Choices are read the tick a player joins; nothing typed precedes them.
            continue;
        };
        let before = choices.is_on(request.choice);
        let on = request.on.unwrap_or(before);
        if on != before {
            choices.set_on(uuid.0, request.choice, on, &store);
        }
        client.send_chat_message(
            choice_answer(request.choice, on, request.on.is_some()).color(Color::GRAY),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> EmoteId {
        EmoteId::parse(text).expect("an id")
    }

    #[test]
    fn choices_are_written_through_and_read_back() {
        let folder = std::env::temp_dir().join(format!("emoted-storage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let player = Uuid::from_u128(7);
        let store = PlayerStoreResource::new(PlayerStore::open(&folder).expect("open").store);
        let mut choices = PlayerChoices::default();
        assert!(choices.toggle_favourite(player, &id("example:wave"), &store));
        assert!(choices.toggle_favourite(player, &id("example:bow"), &store));
        assert!(!choices.toggle_favourite(player, &id("example:wave"), &store));
        choices.set_wheel_order(player, vec!["example:bow".into()], &store);
        drop(store);
        let reopened = PlayerStore::open(&folder).expect("reopen").store;
        assert_eq!(reopened.favourites(player).expect("read"), ["example:bow"]);
        assert_eq!(reopened.wheel_order(player).expect("read"), ["example:bow"]);
        assert!(choices.is_favourite(&id("example:bow")));
        assert!(!choices.is_favourite(&id("example:wave")));
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn without_a_store_choices_live_in_memory() {
        let store = PlayerStoreResource::default();
        let mut choices = PlayerChoices::default();
        assert!(choices.toggle_favourite(Uuid::nil(), &id("example:wave"), &store));
        assert_eq!(choices.favourites, ["example:wave"]);
    }

    /// A store on a disk that became read-only, or full: each write that
    /// fails is a warning, the player's choices are kept in memory, what
    /// the file holds is still read, and other players' choices go on.
    #[test]
    fn a_read_only_or_full_disk_keeps_choices_in_memory() {
        for full in [false, true] {
            let folder = std::env::temp_dir().join(format!(
                "emoted-storage-{}-{}",
                std::process::id(),
                if full { "full" } else { "read-only" }
            ));
            let _ = std::fs::remove_dir_all(&folder);
            let (alice, bob) = (Uuid::from_u128(1), Uuid::from_u128(2));
            let store = PlayerStoreResource::new(PlayerStore::open(&folder).expect("open").store);
            let mut kept = PlayerChoices::default();
            assert!(kept.toggle_favourite(alice, &id("example:wave"), &store));
            let file = {
                let guard = store.0.as_ref().expect("open").lock().expect("lock");
                if full {
                    guard.fill_disk_for_test();
                } else {
                    guard.refuse_writes_for_test();
                }
                guard.file().to_path_buf()
            };
            // Enough new rows to need new pages on the full disk.
            let mut choices = PlayerChoices::default();
            let ids: Vec<EmoteId> = (0..400)
                .map(|i| id(&format!("example:many_{i:03}")))
                .collect();
            for emote in &ids {
                assert!(choices.toggle_favourite(alice, emote, &store));
            }
            choices.set_on(alice, OnOffChoice::Camera, false, &store);
            let mut bobs = PlayerChoices::default();
            assert!(bobs.toggle_favourite(bob, &id("example:bow"), &store));
            // In memory, every choice holds.
            assert_eq!(choices.favourites.len(), 400);
            assert!(choices.camera_off && bobs.is_favourite(&id("example:bow")));
            // The file still reads, and holds what came before the trouble.
            let read = store
                .with_store("read", |s| s.favourites(alice))
                .expect("reads");
            // (Favourites read in the order added, to the millisecond, then
            // by id: one written in wave's millisecond may come first.)
            assert!(read.iter().any(|e| e == "example:wave"), "{read:?}");
            assert!(read.len() < 401, "some writes failed: {}", read.len());
            if !full {
                assert_eq!(read.len(), 1, "a read-only file takes nothing");
            }
            drop(store);
            assert!(file.exists());
            let _ = std::fs::remove_dir_all(&folder);
        }
    }
}

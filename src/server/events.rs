//! What the server's features share: the events one feature sends and
//! another handles, the reasons a playback ends, the system set everything
//! orders itself around, and the marker on emote display entities. Each
//! feature's plugin depends on this module, never on the plugin that
//! happens to handle an event, so no two features import each other.
//!
//! | event | sent by | handled by |
//! |---|---|---|
//! | [`PlayEmoteRequest`], [`StopEmoteRequest`] | chat commands, the dispatcher, two-player offers, idle emotes, the wheel | playback |
//! | [`EmoteEndedEvent`] | playback | feedback, idle emotes, the failure log, tests |
//! | [`ActionBarShownEvent`] | the dispatcher (`title … actionbar`) | feedback |
//! | [`EmoteCommandEvent`] | playback (timeline, start and stop events) | the dispatcher |
//! | [`PlayerDamagedEvent`], [`PlayerDiedEvent`] | combat | stop conditions, playback |
//! | [`ReloadRequest`] | `/emote reload`, the file watcher, the console and RCON | reload, functions |
//! | [`ReloadFinishedEvent`] | reload | the console and RCON |
//! | [`OpenWheelRequest`] | `/emote`, `/emotes` | the emote wheel |

use std::borrow::Cow;

use valence::math::DVec3;
use valence::prelude::*;

use crate::format::node::Participant;
use crate::format::EmoteId;
use crate::playback::idle::IdleWake;
use crate::playback::StopReason;

/// The playback systems. This set lives in [`Update`]; command handling runs before it.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EmotePlaybackSet;

/// Ask to play an emote for a player.
#[derive(Event, Clone, Debug)]
pub struct PlayEmoteRequest {
    /// The player who plays it.
    pub client: Entity,
    /// The emote id.
    pub emote: EmoteId,
    /// Skip the `standalone` and cooldown checks (operators, `emote.bypass`).
    pub bypass: bool,
    /// Factor for the cooldown this playback starts (permission emote
    /// groups); 1 keeps the emote's own cooldown.
    pub cooldown_multiplier: f32,
    /// The player did not ask (an idle emote): a refusal is logged at
    /// debug level, not told in chat, so a start retried every second does
    /// not fill their chat.
    pub quiet: bool,
}

/// Ask to stop a player's emote.
#[derive(Event, Clone, Debug)]
pub struct StopEmoteRequest {
    /// The player (the partner of a two-player Sequence stops it for both).
    pub client: Entity,
    /// Why, as it happened to `client`: [`EndReason::Stopped`] for the
    /// player's own `/emote stop` (a player who plays nothing is told so),
    /// [`EndReason::Reloaded`] for a reload. A request for a partner is
    /// turned into [`EndReason::Partner`] of this reason on the way to the
    /// initiator's playback.
    pub reason: EndReason,
}

/// Ask to set a parameter of the controller a player plays (`/emote set`,
/// typed or run by an event).
#[derive(Event, Clone, Debug)]
pub struct SetParameterRequest {
    /// The player.
    pub client: Entity,
    /// The parameter's name.
    pub parameter: String,
    /// Its value: a number, 0 or 1 for a bool; a trigger fires whatever it is.
    pub value: f32,
    /// Tell the player when it cannot be set (a typed command); an
    /// event's is logged instead.
    pub typed: bool,
}

/// Why a playback ended, as it happened to the initiator (the player whose
/// playback it is); [`EndReason::Partner`] wraps what happened to the
/// partner of a two-player Sequence. [`EndReason::describe`] puts it in
/// words for either of them.
#[derive(Clone, Debug, PartialEq)]
pub enum EndReason {
    /// A `once` timeline reached its end.
    Finished,
    /// The player's own `/emote stop` (typed, or the wheel's stop).
    Stopped,
    /// Someone else's `/emote stop <player>`.
    StoppedBy {
        /// Who typed it.
        name: String,
    },
    /// An event command or a datapack function ran `emote stop`.
    StoppedByCommand,
    /// Another emote started for the player.
    Replaced,
    /// A stop condition of the file.
    Condition(StopReason),
    /// The player left (or the entity is gone).
    Left,
    /// Molang gave a non-finite value, went over its budget, or the events
    /// ran over the command cap.
    Failed(String),
    /// The player died.
    Died,
    /// The player's view moved to another world (chunk layer).
    LeftWorld,
    /// A reload changed the emote's file, or removed the emote.
    Reloaded {
        /// True when the emote is gone, false when its file changed.
        removed: bool,
    },
    /// What happened to the partner of a two-player Sequence ended it for
    /// both: `Partner(Left)` when the partner left, `Partner(Condition(…))`
    /// for a stop condition of the partner's, and so on.
    Partner(Box<EndReason>),
    /// An idle emote ([`crate::server::idle`]) ended because the player
    /// did something: what they did.
    NoLongerIdle(IdleWake),
    /// The server is stopping ([`crate::server::shutdown`]).
    ServerStopping,
}

impl EndReason {
    /// What happened to the partner, ending a two-player Sequence.
    pub fn of_partner(reason: EndReason) -> Self {
        EndReason::Partner(Box::new(reason))
    }

    /// Why, in a few words for `told` (the initiator or the partner of the
    /// playback): "you moved" to the player it happened to, "your partner
    /// moved" to the other; a reason that concerns both reads the same
    /// ("the emote was reloaded: its file changed").
    pub fn describe(&self, told: Participant) -> Cow<'static, str> {
        let (initiator, partner) = self.phrases();
        match told {
            Participant::Initiator => initiator,
            Participant::Partner => partner,
        }
    }

    /// (Told to the initiator, told to the partner). One arm per reason,
    /// with no catch-all, so a new reason cannot go without words.
    fn phrases(&self) -> (Cow<'static, str>, Cow<'static, str>) {
        fn pair(
            initiator: &'static str,
            partner: &'static str,
        ) -> (Cow<'static, str>, Cow<'static, str>) {
            (Cow::Borrowed(initiator), Cow::Borrowed(partner))
        }
        fn both(words: impl Into<Cow<'static, str>>) -> (Cow<'static, str>, Cow<'static, str>) {
            let words = words.into();
            (words.clone(), words)
        }
        match self {
            EndReason::Finished => both("it played to the end"),
            EndReason::Stopped => pair("you stopped it", "your partner stopped it"),
            EndReason::StoppedBy { name } => both(format!("{name} stopped it")),
            EndReason::StoppedByCommand => both("a command stopped it"),
            EndReason::Replaced => pair(
                "you started another emote",
                "your partner started another emote",
            ),
            EndReason::Condition(why) => pair(why.describe(), why.describe_partner()),
            EndReason::Left => pair("you left", "your partner left"),
            EndReason::Failed(_) => both("it failed"),
            EndReason::Died => pair("you died", "your partner died"),
            EndReason::LeftWorld => pair("you left the world", "your partner left the world"),
            EndReason::Reloaded { removed: false } => {
                both("the emote was reloaded: its file changed")
            }
            EndReason::Reloaded { removed: true } => both("the emote was removed by a reload"),
            EndReason::NoLongerIdle(wake) => pair(wake.describe(), "your partner stopped idling"),
            EndReason::ServerStopping => both("the server is stopping"),
            EndReason::Partner(what) => {
                let (initiator, partner) = what.phrases();
                (partner, initiator)
            }
        }
    }
}

/// Sent when a playback ends, for chat feedback and tests.
#[derive(Event, Clone, Debug)]
pub struct EmoteEndedEvent {
    /// The player (the initiator of a two-player Sequence).
    pub client: Entity,
    /// The matched partner of a two-player Sequence, who played it too.
    pub partner: Option<Entity>,
    /// The emote.
    pub emote: EmoteId,
    /// Why.
    pub reason: EndReason,
}

/// Something other than emoted's own feedback showed text on a player's
/// action bar (an emote's `title … actionbar`): the playing emote's bar
/// leaves it on screen for a while instead of covering it
/// ([`crate::server::feedback`]).
#[derive(Event, Clone, Copy, Debug)]
pub struct ActionBarShownEvent {
    /// The player.
    pub client: Entity,
}

/// Marks a display entity spawned for a player's emote.
#[derive(Component, Clone, Copy, Debug)]
pub struct EmoteDisplay {
    /// The player whose playback owns it.
    pub owner: Entity,
}

/// Which viewers see an emote display. Most displays are for everyone. A
/// skin-bound node has two: a `player_head` cut into its body part by
/// emoted's resource pack, for viewers whose client loaded that pack, and
/// the whole head for the others (the fallback). The culling cells keep
/// the two apart ([`crate::server::cull`]).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DisplayAudience {
    /// Every viewer.
    #[default]
    Everyone,
    /// Viewers whose client loaded the resource pack served now.
    WithPack,
    /// Viewers whose client did not (declined, failed, not yet answered).
    WithoutPack,
}

impl DisplayAudience {
    /// Whether a viewer who has (or has not) loaded the pack sees it.
    pub fn admits(self, pack_loaded: bool) -> bool {
        match self {
            DisplayAudience::Everyone => true,
            DisplayAudience::WithPack => pack_loaded,
            DisplayAudience::WithoutPack => !pack_loaded,
        }
    }
}

/// On a client that draws players' emotes on their own player model, from
/// bone animations: a modded client (Emotecraft's, once it answered
/// CONFIG). Such a viewer gets no display copies of the parts a bone form
/// moves ([`BoneDrawn`]), and still sees a player whose emote hides them
/// from vanilla viewers ([`crate::server::emote::VanillaHiddenLayers`]).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct BoneViewer;

/// On a display entity of a part of the initiator's skin, or of an item in
/// the initiator's hand, in a playback whose every Animation has a bone
/// form: bone viewers ([`BoneViewer`]) draw it on the player's own model
/// instead, so the culling cells keep it from them
/// ([`crate::server::cull`]).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct BoneDrawn;

/// Who runs an event command.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandSource {
    /// A player, with that player's own permissions.
    Player(Entity),
    /// The server console.
    Server,
    /// A display node: `@s` is its entity.
    Node {
        /// The node id (the name `say` uses).
        id: String,
        /// Its display entity.
        entity: Entity,
    },
}

impl CommandSource {
    /// The entity `@s` selects, if any.
    pub fn entity(&self) -> Option<Entity> {
        match self {
            CommandSource::Player(e) => Some(*e),
            CommandSource::Node { entity, .. } => Some(*entity),
            CommandSource::Server => None,
        }
    }
}

/// One command to run, with its context.
#[derive(Event, Clone, Debug)]
pub struct EmoteCommandEvent {
    /// The player whose playback's event queued it: its commands this tick
    /// count against `emotes.max_commands_per_tick`.
    pub playback: Option<Entity>,
    /// Who runs it.
    pub source: CommandSource,
    /// Where `~ ~ ~` is, in world coordinates.
    pub origin: DVec3,
    /// The command text, without a leading `/`.
    pub command: String,
}

/// A player lost health to a hit.
#[derive(Event, Clone, Copy, Debug)]
pub struct PlayerDamagedEvent {
    /// Who was hurt.
    pub victim: Entity,
    /// Who hit.
    pub attacker: Entity,
    /// Health lost.
    pub amount: f32,
}

/// A player died.
#[derive(Event, Clone, Copy, Debug)]
pub struct PlayerDiedEvent {
    /// Who died.
    pub player: Entity,
}

/// Ask for a reload of the emotes and the configuration.
#[derive(Event, Clone, Debug)]
pub struct ReloadRequest {
    /// The player who asked (gets the report in chat); `None` for the watcher.
    pub requested_by: Option<Entity>,
}

/// A reload finished: what it reports, line by line (the summary first),
/// for whoever asked without a chat to read it in (the console, RCON).
#[derive(Event, Clone, Debug)]
pub struct ReloadFinishedEvent {
    /// The summary, then configuration and file problems.
    pub lines: Vec<String>,
}

/// Ask to open the emote wheel for a player (sneak + F opens it without
/// this event: the wheel reads that packet itself).
#[derive(Event, Clone, Copy, Debug)]
pub struct OpenWheelRequest {
    /// The player.
    pub client: Entity,
}

/// `/emote parts [on|off]` (a player chooses to see emoted's body parts,
/// on, or heads, off, in every emote) and `/emote camera [on|off]` (their
/// emotes fly a camera or not), or asks which they have (`None`).
#[derive(Event, Clone, Copy, Debug)]
pub struct OnOffChoiceRequest {
    /// The player.
    pub client: Entity,
    /// Which choice.
    pub choice: crate::store::OnOffChoice,
    /// On, off, or just asking.
    pub on: Option<bool>,
}

/// On a player while their emote camera flies (the camera plugin's
/// `EmoteCamera` is beside it): their view is the camera's and they are
/// seated, so their look steers the camera instead of turning the emote,
/// and their clicks do nothing.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct CameraFlying {
    /// Where the camera's eye was last tick, in the world (`None` before
    /// its first flight): the player's look-at faces it, so they look into
    /// their own shot.
    pub eye: Option<DVec3>,
}

/// Registers every event of this module. Each feature plugin that reads or
/// writes one calls [`add_shared_events`], so any subset of
/// [`EmotePlugins`](crate::EmotePlugins) works and each event is added once.
pub struct EmoteEventsPlugin;

impl Plugin for EmoteEventsPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<PlayEmoteRequest>()
            .add_event::<StopEmoteRequest>()
            .add_event::<SetParameterRequest>()
            .add_event::<EmoteEndedEvent>()
            .add_event::<ActionBarShownEvent>()
            .add_event::<EmoteCommandEvent>()
            .add_event::<PlayerDamagedEvent>()
            .add_event::<PlayerDiedEvent>()
            .add_event::<ReloadRequest>()
            .add_event::<ReloadFinishedEvent>()
            .add_event::<OpenWheelRequest>()
            .add_event::<OnOffChoiceRequest>();
    }
}

/// Adds [`EmoteEventsPlugin`] unless an earlier plugin did.
pub fn add_shared_events(app: &mut App) -> &mut App {
    if !app.is_plugin_added::<EmoteEventsPlugin>() {
        app.add_plugins(EmoteEventsPlugin);
    }
    app
}

//! `settings` of Animations, Sequences and controllers.
//!
//! Defaults where the specification is silent (files are written strictly,
//! read leniently): `standalone` true, `cooldown` 0t, `rotation_deadzone` 50°
//! (the reference file's value, close to vanilla's body-follows-head angle),
//! `player.hidden` false, every stop condition off (`movement_distance` 0),
//! `playback.mode` `once`, `loop_delay` 0t. A controller's `settings` are
//! an Animation's without `playback`: it plays until the player stops it or
//! a transition goes to `exit`.

use serde_json::Value;

use super::problem::{JsonPointer, Problems};
use super::read::{self, Obj};

/// Playback modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaybackMode {
    /// Play the timeline once.
    Once,
    /// Play once, then hold the final pose until stopped.
    Hold,
    /// Repeat, with `loop_delay` between cycles.
    Loop,
    /// Position from the server's wall clock, so every playback agrees.
    ServerSync,
}

impl PlaybackMode {
    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            PlaybackMode::Once => "once",
            PlaybackMode::Hold => "hold",
            PlaybackMode::Loop => "loop",
            PlaybackMode::ServerSync => "server_sync",
        }
    }
}

/// The seven stop conditions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StopConditions {
    /// Stop after this horizontal distance from the start, in blocks; 0 disables.
    pub movement_distance_blocks: f32,
    /// Stop when the player jumps.
    pub jump: bool,
    /// Stop when the player's eyes are in water.
    pub submerge: bool,
    /// Stop when the player rides something.
    pub ride: bool,
    /// Stop when the player takes damage.
    pub damage: bool,
    /// Stop when the player attacks.
    pub attack: bool,
    /// Stop when the player's game mode changes.
    pub game_mode_change: bool,
}

/// `settings.player`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayerSettings {
    /// Hide the player's model and equipment during playback.
    pub hidden: bool,
    /// When playback stops by itself.
    pub stop_conditions: StopConditions,
}

/// `settings.playback`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaybackSettings {
    /// The mode.
    pub mode: PlaybackMode,
    /// Ticks between cycles (`loop` and `server_sync` only).
    pub loop_delay_ticks: u32,
}

impl Default for PlaybackSettings {
    fn default() -> Self {
        Self {
            mode: PlaybackMode::Once,
            loop_delay_ticks: 0,
        }
    }
}

/// `settings` of an Animation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimationSettings {
    /// Listed in menus and playable directly by players.
    pub standalone: bool,
    /// Per player and emote, from when playback begins.
    pub cooldown_ticks: u32,
    /// The root follows the player's yaw only past this angle (0..=180).
    pub rotation_deadzone_degrees: f32,
    /// Player behaviour.
    pub player: PlayerSettings,
    /// Mode and loop delay.
    pub playback: PlaybackSettings,
}

impl Default for AnimationSettings {
    fn default() -> Self {
        Self {
            standalone: true,
            cooldown_ticks: 0,
            rotation_deadzone_degrees: DEFAULT_ROTATION_DEADZONE_DEGREES,
            player: PlayerSettings::default(),
            playback: PlaybackSettings::default(),
        }
    }
}

/// The fields of an Animation's `settings` (a controller's refuses
/// `playback` by name).
const SETTINGS_FIELDS: [&str; 5] = [
    "standalone",
    "cooldown",
    "rotation_deadzone",
    "player",
    "playback",
];

/// The deadzone used when a file leaves it out.
pub const DEFAULT_ROTATION_DEADZONE_DEGREES: f32 = 50.0;

const STOP_FLAGS: [&str; 6] = [
    "jump",
    "submerge",
    "ride",
    "damage",
    "attack",
    "game_mode_change",
];

const PLAYBACK_MODES: &[(&str, PlaybackMode)] = &[
    ("once", PlaybackMode::Once),
    ("hold", PlaybackMode::Hold),
    ("loop", PlaybackMode::Loop),
    ("server_sync", PlaybackMode::ServerSync),
];

/// Reads the optional `player` field of a `settings` object (its defaults
/// when it is missing or not an object).
pub(crate) fn read_player(settings: &mut Obj<'_>, problems: &mut Problems) -> PlayerSettings {
    let mut out = PlayerSettings::default();
    let Some((value, pointer)) = settings.opt("player") else {
        return out;
    };
    let Some(mut obj) = Obj::new(value, &pointer, problems, "`player`") else {
        return out;
    };
    out.hidden = obj.opt_bool("hidden", problems).unwrap_or(false);
    if let Some((v, p)) = obj.opt("stop_conditions") {
        if let Some(mut sc) = Obj::new(v, &p, problems, "`stop_conditions`") {
            let s = &mut out.stop_conditions;
            if let Some(d) = sc.opt_number_in_range(
                "movement_distance",
                problems,
                0.0..=f64::MAX,
                "must be 0 (off) or a positive distance in blocks",
            ) {
                s.movement_distance_blocks = d;
            }
            for key in STOP_FLAGS {
                if let Some(flag) = sc.opt_bool(key, problems) {
                    match key {
                        "jump" => s.jump = flag,
                        "submerge" => s.submerge = flag,
                        "ride" => s.ride = flag,
                        "damage" => s.damage = flag,
                        "attack" => s.attack = flag,
                        _ => s.game_mode_change = flag,
                    }
                }
            }
            let mut allowed = vec!["movement_distance"];
            allowed.extend(STOP_FLAGS);
            sc.finish(problems, &allowed);
        }
    }
    obj.finish(problems, &["hidden", "stop_conditions"]);
    out
}

/// Reads an optional nonnegative `cooldown`.
pub(crate) fn read_cooldown(obj: &mut Obj<'_>, problems: &mut Problems) -> u32 {
    obj.opt("cooldown")
        .and_then(|(v, p)| read::time(v, &p, problems, "`cooldown`", 0))
        .unwrap_or(0)
}

/// Reads an Animation's `settings`.
pub(crate) fn read_animation_settings(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> AnimationSettings {
    let mut out = AnimationSettings::default();
    let Some(mut obj) = Obj::new(value, pointer, problems, "`settings`") else {
        return out;
    };
    let common = read_common(&mut obj, problems);
    out.standalone = common.standalone;
    out.cooldown_ticks = common.cooldown_ticks;
    out.rotation_deadzone_degrees = common.rotation_deadzone_degrees;
    out.player = common.player;
    if let Some((v, p)) = obj.opt("playback") {
        if let Some(mut pb) = Obj::new(v, &p, problems, "`playback`") {
            if let Some((v, mp)) = pb.opt("mode") {
                if let Some(mode) =
                    read::one_of(v, &mp, problems, "playback `mode`", PLAYBACK_MODES)
                {
                    out.playback.mode = mode;
                }
            }
            if let Some((v, dp)) = pb.opt("loop_delay") {
                if let Some(delay) = read::time(v, &dp, problems, "`loop_delay`", 0) {
                    out.playback.loop_delay_ticks = delay;
                    if delay > 0
                        && matches!(out.playback.mode, PlaybackMode::Once | PlaybackMode::Hold)
                    {
                        problems.error(
                            &dp,
                            format!("`loop_delay` must be 0t in `{}` mode; only loop and server_sync repeat", out.playback.mode.name()),
                        );
                    }
                }
            }
            pb.finish(problems, &["mode", "loop_delay"]);
        }
    }
    obj.finish(problems, &SETTINGS_FIELDS);
    out
}

/// A controller's `settings`: an Animation's without `playback`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControllerSettings {
    /// Players may pick it themselves.
    pub standalone: bool,
    /// Per-player cooldown after it ends, in ticks.
    pub cooldown_ticks: u32,
    /// How far the player may turn before the body turns with them.
    pub rotation_deadzone_degrees: f32,
    /// Hiding the player, and the stop conditions it names (only those:
    /// every other one is off, so walking, sneaking and jumping are the
    /// controller's to answer).
    pub player: PlayerSettings,
}

impl Default for ControllerSettings {
    fn default() -> Self {
        Self {
            standalone: true,
            cooldown_ticks: 0,
            rotation_deadzone_degrees: DEFAULT_ROTATION_DEADZONE_DEGREES,
            player: PlayerSettings::default(),
        }
    }
}

/// Reads a controller's `settings`.
pub(crate) fn read_controller_settings(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> ControllerSettings {
    let Some(mut obj) = Obj::new(value, pointer, problems, "`settings`") else {
        return ControllerSettings::default();
    };
    let common = read_common(&mut obj, problems);
    obj.forbid(
        "playback",
        problems,
        "a controller has no `playback`: it plays until stopped or until a transition goes to `exit`",
    );
    obj.finish(problems, &SETTINGS_FIELDS);
    common
}

/// The fields Animations and controllers share.
fn read_common(obj: &mut Obj<'_>, problems: &mut Problems) -> ControllerSettings {
    let mut out = ControllerSettings {
        standalone: obj.opt_bool("standalone", problems).unwrap_or(true),
        cooldown_ticks: read_cooldown(obj, problems),
        ..ControllerSettings::default()
    };
    if let Some(d) = obj.opt_number_in_range(
        "rotation_deadzone",
        problems,
        0.0..=180.0,
        "must be an angle from 0 to 180 degrees",
    ) {
        out.rotation_deadzone_degrees = d;
    }
    out.player = read_player(obj, problems);
    out
}

//! `[camera]`: the emote camera a vanilla player sees their own emote
//! through (issue 29), and who gets one. An emote can refuse it
//! (`metadata.emoted.camera: false`, [`crate::format::camera`]) and so
//! can a player (`/emote camera off`); the geometry is
//! [`crate::playback::camera::flight`]'s.

use serde::Deserialize;

use crate::playback::camera::flight::{DefaultShot, FlightSettings};

/// `[camera]`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CameraSection {
    /// Whether emotes fly a camera at all. Default: true.
    pub enabled: bool,
    /// The shot of an emote that writes none: `"orbit"` (in front of the
    /// body, steered round it with the mouse) or `"follow"` (behind and
    /// above, turning with the body). Default: `"orbit"`.
    pub default_shot: DefaultShot,
    /// Whether a player who can be hurt (survival or adventure mode) gets
    /// a camera. A camera shows the player their body, not what comes at
    /// it: on a PvP server set this to false. Default: true.
    pub allow_in_pvp: bool,
    /// The default shot's distance from the body, blocks (2 to 7; farther
    /// when the pose reaches out). Default: 4.
    pub distance_blocks: f32,
}

impl Default for CameraSection {
    fn default() -> Self {
        Self {
            enabled: true,
            default_shot: DefaultShot::Orbit,
            allow_in_pvp: true,
            distance_blocks: FlightSettings::default().distance_blocks,
        }
    }
}

impl CameraSection {
    /// Checks the distance; the error names the option.
    pub fn validate(&self) -> Result<(), String> {
        let max = FlightSettings::default().max_distance_blocks;
        if !(2.0..=max).contains(&self.distance_blocks) {
            return Err(format!(
                "camera.distance_blocks must be from 2 to {max} blocks, found {}",
                self.distance_blocks
            ));
        }
        Ok(())
    }

    /// How cameras fly under this section.
    pub fn flight_settings(&self) -> FlightSettings {
        FlightSettings {
            distance_blocks: self.distance_blocks,
            default_shot: self.default_shot,
            ..FlightSettings::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::server::config::Config;

    #[test]
    fn the_section_reads_its_shots_and_refuses_a_distance_out_of_range() {
        let config = Config::parse(
            "[camera]\ndefault_shot = \"follow\"\nallow_in_pvp = false\n",
            Path::new("emoted.toml"),
        )
        .expect("valid");
        assert_eq!(config.camera.default_shot, DefaultShot::Follow);
        assert!(config.camera.enabled && !config.camera.allow_in_pvp);
        assert_eq!(
            config.camera.flight_settings().default_shot,
            DefaultShot::Follow
        );
        let far = Config::parse("[camera]\ndistance_blocks = 9\n", Path::new("emoted.toml"))
            .expect_err("too far");
        assert!(far.to_string().contains("camera.distance_blocks"), "{far}");
        let unknown = Config::parse("[camera]\ndefault_shot = \"crane\"\n", Path::new("e.toml"))
            .expect_err("not a default shot");
        assert!(unknown.to_string().contains("orbit"), "{unknown}");
    }
}

//! Positions and rotations: world coordinates (absolute numbers and `~`,
//! relative to the origin) and local ones (`^`, along the facing), with
//! one rule for numbers ([`parse_plain_number`]).

use valence::prelude::*;

use crate::server::syntax::number::parse_plain_number;

/// One coordinate of a world position, or one angle of a rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldCoord {
    /// The number (the offset when relative).
    pub value: f64,
    /// `~`: added to the origin's coordinate.
    pub relative: bool,
}

impl WorldCoord {
    /// The coordinate, given the origin's value on this axis.
    pub fn resolve(self, base: f64) -> f64 {
        if self.relative {
            base + self.value
        } else {
            self.value
        }
    }
}

/// A position argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coordinates {
    /// `x y z` with numbers and `~`.
    World([WorldCoord; 3]),
    /// `^left ^up ^forward`, in blocks.
    Local([f64; 3]),
}

/// The rotation commands run with: Minecraft degrees (yaw 0 faces +Z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Facing {
    /// Yaw in degrees.
    pub yaw: f32,
    /// Pitch in degrees (90 is down).
    pub pitch: f32,
}

impl From<&Look> for Facing {
    fn from(look: &Look) -> Self {
        Self {
            yaw: look.yaw,
            pitch: look.pitch,
        }
    }
}

impl Coordinates {
    /// `~ ~ ~`.
    pub const HERE: Coordinates = Coordinates::World(
        [WorldCoord {
            value: 0.0,
            relative: true,
        }; 3],
    );

    /// The world position for a command run at `origin` with `facing`.
    pub fn resolve(&self, origin: DVec3, facing: Facing) -> DVec3 {
        match self {
            Coordinates::World([x, y, z]) => DVec3::new(
                x.resolve(origin.x),
                y.resolve(origin.y),
                z.resolve(origin.z),
            ),
            Coordinates::Local([left, up, forwards]) => {
                // Vanilla's LocalCoordinates, in f64.
                let yaw = (f64::from(facing.yaw) + 90.0).to_radians();
                let pitch = f64::from(facing.pitch);
                let (f, f1) = (yaw.cos(), yaw.sin());
                let (f2, f3) = ((-pitch).to_radians().cos(), (-pitch).to_radians().sin());
                let (f4, f5) = (
                    (-pitch + 90.0).to_radians().cos(),
                    (-pitch + 90.0).to_radians().sin(),
                );
                let forward = DVec3::new(f * f2, f3, f1 * f2);
                let upward = DVec3::new(f * f4, f5, f1 * f4);
                let leftward = -forward.cross(upward);
                origin + forward * *forwards + upward * *up + leftward * *left
            }
        }
    }
}

/// A rotation argument (`yaw pitch`, `~` relative to the source's facing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rotation {
    /// Yaw.
    pub yaw: WorldCoord,
    /// Pitch.
    pub pitch: WorldCoord,
}

impl Rotation {
    /// The facing this rotation gives a source facing `facing` (pitch kept
    /// within ±90°).
    pub fn resolve(&self, facing: Facing) -> Facing {
        // In f32, as the facing is kept.
        let pick = |c: WorldCoord, base: f32| {
            let value = c.value as f32;
            if c.relative {
                base + value
            } else {
                value
            }
        };
        Facing {
            yaw: pick(self.yaw, facing.yaw),
            pitch: pick(self.pitch, facing.pitch).clamp(-90.0, 90.0),
        }
    }
}

/// Why three words are not a position. [`Words::coordinates`] turns it
/// into a [`CommandError`] with the command's usage.
///
/// [`Words::coordinates`]: crate::server::syntax::Words::coordinates
/// [`CommandError`]: crate::server::syntax::CommandError
#[derive(Debug, PartialEq)]
pub enum CoordError {
    /// `^` on some axes but not all.
    Mixed,
    /// This word is no coordinate.
    Bad(String),
}

/// True when `word` starts like a coordinate (`~`, `^`, a number).
pub fn looks_like_coordinate(word: &str) -> bool {
    word.starts_with(['~', '^', '-', '+', '.']) || word.starts_with(|c: char| c.is_ascii_digit())
}

/// Parses three coordinate words: numbers and `~N`, or all `^N`. Whole
/// numbers in `x` and `z` are block centres (`+0.5`), as in vanilla.
pub fn parse_coordinates(words: [&str; 3]) -> Result<Coordinates, CoordError> {
    let local = words.iter().filter(|w| w.starts_with('^')).count();
    if local == 3 {
        let mut out = [0.0; 3];
        for (o, w) in out.iter_mut().zip(words) {
            *o = offset(&w[1..], w)?;
        }
        return Ok(Coordinates::Local(out));
    }
    if local > 0 {
        return Err(CoordError::Mixed);
    }
    let mut out = [WorldCoord {
        value: 0.0,
        relative: false,
    }; 3];
    for (i, w) in words.iter().enumerate() {
        out[i] = parse_world_coord(w, i != 1)?;
    }
    Ok(Coordinates::World(out))
}

/// One world coordinate or angle: a number or `~N`. `center` puts whole
/// numbers at the block's centre (vanilla does so for x and z).
pub fn parse_world_coord(word: &str, center: bool) -> Result<WorldCoord, CoordError> {
    if let Some(rest) = word.strip_prefix('~') {
        return Ok(WorldCoord {
            value: offset(rest, word)?,
            relative: true,
        });
    }
    let mut value = parse_plain_number(word).ok_or_else(|| CoordError::Bad(word.to_owned()))?;
    if center && !word.contains('.') {
        value += 0.5;
    }
    Ok(WorldCoord {
        value,
        relative: false,
    })
}

/// The number after `~` or `^` in `word` (none: 0).
fn offset(number: &str, word: &str) -> Result<f64, CoordError> {
    if number.is_empty() {
        return Ok(0.0);
    }
    parse_plain_number(number).ok_or_else(|| CoordError::Bad(word.to_owned()))
}

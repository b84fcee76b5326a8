//! Coordinates and rotations of commands: `~` (relative), `^` (local,
//! along the facing) and absolute, with one rule for numbers.

use valence::prelude::*;

use crate::server::syntax::parse_plain_number;

/// One coordinate of a world position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldCoord {
    /// The number (the offset when relative).
    pub value: f64,
    /// `~`: added to the origin's coordinate.
    pub relative: bool,
}

/// A position argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coordinates {
    /// `x y z` with numbers and `~`.
    World([WorldCoord; 3]),
    /// `^left ^up ^forward`.
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

impl Coordinates {
    /// `~ ~ ~`.
    pub const HERE: Coordinates = Coordinates::World(
        [WorldCoord {
            value: 0.0,
            relative: true,
        }; 3],
    );

    /// The world position for an event at `origin` run with `facing`.
    pub fn resolve(&self, origin: DVec3, facing: Facing) -> DVec3 {
        match self {
            Coordinates::World(c) => {
                let axis = |i: usize, o: f64| {
                    if c[i].relative {
                        o + c[i].value
                    } else {
                        c[i].value
                    }
                };
                DVec3::new(axis(0, origin.x), axis(1, origin.y), axis(2, origin.z))
            }
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
    pub(super) fn resolve(&self, facing: Facing) -> Facing {
        let pick = |c: WorldCoord, base: f32| {
            if c.relative {
                base + c.value as f32
            } else {
                c.value as f32
            }
        };
        Facing {
            yaw: pick(self.yaw, facing.yaw),
            pitch: pick(self.pitch, facing.pitch).clamp(-90.0, 90.0),
        }
    }
}

/// A coordinate problem (turned into a [`CommandError`] with context).
#[derive(Debug, PartialEq)]
pub(super) enum CoordError {
    Mixed,
    Bad(String),
}

/// True when `word` starts like a coordinate (`~`, `^`, a number).
pub(super) fn looks_like_coordinate(word: &str) -> bool {
    word.starts_with(['~', '^', '-', '+', '.']) || word.starts_with(|c: char| c.is_ascii_digit())
}

/// Parses three coordinate words: numbers and `~N`, or all `^N`. Whole
/// numbers in `x` and `z` are block centres (`+0.5`), as in vanilla.
pub(super) fn parse_coordinates(words: [&str; 3]) -> Result<Coordinates, CoordError> {
    let number = |s: &str, w: &str| -> Result<f64, CoordError> {
        if s.is_empty() {
            return Ok(0.0);
        }
        parse_plain_number(s).ok_or_else(|| CoordError::Bad(w.to_owned()))
    };
    let local = words.iter().filter(|w| w.starts_with('^')).count();
    if local == 3 {
        let mut out = [0.0; 3];
        for (o, w) in out.iter_mut().zip(words) {
            *o = number(&w[1..], w)?;
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

pub(super) fn parse_world_coord(w: &str, center: bool) -> Result<WorldCoord, CoordError> {
    if let Some(offset) = w.strip_prefix('~') {
        let value = if offset.is_empty() {
            0.0
        } else {
            parse_plain_number(offset).ok_or_else(|| CoordError::Bad(w.to_owned()))?
        };
        return Ok(WorldCoord {
            value,
            relative: true,
        });
    }
    let mut value = parse_plain_number(w).ok_or_else(|| CoordError::Bad(w.to_owned()))?;
    if center && !w.contains('.') {
        value += 0.5;
    }
    Ok(WorldCoord {
        value,
        relative: false,
    })
}

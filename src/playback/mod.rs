//! Pure, tick-driven playback rules with no valence types: the timeline
//! clock of each mode, cooldowns, the rotation deadzone, the stop
//! conditions, the resolution of Sequence steps into segments, the
//! display update schedule, the idle-emote clock and the emote camera's
//! geometry. The server feeds them what it observes and acts on what they
//! decide.

pub mod camera;
pub mod clock;
pub mod controlled;
pub mod cooldown;
pub mod deadzone;
pub mod idle;
pub mod live;
pub mod partner;
pub mod playing;
pub mod roots;
pub mod schedule;
pub mod sequence;
pub mod session;
pub mod stop;

pub use clock::{Clock, ClockStep};
pub use cooldown::Cooldowns;
pub use deadzone::YawFollower;
pub use sequence::{Segment, StepRng};
pub use stop::{PlayerObservation, StopMonitor, StopReason};

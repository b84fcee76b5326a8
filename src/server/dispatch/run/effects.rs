//! `particle` and `playsound`, and the batching of sounds heard by every
//! player in range.
//!
//! A crowd's emotes play dozens of sounds a tick, each to every player
//! near it: at 1,000 players on one spot, one `playsound … @a` written to
//! each listener on its own is 1,000 small copies, and a tick's 60 of
//! them took a sixth of the tick. So a `playsound` whose targets are all
//! players (`@a` with no arguments) and that has no minimum volume (so
//! players out of range get nothing) is framed once into
//! [`HeardSounds`] and delivered after the tick's emote commands: each
//! player is given the pending sounds in its range, adjacent ones in one
//! copy. Any other command (another sound, a teleport, a `stopsound`, a
//! `function` line) first delivers what is pending, except a particle for
//! a chunk's viewers, which valence sends after all of them anyway: what
//! a player hears, and in what order, is the same as when each sound was
//! written at once, and the range is checked where the players stand
//! then, as it was.

use std::borrow::Cow;

use valence::ident::Ident;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::encode::PacketWriter;
use valence::protocol::packets::play::{ParticleS2c, PlaySoundS2c};
use valence::protocol::sound::SoundId;
use valence::protocol::{Encode, Packet, WritePacket};

use super::{Context, Dispatcher, RunError};
use crate::server::dispatch::parse::{ParsedCommand, ParticleCommand, PlaySoundCommand};
use crate::server::events::CommandSource;
use crate::server::framed::FramedPacket;

impl Dispatcher<'_, '_> {
    pub(super) fn run_particle(
        &mut self,
        command: &ParticleCommand,
        context: &Context,
    ) -> Result<(), RunError> {
        let position = command
            .position
            .resolve(context.origin, self.facing(context.source));
        // What `Client::play_particle` and `ChunkLayer::play_particle` send.
        let packet = ParticleS2c {
            particle: Cow::Borrowed(&command.particle),
            long_distance: command.force,
            position,
            offset: command.delta,
            max_speed: command.speed,
            count: command.count,
        };
        if let Some(viewers) = &command.viewers {
            let framed = FramedPacket::new(&self.server, &packet);
            for viewer in self.select_players(viewers, context) {
                if let Ok(mut player) = self.players.get_mut(viewer) {
                    framed.send_to(&mut player.1);
                }
            }
            return Ok(());
        }
        // The layer the source is in; the first world for the server.
        let preferred = match context.source {
            CommandSource::Player(e) => self.players.get(*e).ok().map(|p| p.6 .0),
            CommandSource::Node { entity, .. } => self.displays.get(*entity).ok().map(|d| d.3 .0),
            CommandSource::Server => None,
        };
        let layer = preferred
            .filter(|l| self.layers.contains(*l))
            .or_else(|| self.layers.iter().next().map(|(e, _)| e))
            .ok_or(RunError::NoWorld)?;
        let (_, mut chunks) = self.layers.get_mut(layer).map_err(|_| RunError::NoWorld)?;
        chunks
            .view_writer(ChunkPos::from_pos(position))
            .write_packet(&packet);
        Ok(())
    }

    pub(super) fn run_playsound(&mut self, command: &PlaySoundCommand, context: &Context) {
        let position = command
            .position
            .resolve(context.origin, self.facing(context.source));
        // Vanilla's PlaySoundCommand: heard within 16 blocks (× volume above 1).
        let range = if command.volume > 1.0 {
            f64::from(command.volume) * 16.0
        } else {
            16.0
        };
        // One seed for every listener, as vanilla's command draws it; the
        // packet heard in range is framed once.
        let seed = self.rng.0.next_u64() as i64;
        let sound = |at: DVec3, volume: f32| PlaySoundS2c {
            id: SoundId::Direct {
                id: Ident::new_unchecked(command.sound.as_str().into()),
                range: None,
            },
            category: command.category,
            position: (at * 8.0).as_ivec3(),
            volume,
            pitch: command.pitch,
            seed,
        };
        if is_batched(command) {
            // Every player in range, and no one else: batched.
            self.heard.push(
                &self.server,
                &sound(position, command.volume),
                position,
                range,
            );
            return;
        }
        let in_range = FramedPacket::new(&self.server, &sound(position, command.volume));
        for target in self.select_players(&command.targets, context) {
            let Ok(mut player) = self.players.get_mut(target) else {
                continue;
            };
            let offset = position - player.3 .0;
            if offset.length_squared() <= range * range {
                in_range.send_to(&mut player.1);
            } else if command.min_volume > 0.0 {
                let at = player.3 .0 + offset.normalize_or_zero() * 2.0;
                player.1.write_packet(&sound(at, command.min_volume));
            }
        }
    }

    /// Gives every player the pending batched sounds in its range.
    pub(super) fn deliver_heard(&mut self) {
        if self.heard.is_empty() {
            return;
        }
        let listeners = self
            .players
            .iter_mut()
            .map(|player| (player.3 .0, player.1.into_inner()));
        self.heard.deliver(listeners);
    }
}

/// Whether `sound` is batched: heard by every player in range, by no one
/// else.
fn is_batched(sound: &PlaySoundCommand) -> bool {
    sound.targets.selects_every_player() && sound.min_volume <= 0.0
}

/// Whether running `command` leaves the pending sounds pending: a sound
/// batched with them, or a particle for a chunk's viewers (valence sends
/// those after every packet the tick's commands write themselves, so
/// their order is kept as it was).
pub(super) fn keeps_sounds_pending(command: &ParsedCommand) -> bool {
    match command {
        ParsedCommand::PlaySound(sound) => is_batched(sound),
        ParsedCommand::Particle(particle) => particle.viewers.is_none(),
        _ => false,
    }
}

/// Sounds framed for every player within their range, not yet delivered.
#[derive(Default)]
pub(super) struct HeardSounds {
    /// The framed packets, one after another.
    bytes: Vec<u8>,
    /// Each sound's end in `bytes` (it starts where the previous ends),
    /// where it plays and how far it is heard, squared.
    sounds: Vec<HeardSound>,
}

/// One pending sound.
#[derive(Clone, Copy, Debug)]
struct HeardSound {
    end: usize,
    position: DVec3,
    range_squared: f64,
}

impl HeardSounds {
    /// Frames `packet` for `server`'s clients, to be heard within
    /// `range_blocks` of `position`.
    pub(super) fn push<P: Packet + Encode>(
        &mut self,
        server: &Server,
        packet: &P,
        position: DVec3,
        range_blocks: f64,
    ) {
        PacketWriter::new(&mut self.bytes, server.compression_threshold()).write_packet(packet);
        self.sounds.push(HeardSound {
            end: self.bytes.len(),
            position,
            range_squared: range_blocks * range_blocks,
        });
    }

    /// True when nothing is pending.
    pub(super) fn is_empty(&self) -> bool {
        self.sounds.is_empty()
    }

    /// Writes each pending sound to each listener (where it stands, and
    /// its packets) in its range, in order, consecutive ones in one write;
    /// then nothing is pending.
    pub(super) fn deliver<'a, W: WritePacket + 'a>(
        &mut self,
        listeners: impl Iterator<Item = (DVec3, &'a mut W)>,
    ) {
        for (at, writer) in listeners {
            let mut start = 0;
            // The start of the run of heard sounds not yet written.
            let mut run_start = None;
            for sound in &self.sounds {
                let heard = (sound.position - at).length_squared() <= sound.range_squared;
                match (heard, run_start) {
                    (true, None) => run_start = Some(start),
                    (false, Some(from)) => {
                        writer.write_packet_bytes(&self.bytes[from..start]);
                        run_start = None;
                    }
                    _ => {}
                }
                start = sound.end;
            }
            if let Some(from) = run_start {
                writer.write_packet_bytes(&self.bytes[from..start]);
            }
        }
        self.bytes.clear();
        self.sounds.clear();
    }
}

#[cfg(test)]
mod tests {
    use valence::protocol::packets::play::StopSoundS2c;
    use valence::testing::{create_mock_client, MockClientHelper, ScenarioSingleClient};

    use super::*;
    use crate::server::config::Config;
    use crate::server::dispatch::EmoteDispatchPlugin;
    use crate::server::events::EmoteCommandEvent;
    use crate::server::EmoteLibrary;

    /// The sounds `helper`'s client was sent, by name, and `stop` for each
    /// `stopsound`, in order.
    fn heard_by(helper: &mut MockClientHelper) -> Vec<String> {
        helper
            .collect_received()
            .0
            .iter()
            .filter_map(|frame| {
                if frame.id == StopSoundS2c::ID {
                    return Some("stop".to_owned());
                }
                let sound = frame.decode::<PlaySoundS2c>().ok()?;
                match sound.id {
                    SoundId::Direct { id, .. } => Some(id.as_str().to_owned()),
                    SoundId::Reference { .. } => None,
                }
            })
            .collect()
    }

    #[test]
    fn sounds_reach_the_players_in_range_in_the_order_of_the_commands() {
        let ScenarioSingleClient {
            mut app,
            client: near,
            helper: mut near_helper,
            layer,
        } = ScenarioSingleClient::new();
        app.insert_resource(Config::default())
            .insert_resource(EmoteLibrary::default())
            .add_plugins(EmoteDispatchPlugin);
        let (mut bundle, mut far_helper) = create_mock_client("far");
        bundle.player.layer.0 = layer;
        bundle.visible_chunk_layer.0 = layer;
        bundle.visible_entity_layers.0.insert(layer);
        bundle.player.position.0 = DVec3::new(1000.0, 64.0, 0.0);
        app.world.spawn(bundle);
        app.world.get_mut::<Position>(near).expect("near").0 = DVec3::new(0.0, 64.0, 0.0);
        app.update();
        near_helper.clear_received();
        far_helper.clear_received();
        for line in [
            "playsound test:one master @a 0 64 0",
            "playsound test:two master @a 1000 64 0",
            "particle minecraft:heart 0 64 0",
            "playsound test:three master @a 1 64 0",
            "stopsound @a",
            "playsound test:four master @a 0 64 0",
            "playsound test:five master @a[distance=..5] 0 64 0",
            "playsound test:six master @a 0 64 10 4",
        ] {
            app.world.send_event(EmoteCommandEvent {
                playback: None,
                source: CommandSource::Server,
                origin: DVec3::new(0.0, 64.0, 0.0),
                command: line.to_owned(),
            });
        }
        app.update();
        // Six is heard 64 blocks away (volume 4); two, 1,000 blocks away,
        // only there; five is for those within 5 blocks of the origin.
        assert_eq!(
            heard_by(&mut near_helper),
            [
                "test:one",
                "test:three",
                "stop",
                "test:four",
                "test:five",
                "test:six"
            ]
        );
        assert_eq!(heard_by(&mut far_helper), ["test:two", "stop"]);
        // Nothing is left to deliver on the next tick.
        app.update();
        assert!(heard_by(&mut near_helper).is_empty());
    }

    /// A writer that keeps what it is given, write by write.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl WritePacket for Writes {
        fn write_packet_fallible<P>(&mut self, _: &P) -> anyhow::Result<()>
        where
            P: Packet + Encode,
        {
            anyhow::bail!("sounds are written as bytes")
        }

        fn write_packet_bytes(&mut self, bytes: &[u8]) {
            self.0.push(bytes.to_vec());
        }
    }

    /// Three sounds: at x = 0 heard 16 blocks, at x = 100 heard 16, at
    /// x = 10 heard 32; their bytes are 1, 2, 3 (as if framed).
    fn three() -> HeardSounds {
        let mut heard = HeardSounds::default();
        for (byte, x, range) in [(1u8, 0.0, 16.0), (2, 100.0, 16.0), (3, 10.0, 32.0)] {
            heard.bytes.push(byte);
            heard.sounds.push(HeardSound {
                end: heard.bytes.len(),
                position: DVec3::new(x, 0.0, 0.0),
                range_squared: range * range,
            });
        }
        heard
    }

    #[test]
    fn each_listener_gets_the_sounds_in_its_range_in_order_in_runs() {
        let mut heard = three();
        let (mut near, mut far, mut between, mut nowhere) = Default::default();
        let listeners: Vec<(DVec3, &mut Writes)> = vec![
            (DVec3::ZERO, &mut near),
            (DVec3::new(100.0, 0.0, 0.0), &mut far),
            (DVec3::new(40.0, 0.0, 0.0), &mut between),
            (DVec3::new(0.0, 0.0, 500.0), &mut nowhere),
        ];
        heard.deliver(listeners.into_iter());
        // Sounds 1 and 3, split by 2 which it does not hear: two writes.
        assert_eq!(near.0, vec![vec![1], vec![3]]);
        assert_eq!(far.0, vec![vec![2]]);
        // Only the third reaches 40 blocks (at 30 from it).
        assert_eq!(between.0, vec![vec![3]]);
        assert!(nowhere.0.is_empty());
        assert!(heard.is_empty(), "delivered once");
    }

    #[test]
    fn a_listener_hearing_everything_gets_one_write() {
        let mut heard = three();
        // At 50: 50 from the first (not heard), so move the second near.
        heard.sounds[1].position = DVec3::new(5.0, 0.0, 0.0);
        let mut listener = Writes::default();
        heard.deliver(std::iter::once((DVec3::new(1.0, 0.0, 0.0), &mut listener)));
        assert_eq!(listener.0, vec![vec![1, 2, 3]]);
        // The range's edge is heard, past it is not.
        let mut heard = three();
        heard.sounds.truncate(1);
        heard.bytes.truncate(1);
        let (mut edge, mut past) = (Writes::default(), Writes::default());
        heard.deliver(
            vec![
                (DVec3::new(-16.0, 0.0, 0.0), &mut edge),
                (DVec3::new(-16.01, 0.0, 0.0), &mut past),
            ]
            .into_iter(),
        );
        assert_eq!(edge.0, vec![vec![1]]);
        assert!(past.0.is_empty());
    }
}

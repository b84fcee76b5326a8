//! Hot reload of `emotes/`, `datapacks/`, the configuration and the
//! admin's resource pack.
//!
//! A reload is asked for with a [`ReloadRequest`]: by `/emote reload` (the
//! operator who typed it gets the summary and every problem in chat) or by
//! the file watcher. The watcher is a background thread that fingerprints
//! the emote roots, the configuration file and the admin's pack named by
//! `resource_pack.merge` at start-up (every file's path, size and
//! modification time) every [`WATCH_INTERVAL`] and asks for a reload when the
//! fingerprint changes (a `merge` changed by a reload is read by that reload
//! and the ones after it, but watched only from the next start); it costs the server tick nothing. Polling was chosen
//! over OS notifications: it needs no extra dependency, behaves the same on
//! every file system (network mounts and Docker volumes included), and a
//! second of delay is fine for an admin dropping in a file.
//!
//! What a reload does:
//! - emotes: [`Library::reload`] keeps the last good version of a broken
//!   file. Playbacks whose emote **changed** (the validated file differs) or
//!   **vanished** stop cleanly (their `stop` events run, their displays are
//!   removed, the player sees why in the action bar); the others keep
//!   playing, even though their file was read again;
//! - configuration: a file that no longer parses keeps the old
//!   configuration, and the error is logged and sent to operators. Options
//!   that only matter at start-up (address, connection mode, players, view
//!   distance, emote folders) are read but take effect at the next start;
//!   the rest (display cap, operators) apply at once. In `[resource_pack]`,
//!   `enabled` and `listen` wait for the next start too; `public_url`,
//!   `required` and `prompt` apply to the offers made from then on, and
//!   `merge` to the pack rebuilt after the reload (see
//!   [`crate::server::resource_pack`], which also offers a pack rebuilt
//!   for changed emotes or a changed admin pack again).
//!
//! Problems go to the log as `FILE: /pointer: message` and, for a reload an
//! operator asked for, to that operator's chat; watcher reloads tell every
//! online operator.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::sync::Mutex;
use std::time::Duration;

use valence::op_level::OpLevel;
use valence::prelude::*;

use crate::library::Library;
use crate::server::config::Config;
use crate::server::counters::{ReloadResult, ServerCounters};
use crate::server::emote::ActiveEmote;
use crate::server::emote_library::{EmoteFolders, EmoteLibrary};
use crate::server::events::add_shared_events;
use crate::server::events::{EndReason, ReloadFinishedEvent, ReloadRequest, StopEmoteRequest};

/// How often the watcher looks at the files.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(500);

/// Operator level that receives watcher reload reports.
const REPORT_OP_LEVEL: u8 = 2;

/// Where the configuration was read from at start-up (`None`: built-in
/// defaults, nothing to reload).
#[derive(Resource, Clone, Debug, Default)]
pub struct ConfigPath(pub Option<PathBuf>);

/// Settings for the file watcher (tests shorten nothing; the interval is
/// fixed).
#[derive(Resource, Clone, Copy, Debug)]
pub struct WatchFiles(pub bool);

impl Default for WatchFiles {
    fn default() -> Self {
        Self(true)
    }
}

/// Reloads on request, and watches the files.
pub struct EmoteReloadPlugin;

impl Plugin for EmoteReloadPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app)
            .init_resource::<ConfigPath>()
            .init_resource::<WatchFiles>()
            .add_systems(Startup, start_watcher)
            .add_systems(Update, (forward_watcher, reload_on_request).chain());
    }
}

/// The watcher thread's channel: one message per detected change.
#[derive(Resource)]
struct WatcherChannel(Mutex<Receiver<()>>);

/// A fingerprint of every file under `paths`: path, size and modification
/// time. Unreadable entries count as absent.
pub fn fingerprint(paths: &[PathBuf]) -> u64 {
    fn visit(path: &Path, hasher: &mut DefaultHasher, depth: usize) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if meta.is_dir() {
            if depth > 16 {
                return;
            }
            let Ok(entries) = std::fs::read_dir(path) else {
                return;
            };
            let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            children.sort();
            for child in children {
                visit(&child, hasher, depth + 1);
            }
        } else {
            path.hash(hasher);
            meta.len().hash(hasher);
            meta.modified().ok().hash(hasher);
        }
    }
    let mut hasher = DefaultHasher::new();
    for path in paths {
        visit(path, &mut hasher, 0);
    }
    hasher.finish()
}

fn start_watcher(
    mut commands: Commands,
    watch: Res<WatchFiles>,
    folders: Option<Res<EmoteFolders>>,
    config_path: Res<ConfigPath>,
    config: Option<Res<Config>>,
) {
    if !watch.0 {
        return;
    }
    let mut paths: Vec<PathBuf> = folders.map(|f| f.roots.clone()).unwrap_or_default();
    paths.extend(config_path.0.clone());
    let merge = config.and_then(|c| c.resource_pack.merge_path().map(PathBuf::from));
    paths.extend(merge);
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("emoted-watcher".into())
        .spawn(move || {
            let mut last = fingerprint(&paths);
            loop {
                std::thread::sleep(WATCH_INTERVAL);
                let now = fingerprint(&paths);
                if now != last {
                    last = now;
                    if sender.send(()).is_err() {
                        return; // the server is gone
                    }
                }
            }
        });
    match spawned {
        Ok(_) => {
            commands.insert_resource(WatcherChannel(Mutex::new(receiver)));
        }
        Err(e) => tracing::warn!("cannot start the file watcher ({e}); use /emote reload"),
    }
}

fn forward_watcher(channel: Option<Res<WatcherChannel>>, mut requests: EventWriter<ReloadRequest>) {
    let Some(channel) = channel else {
        return;
    };
    let Ok(receiver) = channel.0.lock() else {
        return;
    };
    let mut changed = false;
    while receiver.try_recv().is_ok() {
        changed = true;
    }
    if changed {
        tracing::info!("files changed: reloading");
        requests.send(ReloadRequest { requested_by: None });
    }
}

#[allow(clippy::too_many_arguments)]
fn reload_on_request(
    mut requests: EventReader<ReloadRequest>,
    mut library: ResMut<EmoteLibrary>,
    folders: Option<Res<EmoteFolders>>,
    config_path: Res<ConfigPath>,
    config: Option<ResMut<Config>>,
    playbacks: Query<(Entity, &ActiveEmote)>,
    mut clients: Query<(Entity, &mut Client, Option<&OpLevel>)>,
    mut stop: EventWriter<StopEmoteRequest>,
    mut finished: EventWriter<ReloadFinishedEvent>,
    counters: Option<Res<ServerCounters>>,
) {
    let mut asked_by: Vec<Entity> = Vec::new();
    let mut any = false;
    for request in requests.iter() {
        any = true;
        asked_by.extend(request.requested_by);
    }
    if !any {
        return;
    }
    let mut lines = Vec::new();

    // Configuration first: an operator list change applies to this report.
    if let (Some(path), Some(mut config)) = (&config_path.0, config) {
        match Config::load(path) {
            Ok(new) => {
                let mut new = new;
                // What only start-up reads stays as started, so the running
                // state and the resource agree.
                new.server = config.server.clone();
                new.emotes.folders = config.emotes.folders.clone();
                new.resource_pack.enabled = config.resource_pack.enabled;
                new.resource_pack.listen = config.resource_pack.listen;
                new.rcon = config.rcon.clone();
                new.metrics = config.metrics.clone();
                new.world = config.world.clone();
                *config = new;
            }
            Err(e) => {
                let line = format!("configuration kept: {e}");
                tracing::warn!("{line}");
                lines.push(line);
            }
        }
    }

    let roots = folders.map(|f| f.roots.clone()).unwrap_or_default();
    let report = Library::reload(&roots, Some(&library.0));
    for line in report.lines() {
        tracing::warn!("{line}");
    }
    let mut stopped = 0usize;
    for (player, playback) in &playbacks {
        // The emote itself, and for a Sequence every Animation it plays.
        let own = std::iter::once((playback.emote(), playback.file()));
        let mut verdict = None;
        for (id, file) in own.chain(playback.animation_files()) {
            match report.library.get(id.as_str()) {
                None => verdict = Some(true),
                Some(new) if *new.file != *file => verdict = verdict.or(Some(false)),
                Some(_) => {}
            }
        }
        let Some(removed) = verdict else {
            continue;
        };
        stopped += 1;
        stop.send(StopEmoteRequest {
            client: player,
            reason: EndReason::Reloaded { removed },
        });
    }
    let refused = report.files.iter().filter(|f| f.has_errors()).count();
    if let Some(counters) = &counters {
        counters.reloaded(if refused > 0 || !lines.is_empty() {
            ReloadResult::Errors
        } else {
            ReloadResult::Ok
        });
    }
    let summary = format!(
        "Reloaded {} emotes from {} files; {} refused, {} kept at their last good version; {} playing emotes stopped because their file changed.",
        report.library.len(),
        report.file_count,
        refused,
        report.kept_previous.len(),
        stopped,
    );
    tracing::info!("{summary}");
    let mut chat = vec![summary];
    chat.extend(lines);
    chat.extend(report.lines());
    library.0 = report.library;
    let text = chat.join("\n");
    finished.send(ReloadFinishedEvent {
        lines: chat.clone(),
    });
    let has_problems = chat.len() > 1;
    for (entity, mut client, op) in &mut clients {
        let asked = asked_by.contains(&entity);
        let operator = op.is_some_and(|o| o.get() >= REPORT_OP_LEVEL);
        // An operator who asked always hears back; other operators hear of
        // watcher reloads that found problems.
        if asked || (asked_by.is_empty() && operator && has_problems) {
            client.send_chat_message(text.clone().color(Color::YELLOW));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_sees_new_changed_and_removed_files() {
        let dir = std::env::temp_dir().join(format!("emoted-fp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
        let roots = vec![dir.clone()];
        let empty = fingerprint(&roots);
        std::fs::write(dir.join("sub/a.json"), "{}").expect("write");
        let one = fingerprint(&roots);
        assert_ne!(empty, one, "a new file changes the fingerprint");
        assert_eq!(
            one,
            fingerprint(&roots),
            "nothing changed, same fingerprint"
        );
        std::fs::write(dir.join("sub/a.json"), "{\"x\":1}").expect("write");
        let changed = fingerprint(&roots);
        assert_ne!(one, changed, "a longer file changes it");
        std::fs::remove_file(dir.join("sub/a.json")).expect("remove");
        assert_eq!(empty, fingerprint(&roots), "removing the file goes back");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

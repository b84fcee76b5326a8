//! Rebuilding the pack off the tick. The first pack is built at start-up,
//! before anyone joins; every rebuild after a reload runs on a thread of
//! its own, so reading and merging a large admin pack (a zip of tens of
//! megabytes, deflated again into ours) does not stop the game. The
//! players keep the pack they have until the new one is ready, then it is
//! served and offered as before. A reload during a build is built again
//! once that build ends, from what is loaded then.
//!
//! The admin pack last merged is kept between builds
//! ([`current_pack_keeping`]): an admin pack that breaks on a reload (a
//! half-copied zip) leaves the last good one merged rather than offering
//! players emoted's pack alone.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Mutex;

use valence::prelude::*;

use super::pack::{current_pack_keeping, PackBuild};
use crate::library::Library;
use crate::pack::admin_pack::AdminPack;
use crate::pack::PackError;

/// What one build made: the pack (or why not), the admin path it merged,
/// and the admin pack to keep as the last good one.
struct Finished {
    built: Result<PackBuild, PackError>,
    merge: Option<PathBuf>,
    admin: Option<AdminPack>,
}

/// The pack builds: at most one running, and the admin pack last merged.
#[derive(Resource, Default)]
pub struct PackBuilder {
    /// The running build's answer (a `Mutex` only to make the resource
    /// `Sync`: one system reads it).
    running: Option<Mutex<Receiver<Finished>>>,
    /// A rebuild was asked for while one ran.
    again: bool,
    last_good_admin: Option<AdminPack>,
}

impl PackBuilder {
    /// Whether a build is running.
    pub fn is_building(&self) -> bool {
        self.running.is_some()
    }

    /// Builds now, on this thread (the first pack, before anyone joins).
    pub(super) fn build_now(
        &mut self,
        library: &Library,
        merge: Option<PathBuf>,
    ) -> (Result<PackBuild, PackError>, Option<PathBuf>) {
        let finished = build(library, merge, self.last_good_admin.take());
        self.keep(finished)
    }

    /// Starts a build of `library` with the admin pack at `merge` on a
    /// thread of its own, or, when one runs, builds again once it ends.
    pub(super) fn start(&mut self, library: Library, merge: Option<PathBuf>) {
        if self.running.is_some() {
            self.again = true;
            return;
        }
        let (sender, receiver) = mpsc::channel();
        let last_good = self.last_good_admin.take();
        let spawned = std::thread::Builder::new()
            .name("emoted-pack-build".into())
            .spawn(move || {
                let _ = sender.send(build(&library, merge, last_good));
            });
        match spawned {
            Ok(_) => self.running = Some(Mutex::new(receiver)),
            Err(e) => tracing::error!("resource pack not rebuilt: no thread for it: {e}"),
        }
    }

    /// The build that ended since the last call, with the admin path it
    /// merged; `again` says a reload came while it ran (build again).
    pub(super) fn finished(&mut self) -> Option<(Result<PackBuild, PackError>, Option<PathBuf>)> {
        let receiver = self.running.as_mut()?.get_mut();
        let received = match receiver {
            Ok(receiver) => receiver.try_recv(),
            Err(poisoned) => poisoned.into_inner().try_recv(),
        };
        let finished = match received {
            Ok(finished) => finished,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => {
                self.running = None;
                tracing::error!("resource pack not rebuilt: its build stopped");
                return None;
            }
        };
        self.running = None;
        Some(self.keep(finished))
    }

    /// Whether a rebuild was asked for while the last one ran (and forgets
    /// it).
    pub(super) fn take_again(&mut self) -> bool {
        std::mem::take(&mut self.again)
    }

    fn keep(&mut self, finished: Finished) -> (Result<PackBuild, PackError>, Option<PathBuf>) {
        self.last_good_admin = finished.admin;
        (finished.built, finished.merge)
    }
}

/// One build (see [`current_pack_keeping`]).
fn build(library: &Library, merge: Option<PathBuf>, last_good: Option<AdminPack>) -> Finished {
    let (built, admin) = current_pack_keeping(library, merge.as_deref(), last_good);
    Finished {
        built,
        merge,
        admin,
    }
}

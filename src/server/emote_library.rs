//! The emotes the server plays and where it reads them from, shared by
//! every feature that looks an emote up.

use std::path::PathBuf;

use valence::prelude::*;

use crate::library::Library;

/// Where the server reads emotes from.
#[derive(Resource, Clone, Debug)]
pub struct EmoteFolders {
    /// Folders (or files) of emote JSON: `emotes/` and `datapacks/` by default.
    pub roots: Vec<PathBuf>,
}

/// The emotes the server can play.
#[derive(Resource, Clone, Debug, Default)]
pub struct EmoteLibrary(pub Library);

/// Emotes no file holds, each for one playback: a modded player's own
/// emote from their Emotecraft wheel, imported so that vanilla players see
/// it drawn with displays ([`crate::server::modded`]). Their ids are in the
/// `emotecraft` namespace, `emotecraft:player/<uuid>`, one per player. A
/// playback starts from here when its id is here, from [`EmoteLibrary`]
/// otherwise; kept apart so that adding one rebuilds nothing (the pack,
/// the wheels) that follows the files.
#[derive(Resource, Clone, Debug, Default)]
pub struct ClientEmotes(pub Library);

/// Loads the emote library at start-up and logs every problem.
pub struct EmoteLibraryPlugin;

impl Plugin for EmoteLibraryPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<EmoteLibrary>()
            .add_systems(Startup, load_emote_library);
    }
}

fn load_emote_library(folders: Option<Res<EmoteFolders>>, mut library: ResMut<EmoteLibrary>) {
    let roots = folders.map(|f| f.roots.clone()).unwrap_or_default();
    let report = Library::reload(&roots, Some(&library.0));
    for line in report.lines() {
        tracing::warn!("{line}");
    }
    tracing::info!(
        "loaded {} emotes from {} files ({} refused)",
        report.library.len(),
        report.file_count,
        report.files.iter().filter(|f| f.has_errors()).count()
    );
    library.0 = report.library;
}

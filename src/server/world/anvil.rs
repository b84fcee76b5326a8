//! An existing world, loaded with valence's `valence_anvil` (re-exported as
//! [`valence::anvil`]): [`AnvilWorld`] is the world opened and checked at
//! start-up, [`AnvilWorldPlugin`] plays it.
//!
//! The loading itself is valence_anvil's: its [`AnvilPlugin`] watches each
//! client's view (the server's `view_distance` around the player), reads
//! the chunks that come into view from `<world>/region/r.X.Z.mca` on a
//! thread of its own, puts those it read into the layer, drops those no
//! one sees any longer, and tells how each load went with a
//! [`ChunkLoadEvent`]. This plugin builds the layer with its
//! [`AnvilLevel`], keeps the chunks around the spawn loaded (as vanilla's
//! spawn chunks are, so that a joining player lands on loaded ground), and
//! answers every load that put nothing in the layer with an empty chunk,
//! so that a client never waits for a chunk that will not come:
//! - a chunk the region does not hold (or a region file that does not
//!   exist): never generated, so empty, without a word;
//! - a chunk that failed (a damaged region file, a chunk valence cannot
//!   parse, a block newer than 1.20.1): empty, and a warning that names the
//!   region file, the chunk and the reason, once per region file (a
//!   damaged file fails for every chunk in view: one line is enough).
//!
//! Nothing is written to the world: no chunk is saved, whatever happens in
//! it. valence_anvil opens region files for reading *and writing* all the
//! same (it never writes), so the server's user needs write permission on
//! them; [`AnvilWorld::open`] checks the spawn's region file, and a failure
//! for want of permission says so.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use valence::anvil::{AnvilLevel, AnvilPlugin, ChunkLoadEvent, ChunkLoadStatus};
use valence::prelude::*;

use super::level::{LevelDat, WorldError, MAX_DATA_VERSION};
use super::{add_join_systems, WorldSpawn};

/// Chunks kept loaded around the spawn chunk, in each direction.
const SPAWN_CHUNK_RADIUS: i32 = 1;
/// Chunks along one side of a region file.
const REGION_CHUNKS: i32 = 32;

/// An existing world's folder, opened and checked: its `level.dat` read,
/// its `region` folder found, the region file under the spawn readable.
#[derive(Resource, Clone, Debug)]
pub struct AnvilWorld {
    folder: PathBuf,
    level: LevelDat,
    warnings: Vec<String>,
}

impl AnvilWorld {
    /// Opens the world in `folder` (relative paths from the working
    /// directory). Every way a world cannot be played is an error here, at
    /// start-up, that names the file: a missing folder, a missing,
    /// unreadable or damaged `level.dat`, one without a spawn point or from
    /// before 1.18, a missing `region` folder, a spawn region file the
    /// reader cannot open.
    pub fn open(folder: &Path) -> Result<AnvilWorld, WorldError> {
        if !folder.is_dir() {
            return Err(WorldError::NoFolder {
                path: folder.to_path_buf(),
            });
        }
        let level = LevelDat::read(&folder.join("level.dat"))?;
        let region_folder = folder.join("region");
        if !region_folder.is_dir() {
            return Err(WorldError::NoRegionFolder {
                path: region_folder,
            });
        }
        let mut warnings = Vec::new();
        let [x, _, z] = level.spawn_block;
        let spawn_region = region_file(&region_folder, spawn_chunk(level.spawn_block));
        if spawn_region.is_file() {
            // Opened as valence_anvil opens it; nothing is written.
            std::fs::File::options()
                .read(true)
                .write(true)
                .open(&spawn_region)
                .map_err(|source| WorldError::SpawnRegion {
                    path: spawn_region.clone(),
                    source,
                })?;
        } else {
            warnings.push(format!(
                "{}: not found, and it would hold the spawn ({x}, {z}): players join above \
                 empty chunks and fall",
                spawn_region.display()
            ));
        }
        if level.is_newer_than_emoted() {
            warnings.push(format!(
                "{}: saved by a Minecraft newer than 1.20.1 (data version {}, 1.20.1 is \
                 {MAX_DATA_VERSION}): chunks with blocks added since fail to load and are left \
                 empty",
                folder.join("level.dat").display(),
                level.data_version
            ));
        }
        Ok(AnvilWorld {
            folder: folder.to_path_buf(),
            level,
            warnings,
        })
    }

    /// The world's folder, as configured.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// What its `level.dat` says.
    pub fn level(&self) -> &LevelDat {
        &self.level
    }

    /// Where players join: the middle of the spawn block, at its bottom
    /// (the y `level.dat` stores is the block the feet are in).
    pub fn spawn(&self) -> WorldSpawn {
        let [x, y, z] = self.level.spawn_block;
        WorldSpawn(DVec3::new(
            f64::from(x) + 0.5,
            f64::from(y),
            f64::from(z) + 0.5,
        ))
    }

    /// The folder of its region files.
    pub fn region_folder(&self) -> PathBuf {
        self.folder.join("region")
    }

    /// What an admin should hear at start-up (each a log warning): a spawn
    /// over a region file that does not exist, a world from a newer
    /// Minecraft.
    pub fn startup_warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The chunk that holds a block.
fn spawn_chunk([x, _, z]: [i32; 3]) -> ChunkPos {
    ChunkPos::new(x.div_euclid(16), z.div_euclid(16))
}

/// The region file that holds a chunk: `r.<x>.<z>.mca`, 32 × 32 chunks
/// each, in `region_folder`.
pub fn region_file(region_folder: &Path, chunk: ChunkPos) -> PathBuf {
    region_folder.join(format!(
        "r.{}.{}.mca",
        chunk.x.div_euclid(REGION_CHUNKS),
        chunk.z.div_euclid(REGION_CHUNKS)
    ))
}

/// The region files a chunk failed to load from, so that each is named
/// once: a damaged file fails for every chunk in view, and again each time
/// a chunk of it comes back into view.
#[derive(Debug, Default)]
pub struct RegionFailures {
    reported: HashSet<[i32; 2]>,
}

impl RegionFailures {
    /// The warning for a chunk that failed to load, the first time a chunk
    /// of its region file fails; `None` after that.
    pub fn first_in_region(
        &mut self,
        region_folder: &Path,
        chunk: ChunkPos,
        reason: &str,
    ) -> Option<String> {
        let region = [
            chunk.x.div_euclid(REGION_CHUNKS),
            chunk.z.div_euclid(REGION_CHUNKS),
        ];
        self.reported.insert(region).then(|| {
            format!(
                "{}: chunk ({}, {}) did not load: {reason}; it is left empty (later failures \
                 in this region file are not logged)",
                region_file(region_folder, chunk).display(),
                chunk.x,
                chunk.z
            )
        })
    }
}

/// The reason a chunk failed, as an admin reads it: valence_anvil's error
/// with its causes, and what it means when the file ended early or could
/// not be opened for want of permission (it opens region files for writing
/// too).
pub fn failure_reason(error: &anyhow::Error) -> String {
    let io = error.downcast_ref::<std::io::Error>();
    let hint = match io.map(|io| (io.kind(), io.raw_os_error())) {
        Some((std::io::ErrorKind::PermissionDenied, _)) | Some((_, Some(libc::EROFS))) => {
            " (valence's region reader opens region files for reading and writing, though \
             emoted never writes: give the server's user write permission on them)"
        }
        Some((std::io::ErrorKind::UnexpectedEof, _)) => {
            " (the file ends before the data its header points to: it is damaged or cut short)"
        }
        _ => "",
    };
    format!("{error:#}{hint}")
}

/// Plays an [`AnvilWorld`]: one layer whose chunks valence_anvil loads
/// around the players, who join at the world's spawn.
pub struct AnvilWorldPlugin {
    world: AnvilWorld,
}

impl AnvilWorldPlugin {
    /// The plugin for a world opened with [`AnvilWorld::open`].
    pub fn new(world: AnvilWorld) -> Self {
        Self { world }
    }
}

impl Plugin for AnvilWorldPlugin {
    fn build(&self, app: &mut App) {
        // valence's DefaultPlugins has it with the `anvil` feature; a host
        // without it gets it here.
        if !app.is_plugin_added::<AnvilPlugin>() {
            app.add_plugins(AnvilPlugin);
        }
        app.insert_resource(self.world.spawn())
            .insert_resource(self.world.clone())
            .add_systems(Startup, (spawn_anvil_layer, announce_world))
            .add_systems(Update, fill_chunks_that_did_not_load);
        add_join_systems(app);
    }
}

fn spawn_anvil_layer(
    mut commands: Commands,
    server: Res<Server>,
    dimensions: Res<DimensionTypeRegistry>,
    biomes: Res<BiomeRegistry>,
    world: Res<AnvilWorld>,
) {
    let layer = LayerBundle::new(ident!("overworld"), &dimensions, &biomes, &server);
    let mut level = AnvilLevel::new(world.folder(), &biomes);
    let centre = spawn_chunk(world.level.spawn_block);
    for dz in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
        for dx in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
            let chunk = ChunkPos::new(centre.x + dx, centre.z + dz);
            level.ignored_chunks.insert(chunk);
            level.force_chunk_load(chunk);
        }
    }
    commands.spawn((layer, level));
}

fn announce_world(world: Res<AnvilWorld>) {
    let [x, y, z] = world.level.spawn_block;
    let name = match &world.level.level_name {
        Some(name) => format!(" \"{name}\""),
        None => String::new(),
    };
    tracing::info!(
        "world{name}: {}, read-only; players join at its spawn ({x}, {y}, {z}) and its chunks \
         load around them",
        world.folder().display()
    );
    for warning in world.startup_warnings() {
        tracing::warn!("{warning}");
    }
}

fn fill_chunks_that_did_not_load(
    mut loads: EventReader<ChunkLoadEvent>,
    mut layers: Query<&mut ChunkLayer, With<AnvilLevel>>,
    world: Res<AnvilWorld>,
    mut failures: Local<RegionFailures>,
) {
    for load in loads.iter() {
        match &load.status {
            ChunkLoadStatus::Success { .. } => continue,
            ChunkLoadStatus::Empty => {}
            ChunkLoadStatus::Failed(error) => {
                let reason = failure_reason(error);
                let region_folder = world.region_folder();
                if let Some(line) = failures.first_in_region(&region_folder, load.pos, &reason) {
                    tracing::warn!("{line}");
                }
            }
        }
        let Ok(mut layer) = layers.get_mut(load.chunk_layer) else {
            continue;
        };
        if layer.chunk(load.pos).is_none() {
            layer.insert_chunk(load.pos, UnloadedChunk::new());
        }
    }
}

//! `emoted loadtest`'s flags ([`LoadtestOptions`]).

use std::path::PathBuf;

use super::DEFAULT_PACK_BYTES;

/// What to run (`emoted loadtest`'s flags).
#[derive(Clone, Debug, clap::Args)]
pub struct LoadtestOptions {
    /// Playbacks (N).
    #[arg(long, default_value_t = 100)]
    pub playbacks: usize,
    /// Viewers (M).
    #[arg(long, default_value_t = 100)]
    pub viewers: usize,
    /// Measured ticks (T).
    #[arg(long, default_value_t = 200)]
    pub ticks: u32,
    /// Play this emote in every playback instead of the bundled mix.
    #[arg(long)]
    pub emote: Option<String>,
    /// Send every changed node every tick (the naive baseline).
    #[arg(long)]
    pub per_tick: bool,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stand the clients on a square grid this many blocks apart, client 0
    /// at the spawn (0: all at the spawn, where every client views every
    /// display: the worst case).
    #[arg(long, default_value_t = 0.0)]
    pub spacing_blocks: f64,
    /// `emotes.display_view_scale` for the run (view-range culling; 5.0
    /// reaches every client in chunk view).
    #[arg(long, default_value_t = 1.0)]
    pub display_view_scale: f64,
    /// `emotes.display_tolerance_blocks` for the run.
    #[arg(long, default_value_t = 0.01)]
    pub tolerance_blocks: f32,
    /// `emotes.display_tolerance_degrees` for the run.
    #[arg(long, default_value_t = 0.5)]
    pub tolerance_degrees: f32,
    /// `emotes.tolerance_near_blocks` for the run (0: no distance bands).
    #[arg(long, default_value_t = crate::server::config::DEFAULT_TOLERANCE_NEAR_BLOCKS)]
    pub tolerance_near_blocks: f64,
    /// `emotes.viewer_bytes_per_second` for the run (0: no byte budget).
    #[arg(long, default_value_t = crate::server::config::DEFAULT_VIEWER_BYTES_PER_SECOND)]
    pub viewer_bytes_per_second: u64,
    /// `emotes.viewer_spawns_per_tick` for the run (0: no limit).
    #[arg(long, default_value_t = crate::server::config::DEFAULT_VIEWER_SPAWNS_PER_TICK)]
    pub viewer_spawns_per_tick: u32,
    /// The viewers that do not play (`--viewers` above `--playbacks`) wait
    /// out of every display's reach during the warm-up and take their
    /// places at the first measured tick, as players teleporting into the
    /// crowd: the largest tick is then their arrival.
    #[arg(long)]
    pub arrive: bool,
    /// Also report the viewers' bytes by packet kind
    /// (`bytes_by_packet`, per viewer per second).
    #[arg(long)]
    pub breakdown: bool,
    /// Folders (or files) to load emotes from (default: emotes/ and
    /// datapacks/).
    #[arg(long = "emotes")]
    pub emote_roots: Vec<PathBuf>,
    /// Serve the resource pack on 127.0.0.1 with emoted's own pack server
    /// and run this many HTTP downloads of it at once during the measured
    /// ticks, each client starting again when its download ends (0: the
    /// pack is not served). At most 256, the server's connection limit.
    #[arg(long, default_value_t = 0)]
    pub pack_downloads: usize,
    /// The size of the pack served to `--pack-downloads`, in bytes (filler
    /// standing in for a real pack; default 1 MiB, about a pack with a few
    /// textures).
    #[arg(long, default_value_t = DEFAULT_PACK_BYTES, requires = "pack_downloads")]
    pub pack_bytes: u64,
    /// Every viewer opens the emote wheel on every measured tick (as
    /// `/emote` does): M wheels built, drawn and sent in each tick, the
    /// worst case of issue 15's "100 players open it in the same tick".
    #[arg(long)]
    pub open_wheels: bool,
    /// The share of the viewers that are Emotecraft clients, from 0 to 1
    /// (they get bones, not body displays; their bytes are reported apart).
    #[arg(long, default_value_t = 0.0)]
    pub modded_fraction: f64,
    /// Every playing client flies the emote camera (the default shot) and
    /// turns its look a quarter turn a second, as a player steering the
    /// orbit with the mouse (its look packets go through valence's own
    /// movement handling, so nothing is sent back but the camera's moves).
    #[arg(long)]
    pub cameras: bool,
    /// Every playing client looks around while it plays (its yaw sweeps
    /// ±45° every 4 s, its pitch ±15° every 3 s), as a player moves the
    /// mouse: the heads of emotes with a look-at follow (issue 30's
    /// solvers at work). Without the camera, unless `--cameras` too.
    #[arg(long)]
    pub looks: bool,
    /// Every playing client walks while it plays: round a circle of 3
    /// blocks at walking speed (4.3 blocks a second), facing where it
    /// goes, its moves going through valence's own movement handling (a
    /// controller's body follows and blends by speed; other emotes are
    /// stopped by their movement stop conditions).
    #[arg(long)]
    pub walk: bool,
}

impl Default for LoadtestOptions {
    /// The command line's defaults.
    fn default() -> Self {
        Self {
            playbacks: 100,
            viewers: 100,
            ticks: 200,
            emote: None,
            per_tick: false,
            seed: 1,
            spacing_blocks: 0.0,
            display_view_scale: 1.0,
            tolerance_blocks: 0.01,
            tolerance_degrees: 0.5,
            tolerance_near_blocks: crate::server::config::DEFAULT_TOLERANCE_NEAR_BLOCKS,
            viewer_bytes_per_second: crate::server::config::DEFAULT_VIEWER_BYTES_PER_SECOND,
            viewer_spawns_per_tick: crate::server::config::DEFAULT_VIEWER_SPAWNS_PER_TICK,
            arrive: false,
            breakdown: false,
            emote_roots: Vec::new(),
            pack_downloads: 0,
            pack_bytes: DEFAULT_PACK_BYTES,
            open_wheels: false,
            modded_fraction: 0.0,
            cameras: false,
            looks: false,
            walk: false,
        }
    }
}

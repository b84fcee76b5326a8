//! The world's rules without a server: `level.dat` reading, opening a world
//! folder, and how a chunk that failed to load is reported.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;
use valence::prelude::*;
use valence_nbt::{Compound, Value};

use super::anvil::{failure_reason, region_file, RegionFailures};
use super::level::{LevelDat, WorldError, MAX_DATA_VERSION};
use super::*;

/// A `level.dat`'s `Data` compound with the spawn at `spawn` and the data
/// version of 1.20.1.
fn data(spawn: [i32; 3]) -> Compound {
    let mut data = Compound::new();
    data.insert("SpawnX", spawn[0]);
    data.insert("SpawnY", spawn[1]);
    data.insert("SpawnZ", spawn[2]);
    data.insert("DataVersion", MAX_DATA_VERSION);
    data.insert("LevelName", "Lobby");
    data
}

/// The uncompressed NBT of a `level.dat` with this `Data`.
fn nbt(data: Compound) -> Vec<u8> {
    let mut root = Compound::new();
    root.insert("Data", Value::Compound(data));
    let mut bytes = Vec::new();
    root.to_binary(&mut bytes, "").expect("encode NBT");
    bytes
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn parse(bytes: &[u8]) -> Result<LevelDat, String> {
    LevelDat::parse(bytes, Path::new("w/level.dat")).map_err(|e| e.to_string())
}

/// A fresh folder under the system's temp folder.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("emoted-world-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a scratch folder");
    dir
}

#[test]
fn level_dat_gives_the_spawn_the_version_and_the_name() {
    let level = parse(&gzip(&nbt(data([8, 101, -3])))).expect("valid");
    assert_eq!(
        level,
        LevelDat {
            spawn_block: [8, 101, -3],
            data_version: MAX_DATA_VERSION,
            level_name: Some("Lobby".to_owned()),
        }
    );
    assert!(!level.is_newer_than_emoted());
}

#[test]
fn level_dat_without_a_spawn_field_names_it() {
    for field in ["SpawnX", "SpawnY", "SpawnZ"] {
        let mut without = data([0, 64, 0]);
        without.remove(field);
        let err = parse(&gzip(&nbt(without))).expect_err(field);
        assert!(
            err.starts_with(&format!(
                "w/level.dat: Data.{field} is missing or not an integer"
            )),
            "{err}"
        );
    }
    let mut long = data([0, 64, 0]);
    long.insert("SpawnY", 64_i64);
    let err = parse(&gzip(&nbt(long))).expect_err("a long");
    assert!(
        err.contains("Data.SpawnY is missing or not an integer"),
        "{err}"
    );
    let mut root = Compound::new();
    root.insert("Other", 1);
    let mut bytes = Vec::new();
    root.to_binary(&mut bytes, "").expect("encode NBT");
    let err = parse(&gzip(&bytes)).expect_err("no Data");
    assert!(err.contains("w/level.dat: Data is missing"), "{err}");
}

#[test]
fn level_dat_that_is_not_gzip_or_is_cut_short_is_refused_with_its_path() {
    let raw = nbt(data([0, 64, 0]));
    for (what, bytes) in [
        ("uncompressed NBT", raw.clone()),
        ("text", b"level-name=world\n".to_vec()),
        ("nothing", Vec::new()),
    ] {
        let err = parse(&bytes).expect_err(what);
        assert!(
            err.starts_with("w/level.dat: cannot unpack:") && err.contains("gzip-compressed NBT"),
            "{what}: {err}"
        );
    }
    let whole = gzip(&raw);
    for cut in [whole.len() / 2, whole.len() - 4, 12] {
        let err = parse(&whole[..cut]).expect_err("truncated");
        assert!(err.starts_with("w/level.dat: "), "cut at {cut}: {err}");
    }
    let err = parse(&gzip(b"\x0a\x00\x00\x03\x00\x04Spaw")).expect_err("truncated NBT");
    assert!(err.starts_with("w/level.dat: not valid NBT"), "{err}");
}

#[test]
fn worlds_before_1_18_are_refused_and_newer_ones_read() {
    let mut old = data([0, 64, 0]);
    old.insert("DataVersion", 2730); // 1.17.1
    let err = parse(&gzip(&nbt(old))).expect_err("1.17");
    assert!(err.contains("older than 1.18 (data version 2730)"), "{err}");
    let mut ancient = data([0, 64, 0]);
    ancient.remove("DataVersion");
    let err = parse(&gzip(&nbt(ancient))).expect_err("before 1.9");
    assert!(err.contains("(no Data.DataVersion)"), "{err}");
    let mut newer = data([0, 64, 0]);
    newer.insert("DataVersion", 3700);
    let level = parse(&gzip(&nbt(newer))).expect("newer is read");
    assert!(level.is_newer_than_emoted());
}

#[test]
fn opening_a_world_names_what_is_missing() {
    let dir = scratch("open");
    let world = dir.join("lobby");
    let err = AnvilWorld::open(&world).expect_err("no folder");
    assert!(matches!(err, WorldError::NoFolder { .. }), "{err}");
    assert!(err.to_string().contains("lobby: no such folder"), "{err}");

    std::fs::create_dir_all(&world).expect("folder");
    let err = AnvilWorld::open(&world)
        .expect_err("no level.dat")
        .to_string();
    let level_dat = world.join("level.dat");
    assert!(
        err.starts_with(&format!("{}: not found", level_dat.display())),
        "{err}"
    );

    std::fs::write(&level_dat, gzip(&nbt(data([-20, 70, 5])))).expect("write level.dat");
    let err = AnvilWorld::open(&world)
        .expect_err("no region folder")
        .to_string();
    assert!(err.contains("region: no such folder"), "{err}");

    std::fs::create_dir_all(world.join("region")).expect("region folder");
    let opened = AnvilWorld::open(&world).expect("opens");
    assert_eq!(opened.spawn(), WorldSpawn(DVec3::new(-19.5, 70.0, 5.5)));
    assert_eq!(opened.spawn().block(), BlockPos::new(-20, 70, 5));
    let warnings = opened.startup_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("r.-1.0.mca: not found, and it would hold the spawn"),
        "{warnings:?}"
    );

    std::fs::write(world.join("region").join("r.-1.0.mca"), [0_u8; 8192]).expect("region");
    let opened = AnvilWorld::open(&world).expect("opens");
    assert!(opened.startup_warnings().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_chunk_names_its_region_file_once_per_file() {
    let folder = Path::new("lobby/region");
    assert_eq!(
        region_file(folder, ChunkPos::new(-5, 3)),
        Path::new("lobby/region/r.-1.0.mca")
    );
    assert_eq!(
        region_file(folder, ChunkPos::new(32, -33)),
        Path::new("lobby/region/r.1.-2.mca")
    );
    let mut failures = RegionFailures::default();
    let line = failures
        .first_in_region(folder, ChunkPos::new(-5, 3), "invalid chunk sector offset")
        .expect("the first failure is logged");
    assert!(
        line.starts_with(
            "lobby/region/r.-1.0.mca: chunk (-5, 3) did not load: invalid chunk sector offset; \
             it is left empty"
        ),
        "{line}"
    );
    assert_eq!(
        failures.first_in_region(folder, ChunkPos::new(-6, 3), "failed to fill whole buffer"),
        None,
        "the same file again"
    );
    assert_eq!(
        failures.first_in_region(folder, ChunkPos::new(-5, 3), "again"),
        None
    );
    let other = failures
        .first_in_region(folder, ChunkPos::new(0, 0), "missing block states")
        .expect("another file");
    assert!(
        other.starts_with("lobby/region/r.0.0.mca: chunk (0, 0)"),
        "{other}"
    );
}

#[test]
fn a_region_file_cut_short_or_closed_to_the_server_says_what_it_means() {
    let denied = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    assert!(
        failure_reason(&denied).contains("give the server's user write permission"),
        "{}",
        failure_reason(&denied)
    );
    let short = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
    assert!(failure_reason(&short).contains("damaged or cut short"));
    let corrupt = anyhow::anyhow!("invalid chunk size");
    assert_eq!(failure_reason(&corrupt), "invalid chunk size");
}

#[test]
fn the_default_world_is_the_flat_one() {
    assert!(matches!(
        WorldPlugin::open(&WorldSection::default()),
        Ok(WorldPlugin::Flat)
    ));
    assert_eq!(WorldSpawn::default(), FLAT_SPAWN);
    assert_eq!(FLAT_SPAWN.block(), BlockPos::new(0, SURFACE_Y + 1, 0));
    let section = WorldSection {
        path: Some(PathBuf::from("no/such/world")),
    };
    let err = WorldPlugin::open(&section).err().expect("refused");
    assert!(
        err.to_string().starts_with("no/such/world: no such folder"),
        "{err}"
    );
}

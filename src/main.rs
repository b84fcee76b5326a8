//! The emoted command line: `serve` (the default), `check`, `sample`,
//! `preview`, `molang`, `pack`, `convert` and `loadtest`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use emoted::library::Library;
use emoted::server::serve::{serve, ServeArgs, DEFAULT_CONFIG};

/// A Minecraft 1.20.1 server built for emotes.
#[derive(Parser)]
#[command(name = "emoted", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (offline mode, flat world, emotes from emotes/ and datapacks/).
    Serve(ServeArgs),
    /// Validate Animation and Sequence files, `.anim` clips and `.retarget`
    /// maps, or folders of them; exit 1 if any is invalid. An admin's pack
    /// (`resource_pack.merge`) is merged too, each shared path printed.
    Check {
        /// Files or folders to check (folders are searched recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The configuration whose `resource_pack.merge` to check (default:
        /// config/emoted.toml when it exists; a bad configuration is an error).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Print an Animation's sampled poses at the given ticks, one JSON line
    /// each; for an `.anim` clip, every playing joint's pose at T/20 s.
    Sample {
        /// The Animation file or `.anim` clip.
        file: PathBuf,
        /// More `.anim` clips to play with the first on one body, layered.
        more: Vec<PathBuf>,
        /// With clips: every clip fades in over this many seconds.
        #[arg(long, default_value_t = 0.0)]
        fade_in: f32,
        /// Ticks after the start to sample (repeatable).
        #[arg(long = "tick", required = true)]
        ticks: Vec<u32>,
        /// Seed for Molang randomness.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        live: emoted::playback::live::sample::LiveArgs,
    },
    /// Draw an Animation at some ticks, from the front and the right side,
    /// as a PNG contact sheet (one column per tick).
    Preview(PreviewArgs),
    /// Write emoted's resource pack (skin parts drawn with the player's own
    /// skin) for the loaded emotes, merged with the admin's pack as the
    /// server serves it; prints its SHA-1 and path, and each path both
    /// packs have (with who won) on standard error.
    Pack(PackArgs),
    /// Convert another format's animation into schema 4, noting each lossy step.
    Convert(emoted::library::convert_cli::ConvertArgs),
    /// Measure the server tick with N playbacks seen by M viewers (no sockets);
    /// prints one JSON line.
    Loadtest(emoted::server::loadtest::LoadtestOptions),
    /// Evaluate one Molang expression or program and print the number.
    Molang {
        /// The expression, e.g. "math.sin(30) * 2". It may start with `-`
        /// ("-2 * -3" is an expression, not a flag).
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Set a variable first, e.g. --set v.x=3 (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        sets: Vec<String>,
    },
}

#[derive(clap::Args)]
struct PreviewArgs {
    /// The Animation file, or an `.anim` clip (drawn as it plays on the server).
    file: PathBuf,
    /// Ticks after the start to draw, one column each (repeatable, at most
    /// 16). Default: 0, 1/4, 1/2 and 3/4 of the duration. Ticks past the
    /// end show the final pose, as in `sample`.
    #[arg(long = "tick")]
    ticks: Vec<u32>,
    /// A skin PNG (64×64, or a legacy 64×32 one) for the skin-bound parts.
    /// Default: emoted's own Steve-like stand-in.
    #[arg(long, value_name = "PNG")]
    skin: Option<PathBuf>,
    /// Draw skin-bound arms slim (3 px wide).
    #[arg(long)]
    slim: bool,
    /// Seed for Molang randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The side of each cell in pixels.
    #[arg(long = "cell-size", value_name = "PX", default_value_t = emoted::preview::DEFAULT_CELL_PX)]
    cell_px: u32,
    /// Where to write the sheet.
    #[arg(short = 'o', long = "output", value_name = "SHEET.png")]
    output: PathBuf,
    #[command(flatten)]
    live: emoted::playback::live::sample::LiveArgs,
}

#[derive(clap::Args)]
struct PackArgs {
    /// Where to write the zip.
    #[arg(short = 'o', long = "output", value_name = "FILE.zip")]
    output: PathBuf,
    /// The configuration file whose emote folders and `resource_pack.merge`
    /// to use (default: config/emoted.toml when it exists).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Folders (or files) to load emotes from, overriding the configuration (repeatable).
    #[arg(long = "emotes")]
    emote_roots: Vec<PathBuf>,
    /// The admin's own pack to merge (a .zip file or a folder with
    /// pack.mcmeta), overriding `resource_pack.merge`. A pack that cannot be
    /// read fails the command.
    #[arg(long, value_name = "PATH")]
    merge: Option<PathBuf>,
    /// Merge no admin pack, whatever `resource_pack.merge` says.
    #[arg(long, conflicts_with = "merge")]
    no_merge: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Check { paths, config }) => check(&paths, config.as_ref()),
        Some(Command::Serve(args)) => serve(args),
        Some(Command::Sample {
            file,
            more,
            fade_in,
            ticks,
            seed,
            ..
        }) if !more.is_empty() || fade_in != 0.0 => {
            let _ = seed; // clips have no Molang
            sample_layered(&file, &more, &ticks, fade_in)
        }
        Some(Command::Sample {
            file,
            ticks,
            seed,
            live,
            ..
        }) => sample(&file, &ticks, seed, &live.inputs()),
        Some(Command::Preview(args)) => preview(&args),
        Some(Command::Molang { expr, sets }) => molang(&expr, &sets),
        Some(Command::Pack(args)) => pack(&args),
        Some(Command::Loadtest(options)) => loadtest(options),
        Some(Command::Convert(args)) => emoted::library::convert_cli::main(&args),
        None => serve(ServeArgs::default()),
    }
}

#[allow(clippy::print_stdout)]
fn check(paths: &[PathBuf], config: Option<&PathBuf>) -> ExitCode {
    use emoted::library::clip_cli::{check_retarget_maps, is_retarget_file};
    let (_, emote_paths): (Vec<PathBuf>, Vec<PathBuf>) =
        paths.iter().cloned().partition(|p| is_retarget_file(p));
    let report = Library::load(&emote_paths);
    let maps = check_retarget_maps(paths);
    for line in report.lines().iter().chain(&maps.lines) {
        println!("{line}");
    }
    let (merge_errors, merged) = check_merge(&report.library, config);
    let errors = report.error_count() + merge_errors + maps.error_count;
    let refused = report.files.iter().filter(|f| f.has_errors()).count() + maps.refused_count;
    let clips = match report.library.iter().filter(|(_, e)| e.is_clip()).count() {
        0 => String::new(),
        n => format!(" ({n} from clips)"),
    };
    eprintln!(
        "checked {} files: {} emotes valid{clips}{}, {} files refused, {} errors{}",
        report.file_count + maps.file_count,
        report.library.len(),
        maps.summary(),
        refused,
        errors,
        merged.unwrap_or_default()
    );
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `emoted check`'s look at the admin's pack, when a configuration is given
/// or config/emoted.toml exists and its `resource_pack.merge` names one: it
/// is read and merged into the pack for the checked emotes, as the server
/// would, and each path both packs have is printed as `PACK: PATH: who won:
/// why`. Returns the errors (a bad configuration, a pack that cannot be
/// read) and the summary's tail.
#[allow(clippy::print_stdout)]
fn check_merge(library: &Library, config: Option<&PathBuf>) -> (usize, Option<String>) {
    use emoted::pack::admin_pack::{AdminPack, MergeLimits};
    if config.is_none() && !PathBuf::from(DEFAULT_CONFIG).is_file() {
        return (0, None);
    }
    let config = match load_config(config) {
        Ok(config) => config,
        Err(e) => {
            println!("{e}");
            return (1, None);
        }
    };
    let Some(path) = config.resource_pack.merge_path() else {
        return (0, None);
    };
    let built = AdminPack::read(path, &MergeLimits::default())
        .map_err(|e| e.to_string())
        .and_then(|admin| {
            emoted::pack::ResourcePack::build_for_library(library, Some(admin))
                .map_err(|e| format!("{}: {e}", path.display()))
        });
    match built {
        Ok(built) => {
            for conflict in &built.conflicts {
                println!("{}: {conflict}", path.display());
            }
            let tail = format!(
                "; merged the resource pack {} (paths in both packs: {})",
                path.display(),
                built.conflicts.len()
            );
            (0, Some(tail))
        }
        Err(e) => {
            println!("{e}");
            (1, None)
        }
    }
}

fn sample(
    path: &std::path::Path,
    ticks: &[u32],
    seed: u64,
    live: &emoted::playback::live::sample::SampleInputs,
) -> ExitCode {
    if path.extension().is_some_and(|e| e == "anim") {
        return sample_clip(path, ticks);
    }
    print_or_fail(emoted::playback::camera::sample::sample_file(
        path, ticks, seed, live,
    ))
}

/// `emoted sample` on an `.anim` clip (tick T is T/20 s of track time).
fn sample_clip(path: &std::path::Path, ticks: &[u32]) -> ExitCode {
    print_or_fail(emoted::library::clip_cli::sample_clip(path, ticks))
}

fn sample_layered(first: &std::path::Path, more: &[PathBuf], ticks: &[u32], fade: f32) -> ExitCode {
    let paths: Vec<PathBuf> = std::iter::once(first.to_path_buf())
        .chain(more.to_vec())
        .collect();
    print_or_fail(emoted::library::clip_cli::sample_layered(
        &paths, ticks, fade,
    ))
}

/// The samples as JSON lines, or the problems on standard error.
fn print_or_fail<T: serde::Serialize>(result: Result<Vec<T>, Vec<String>>) -> ExitCode {
    match result {
        Ok(lines) => print_json_lines(&lines),
        Err(problems) => {
            problems.iter().for_each(|line| eprintln!("{line}"));
            ExitCode::FAILURE
        }
    }
}

/// Prints each sample as one JSON line.
#[allow(clippy::print_stdout)]
fn print_json_lines<T: serde::Serialize>(lines: &[T]) -> ExitCode {
    for line in lines {
        match serde_json::to_string(line) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("cannot write the sample: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn preview(args: &PreviewArgs) -> ExitCode {
    let options = emoted::preview::PreviewOptions {
        ticks: args.ticks.clone(),
        slim: args.slim,
        seed: args.seed,
        cell_px: args.cell_px,
        live: args.live.inputs(),
    };
    match emoted::preview::write_sheet(&args.file, args.skin.as_deref(), &options, &args.output) {
        Ok((width_px, height_px)) => {
            eprintln!(
                "emoted preview: wrote {} ({width_px}×{height_px} px)",
                args.output.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

#[allow(clippy::print_stdout)]
fn molang(expr: &str, sets: &[String]) -> ExitCode {
    let mut values = Vec::new();
    for set in sets {
        let parsed = set.split_once('=').and_then(|(name, value)| {
            value
                .trim()
                .parse::<f64>()
                .ok()
                .map(|v| (name.trim().to_owned(), v))
        });
        match parsed {
            Some(pair) => values.push(pair),
            None => {
                eprintln!("--set `{set}`: expected NAME=NUMBER, e.g. v.x=3");
                return ExitCode::FAILURE;
            }
        }
    }
    match emoted::molang::evaluate_standalone(expr, &values) {
        Ok(value) => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// Where the configuration is read from when no `--config` is given (and
/// the file exists).

/// The configuration at `path`, or at config/emoted.toml when that exists,
/// or the defaults.
fn load_config(path: Option<&PathBuf>) -> Result<emoted::server::config::Config, String> {
    use emoted::server::config::Config;
    let default_path = PathBuf::from(DEFAULT_CONFIG);
    match path {
        Some(path) => Config::load(path).map_err(|e| e.to_string()),
        None if default_path.is_file() => Config::load(&default_path).map_err(|e| e.to_string()),
        None => Config::from_environment().map_err(|e| e.to_string()),
    }
}

#[allow(clippy::print_stdout)]
fn pack(args: &PackArgs) -> ExitCode {
    use emoted::pack::admin_pack::{AdminPack, MergeLimits};
    // The configuration is read only for what the flags leave to it.
    let merge_from_config = args.merge.is_none() && !args.no_merge;
    let config = if args.emote_roots.is_empty() || merge_from_config {
        match load_config(args.config.as_ref()) {
            Ok(config) => config,
            Err(e) => {
                eprintln!("emoted pack: bad configuration: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        emoted::server::config::Config::default()
    };
    let roots = if args.emote_roots.is_empty() {
        config.emotes.folders.clone()
    } else {
        args.emote_roots.clone()
    };
    let merge = match &args.merge {
        Some(path) => Some(path.clone()),
        None if args.no_merge => None,
        None => config.resource_pack.merge_path().map(PathBuf::from),
    };
    let report = Library::load(&roots);
    for line in report.lines() {
        eprintln!("{line}");
    }
    let admin = match &merge {
        None => None,
        Some(path) => match AdminPack::read(path, &MergeLimits::default()) {
            Ok(admin) => Some(admin),
            Err(e) => {
                eprintln!("emoted pack: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let built = match emoted::pack::ResourcePack::build_for_library(&report.library, admin) {
        Ok(built) => built,
        Err(e) => {
            eprintln!("emoted pack: {e}");
            return ExitCode::FAILURE;
        }
    };
    for warning in built.warnings() {
        eprintln!("emoted pack: {warning}");
    }
    for conflict in &built.conflicts {
        eprintln!("emoted pack: merge conflict: {conflict}");
    }
    if let Err(e) = std::fs::write(&args.output, &built.built.zip_bytes) {
        eprintln!("emoted pack: cannot write {}: {e}", args.output.display());
        return ExitCode::FAILURE;
    }
    let merged = match &merge {
        Some(path) => format!(
            ", merged with {} (paths in both packs: {})",
            path.display(),
            built.conflicts.len()
        ),
        None => String::new(),
    };
    eprintln!(
        "emoted pack: {} emotes, {} slice ids, {} bytes{merged}",
        report.library.len(),
        built.table.len(),
        built.built.zip_bytes.len()
    );
    // The line `sha1sum` prints, so `sha1sum -c` can check the file.
    println!("{}  {}", built.built.sha1_hex, args.output.display());
    ExitCode::SUCCESS
}

#[allow(clippy::print_stdout)]
fn loadtest(options: emoted::server::loadtest::LoadtestOptions) -> ExitCode {
    match emoted::server::loadtest::run(&options) {
        Ok(report) => match serde_json::to_string(&report) {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("emoted loadtest: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("emoted loadtest: {e}");
            ExitCode::FAILURE
        }
    }
}

//! The emoted command line: `serve` (the default) and `check`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use emoted::library::Library;

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
    /// Validate Animation and Sequence files or folders; exit 1 if any is invalid.
    Check {
        /// Files or folders to check (folders are searched recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

#[derive(clap::Args, Default)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "0.0.0.0:25565")]
    address: Option<SocketAddr>,
    /// Folders (or files) to load emotes from.
    #[arg(long = "emotes", default_values = ["emotes", "datapacks"])]
    emote_roots: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Check { paths }) => check(&paths),
        Some(Command::Serve(args)) => serve(args),
        None => serve(ServeArgs {
            address: None,
            emote_roots: vec!["emotes".into(), "datapacks".into()],
        }),
    }
}

#[allow(clippy::print_stdout)]
fn check(paths: &[PathBuf]) -> ExitCode {
    let report = Library::load(paths);
    for line in report.lines() {
        println!("{line}");
    }
    let errors = report.error_count();
    let refused = report.files.iter().filter(|f| f.has_errors()).count();
    eprintln!(
        "checked {} files: {} emotes valid, {} files refused, {} errors",
        report.file_count,
        report.library.len(),
        refused,
        errors
    );
    if errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn serve(args: ServeArgs) -> ExitCode {
    use valence::network::{ConnectionMode, NetworkSettings};
    use valence::prelude::*;

    let address = args
        .address
        .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 25565)));
    App::new()
        .insert_resource(NetworkSettings {
            connection_mode: ConnectionMode::Offline,
            address,
            ..Default::default()
        })
        .insert_resource(emoted::server::EmoteFolders {
            roots: args.emote_roots,
        })
        .add_plugins(DefaultPlugins)
        .add_plugins((
            emoted::server::world::FlatWorldPlugin,
            emoted::server::EmoteLibraryPlugin,
        ))
        .run();
    ExitCode::SUCCESS
}

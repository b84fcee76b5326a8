//! The operator's commands, from the console and from RCON.
//!
//! An admin at the terminal, or a tool speaking RCON, runs the commands an
//! operator has: `list`, `say`, `reload`, `stop`, and `emote …` for a named
//! player ([`OperatorCommand`]). Both front ends only carry text: each line
//! goes into the [`OperatorInbox`] with a way back for the answer
//! ([`OperatorLine`]), and one system in the tick runs it,
//! so a console command sees the same world, the
//! same permissions and the same events as a player's command. The answer
//! is plain text (chat colours and buttons dropped); a command that only
//! starts something (a reload) answers when it has finished.
//!
//! The sender is the server itself: it holds every permission node (it is
//! resolved as an operator of level 4, vanilla's console), has no body, so
//! whatever needs one (`/emote play <id>` without a player, the wheel,
//! `/tp`) is refused with a sentence saying so, and is named "Server" to
//! the players it affects (a stopped emote says "Server stopped it").
//!
//! - [`console`]: standard input, when it is a terminal, a pipe or a file;
//!   when it is closed (a service, `</dev/null`) there is no console and
//!   nothing else changes. Answers go to standard output.
//! - [`rcon`]: the Source RCON protocol on `[rcon] listen`, off unless
//!   enabled with a password.

pub mod console;
mod parse;
pub mod rcon;
mod run;
#[cfg(test)]
mod tests;

use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
use valence::prelude::*;

use crate::server::config::Config;
use crate::server::events::{add_shared_events, EmotePlaybackSet};
use crate::server::runtime::NetworkRuntime;

pub use parse::{parse_operator_command, OperatorCommand, OPERATOR_HELP};
pub use run::SERVER_NAME;

/// Where an operator's line came from (for the log and for `stop`'s reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperatorSource {
    /// The server's standard input.
    Console,
    /// An RCON connection from this address.
    Rcon(std::net::SocketAddr),
}

impl std::fmt::Display for OperatorSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OperatorSource::Console => f.write_str("the console"),
            OperatorSource::Rcon(peer) => write!(f, "RCON ({peer})"),
        }
    }
}

/// One command line from an operator, and where its answer goes.
#[derive(Debug)]
pub struct OperatorLine {
    /// The line as typed (a leading `/` is allowed).
    pub text: String,
    /// Who sent it.
    pub source: OperatorSource,
    /// The answer, plain text; lines separated by `\n`. Dropped unanswered
    /// only when the server stops first.
    pub reply: oneshot::Sender<String>,
}

/// The queue of operator lines: front ends hold an [`OperatorSender`], the
/// tick drains the receiver.
#[derive(Resource, Clone)]
pub struct OperatorInbox {
    sender: Sender<OperatorLine>,
    receiver: Arc<Mutex<Receiver<OperatorLine>>>,
}

impl Default for OperatorInbox {
    fn default() -> Self {
        let (sender, receiver) = std::sync::mpsc::channel();
        Self {
            sender,
            receiver: Arc::new(Mutex::new(receiver)),
        }
    }
}

impl OperatorInbox {
    /// A handle for a front end (any thread).
    pub fn sender(&self) -> OperatorSender {
        OperatorSender(self.sender.clone())
    }

    /// Every line waiting now.
    fn drain(&self) -> Vec<OperatorLine> {
        match self.receiver.lock() {
            Ok(receiver) => receiver.try_iter().collect(),
            Err(poisoned) => poisoned.into_inner().try_iter().collect(),
        }
    }
}

/// A front end's way into the [`OperatorInbox`].
#[derive(Clone, Debug)]
pub struct OperatorSender(Sender<OperatorLine>);

impl OperatorSender {
    /// Queues `text` from `source`; the receiver gets the answer, or an
    /// error when the server is gone before answering.
    pub fn send(&self, text: String, source: OperatorSource) -> oneshot::Receiver<String> {
        let (reply, answer) = oneshot::channel();
        // A server that is gone drops the line; the caller sees the
        // receiver closed.
        let _ = self.0.send(OperatorLine {
            text,
            source,
            reply,
        });
        answer
    }
}

/// The console and RCON front ends' shared tick side (module docs).
pub struct OperatorPlugin;

impl Plugin for OperatorPlugin {
    fn build(&self, app: &mut App) {
        add_shared_events(app);
        app.init_resource::<OperatorInbox>()
            .init_resource::<run::PendingReloads>()
            .add_systems(Startup, start_rcon_listener)
            .add_systems(
                Update,
                (run::run_operator_lines, run::answer_reloads).before(EmotePlaybackSet),
            );
    }
}

/// The runtime RCON made for itself where the host inserted no
/// [`NetworkRuntime`] (kept alive here).
#[derive(Resource)]
struct RconRuntime(#[allow(dead_code)] NetworkRuntime);

/// Starts RCON at start-up when `[rcon]` turns it on; a failure is logged
/// and the server plays on without it.
fn start_rcon_listener(
    mut commands: Commands,
    config: Res<Config>,
    runtime: Option<Res<NetworkRuntime>>,
    inbox: Res<OperatorInbox>,
) {
    if !config.rcon.is_on() {
        return;
    }
    let runtime = match runtime {
        Some(shared) => shared.clone(),
        None => match NetworkRuntime::small("emoted-rcon", 1) {
            Ok(own) => {
                commands.insert_resource(RconRuntime(own.clone()));
                own
            }
            Err(e) => {
                tracing::error!("RCON not started: no runtime for it: {e}");
                return;
            }
        },
    };
    match rcon::start_rcon(&config.rcon, &runtime, inbox.sender()) {
        Ok(Some(address)) => tracing::info!("RCON listening on {address}"),
        Ok(None) => {}
        Err(e) => tracing::error!("{e}; the server runs without RCON"),
    }
}

//! The console: operator commands typed on the server's standard input.
//!
//! One thread reads standard input a line at a time, queues each line as
//! the [`OperatorSource::Console`](super::OperatorSource::Console), waits for its answer and prints it on
//! standard output (the log goes on as before). It is there when standard
//! input is a terminal, a pipe or a file. At the end of input (a closed or
//! `/dev/null` standard input, as under a service manager or
//! `docker run` without `-i`) the thread ends quietly and the server plays
//! on: the end of the console is not a stop. A line that is not UTF-8 is
//! answered with an error and the console reads on.

use std::io::{BufRead, ErrorKind, Write};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{OperatorSender, OperatorSource};

/// How long the console waits for an answer before it reads on (the tick
/// answers within one tick; a reload of many files takes longer).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// The console of `emoted serve`: standard input, answered on standard
/// output, into the world's [`OperatorInbox`](super::OperatorInbox).
pub fn start_on_stdin(world: &valence::prelude::World) -> Option<JoinHandle<()>> {
    let sender = world.get_resource::<super::OperatorInbox>()?.sender();
    start_console(
        sender,
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout(),
    )
}

/// Starts reading `input` (standard input, in `emoted serve`) on a thread
/// of its own, answering on `output`; `None` when the thread cannot start.
pub fn start_console<R, W>(sender: OperatorSender, input: R, output: W) -> Option<JoinHandle<()>>
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    std::thread::Builder::new()
        .name("emoted-console".to_owned())
        .spawn(move || read_commands(&sender, input, output))
        .map_err(|e| tracing::warn!("no console: cannot start its thread: {e}"))
        .ok()
}

/// The console's loop: a line in, its answer out, until the input ends.
fn read_commands<R: BufRead, W: Write>(sender: &OperatorSender, mut input: R, mut output: W) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => {
                tracing::debug!("standard input ended: no console");
                return;
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!("the console stopped reading standard input: {e}");
                return;
            }
        }
        let answer = match std::str::from_utf8(&line) {
            Err(_) => "That line is not UTF-8 text; type a command such as `help`.".to_owned(),
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => wait_for_answer(sender, text.trim().to_owned()),
        };
        if writeln!(output, "{answer}")
            .and_then(|()| output.flush())
            .is_err()
        {
            // Nobody reads the answers any more; commands still run.
            continue;
        }
    }
}

/// Queues `text` and waits for its answer.
fn wait_for_answer(sender: &OperatorSender, text: String) -> String {
    let mut answer = sender.send(text, OperatorSource::Console);
    let deadline = std::time::Instant::now() + ANSWER_TIMEOUT;
    loop {
        match answer.try_recv() {
            Ok(text) => return text,
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => {
                return "The server is stopping; the command was not run.".to_owned()
            }
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => {
                if std::time::Instant::now() > deadline {
                    return "No answer yet; the command may still finish (see the log).".to_owned();
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

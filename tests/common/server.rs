//! `emoted serve` on a free port, its log, and what the tests read from it.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::*;

// ------------------------------------------------------------------ the server

/// A running `emoted serve` on 127.0.0.1 and a free port. Killed on drop;
/// if the test is failing, the server log is printed then.
pub struct Server {
    child: Child,
    /// The server's standard input, when started with a console.
    console: Option<std::process::ChildStdin>,
    /// The port it listens on.
    pub port: u16,
    log: Arc<Mutex<String>>,
    /// A copy of the log on disk (under Cargo's target tmp dir).
    pub log_path: PathBuf,
    started: Instant,
}

impl Server {
    /// `emoted serve` with the default emote folders, `emotes` and `datapacks`.
    pub fn start() -> Server {
        Server::start_with(&["emotes", "datapacks"])
    }

    /// `emoted serve --emotes ROOT...`; relative roots are from the crate root.
    pub fn start_with<P: AsRef<Path>>(emote_roots: &[P]) -> Server {
        Server::start_with_args(emote_roots, &[])
    }

    /// `emoted serve --address 127.0.0.1:PORT --resource-pack-listen
    /// 127.0.0.1:0 --emotes ROOT... EXTRA...`.
    pub fn start_with_args<P: AsRef<Path>>(emote_roots: &[P], extra_args: &[&str]) -> Server {
        Server::start_with_options(emote_roots, extra_args, false)
    }

    /// [`Server::start_with_args`] with its standard input a pipe the test
    /// writes operator commands to ([`Server::console`]); otherwise it is
    /// closed, as under a service manager.
    pub fn start_with_console<P: AsRef<Path>>(emote_roots: &[P], extra_args: &[&str]) -> Server {
        Server::start_with_options(emote_roots, extra_args, true)
    }

    fn start_with_options<P: AsRef<Path>>(
        emote_roots: &[P],
        extra_args: &[&str],
        console: bool,
    ) -> Server {
        let roots: Vec<PathBuf> = emote_roots
            .iter()
            .map(|p| p.as_ref().to_path_buf())
            .collect();
        let extra: Vec<String> = extra_args.iter().map(|s| (*s).to_owned()).collect();
        let mut last_log = String::new();
        // A free port can be taken by someone else before the server binds
        // it; then try another.
        for _attempt in 0..3 {
            match Server::try_start(&roots, &extra, console) {
                Ok(server) => return server,
                Err(log) => last_log = log,
            }
        }
        panic!("the server did not start in three attempts; last log:\n{last_log}");
    }

    fn try_start(roots: &[PathBuf], extra: &[String], console: bool) -> Result<Server, String> {
        let port = free_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_emoted"));
        // The resource pack's HTTP server on a free port too, so that
        // servers running at once do not fight over 25580.
        cmd.arg("serve")
            .arg("--address")
            .arg(format!("127.0.0.1:{port}"))
            .args(["--resource-pack-listen", "127.0.0.1:0"]);
        for root in roots {
            cmd.arg("--emotes").arg(root);
        }
        // Each server its own store, unless the test names one (to restart
        // a server on the same file).
        if !extra.iter().any(|a| a == "--data-folder") {
            let data = scratch_dir().join(format!("data-{}-{port}", std::process::id()));
            let _ = std::fs::remove_dir_all(&data);
            cmd.arg("--data-folder").arg(data);
        }
        cmd.args(extra);
        let log_path = scratch_dir().join(format!("server-{}-{port}.log", std::process::id()));
        let mut child = cmd
            .current_dir(crate_root())
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "1")
            .stdin(if console {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the emoted binary");
        let console = child.stdin.take();
        let log = Arc::new(Mutex::new(String::new()));
        let file = Arc::new(Mutex::new(File::create(&log_path).ok()));
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        spawn_log_reader(stdout, log.clone(), file.clone());
        spawn_log_reader(stderr, log.clone(), file);
        let mut server = Server {
            child,
            console,
            port,
            log,
            log_path,
            started: Instant::now(),
        };
        let deadline = Instant::now() + SERVER_START_TIMEOUT;
        loop {
            if status_ping(port).is_ok() {
                return Ok(server);
            }
            if server.log().contains("failed to start TCP listener") {
                return Err(server.log()); // dropped: killed
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                thread::sleep(Duration::from_millis(100)); // let the readers finish
                panic!(
                    "the server exited before accepting connections ({status}); log:\n{}",
                    server.log()
                );
            }
            if Instant::now() > deadline {
                panic!(
                    "the server did not accept connections on port {port} within {:?}; log:\n{}",
                    SERVER_START_TIMEOUT,
                    server.log()
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends the server process `signal` ("TERM", "INT") as `kill` would.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Types `line` on the server's console (started with
    /// [`Server::start_with_console`]).
    pub fn console(&mut self, line: &str) {
        let stdin = self
            .console
            .as_mut()
            .expect("the server was started with a console");
        writeln!(stdin, "{line}").expect("the console takes the line");
        stdin.flush().expect("flushed");
    }

    /// Waits up to `timeout` for the process to exit: its status, and
    /// how long it took; `None` if it still runs.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<(std::process::ExitStatus, Duration)> {
        let since = Instant::now();
        while since.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                thread::sleep(Duration::from_millis(100)); // let the readers finish
                return Some((status, since.elapsed()));
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// The server process's id (for its memory in `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Everything the server printed so far (stdout and stderr, with any
    /// ANSI colour codes removed).
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log contains `needle`; false on timeout.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.log().contains(needle) {
                return true;
            }
            thread::sleep(Duration::from_millis(50));
        }
        self.log().contains(needle)
    }

    /// Log lines at a tracing level ("ERROR", "WARN", "INFO", ...).
    pub fn log_lines_at(&self, level: &str) -> Vec<String> {
        let needle = format!(" {level} ");
        self.log()
            .lines()
            .filter(|l| l.contains(&needle))
            .map(str::to_owned)
            .collect()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server is still running and its log has no panic and no ERROR line.
    pub fn assert_log_clean(&mut self) {
        let log = self.log();
        assert!(
            self.is_running(),
            "the server is no longer running; log:\n{log}"
        );
        let bad: Vec<&str> = log
            .lines()
            .filter(|l| l.to_lowercase().contains("panic") || l.contains(" ERROR "))
            .collect();
        assert!(
            bad.is_empty(),
            "the server log has panics or errors:\n{}\n--- full log ---\n{log}",
            bad.join("\n")
        );
    }

    /// A plan for a bot called `username` that joins this server.
    /// After 2.5 s (the watchers already started are in and settled),
    /// `player` joins, plays emote `id`, stays 3.5 s and leaves: what
    /// that client received.
    pub fn play_after_settling(&self, player: &str, id: &str) -> BotRun {
        thread::sleep(Duration::from_millis(2500));
        self.bot(player)
            .wait_spawn()
            .chat(&format!("/emote play {id}"))
            .wait_ms(3500)
            .disconnect()
            .run()
    }

    pub fn bot(&self, username: &str) -> Plan {
        Plan::new(self.port, username)
    }

    /// Time since the server was started.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if thread::panicking() {
            eprintln!(
                "--- emoted server log (port {}, kept in {}) ---\n{}--- end of server log ---",
                self.port,
                self.log_path.display(),
                self.log()
            );
        } else {
            let _ = fs::remove_file(&self.log_path);
        }
    }
}

fn spawn_log_reader(
    pipe: impl Read + Send + 'static,
    log: Arc<Mutex<String>>,
    file: Arc<Mutex<Option<File>>>,
) {
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut raw = Vec::new();
        loop {
            raw.clear();
            match reader.read_until(b'\n', &mut raw) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let mut line = strip_ansi(&String::from_utf8_lossy(&raw));
            if !line.ends_with('\n') {
                line.push('\n');
            }
            log.lock().unwrap().push_str(&line);
            if let Some(f) = file.lock().unwrap().as_mut() {
                let _ = f.write_all(line.as_bytes());
            }
        }
    });
}

/// Removes ANSI escape sequences (`ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

//! Shared code for the end-to-end tests: a real `emoted serve` process on a
//! free port, and real Minecraft 1.20.1 clients (mineflayer, driven by
//! `tests/client/bot.js`) that join it over TCP.
//!
//! Use it from a test file with `mod common;`. A typical test:
//!
//! ```ignore
//! let server = common::Server::start();
//! let run = server.bot("alice").wait_spawn().chat("/emote play example:wave")
//!     .wait_ms(500).disconnect().run();
//! run.assert_ok();
//! server.assert_log_clean();
//! ```
//!
//! The first test in a process that needs the client runs `npm ci` in
//! `tests/client` when `node_modules` is missing or older than
//! `package-lock.json`; a lock file under Cargo's target tmp dir keeps two
//! test binaries from installing at the same time.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use serde::Deserialize;
use serde_json::{json, Value};
use valence::math::{Mat4, Quat, Vec3};

/// Protocol version of Minecraft 1.20.1.
pub const PROTOCOL_1_20_1: i32 = 763;
/// How long the server may take to accept connections.
pub const SERVER_START_TIMEOUT: Duration = Duration::from_secs(60);

/// The crate root: the server and the client run from here.
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn client_dir() -> PathBuf {
    crate_root().join("tests").join("client")
}

fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e");
    fs::create_dir_all(&dir).expect("create target tmp dir for e2e");
    dir
}

// ------------------------------------------------------------------ npm install

/// Makes sure `tests/client/node_modules` matches `package-lock.json`,
/// running `npm ci` at most once per test process. Panics with npm's output
/// when it fails.
pub fn ensure_client_installed() {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    if let Err(e) = INSTALLED.get_or_init(install_client) {
        panic!("could not install the test client (tests/client): {e}");
    }
}

/// The copy of package-lock.json written after a successful install; when it
/// equals the real one, node_modules is up to date.
fn install_marker() -> PathBuf {
    client_dir()
        .join("node_modules")
        .join(".emoted-installed-lock.json")
}

fn client_up_to_date() -> bool {
    let dir = client_dir();
    let lock = fs::read(dir.join("package-lock.json")).ok();
    dir.join("node_modules/mineflayer/package.json").is_file()
        && lock.is_some()
        && fs::read(install_marker()).ok() == lock
}

fn install_client() -> Result<(), String> {
    if client_up_to_date() {
        return Ok(());
    }
    let _lock = InstallLock::acquire(&scratch_dir().join("npm-install.lock"))?;
    // Another process may have finished the install while we waited.
    if client_up_to_date() {
        return Ok(());
    }
    let dir = client_dir();
    let started = Instant::now();
    let output = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `npm` (is Node.js installed?): {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`npm ci` in {} failed ({}):\n{}\n{}",
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let lock = fs::read(dir.join("package-lock.json")).map_err(|e| e.to_string())?;
    fs::write(install_marker(), lock).map_err(|e| e.to_string())?;
    eprintln!(
        "installed the test client with npm ci in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A lock file created with `create_new`, holding the owner's pid: only one
/// process holds it. A lock whose process is gone, or older than ten
/// minutes, is taken to be left over from a killed run.
struct InstallLock(PathBuf);

impl InstallLock {
    fn acquire(path: &Path) -> Result<InstallLock, String> {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            match OpenOptions::new().write(true).create_new(true).open(path) {
                Ok(mut f) => {
                    let _ = writeln!(f, "{}", std::process::id());
                    return Ok(InstallLock(path.to_path_buf()));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let too_old = fs::metadata(path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok())
                        .is_some_and(|age| age > Duration::from_secs(600));
                    // On Linux, a lock whose process is gone is stale at once.
                    let holder_gone = fs::read_to_string(path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok())
                        .is_some_and(|pid| {
                            Path::new("/proc/self").exists()
                                && !Path::new(&format!("/proc/{pid}")).exists()
                        });
                    let stale = too_old || holder_gone;
                    if stale {
                        let _ = fs::remove_file(path);
                        continue;
                    }
                    if Instant::now() > deadline {
                        return Err(format!("timed out waiting for {}", path.display()));
                    }
                    thread::sleep(Duration::from_millis(250));
                }
                Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
            }
        }
    }
}

impl Drop for InstallLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

// ------------------------------------------------------------------ the server

/// A running `emoted serve` on 127.0.0.1 and a free port. Killed on drop;
/// if the test is failing, the server log is printed then.
pub struct Server {
    child: Child,
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

    /// `emoted serve --address 127.0.0.1:PORT --emotes ROOT... EXTRA...`.
    pub fn start_with_args<P: AsRef<Path>>(emote_roots: &[P], extra_args: &[&str]) -> Server {
        let roots: Vec<PathBuf> = emote_roots
            .iter()
            .map(|p| p.as_ref().to_path_buf())
            .collect();
        let extra: Vec<String> = extra_args.iter().map(|s| (*s).to_owned()).collect();
        let mut last_log = String::new();
        // A free port can be taken by someone else before the server binds
        // it; then try another.
        for _attempt in 0..3 {
            match Server::try_start(&roots, &extra) {
                Ok(server) => return server,
                Err(log) => last_log = log,
            }
        }
        panic!("the server did not start in three attempts; last log:\n{last_log}");
    }

    fn try_start(roots: &[PathBuf], extra: &[String]) -> Result<Server, String> {
        let port = free_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_emoted"));
        cmd.arg("serve")
            .arg("--address")
            .arg(format!("127.0.0.1:{port}"));
        for root in roots {
            cmd.arg("--emotes").arg(root);
        }
        cmd.args(extra);
        let log_path = scratch_dir().join(format!("server-{}-{port}.log", std::process::id()));
        let mut child = cmd
            .current_dir(crate_root())
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the emoted binary");
        let log = Arc::new(Mutex::new(String::new()));
        let file = Arc::new(Mutex::new(File::create(&log_path).ok()));
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        spawn_log_reader(stdout, log.clone(), file.clone());
        spawn_log_reader(stderr, log.clone(), file);
        let mut server = Server {
            child,
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

// ------------------------------------------------------------------ temp dirs

/// A fresh directory under Cargo's target tmp dir (e.g. emote files for a
/// server), removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path = scratch_dir().join(format!("{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `relative` (creating folders) and returns its path.
    pub fn write(&self, relative: &str, contents: &str) -> PathBuf {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("create dirs");
        fs::write(&path, contents).expect("write");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ------------------------------------------------------------------ server list ping

fn write_varint(out: &mut Vec<u8>, value: i32) {
    let mut v = value as u32;
    loop {
        if v & !0x7f == 0 {
            out.push(v as u8);
            return;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
}

fn read_varint(r: &mut impl Read) -> std::io::Result<i32> {
    let mut value: u32 = 0;
    for i in 0..5 {
        let mut b = [0u8];
        r.read_exact(&mut b)?;
        value |= u32::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(value as i32);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "varint too long",
    ))
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_varint(&mut out, body.len() as i32);
    out.extend_from_slice(body);
    out
}

/// A Server List Ping (handshake with next state 1, status request) against
/// 127.0.0.1:`port`; returns the status JSON. Used to wait for the server:
/// a plain connect-and-close would leave a warning in its log.
pub fn status_ping(port: u16) -> std::io::Result<Value> {
    let addr = ([127, 0, 0, 1], port).into();
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    stream.set_read_timeout(Some(Duration::from_secs(3)))?;
    stream.set_write_timeout(Some(Duration::from_secs(3)))?;
    let mut handshake = vec![0x00];
    write_varint(&mut handshake, PROTOCOL_1_20_1);
    let host = b"127.0.0.1";
    write_varint(&mut handshake, host.len() as i32);
    handshake.extend_from_slice(host);
    handshake.extend_from_slice(&port.to_be_bytes());
    write_varint(&mut handshake, 1);
    let mut out = framed(&handshake);
    out.extend(framed(&[0x00]));
    stream.write_all(&out)?;
    let _len = read_varint(&mut stream)?;
    let id = read_varint(&mut stream)?;
    if id != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("status response has packet id {id}"),
        ));
    }
    let n = read_varint(&mut stream)? as usize;
    let mut buf = vec![0; n];
    stream.read_exact(&mut buf)?;
    let _ = stream.shutdown(Shutdown::Both);
    serde_json::from_slice(&buf)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

// ------------------------------------------------------------------ plans

/// A plan for `tests/client/bot.js`: who joins where, and the steps to run.
/// See tests/client/README.md for every step.
#[derive(Clone, Debug)]
pub struct Plan {
    json: Value,
}

impl Plan {
    pub fn new(port: u16, username: &str) -> Plan {
        Plan {
            json: json!({
                "host": "127.0.0.1",
                "port": port,
                "username": username,
                "version": "1.20.1",
                "timeout_ms": 30000,
                "steps": [],
            }),
        }
    }

    /// The plan as JSON.
    pub fn to_json(&self) -> &Value {
        &self.json
    }

    /// Any step, as JSON.
    pub fn step(mut self, step: Value) -> Plan {
        self.json["steps"].as_array_mut().unwrap().push(step);
        self
    }

    /// Connect as a proxy would forward this player (see "proxy forwarding"
    /// in tests/client/bot.js): `{"mode":"bungeecord",...}`,
    /// `{"mode":"velocity",...}` and the variants there.
    pub fn forwarding(mut self, forwarding: Value) -> Plan {
        self.json["forwarding"] = forwarding;
        self
    }

    /// The whole plan's timeout (default 30 s).
    pub fn timeout_ms(mut self, ms: u64) -> Plan {
        self.json["timeout_ms"] = json!(ms);
        self
    }

    /// Also emit `{"event":"packet","name":..,"data":..}` for these packets
    /// (minecraft-data 1.20.1 names, e.g. "sound_effect").
    pub fn record_packets(mut self, names: &[&str]) -> Plan {
        self.json["record_packets"] = json!(names);
        self
    }

    pub fn wait_spawn(self) -> Plan {
        self.step(json!({"wait_spawn": true}))
    }
    pub fn wait_ms(self, ms: u64) -> Plan {
        self.step(json!({"wait_ms": ms}))
    }
    /// Waits until `count` events match `pattern` (see README), by default
    /// counting from the start of this step.
    pub fn wait_for(self, pattern: Value, count: usize, timeout_ms: u64) -> Plan {
        self.step(json!({"wait_for": pattern, "count": count, "timeout_ms": timeout_ms}))
    }
    /// Like `wait_for`, counting every event since the plan started.
    pub fn wait_for_since_start(self, pattern: Value, count: usize, timeout_ms: u64) -> Plan {
        self.step(json!({"wait_for": pattern, "count": count, "timeout_ms": timeout_ms, "since_start": true}))
    }
    pub fn chat(self, text: &str) -> Plan {
        self.step(json!({"chat": text}))
    }
    pub fn tab_complete(self, text: &str) -> Plan {
        self.step(json!({"tab_complete": text}))
    }
    /// Yaw and pitch in Minecraft degrees (yaw 0 = south/+z, 90 = west/-x;
    /// pitch 90 = straight down).
    pub fn look(self, yaw: f64, pitch: f64) -> Plan {
        self.step(json!({"look": {"yaw": yaw, "pitch": pitch}}))
    }
    /// Walks in a straight line to (x, z) (y is ignored).
    pub fn move_to(self, x: f64, y: f64, z: f64) -> Plan {
        self.step(json!({"move_to": [x, y, z]}))
    }
    /// mineflayer controls: forward, back, left, right, jump, sprint, sneak.
    pub fn set_control(self, control: &str, state: bool) -> Plan {
        self.step(json!({"set_control": {control: state}}))
    }
    pub fn clear_controls(self) -> Plan {
        self.step(json!({"clear_controls": true}))
    }
    pub fn swing(self) -> Plan {
        self.step(json!({"swing": "right"}))
    }
    pub fn set_slot(self, slot: u16, item: &str) -> Plan {
        self.step(json!({ "set_slot": {"slot": slot, "item": item} }))
    }
    pub fn attack(self, username: &str) -> Plan {
        self.step(json!({ "attack": username }))
    }
    pub fn swap_hands(self) -> Plan {
        self.step(json!({"swap_hands": true}))
    }
    /// Emits a `block` event for the block at (x, y, z).
    pub fn block_at(self, x: i32, y: i32, z: i32) -> Plan {
        self.step(json!({"block_at": [x, y, z]}))
    }
    /// Emits a `block` event for the block under the bot's feet.
    pub fn block_below(self) -> Plan {
        self.step(json!({"block_at": "below"}))
    }
    /// Emits a `bot_position` event.
    pub fn position(self) -> Plan {
        self.step(json!({"position": true}))
    }
    /// Waits for the server to close the connection (a kick).
    pub fn wait_end(self) -> Plan {
        self.step(json!({"wait_end": true}))
    }
    pub fn disconnect(self) -> Plan {
        self.step(json!({"disconnect": true}))
    }

    /// Starts the bot and returns at once; `wait()` for its events.
    pub fn spawn(self) -> RunningBot {
        ensure_client_installed();
        let username = self.json["username"].as_str().unwrap_or("bot").to_owned();
        let timeout = Duration::from_millis(self.json["timeout_ms"].as_u64().unwrap_or(30000))
            + Duration::from_secs(15);
        let mut child = Command::new("node")
            .arg(client_dir().join("bot.js"))
            .arg("-")
            .current_dir(crate_root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run `node` (is Node.js installed?)");
        let plan = serde_json::to_vec(&self.json).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&plan).expect("write the plan to bot.js");
        drop(stdin);
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        let err = thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        RunningBot {
            child,
            username,
            plan: self.json,
            deadline: Instant::now() + timeout,
            out,
            err,
        }
    }

    /// Runs the bot to the end.
    pub fn run(self) -> BotRun {
        self.spawn().wait()
    }
}

/// Runs several plans at once and returns their runs in the same order.
pub fn run_all(plans: Vec<Plan>) -> Vec<BotRun> {
    let bots: Vec<RunningBot> = plans.into_iter().map(Plan::spawn).collect();
    bots.into_iter().map(RunningBot::wait).collect()
}

/// A bot.js process that is running.
pub struct RunningBot {
    child: Child,
    username: String,
    plan: Value,
    deadline: Instant,
    out: thread::JoinHandle<String>,
    err: thread::JoinHandle<String>,
}

impl RunningBot {
    /// Waits for the bot to finish (killing it after the plan's timeout
    /// plus 15 s) and parses its events.
    pub fn wait(mut self) -> BotRun {
        let mut killed = false;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for bot.js") {
                break status;
            }
            if Instant::now() > self.deadline {
                let _ = self.child.kill();
                killed = true;
                break self.child.wait().expect("wait for bot.js");
            }
            thread::sleep(Duration::from_millis(20));
        };
        let stdout = self.out.join().unwrap_or_default();
        let stderr = self.err.join().unwrap_or_default();
        let mut events = Vec::new();
        let mut other_output = Vec::new();
        for line in stdout.lines() {
            if line.starts_with('{') {
                if let Ok(value) = serde_json::from_str::<Value>(line) {
                    match serde_json::from_value::<Event>(value.clone()) {
                        Ok(event) => {
                            events.push(event);
                            continue;
                        }
                        Err(e) => {
                            panic!("bot.js printed an event the tests cannot read ({e}): {line}")
                        }
                    }
                }
            }
            other_output.push(line.to_owned());
        }
        BotRun {
            username: self.username,
            plan: self.plan,
            status,
            killed,
            events,
            other_output,
            stderr,
        }
    }
}

// ------------------------------------------------------------------ events

/// What one bot.js run printed.
#[derive(Debug)]
pub struct BotRun {
    pub username: String,
    pub plan: Value,
    pub status: ExitStatus,
    /// Killed by the Rust side after the plan's timeout plus 15 s.
    pub killed: bool,
    pub events: Vec<Event>,
    /// Lines on stdout that were not events (mineflayer's own prints).
    pub other_output: Vec<String>,
    pub stderr: String,
}

impl BotRun {
    /// Panics (with every event) unless the plan ran to the end.
    pub fn assert_ok(&self) -> &BotRun {
        assert!(
            self.status.success() && matches!(self.events.last(), Some(Event::Done { .. })),
            "bot {} failed ({}{}):\n{}",
            self.username,
            self.status,
            if self.killed {
                ", killed after its timeout"
            } else {
                ""
            },
            self.describe()
        );
        self
    }

    /// Every event, one a line, and stderr: for assertion messages.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for e in &self.events {
            s.push_str(&format!("{e:?}\n"));
        }
        for l in &self.other_output {
            s.push_str(&format!("(stdout) {l}\n"));
        }
        if !self.stderr.is_empty() {
            s.push_str(&format!("(stderr) {}\n", self.stderr));
        }
        s
    }

    /// The failure message, if the plan failed.
    pub fn failure(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            Event::Fail { message, .. } => Some(message.as_str()),
            _ => None,
        })
    }

    /// Events emitted after step `index` started and before the next step.
    pub fn during_step(&self, index: usize) -> &[Event] {
        let start = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Step { index: i, .. } if *i == index))
            .map(|p| p + 1)
            .unwrap_or(self.events.len());
        let end = self.events[start..]
            .iter()
            .position(|e| matches!(e, Event::Step { .. }))
            .map(|p| start + p)
            .unwrap_or(self.events.len());
        &self.events[start..end]
    }

    /// Events emitted from step `index` on.
    pub fn since_step(&self, index: usize) -> &[Event] {
        let start = self
            .events
            .iter()
            .position(|e| matches!(e, Event::Step { index: i, .. } if *i == index))
            .unwrap_or(self.events.len());
        &self.events[start..]
    }

    pub fn login(&self) -> Option<&Login> {
        self.events.iter().find_map(|e| match e {
            Event::Login(l) => Some(l),
            _ => None,
        })
    }

    /// The `spawn` event from `wait_spawn`.
    pub fn spawn(&self) -> Option<&Spawn> {
        self.events.iter().find_map(|e| match e {
            Event::Spawn(s) => Some(s),
            _ => None,
        })
    }

    pub fn blocks(&self) -> Vec<&Block> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Block(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    /// Chat box lines (system and player chat), as plain text.
    pub fn chat(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Chat { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Action bar texts.
    pub fn action_bar(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ActionBar { text, .. } => text.as_deref(),
                _ => None,
            })
            .collect()
    }

    /// Every entity spawn (players included).
    pub fn spawned(&self) -> Vec<&SpawnEntity> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::SpawnEntity(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    /// Entity spawns of one type ("item_display", "player", ...).
    /// Ids of every display entity (item, block, text) this bot saw spawn.
    pub fn display_ids(&self) -> Vec<i32> {
        self.spawned()
            .iter()
            .filter(|s| {
                s.entity_type
                    .as_deref()
                    .is_some_and(|t| t.ends_with("_display"))
            })
            .map(|s| s.entity_id)
            .collect()
    }

    pub fn spawned_of(&self, entity_type: &str) -> Vec<&SpawnEntity> {
        self.spawned()
            .into_iter()
            .filter(|s| s.entity_type.as_deref() == Some(entity_type))
            .collect()
    }

    /// Every metadata packet for one entity, in order.
    pub fn metadata_of(&self, entity_id: i32) -> Vec<&EntityMetadata> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::EntityMetadata(m) if m.entity_id == entity_id => Some(m),
                _ => None,
            })
            .collect()
    }

    /// The entity's metadata fields merged in arrival order (the client's
    /// view of the entity at the end of the run).
    pub fn merged_fields(&self, entity_id: i32) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for m in self.metadata_of(entity_id) {
            for (k, v) in &m.fields {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    /// Every entity id destroyed.
    pub fn destroyed(&self) -> Vec<i32> {
        self.events
            .iter()
            .flat_map(|e| match e {
                Event::EntityDestroy { entity_ids, .. } => entity_ids.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    pub fn tab_completes(&self) -> Vec<&TabComplete> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::TabComplete(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    /// The wall clock (Unix milliseconds) at this run's `t` = 0.
    pub fn clock_unix_ms(&self) -> Option<u64> {
        self.events.iter().find_map(|e| match e {
            Event::Clock { unix_ms, .. } => Some(*unix_ms),
            _ => None,
        })
    }

    pub fn kicked(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match e {
            Event::Kicked { reason, .. } => Some(reason.as_deref().unwrap_or("")),
            _ => None,
        })
    }
}

/// One JSON line from bot.js. Every event also has `t`, milliseconds since
/// bot.js started. Events a newer bot.js adds come out as `Unknown`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The first line: the wall clock (Unix milliseconds) at `t` = 0.
    Clock {
        t: u64,
        unix_ms: u64,
    },
    /// A step is starting.
    Step {
        t: u64,
        index: usize,
        step: Value,
    },
    /// The login (join game) packet.
    Login(Login),
    /// A server position packet (teleport), as received.
    Teleport {
        t: u64,
        x: f64,
        y: f64,
        z: f64,
        yaw: f64,
        pitch: f64,
        flags: i64,
        teleport_id: i64,
    },
    /// `wait_spawn` finished: the bot is in the world.
    Spawn(Spawn),
    Health {
        t: u64,
        health: f64,
        food: i64,
        saturation: f64,
    },
    /// Game mode changed (game_state_change).
    GameMode {
        t: u64,
        game_mode: Option<String>,
        game_mode_id: f64,
    },
    /// A chat box line; kind is "system" or "chat".
    Chat {
        t: u64,
        kind: String,
        text: String,
        json: Value,
    },
    ActionBar {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    Title {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    Subtitle {
        t: u64,
        text: Option<String>,
        json: Value,
    },
    SpawnEntity(SpawnEntity),
    EntityMetadata(EntityMetadata),
    EntityDestroy {
        t: u64,
        entity_ids: Vec<i32>,
    },
    /// entity_teleport, rel_entity_move, entity_move_look or entity_look,
    /// with the absolute position and look the client now has.
    EntityMove {
        t: u64,
        packet: String,
        entity_id: i32,
        #[serde(rename = "type")]
        entity_type: Option<String>,
        x: Option<f64>,
        y: Option<f64>,
        z: Option<f64>,
        yaw: Option<f64>,
        pitch: Option<f64>,
    },
    EntityHeadRotation {
        t: u64,
        entity_id: i32,
        head_yaw: f64,
    },
    SetPassengers {
        t: u64,
        entity_id: i32,
        passengers: Vec<i32>,
    },
    /// The command tree as paths: "emote play <id>"; a redirect is "e -> emote".
    CommandTree {
        t: u64,
        paths: Vec<String>,
    },
    /// A packet named in the plan's record_packets.
    Packet {
        t: u64,
        name: String,
        data: Value,
    },
    TabComplete(TabComplete),
    Block(Block),
    BotPosition(BotPosition),
    Kicked {
        t: u64,
        reason: Option<String>,
        json: Value,
        logged_in: bool,
    },
    Error {
        t: u64,
        message: String,
    },
    /// The connection ended.
    End {
        t: u64,
        reason: Option<String>,
    },
    /// The plan ran to the end (always the last line then).
    Done {
        t: u64,
    },
    /// The plan failed (always the last line then).
    Fail {
        t: u64,
        message: String,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Login {
    pub t: u64,
    pub entity_id: i32,
    pub game_mode: Option<String>,
    pub game_mode_id: i64,
    pub dimension: String,
    pub world_name: String,
    pub view_distance: i64,
    pub is_flat: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Spawn {
    pub t: u64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw: f64,
    pub pitch: f64,
    pub on_ground: bool,
    pub entity_id: Option<i32>,
    pub game_mode: Option<String>,
    /// From update_health; None if the server sent none yet.
    pub health: Option<f64>,
    /// Whether mineflayer's own 'spawn' event fired (it needs a health update).
    pub mineflayer_spawn: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SpawnEntity {
    pub t: u64,
    /// "spawn_entity" or "named_entity_spawn" (players).
    pub packet: String,
    pub entity_id: i32,
    pub uuid: String,
    /// minecraft-data 1.20.1 name without namespace: "item_display", "player".
    #[serde(rename = "type")]
    pub entity_type: Option<String>,
    pub type_id: i64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Degrees (sent as 1/256 turns).
    pub yaw: f64,
    pub pitch: f64,
    pub head_yaw: Option<f64>,
    pub data: Option<i64>,
    /// Players: the name from the player list.
    pub username: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EntityMetadata {
    pub t: u64,
    pub entity_id: i32,
    /// The type from the entity's spawn; None if it was never spawned.
    #[serde(rename = "type")]
    pub entity_type: Option<String>,
    /// The bot's own player entity.
    #[serde(rename = "self")]
    pub is_self: bool,
    pub entries: Vec<MetadataEntry>,
    /// Named entries, decoded: see tests/client/README.md.
    pub fields: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetadataEntry {
    pub key: u8,
    /// minecraft-data's type name: "vector3", "quaternion", "int", "byte", ...
    #[serde(rename = "type")]
    pub value_type: String,
    pub name: Option<String>,
    /// As decoded by minecraft-protocol.
    pub value: Value,
}

impl EntityMetadata {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.get(name)
    }
    /// translation, scale: [x, y, z].
    pub fn vec3(&self, name: &str) -> Option<[f64; 3]> {
        let a = self.fields.get(name)?.as_array()?;
        Some([
            a.first()?.as_f64()?,
            a.get(1)?.as_f64()?,
            a.get(2)?.as_f64()?,
        ])
    }
    /// left_rotation, right_rotation: [x, y, z, w].
    pub fn quat(&self, name: &str) -> Option<[f64; 4]> {
        let a = self.fields.get(name)?.as_array()?;
        Some([
            a.first()?.as_f64()?,
            a.get(1)?.as_f64()?,
            a.get(2)?.as_f64()?,
            a.get(3)?.as_f64()?,
        ])
    }
    pub fn int(&self, name: &str) -> Option<i64> {
        self.fields.get(name)?.as_i64()
    }
    pub fn float(&self, name: &str) -> Option<f64> {
        self.fields.get(name)?.as_f64()
    }
    /// text (plain), custom_name.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.fields.get(name)?.as_str()
    }
    /// The item of an item_display: "minecraft:stick".
    pub fn item_id(&self) -> Option<&str> {
        self.fields.get("item")?.get("id")?.as_str()
    }
    /// The block of a block_display: "minecraft:stone".
    pub fn block_name(&self) -> Option<&str> {
        self.fields.get("block_state")?.get("name")?.as_str()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct TabComplete {
    pub t: u64,
    pub text: String,
    pub transaction_id: i64,
    /// No reply within the step's timeout (5 s unless timeout_ms is set).
    pub timed_out: bool,
    pub start: Option<i64>,
    pub length: Option<i64>,
    pub matches: Vec<String>,
    pub tooltips: Vec<Option<String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Block {
    pub t: u64,
    pub x: i32,
    pub y: i32,
    pub z: i32,
    /// "minecraft:smooth_stone"; None if the chunk is not loaded.
    pub name: Option<String>,
    pub state_id: Option<i64>,
    pub properties: Option<Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BotPosition {
    pub t: u64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub yaw: f64,
    pub pitch: f64,
    pub on_ground: bool,
}

// ---- Poses: what `emoted sample` computes and what a client draws ----

/// `emoted sample` at ticks 0..=n: per node id, (visible, 4×4 matrix) per tick.
pub fn sampled(file: &str, last_tick: u32) -> BTreeMap<String, Vec<(bool, Mat4)>> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_emoted"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("sample")
        .arg(file);
    for t in 0..=last_tick {
        cmd.arg("--tick").arg(t.to_string());
    }
    let out = cmd.output().expect("emoted sample runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut by_node: BTreeMap<String, Vec<(bool, Mat4)>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("json line");
        for (id, node) in v["nodes"].as_object().expect("nodes") {
            let m: Vec<f32> = node["matrix"]
                .as_array()
                .expect("matrix")
                .iter()
                .map(|x| x.as_f64().expect("f") as f32)
                .collect();
            let visible = node["visible"].as_bool().expect("visible");
            by_node
                .entry(id.clone())
                .or_default()
                .push((visible, Mat4::from_cols_slice(&m)));
        }
    }
    by_node
}

/// The matrix a 1.20.1 client draws from a display's transformation: T · R_left · S · R_right.
pub fn client_matrix(meta: &EntityMetadata) -> Option<(Mat4, Vec3)> {
    let t = meta.vec3("translation")?;
    let s = meta.vec3("scale")?;
    let l = meta.quat("left_rotation")?;
    let r = meta.quat("right_rotation")?;
    let f = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
    let q = |a: [f64; 4]| Quat::from_xyzw(a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32);
    let scale = f(s);
    Some((
        Mat4::from_translation(f(t))
            * Mat4::from_quat(q(l))
            * Mat4::from_scale(scale)
            * Mat4::from_quat(q(r)),
        scale,
    ))
}

/// True when a transformation the server sent can stand for the sampled
/// pose `expected`: within the scheduler's tolerance of it (0.01 block at
/// the unit cube's corners, 0.5°), as a planned update's target is (it may
/// be aimed off the exact pose, or keep a field the client already has).
/// The 1% slack covers the float round trip through the test client.
pub fn close_to_sample(matrix: &Mat4, expected: &Mat4) -> bool {
    use emoted::playback::schedule::{pose_error, Tolerance};
    let tolerance = Tolerance::default();
    let slack = Tolerance {
        translation_blocks: tolerance.translation_blocks * 1.01,
        rotation_degrees: tolerance.rotation_degrees * 1.01,
    };
    slack.accepts(pose_error(matrix, expected))
}

/// True when every transformation `updates` holds matches the sampled pose of
/// `node` at some tick ([`close_to_sample`]), in increasing tick order.
pub fn follows_sample(updates: &[(Mat4, Vec3)], node: &[(bool, Mat4)]) -> bool {
    let mut tick = 0;
    for (matrix, scale) in updates {
        let hidden = scale.abs_diff_eq(Vec3::ZERO, 1e-6);
        let found = (tick..node.len()).find(|&k| {
            let (visible, expected) = node[k];
            if hidden {
                !visible
            } else {
                visible && close_to_sample(matrix, &expected)
            }
        });
        match found {
            Some(k) => tick = k,
            None => return false,
        }
    }
    true
}

/// The transformation a client holds for a display after each update the
/// server made, as (matrix, scale). An update is a metadata packet with
/// `start_interpolation` (the server re-sends it with every update; the
/// spawn packet has none). Fields a packet leaves out keep their last
/// value, those of the spawn packet included; before any, the entity
/// defaults (no translation, scale 1, no rotation), as the client does.
pub fn display_updates(run: &BotRun, entity_id: i32) -> Vec<(Mat4, Vec3)> {
    let mut t = [0.0; 3];
    let mut s = [1.0; 3];
    let mut l = [0.0, 0.0, 0.0, 1.0];
    let mut r = [0.0, 0.0, 0.0, 1.0];
    let mut out = Vec::new();
    for meta in run.metadata_of(entity_id) {
        if let Some(v) = meta.vec3("translation") {
            t = v;
        }
        if let Some(v) = meta.vec3("scale") {
            s = v;
        }
        if let Some(v) = meta.quat("left_rotation") {
            l = v;
        }
        if let Some(v) = meta.quat("right_rotation") {
            r = v;
        }
        if meta.int("start_interpolation").is_some() {
            let f = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
            let q =
                |a: [f64; 4]| Quat::from_xyzw(a[0] as f32, a[1] as f32, a[2] as f32, a[3] as f32);
            let scale = f(s);
            out.push((
                Mat4::from_translation(f(t))
                    * Mat4::from_quat(q(l))
                    * Mat4::from_scale(scale)
                    * Mat4::from_quat(q(r)),
                scale,
            ));
        }
    }
    out
}

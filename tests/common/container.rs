//! Docker for the container test (tests/e2e_container.rs), with nothing
//! from a registry: Debian's engine (`docker.io`) and `debootstrap`
//! installed with apt when missing, a daemon of the test's own, a base
//! image made with `debootstrap --variant=minbase` and `docker import`.
//!
//! The daemon keeps everything (data-root, exec-root, pidfile, socket)
//! under a fresh folder in the system's temp dir (short paths: containerd's
//! sockets live under the exec-root, and a Unix socket path has at most
//! 107 bytes), with no bridge, no iptables rules and no IP forwarding:
//! containers and builds use the host's network, and the test talks to
//! them over loopback. Storage: overlay2, else vfs. [`Docker::start`]
//! returns `None`, having printed why, only when the daemon cannot start
//! with either. Dropping the [`Docker`] removes its containers, stops the
//! daemon, unmounts what it left and removes the folder, on success and on
//! failure alike.
//!
//! The debootstrapped root file system is cached as a tar file in the
//! repository's `target/container-cache/` (about 80 MB; debootstrap takes
//! 30 to 80 s, importing the tar 4 s): delete it to make a fresh one.
//! Nothing else outlives the test.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::*;

/// The Debian release of the base image: the one the test machines run, so
/// the binary cargo built for the tests (linked against the host's glibc)
/// runs in it.
pub const DEBIAN_SUITE: &str = "bookworm";

/// The storage drivers tried, in order.
const STORAGE_DRIVERS: [&str; 2] = ["overlay2", "vfs"];

/// How long the daemon may take to answer.
const DAEMON_START_TIMEOUT: Duration = Duration::from_secs(30);

/// The test's Docker daemon and the client that talks to it.
pub struct Docker {
    dir: PathBuf,
    daemon: Child,
    client: PathBuf,
    driver: &'static str,
    containers: RefCell<Vec<String>>,
    phases: RefCell<Vec<(String, Duration)>>,
}

impl Docker {
    /// Installs what is missing and starts a daemon; `None` (with a line
    /// saying why on stderr) when the daemon cannot start here at all.
    pub fn start() -> Option<Docker> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: the Docker daemon needs root, and this test runs as another user");
            return None;
        }
        let started = Instant::now();
        let present = || runs("dockerd") && runs("debootstrap");
        ensure_debian_packages(
            "dockerd and debootstrap",
            &present,
            &["docker.io", "debootstrap"],
        );
        let apt = started.elapsed();
        let dir = fresh_temp_dir();
        let mut why = Vec::new();
        for driver in STORAGE_DRIVERS {
            let started = Instant::now();
            match start_daemon(&dir, driver) {
                Ok(daemon) => {
                    let docker = Docker {
                        client: client_binary(),
                        dir,
                        daemon,
                        driver,
                        containers: RefCell::new(Vec::new()),
                        phases: RefCell::new(Vec::new()),
                    };
                    docker.phase("apt", apt);
                    docker.phase(&format!("daemon start ({driver})"), started.elapsed());
                    return Some(docker);
                }
                Err(e) => why.push(format!("with {driver}: {e}")),
            }
        }
        unmount_below(&dir);
        let _ = fs::remove_dir_all(&dir);
        eprintln!(
            "skipped: the Docker daemon cannot start here ({})",
            why.join("; ")
        );
        None
    }

    /// The storage driver the daemon runs with.
    pub fn driver(&self) -> &str {
        self.driver
    }

    /// Notes how long a phase took (printed by [`Docker::phases`]).
    pub fn phase(&self, name: &str, took: Duration) {
        self.phases.borrow_mut().push((name.to_owned(), took));
    }

    /// One line with every phase's time so far.
    pub fn phases(&self) -> String {
        let phases = self.phases.borrow();
        let parts: Vec<String> = phases
            .iter()
            .map(|(name, took)| format!("{name} {:.1} s", took.as_secs_f64()))
            .collect();
        parts.join(", ")
    }

    /// A `docker` command talking to this daemon, with the classic builder
    /// (`--network host` needs no entitlement there, and a newer client
    /// found on the PATH may lack the buildx plugin BuildKit needs).
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.client);
        command
            .env("DOCKER_HOST", format!("unix://{}", self.socket().display()))
            .env("DOCKER_CONFIG", self.dir.join("client"))
            .env("DOCKER_BUILDKIT", "0")
            .env("DOCKER_CLI_HINTS", "false")
            .stdin(Stdio::null());
        command
    }

    /// Runs `docker ARGS...`; its standard output, trimmed. Panics with
    /// both outputs when it fails.
    pub fn run_ok(&self, args: &[&str]) -> String {
        let output = self.output(args);
        assert!(
            output.status.success(),
            "`docker {}` failed ({}):\n{}\n{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    fn output(&self, args: &[&str]) -> Output {
        self.command()
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.client.display()))
    }

    /// A folder under the daemon's, removed with it.
    pub fn scratch(&self, name: &str) -> PathBuf {
        let path = self.dir.join(name);
        fs::create_dir_all(&path).expect("create a scratch folder");
        path
    }

    /// The Debian base image (`emoted-test-base:<suite>`), imported from the
    /// cached root file system, made first with debootstrap when there is
    /// none (or the cached one does not import).
    pub fn base_image(&self) -> String {
        let tag = format!("emoted-test-base:{DEBIAN_SUITE}");
        let cache = crate_root()
            .join("target")
            .join("container-cache")
            .join(format!("debian-{DEBIAN_SUITE}-minbase.tar"));
        for attempt in 0..2 {
            if !cache.is_file() {
                let started = Instant::now();
                self.debootstrap_to(&cache);
                self.phase("debootstrap", started.elapsed());
            }
            let started = Instant::now();
            let cache_arg = cache.to_string_lossy().into_owned();
            let output = self.output(&["import", &cache_arg, &tag]);
            if output.status.success() {
                self.phase("import", started.elapsed());
                return tag;
            }
            let _ = fs::remove_file(&cache);
            assert!(
                attempt == 0,
                "`docker import` of a fresh root file system failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        unreachable!("the loop returns or panics")
    }

    /// debootstrap (minbase) into a scratch folder, trimmed of what an
    /// image does not need (package lists and archives, docs, manuals,
    /// translations), tarred to `cache`.
    fn debootstrap_to(&self, cache: &Path) {
        let rootfs = self.dir.join("rootfs");
        let output = Command::new("debootstrap")
            .args(["--variant=minbase", DEBIAN_SUITE])
            .arg(&rootfs)
            .arg(debian_mirror())
            .stdin(Stdio::null())
            .output()
            .expect("run debootstrap");
        assert!(
            output.status.success(),
            "debootstrap failed ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        for trimmed in [
            "var/cache/apt/archives",
            "var/lib/apt/lists",
            "usr/share/doc",
            "usr/share/man",
            "usr/share/locale",
        ] {
            let _ = fs::remove_dir_all(rootfs.join(trimmed));
            fs::create_dir_all(rootfs.join(trimmed)).expect("recreate a trimmed folder");
        }
        fs::create_dir_all(cache.parent().expect("a folder")).expect("create the cache folder");
        // Another test process may be making the same file: each writes
        // its own, and the rename is atomic.
        let partial = cache.with_extension(format!("tar.{}.partial", std::process::id()));
        let status = Command::new("tar")
            .arg("--numeric-owner")
            .arg("-C")
            .arg(&rootfs)
            .arg("-cf")
            .arg(&partial)
            .arg(".")
            .status()
            .expect("run tar");
        assert!(status.success(), "tar of the root file system failed");
        fs::rename(&partial, cache).expect("move the tar into the cache");
        let _ = fs::remove_dir_all(&rootfs);
    }

    /// `docker build --network host` of `dockerfile` in `context`, tagged
    /// `tag`, with `--build-arg`s.
    pub fn build(&self, dockerfile: &Path, context: &Path, build_args: &[(&str, &str)], tag: &str) {
        let started = Instant::now();
        let dockerfile = dockerfile.to_string_lossy().into_owned();
        let context = context.to_string_lossy().into_owned();
        let pairs: Vec<String> = build_args.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec!["build", "--network", "host", "-f", &dockerfile, "-t", tag];
        for pair in &pairs {
            args.extend(["--build-arg", pair.as_str()]);
        }
        args.push(&context);
        self.run_ok(&args);
        self.phase("image build", started.elapsed());
    }

    /// `docker run -d --network host` of `image` with the environment
    /// `env`; removed (with its anonymous volumes) when the daemon goes.
    pub fn run_detached(&self, image: &str, env: &[(&str, String)]) -> Container<'_> {
        let name = format!(
            "emoted-test-{}-{}",
            std::process::id(),
            self.containers.borrow().len()
        );
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec!["run", "-d", "--name", &name, "--network", "host"];
        for pair in &pairs {
            args.extend(["-e", pair.as_str()]);
        }
        args.push(image);
        self.containers.borrow_mut().push(name.clone());
        self.run_ok(&args);
        Container { docker: self, name }
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("docker.sock")
    }
}

impl Drop for Docker {
    fn drop(&mut self) {
        for name in self.containers.borrow().iter() {
            let _ = self.output(&["rm", "-f", "-v", name]);
        }
        stop_daemon(&mut self.daemon);
        if thread::panicking() {
            let log = fs::read_to_string(self.dir.join("dockerd.log")).unwrap_or_default();
            eprintln!(
                "--- dockerd log (tail) ---\n{}\n--- phases: {} ---",
                tail(&log, 40),
                self.phases()
            );
        }
        unmount_below(&self.dir);
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A container started by [`Docker::run_detached`]; its log is printed
/// when a test fails while it exists.
pub struct Container<'a> {
    docker: &'a Docker,
    /// Its name.
    pub name: String,
}

impl Container<'_> {
    /// Everything it printed so far (stdout then stderr).
    pub fn log(&self) -> String {
        let output = self.docker.output(&["logs", &self.name]);
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    }

    /// `docker inspect -f FORMAT`.
    pub fn inspect(&self, format: &str) -> String {
        self.docker.run_ok(&["inspect", "-f", format, &self.name])
    }

    /// Waits until emoted answers a status ping on 127.0.0.1:`port`;
    /// panics with the log when it stops first or takes too long.
    pub fn wait_ready(&self, port: u16) {
        let deadline = Instant::now() + SERVER_START_TIMEOUT;
        loop {
            if status_ping(port).is_ok() {
                return;
            }
            assert!(
                self.inspect("{{.State.Running}}") == "true",
                "the container stopped before accepting connections; log:\n{}",
                self.log()
            );
            assert!(
                Instant::now() < deadline,
                "the container did not accept connections on port {port}; log:\n{}",
                self.log()
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    /// `docker stop` (its default 10 s grace): how long it took.
    pub fn stop(&self) -> Duration {
        let started = Instant::now();
        self.docker.run_ok(&["stop", &self.name]);
        started.elapsed()
    }
}

impl Drop for Container<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            eprintln!(
                "--- container {} log ---\n{}--- end of container log ---",
                self.name,
                self.log()
            );
        }
    }
}

/// Copies the folder `from` into `to` (made), recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create a folder");
    for entry in fs::read_dir(from).expect("read a folder") {
        let entry = entry.expect("a folder entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

/// The client of the installed engine (the same version) when there is
/// one, else whatever `docker` the PATH finds.
fn client_binary() -> PathBuf {
    let packaged = PathBuf::from("/usr/bin/docker");
    if packaged.is_file() {
        packaged
    } else {
        PathBuf::from("docker")
    }
}

fn fresh_temp_dir() -> PathBuf {
    let base = std::env::temp_dir();
    for n in 0.. {
        let dir = base.join(format!("emoted-docker-{}-{n}", std::process::id()));
        if fs::create_dir(&dir).is_ok() {
            return dir;
        }
    }
    unreachable!("some name is free")
}

/// Starts dockerd with everything under `dir` and waits until it answers.
fn start_daemon(dir: &Path, driver: &str) -> Result<Child, String> {
    for sub in ["data", "exec", "client"] {
        let path = dir.join(sub);
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).map_err(|e| e.to_string())?;
    }
    // An empty configuration: the host's /etc/docker/daemon.json, if any,
    // must not change this daemon.
    fs::write(dir.join("daemon.json"), "{}").map_err(|e| e.to_string())?;
    let log = fs::File::create(dir.join("dockerd.log")).map_err(|e| e.to_string())?;
    let socket = dir.join("docker.sock");
    let mut daemon = Command::new("dockerd")
        .arg("--config-file")
        .arg(dir.join("daemon.json"))
        .arg("--data-root")
        .arg(dir.join("data"))
        .arg("--exec-root")
        .arg(dir.join("exec"))
        .arg("--pidfile")
        .arg(dir.join("dockerd.pid"))
        .arg("--host")
        .arg(format!("unix://{}", socket.display()))
        .args([
            "--bridge=none",
            "--iptables=false",
            "--ip6tables=false",
            "--ip-forward=false",
        ])
        .arg(format!("--storage-driver={driver}"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run dockerd: {e}"))?;
    let deadline = Instant::now() + DAEMON_START_TIMEOUT;
    let log_tail = || why_in_log(&fs::read_to_string(dir.join("dockerd.log")).unwrap_or_default());
    loop {
        if let Ok(Some(status)) = daemon.try_wait() {
            return Err(format!("dockerd exited ({status}): {}", log_tail()));
        }
        if socket.exists() {
            let answer = Command::new(client_binary())
                .env("DOCKER_HOST", format!("unix://{}", socket.display()))
                .env("DOCKER_CONFIG", dir.join("client"))
                .args(["version", "--format", "{{.Server.Version}}"])
                .stdin(Stdio::null())
                .output();
            if answer.is_ok_and(|o| o.status.success()) {
                return Ok(daemon);
            }
        }
        if Instant::now() > deadline {
            stop_daemon(&mut daemon);
            return Err(format!(
                "no answer within {DAEMON_START_TIMEOUT:?}: {}",
                log_tail()
            ));
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// SIGTERM (dockerd then stops its containerd and unmounts), SIGKILL after
/// 20 s.
fn stop_daemon(daemon: &mut Child) {
    if let Ok(pid) = i32::try_from(daemon.id()) {
        // SAFETY: signalling a child we started and have not reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = daemon.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(50));
    }
    let _ = daemon.kill();
    let _ = daemon.wait();
}

/// Lazily unmounts whatever is still mounted below `dir`, deepest first,
/// so that removing the folder never walks into a mount: dockerd leaves
/// its data-root bind-mounted on itself and a network namespace under its
/// exec-root even when it stops cleanly, and a killed daemon or
/// debootstrap leaves more.
fn unmount_below(dir: &Path) {
    let Ok(mounts) = fs::read_to_string("/proc/self/mounts") else {
        return;
    };
    let prefix = format!("{}/", dir.display());
    let mut points: Vec<&str> = mounts
        .lines()
        .filter_map(|line| line.split(' ').nth(1))
        .filter(|point| point.starts_with(&prefix))
        .collect();
    points.sort_by_key(|point| std::cmp::Reverse(point.len()));
    for point in points {
        let _ = Command::new("umount").args(["-l", point]).status();
    }
}

/// The Debian mirror the host's apt uses (its first `URIs:` or `deb` line
/// naming plain Debian), else deb.debian.org.
fn debian_mirror() -> String {
    let mut files = vec![PathBuf::from("/etc/apt/sources.list")];
    if let Ok(entries) = fs::read_dir("/etc/apt/sources.list.d") {
        let mut more: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        more.sort();
        files.extend(
            more.into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "sources" || e == "list")),
        );
    }
    for file in files {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            let uri = if let Some(rest) = line.strip_prefix("URIs:") {
                rest.split_whitespace().next()
            } else if let Some(rest) = line.strip_prefix("deb ") {
                rest.split_whitespace().find(|w| w.contains("://"))
            } else {
                None
            };
            if let Some(uri) = uri.filter(|u| u.trim_end_matches('/').ends_with("/debian")) {
                return uri.to_owned();
            }
        }
    }
    "http://deb.debian.org/debian".to_owned()
}

/// The daemon's own words on why it stopped, on one line: its fatal and
/// error lines (the last three), else its last three lines.
fn why_in_log(log: &str) -> String {
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("level=fatal") || l.contains("level=error"))
        .collect();
    let lines = if errors.is_empty() {
        log.lines().collect()
    } else {
        errors
    };
    lines[lines.len().saturating_sub(3)..].join(" | ")
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

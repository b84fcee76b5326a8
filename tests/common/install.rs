//! Installing what the tests run, under a lock: the npm test client once per
//! machine (`npm ci`), and Debian tools and packages (`apt-get install`).

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use super::*;

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

// ------------------------------------------------------------- Debian tools

/// Makes sure the program `command` can be run, installing the Debian
/// package `package` with `apt-get install -y` when it cannot (and
/// `apt-get update` first if that install fails). At most once per test
/// process for each command, and under a machine-wide lock so that test
/// binaries running at the same time (from any checkout) do not race apt.
/// Panics with apt's output when the install fails.
pub fn ensure_debian_tool(command: &str, package: &str) {
    let present = || runs(command);
    ensure_debian_packages(command, &present, &[package]);
}

/// Makes sure `present()` holds, installing the Debian `packages` when it
/// does not, as [`ensure_debian_tool`] does for one program. `what` names
/// the thing for the lock-free cache and the panic message.
pub fn ensure_debian_packages(what: &str, present: &dyn Fn() -> bool, packages: &[&str]) {
    static DONE: Mutex<BTreeMap<String, Result<(), String>>> = Mutex::new(BTreeMap::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    let result = done
        .entry(what.to_owned())
        .or_insert_with(|| install_debian_packages(present, packages));
    if let Err(e) = result {
        panic!("could not install {what} (Debian packages {packages:?}): {e}");
    }
}

/// True when `command` exists on the PATH (it is started; its exit status
/// does not matter).
pub fn runs(command: &str) -> bool {
    Command::new(command)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok()
}

fn install_debian_packages(present: &dyn Fn() -> bool, packages: &[&str]) -> Result<(), String> {
    if present() {
        return Ok(());
    }
    let lock_path = std::env::temp_dir().join("emoted-apt-install.lock");
    let _lock = InstallLock::acquire(&lock_path)?;
    if present() {
        return Ok(());
    }
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `apt-get`: {e}"))
    };
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(packages);
    let started = Instant::now();
    let mut output = apt(&install)?;
    if !output.status.success() {
        // A fresh machine has no package lists yet.
        let update = apt(&["update"])?;
        if !update.status.success() {
            return Err(format!(
                "`apt-get update` failed ({}):\n{}",
                update.status,
                String::from_utf8_lossy(&update.stderr)
            ));
        }
        output = apt(&install)?;
    }
    if !output.status.success() || !present() {
        return Err(format!(
            "`apt-get install {}` failed ({}):\n{}\n{}",
            packages.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    eprintln!(
        "installed {} with apt-get in {:.1} s",
        packages.join(" "),
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

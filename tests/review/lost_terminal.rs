//! A terminal that goes away under a review (a closed pseudo-terminal, a killed tmux session) is
//! a quit: the decisions made so far stay, the exit is 130, never a panic.

use super::{larkspur_copy, pending};
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `faithprobe review ARGS` in `dir` on a fresh pseudo-terminal whose master end the test holds
/// (and can close, as a terminal emulator that dies does); the child leads its own session, so
/// the terminal is its controlling one.
fn review_on_own_pty(dir: &Path, args: &[&str]) -> (std::fs::File, Child) {
    // SAFETY: plain libc calls on descriptors this function owns; checked for failure
    let master = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(fd >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        OwnedFd::from_raw_fd(fd)
    };
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: a buffer of the length given
    assert_eq!(
        unsafe { libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()) },
        0
    );
    // SAFETY: ptsname_r wrote a NUL-terminated path
    let slave_path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
        .to_str()
        .unwrap()
        .to_string();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&slave_path)
        .unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("faithprobe"));
    cmd.current_dir(dir)
        .env_remove("CI")
        .env_remove("FAITHPROBE_CONFIG")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb")
        .arg("review")
        .args(args)
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave));
    // SAFETY: only async-signal-safe calls between fork and exec
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop(cmd); // it holds the terminal's other end open
    (std::fs::File::from(master), child)
}

/// Reads the terminal until `text` has been shown (or fails after 30 s).
fn read_until(master: &mut std::fs::File, text: &str) -> String {
    use std::io::Read;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains(text) {
        assert!(
            Instant::now() < deadline,
            "never showed {text:?}: {}",
            String::from_utf8_lossy(&seen)
        );
        let mut fds = libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd
        if unsafe { libc::poll(&mut fds, 1, 200) } > 0 {
            let mut buf = [0u8; 4096];
            match master.read(&mut buf) {
                Ok(n) if n > 0 => seen.extend_from_slice(&buf[..n]),
                _ => panic!("the terminal closed: {}", String::from_utf8_lossy(&seen)),
            }
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// The child's exit code, waiting at most 30 s; a signal death or a hang fails the test.
fn exit_code(child: &mut Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status
                .code()
                .unwrap_or_else(|| panic!("killed by a signal: {status:?}"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the review did not end after its terminal closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_review_whose_terminal_closes_keeps_its_decisions_and_exits_130_never_panics() {
    let (dir, _suite) = larkspur_copy();
    let items = pending(dir.path());
    let (mut master, mut child) = review_on_own_pty(dir.path(), &["larkspur.yaml"]);
    read_until(&mut master, &format!("mutant    {}", items[0].0));
    master.write_all(b"f").unwrap();
    read_until(&mut master, &format!("mutant    {}", items[1].0));
    drop(master); // the terminal goes away mid-walk
    let code = exit_code(&mut child);
    assert_eq!(code, 130, "a lost terminal is a quit (101 is a panic)");
    let side = std::fs::read_to_string(dir.path().join("larkspur.reviews.yaml")).unwrap();
    assert!(
        side.contains(&format!("{}: {{review: fault}}", items[0].0)),
        "{side}"
    );
}

#[test]
fn a_snapshot_review_whose_terminal_closes_keeps_its_decisions_and_exits_130_never_panics() {
    let (dir, suite) = larkspur_copy();
    crate::common::faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--snapshot", "snaps"])
        .assert()
        .success();
    let snap = dir.path().join("snaps/larkspur-help-center.lexical.snap");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replacen("€12 per user per month", "€14 per user per month", 1),
    )
    .unwrap();
    crate::common::faithprobe_in(dir.path())
        .args(["run", "larkspur.yaml", "--snapshot", "snaps", "--check"])
        .assert()
        .code(1);
    let before = std::fs::read_to_string(&snap).unwrap();
    let (mut master, mut child) = review_on_own_pty(dir.path(), &["--snapshots", "snaps"]);
    read_until(&mut master, "change 1 of");
    master.write_all(b"a").unwrap();
    read_until(&mut master, "change 2 of");
    drop(master);
    assert_eq!(exit_code(&mut child), 130, "101 is a panic");
    assert_ne!(
        std::fs::read_to_string(&snap).unwrap(),
        before,
        "the accepted change is kept"
    );
}

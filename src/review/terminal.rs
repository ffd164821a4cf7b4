//! Keys from a terminal: stdin without line buffering or echo while a screen waits for one key,
//! back to normal for a line of text (a reason) and on the way out, whatever the way out.

use std::io::Write;

/// A terminal in single-key mode; dropping it restores the settings it found.
pub struct Terminal {
    saved: libc::termios,
}

/// What reading a key gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    /// Ctrl-C, Ctrl-D or an interrupt (SIGINT, SIGTERM, SIGHUP): quit.
    Quit,
    /// The terminal went away (its window closed, its tmux session was killed): quit, as
    /// interrupted, and print nothing more to it.
    Lost,
}

/// What waiting for a byte gave.
enum Read {
    Byte(u8),
    Interrupted,
    Lost,
}

const STDIN: libc::c_int = 0;

/// True when both stdin and stdout are terminals.
pub fn interactive() -> bool {
    // SAFETY: isatty only reads the descriptors' state
    unsafe { libc::isatty(STDIN) == 1 && libc::isatty(1) == 1 }
}

impl Terminal {
    /// Puts stdin in single-key mode (no line buffering, no echo, Ctrl-C read as a key).
    pub fn open() -> std::io::Result<Terminal> {
        // SAFETY: tcgetattr fills the termios it is given; it is read only after success
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(STDIN, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let t = Terminal { saved };
        t.keys_mode()?;
        Ok(t)
    }

    fn keys_mode(&self) -> std::io::Result<()> {
        let mut raw = self.saved;
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        raw.c_cc[libc::VMIN] = 1;
        raw.c_cc[libc::VTIME] = 0;
        // SAFETY: a valid termios for stdin, copied from the one the terminal gave
        if unsafe { libc::tcsetattr(STDIN, libc::TCSANOW, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    fn restore(&self) {
        // SAFETY: the settings the terminal had when it was opened
        unsafe { libc::tcsetattr(STDIN, libc::TCSANOW, &self.saved) };
    }

    /// Clears the terminal and shows `text`.
    pub fn show(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        // the screen's fields are escaped as it is built; this keeps any other sequence out
        let text = crate::text::escape::printable_keeping_color(text);
        let _ = write!(out, "\x1b[H\x1b[2J{text}");
        let _ = out.flush();
    }

    /// Prints `text` below what is shown.
    pub fn say(&mut self, text: &str) {
        let text = crate::text::escape::printable_keeping_color(text);
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{text}");
        let _ = out.flush();
    }

    /// Waits for a byte from stdin, checking for an interrupt five times a second. A hang-up,
    /// an error or the end of input (a terminal in key mode never ends otherwise) is `Lost`.
    fn byte(&self) -> Read {
        loop {
            if crate::io::interrupt::requested() {
                return Read::Interrupted;
            }
            let mut fds = libc::pollfd {
                fd: STDIN,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd
            let n = unsafe { libc::poll(&mut fds, 1, 200) };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Read::Lost;
            }
            if n == 0 {
                continue;
            }
            if fds.revents & libc::POLLIN == 0 {
                return Read::Lost; // POLLHUP, POLLERR or POLLNVAL without data
            }
            let mut b = [0u8; 1];
            // SAFETY: reads at most one byte into a one-byte buffer
            let got = unsafe { libc::read(STDIN, b.as_mut_ptr().cast(), 1) };
            match got {
                1 => return Read::Byte(b[0]),
                n if n < 0
                    && std::io::Error::last_os_error().kind()
                        == std::io::ErrorKind::Interrupted => {}
                _ => return Read::Lost,
            }
        }
    }

    /// The next key. Escape sequences (arrow keys) are read whole and ignored.
    pub fn key(&mut self) -> Key {
        loop {
            let b = match self.byte() {
                Read::Byte(b) => b,
                Read::Interrupted => return Key::Quit,
                Read::Lost => return Key::Lost,
            };
            match b {
                3 | 4 => return Key::Quit,
                0x1b => {
                    // the rest of an escape sequence arrives at once: drain it
                    let mut fds = libc::pollfd {
                        fd: STDIN,
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd; reads one byte at a time into a one-byte buffer
                    while unsafe { libc::poll(&mut fds, 1, 30) } > 0 {
                        let mut x = [0u8; 1];
                        if unsafe { libc::read(STDIN, x.as_mut_ptr().cast(), 1) } != 1 {
                            break;
                        }
                    }
                }
                b if b.is_ascii() => return Key::Char(b as char),
                _ => {} // a byte of a multi-byte character: no key
            }
        }
    }

    /// A line of text after `prompt`, with the terminal's own editing (backspace, etc.); `None`
    /// when the terminal is lost or at an interrupt.
    pub fn line(&mut self, prompt: &str) -> Option<String> {
        self.say(prompt);
        self.restore();
        let mut bytes = Vec::new();
        let got = loop {
            let Read::Byte(b) = self.byte() else {
                break None;
            };
            if b == b'\n' || b == b'\r' {
                break Some(String::from_utf8_lossy(&bytes).into_owned());
            }
            bytes.push(b);
        };
        let _ = self.keys_mode();
        got
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
    }
}

//! Keys from a terminal, through crossterm: raw mode (no line buffering, no echo, Ctrl-C read as
//! a key) while a screen waits for one key, the terminal's own mode for a line of text (a reason)
//! and on the way out, whatever the way out.
//!
//! crossterm is built with `use-dev-tty`: its default (mio) event source never returns from
//! `poll` once the terminal is gone (it reads end-of-file again and again, crossterm issue 793),
//! so neither an interrupt nor a lost terminal would end the walk. This one returns at its
//! timeout, and [`Terminal`] sees a lost terminal by stdin no longer being one.

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// A terminal in single-key mode; dropping it restores the settings it found.
pub struct Terminal {
    _private: (),
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

/// What waiting for a key event gave.
enum Read {
    Key(KeyEvent),
    Interrupted,
    Lost,
}

/// How often a wait looks for an interrupt: five times a second.
const POLL: Duration = Duration::from_millis(200);

/// True when both stdin and stdout are terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

impl Terminal {
    /// Puts the terminal in single-key mode (no line buffering, no echo, Ctrl-C read as a key).
    pub fn open() -> std::io::Result<Terminal> {
        crossterm::terminal::enable_raw_mode()?;
        Ok(Terminal { _private: () })
    }

    fn restore(&self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }

    /// Clears the terminal and shows `text`.
    pub fn show(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        // the screen's fields are escaped as it is built; this keeps any other sequence out
        let text = crate::text::escape::printable_keeping_color(text);
        let _ = write!(out, "\x1b[H\x1b[2J{}", line_ends(&text));
        let _ = out.flush();
    }

    /// Prints `text` below what is shown.
    pub fn say(&mut self, text: &str) {
        let text = crate::text::escape::printable_keeping_color(text);
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{}", line_ends(&text));
        let _ = out.flush();
    }

    /// Waits for a key event, checking for an interrupt five times a second. A hang-up (stdin no
    /// longer a terminal) or an error reading it is `Lost`; other events (a resize) are skipped.
    fn event(&self) -> Read {
        loop {
            if crate::io::interrupt::requested() {
                return Read::Interrupted;
            }
            if !std::io::stdin().is_terminal() {
                return Read::Lost;
            }
            match event::poll(POLL) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => return Read::Lost,
            }
            match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => return Read::Key(k),
                Ok(_) => {}
                Err(_) => return Read::Lost,
            }
        }
    }

    /// The next key. Arrow and function keys, Escape and characters outside ASCII are no key.
    pub fn key(&mut self) -> Key {
        loop {
            let k = match self.event() {
                Read::Key(k) => k,
                Read::Interrupted => return Key::Quit,
                Read::Lost => return Key::Lost,
            };
            if let Some(key) = key_of(k) {
                return key;
            }
        }
    }

    /// A line of text after `prompt`, with the terminal's own editing (backspace, etc.); `None`
    /// when the terminal is lost or at an interrupt.
    pub fn line(&mut self, prompt: &str) -> Option<String> {
        self.say(prompt);
        self.restore();
        let mut text = String::new();
        let got = loop {
            let Read::Key(k) = self.event() else {
                break None;
            };
            match k.code {
                KeyCode::Enter => break Some(text),
                KeyCode::Tab => text.push('\t'),
                KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
                _ => {}
            }
        };
        let _ = crossterm::terminal::enable_raw_mode();
        got
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The key a key event is, as the byte the terminal sent would read: Ctrl-C and Ctrl-D quit,
/// Enter is `\n`, another control key its control character; None for no key.
fn key_of(k: KeyEvent) -> Option<Key> {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Char('c' | 'd') if ctrl => Some(Key::Quit),
        KeyCode::Char(c) if ctrl && c.is_ascii_alphabetic() => {
            Some(Key::Char(char::from(c.to_ascii_lowercase() as u8 & 0x1f)))
        }
        KeyCode::Char(c) if c.is_ascii() && !ctrl => Some(Key::Char(c)),
        KeyCode::Enter => Some(Key::Char('\n')),
        KeyCode::Tab => Some(Key::Char('\t')),
        KeyCode::Backspace => Some(Key::Char('\x7f')),
        _ => None,
    }
}

/// `text` with every line ending `\r\n`: raw mode leaves out the terminal's own translation.
fn line_ends(text: &str) -> String {
    let mut o = String::with_capacity(text.len() + text.len() / 32);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            o.push('\r');
        }
        o.push(c);
        prev = c;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
        key_of(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn keys_read_as_the_bytes_a_terminal_sends() {
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        assert_eq!(key(KeyCode::Char('f'), none), Some(Key::Char('f')));
        assert_eq!(
            key(KeyCode::Char('F'), KeyModifiers::SHIFT),
            Some(Key::Char('F'))
        );
        assert_eq!(key(KeyCode::Char('c'), ctrl), Some(Key::Quit));
        assert_eq!(key(KeyCode::Char('d'), ctrl), Some(Key::Quit));
        assert_eq!(key(KeyCode::Char('z'), ctrl), Some(Key::Char('\x1a')));
        assert_eq!(key(KeyCode::Enter, none), Some(Key::Char('\n')));
        assert_eq!(key(KeyCode::Char('é'), none), None);
        assert_eq!(key(KeyCode::Up, none), None);
        assert_eq!(key(KeyCode::Esc, none), None);
    }

    #[test]
    fn every_line_ends_with_a_carriage_return_once() {
        assert_eq!(line_ends("a\nb\r\nc\n"), "a\r\nb\r\nc\r\n");
        assert_eq!(line_ends(""), "");
    }
}

//! Running a command with a time limit: a generated program that hangs (or a compiler that
//! does) is killed and reported as such instead of stopping the campaign.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// What a command did: its exit code (`None`: killed by a signal or the time limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
    /// Exit status as a table or report writes it.
    pub fn status(&self) -> String {
        match (self.timed_out, self.code) {
            (true, _) => "timeout".into(),
            (false, Some(c)) => format!("exit {c}"),
            (false, None) => "signal".into(),
        }
    }
}

/// Runs `cmd` for at most `limit`, capturing both streams (read on threads, so a chatty child
/// never blocks on a full pipe).
pub fn run(cmd: &mut Command, limit: Duration) -> Outcome {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Outcome { code: Some(127), timed_out: false, stdout: String::new(), stderr: format!("cannot run {cmd:?}: {e}") },
    };
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let (code, timed_out) = match child.wait_timeout(limit) {
        Ok(Some(status)) => (status.code(), false),
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            (None, true)
        }
    };
    let stdout = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    Outcome { code, timed_out, stdout, stderr }
}

/// A command line as a shell would take it (for the reproducers' scripts).
pub fn shell_line(cmd: &Command) -> String {
    let quote = |s: &str| {
        if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_=./,:+@".contains(c)) {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    let env: Vec<String> = cmd.get_envs().filter_map(|(k, v)| Some(format!("{}={}", k.to_str()?, quote(v?.to_str()?)))).collect();
    let args: Vec<String> = cmd.get_args().map(|a| quote(&a.to_string_lossy())).collect();
    let prog = quote(&cmd.get_program().to_string_lossy());
    [env, vec![prog], args].concat().join(" ")
}

//! The command line itself, walked as clap builds it: every argument of every command says
//! what it is, `--dir` shows where a store is read and nowhere else, and the top-level help
//! names the tool beside this one.

use clap::CommandFactory;

use super::{command, Cli, NO_STORE};

/// Every command of the tree, with its path (`ompadapt evaluate`), built as parsing builds it.
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(path: String, c: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        out.push((path.clone(), c.clone()));
        for sc in c.get_subcommands() {
            walk(format!("{path} {}", sc.get_name()), sc, out);
        }
    }
    let mut root = command();
    root.build();
    let mut out = Vec::new();
    walk("ompadapt".to_owned(), &root, &mut out);
    out
}

#[test]
fn the_command_line_is_well_formed() {
    Cli::command().debug_assert();
    command().debug_assert();
}

/// Each argument (option or positional) that the help lists has a help text, and so has every
/// command: the issue's `export -o` and `evaluate --seed` had none.
#[test]
fn every_argument_of_every_command_has_help() {
    let mut missing = Vec::new();
    let mut seen = 0;
    for (path, c) in commands() {
        // (clap's `help` command and its own sub-commands excepted)
        if c.get_about().is_none() && path != "ompadapt" && !path.starts_with("ompadapt help") {
            missing.push(format!("{path} (the command)"));
        }
        for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
            seen += 1;
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                missing.push(format!("{path} {}", a.get_long().map_or_else(|| a.get_id().to_string(), |l| format!("--{l}"))));
            }
        }
    }
    assert!(missing.is_empty(), "without help: {missing:?}");
    // the walk saw the commands' own options, not only the global ones
    assert!(seen > 60, "{seen} arguments");
    let (_, export) = commands().into_iter().find(|(p, _)| p == "ompadapt export").unwrap();
    assert!(export.get_arguments().any(|a| a.get_short() == Some('o') && a.get_help().is_some()));
}

/// `--dir` is listed by the commands that read or write a store and by none other; after one
/// of those it is refused (before the command it is the top level's and still taken).
#[test]
fn dir_is_offered_where_a_store_is_read() {
    for (path, c) in commands() {
        let name = path.rsplit(' ').next().unwrap();
        let Some(dir) = c.get_arguments().find(|a| a.get_id() == "dir") else {
            // clap's own `help` command takes no arguments at all
            assert!(path.contains(" help"), "{path} has no --dir");
            continue;
        };
        assert_eq!(dir.is_hide_set(), NO_STORE.contains(&name), "{path}: --dir hidden?");
        if !dir.is_hide_set() {
            assert!(dir.get_help().unwrap().to_string().contains("store"), "{path}");
        }
    }
    let e = match command().try_get_matches_from(["ompadapt", "trace", "--dir", "/tmp/s", "t.json"]) {
        Ok(_) => panic!("trace --dir is refused"),
        Err(e) => e,
    };
    assert!(e.to_string().contains("`trace` reads no store"), "{e}");
    let m = command().try_get_matches_from(["ompadapt", "--dir", "/tmp/s", "list"]).unwrap();
    assert_eq!(m.get_one::<std::path::PathBuf>("dir").unwrap(), std::path::Path::new("/tmp/s"));
    let m = command().try_get_matches_from(["ompadapt", "list", "--dir", "/tmp/s"]).unwrap();
    assert_eq!(m.get_one::<std::path::PathBuf>("dir").unwrap(), std::path::Path::new("/tmp/s"));
}

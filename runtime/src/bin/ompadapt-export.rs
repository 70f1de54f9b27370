//! `ompadapt-export [DIR] [PROGRAM [REGION]]`: prints what ompadapt saved under DIR (default
//! `$OMPADAPT_DIR`, else `./.ompadapt`) as one JSON document: per program and region the
//! merged data of every file (`merged.json` and the per-process parts), in the format of a
//! data file (see the `persist` module), with `merged_parts` listing the files it read.
//! Reads only: takes the shared lock, moves and writes nothing; damaged files are skipped with
//! one line on stderr.

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("usage: ompadapt-export [DIR] [PROGRAM [REGION]]\n\nPrints the data ompadapt saved under DIR (default $OMPADAPT_DIR or ./.ompadapt) as JSON.");
        return;
    }
    let root = args
        .first()
        .map(PathBuf::from)
        .or_else(|| ompadapt_rt::env::var("OMPADAPT_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(".ompadapt"));
    if !root.is_dir() {
        eprintln!("ompadapt-export: {} is not a directory", root.display());
        std::process::exit(2);
    }
    let regions = ompadapt_rt::persist::export(&root, args.get(1).map(String::as_str), args.get(2).map(String::as_str));
    let doc = serde_json::json!({
        "format": "ompadapt-export",
        "version": 1,
        "root": root.display().to_string(),
        "regions": regions,
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("serialisable"));
}

#!/usr/bin/env python3
"""Extract a subtree of a (possibly partial) bare git repository into a directory.

Unlike `git archive | tar -x`, blobs that the mirror lacks (large files kept out of a
snapshot) are skipped and listed on stderr instead of aborting the whole extraction.

usage: git-extract.py GIT_DIR REV DEST PATH...
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    git_dir, rev, dest, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    tree = subprocess.run(
        ["git", "-C", git_dir, "ls-tree", "-r", "-z", rev, "--", *paths],
        check=True, capture_output=True).stdout
    entries = []
    for rec in tree.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob":
            continue  # submodules
        entries.append((mode.decode(), sha.decode(), os.fsdecode(path)))
    proc = subprocess.Popen(["git", "-C", git_dir, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = 0
    for mode, sha, path in entries:
        proc.stdin.write((sha + "\n").encode())
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            print(f"git-extract: missing blob, skipped: {path}", file=sys.stderr)
            missing += 1
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # trailing newline
        out = os.path.join(dest, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.lexists(out):
            os.remove(out)
        if mode == "120000":
            os.symlink(os.fsdecode(data), out)
            continue
        with open(out, "wb") as f:
            f.write(data)
        if mode == "100755":
            os.chmod(out, 0o755)
    proc.stdin.close()
    proc.wait()
    print(f"git-extract: {len(entries) - missing} files, {missing} missing", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

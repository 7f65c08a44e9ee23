"""What scripts/hamexam-to-jsonl.py and scripts/fccexam-to-jsonl.py share: a Debian package that
keeps one file per exam question under /usr/share/<package>/, found (downloaded with apt-get,
or a given .deb, or an unpacked directory) and each pool written as a JSON Lines bank."""

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path


def arguments(description: str, package: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--deb", type=Path, help=f"a downloaded {package} .deb")
    source.add_argument("--pool-dir", type=Path, help=f"an unpacked /usr/share/{package} directory")
    parser.add_argument("--output-dir", type=Path, default=Path("Tests/LecternCoreTests/Fixtures/banks"), help="where to write the banks")
    return parser.parse_args()


def pool_dir(package: str, args: argparse.Namespace, temporary: Path) -> Path:
    """The unpacked /usr/share/<package>: the one given, or the .deb given or downloaded, unpacked into `temporary`."""
    if args.pool_dir is not None:
        return args.pool_dir
    deb = args.deb
    if deb is None:
        subprocess.run(["apt-get", "download", package], cwd=temporary, check=True, stdout=subprocess.DEVNULL)
        debs = sorted(temporary.glob(f"{package}_*.deb"))
        if not debs:
            sys.exit(f"apt-get download {package} wrote no package; run 'apt-get update' first")
        deb = debs[-1]
    print(f"package: {deb.name}, sha256 {hashlib.sha256(deb.read_bytes()).hexdigest()}", file=sys.stderr)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(temporary / "root")], check=True)
    return temporary / "root" / "usr/share" / package


def write_bank(target: Path, items: list) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
    print(f"{target}: {len(items)} questions", file=sys.stderr)

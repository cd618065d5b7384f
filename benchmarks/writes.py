"""What writing safely costs: the manifest, its check and the lock, on the sample's site.

Renders the sample's site once, then replaces an earlier build of it in one folder ``--repeats``
times with today's :func:`ragreport.output.site.render.write_site` (lock, leftovers, the check of the
earlier build's manifest, the new manifest, the exchange) and with the writer before issue 14
(marker present, mkdtemp, write, two renames), and prints the median of each. With ``--before
FOLDER`` (a checkout of the earlier version), it also times the whole ``ragreport build`` of the
sample, each in a fresh process, with both versions.

    python benchmarks/writes.py --repeats 21 --folder /tmp/ragreport-writes-bench [--before /tmp/old]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragreport.output.site.writing import SITE_LEGACY  # noqa: E402


def write_before(files: dict[str, bytes], out: Path) -> None:
    """The writer before issue 14: replaced when the marker is a file, two renames, no lock."""
    if out.exists() and not ((out / ".ragreport-site").is_file() or not any(out.iterdir())):
        raise SystemExit(f"{out} is not a build")
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    files = {**files, ".ragreport-site": SITE_LEGACY.encode("utf-8")}  # its marker: one fixed sentence
    for relative, data in sorted(files.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for folder in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    if out.exists():
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.rename(out, retired / "site")
        os.rename(staging, out)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        os.rename(staging, out)


def _median_ms(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _command(pythonpath: Path, out: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(pythonpath), SOURCE_DATE_EPOCH="1764547200")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ragreport", "build", "--out", str(out), "--quiet"], env=env, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "ragreport-writes-bench")
    parser.add_argument("--before", type=Path, help="a checkout of the version to compare the whole build with")
    args = parser.parse_args()
    from ragreport.api import analyse, evaluate
    from ragreport.output.exports.reportjson.write import report_document
    from ragreport.output.site.render import prepare, render_site, write_site
    from ragreport.output.site.view.build import build_view

    analysis = analyse(evaluate())
    files = render_site(prepare(build_view(analysis), report_document(analysis)))
    size = sum(len(data) for data in files.values())
    shutil.rmtree(args.folder, ignore_errors=True)
    args.folder.mkdir(parents=True)
    now_out, before_out = args.folder / "now", args.folder / "before"
    write_site(files, now_out)
    write_before(files, before_out)
    now = _median_ms(lambda: write_site(files, now_out), args.repeats)
    before = _median_ms(lambda: write_before(files, before_out), args.repeats)
    print(f"the sample's site: {len(files)} files, {size / 1e6:.2f} MB; median of {args.repeats} replacements")
    print(f"  write before issue 14: {before:7.1f} ms")
    print(f"  write now:             {now:7.1f} ms  (+{now - before:.1f} ms)")
    if args.before is not None:
        runs = max(5, args.repeats // 4)
        whole_now = statistics.median(_command(ROOT, args.folder / "cli-now") for _ in range(runs))
        whole_before = statistics.median(_command(args.before, args.folder / "cli-before") for _ in range(runs))
        print(
            f"  `ragreport build` of the sample, median of {runs} processes: {whole_before:.2f} s before, "
            f"{whole_now:.2f} s now"
        )


if __name__ == "__main__":
    main()

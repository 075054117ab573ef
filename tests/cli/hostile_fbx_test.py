#!/usr/bin/env python3
"""Issue 39's hostile FBX files through the command line, each made here from
assimp-testmodels' huesitos.fbx by changing a few fields
(scripts/hostile_corpus/fbx.py): curves without keys, a 10,000-bone parent
chain, 70,000 sibling bones and a curve of 1,000,000 keys. None may kill
`keystream`, none may take more than 64 times its size plus 64 MB at its peak
(the RSS of keystream and its reader process, from wait4), each refusal names
the file and the limit it broke, and the file of empty curves imports with a
warning naming what they animate.

  hostile_fbx_test.py KEYSTREAM MODELS_DIR WORK_DIR [--sanitized]

--sanitized (an ASan build): peaks are taken above the RSS of `keystream
--help`, the sanitizer's own floor, since ASan adds its runtime and shadow.

The files are made by a second process: a child's peak RSS includes that of
the process that started it (Python forks before it execs), so this one
stays small.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from hostile_corpus import fbx  # noqa: E402

MB = 1 << 20
TIMEOUT_S = 300

# (file, expected exit status, text the output must hold)
CASES = [
    ("zero_key_curves.fbx", 0, "FBX animation curves have no keys ("),
    ("chain_10000.fbx", 1, "nested more than 1024 deep"),
    ("siblings_70000.fbx", 1, "models (nodes); at most 16384"),
    ("curve_1000000_keys.fbx", 1, "an FBX animation curve has 1000000 keys"),
]


def generate(source, work):
    data = source.read_bytes()
    made = {"zero_key_curves.fbx": lambda: fbx.zero_key_curves(data),
            "chain_10000.fbx": lambda: fbx.parent_chain(data, 10000),
            "siblings_70000.fbx": lambda: fbx.siblings(data, 70000),
            "curve_1000000_keys.fbx": lambda: fbx.long_curve(data, 1000000)}
    for name, make in made.items():
        (work / name).write_bytes(make())


def run(argv):
    """(exit status or -signal, stdout+stderr, peak RSS bytes, seconds) of one run."""
    start = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = bytearray()
    deadline = start + TIMEOUT_S
    os.set_blocking(process.stdout.fileno(), False)
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        chunk = process.stdout.read()
        if chunk:
            output += chunk
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            os.wait4(process.pid, 0)
            raise AssertionError(f"{' '.join(argv)} still running after {TIMEOUT_S} s (killed)")
        time.sleep(0.02)
    rest = process.stdout.read()
    if rest:
        output += rest
    process.returncode = 0  # reaped by wait4: keeps Popen from waiting again
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return code, output.decode("utf-8", "replace"), usage.ru_maxrss * 1024, time.monotonic() - start


def main():
    if sys.argv[1] == "--generate":
        generate(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    keystream, models, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    sanitized = "--sanitized" in sys.argv[4:]
    source = models / "FBX" / "huesitos.fbx"
    if not source.exists():
        print(f"SKIP: {source} is missing (scripts/setup installs assimp-testmodels)")
        return 0
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    subprocess.run([sys.executable, __file__, "--generate", str(source), str(work)], check=True)

    floor = run([keystream, "--help"])[2] if sanitized else 0
    failures = []
    for name, expected, text in CASES:
        path = work / name
        size = path.stat().st_size
        code, output, peak, seconds = run([keystream, "inspect", str(path)])
        limit = 64 * size + 64 * MB
        print(f"{name}: {size / MB:.1f} MB, exit {code}, peak {peak / MB:.0f} MB "
              f"(limit {limit / MB:.0f} MB), {seconds:.2f} s")
        if code < 0:
            failures.append(f"{name}: killed by {signal.Signals(-code).name}:\n{output[-2000:]}")
            continue
        if code != expected:
            failures.append(f"{name}: exit {code}, expected {expected}:\n{output[-2000:]}")
        if text not in output:
            failures.append(f"{name}: the output does not hold '{text}':\n{output[-2000:]}")
        if code != 0 and str(path) not in output:
            failures.append(f"{name}: the refusal does not name the file:\n{output[-2000:]}")
        if peak - floor > limit:
            failures.append(f"{name}: peak {peak / MB:.0f} MB (above a floor of {floor / MB:.0f} MB) is over "
                            f"64 x {size / MB:.1f} MB + 64 MB")
        if any(ord(c) < 0x20 and c not in "\n\t" for c in output):
            failures.append(f"{name}: raw control bytes in the output")
    if failures:
        print("\n".join(["FAIL: " + f for f in failures]), file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

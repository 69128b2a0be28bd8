"""tools/bench-deps against stand-ins for dpkg-query, apt-get, sudo, id and systemctl on
PATH: installing lttng-tools (which on Debian enables and starts the system service
lttng-sessiond) is said before apt-get runs, and the service the install started is
stopped and disabled after; with lttng-tools already installed, its service is left
alone. Usage: check_bench_deps.py TOOLS/bench-deps"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

STUBS = {
    # dpkg-query -W -f=... PKG: installed if PKG is named in $STATE/installed.
    "dpkg-query": 'grep -qx "${@: -1}" "$STATE/installed" 2>/dev/null && '
                  'printf "install ok installed"; exit 0',
    "id": 'echo 1000',
    "sudo": 'echo "sudo $*" >> "$STATE/log"; exec "$@"',
    # Installing lttng-tools starts its service, as Debian's postinst does.
    "apt-get": 'echo "apt-get $*" >> "$STATE/log"; '
               'case "$*" in *lttng-tools*) touch "$STATE/active";; esac',
    "systemctl": 'echo "systemctl $*" >> "$STATE/log"; '
                 'case "$1" in is-active) test -e "$STATE/active";; '
                 'stop) rm -f "$STATE/active";; esac',
}


def run(script, installed):
    with tempfile.TemporaryDirectory() as tmp:
        state, bin_dir = Path(tmp, "state"), Path(tmp, "bin")
        state.mkdir()
        bin_dir.mkdir()
        (state / "installed").write_text("".join(p + "\n" for p in installed))
        for name, body in STUBS.items():
            stub = bin_dir / name
            stub.write_text("#!/usr/bin/env bash\n" + body + "\n")
            stub.chmod(0o755)
        env = dict(os.environ, STATE=str(state), PATH=f"{bin_dir}:{os.environ['PATH']}")
        done = subprocess.run([script], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        log = (state / "log").read_text() if (state / "log").exists() else ""
        return done.stdout, log, (state / "active").exists()


def main():
    script = sys.argv[1]

    out, log, active = run(script, ["liblttng-ust-dev"])
    said = out.find("enables and starts the system service lttng-sessiond")
    assert said >= 0, out
    assert said < out.find("stopped and disabled the service lttng-sessiond"), out
    assert "apt-get install -y -q --no-install-recommends lttng-tools" in log, log
    assert log.index("apt-get install") < log.index("systemctl stop lttng-sessiond"), log
    assert "systemctl disable --quiet lttng-sessiond" in log, log
    assert not active, log

    # Only liblttng-ust-dev missing: lttng-tools' service is someone else's.
    out, log, _ = run(script, ["lttng-tools"])
    assert "lttng-sessiond" not in out and "systemctl" not in log, (out, log)
    assert "apt-get install -y -q --no-install-recommends liblttng-ust-dev" in log, log

    out, log, _ = run(script, ["liblttng-ust-dev", "lttng-tools"])
    assert out == "" and log == "", (out, log)
    print("check_bench_deps: ok")


if __name__ == "__main__":
    main()

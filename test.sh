#!/usr/bin/env bash
# The project's tests, as one command on a fresh machine with Rust (cargo) and Python 3 (with
# its venv module): the Rust suite, then the Python package built into a virtual environment
# under target/ and its pytest suite. Installs what it needs (pinned: Cargo.lock and
# crates/packetsim-py/requirements-test.txt) and stops at the first failure.
#
#   ./test.sh              everything
#   PACKETSIM_NO_INSTALL=1 ./test.sh   without installing tshark/fonts/chromium (see below)
#   PYTHON=python3.12 ./test.sh   another interpreter for the virtual environment
set -euo pipefail
cd "$(dirname "$0")"

# Tools some tests use when present, installed from Debian's packages if and only if that
# needs no password (root, or sudo -n): tshark (the pcap test), a TrueType font (plot and
# report figures), chromium (the HTML report check). Without them those tests print SKIPPED
# and pass; nothing here can fail the run. PACKETSIM_NO_INSTALL=1 skips this step.
optional_tools() {
  local want=() sudo=""
  command -v tshark > /dev/null || want+=(tshark)
  [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || want+=(fonts-dejavu-core)
  command -v chromium > /dev/null || want+=(chromium)
  [ "${#want[@]}" -gt 0 ] || return 0
  if ! command -v apt-get > /dev/null; then
    echo "test.sh: no apt-get: not installing ${want[*]}; their tests will say SKIPPED" >&2
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2> /dev/null; then sudo="sudo -n"; else
      echo "test.sh: installing ${want[*]} would need a password: not installing; their tests will say SKIPPED" >&2
      return 0
    fi
  fi
  echo "test.sh: installing ${want[*]} (apt-get, at most 7 minutes)" >&2
  if ! { timeout 120 $sudo apt-get update -q > /dev/null &&
         DEBIAN_FRONTEND=noninteractive timeout 300 $sudo apt-get install -y -q \
           --no-install-recommends "${want[@]}" > /dev/null; }; then
    echo "test.sh: apt-get could not install ${want[*]}; their tests will say SKIPPED" >&2
  fi
  return 0
}
[ "${PACKETSIM_NO_INSTALL:-0}" = 1 ] || optional_tools || true

cargo test --workspace --release

# Fixed-seed outputs of every scenario and `reproduce all --quick` against the stored data
# (bench/golden/data/, report prose excluded; about 30 s on 2 cores; bench/golden.sh says how).
bench/golden.sh

py=${PYTHON:-python3}
venv=target/py-venv
req=crates/packetsim-py/requirements-test.txt
stamp=$venv/requirements.sha256
# (Re)create the environment when it is missing or the pins changed.
if ! { [ -x "$venv/bin/python" ] && sha256sum --status -c "$stamp" 2>/dev/null; }; then
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req"
  sha256sum "$req" > "$stamp"
fi

rm -rf target/wheels
"$venv/bin/maturin" build --release -q -m crates/packetsim-py/Cargo.toml -o target/wheels
wheels=(target/wheels/packetsim-*.whl)
[ "${#wheels[@]}" = 1 ] || { echo "test.sh: expected one wheel, got: ${wheels[*]}" >&2; exit 1; }
"$venv/bin/python" -m pip install --disable-pip-version-check -q --force-reinstall --no-deps "${wheels[0]}"
# Run from the tests' folder so that `import packetsim` is the installed wheel.
cd crates/packetsim-py/tests
"../../../$venv/bin/python" -m pytest -q -p no:cacheprovider
# Type check (issue 37): the installed package's hints and stubs, and the docs' example as a
# user would write it, with mypy --strict (pinned in requirements-test.txt).
# (Two calls: mypy takes either a package or files.)
"../../../$venv/bin/python" -m mypy --strict --cache-dir=/dev/null -p packetsim
"../../../$venv/bin/python" -m mypy --strict --cache-dir=/dev/null ../../../docs/python_example.py

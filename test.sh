#!/usr/bin/env bash
# The project's tests, as one command on a fresh machine with Rust (cargo) and Python 3 (with
# its venv module): the Rust suite, then the Python package built into a virtual environment
# under target/ and its pytest suite. Installs what it needs (pinned: Cargo.lock and
# crates/packetsim-py/requirements-test.txt) and stops at the first failure.
#
#   ./test.sh              everything
#   PYTHON=python3.12 ./test.sh   another interpreter for the virtual environment
set -euo pipefail
cd "$(dirname "$0")"

cargo test --workspace --release

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

"""Fixtures for the amprt Python package tests: the demo models and the C++ tools to compare
with. Run through tests/python/run_pytest.sh, which sets AMPRUN and AMP_MAKE_DEMO."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("AMP_SHARED_DIR") or ROOT.parent / "shared")


@pytest.fixture(scope="session")
def amprun():
    path = os.environ.get("AMPRUN")
    if not path:
        pytest.skip("AMPRUN not set (run through tests/python/run_pytest.sh)")
    return path


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    maker = os.environ.get("AMP_MAKE_DEMO")
    if not maker:
        pytest.skip("AMP_MAKE_DEMO not set (run through tests/python/run_pytest.sh)")
    out = tmp_path_factory.mktemp("demo")
    subprocess.run([maker, str(out)], check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="session")
def shared():
    if not (SHARED / "models").is_dir():
        pytest.skip(f"{SHARED} is absent (the shared test data; set AMP_SHARED_DIR)")
    return SHARED

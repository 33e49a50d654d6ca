"""Shared fixtures of the end-to-end tests: the binary under test and a headless Chromium.

Keep this file minimal; fixtures that serve one test file belong in that file.
"""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def binary():
    """The opsweep binary: $OPSWEEP_BINARY, default build/tests/opsweep in the repository."""
    path = pathlib.Path(os.environ.get("OPSWEEP_BINARY", REPO / "build" / "tests" / "opsweep"))
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(f"no opsweep binary at {path}: build it, or point OPSWEEP_BINARY at one", pytrace=False)
    return path


@pytest.fixture(scope="session")
def python_with_torch():
    """The interpreter for tests that run a real worker (real torch): this one, when it has torch."""
    import subprocess
    import sys

    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this test runs a real worker: it needs torch")
    return sys.executable


@pytest.fixture(scope="session")
def browser():
    """The system's headless Chromium driven by selenium (never selenium-manager downloads), with
    every host name unresolvable, so that no external request can succeed, and the performance
    (network) log on."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = os.environ.get("OPSWEEP_CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1360,1000", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--force-color-profile=srgb", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    service = Service(os.environ.get("OPSWEEP_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    yield driver
    driver.quit()

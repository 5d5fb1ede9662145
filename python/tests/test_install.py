"""`cmake --install` puts the Python package where Debian's python3 imports it from: under
/usr (the .deb's prefix) in lib/python3/dist-packages, under /usr/local in
lib/python3.X/dist-packages (Debian's python3 does not look in /usr/local/lib/python3/...).
Installs the build tree (STRADS_BUILD_DIR, set by CTest) into a DESTDIR."""
import os
import subprocess
import sys
import sysconfig

import pytest

BUILD_DIR = os.environ.get("STRADS_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                            "build"))
CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")
VERSION = sysconfig.get_python_version()  # e.g. "3.11"


def install(prefix, destdir):
    done = subprocess.run([CMAKE, "--install", BUILD_DIR, "--prefix", prefix],
                          env=dict(os.environ, DESTDIR=str(destdir)), capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("prefix, package_dir", [
    ("/usr", "/usr/lib/python3/dist-packages"),
    ("/usr/local", f"/usr/local/lib/python{VERSION}/dist-packages"),
])
def test_package_lands_on_debian_pythons_path(tmp_path, prefix, package_dir):
    out = install(prefix, tmp_path)
    assert f"strads Python package: {package_dir}" in out
    installed = tmp_path / package_dir.lstrip("/") / "strads"
    assert (installed / "__init__.py").exists()
    assert any(p.name.startswith("_core") for p in installed.iterdir())
    if sys.executable == "/usr/bin/python3":  # Debian's: it imports from there once installed
        assert package_dir in sys.path
    # From tmp_path: the current directory comes first on the path (CTest's is build/python).
    imported = subprocess.run([sys.executable, "-s", "-c", "import strads; print(strads.__file__)"],
                              env=dict(os.environ, PYTHONPATH=str(installed.parent)), cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, check=False)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == str(installed / "__init__.py")

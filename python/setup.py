"""Builds the blockscope Python package. Its widgets need Blockscope's built web files (the widgets bundle, worker,
wasm, presets, models), which are not in this directory: they are copied into the package, as blockscope/web/, from
../web/ — the repository's after `npm run build`, or the npm package's, which ships them next to python/. The list of
files is blockscope/_files.py's. Everything else is in pyproject.toml."""

import json
import os
import runpy
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.join(os.path.dirname(HERE), "web")
FILES = runpy.run_path(os.path.join(HERE, "blockscope", "_files.py"))


class BuildPyWithWeb(build_py):
    """build_py, then the built web files copied into the package (blockscope/web/)."""

    def run(self):
        super().run()
        missing = FILES["missing_required"](WEB)
        if missing:
            raise SystemExit(
                f"blockscope: the built web files are missing from {WEB} ({', '.join(missing)}). Run `npm run build` "
                "in the repository first (or install from the npm package's python/ directory).")
        target = os.path.join(self.build_lib, "blockscope", "web")
        for group in FILES["GROUPS"]:
            for path in FILES["files_of"](WEB, group):
                dest = os.path.join(target, *path.split("/"))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copyfile(os.path.join(WEB, *path.split("/")), dest)


with open(os.path.join(HERE, "blockscope", "attributes.json"), encoding="utf-8") as f:
    VERSION = json.load(f)["version"]

setup(version=VERSION, cmdclass={"build_py": BuildPyWithWeb})

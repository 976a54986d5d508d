import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "fast"))
from _ffibuild import LIMITED_API, OptionalBuildExt, rows_extension  # noqa: E402


class BuildPyWithTutorials(build_py):
    """Also ship the tutorials (MyST sources and the stored files they read) inside the
    package, as ``reference/_tutorials``, for ``driftwood tutorial get`` (offline); and
    leave the build script ``fast/_ffibuild.py`` out of the built package: it builds the
    wheel but reads ``csrc/``, which only the sdist and a clone hold, so installed it could
    not even be imported (the sdist keeps it)."""

    def run(self) -> None:
        super().run()
        (Path(self.build_lib) / "fast" / "_ffibuild.py").unlink(missing_ok=True)
        source = ROOT / "tutorials"
        target = Path(self.build_lib) / "reference" / "_tutorials"
        if target.exists():
            shutil.rmtree(target)
        for path in sorted(source.rglob("*")):
            if path.is_file() and path.suffix in (".md", ".py", ".json") and not any(
                    part.startswith((".", "__")) for part in path.relative_to(source).parts):
                destination = target / path.relative_to(source)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination)


# OptionalBuildExt: a failed C build warns once and installs the pure-Python backend
# (DRIFTWOOD_REQUIRE_C=1 makes it an error); cffi's hook for cffi_modules wraps it
# LIMITED_API (Python >= 3.11): both extensions on the limited API, one cp311-abi3 wheel
options = {"bdist_wheel": {"py_limited_api": "cp311"}} if LIMITED_API else {}
setup(cffi_modules=["fast/_ffibuild.py:ffibuilder"], ext_modules=[rows_extension()],
      cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithTutorials},
      options=options)

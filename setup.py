import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "fast"))
from _ffibuild import OptionalBuildExt, rows_extension  # noqa: E402

# OptionalBuildExt: a failed C build warns once and installs the pure-Python backend
# (DRIFTWOOD_REQUIRE_C=1 makes it an error); cffi's hook for cffi_modules wraps it
setup(cffi_modules=["fast/_ffibuild.py:ffibuilder"], ext_modules=[rows_extension()],
      cmdclass={"build_ext": OptionalBuildExt})

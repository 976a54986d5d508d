import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "fast"))
from _ffibuild import LIMITED_API, OptionalBuildExt, rows_extension  # noqa: E402

# OptionalBuildExt: a failed C build warns once and installs the pure-Python backend
# (DRIFTWOOD_REQUIRE_C=1 makes it an error); cffi's hook for cffi_modules wraps it
# LIMITED_API (Python >= 3.11): both extensions on the limited API, one cp311-abi3 wheel
options = {"bdist_wheel": {"py_limited_api": "cp311"}} if LIMITED_API else {}
setup(cffi_modules=["fast/_ffibuild.py:ffibuilder"], ext_modules=[rows_extension()],
      cmdclass={"build_ext": OptionalBuildExt}, options=options)

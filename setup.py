import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "fast"))
from _ffibuild import rows_extension  # noqa: E402

setup(cffi_modules=["fast/_ffibuild.py:ffibuilder"], ext_modules=[rows_extension()])

from setuptools import setup

setup(cffi_modules=["fast/_ffibuild.py:ffibuilder"])

"""The one constructor/destructor/error convention of the C library (``csrc/common/common.h``).

Every family's handle is made by ``int32_t X_new(..., X **out)`` (a status code; ``*out``
is the handle on ``ST_OK`` and NULL otherwise) and released by ``void X_free(X *)``,
which accepts NULL; ``st_message`` names every status code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

CSRC = Path(__file__).resolve().parents[2] / "csrc"
HANDLES = ("dt_model", "sgt_model", "ab_model")


def _prototypes() -> str:
    return "\n".join(p.read_text() for p in sorted(CSRC.rglob("*.h")))


@pytest.mark.parametrize("handle", HANDLES)
def test_headers_declare_the_convention(handle: str) -> None:
    text = re.sub(r"\s+", " ", _prototypes())
    new = re.search(rf"(\w+) {handle}_new\(([^)]*)\);", text)
    assert new is not None and new.group(1) == "int32_t", f"{handle}_new returns a status"
    assert new.group(2).strip().endswith(f"{handle} **out"), f"{handle}_new ends with **out"
    assert re.search(rf"\bvoid {handle}_free\({handle} \*\w+\);", text)


@pytest.fixture(scope="module")
def c() -> Any:
    pytest.importorskip("fast")
    from fast._ffi import ffi, lib

    return ffi, lib


def test_status_messages_are_distinct(c: Any) -> None:
    ffi, lib = c
    codes = [lib.ST_OK, lib.ST_EINVAL, lib.ST_ENOMEM, lib.ST_EDIM, lib.ST_ESTATE, lib.ST_ERANGE]
    words = [ffi.string(lib.st_message(code)).decode() for code in codes]
    assert len(set(words)) == len(codes) and "unknown status" not in words
    assert ffi.string(lib.st_message(99)).decode() == "unknown status"


def test_invalid_arguments_give_einval_and_no_handle(c: Any) -> None:
    ffi, lib = c
    out = ffi.new("dt_model **")
    assert lib.dt_model_new(0, 0, 0, 1, 0, 0.0, 0.0, 0, 1, 1, 4, 0.95, 2.0, 1, out) == \
        lib.ST_EINVAL                                           # d = 0
    assert out[0] == ffi.NULL
    out = ffi.new("ab_model **")
    assert lib.ab_model_new(0, 0, 0, 2.0, 2.0, 1.0, 0, 0, 256, 1, 1, out) == lib.ST_EINVAL
    assert out[0] == ffi.NULL                                   # leaf_size 1
    p = ffi.new("sgt_params *", {"bins": 1, "grace_period": 1, "warmup": 1})
    out = ffi.new("sgt_model **")
    assert lib.sgt_model_new(p, 1, ffi.new("int32_t[]", [0]), ffi.new("double[]", 1),
                             ffi.new("double[]", 1), ffi.new("uint8_t[]", 1), 0, 1, out) == \
        lib.ST_EINVAL                                           # bins 1
    assert out[0] == ffi.NULL


def test_free_accepts_null(c: Any) -> None:
    ffi, lib = c
    lib.dt_model_free(ffi.NULL)
    lib.sgt_model_free(ffi.NULL)
    lib.ab_model_free(ffi.NULL)

"""The lockstep harness itself: it must catch every kind of divergence it claims to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from _compare import Mismatch, assert_snapshot_equal, first_difference, run_lockstep, ulps


def test_ulps() -> None:
    assert ulps(1.0, 1.0) == 0
    assert ulps(1.0, 1.0 + 2.0**-52) == 1
    assert ulps(-0.0, 0.0) == 0
    assert ulps(5e-324, -5e-324) == 2
    assert ulps(float("nan"), 1.0) == float("inf")


def test_first_difference_reports_path_and_ulps() -> None:
    a = {"rng_state": [1, 2, 3, 4], "leaves": [{"mean": 1.0, "n": 3}]}
    b = {"rng_state": [1, 2, 3, 4], "leaves": [{"mean": 1.0000000000000002, "n": 3}]}
    assert first_difference(a, b) == "leaves[0].mean: 1.0 vs 1.0000000000000002, 1 ulps"
    assert first_difference(a, a) is None


@pytest.mark.parametrize(
    ("a", "b", "fragment"),
    [
        ({"x": 1}, {"y": 1}, "keys differ"),
        ([1, 2], [1, 2, 3], "lengths differ"),
        ([1], [1.0], "types int/float"),
        (0.0, -0.0, "0.0 vs -0.0"),
        ([True], [1], "True vs 1"),
        ("a", "b", "'a' vs 'b'"),
    ],
)
def test_mismatch_kinds(a: Any, b: Any, fragment: str) -> None:
    with pytest.raises(Mismatch, match="step 7") as info:
        assert_snapshot_equal(a, b, step=7)
    assert fragment in str(info.value)


def test_nan_equals_nan_and_numpy_is_plain() -> None:
    import numpy as np

    assert_snapshot_equal([float("nan")], [float("nan")])
    assert_snapshot_equal(np.array([1.0, 2.0]), [1.0, 2.0])
    assert_snapshot_equal((1, 2), [1, 2])


class Counter:
    """A toy model whose fast twin can be made to drift at a chosen step."""

    def __init__(self, drift_at: int | None = None) -> None:
        self.total, self.n, self.drift_at = 0.0, 0, drift_at

    def predict_one(self, x: list[float]) -> float:
        return self.total / self.n if self.n else 0.0

    def learn_one(self, x: list[float], y: float) -> None:
        self.total += y
        if self.drift_at is not None and self.n == self.drift_at:
            self.total += 2.0**-40
        self.n += 1

    def snapshot(self) -> dict[str, Any]:
        return {"n": self.n, "total": self.total}


def test_run_lockstep_agrees_and_counts_steps() -> None:
    stream = [([float(i)], float(i % 5)) for i in range(50)]
    assert run_lockstep(Counter(), Counter(), stream) == 50


def test_run_lockstep_names_first_divergent_step() -> None:
    stream = [([float(i)], float(i % 5)) for i in range(50)]
    with pytest.raises(Mismatch, match=r"step 12: total: .* ulps"):
        run_lockstep(Counter(), Counter(drift_at=12), stream)


def test_missing_fast_build_fails_under_ci(tmp_path: Path) -> None:
    """With CI=true, conftest refuses to run when fast._lib cannot be imported."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\nsys.modules['fast._lib'] = None\n")
    code = "import conftest"
    tests_dir = Path(__file__).resolve().parents[1]   # holds conftest.py
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(tests_dir)]))
    env.pop("DRIFTWOOD_TEST_INSTALLED", None)  # CI's wheel job sets it: it requires fast too
    for flag, should_fail in (("true", True), ("", False)):
        env["CI"], env["REQUIRE_FAST"] = flag, ""
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, cwd=str(tests_dir.parent))
        assert (proc.returncode != 0) == should_fail, proc.stderr
        if should_fail:
            assert "fast._lib" in proc.stderr


class _Counter:
    """A model that counts its rows and, if ``fail_at`` is given, raises on that row."""

    def __init__(self, fail_at: int | None = None, message: str = "bad row") -> None:
        self.n = 0
        self.fail_at = fail_at
        self.message = message

    def predict_one(self, x: Any) -> float:
        return float(self.n)

    def learn_one(self, x: Any, y: Any) -> None:
        if self.n == self.fail_at:
            raise ValueError(self.message)
        self.n += 1

    def snapshot(self) -> dict[str, Any]:
        return {"n": self.n}


def test_compare_reports_an_exception_in_one_backend_as_the_first_mismatch() -> None:
    """``driftwood compare``'s loop: an exception is an outcome, never a traceback."""
    from reference.evaluation.compare import lockstep

    X, y = [[0.0]] * 10, [0.0] * 10
    out = lockstep(_Counter(fail_at=4), _Counter(), X, y)
    assert out["mismatch"] is not None and out["mismatch"].startswith("step 4:")
    assert out["raised"] == "step 4: reference raised ValueError: bad row"
    assert out["agreeing"] == 4
    # both raising alike agree (the models are unchanged by a refused row)
    out = lockstep(_Counter(fail_at=4), _Counter(fail_at=4), X, y)
    assert out["mismatch"] is None and out["agreeing"] == 10
    assert out["raised"] == "step 4: reference raised ValueError: bad row"
    # the same exception type with another message is a disagreement
    out = lockstep(_Counter(fail_at=4), _Counter(fail_at=4, message="other"), X, y)
    assert out["mismatch"] is not None and "step 4" in out["mismatch"]

"""Write the model files of format 1 in this folder and ``expected.json`` (run from the
repository root: ``python tests/data/model_files_v1/make_v1_files.py``).

The committed files were written by the code before format 2 existed (commit 469477c,
where ``model.save`` wrote format 1); ``tests/common/test_model_file_format.py`` checks
that they still load with the snapshot digest and the predictions recorded here. Running
this script again writes them with ``reference.persist.save(..., version=1)``, the same
bytes of the same document.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "common")]

from _hardening_models import SPECS, stream  # noqa: E402

import reference  # noqa: E402
from reference.persist import save, to_document  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    out = {}
    for spec in SPECS:
        if spec.custom_loss:
            continue
        model = spec.make(reference)
        for x, y in stream(spec, 40, seed=11):
            model.learn_one(x, y)
        save(model, os.path.join(HERE, f"{spec.id}.dwm"), version=1)
        snap = json.dumps(to_document(model)["snapshot"], sort_keys=True)
        probes = [x for x, _ in stream(spec, 5, seed=12)]
        preds = [model.predict_one(x) for x in probes]
        if spec.kind != "reg":
            probs = [model.predict_proba_one(x) for x in probes]
            preds = [[p, sorted((str(k), v.hex()) for k, v in q.items())]
                     for p, q in zip(preds, probs, strict=True)]
        out[spec.id] = {"snapshot_sha256": hashlib.sha256(snap.encode()).hexdigest(),
                        "predictions": [p.hex() if isinstance(p, float) else p
                                        for p in preds]}
    with open(os.path.join(HERE, "expected.json"), "w") as handle:
        json.dump(out, handle, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

import hashlib, json, sys
sys.path.insert(0, "tests/common")
import numpy as np
import reference
from _hardening_models import SPECS, stream, prediction_calls
out = {}
for spec in SPECS:
    if spec.custom_loss:
        continue
    model = spec.make(reference)
    for x, y in stream(spec, 40, seed=11):
        model.learn_one(x, y)
    path = f"tests/data/model_files_v1/{spec.id}.dwm"
    model.save(path)
    snap = json.dumps(reference.persist.to_document(model)["snapshot"], sort_keys=True)
    probes = [x for x, _ in stream(spec, 5, seed=12)]
    if spec.kind == "mil":
        preds = [model.predict_one(b) for b in probes]
    else:
        preds = [model.predict_one(x) for x in probes]
    if spec.kind != "reg":
        probs = [model.predict_proba_one(x) for x in probes]
        preds = [[p, sorted((str(k), v.hex()) for k, v in q.items())] for p, q in zip(preds, probs)]
    out[spec.id] = {"snapshot_sha256": hashlib.sha256(snap.encode()).hexdigest(),
                    "predictions": [p.hex() if isinstance(p, float) else p for p in preds]}
json.dump(out, open("tests/data/model_files_v1/expected.json", "w"), indent=1, sort_keys=True)

"""One canonical digest of JSON-shaped data, shared by every "did it change?" check.

Idempotency keys, the index's change detection, fork reconciliation and
deletion snapshots all compare values by digest; they must agree on how a
value is serialized (sorted keys, unicode kept, lone surrogates allowed).
"""

import hashlib
import json


def json_digest(value, length: int = 64) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:length]

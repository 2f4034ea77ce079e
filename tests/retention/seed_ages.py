"""Seed a Hermes state.db with cron and telegram sessions of several ages (retention tests).

Run with the peer venv's Python: ``seed_ages.py --home DIR``. Prints the ids by role.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "devtools" / "peer"))
import seed

DAY = 86400.0
OLD, NEW = 60 * DAY, 5 * DAY


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True, type=Path)
    args = ap.parse_args()
    w = seed.Writer(seed.open_db(args.home), time.time())

    def session(sid, source, ago, *, end="cron_complete", parent=None, marker=None):
        w.session(sid, source, w.at(ago), parent=parent, marker=marker, title=f"t {sid}")
        w.turns(sid, [(f"run {sid}", f"done {sid}")], w.at(ago) + 10)
        if end:
            w.end(sid, end, w.at(ago) + 60)
        return sid

    ids = {
        "due": [session(f"cron_old_{n}", "cron", OLD) for n in range(1, 4)],
        "late": session("cron_late", "cron", OLD),
        "young": session("cron_new_1", "cron", NEW),
        "other_source": session("tg_old_1", "telegram", OLD, end="telegram_idle"),
        "keep": session("cron_old_keep", "cron", OLD),
        "queued": session("cron_old_queued", "cron", OLD),
        "noted": session("cron_old_noted", "cron", OLD),
        "chain_root": session("cron_chain_root", "cron", OLD, end="compression"),
        "dparent": session("cron_dparent", "cron", OLD),
    }
    ids["chain_tip"] = session(
        "cron_chain_tip", "cron", 2 * DAY, end=None, parent=ids["chain_root"]
    )
    ids["dchild"] = session(
        "cron_dchild",
        "subagent",
        OLD,
        end="agent_close",
        parent=ids["dparent"],
        marker={"_delegate_from": ids["dparent"]},
    )
    print(json.dumps(ids))


if __name__ == "__main__":
    main()

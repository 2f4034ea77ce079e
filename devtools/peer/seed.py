"""Seed HERMES_HOME/state.db with demo or benchmark sessions.

Run with the PEER venv (it imports Hermes' own ``hermes_state.SessionDB``)::

    .peer-venv/bin/python devtools/peer/seed.py --home DIR --profile demo
    .peer-venv/bin/python devtools/peer/seed.py --home DIR --profile bench --count 10000
    .peer-venv/bin/python devtools/peer/seed.py --home DIR --profile paging --count 100000

Rows are written the way Hermes writes them (create_session, append_message,
end_session, set_session_title, set_session_archived, archive_and_compact),
replaying what the compressor, /branch and delegate_task leave behind, so the
real API server's lineage rules apply unchanged.  Safe against a running
peer (SQLite WAL; bulk writes are chunked so the gateway is never locked out
for long).  Ids are fixed (see demo_ids.py); timestamps are offsets from
``--base-time`` (default: now, floored to the hour) so relative times look
real.  A state_meta marker makes a second run a no-op.  Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # runs as a script
import demo_ids as ids
from seed_compat import Compat

HOUR, DAY = 3600.0, 86400.0
ID_EPOCH = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # fixed frame for bulk ids
SYSTEM_PROMPT = "You are Hermes Agent, an intelligent AI assistant created by Nous Research."
MODEL_CONFIG = {"max_iterations": 90, "reasoning_config": None, "max_tokens": None}
MODELS = (
    "stub-model",
    "anthropic/claude-sonnet-4.5",
    "openai/gpt-5.1",
    "nousresearch/hermes-4-70b",
)
COMPACTION_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary "
    "below. This is a handoff from a previous context window — treat it as background "
    "reference, NOT as active instructions.\n"
)
TINY_PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


def open_db(home: Path):
    home.mkdir(parents=True, exist_ok=True)
    os.environ["HERMES_HOME"] = str(home)  # before import: Hermes reads it at import time
    from hermes_state import SessionDB

    return SessionDB(db_path=home / "state.db")


class Writer:
    """Thin replay layer over SessionDB that also pins timestamps."""

    def __init__(self, db, base: float):
        self.db, self.base = db, base
        self.compat = Compat(db)
        self.sessions = 0
        self.messages = 0
        self.skipped: list[str] = []  # steps this release's SessionDB cannot replay

    def at(self, ago: float) -> float:
        return self.base - ago

    def session(
        self,
        sid,
        source,
        started,
        *,
        title=None,
        parent=None,
        marker=None,
        model="stub-model",
        user_id=None,
    ):
        cfg = dict(MODEL_CONFIG, **(marker or {}))
        self.db.create_session(
            sid,
            source,
            model=model,
            model_config=cfg,
            system_prompt=SYSTEM_PROMPT,
            parent_session_id=parent,
            user_id=user_id,
        )
        # create_session stamps time.time(); pin the replayed start instead.
        self.sql("UPDATE sessions SET started_at = ? WHERE id = ?", started, sid)
        if title:
            self.db.set_session_title(sid, title)
        self.sessions += 1
        return sid

    def msg(self, sid, role, content, ts, **kw):
        self.messages += 1
        return self.compat.append_message(sid, role, content, ts, **kw)

    def turns(self, sid, pairs, ts, gap=40.0):
        """Append (user, assistant) pairs; returns the next free timestamp."""
        for user, answer in pairs:
            self.msg(sid, "user", user, ts)
            self.msg(sid, "assistant", answer, ts + gap / 4, finish_reason="stop")
            ts += gap
        return ts

    def end(self, sid, reason, ts):
        self.db.end_session(sid, reason)
        self.sql("UPDATE sessions SET ended_at = ? WHERE id = ?", ts, sid)

    def usage(self, sid, inp, out, calls, cost=None, reasoning=0):
        self.sql(
            "UPDATE sessions SET input_tokens = ?, output_tokens = ?, api_call_count = ?,"
            " estimated_cost_usd = ?, reasoning_tokens = ? WHERE id = ?",
            inp,
            out,
            calls,
            cost,
            reasoning,
            sid,
        )

    def sql(self, query, *params):
        self.compat.flush()  # a statement may read the replayed timestamps
        self.db._execute_write(lambda conn: conn.execute(query, params))


def tool_call(call_id, name, args):
    return [
        {
            "id": call_id,
            "call_id": call_id,
            "response_item_id": "fc_" + call_id[5:],
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
    ]


# -- demo profile -----------------------------------------------------------


def seed_notable(w: Writer) -> None:
    _compression_chain(w)
    _branches(w)
    _delegates(w)
    _odd_sessions(w)
    _tool_session(w)
    _long_session(w)


def _compression_chain(w: Writer) -> None:
    # Replays compression.in_place: false — each segment ends "compression"
    # and the continuation starts with the head message and the summary.
    head = "Let's refactor the billing module. Start by reading invoice.py."
    t = w.at(5 * DAY)
    w.session(ids.COMPRESSION_ROOT, "cli", t, title=ids.COMPRESSION_TITLE, model=MODELS[1])
    t = w.turns(
        ids.COMPRESSION_ROOT,
        [
            (head, "invoice.py computes totals inline; tax and discounts are tangled together."),
            (
                "Extract the tax logic into its own helper.",
                "Created billing/tax.py with compute_tax().",
            ),
            ("Now the discounts.", "Moved discount rules into billing/discounts.py."),
            ("Run the billing tests.", "41 passed, 2 failed: test_rounding, test_zero_total."),
        ],
        t + 10,
        gap=300,
    )
    w.usage(ids.COMPRESSION_ROOT, 99120, 2210, 4, 0.3412)
    w.end(ids.COMPRESSION_ROOT, "compression", t)
    prev, segments = (
        ids.COMPRESSION_ROOT,
        [
            (
                ids.COMPRESSION_C1,
                ids.COMPRESSION_C1_TITLE,
                [
                    (
                        "Fix the two failing tests.",
                        "Fixed rounding (Decimal quantize) and the zero-total guard.",
                    ),
                    ("Run the whole suite.", "All 212 tests pass."),
                    (
                        "Add a changelog entry.",
                        "Added 'Split billing totals into helpers' to CHANGELOG.md.",
                    ),
                ],
            ),
            (
                ids.COMPRESSION_TIP,
                ids.COMPRESSION_TIP_TITLE,
                [
                    (
                        "Write the PR description.",
                        "PR description drafted: 'Split billing totals into tax/discount helpers'.",
                    ),
                    ("Open the PR as a draft.", "Draft PR #418 opened against main."),
                ],
            ),
        ],
    )
    for sid, title, pairs in segments:
        t += 0.5
        w.session(sid, "cli", t, title=title, parent=prev, model=MODELS[1])
        w.msg(sid, "user", head, t)
        w.msg(
            sid,
            "assistant",
            COMPACTION_PREFIX + "## Goal\nRefactor the billing module.\n\n"
            "## Completed Actions\n1. EXTRACT tax and discount helpers [tool: patch]",
            t + 0.001,
        )
        gap = 900 if sid == ids.COMPRESSION_TIP else 400
        t = w.turns(sid, pairs, t + 5, gap=gap)
        if sid != ids.COMPRESSION_TIP:
            w.usage(sid, 98700, 1840, 3, 0.2977)
            w.end(sid, "compression", t)
        prev = sid
    w.usage(ids.COMPRESSION_TIP, 12400, 610, 2, 0.0451)
    # Keep the tip recent so the projected row sorts near the top.
    w.sql(
        "UPDATE messages SET timestamp = timestamp - ? WHERE session_id = ?",
        t - w.at(2 * HOUR),
        ids.COMPRESSION_TIP,
    )


def _branches(w: Writer) -> None:
    t = w.at(3 * DAY)
    parent = w.session(ids.BRANCH_PARENT, "cli", t, title=ids.BRANCH_TITLE)
    base = [
        ("Plan a 3-day trip to Lisbon.", "Day 1 Alfama, day 2 Belém, day 3 Sintra."),
        ("What about food?", "Try pastéis de nata in Belém and a tasca in Alfama."),
    ]
    t = w.turns(parent, base, t + 30, gap=50)
    w.usage(parent, 3100, 240, 2, 0.0061)
    w.end(parent, "branched", t)
    for sid, title, extra, dt in (
        (
            ids.BRANCH_A,
            ids.BRANCH_A_TITLE,
            ("Make it a budget trip.", "Hostels in Baixa, free walking tours, the 28 tram."),
            60,
        ),
        (
            ids.BRANCH_B,
            ids.BRANCH_B_TITLE,
            ("Swap Sintra for Cascais.", "Day 3: train to Cascais, beach and Boca do Inferno."),
            1500,
        ),
    ):
        start = t + dt
        # /branch: stable _branched_from marker + copied transcript.
        w.session(sid, "cli", start, title=title, parent=parent, marker={"_branched_from": parent})
        w.turns(sid, [*base, extra], start + 1, gap=45)
        w.usage(sid, 4200, 330, 1, 0.0083)


def _delegates(w: Writer) -> None:
    t = w.at(2 * DAY)
    parent = w.session(
        ids.DELEGATE_PARENT, "telegram", t, title=ids.DELEGATE_TITLE, user_id="412733001"
    )
    w.msg(
        parent, "user", "Research the three most cited papers on RLHF and summarise them.", t + 30
    )
    call = "call_de1e9a7e0001"
    w.msg(
        parent,
        "assistant",
        "",
        t + 32,
        finish_reason="tool_calls",
        tool_calls=tool_call(
            call,
            "delegate_task",
            {
                "tasks": [
                    {"goal": "Find and summarise paper A"},
                    {"goal": "Find and summarise paper B"},
                ]
            },
        ),
    )
    kids = (
        (ids.DELEGATE_CHILD_1, "Find and summarise paper A", 40),
        (ids.DELEGATE_CHILD_2, "Find and summarise paper B", 65),
    )
    for sid, goal, dt in kids:
        # delegate_task: source "subagent", _delegate_from marker, agent_close.
        w.session(sid, "subagent", t + dt, parent=parent, marker={"_delegate_from": parent})
        w.msg(sid, "user", goal, t + dt + 0.5)
        if sid == ids.DELEGATE_CHILD_1:
            sub = "call_de1e9a7e0002"
            w.msg(
                sid,
                "assistant",
                "",
                t + dt + 2,
                finish_reason="tool_calls",
                tool_calls=tool_call(sub, "delegate_task", {"goal": "Fetch the PDF of paper A"}),
            )
            g = w.session(
                ids.DELEGATE_GRANDCHILD,
                "subagent",
                t + dt + 3,
                parent=sid,
                marker={"_delegate_from": sid},
            )
            w.msg(g, "user", "Fetch the PDF of paper A", t + dt + 3.5)
            w.msg(
                g,
                "assistant",
                "Fetched arXiv:2203.02155 (Ouyang et al., 2022).",
                t + dt + 9,
                finish_reason="stop",
            )
            w.end(g, "agent_close", t + dt + 10)
            w.msg(
                sid,
                "tool",
                json.dumps({"result": "Fetched arXiv:2203.02155"}),
                t + dt + 10,
                tool_call_id=sub,
                tool_name="delegate_task",
            )
        w.msg(
            sid,
            "assistant",
            f"Summary of {goal.split()[-2]} {goal.split()[-1]}: ...",
            t + dt + 20,
            finish_reason="stop",
        )
        w.usage(sid, 5200, 700, 2, 0.0112)
        w.end(sid, "agent_close", t + dt + 21)
    w.msg(
        parent,
        "tool",
        json.dumps({"results": ["A ...", "B ..."]}),
        t + 90,
        tool_call_id=call,
        tool_name="delegate_task",
    )
    w.msg(
        parent,
        "assistant",
        "Here is a summary of the three papers ...",
        t + 95,
        finish_reason="stop",
    )
    w.usage(parent, 8800, 1100, 2, 0.0209)
    w.end(parent, "branched", t + 400)
    b = w.session(
        ids.DELEGATE_BRANCH,
        "telegram",
        t + 401,
        title=ids.DELEGATE_BRANCH_TITLE,
        parent=parent,
        marker={"_branched_from": parent},
        user_id="412733001",
    )
    w.turns(
        b,
        [
            (
                "Research the three most cited papers on RLHF and summarise them.",
                "Here is a summary of the three papers ...",
            ),
            ("Now compare their reward models.", "A uses pairwise preferences; B uses ..."),
        ],
        t + 402,
        gap=60,
    )


def _odd_sessions(w: Writer) -> None:
    t = w.at(40 * DAY)
    w.session(ids.ARCHIVED, "cli", t, title=ids.ARCHIVED_TITLE)
    w.turns(
        ids.ARCHIVED, [("Try the old vector store idea.", "Prototype indexed 1,200 docs.")], t + 5
    )
    if w.compat.archive:  # 0.16+
        w.db.set_session_archived(ids.ARCHIVED, True)
    else:
        w.skipped.append("archive")

    # In-place compaction: the same id keeps a compacted active set while the
    # pre-compaction rows stay on disk with active=0, compacted=1.
    t = w.at(30 * HOUR)
    w.session(ids.IN_PLACE, "cli", t, title=ids.IN_PLACE_TITLE)
    t = w.turns(
        ids.IN_PLACE,
        [(f"Debug step {i}: check the logs.", f"Step {i}: nothing unusual.") for i in range(1, 5)],
        t + 10,
        gap=60,
    )
    if w.compat.compact_in_place:  # 0.18+
        _compact_in_place(w, t)
    else:
        w.skipped.append("compact_in_place")

    t = w.at(9 * HOUR)
    w.session(ids.UNICODE_ID, "discord", t, title=ids.UNICODE_TITLE, user_id="889900112233")
    w.turns(
        ids.UNICODE_ID,
        [
            (
                "Ünïcödé test: 日本語, العربية, עברית, emoji 👩‍💻🚀, combining é, zero\u200bwidth.",
                "Received: 👍 — «quotes», ‘curly’, math ∑ x² ≤ ∞, tab\there.",  # noqa: RUF001
            ),
            (
                "Markdown? **bold** `code` <i>tag</i>\n\n```python\nprint('hi')\n```",
                "| col | val |\n|---|---|\n| a | 1 |\n\n> quote & <escaped?>",
            ),
        ],
        t + 5,
    )

    t = w.at(7 * HOUR)
    w.session(ids.XSS_TITLE_SESSION, "api_server", t, title=ids.XSS_TITLE, model="hermes-agent")
    w.turns(
        ids.XSS_TITLE_SESSION,
        [
            (
                '<img src=x onerror=alert(1)> &lt;b&gt; & <a href="javascript:alert(2)">link</a>',
                "<script>alert('answer')</script> Rendered as text, I hope. &amp; &#x3C;",
            ),
        ],
        t + 5,
    )

    t = w.at(6 * HOUR)
    w.session(ids.ODD_ID, "api_server", t, title=ids.ODD_TITLE, model="hermes-agent")
    w.turns(ids.ODD_ID, [("Can you address me?", "Only percent-encoded.")], t + 5)

    t = w.at(5 * HOUR)
    w.session(ids.IMAGE_SESSION, "telegram", t, title=ids.IMAGE_TITLE, user_id="412733001")
    w.msg(
        ids.IMAGE_SESSION,
        "user",
        [
            {"type": "text", "text": "What is in this screenshot?"},
            {"type": "image_url", "image_url": {"url": TINY_PNG}},
        ],
        t + 5,
    )
    w.msg(ids.IMAGE_SESSION, "assistant", "A single white pixel.", t + 9, finish_reason="stop")

    t = w.at(26 * HOUR)
    w.session(ids.CUSTOM_END, "api_server", t, title=ids.CUSTOM_END_TITLE, model="hermes-agent")
    t = w.turns(
        ids.CUSTOM_END,
        [
            ("My refund failed twice.", "Sorry! Let me check the order."),
            ("Can I talk to a person?", "Handing you over to a human agent."),
        ],
        t + 5,
    )
    w.end(ids.CUSTOM_END, ids.CUSTOM_END_REASON, t + 30)

    w.session(ids.EMPTY_SESSION, "api_server", w.at(50 * HOUR), model="hermes-agent")
    t = w.at(20 * HOUR)
    w.session(ids.UNTITLED_SESSION, "discord", t, user_id="889900112233")
    w.turns(ids.UNTITLED_SESSION, [("yo", "Hey! What can I do for you?")], t + 2)
    t = w.at(15 * HOUR)
    w.session(ids.MAX_TITLE_SESSION, "cli", t, title=ids.MAX_TITLE)
    w.turns(
        ids.MAX_TITLE_SESSION,
        [("Collect the offsite action items.", "Seven items, grouped by owner.")],
        t + 5,
    )


def _compact_in_place(w: Writer, t: float) -> None:
    w.db.archive_and_compact(
        ids.IN_PLACE,
        [
            {"role": "user", "content": "Debug step 1: check the logs.", "timestamp": t},
            {
                "role": "assistant",
                "content": COMPACTION_PREFIX + "## Goal\nFind the log anomaly.",
                "timestamp": t + 0.001,
            },
            {"role": "user", "content": "Debug step 4: check the logs.", "timestamp": t + 0.002},
            {
                "role": "assistant",
                "content": "Step 4: nothing unusual.",
                "timestamp": t + 0.003,
                "finish_reason": "stop",
            },
        ],
    )
    w.messages += 4


def _tool_session(w: Writer) -> None:
    sid, t = ids.TOOL_SESSION, w.at(4 * HOUR)
    w.session(sid, "cli", t, title=ids.TOOL_TITLE, model=MODELS[1])
    w.msg(sid, "user", "How much disk is left on the build box?", t + 2)
    w.msg(
        sid,
        "assistant",
        "",
        t + 4,
        finish_reason="tool_calls",
        token_count=38,
        reasoning="I should run df on the root filesystem.",
        reasoning_content="I should run df on the root filesystem.",
        tool_calls=tool_call("call_70015e000001", "terminal", {"command": "df -h /"}),
    )
    w.msg(
        sid,
        "tool",
        json.dumps(
            {
                "output": "Filesystem Size Used Avail Use% Mounted on\n/dev/sda1 98G 71G 23G 76% /",
                "exit_code": 0,
            }
        ),
        t + 5,
        tool_call_id="call_70015e000001",
        tool_name="terminal",
    )
    w.msg(
        sid,
        "assistant",
        "23 GB free of 98 GB (76% used).",
        t + 7,
        finish_reason="stop",
        token_count=17,
        reasoning="df reports 23G available.",
        reasoning_content="df reports 23G available.",
    )
    w.msg(sid, "user", "Find the biggest directories and plan a cleanup.", t + 60)
    w.msg(
        sid,
        "assistant",
        "",
        t + 63,
        finish_reason="tool_calls",
        token_count=61,
        reasoning="Two lookups in parallel, then a todo list.",
        tool_calls=tool_call(
            "call_70015e000002", "terminal", {"command": "du -sh /var/* | sort -h | tail -3"}
        )
        + tool_call("call_70015e000003", "search_files", {"pattern": "*.log", "path": "/var/log"}),
    )
    w.msg(
        sid,
        "tool",
        json.dumps({"output": "2.1G /var/cache\n9.8G /var/lib\n14G /var/log", "exit_code": 0}),
        t + 66,
        tool_call_id="call_70015e000002",
        tool_name="terminal",
    )
    w.msg(
        sid,
        "tool",
        json.dumps({"matches": ["/var/log/build.log", "/var/log/build.log.1"]}),
        t + 66.5,
        tool_call_id="call_70015e000003",
        tool_name="search_files",
    )
    todos = {
        "todos": [
            {"id": "1", "content": "Rotate /var/log/build.log", "status": "pending"},
            {"id": "2", "content": "Prune docker images", "status": "pending"},
        ]
    }
    w.msg(
        sid,
        "assistant",
        "",
        t + 68,
        finish_reason="tool_calls",
        token_count=44,
        tool_calls=tool_call("call_70015e000004", "todo", todos),
    )
    w.msg(
        sid,
        "tool",
        json.dumps(
            dict(
                todos,
                summary={
                    "total": 2,
                    "pending": 2,
                    "in_progress": 0,
                    "completed": 0,
                    "cancelled": 0,
                },
            )
        ),
        t + 68.2,
        tool_call_id="call_70015e000004",
        tool_name="todo",
    )
    w.msg(
        sid,
        "assistant",
        "/var/log is 14 GB, mostly build logs. Plan: rotate them, then prune docker images.",
        t + 70,
        finish_reason="stop",
        token_count=29,
    )
    w.usage(sid, 18450, 189, 5, 0.0612, reasoning=64)


def _long_session(w: Writer) -> None:
    sid, t = ids.LONG_SESSION, w.at(3 * HOUR + 1000)
    w.session(sid, "cli", t, title=ids.LONG_TITLE, model=MODELS[3])
    rows = []
    for i in range(ids.LONG_SESSION_MESSAGES // 2):
        ts = t + 2 + i * 0.4
        done = f"Done with step {i + 1}." + (" All tests green." if i % 50 == 49 else "")
        rows.append(mrow(sid, "user", f"Step {i + 1}: next change, please.", ts))
        rows.append(mrow(sid, "assistant", done, ts + 0.2, "stop"))
    bulk_messages(w.db, rows)
    w.messages += len(rows)
    w.usage(sid, 870000, 41000, 1200, 1.2345)


def seed_bulk(w: Writer, count: int, rng: random.Random, prefix: str = "") -> dict:
    """Ordinary sessions across sources, unique titles, realistic spread.

    ``prefix`` starts every title (a team's profile: "EU: Fix the release notes").
    """
    verbs = (
        "Debug",
        "Plan",
        "Summarize",
        "Draft",
        "Review",
        "Compare",
        "Explain",
        "Automate",
        "Fix",
        "Optimize",
        "Translate",
        "Outline",
    )
    objects = (
        "the nightly backup job",
        "a birthday dinner menu",
        "the Q3 budget sheet",
        "flaky CI on main",
        "a cover letter",
        "Kubernetes ingress rules",
        "my reading list",
        "the onboarding checklist",
        "Postgres slow queries",
        "a Rust borrow error",
        "the garden watering schedule",
        "a landing page headline",
        "Terraform state drift",
        "the family photo archive",
        "a SQL migration",
        "home Wi-Fi dead zones",
        "the release notes",
        "an API rate limiter",
        "weekend hiking options",
        "the team retro notes",
        "a Python packaging issue",
        "the invoice template",
        "a Dockerfile for the worker",
        "monthly grocery costs",
        "the incident postmortem",
    )
    sources = ("cli", "cli", "telegram", "telegram", "discord", "cron", "api_server", "api_server")
    cron_jobs = (
        ("Daily digest", "summarise unread email and calendar"),
        ("Weekly report", "compile the weekly metrics report"),
        ("Backup check", "verify last night's backups"),
    )
    combos = [(v, o) for v in verbs for o in objects]
    rng.shuffle(combos)
    per_source: dict = {}
    for i in range(count):
        source = sources[i % len(sources)]
        ago = (i / max(1, count - 1)) ** 1.6 * 60 * DAY + rng.uniform(0, 3 * HOUR) + 5 * HOUR
        stamp = ID_EPOCH - timedelta(seconds=ago)
        hexid = f"{rng.getrandbits(32):08x}"
        verb, obj = combos[i % len(combos)]
        title = f"{prefix}{verb} {obj}"
        user = f"Can you help me {verb.lower()} {obj}?"
        end = None
        if source == "cli":
            sid = f"{stamp:%Y%m%d_%H%M%S}_{hexid[:6]}"
            end = "cli_close" if rng.random() < 0.6 else None
        elif source in ("telegram", "discord"):
            sid = f"{stamp:%Y%m%d_%H%M%S}_{hexid}"
            title = title if rng.random() < 0.7 else None
            end = "session_reset" if rng.random() < 0.2 else None
        elif source == "cron":
            name, task = cron_jobs[i % len(cron_jobs)]
            sid = f"cron_{hexid}_{stamp:%Y%m%d_%H%M%S}"
            title, user, end = None, f"[cron:{name}] {task}", "cron_complete"
        else:
            sid = f"api_{int(stamp.timestamp())}_{hexid}"
            end = "user_closed" if rng.random() < 0.15 else None
        t = w.at(ago)
        model = MODELS[rng.randrange(len(MODELS))]
        w.session(
            sid,
            source,
            t,
            title=title,
            model=model,
            user_id=str(400000000 + i) if source in ("telegram", "discord") else None,
        )
        nturns = rng.randint(1, 6)
        ts = t + rng.uniform(2, 20)
        for k in range(nturns):
            question = user if k == 0 else f"Follow-up {k}: what about the edge cases?"
            w.msg(sid, "user", question, ts)
            if rng.random() < 0.12:
                cid = f"call_{hexid}{k:04d}"
                w.msg(
                    sid,
                    "assistant",
                    "",
                    ts + 2,
                    finish_reason="tool_calls",
                    tool_calls=tool_call(cid, "web_search", {"query": obj}),
                )
                w.msg(
                    sid,
                    "tool",
                    json.dumps({"results": [f"About {obj}"]}),
                    ts + 3,
                    tool_call_id=cid,
                    tool_name="web_search",
                )
            w.msg(
                sid,
                "assistant",
                f"Here is a first pass on {obj} (part {k + 1}).",
                ts + 6,
                finish_reason="stop",
            )
            ts += rng.uniform(30, 600)
        w.usage(
            sid,
            900 * nturns + rng.randrange(500),
            120 * nturns,
            nturns,
            round(0.002 * nturns, 4) if model != "stub-model" else None,
        )
        if end:
            w.end(sid, end, ts)
        per_source[source] = per_source.get(source, 0) + 1
    return per_source


# -- bench profile ----------------------------------------------------------

_MSG_SQL = (
    "INSERT INTO messages (session_id, role, content, timestamp, finish_reason, tool_calls,"
    " tool_call_id, tool_name, active) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)"
)
# Releases before in-place compaction (0.15, 0.16) have no messages.active column.
_MSG_SQL_NO_ACTIVE = (
    "INSERT INTO messages (session_id, role, content, timestamp, finish_reason, tool_calls,"
    " tool_call_id, tool_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _msg_sql(db) -> str:
    return _MSG_SQL if Compat(db).message_active else _MSG_SQL_NO_ACTIVE


_SESSION_SQL = (
    "INSERT INTO sessions (id, source, model, model_config, system_prompt, parent_session_id,"
    " started_at, ended_at, end_reason, title, message_count, tool_call_count,"
    " input_tokens, output_tokens, api_call_count)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def mrow(sid, role, content, ts, finish=None, calls=None, call_id=None, tool=None) -> tuple:
    """A _MSG_SQL parameter row (``calls`` is a tool_calls list)."""
    return (sid, role, content, ts, finish, json.dumps(calls) if calls else None, call_id, tool)


def srow(sid, source, started, title=None, parent=None, marker=None, end=None, counts=(2, 0)):
    """A _SESSION_SQL parameter row; ``counts`` is (message_count, tool_call_count)."""
    cfg = json.dumps(dict(MODEL_CONFIG, **(marker or {})))
    ended = started + 30 if end else None
    return (
        sid,
        source,
        "stub-model",
        cfg,
        SYSTEM_PROMPT,
        parent,
        started,
        ended,
        end,
        title,
        *counts,
        900 * counts[0] // 2,
        60 * counts[0] // 2,
        counts[0] // 2,
    )


def bulk_messages(db, rows) -> None:
    """executemany for message rows; keeps the session counters in step."""
    counts: dict = {}
    for row in rows:
        n, calls = counts.get(row[0], (0, 0))
        counts[row[0]] = (n + 1, calls + len(json.loads(row[5])) if row[5] else calls)
    update = (
        "UPDATE sessions SET message_count = message_count + ?,"
        " tool_call_count = tool_call_count + ? WHERE id = ?"
    )
    sql = _msg_sql(db)

    def _do(conn):
        conn.executemany(sql, rows)
        conn.executemany(update, [(n, c, sid) for sid, (n, c) in counts.items()])

    db._execute_write(_do)


def _write_rows(db, srows: list, mrows: list) -> None:
    sql = _msg_sql(db)

    def _do(conn):
        conn.executemany(_SESSION_SQL, srows)
        conn.executemany(sql, mrows)

    db._execute_write(_do)


def _bench_messages(sid: str, i: int, t: float, tool: bool) -> list:
    """Exactly 10 rows: five plain turns, or three plain turns plus a tool turn."""
    rows = []
    for k in range(4 if tool else 5):
        ts = t + 1 + k * 10
        rows.append(mrow(sid, "user", f"Bench {i} question {k}: how does step {k} work?", ts))
        if tool and k == 2:
            cid = f"call_bench{i:05d}"
            calls = tool_call(cid, "todo", {"todos": []})
            rows.append(mrow(sid, "assistant", "", ts + 1, "tool_calls", calls))
            rows.append(mrow(sid, "tool", '{"todos": []}', ts + 2, None, None, cid, "todo"))
        rows.append(mrow(sid, "assistant", f"Step {k} works like this: ...", ts + 3, "stop"))
    return rows


def seed_bench(db, base: float, count: int, chunk: int = 200) -> int:
    """``count`` sessions x 10 messages, executemany in chunked transactions."""
    sources = ("cli", "telegram", "discord", "cron", "api_server")
    for start in range(0, count, chunk):
        srows, mrows = [], []
        for i in range(start, min(count, start + chunk)):
            sid, t, tool = (
                f"{ids.BENCH_PREFIX}{i:05d}",
                base - i / count * 90 * DAY - 60,
                i % 5 == 0,
            )
            title = f"Bench session {i:05d}"
            srows.append(srow(sid, sources[i % 5], t, title, counts=(10, int(tool))))
            mrows.extend(_bench_messages(sid, i, t, tool))
        _write_rows(db, srows, mrows)
        time.sleep(0.02)  # a window for a running gateway's own writes
    return count


def seed_lineage(db, base: float, size: int = ids.BENCH_LINEAGE_SIZE) -> dict:
    """One ``size``-node tree: branches and delegates fanning out from a root.

    Non-delegate nodes get two branches and two delegates, delegates get two
    nested delegates, breadth first, so depth stays around five.
    """
    nodes = [(ids.BENCH_LINEAGE_ROOT, None, "root")]
    frontier = [0]
    while len(nodes) < size:
        pid, _, kind = nodes[frontier.pop(0)]
        fan = ("delegate",) * 2 if kind == "delegate" else ("branch",) * 2 + ("delegate",) * 2
        for k in fan:
            if len(nodes) < size:
                nodes.append((f"{ids.BENCH_LINEAGE_PREFIX}{len(nodes):03d}", pid, k))
                frontier.append(len(nodes) - 1)
    branched = {p for _, p, k in nodes if k == "branch"}
    t0 = base - 10 * DAY
    srows, mrows, counts = [], [], {"root": 0, "branch": 0, "delegate": 0}
    for n, (sid, pid, kind) in enumerate(nodes):
        counts[kind] += 1
        t = t0 + n * 60
        if kind == "delegate":
            marker, source, end, title = {"_delegate_from": pid}, "subagent", "agent_close", None
        else:
            marker = {"_branched_from": pid} if kind == "branch" else None
            source, title = "cli", f"Lineage node {n:03d}"
            end = "branched" if sid in branched else None
        srows.append(srow(sid, source, t, title, pid, marker, end))
        mrows.append(mrow(sid, "user", f"Lineage task {n}", t + 1))
        mrows.append(mrow(sid, "assistant", f"Lineage result {n}", t + 2, "stop"))
    _write_rows(db, srows, mrows)
    return counts


def seed_paged(db, sid: str, count: int, t: float) -> None:
    """One ``count``-message session of plain turns; in ``PAGED_SESSION`` only the first
    message says ``PAGED_FIRST_WORD`` and only the last ``PAGED_LAST_WORD``."""
    marked = sid == ids.PAGED_SESSION
    srows = [srow(sid, "cli", t, f"Paged transcript {sid[-2:]}", counts=(0, 0))]
    _write_rows(db, srows, [])
    for start in range(0, count, 5000):
        rows = []
        for n in range(start + 1, min(count, start + 5000) + 1):
            role = "user" if n % 2 else "assistant"
            text = f"Message {n} of {count}."
            if marked and n == 1:
                text += f" The password is {ids.PAGED_FIRST_WORD}."
            if marked and n == count:
                text += f" Goodbye, {ids.PAGED_LAST_WORD}."
            rows.append(mrow(sid, role, text, t + n * 0.01, None if n % 2 else "stop"))
        bulk_messages(db, rows)


def seed_paging(db, base: float, huge: int) -> dict:
    """The paging peer's transcripts: 1,200 and 3,000 messages, and ``huge`` if given."""
    sizes = {ids.PAGED_SESSION: ids.PAGED_MESSAGES, ids.PAGED_3000: ids.PAGED_3000_MESSAGES}
    if huge:
        sizes[ids.PAGED_HUGE] = huge
    for n, (sid, count) in enumerate(sizes.items()):
        seed_paged(db, sid, count, base - (n + 1) * HOUR)
    # A transcript compacted in place: the paging peer hides its summary, as newer servers do.
    t = base - 5 * HOUR
    _write_rows(db, [srow(ids.PAGED_COMPACTED, "cli", t, "Paged compacted", counts=(0, 0))], [])
    db.archive_and_compact(
        ids.PAGED_COMPACTED,
        [
            {"role": "assistant", "content": COMPACTION_PREFIX + "## Goal\nPage.", "timestamp": t},
            {"role": "user", "content": "After the summary.", "timestamp": t + 0.001},
        ],
    )
    return {**sizes, ids.PAGED_COMPACTED: 2}


# -- entry point ------------------------------------------------------------


def run(home: Path, profile: str, count: int = 10000, base_time: float | None = None) -> dict:
    t_start = time.monotonic()
    base = base_time if base_time is not None else float(int(time.time() // HOUR) * HOUR)
    db = open_db(home)
    key = f"{ids.SEED_META_KEY}:{profile}"
    params = {"profile": profile, "version": ids.SEED_VERSION}
    if profile in ("bench", "paging", "team"):
        params["count"] = count
    previous = db.get_meta(key)
    if previous:
        prev = json.loads(previous)
        if {k: prev.get(k) for k in params} != params:
            raise SystemExit(f"state.db already seeded with {prev}; refusing to add {params}")
        return dict(prev, already_seeded=True)
    probe = {"demo": ids.COMPRESSION_ROOT, "paging": ids.PAGED_SESSION}.get(
        profile, ids.BENCH_LINEAGE_ROOT
    )
    if db.get_session(probe):
        raise SystemExit(
            f"{probe} exists but no seed marker: partial earlier run? Use a fresh home."
        )

    summary = dict(params, home=str(home), base_time=base)
    if profile == "demo":
        w = Writer(db, base)
        seed_notable(w)
        summary["bulk_by_source"] = seed_bulk(w, 200 - w.sessions, random.Random(20261202))
        w.compat.flush()
        summary.update(
            sessions=w.sessions,
            messages=w.messages,
            skipped=w.skipped,
            notable={
                n: getattr(ids, n)
                for n in dir(ids)
                if n.isupper()
                and isinstance(getattr(ids, n), str)
                and getattr(ids, n) in ids.NOTABLE
            },
        )
    elif profile == "bench":
        n = seed_bench(db, base, count)
        summary.update(
            sessions=n,
            messages=n * 10,
            lineage=seed_lineage(db, base),
            lineage_root=ids.BENCH_LINEAGE_ROOT,
        )
    elif profile == "team":
        # One team's Hermes profile in the demo: a few ordinary sessions of every
        # source, titled with the team's name (the folder name, e.g. "team-eu").
        w = Writer(db, base)
        team = home.name.removeprefix("team-").upper()
        rng = random.Random(zlib.crc32(home.name.encode()))
        summary["bulk_by_source"] = seed_bulk(w, count, rng, prefix=f"{team}: ")
        w.compat.flush()
        summary.update(sessions=w.sessions, messages=w.messages)
    elif profile == "paging":
        summary["sessions"] = seed_paging(db, base, count)
    else:
        raise SystemExit(f"unknown profile {profile!r}")
    summary["seconds"] = round(time.monotonic() - t_start, 2)
    db.set_meta(key, json.dumps(summary, ensure_ascii=False))
    db.close()
    return summary


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Seed a Hermes state.db (run with the peer venv)")
    ap.add_argument("--home", required=True, type=Path, help="HERMES_HOME (state.db lives here)")
    ap.add_argument("--profile", choices=("demo", "bench", "paging", "team"), default="demo")
    ap.add_argument(
        "--count",
        type=int,
        default=10000,
        help="bench: number of sessions; paging: messages of the huge session (0: none)",
    )
    ap.add_argument(
        "--base-time",
        type=float,
        default=None,
        help="epoch seconds that 'now' maps to (default: now floored to the hour)",
    )
    args = ap.parse_args(argv)
    print(
        json.dumps(
            run(args.home, args.profile, args.count, args.base_time), ensure_ascii=False, indent=1
        )
    )


if __name__ == "__main__":
    main()

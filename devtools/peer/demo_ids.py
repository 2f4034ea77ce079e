"""Fixed ids and titles of the notable sessions that ``seed.py`` writes.

Shared by the seeder (run as a script under the peer venv) and the Django
tests (``from devtools.peer import demo_ids``).  Plain constants only: no
Django, no Hermes imports.  Ids mimic Hermes' own formats per source
(CLI/subagent ``YYYYMMDD_HHMMSS_hex6``, gateway ``..._hex8``, cron
``cron_<job>_<stamp>``, API ``api_<epoch>_<hex8>``).
"""

SEED_META_KEY = "hermes_ui_seed"  # state_meta key prefix: "<key>:<profile>"
SEED_VERSION = 1

# Compression chain (rotation, compression.in_place: false): root -> c1 -> tip.
# The default list shows one row: the tip's id/title/counts with
# _lineage_root_id == COMPRESSION_ROOT; /messages on any of the three
# returns the tip's rows and session_id == COMPRESSION_TIP.
COMPRESSION_ROOT = "20261101_090000_a1c0de"
COMPRESSION_C1 = "20261101_093412_b2c0de"
COMPRESSION_TIP = "20261101_101503_c3c0de"
COMPRESSION_TITLE = "Refactor billing module"
COMPRESSION_C1_TITLE = "Refactor billing module #2"
COMPRESSION_TIP_TITLE = "Refactor billing module #3"
COMPRESSION_CHAIN = (COMPRESSION_ROOT, COMPRESSION_C1, COMPRESSION_TIP)

# /branch: parent ended "branched", two children with the _branched_from marker.
BRANCH_PARENT = "20261102_141500_d4b7a1"
BRANCH_A = "20261102_143010_e5b7a2"
BRANCH_B = "20261102_145522_f6b7a3"
BRANCH_TITLE = "Trip planning"
BRANCH_A_TITLE = "Trip planning #2"
BRANCH_B_TITLE = "Trip planning #3"
BRANCHES = (BRANCH_A, BRANCH_B)

# delegate_task: parent (telegram) with two subagent children (ended
# agent_close, _delegate_from = parent), a grandchild delegated by child 1
# (_delegate_from = DELEGATE_CHILD_1), and one /branch child of the parent.
# Deleting DELEGATE_PARENT removes the children and the grandchild and keeps
# DELEGATE_BRANCH with parent_session_id cleared.
DELEGATE_PARENT = "20261103_110000_7d3a9e01"
DELEGATE_CHILD_1 = "20261103_110142_8e1f20"
DELEGATE_CHILD_2 = "20261103_110207_9f2e31"
DELEGATE_GRANDCHILD = "20261103_110230_a03f42"
DELEGATE_BRANCH = "20261103_121500_b14a53c2"
DELEGATE_CHILDREN = (DELEGATE_CHILD_1, DELEGATE_CHILD_2)
DELEGATE_TITLE = "Research summary"
DELEGATE_BRANCH_TITLE = "Research summary #2"

# Soft-hidden row: archived=1, never listed, GET by id still works.
ARCHIVED = "20261020_160000_0a4c41"
ARCHIVED_TITLE = "Old experiment (archived)"

# In-place compaction (0.19.0 default): same id, older rows active=0.
IN_PLACE = "20261104_083000_1f1ace"
IN_PLACE_TITLE = "Long debugging session (compacted in place)"

# Tool calls + tool results + reasoning + token_count + finish_reason.
TOOL_SESSION = "20261105_101010_70015e"
TOOL_TITLE = "Check disk usage on the build box"

# Transcript with LONG_SESSION_MESSAGES rows (pagination / rendering).
LONG_SESSION = "20261106_070000_10a9ee"
LONG_TITLE = "Marathon pairing session"
LONG_SESSION_MESSAGES = 2400

# Odd characters.
UNICODE_ID = "ünï-çødé-🚀"
UNICODE_TITLE = "ünï-çødé 🚀 — 日本語 ✓ Ωmega"
XSS_TITLE_SESSION = "20261107_120000_5c41b7"
XSS_TITLE = "<script>alert(1)</script> &amp; \"quotes\" 'apos' <b>bold</b>"
# Addressable as /api/sessions/<quote(ODD_ID, safe="")> (see seed summary).
ODD_ID = "odd id %41 #frag ?q=1 +plus"
ODD_TITLE = "Odd id: spaces % # ? +"

# Title of exactly 100 characters, the most Hermes accepts.
MAX_TITLE_SESSION = "20261109_180000_100c4a"
MAX_TITLE = (
    "Quarterly planning notes, follow-ups and action items for the platform "
    "team offsite in Lisbon next Q"
)

# Multimodal user content (text + image_url parts, stored JSON-encoded).
IMAGE_SESSION = "20261108_093000_1a9e00"
IMAGE_TITLE = "What is in this screenshot?"

# Closed with a custom end reason (PATCH end_reason accepts any string).
CUSTOM_END = "api_1793000000_c0ffee00"
CUSTOM_END_TITLE = "Escalated to a human"
CUSTOM_END_REASON = "handoff_to_human"

# Zero-message session and an untitled gateway session.
EMPTY_SESSION = "api_1793100000_e0e0e0e0"
UNTITLED_SESSION = "20261109_220000_0d15c0rd"

# Every notable id above.  The ~177 bulk sessions get fixed ids in the same
# per-source formats (seeded from a fixed RNG) but are not listed here.
NOTABLE = (
    *COMPRESSION_CHAIN,
    BRANCH_PARENT,
    *BRANCHES,
    DELEGATE_PARENT,
    *DELEGATE_CHILDREN,
    DELEGATE_GRANDCHILD,
    DELEGATE_BRANCH,
    ARCHIVED,
    IN_PLACE,
    TOOL_SESSION,
    LONG_SESSION,
    UNICODE_ID,
    XSS_TITLE_SESSION,
    ODD_ID,
    IMAGE_SESSION,
    CUSTOM_END,
    EMPTY_SESSION,
    UNTITLED_SESSION,
    MAX_TITLE_SESSION,
)
# Hidden from the default list (delegates, continuations, archived).
HIDDEN_BY_DEFAULT = (
    COMPRESSION_C1,
    COMPRESSION_TIP,
    *DELEGATE_CHILDREN,
    DELEGATE_GRANDCHILD,
    ARCHIVED,
)
# ...except COMPRESSION_TIP, which appears as the projection of COMPRESSION_ROOT.

# Bench profile.
BENCH_PREFIX = "bench_"  # bench_00000 .. bench_<count-1>
BENCH_LINEAGE_ROOT = "bench-lineage-000"
BENCH_LINEAGE_PREFIX = "bench-lineage-"
BENCH_LINEAGE_SIZE = 500

# Paging profile (the paging peer, devtools/peer/paging.py): transcripts longer
# than the newer servers' 500-row page. Only the first message says PAGED_FIRST_WORD.
PAGED_SESSION = "20261107_080000_9a9e01"
PAGED_MESSAGES = 1200
PAGED_FIRST_WORD = "quokkafirst"
PAGED_LAST_WORD = "wombatlast"
PAGED_3000 = "20261107_090000_9a9e02"
PAGED_3000_MESSAGES = 3000
PAGED_HUGE = "20261107_100000_9a9e03"  # ``--count`` messages, when given
PAGED_COMPACTED = "20261107_110000_9a9e04"  # compacted in place: a summary, then a turn

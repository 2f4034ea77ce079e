"""What each kind of job is called and how its results are shown: one literal table.

The progress page only knows the name stored on the row; each feature's job
module takes its ``Kind`` from here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    name: str
    title: str  # the progress page's heading: "Closing sessions"
    unit: str = "sessions"  # "3 of 10 sessions"
    # The table of ``result["rows"]`` (each a dict), included as ``rows``; none: a count.
    results_template: str = ""
    # What to do about an interrupted job of this kind.
    interrupted: str = "Start it again if it is still wanted."
    # The link to what the job made (``result["next"]``), shown until it is done.
    next_label: str = "Open the result"
    # The link back where the job was started (``result["back"]``), once it has ended.
    back_label: str = "Back"


KINDS = {
    kind.name: kind
    for kind in (
        Kind(
            "bulk_archive",
            "Archiving sessions",
            results_template="bulk/_archive_results.html",
            back_label="Back to the index",
            interrupted=(
                "Submitting the same archive form again replays the outcome of every session "
                "already sent and archives the rest: nothing is sent to Hermes twice."
            ),
        ),
        Kind(
            "bulk_close",
            "Closing sessions",
            results_template="bulk/_close_results.html",
            back_label="Back to the index",
            interrupted=(
                "Submitting the same close form again replays the outcome of every session "
                "already sent and closes the rest: nothing is sent to Hermes twice."
            ),
        ),
        Kind(
            "bulk_delete",
            "Filing a bulk deletion request",
            back_label="Back to the index",
            interrupted=(
                "Sessions filed so far are members of the request linked here. Request the "
                "deletion of the selection again for the rest: a session that already has a "
                "request in progress is listed as such, not filed twice."
            ),
            next_label="Open the bulk deletion request filed so far",
        ),
        Kind(
            "chat_turn",
            "Sending a chat turn",
            unit="turn",
            interrupted=(
                "The dashboard stopped while waiting for Hermes' answer. The turn is shown as "
                "outcome uncertain: check the transcript before sending it again."
            ),
            next_label="Open the turn",
        ),
        Kind(
            "deletion_batch_approval",
            "Deciding a bulk deletion request",
            interrupted=(
                "Members already decided keep their decision (see the request). Decide it again "
                "for the sessions still pending."
            ),
            next_label="Open the bulk deletion request",
        ),
    )
}
# Jobs recorded before four-eyes deletion was called approval.
KINDS["deletion_batch_review"] = dataclasses.replace(
    KINDS["deletion_batch_approval"], name="deletion_batch_review"
)


def of(name: str) -> Kind:
    return KINDS.get(name) or Kind(name, "Background job", unit="steps")

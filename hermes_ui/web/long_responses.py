"""Marking sync views whose responses stream for long (exports).

A worker serves pages on a few long-lived threads ("lanes", see
``hermes_ui.asgi``) and each request holds its lane until its response is
sent. A marked view runs on a thread of its own instead, so a download that
streams for minutes never holds one of them.
"""


def long_response(view):
    view.long_response = True
    return view

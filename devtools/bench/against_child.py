"""One side of ``bench --against``: measures pages of the checkout it runs in.

Started by path with its checkout as the working directory, so the same file
measures the new and the old code. It answers ``round N`` on stdin with one
JSON line of figures (milliseconds of wall and of CPU time), and stops at end of input.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())  # the checkout measured, ahead of any installed copy
# The editable install's finder would fill in, from the installed checkout, any module
# the measured one lacks: an old checkout would run parts of the new code.
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]

CPU = " (CPU)"  # the process's own CPU time: steadier than wall time on a loaded machine
SESSIONS_FROM = 100  # bench_00100 onwards: a session never viewed before, one a round


def _url(names, **kwargs):
    from django.urls import NoReverseMatch, reverse

    for name in names:
        try:
            return reverse(name, kwargs=kwargs)
        except NoReverseMatch:
            continue
    raise SystemExit(f"none of {names} is a URL name here")


def _setup(suite: str):
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from hermes_ui.platform.endpoints import get_endpoint

    try:
        from hermes_ui.access.accounts import ensure_user
    except ImportError:  # a checkout from before per-endpoint access
        from hermes_ui.web.accounts import ensure_user
    from hermes_ui.web.links import session_url

    call_command("migrate", verbosity=0)
    ep = get_endpoint("bench")
    ensure_user("bench-against", "support", "x" * 24)
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-against"))
    pages = {}
    if suite == "session":
        pages["session page, 10 messages, never viewed"] = lambda n: session_url(
            ep.id, f"bench_{SESSIONS_FROM + n:05d}"
        )
        pages["session page, 10 messages, viewed again"] = lambda n: session_url(
            ep.id, "bench_00050"
        )
        pages["floor: /mentions/"] = lambda n: "/mentions/"
    elif suite == "search":
        from hermes_ui.index import sync

        settings.HERMES_INDEX_CONTENT = True
        sync.sync(ep, full=True)
        index = _url(["index_list", "sessions_list", "session_list"], endpoint=ep.id)
        pages["index page"] = lambda n: index
        pages["search 'question' (half of all messages)"] = lambda n: f"{index}?q=question"
        pages["search '4242' (a handful)"] = lambda n: f"{index}?q=4242"
    else:
        raise SystemExit(f"no such suite: {suite}")
    return client, pages


def main() -> None:
    client, pages = _setup(sys.argv[1])
    print(json.dumps({"ready": [n + s for n in pages for s in ("", CPU)]}), flush=True)
    for line in sys.stdin:
        n = int(line.split()[1])
        figures = {}
        for name, url_of in pages.items():
            url = url_of(n)
            started, cpu = time.perf_counter(), time.process_time()
            answer = client.get(url)
            figures[name] = (time.perf_counter() - started) * 1000
            figures[name + CPU] = (time.process_time() - cpu) * 1000
            if answer.status_code != 200:
                raise SystemExit(f"{url}: {answer.status_code}")
        print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()

"""A logged-in HTTP client of the real dashboard (uvicorn), with an SSE frame reader."""

import re
from dataclasses import dataclass

import httpx

from hermes_ui.web.links import session_url
from tests.support.browser import PASSWORD


@dataclass
class Frame:
    event: str
    data: str
    id: int | None


class Ui:
    def __init__(self, server, username="support"):
        self.http = httpx.Client(base_url=server.base_url, timeout=30)
        page = self.http.get("/accounts/login/").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        done = self.http.post(
            "/accounts/login/",
            data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        )
        assert done.status_code == 302, done.text

    def session_page(self, session_id: str) -> str:
        page = self.http.get(session_url("local", session_id))
        assert page.status_code == 200
        return page.text

    def form_key(self, session_id: str) -> str:
        """The key of a new form, as a person gets it: the page's own form while a turn
        runs there, else the one its "Write a message…" link opens."""
        page = self.session_page(session_id)
        opened = re.search(r'id="chat-open" href="([^"]+)"', page)
        if opened is not None:
            box = self.http.get(opened.group(1), headers={"HX-Request": "true"})
            assert box.status_code == 200, box.text
            page = box.text
        return re.search(r'name="form_key" value="([^"]+)"', page).group(1)

    def send(self, session_id: str, message: str, key: str, expect: int = 200) -> str:
        response = self.http.post(
            session_url("local", session_id, "session_chat"),
            data={"message": message, "form_key": key},
            headers={"HX-Request": "true", "X-CSRFToken": self.http.cookies["csrftoken"]},
        )
        assert response.status_code == expect, response.text
        return response.text

    def frames(self, url: str, last_event_id: int | None = None):
        """Yield SSE frames until the caller stops or the stream ends."""
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        with self.http.stream("GET", url, headers=headers) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            event, data, frame_id = None, [], None
            for line in response.iter_lines():
                if line == "":
                    if event is not None:
                        yield Frame(event, "\n".join(data), frame_id)
                    event, data = None, []
                elif line.startswith("id: "):
                    frame_id = int(line[4:])
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])


def stream_url(page: str) -> str:
    return re.search(r'sse-connect="([^"]+)"', page).group(1)

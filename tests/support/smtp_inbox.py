"""A real SMTP server (aiosmtpd) on a free loopback port, keeping every message it is given."""

from __future__ import annotations

import email
import email.policy

import pytest
from aiosmtpd.controller import Controller

from devtools.peer.launcher import free_port


class Inbox:
    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message["X-Envelope-To"] = ",".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list:
        return [m for m in self.messages if address in m["X-Envelope-To"].split(",")]

    def recipients(self) -> set[str]:
        return {a for m in self.messages for a in m["X-Envelope-To"].split(",")}

    @staticmethod
    def text(message) -> str:
        return message.get_body(preferencelist=("plain",)).get_content()


@pytest.fixture
def smtp_inbox(settings):
    """Django's SMTP backend pointed at a real server on loopback; the server's inbox."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    inbox.port = port
    yield inbox
    controller.stop()

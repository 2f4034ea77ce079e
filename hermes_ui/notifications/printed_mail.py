"""The mail backend without ``EMAIL_HOST``: each mail printed, masked as a log line is.

Django's console backend prints the whole raw mail, past the log's redaction.
This one prints the envelope (subject, sender, recipients) and the text
body, each through the log filter's ``mask`` (configured Hermes keys, Bearer
tokens), and nothing else: no raw headers, no attachments.
"""

from django.core.mail.backends import console

from hermes_ui.audit.logfilter import mask


class EmailBackend(console.EmailBackend):
    def write_message(self, message):
        lines = [
            f"Subject: {message.subject}",
            f"From: {message.from_email}",
            f"To: {', '.join(message.to)}",
            "",
            str(message.body),
        ]
        self.stream.write(mask("\n".join(lines)) + "\n")
        self.stream.write("-" * 79 + "\n")

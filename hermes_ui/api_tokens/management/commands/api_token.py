"""``manage.py api_token create USER --name N [--days D] [--write] [--endpoint ID ...]``
and ``api_token revoke``.

``create`` prints the token once, on its own line (for automation); nothing
else keeps it. An operator at the console needs no fresh sign-in; the
lifetime cap of single sign-on people and the endpoint limit apply as on the page.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.web.roles import role_of


class Command(BaseCommand):
    help = "Create or revoke a personal API token."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="issue a token and print it once")
        create.add_argument("username")
        create.add_argument("--name", required=True)
        create.add_argument("--days", type=int, default=tokens.DEFAULT_DAYS)
        create.add_argument("--write", action="store_true", help="read and write scope")
        create.add_argument(
            "--endpoint",
            action="append",
            default=[],
            dest="endpoints",
            help="limit the token to this endpoint (repeat for more; none: all the user's)",
        )
        revoke = sub.add_parser("revoke", help="revoke a token by its key id (or all of a user's)")
        revoke.add_argument("key_id", nargs="?", help="the key id the token list shows")
        revoke.add_argument("--user", help="revoke every live token of this user")

    def handle(self, *args, **options):
        if options["action"] == "create":
            return self._create(options)
        return self._revoke(options)

    def _user(self, username):
        try:
            return get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None

    def _create(self, options):
        user = self._user(options["username"])
        if role_of(user) is None:
            raise CommandError(
                f"{user.username!r} is inactive or has no role: a token would not work."
            )
        try:
            _, plain = tokens.issue(
                user,
                options["name"],
                days=options["days"],
                write=options["write"],
                endpoints=options["endpoints"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(plain)

    def _revoke(self, options):
        if bool(options["key_id"]) == bool(options["user"]):
            raise CommandError("Give a key id or --user USER (one of them).")
        if options["user"]:
            found = list(ApiToken.objects.filter(user=self._user(options["user"])))
        else:
            found = list(ApiToken.objects.filter(key_id=options["key_id"]))
            if not found:
                raise CommandError(f"No token has the key id {options['key_id']!r}.")
        revoked = sum(tokens.revoke(token, None) for token in found)
        self.stdout.write(f"Revoked {revoked} token{'s' if revoked != 1 else ''}.")

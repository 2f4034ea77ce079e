"""A real OpenID provider for the tests: devtools/oidc/provider.mjs (panva's oidc-provider)
under Node, on a free loopback port, with users whose groups the test changes."""

import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from devtools.peer.launcher import free_port

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "devtools" / "oidc" / "provider.mjs"
MODULES = REPO / "devtools" / "oidc" / "node_modules"
CLIENT_ID = "hermes-ui"
CLIENT_SECRET = "hermes-ui-test-secret"
ROLES = "hermes-admins=admin,hermes-reviewers=reviewer,hermes-support=support"
# Each with other groups: what the dashboard maps, and what it must ignore.
USERS = {
    "sub-ada": {"name": "Ada Admin", "preferred_username": "ada", "groups": ["hermes-admins"]},
    "sub-rita": {
        "name": "Rita Reviewer",
        "preferred_username": "rita",
        "groups": ["staff", "hermes-reviewers", "hermes-support"],
    },
    "sub-sam": {"name": "Sam Support", "preferred_username": "sam", "groups": ["hermes-support"]},
    "sub-olga": {"name": "Olga Outsider", "preferred_username": "olga", "groups": ["finance"]},
    # For an admin to link to the local account "reviewer" (tests/support/browser.py's users).
    "sub-lin": {"name": "Lin Linked", "preferred_username": "lin", "groups": ["hermes-admins"]},
    # Calls itself "admin", like a local account: it must get an account of its own.
    "sub-imp": {"name": "Imp", "preferred_username": "admin", "groups": ["hermes-support"]},
}


class OidcProvider:
    def __init__(
        self, folder: Path, redirect_uri: str, post_logout_uri: str, backchannel_uri: str = ""
    ):
        if shutil.which("node") is None or not (MODULES / "oidc-provider").is_dir():
            raise RuntimeError("oidc-provider is not installed: run `make oidc-provider`")
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.state_path = folder / "oidc-state.json"
        self.log_path = folder / "oidc-provider.log"
        self.redirect_uri = redirect_uri
        self.post_logout_uri = post_logout_uri
        self.backchannel_uri = backchannel_uri
        self.state = {
            "users": {sub: {**user, "email": f"{sub}@example.test"} for sub, user in USERS.items()},
            "tamper": None,
        }
        self._write()
        self.process = None

    def _write(self) -> None:
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state))
        tmp.replace(self.state_path)

    def set_groups(self, sub: str, groups: list[str]) -> None:
        self.state["users"][sub]["groups"] = list(groups)
        self._write()

    def set_disabled(self, sub: str, disabled: bool) -> None:
        """A disabled account is unknown to the provider: its refresh gets invalid_grant."""
        self.state["users"][sub]["disabled"] = disabled
        self._write()

    def tamper(self, mode: str | None) -> None:
        """The next ID tokens carry a wrong ``nonce`` or ``iss`` (re-signed with the
        provider's own key), or a ``signature`` by another key, or none of that (None)."""
        self.state["tamper"] = mode
        self._write()

    def start(self) -> "OidcProvider":
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                "node",
                str(SCRIPT),
                "--port",
                str(self.port),
                "--state",
                str(self.state_path),
                "--redirect",
                self.redirect_uri,
                "--post-logout",
                self.post_logout_uri,
                "--client-id",
                CLIENT_ID,
                "--client-secret",
                CLIENT_SECRET,
                *(["--backchannel", self.backchannel_uri] if self.backchannel_uri else []),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=SCRIPT.parent,
        )
        deadline = time.monotonic() + 30
        discovery = self.issuer + "/.well-known/openid-configuration"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(discovery, timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"oidc-provider did not start: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None

    def dashboard_env(self, **extra) -> dict:
        return {
            "HERMES_UI_OIDC_ISSUER": self.issuer,
            "HERMES_UI_OIDC_CLIENT_ID": CLIENT_ID,
            "HERMES_UI_OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "HERMES_UI_OIDC_NAME": "Test IdP",
            "HERMES_UI_OIDC_ROLES": ROLES,
            "HERMES_UI_OIDC_SCOPES": "openid,profile,email,groups",
            # Everyone is due at once: a test runs the round and sees its effect.
            "HERMES_UI_SSO_REVALIDATE_MINUTES": "0.001",
            **extra,
        }

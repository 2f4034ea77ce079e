"""Back-channel logout: which logout tokens are refused, and what an accepted one ends."""

import json
import time
import uuid
from unittest import mock

import jwt
import pytest
from allauth.socialaccount.models import SocialAccount
from cryptography.hazmat.primitives.asymmetric import rsa
from django.test import Client

from hermes_ui.access.models import AccessEnd
from hermes_ui.sso import backchannel
from hermes_ui.sso.config import PROVIDER_ID, allauth_providers, oidc_config

ISSUER = "https://idp.example.test"
CLIENT = "hermes-ui"
URL = "/accounts/oidc/backchannel-logout/"

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
STRANGER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
JWK = {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key())), "kid": "k1"}
KEYS = {"keys": [{**JWK, "alg": "RS256", "use": "sig"}]}


def logout_token(key=KEY, kid="k1", alg="RS256", **changes) -> str:
    claims = {
        "iss": ISSUER,
        "aud": CLIENT,
        "iat": int(time.time()),
        "exp": int(time.time()) + 120,
        "jti": uuid.uuid4().hex,
        "sub": "sub-sam",
        "sid": "sid-1",
        "events": {backchannel.EVENT: {}},
    }
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid})


def verify(token):
    return backchannel.verify(token, issuer=ISSUER, audience=CLIENT, keys=KEYS)


def test_a_good_token_passes(db):
    assert verify(logout_token())["sub"] == "sub-sam"


@pytest.mark.parametrize(
    ("token", "why"),
    [
        (lambda: logout_token(key=STRANGER), "signature is wrong"),  # forged: another key
        (lambda: logout_token(kid="unknown"), "does not publish"),
        (lambda: logout_token(aud="another-client"), "for another client"),
        (lambda: logout_token(iss="https://evil.example.test"), "another issuer"),
        (lambda: logout_token(exp=int(time.time()) - 600), "expired"),
        (lambda: logout_token(iat=int(time.time()) - 3600, exp=None), "too old"),
        (lambda: logout_token(nonce="n-0S6_WzA2Mj"), "must not carry a nonce"),
        (lambda: logout_token(events={"other": {}}), "back-channel logout event"),
        (lambda: logout_token(sub=None, sid=None), "neither sub nor sid"),
        (lambda: jwt.encode({"sub": "x"}, "shared-secret-" * 4, algorithm="HS256"), "accepted"),
        (lambda: "not-a-jwt", "not a JWT"),
    ],
)
def test_a_bad_token_is_refused_with_the_reason(db, token, why):
    with pytest.raises(backchannel.BadToken, match=why):
        verify(token())


def test_a_token_is_accepted_once(db):
    token = logout_token()
    verify(token)
    with pytest.raises(backchannel.BadToken, match="already used"):
        verify(token)


@pytest.fixture
def backchannel_sso(settings):
    settings.HERMES_UI_OIDC = oidc_config(
        issuer=ISSUER,
        client_id=CLIENT,
        client_secret="s3cret",
        name="Example IdP",
        role_claim=None,
        roles="hermes-support=support",
        scopes=["openid"],
    )
    settings.SOCIALACCOUNT_PROVIDERS = allauth_providers(settings.HERMES_UI_OIDC)
    with mock.patch.object(backchannel, "provider_keys", return_value=(ISSUER, KEYS)):
        yield settings


def test_the_endpoint_ends_the_persons_sessions(backchannel_sso, users):
    SocialAccount.objects.create(user=users["support"], provider=PROVIDER_ID, uid="sub-sam")
    signed_in = Client()
    signed_in.force_login(users["support"])
    assert "/accounts/login/" not in signed_in.get("/").get("Location", "")
    answer = Client(enforce_csrf_checks=True).post(URL, {"logout_token": logout_token()})
    assert answer.status_code == 200 and answer.json() == {"ended": 1}
    assert AccessEnd.objects.filter(user=users["support"]).exists()
    assert signed_in.get("/")["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(
    "body",
    [{}, {"logout_token": "garbage"}, {"logout_token": "x.y.z"}],
)
def test_a_bad_request_is_a_json_400_never_a_500(backchannel_sso, db, body):
    answer = Client().post(URL, body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_request"


def test_junk_is_refused_before_the_providers_keys_are_fetched(backchannel_sso, db):
    answer = Client().post(URL, {"logout_token": "garbage"})
    assert answer.status_code == 400
    assert backchannel.provider_keys.call_count == 0


def test_a_token_with_only_sid_finds_the_person_by_their_last_sign_in(backchannel_sso, users):
    from django.utils import timezone

    from hermes_ui.sso.models import SsoCheck

    SsoCheck.objects.create(user=users["reviewer"], checked_at=timezone.now(), sid="sid-9")
    answer = Client().post(URL, {"logout_token": logout_token(sub=None, sid="sid-9")})
    assert answer.status_code == 200 and answer.json() == {"ended": 1}
    assert list(AccessEnd.objects.values_list("user__username", flat=True)) == ["reviewer"]


def test_a_forged_token_ends_nothing(backchannel_sso, users):
    SocialAccount.objects.create(user=users["support"], provider=PROVIDER_ID, uid="sub-sam")
    answer = Client().post(URL, {"logout_token": logout_token(key=STRANGER)})
    assert answer.status_code == 400 and "signature" in answer.json()["error_description"]
    assert not AccessEnd.objects.exists()


def test_without_single_sign_on_there_is_no_endpoint(db):
    assert Client().post(URL, {"logout_token": logout_token()}).status_code == 404

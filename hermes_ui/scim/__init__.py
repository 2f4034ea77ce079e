"""SCIM 2.0 provisioning (RFC 7643/7644) at /scim/v2/, on django-scim2.

The identity provider creates people, deactivates them and sets their groups;
the groups are ``access.IdpGroup`` rows whose memberships have origin ``scim``.
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from accounts.tokens import api_token_authenticate


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>` with a personal API token."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, value = header.partition(" ")
        if keyword != self.keyword:
            return None
        token = api_token_authenticate(value.strip())
        if token is None:
            raise exceptions.AuthenticationFailed("The token is unknown, revoked or malformed.")
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = BearerTokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer",
                "description": "A personal API token, created under API tokens in the portal "
                               "or with `manage.py apitoken_create`."}

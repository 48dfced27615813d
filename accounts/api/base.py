"""The base of every tenant API view: the tenant from the URL, its scope, the access policy,
and idempotent creates (throttling and pagination come from `portal.api.base`)."""

from __future__ import annotations

import hashlib
import json

from django.db import IntegrityError, transaction
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse
from rest_framework import permissions
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from accounts import access
from accounts.business_types import EVERY_TYPE, BusinessTypes, locations_only, refusal_message
from accounts.models import IdempotencyRecord
from accounts.selectors import business_get, membership_for_entry
from accounts.tokens import effective_role
from portal.api.base import LimitOffset, TokenRateThrottle
from portal.api.errors import ApiErrorSerializer, Conflict
from portal.api.schema import PortalAutoSchema
from portal.tenancy import enter_tenant_scope, exit_tenant_scope

__all__ = ["BusinessAPIMixin", "IdempotentCreateMixin", "PolicyPermission", "TenantAPIMixin",
           "locations_only"]


class PolicyPermission(permissions.BasePermission):
    """Asks the access policy (`accounts.access`) about the operation's URL name, with the
    lower of the member's and the token's role."""

    message = "Your role does not allow this."

    def has_permission(self, request, view):
        membership = getattr(view, "membership", None)
        if membership is None:
            return False
        reason = access.refusal(name=getattr(request.resolver_match, "url_name", None) or "",
                                method=request.method, role=view.role,
                                limited=membership.limited_to_id is not None)
        if reason is not None:
            self.message = reason
            return False
        return True


class TenantAPIMixin:
    """Resolves `/api/v1/t/<slug>/`: non-members and tokens of another reseller get 404.

    Sets `self.tenant`, `self.membership` and `self.role` (the lower of the member's role and
    the token's), and runs the view inside the tenant scope.
    """

    permission_classes = [permissions.IsAuthenticated, PolicyPermission]
    throttle_classes = [TokenRateThrottle]
    pagination_class = LimitOffset

    def initial(self, request, *args, **kwargs):
        # Authenticate first, so an anonymous request gets 401 rather than a 404.
        self.perform_authentication(request)
        if request.user and request.user.is_authenticated:
            membership = membership_for_entry(user=request.user, slug=kwargs["slug"])
            token = request.auth if hasattr(request.auth, "key_hash") else None
            if token is not None and token.reseller_id != membership.reseller_id:
                raise Http404("No such reseller.")
            self.tenant = membership.reseller
            self.membership = membership
            self.role = effective_role(membership, token)
            self._scope_token = enter_tenant_scope(membership.reseller)
        super().initial(request, *args, **kwargs)

    def _leave_scope(self) -> None:
        scope = getattr(self, "_scope_token", None)
        if scope is not None:
            exit_tenant_scope(scope)
            self._scope_token = None

    def handle_exception(self, exc):
        try:
            return super().handle_exception(exc)
        except Exception:
            # DRF re-raises what no handler answers, skipping finalize_response.
            self._leave_scope()
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        self._leave_scope()
        return response

    def get_queryset(self):
        """Views define `get_tenant_queryset()`; schema generation, which runs with no tenant,
        gets an empty queryset of the serializer's model."""
        if getattr(self, "swagger_fake_view", False):
            return self.get_serializer_class().Meta.model.objects.none()
        return self.get_tenant_queryset()

    def get_tenant_queryset(self):
        raise NotImplementedError

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context.update(tenant=getattr(self, "tenant", None),
                       membership=getattr(self, "membership", None))
        return context


class BusinessTypesSchema(PortalAutoSchema):
    """Documents the 409 of an operation that applies to some types of business only."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        supported = getattr(self.view, "business_types", EVERY_TYPE)
        if supported is not EVERY_TYPE and "409" not in responses:
            responses["409"] = self._get_response_for_code(OpenApiResponse(
                ApiErrorSerializer,
                description=f"`unsupported_business_type`: {supported.subject} belong to a "
                            "single location; a reseller or an enterprise has none."), "409")
        return responses


class BusinessAPIMixin(TenantAPIMixin):
    """An operation on one business, named by `remote_id` in the URL: 404 outside the tenant
    or the member's subtree (the API's twin of `accounts.tenant_views.BusinessTabMixin`).

    `business_types` says which types of business the operation applies to
    (`accounts.business_types`): any other is answered 409 `unsupported_business_type`, naming
    the rule, and nothing is asked of the provider."""

    business_types: BusinessTypes = EVERY_TYPE
    schema = BusinessTypesSchema()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if self.business_types is EVERY_TYPE:
            return
        business = self.get_business()
        if not self.business_types.supports(business):
            raise Conflict(f"{refusal_message(business, self.business_types)} Use one of its "
                           f"locations: businesses/?type=Business&within={business.remote_id}.",
                           code="unsupported_business_type")

    def get_business(self):
        if not hasattr(self, "_business"):
            self._business = business_get(tenant=self.tenant, membership=self.membership,
                                          remote_id=self.kwargs["remote_id"])
        return self._business


class IdempotentCreateMixin:
    """POSTs with an `Idempotency-Key` header are answered once: a retry with the same key and
    body replays the first response; the same key with another body is refused."""

    def idempotent(self, request, create):
        key = request.headers.get("Idempotency-Key", "").strip()
        if not key:
            return create()
        if len(key) > 255:
            raise ValidationError({"Idempotency-Key": ["At most 255 characters."]})
        fingerprint = hashlib.sha256(
            json.dumps(request.data, sort_keys=True, default=str).encode()
            + request.path.encode()).hexdigest()
        found = IdempotencyRecord.objects.filter(reseller=self.tenant, user=request.user,
                                                 key=key).first()
        if found is not None:
            return self._replay(found, fingerprint)
        response = create()
        if response.status_code < 500:
            try:
                with transaction.atomic():
                    IdempotencyRecord.objects.create(
                        reseller=self.tenant, user=request.user, key=key,
                        request_fingerprint=fingerprint, response_status=response.status_code,
                        response_body=response.data)
            except IntegrityError:  # a concurrent twin got there first: answer as it did
                found = IdempotencyRecord.objects.get(reseller=self.tenant, user=request.user,
                                                      key=key)
                return self._replay(found, fingerprint)
        return response

    def _replay(self, record, fingerprint):
        if record.request_fingerprint != fingerprint:
            raise ValidationError({"Idempotency-Key": [
                "This key was already used for a different request."]})
        response = Response(record.response_body, status=record.response_status)
        response["Idempotent-Replayed"] = "true"
        return response

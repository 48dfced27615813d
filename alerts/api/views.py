"""The alerts API: your notifications, marking them read, your channels, and the account's
rules."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.response import Response

from accounts.api.base import TenantAPIMixin
from alerts import selectors, services
from alerts.api.serializers import (
    AlertRulesSerializer,
    NotificationPreferencesSerializer,
    NotificationQuerySerializer,
    NotificationSerializer,
    ReadAllResultSerializer,
    ReadAllSerializer,
    rules_body,
)
from alerts.kinds import Kind
from portal.api.docs import ERRORS, READ_ERRORS, WRITE_ERRORS

PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The notification's id.")
LIST_ERRORS = {code: ERRORS[code] for code in (400, 401, 403, 404, 429)}


@extend_schema(summary="Your notifications, unread first",
               parameters=[NotificationQuerySerializer],
               responses={200: NotificationSerializer(many=True), **LIST_ERRORS})
class NotificationList(TenantAPIMixin, generics.ListAPIView):
    """Your notifications in this account, unread first then newest first; a member limited
    to part of the account gets those of their part only. `unread=true` keeps the unread ones,
    `kind` one kind. A parameter this operation does not take is a 400 naming it."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = NotificationSerializer
    filter_backends: list = []

    def get_tenant_queryset(self):
        query = NotificationQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return selectors.notification_list(membership=self.membership,
                                           unread=query.validated_data.get("unread"),
                                           kind=query.validated_data.get("kind", ""))


@extend_schema(summary="Mark a notification read", request=None, parameters=[PK],
               responses={200: NotificationSerializer, **WRITE_ERRORS})
class NotificationRead(TenantAPIMixin, generics.GenericAPIView):
    """Marks one of your notifications read (once: a second call keeps the first time)."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = NotificationSerializer
    http_method_names = ["post", "options"]

    def post(self, request, *args, **kwargs):
        notification = selectors.notification_get(membership=self.membership,
                                                  pk=kwargs["pk"])
        if notification is None:
            raise Http404("No such notification.")
        services.notification_read(tenant=self.tenant, actor=request.user,
                                   notification=notification)
        return Response(NotificationSerializer(notification).data)


@extend_schema(summary="Mark all your notifications read", request=ReadAllSerializer,
               responses={200: ReadAllResultSerializer, **WRITE_ERRORS})
class NotificationReadAll(TenantAPIMixin, generics.GenericAPIView):
    """Marks every unread notification of yours read, or those of one `kind`."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = ReadAllSerializer
    http_method_names = ["post", "options"]

    def post(self, request, *args, **kwargs):
        body = ReadAllSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        marked = services.notification_read_all(
            tenant=self.tenant, actor=request.user, membership=self.membership,
            kind=body.validated_data.get("kind", ""))
        return Response({"marked": marked})


class NotificationPreferences(TenantAPIMixin, generics.GenericAPIView):
    """How each kind of alert reaches you: off, in the portal, by email at once, or in the
    daily digest (sent at the digest hour in your profile's time zone). Without a choice of
    your own, owners and managers get the portal and the digest (owners get a rejected API key
    at once), viewers the portal only."""

    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = NotificationPreferencesSerializer
    pagination_class = None
    http_method_names = ["get", "patch", "options", "head"]

    @extend_schema(summary="Your channel for each kind of alert",
                   responses={200: NotificationPreferencesSerializer, **READ_ERRORS})
    def get(self, request, *args, **kwargs):
        return Response(selectors.notification_channels(membership=self.membership))

    @extend_schema(summary="Change your channels",
                   request=NotificationPreferencesSerializer,
                   responses={200: NotificationPreferencesSerializer, **WRITE_ERRORS})
    def patch(self, request, *args, **kwargs):
        body = NotificationPreferencesSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        return Response(services.notification_preferences_update(
            tenant=self.tenant, actor=request.user, membership=self.membership,
            channels=dict(body.validated_data)))


class AlertRules(TenantAPIMixin, generics.GenericAPIView):
    """The account's alert rules: every kind is on with sensible settings until an owner
    changes it. Managers read them; owners without a limit change them (all or none: a 400
    names each `kind.setting` at fault)."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"patch": dict.fromkeys(
        Kind.values, "Each setting within the bounds of its kind, as on the settings page.")}


    api_description = __doc__  # written for API users (portal.api.schema)
    serializer_class = AlertRulesSerializer
    pagination_class = None
    http_method_names = ["get", "patch", "options", "head"]

    @extend_schema(summary="The account's alert rules",
                   responses={200: AlertRulesSerializer, **READ_ERRORS, 403: ERRORS[403]})
    def get(self, request, *args, **kwargs):
        return Response(rules_body(selectors.alert_rule_map(tenant=self.tenant)))

    @extend_schema(summary="Change the alert rules (owners)", request=AlertRulesSerializer,
                   responses={200: AlertRulesSerializer, **WRITE_ERRORS})
    def patch(self, request, *args, **kwargs):
        body = AlertRulesSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        changes = {kind: dict(values) for kind, values in body.validated_data.items()}
        return Response(rules_body(services.alert_rules_update(
            tenant=self.tenant, actor=request.user, changes=changes)))

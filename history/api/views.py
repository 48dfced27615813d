"""The history API: the series of the account (or of a limited member's subtree) and of one
business, from the days the portal recorded."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.response import Response

from accounts.api.base import BusinessAPIMixin, TenantAPIMixin
from history.api.serializers import HistoryQuerySerializer, HistorySerializer, history_body
from history.selectors import default_range, history_days, history_series, history_subject
from portal.api.docs import ERRORS

LIST_ERRORS = {code: ERRORS[code] for code in (400, 401, 403, 404, 429)}
SERIES = ("Each point is the last recorded day of its period (the portal records one day per "
          "business after each sync and every evening, and keeps two years): locations, "
          "their listing sites by state and the synced share, locations needing action, and "
          "review counts by rating with the average over the rated reviews. A period without "
          "a recorded day has no point. A parameter this operation does not take, a date that "
          "is not YYYY-MM-DD or `from` after `to` is a 400 naming it.")


class _HistoryView(generics.GenericAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "from": "On or before `to`, within the days the history keeps.",
        "to": "On or after `from`.",
    }}

    serializer_class = HistorySerializer
    filter_backends: list = []
    pagination_class = None

    def series(self, business=None):
        query = HistoryQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        interval = data["interval"]
        start, end = default_range(interval=interval, start=data.get("from"),
                                   end=data.get("to"))
        subject = history_subject(tenant=self.tenant, membership=self.membership,
                                  business=business)
        points = history_series(days=history_days(tenant=self.tenant, subject=subject),
                                start=start, end=end, interval=interval)
        return Response(history_body(subject=subject, start=start, end=end, interval=interval,
                                     points=points))


@extend_schema(
    summary="History of the account, or of your part of it",
    description="The account's series, with what only the account has (competitor metrics, "
                "the competitive ranking, the AI-search configuration, survey scores). A "
                "member limited to part of the account gets the sums of their subtree instead "
                "(`subject`: `subtree`). " + SERIES,
    parameters=[HistoryQuerySerializer], responses={200: HistorySerializer, **LIST_ERRORS})
class AccountHistory(TenantAPIMixin, _HistoryView):
    def get(self, request, *args, **kwargs):
        return self.series()


@extend_schema(
    summary="History of a business",
    description="A location's own figures; a reseller's or an enterprise's are the sums of the "
                "locations under it (its review counts are its own when the provider gave "
                "some, else its locations' added up). " + SERIES,
    parameters=[HistoryQuerySerializer], responses={200: HistorySerializer, **LIST_ERRORS})
class BusinessHistory(BusinessAPIMixin, _HistoryView):
    def get(self, request, *args, **kwargs):
        return self.series(business=self.get_business())

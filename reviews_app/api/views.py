"""The reviews API: review counts (live from the provider), competitor metrics, the competitive
ranking, surveys and their responses (mirrored)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.response import Response

from accounts.api.base import (
    BusinessAPIMixin,
    IdempotentCreateMixin,
    TenantAPIMixin,
    locations_only,
)
from accounts.models import Business
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY
from portal.api.errors import ApiErrorSerializer
from reviews_app import selectors, services
from reviews_app.api.serializers import (
    CompetitiveRankingQuerySerializer,
    CompetitiveRankingSerializer,
    CompetitorMetricQuerySerializer,
    CompetitorMetricSerializer,
    ReviewCountQuerySerializer,
    ReviewCountSerializer,
    SurveyAddSerializer,
    SurveyResponseDetailSerializer,
    SurveyResponseQuerySerializer,
    SurveyResponseSerializer,
    SurveySerializer,
)

READ_ERRORS = {c: ERRORS[c] for c in (401, 403, 404, 429)}
LIST_ERRORS = {c: ERRORS[c] for c in (400, 401, 403, 404, 429)}
PROVIDER_ERRORS = {
    422: OpenApiResponse(ApiErrorSerializer, description="The provider refused the request; "
                         "`provider_code` says why."),
    503: OpenApiResponse(ApiErrorSerializer, description="The provider is unavailable."),
}
SURVEY_ID = OpenApiParameter("remote_id", int, OpenApiParameter.PATH,
                             description="The provider's id of the survey.")


@extend_schema(
    tags=["reviews"], summary="Review count by rating of a business (live)",
    description="Asked of the provider on demand (cached for a few minutes). The period is "
                "`date_from` to `date_to` in the query and in the reply alike; a parameter "
                "this operation does not take (such as the former `from` and `to`) is a 400 "
                "that names it.",
    parameters=[ReviewCountQuerySerializer],
    responses={200: ReviewCountSerializer, **LIST_ERRORS, **PROVIDER_ERRORS})
class ReviewCountView(BusinessAPIMixin, generics.GenericAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "date_from": "On or before `date_to`.",
        "date_to": "On or after `date_from`.",
    }}

    business_types = locations_only("Review counts")
    serializer_class = ReviewCountSerializer
    filter_backends: list = []
    pagination_class = None

    def get(self, request, *args, **kwargs):
        business = self.get_business()
        query = ReviewCountQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        # The provider's failures answer 422 or 503 through the API's error handler.
        result = services.review_count_by_rating_fetch(
            tenant=self.tenant, business=business, from_date=data["date_from"],
            to_date=data["date_to"], sources=data["sources"])
        body = {"business_number": business.remote_id, "date_from": data["date_from"],
                "date_to": data["date_to"], "sources": sorted(data["sources"]),
                "counts": {str(r): c for r, c in sorted(result.counts.items())},
                "total": result.total, "average": result.average, "unrated": result.unrated,
                "fetched_at": result.fetched_at, "from_cache": result.from_cache}
        return Response(ReviewCountSerializer(body).data)


@extend_schema(tags=["reviews"], summary="Competitor metrics",
               parameters=[CompetitorMetricQuerySerializer],
               responses={200: CompetitorMetricSerializer(many=True), **LIST_ERRORS})
class CompetitorMetricList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = CompetitorMetricSerializer
    filter_backends: list = []

    def get_tenant_queryset(self):
        query = CompetitorMetricQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return selectors.competitor_metric_list(
            tenant=self.tenant, brand=data.get("brand", ""), source=data.get("source", ""),
            search=data.get("search", ""), sort=data["ordering"])


@extend_schema(
    tags=["reviews"], summary="A competitive ranking: an enterprise's, or the account's",
    description="Without `business_number`, the whole account (every brand together) as of "
                "the last sync. With an enterprise's number, that enterprise against its own "
                "competitors, asked of the provider over the last twelve months.",
    parameters=[CompetitiveRankingQuerySerializer],
    responses={200: CompetitiveRankingSerializer, **LIST_ERRORS, **PROVIDER_ERRORS})
class CompetitiveRankingDetail(TenantAPIMixin, generics.RetrieveAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "business_number": "The account number or one of the account's enterprises.",
    }}

    serializer_class = CompetitiveRankingSerializer
    filter_backends: list = []

    def get_object(self):
        query = CompetitiveRankingQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        number = query.validated_data.get("business_number") or self.tenant.account_number
        if number == self.tenant.account_number:
            ranking = selectors.competitive_ranking_get(tenant=self.tenant)
            if ranking is None:
                raise exceptions.NotFound("No ranking of the whole account has been mirrored "
                                          "yet; it is fetched by a sync.")
            ranking.name = self.tenant.name
            return ranking
        enterprise = selectors.ranking_enterprise_list(tenant=self.tenant).filter(
            remote_id=number).first()
        if enterprise is None:
            raise exceptions.ValidationError({"business_number": [self._not_rankable(number)]})
        ranking = services.competitive_ranking_fetch(tenant=self.tenant,
                                                     business=enterprise).ranking
        ranking.name = enterprise.name
        return ranking

    def _not_rankable(self, number: int) -> str:
        business = selectors.business_kind_get(tenant=self.tenant, remote_id=number)
        if business is None:
            return f"No business with number {number} in this account."
        kind = (Business.Type(business.type).label.lower()
                if business.type in Business.Type.values else "business of another kind")
        return (f"{business.name} ({number}) is a {kind}: a ranking is of an enterprise "
                "against its own competitors, or of the whole account (its account number).")


@extend_schema(tags=["reviews"])
class SurveyListView(IdempotentCreateMixin, TenantAPIMixin,
                     generics.ListCreateAPIView):
    """The surveys whose responses are mirrored (the provider cannot list surveys)."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "survey_id": "A survey of your provider account, not followed yet.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = SurveySerializer
    filter_backends: list = []

    def get_serializer_class(self):
        if self.request is not None and self.request.method == "POST":
            return SurveyAddSerializer
        return SurveySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return SurveySerializer.Meta.model.unscoped.none()
        return selectors.survey_list(tenant=self.tenant)

    @extend_schema(summary="List surveys",
                   responses={200: SurveySerializer(many=True), **LIST_ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Follow a survey by its id",
                   description="The provider is asked first: an id it does not know in the "
                               "account is a 400 on `survey_id`, and nothing is saved.",
                   parameters=[IDEMPOTENCY_KEY], request=SurveyAddSerializer,
                   responses={201: SurveySerializer, **ERRORS, **PROVIDER_ERRORS})
    def post(self, request, *args, **kwargs):
        def create():
            existing = set(selectors.survey_list(tenant=self.tenant)
                           .values_list("remote_id", flat=True))
            body = SurveyAddSerializer(data=request.data, context={"existing": existing})
            body.is_valid(raise_exception=True)
            try:
                survey = services.survey_follow(tenant=self.tenant, actor=request.user,
                                                remote_id=body.validated_data["remote_id"],
                                                name=body.validated_data["name"])
            except DjangoValidationError as exc:
                raise exceptions.ValidationError(
                    {("survey_id" if name == "remote_id" else name): messages
                     for name, messages in exc.message_dict.items()}) from exc
            return Response(SurveySerializer(survey).data, status=status.HTTP_201_CREATED)

        return self.idempotent(request, create)


@extend_schema(tags=["reviews"], parameters=[SURVEY_ID])
class SurveyDetail(TenantAPIMixin, generics.RetrieveDestroyAPIView):
    """One followed survey; DELETE unfollows it."""

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = SurveySerializer
    filter_backends: list = []

    def get_object(self):
        survey = selectors.survey_get(tenant=self.tenant, remote_id=self.kwargs["remote_id"])
        if survey is None:
            raise exceptions.NotFound("No such survey is followed.")
        return survey

    @extend_schema(summary="One followed survey",
                   responses={200: SurveySerializer, **READ_ERRORS})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Unfollow a survey",
                   description="The portal forgets the survey and its mirrored responses; the "
                               "survey stays in the provider's account and can be followed "
                               "again.",
                   responses={204: None, **READ_ERRORS})
    def delete(self, request, *args, **kwargs):
        services.survey_unfollow(tenant=self.tenant, actor=request.user,
                                 survey=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=["reviews"], summary="Responses to a survey, newest first",
               parameters=[SurveyResponseQuerySerializer],
               responses={200: SurveyResponseSerializer(many=True), **LIST_ERRORS})
class SurveyResponseList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = SurveyResponseSerializer
    filter_backends: list = []

    def get_tenant_queryset(self):
        survey = selectors.survey_get(tenant=self.tenant, remote_id=self.kwargs["remote_id"])
        if survey is None:
            raise exceptions.NotFound("No such survey.")
        query = SurveyResponseQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return (selectors.survey_response_list(tenant=self.tenant, survey=survey,
                                               **query.validated_data)
                .select_related("survey"))


@extend_schema(tags=["reviews"], summary="One survey response with all its answers",
               responses={200: SurveyResponseDetailSerializer, **READ_ERRORS})
class SurveyResponseDetail(TenantAPIMixin, generics.RetrieveAPIView):
    serializer_class = SurveyResponseDetailSerializer
    filter_backends: list = []

    def get_object(self):
        response = selectors.survey_response_get(tenant=self.tenant,
                                                 remote_id=self.kwargs["remote_id"])
        if response is None:
            raise exceptions.NotFound("No such survey response.")
        return response

"""Pages of the reviews app: a business's review chart, and the account's competitor metrics,
competitive ranking and survey responses."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.generic import TemplateView

from accounts.tenant_views import BusinessTabMixin, TenantViewMixin, locations_only
from portal.charts import PALETTE, Segment, bar_chart
from portal.exceptions import ProviderUnavailable
from portal.forms import add_service_errors
from portal.pagination import paginate
from reviews_app import selectors, services
from reviews_app.forms import (
    REVIEW_SOURCES,
    CompetitorFilterForm,
    RankingForm,
    ReviewCountForm,
    SurveyAddForm,
    SurveyFilterForm,
)
from reviews_app.labels import language_label, parameter_label, question_type_label

COMPETITORS_PAGE_SIZE = 25
RESPONSES_PAGE_SIZE = 25
RATING_COLORS = {5: PALETTE["ok"], 4: PALETTE["ok"], 3: PALETTE["warn"], 2: PALETTE["bad"],
                 1: PALETTE["bad"]}


# -- reviews tab --------------------------------------------------------------------------------

class BusinessReviewsView(BusinessTabMixin, TemplateView):
    business_types = locations_only("Review counts")
    template_name = "reviews_app/reviews.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        form = ReviewCountForm.from_query(self.request.GET)
        context["form"] = form
        if not form.is_valid():
            return context
        data = form.cleaned_data
        try:
            result = services.review_count_by_rating_fetch(
                tenant=self.tenant, business=business, from_date=data["date_from"],
                to_date=data["date_to"], sources=data["sources"])
        except ProviderUnavailable as exc:
            context["provider_error"] = str(exc)
            return context
        labels = dict(REVIEW_SOURCES)
        context["result"] = result
        context["source_labels"] = [labels[s] for s in data["sources"]] or ["all sources"]
        context["chart"] = bar_chart(
            [Segment(f"{rating} star{'s' if rating > 1 else ''}", result.counts.get(rating, 0),
                     RATING_COLORS[rating]) for rating in range(5, 0, -1)],
            title=f"Reviews of {business.name} by rating", label_width=70)
        return context


# -- competitor metrics -------------------------------------------------------------------------

class CompetitorMetricsView(TenantViewMixin, TemplateView):
    template_name = "reviews_app/competitor_metrics.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        form = CompetitorFilterForm(
            self.request.GET or None,
            brands=selectors.competitor_metric_brands(tenant=self.tenant),
            sources=selectors.competitor_metric_sources(tenant=self.tenant))
        chosen = form.values() if form.is_bound else dict.fromkeys(
            ("brand", "source", "q", "sort"), "")
        context["filters"] = form
        context["sort"] = chosen["sort"] or "brand"
        context["filtered"] = any(chosen[name] for name in ("brand", "source", "q"))
        context["page_obj"] = paginate(
            self.request,
            selectors.competitor_metric_list(tenant=self.tenant, brand=chosen["brand"],
                                             source=chosen["source"], search=chosen["q"],
                                             sort=chosen["sort"]),
            COMPETITORS_PAGE_SIZE)
        return context


# -- competitive ranking ------------------------------------------------------------------------

@dataclass
class RankingRow:
    name: str
    count: int
    rating: Decimal | float | None
    positive: int
    neutral: int
    negative: int
    positive_percent: int | None
    neutral_percent: int | None
    negative_percent: int | None
    is_ranked: bool = False  # the business the ranking is of (the others are competitors)

    @classmethod
    def from_json(cls, data: dict[str, Any], *, is_ranked: bool = False) -> RankingRow:
        return cls(name=str(data.get("name") or ""), count=int(data.get("count") or 0),
                   rating=data.get("rating"), positive=int(data.get("positiveCount") or 0),
                   neutral=int(data.get("neutralCount") or 0),
                   negative=int(data.get("negativeCount") or 0),
                   positive_percent=data.get("positivePercent"),
                   neutral_percent=data.get("neutralPercent"),
                   negative_percent=data.get("negativePercent"), is_ranked=is_ranked)

    @property
    def positive_share(self) -> float:
        if self.positive_percent is not None:
            return float(self.positive_percent)
        mentions = self.positive + self.neutral + self.negative
        return round(100 * self.positive / mentions, 1) if mentions else 0.0


METRICS = {
    "rating": ("Average rating", lambda row: float(row.rating or 0)),
    "positive": ("Positive mentions (%)", lambda row: row.positive_share),
    "count": ("Number of reviews", lambda row: float(row.count)),
}


class CompetitiveRankingView(TenantViewMixin, TemplateView):
    """The ranking of one enterprise against its own competitors (asked of the provider, the
    default), or of the whole account (mirrored by the sync)."""

    template_name = "reviews_app/competitive_ranking.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        enterprises = list(selectors.ranking_enterprise_list(tenant=self.tenant))
        account_number = self.tenant.account_number
        form = RankingForm(self.request.GET, enterprises=enterprises,
                           account_number=account_number, account_name=self.tenant.name)
        number, metric = form.chosen()
        context["form"] = form
        is_account = number == account_number
        ranking = None
        if is_account:
            ranked_name = self.tenant.name
            ranking = selectors.competitive_ranking_get(tenant=self.tenant)
        else:
            business = next(e for e in enterprises if e.remote_id == number)
            ranked_name = business.name
            try:
                fetched = services.competitive_ranking_fetch(tenant=self.tenant,
                                                             business=business)
            except ProviderUnavailable as exc:
                context["provider_error"] = str(exc)
            else:
                ranking, context["from_cache"] = fetched.ranking, fetched.from_cache
                context["window"] = services.report_window()
        context.update(ranking=ranking, ranked_name=ranked_name, is_account=is_account,
                       has_enterprises=bool(enterprises))
        if ranking is None:
            return context
        ranked = RankingRow.from_json(ranking.raw or {}, is_ranked=True)
        # The provider names the account by its own record ("Northwind Digital"); people
        # know it by the reseller's name in this portal.
        ranked.name = ranked_name
        ranked.count, ranked.rating = ranking.count, ranking.rating
        ranked.positive, ranked.neutral = ranking.positive_count, ranking.neutral_count
        ranked.negative = ranking.negative_count
        competitors = [RankingRow.from_json(c) for c in ranking.competitors
                       if isinstance(c, dict)]
        rows = [ranked, *competitors]
        title, value_of = METRICS[metric]
        rows.sort(key=lambda row: (-value_of(row), row.name))
        context["rows"] = rows
        context["competitor_count"] = len(competitors)
        context["metric_title"] = title
        context["chart"] = bar_chart(
            [Segment(row.name, value_of(row),
                     PALETTE["info"] if row.is_ranked else PALETTE["muted"]) for row in rows],
            title=f"{title}: {ranked_name} against its competitors", label_width=190,
            width=560)
        return context


# -- surveys ------------------------------------------------------------------------------------

@dataclass
class AnswerView:
    """One answer of a survey response, shaped for its template by question type."""

    title: str
    type: str
    answer: str
    visible: bool
    min_value: int | None = None
    max_value: int | None = None
    children: list[AnswerView] = field(default_factory=list)

    @property
    def is_matrix(self) -> bool:
        return self.type.startswith("matrix")

    @property
    def type_label(self) -> str:
        return question_type_label(self.type)

    @property
    def choices(self) -> list[str]:
        return [part.strip() for part in self.answer.split(",") if part.strip()]

    @property
    def nps_group(self) -> str:
        try:
            score = int(self.answer)
        except ValueError:
            return ""
        return "promoter" if score >= 9 else "passive" if score >= 7 else "detractor"

    @property
    def percent_of_scale(self) -> int:
        try:
            value = float(self.answer)
        except ValueError:
            return 0
        low, high = self.min_value or 0, self.max_value or 0
        return round(100 * (value - low) / (high - low)) if high > low else 0


def answer_views(answers: list[Any]) -> list[AnswerView]:
    views = []
    for raw in answers or []:
        if not isinstance(raw, dict):
            continue
        views.append(AnswerView(
            title=str(raw.get("questionTitle") or ""), type=str(raw.get("questionType") or ""),
            answer="" if raw.get("answer") is None else str(raw.get("answer")),
            visible=bool(raw.get("visible", True)) and not raw.get("hidden", False),
            min_value=raw.get("minValue"), max_value=raw.get("maxValue"),
            children=answer_views(raw.get("childAnswers") or []),
        ))
    return views


class SurveyResponsesView(TenantViewMixin, TemplateView):
    template_name = "reviews_app/survey_responses.html"

    def get_context_data(self, add_form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        surveys = list(selectors.survey_list(tenant=self.tenant))
        context["surveys"] = surveys
        context["unknown_surveys"] = [s for s in surveys if s.unknown_since is not None]
        if self.may_change:
            context["add_form"] = add_form or SurveyAddForm(existing=set())
        form = SurveyFilterForm(self.request.GET, surveys=surveys)
        context["filters"] = form
        if not surveys:
            return context
        form.is_valid()  # the fields that are valid are used; the others show their error
        if "survey" in self.request.GET and form.has_error("survey"):
            raise Http404("No such survey.")
        cleaned = form.cleaned_data
        by_id = {survey.remote_id: survey for survey in surveys}
        # By default a survey the provider still knows, not one the sync now skips.
        known = [s for s in surveys if s.unknown_since is None]
        survey = by_id.get(cleaned.get("survey")) or (known or surveys)[0]
        context["survey"] = survey
        context["page_obj"] = paginate(
            self.request,
            selectors.survey_response_list(tenant=self.tenant, survey=survey,
                                           date_from=cleaned.get("date_from"),
                                           date_to=cleaned.get("date_to")),
            RESPONSES_PAGE_SIZE)
        return context

    def post(self, request, *args, **kwargs):
        existing = {s.remote_id for s in selectors.survey_list(tenant=self.tenant)}
        form = SurveyAddForm(request.POST, existing=existing)
        survey = None
        if form.is_valid():
            try:
                survey = services.survey_follow(tenant=self.tenant, actor=request.user,
                                                remote_id=form.cleaned_data["remote_id"],
                                                name=form.cleaned_data["name"])
            except ValidationError as exc:
                add_service_errors(form, exc)
            except ProviderUnavailable as exc:
                form.add_error(None, f"The survey id could not be checked with the provider, "
                                     f"so nothing was saved. {exc}")
        if survey is None:
            return self.render_to_response(self.get_context_data(add_form=form))
        messages.success(request, f"{survey} ({survey.remote_id}) is followed; its responses "
                                  "are mirrored by the next sync.")
        return redirect(f"{reverse('survey_responses', args=[self.tenant.slug])}"
                        f"?survey={survey.remote_id}")


class SurveyUnfollowConfirmView(TenantViewMixin, TemplateView):
    template_name = "reviews_app/survey_unfollow_confirm.html"

    def get_survey(self):
        survey = selectors.survey_get(tenant=self.tenant, remote_id=self.kwargs["remote_id"])
        if survey is None:
            raise Http404("No such survey.")
        return survey

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        survey = self.get_survey()
        context["survey"] = survey
        context["response_count"] = selectors.survey_response_count(tenant=self.tenant,
                                                                    survey=survey)
        return context

    def post(self, request, *args, **kwargs):
        survey = self.get_survey()
        removed = services.survey_unfollow(tenant=self.tenant, actor=request.user,
                                           survey=survey)
        gone = f"; its {removed} mirrored response{pluralize(removed)} went with it" if removed \
            else ""
        messages.success(request, f"{survey} ({survey.remote_id}) is no longer followed{gone}.")
        return redirect("survey_responses", slug=self.tenant.slug)


class SurveyResponseDetailView(TenantViewMixin, TemplateView):
    template_name = "reviews_app/survey_response_detail.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        response = selectors.survey_response_get(tenant=self.tenant,
                                                 remote_id=self.kwargs["remote_id"])
        if response is None:
            raise Http404("No such survey response.")
        context["response"] = response
        context["answers"] = answer_views(response.answers)
        context["language"] = language_label(response.locale)
        params = {**(response.raw.get("customParam") or {}),
                  **(response.raw.get("extraParams") or {})}
        context["extra_params"] = [(parameter_label(str(key)), value)
                                   for key, value in params.items()]
        return context

"""The report in the API: its figures as JSON, and the PDF in the reseller's brand."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.base import TenantAPIMixin
from portal.api.docs import ERRORS
from portal.api.files import FileReplyMixin
from portal.api.serializers import form_errors
from reports.api.report_serializers import ReportQuerySerializer, ReportSummarySerializer
from reports.forms import ReportForm
from reports.rendering import report_rendered
from reports.selectors import Report, report_build

REPORT_ERRORS = {code: ERRORS[code] for code in (400, 401, 403, 404, 429)}
ABOUT = ("A client is a reseller, an enterprise or a location with everything under it "
         "(`business`), or without it the whole account (a member limited to part of the "
         "account: their part). The period is `period` (default: last month) or `from` and "
         "`to` (both included, at most 366 days, today at the latest). Figures over the "
         "period are the history's days, as the trends and `history/` give them; those "
         "said to be now are the mirror's, as the dashboard and `late-sites/` give them. A "
         "parameter this operation does not take, a bad day or an unknown business number "
         "is a 400 naming it; a business outside your part of the account is a 404.")


class _ReportView(TenantAPIMixin, APIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"get": {
        "business": "A business of the account, within your part of it.",
        "from": "On or before `to`, at most 366 days before it.",
        "to": "Today at the latest.",
        "period": "`custom` only with `from` and `to`.",
    }}

    def report(self) -> Report:
        params = self.request.query_params
        form = ReportForm(params, tenant=self.tenant, membership=self.membership)
        unknown = sorted(set(params) - set(form.fields) - {"format"})
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown parameter: this operation does not take it."]
                 for name in unknown})
        if not form.is_valid():
            raise serializers.ValidationError(form_errors(form))
        data = form.cleaned_data
        return report_build(tenant=self.tenant, membership=self.membership,
                            business=data["client"], date_from=data["from"],
                            date_to=data["to"])


class ReportSummary(_ReportView):
    @extend_schema(summary="A client's report: its figures",
                   description="What the report page and its PDF show, as figures. " + ABOUT,
                   parameters=[ReportQuerySerializer],
                   responses={200: ReportSummarySerializer, **REPORT_ERRORS})
    def get(self, request, *args, **kwargs):
        return Response(ReportSummarySerializer(self.report()).data)


class ReportRender(FileReplyMixin, _ReportView):
    @extend_schema(summary="A client's report as a PDF",
                   description="The report as a PDF file in your brand (product name, "
                               "colours, logo, support address), with its charts. " + ABOUT,
                   parameters=[ReportQuerySerializer],
                   responses={(200, "application/pdf"): OpenApiResponse(
                       OpenApiTypes.BINARY, description="The PDF file."), **REPORT_ERRORS})
    def get(self, request, *args, **kwargs):
        rendered = report_rendered(tenant=self.tenant, report=self.report())
        return self.file_reply(rendered.pdf, "application/pdf", rendered.filename)

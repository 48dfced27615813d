"""The media tab of a business: gallery with filters, uploads on their way, add-media form."""

from __future__ import annotations

from csp.decorators import csp_update
from django.contrib import messages
from django.shortcuts import redirect
from django.utils.decorators import method_decorator
from django.views.generic import TemplateView

from accounts.tenant_views import BusinessTabMixin, locations_only
from media_app import selectors
from media_app.forms import MediaAddForm, MediaFilterForm
from media_app.services import media_add
from portal.pagination import paginate

GALLERY_PAGE_SIZE = 24


# The gallery shows each photo from the public address the provider holds for it.
@method_decorator(csp_update({"img-src": ["https:"]}), name="dispatch")
class BusinessMediaView(BusinessTabMixin, TemplateView):
    business_types = locations_only("Photos and videos")
    template_name = "media_app/media.html"

    def get_context_data(self, form=None, **kwargs):
        context = super().get_context_data(**kwargs)
        business = context["business"]
        filters = MediaFilterForm(self.request.GET)
        chosen = filters.values()
        context["filters"] = filters
        context["page_obj"] = paginate(
            self.request,
            selectors.media_list(tenant=self.tenant, business=business,
                                 category=chosen["category"], media_format=chosen["format"]),
            GALLERY_PAGE_SIZE)
        context["filtered"] = any(chosen.values())
        context["uploads"] = selectors.media_upload_list(tenant=self.tenant, business=business)
        if self.may_change:
            context["form"] = form or MediaAddForm(auto_id="add_%s")
        return context

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        form = MediaAddForm(request.POST, auto_id="add_%s")
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(form=form))
        data = form.cleaned_data
        media_add(tenant=self.tenant, actor=request.user, business=business, url=data["url"],
                  category=data["category"], description=data["description"],
                  media_format=data["media_format"])
        messages.success(request, "The upload is queued; it appears in the gallery once the "
                                  "provider accepts it.")
        return redirect("business_media", slug=self.tenant.slug, remote_id=business.remote_id)

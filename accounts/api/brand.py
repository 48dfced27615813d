"""The brand in the API: `brand/` (GET, PATCH) and `brand/logo/` (PUT a file, DELETE)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http.request import validate_host
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from accounts.api.base import TenantAPIMixin
from accounts.brand import ResellerBrand, brand_get
from accounts.brand_logo import MAX_BYTES, MAX_SIDE, MIN_SIDE
from accounts.brand_rules import MIN_CONTRAST
from accounts.brand_services import brand_logo_remove, brand_logo_set, brand_update
from portal.api.docs import ERRORS, READ_ERRORS, WRITE_ERRORS
from portal.api.errors import Conflict
from portal.api.serializers import StrictSerializer


class BrandLogoSerializer(serializers.Serializer):
    url = serializers.CharField(help_text="The logo's address in the portal (for members; "
                                          "public on the reseller's own address).")
    content_type = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()


class BrandSerializer(StrictSerializer):
    api_description = (
        "The agency's brand: what its members and clients see instead of the portal's own "
        "look. An empty value goes back to the portal's own. Colours are `#rrggbb`, checked "
        f"for readable contrast (WCAG AA, {MIN_CONTRAST:g}:1): the header colour against white "
        "text, the accent colour against the page's light grey and white. `host` is the "
        "agency's own address (a host name, such as portal.agency.example); its sign-in page "
        "shows the brand, and only the agency's members may sign in there. A field this "
        "operation does not take is refused (400), named in `fields`.")

    product_name = serializers.CharField(max_length=40, allow_blank=True, required=False,
                                         help_text="Shown instead of “Reseller portal”.")
    primary_colour = serializers.CharField(max_length=7, allow_blank=True, required=False,
                                           help_text="The header's colour, behind white text.")
    accent_colour = serializers.CharField(max_length=7, allow_blank=True, required=False,
                                          help_text="Links, buttons and the current tab.")
    support_email = serializers.CharField(max_length=254, allow_blank=True, required=False,
                                          help_text="Shown on the sign-in and error pages; "
                                                    "replies to the emails go there.")
    sender_name = serializers.CharField(max_length=100, allow_blank=True, required=False,
                                        help_text="The sender's name of the emails.")
    sender_email = serializers.CharField(
        max_length=254, allow_blank=True, required=False,
        help_text="The sender's address of the emails; the agency's mail domain must allow "
                  "the portal to send as it.")
    host = serializers.CharField(max_length=253, allow_blank=True, required=False,
                                 help_text="The agency's own address (a host name).")
    host_served = serializers.SerializerMethodField(
        help_text="Whether the portal already answers at `host` (its operator adds it).")
    logo = serializers.SerializerMethodField(help_text="The logo, or null without one.")
    stylesheet_url = serializers.CharField(read_only=True)
    READ_ONLY = ("host_served", "logo", "stylesheet_url")

    def to_internal_value(self, data):
        if hasattr(data, "keys"):
            fixed = sorted(name for name in data if name in self.READ_ONLY)
            if fixed:
                raise serializers.ValidationError(
                    {name: ["Read-only: the logo is sent to brand/logo/ as a file."]
                     for name in fixed})
        return super().to_internal_value(data)

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("Nothing to change: send at least one field.")
        return attrs

    def to_representation(self, brand: ResellerBrand):
        data = super().to_representation(brand)
        data["product_name"] = brand.product_name if brand.has_own_name else ""
        return data

    def get_host_served(self, brand: ResellerBrand) -> bool:
        return bool(brand.host) and validate_host(brand.host, settings.ALLOWED_HOSTS)

    @extend_schema_field(BrandLogoSerializer(allow_null=True))
    def get_logo(self, brand: ResellerBrand):
        if not brand.has_logo:
            return None
        return {"url": brand.logo_url, "content_type": brand.logo_content_type,
                "width": brand.logo_width, "height": brand.logo_height}


class BrandLogoUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text=f"A PNG, JPEG or WebP picture of at most {MAX_BYTES // 1024} KB, between "
                  f"{MIN_SIDE} × {MIN_SIDE} and {MAX_SIDE} × {MAX_SIDE} pixels. SVG is "
                  "refused.")


@extend_schema(summary="The agency's brand (owners of the whole account)",
               responses={200: BrandSerializer, **READ_ERRORS, 403: ERRORS[403]})
class BrandDetail(TenantAPIMixin, generics.GenericAPIView):
    """The agency's brand: product name, colours, support email, email sender, own address
    and logo. PATCH changes the fields sent, all or none (400 naming each field at fault)."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"patch": {
        "primary_colour": "`#rrggbb`, readable behind white text.",
        "accent_colour": "`#rrggbb`, readable on the page's light grey and white.",
        "support_email": "An email address.",
        "sender_email": "An email address.",
        "host": "A host name no other agency uses.",
        "product_name": "Printable text.",
        "sender_name": "Printable text.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = BrandSerializer
    http_method_names = ["get", "patch", "options", "head"]

    def get(self, request, *args, **kwargs):
        return Response(BrandSerializer(brand_get(tenant=self.tenant)).data)

    @extend_schema(request=BrandSerializer, responses={200: BrandSerializer, **WRITE_ERRORS})
    def patch(self, request, *args, **kwargs):
        serializer = BrandSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        brand_update(tenant=self.tenant, actor=request.user, request_host=request.get_host(),
                     **serializer.validated_data)
        return Response(BrandSerializer(brand_get(tenant=self.tenant)).data)


class BrandLogoDetail(TenantAPIMixin, generics.GenericAPIView):
    """The agency's logo. PUT sends a picture as `multipart/form-data` (field `file`): it is
    checked (its real type, size and dimensions), drawn again without its metadata, and
    replaces the logo. DELETE removes it (409 when there is none)."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"put": {
        "file": "A PNG, JPEG or WebP picture, large enough to be read.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = BrandLogoUploadSerializer
    parser_classes = [MultiPartParser]
    http_method_names = ["put", "delete", "options"]

    def get_object(self):
        # What a PUT replaces is the reseller's own (OPTIONS asks for it to describe the PUT).
        return self.tenant

    @extend_schema(summary="Upload the agency's logo",
                   request={"multipart/form-data": BrandLogoUploadSerializer},
                   responses={200: BrandSerializer, **WRITE_ERRORS})
    def put(self, request, *args, **kwargs):
        serializer = BrandLogoUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        try:
            brand_logo_set(tenant=self.tenant, actor=request.user,
                           data=upload.read(MAX_BYTES + 1), file_name=upload.name or "",
                           size=upload.size)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"file": exc.message_dict["logo"]}) from exc
        return Response(BrandSerializer(brand_get(tenant=self.tenant)).data)

    @extend_schema(summary="Remove the agency's logo",
                   responses={204: None, **WRITE_ERRORS, 409: ERRORS[409]})
    def delete(self, request, *args, **kwargs):
        if not brand_logo_remove(tenant=self.tenant, actor=request.user):
            raise Conflict("There is no logo to remove.", code="no_logo")
        return Response(status=status.HTTP_204_NO_CONTENT)

"""Forms of the listing editor, one per group of fields of the create-listing body.

Each form fills one object of the body (`path`, e.g. ``businessInfo`` or
``businessInfo.location``) and its field names are the body's keys, so that a field's dotted
path is ``<path>.<name>``: the rules and the provider's rejections point at fields by that path.
Row-based parts (hours, attributes, action links) are in `listings.editor.rows`; the whole
editor is `listings.editor.editor.ListingEditor`.
"""

from __future__ import annotations

import datetime
from typing import Any

from django import forms

from listings.editor import fields, formats
from listings.editor.schema import (
    BUSINESS_STATUSES,
    COUNTRIES,
    MAX_PROFILE_ADDITIONAL_CATEGORIES,
    SOCIAL_PROFILE_URL_FIELDS,
)


def get_path(document: dict | None, path: str) -> Any:
    value: Any = document or {}
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def ensure_path(document: dict, path: str) -> dict:
    target = document
    for key in path.split("."):
        target = target.setdefault(key, {})
    return target


class SectionForm(forms.Form):
    """A form filling the object at `path` of the listing; see the module docstring."""

    path = ""
    legend = ""
    intro = ""  # text shown above the form; not `description`, a field name in some forms
    template_name_editor = "listings/editor_form.html"

    def __init__(self, data=None, *, document: dict, read_only: bool = False,
                 context: dict | None = None, **kwargs: Any):
        super().__init__(data, **kwargs)
        self.context = context or {}
        self.notices: dict[str | None, list[str]] = {}
        values = get_path(document, self.path)
        values = values if isinstance(values, dict) else {}
        for name, field in self.fields.items():
            if name in values and isinstance(field, fields.PayloadMixin):
                self.initial[name] = field.from_payload(values[name])
        self.setup()
        if read_only:
            for field in self.fields.values():
                field.disabled = True

    def setup(self) -> None:
        """Adjust fields once the initial values are known (datalists, disabled fields)."""

    # -- paths -------------------------------------------------------------------------
    def field_paths(self) -> dict[str, str]:
        return {f"{self.path}.{name}": name for name in self.fields}

    def locate(self, path: str) -> str | None | bool:
        """The field name a dotted path points at; None for the form itself; False if the
        path is not this form's."""
        if path == self.path:
            return None
        return self.field_paths().get(path, False)

    def notice(self, name: str | None, message: str) -> None:
        """Show a message on a field without binding the form (a rejection from the provider)."""
        self.notices.setdefault(name, []).append(message)

    def field_items(self):
        """(bound field, messages) for the template: form errors and provider notices."""
        for bound in self.visible_fields():
            yield bound, [*bound.errors, *self.notices.get(bound.name, [])]

    def form_messages(self) -> list[str]:
        return [*self.non_field_errors(), *self.notices.get(None, [])]

    @property
    def has_messages(self) -> bool:
        return bool(self.errors if self.is_bound else False) or any(self.notices.values())

    # -- the listing ----------------------------------------------------------------------
    def document_data(self) -> dict[str, Any]:
        """What a browser submits for this form left as it was filled from the document (its
        initial values): bound to it, the form checks the document's own values."""
        data: dict[str, Any] = {}
        for bound in self:
            widget, value = bound.field.widget, bound.value()
            if isinstance(widget, forms.CheckboxInput):
                if value:  # an unticked box is not submitted at all
                    data[bound.html_name] = "on"
            elif isinstance(widget, fields.RepeatedInput):
                data[bound.html_name] = widget.format_value(value)
            elif isinstance(value, datetime.date):
                data[bound.html_name] = value.isoformat()
            else:
                data[bound.html_name] = "" if value is None else str(value)
        return data

    def contribute(self, document: dict) -> None:
        """Write the cleaned values into the listing `document`."""
        target = ensure_path(document, self.path)
        for name, field in self.fields.items():
            if isinstance(field, fields.PayloadMixin):
                target[name] = field.to_payload(self.cleaned_data.get(name))


def _datalist(field: forms.Field, source: str) -> None:
    name = f"categories-{source}"
    if isinstance(field.widget, fields.RepeatedInput):
        field.widget.datalist = name
    else:
        field.widget.attrs["list"] = name


# --------------------------------------------------------------------- business info
class BusinessInfoForm(SectionForm):
    path = "businessInfo"
    legend = "Business"

    name = fields.TextField(required=True, max_length=1000, label="Business name")
    phone = fields.PhoneField(label="Phone", help_text="Shaped (xxx) xxx-xxxx.")
    websiteUrl = fields.URLField(label="Website")
    emailId = fields.EmailField(label="Email")
    mainBusinessDescription = fields.TextField(
        textarea=True, label="Description",
        help_text="Sent empty, it clears the description the provider holds.")
    isAddressHidden = fields.BooleanField(label="Hide the address")
    isServiceAreaProvider = fields.BooleanField(
        label="Service-area business", help_text="It serves customers at their place.")
    serviceAreas = fields.ServiceAreasField(label="Service areas", item_label="Service area")


class AddressForm(SectionForm):
    """businessInfo.location. Only filled lines are sent: the provider replaces the address as
    a whole, so a line left empty is cleared."""

    path = "businessInfo.location"
    legend = "Address"

    address1 = fields.TextField(label="Address line 1")
    address2 = fields.TextField(label="Address line 2")
    # The provider requires one in New Zealand and ignores it elsewhere (its own example
    # carries one on a US address), so only the rules check it (6000, 6001).
    subLocality = fields.TextField(label="Sub-locality",
                                   help_text="Required for New Zealand addresses; ignored by "
                                             "the provider elsewhere.")
    city = fields.TextField(label="City")
    state = fields.TextField(label="State or region")
    zip = fields.TextField(label="Postal code", max_length=32)
    countryCode = fields.ChoiceField(choices=[("", "—"), *COUNTRIES.items()], label="Country")

    def setup(self) -> None:
        code = self.initial.get("countryCode")
        field = self.fields["countryCode"]
        if code and code not in COUNTRIES:
            field.choices = [*field.choices, (code, code)]

    def clean_countryCode(self) -> str:
        code = self.cleaned_data["countryCode"].upper()
        if code and not formats.is_country_code(code):
            raise forms.ValidationError("Choose a two-letter country code.")
        return code

    def contribute(self, document: dict) -> None:
        info = ensure_path(document, "businessInfo")
        info["location"] = {name: field.to_payload(self.cleaned_data.get(name))
                            for name, field in self.fields.items()
                            if self.cleaned_data.get(name)}


# -------------------------------------------------------------------- business status
class StatusForm(SectionForm):
    path = "additionalInfo"
    legend = "Business status"

    businessStatus = fields.ChoiceField(
        choices=[("", "— not set —"), *((s, s) for s in BUSINESS_STATUSES)],
        label="Business status",
        help_text="Choose with care: once the provider accepts a version of this listing, it "
                  "keeps this status and refuses any change of it, an empty one included.")
    reopenDate = fields.DateField(label="Reopen date",
                                  help_text="For a temporarily closed business; today or later.")
    openingSoonDate = fields.DateField(
        label="Opening-soon date",
        help_text="Required when the status is Opening Soon. Like the status, it can no longer "
                  "change once the provider accepts a version of this listing.")
    openedOnDate = fields.DateField(label="Opened on", help_text="Not in the future.")

    # Shown in place of a disabled field once the listing is fixed, with its value.
    LOCKED_HELP = ("It can no longer change: the provider accepted a version of this listing, "
                   "and from then on it refuses any change of the {label}.")
    LOCKED_UNSET_HELP = ("None was sent before the provider accepted a version of this listing, "
                         "and from then on it refuses to set or change the {label}.")

    def setup(self) -> None:
        if self.context.get("fixed"):
            accepted = get_path(self.context.get("accepted"), self.path) or {}
            for name, label in (("businessStatus", "business status"),
                                ("openingSoonDate", "opening-soon date")):
                field = self.fields[name]
                field.disabled = True
                field.locked = True
                value = field.from_payload(accepted.get(name))
                self.initial[name] = value
                field.help_text = (self.LOCKED_HELP if value else
                                   self.LOCKED_UNSET_HELP).format(label=label)


# ----------------------------------------------------------------------------- hours
class HoursOptionsForm(SectionForm):
    path = "additionalInfo"
    legend = "Whole week"

    wholeWeekOperating = fields.FlagField(label="Operating the whole week")

    def locate(self, path: str) -> str | None | bool:
        if path == "additionalInfo.hoursOfOperations":
            return None
        return super().locate(path)


# ------------------------------------------------------------------------ categories
class ProfileCategoriesForm(SectionForm):
    path = "profileListing"
    legend = "Business-profile platform"
    source = "PROFILE"

    primaryCategoryProfile = fields.TextField(label="Primary category")
    additionalCategories = fields.ListField(
        label="Additional categories", item_label="Additional category",
        help_text=f"Up to {MAX_PROFILE_ADDITIONAL_CATEGORIES}, no repeats, not the primary one.")

    def setup(self) -> None:
        _datalist(self.fields["primaryCategoryProfile"], self.source)
        _datalist(self.fields["additionalCategories"], self.source)
        self.fields["additionalCategories"].widget.attrs["data-max"] = (
            MAX_PROFILE_ADDITIONAL_CATEGORIES)


class MapsCategoriesForm(SectionForm):
    path = "mapsListing"
    legend = "Maps service"
    source = "MAPS"

    primaryCategory = fields.DottedCategoryField(label="Primary category",
                                                 help_text="A dotted path such as Food.Cafe.")
    additionalCategories = fields.ListField(
        label="Additional categories", item_label="Additional maps category",
        item_valid=formats.is_dotted_category,
        item_message="is not a dotted category path such as Food.Restaurant.",
        help_text="Dotted paths; not the primary one.")

    def setup(self) -> None:
        _datalist(self.fields["primaryCategory"], self.source)
        _datalist(self.fields["additionalCategories"], self.source)


class EngineCategoriesForm(SectionForm):
    path = "engineListing"
    legend = "Search engine"
    source = "ENGINE"

    primaryCategoryEngine = fields.TextField(label="Primary category")
    engineCategories = fields.ListField(label="Categories", item_label="Search engine category")

    def setup(self) -> None:
        _datalist(self.fields["primaryCategoryEngine"], self.source)
        _datalist(self.fields["engineCategories"], self.source)


class SocialCategoriesForm(SectionForm):
    path = "socialListing"
    legend = "Social network"
    source = "SOCIAL"

    categories = fields.ListField(label="Categories", item_label="Social network category")

    def setup(self) -> None:
        _datalist(self.fields["categories"], self.source)


class InternalCategoriesForm(SectionForm):
    path = "internalListing"
    legend = "The provider's own listing"
    source = "VENDOR"

    category = fields.TextField(label="Category")
    subCategories = fields.ListField(label="Sub-categories", item_label="Sub-category")
    displayCategory = fields.TextField(label="Display category")

    def setup(self) -> None:
        for name in ("category", "subCategories", "displayCategory"):
            _datalist(self.fields[name], self.source)


class ThirdPartyCategoriesForm(SectionForm):
    path = "thirdPartyListing"
    legend = "Third-party directories"

    thirdPartyCategory = fields.TextField(label="Category")
    thirdPartySubCategories = fields.ListField(label="Sub-categories",
                                               item_label="Third-party sub-category")


# ---------------------------------------------------------------------- action links
class ActionLinksForm(SectionForm):
    path = "additionalInfo"
    legend = "Booking and ordering"

    appointmentLink = fields.URLField(label="Appointment link")
    reservationLink = fields.URLField(label="Reservation link")
    menuLink = fields.URLField(label="Menu link")
    orderAheadLink = fields.URLField(label="Order-ahead link")


class ProfileLinksForm(SectionForm):
    """Food links are checked by the rules (codes 2296, 2297, 2290), not as plain URLs."""

    path = "profileListing"
    legend = "Business-profile platform links"

    foodDelivery = fields.TextField(label="Food delivery link",
                                    help_text="Only for a food business primary category.")
    foodTakeout = fields.TextField(label="Food takeout link",
                                   help_text="Only for a food business primary category.")
    messagingBusinessLink = fields.URLField(label="Messaging link")


# ------------------------------------------------------------------- media, opt-outs
class MediaForm(SectionForm):
    path = "media"
    legend = "Media links"

    logoUrl = fields.URLField(label="Logo")
    coverImageUrl = fields.URLField(label="Cover image")
    profileCover = fields.URLField(label="Profile platform cover")
    socialCover = fields.URLField(label="Social network cover")


class OptOutForm(SectionForm):
    path = "optOut"
    legend = "Opt-outs"

    profileCoverOptOut = fields.BooleanField(label="No cover on the business-profile platform")
    profileLogoOptOut = fields.BooleanField(label="No logo on the business-profile platform")
    socialCoverOptOut = fields.BooleanField(label="No cover on the social network")
    socialLogoOptOut = fields.BooleanField(label="No logo on the social network")
    profileListingOptOut = fields.BooleanField(label="Do not publish to the profile platform")
    businessProfileOptOut = fields.BooleanField(label="Opt out of the business profile")


class SocialProfilesForm(SectionForm):
    path = "socialProfileURLs"
    legend = "Social profile URLs"


for _name, _label in SOCIAL_PROFILE_URL_FIELDS.items():
    SocialProfilesForm.base_fields[_name] = fields.URLField(label=_label)


# ------------------------------------------------------------------------ healthcare
class HealthcareForm(SectionForm):
    path = "healthcare"
    legend = "Healthcare"

    isProvider = fields.BooleanField(label="A healthcare provider")
    doctorCategories = fields.ListField(
        label="Doctor categories", item_label="Doctor category",
        item_valid=formats.is_doctor_category,
        item_message="must be shaped Specialty > Subspecialty.",
        help_text="Shaped Specialty > Subspecialty.")
    practiceName = fields.TextField(label="Practice name")
    firstName = fields.TextField(label="First name")
    middleName = fields.TextField(label="Middle name")
    surName = fields.TextField(label="Surname")
    npi = fields.TextField(label="NPI")
    credentials = fields.TextField(label="Credentials")
    university = fields.TextField(label="University")
    hospitalAffiliations = fields.TextField(label="Hospital affiliations")
    insurancesAccepted = fields.TextField(label="Insurances accepted")

    def setup(self) -> None:
        _datalist(self.fields["doctorCategories"], "HEALTHCARE")


# ------------------------------------------------------------- per-directory details
class ProfileDetailsForm(SectionForm):
    path = "profileListing"
    legend = "Business-profile platform"

    profileWebsiteUrl = fields.URLField(label="Website")
    profilePhoneNumber = fields.TextField(label="Phone")
    profileStoreId = fields.TextField(label="Store code")
    profileDescription = fields.TextField(textarea=True, label="Description")
    textMessageNumber = fields.TextField(label="Text-message number")


class MapsDetailsForm(SectionForm):
    path = "mapsListing"
    legend = "Maps service"

    mapsBusinessName = fields.TextField(label="Name on maps")
    mapsWebsiteUrl = fields.URLField(label="Website")
    phoneNumber = fields.InternationalPhoneField(label="Phone",
                                                 help_text="International, e.g. +1 512 555 0100.")
    mapsBusinessDescription = fields.TextField(textarea=True, label="Description")


class EngineDetailsForm(SectionForm):
    path = "engineListing"
    legend = "Search engine"

    enginePhoneNumber = fields.TextField(label="Phone")
    engineDescription = fields.TextField(textarea=True, label="Description")


class SocialDetailsForm(SectionForm):
    path = "socialListing"
    legend = "Social network"

    socialPhoneNumber = fields.TextField(label="Phone")
    socialDescription = fields.TextField(textarea=True, label="Description")


class InternalDetailsForm(SectionForm):
    path = "internalListing"
    legend = "The provider's own listing"

    description = fields.TextField(textarea=True, label="Description",
                                   help_text="Sent empty, it clears the stored description.")


# ------------------------------------------------------------------- other information
class AdditionalInfoForm(SectionForm):
    path = "additionalInfo"
    legend = "About the business"

    keywords = fields.TextField(label="Keywords", help_text="Separated by commas.")
    services = fields.TextField(label="Services", help_text="Separated by commas.")
    products = fields.TextField(label="Products", help_text="Separated by commas.")
    paymentTypes = fields.ListField(label="Payment types", item_label="Payment type")
    additionalPaymentTypes = fields.TextField(label="Other payment types",
                                              help_text="Separated by commas.")
    languages = fields.ListField(label="Languages", item_label="Language")
    timezone = fields.TimezoneField(label="Time zone", help_text="Such as America/Chicago.")
    establishedYear = fields.TextField(label="Established in (year)", max_length=10)
    localPhoneNumber = fields.TextField(label="Local phone number")
    tollFreePhoneNumber = fields.TextField(label="Toll-free phone number")
    impressum = fields.TextField(textarea=True, label="Impressum")
    iosAppURL = fields.URLField(label="iOS app")
    androidAppURL = fields.URLField(label="Android app")

    def setup(self) -> None:
        self.fields["paymentTypes"].widget.datalist = "payment-types"


class CovidInfoForm(SectionForm):
    path = "covidInfo"
    legend = "Health and safety"

    postDescription = fields.TextField(textarea=True, label="Post")
    covid19SupportLink = fields.URLField(label="Support link")
    virtualCareLink = fields.URLField(label="Virtual care link")


PAYMENT_TYPES = ("Cash", "Cheque", "Credit Card", "Debit Card", "Contactless", "Financing",
                 "Cryptocurrency", "Mobile Wallet")

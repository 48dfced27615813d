"""Emails sent on a reseller's behalf, in its brand: from its sender, answered to its support
address, with its product name and logo.

`brand_email_send` is the one way such an email leaves: a plain-text body for every reader, an
HTML one laid out by `templates/emails/base.html` (header in the brand's colour, its logo as an
image carried inside the email, so it shows without the reader fetching anything from the
portal), and the brand's From and Reply-To.

The sender address's domain belongs to the agency: its mail server must let the portal send
as that address (docs/branding.md), or receivers will treat the emails as forged.
"""

from __future__ import annotations

from email.mime.image import MIMEImage

from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from accounts.brand import DEFAULT_BRAND, ResellerBrand, brand_logo_of
from accounts.models import Membership

LOGO_CONTENT_ID = "brand-logo"


def brand_email(*, brand: ResellerBrand, subject: str, to: list[str], text: str,
                html: str = "",
                attachments: list[tuple[str, bytes, str]] | None = None
                ) -> EmailMultiAlternatives:
    """The email, ready to send: the brand's sender and reply address, the text, and the HTML
    alternative with the logo attached inline (referred to as cid:brand-logo). `attachments`
    are (file name, bytes, content type) files to open, such as a report's PDF."""
    message = EmailMultiAlternatives(subject=" ".join(subject.split()), body=text,
                                     from_email=brand.from_email, to=to,
                                     reply_to=brand.reply_to)
    if html:
        message.attach_alternative(html, "text/html")
        logo = brand_logo_of(brand) if brand.has_logo else None
        if logo is not None:
            data, content_type = logo.png()
            image = MIMEImage(data, _subtype=content_type.split("/")[1])
            image.add_header("Content-ID", f"<{LOGO_CONTENT_ID}>")
            image.add_header("Content-Disposition", "inline", filename=brand.logo_file_name)
            # The HTML and its picture belong together (multipart/related), so readers show
            # the logo in place rather than as an attachment. With files to open beside it the
            # message stays multipart/mixed: readers still place the logo by its Content-ID.
            if not attachments:
                message.mixed_subtype = "related"
            message.attach(image)
    for name, content, content_type in attachments or ():
        message.attach(name, content, content_type)
    return message


def brand_email_render(*, brand: ResellerBrand, template: str, context: dict,
                       subject_template: str = "") -> tuple[str, str, str]:
    """(subject, text, html) of `template` (`<template>.txt` and `<template>.html`, under
    templates/emails/ or wherever the caller keeps them), with `brand` in the context."""
    context = {**context, "brand": brand, "logo_cid": LOGO_CONTENT_ID if brand.has_logo else ""}
    subject = render_to_string(subject_template, context) if subject_template else ""
    text = render_to_string(f"{template}.txt", context)
    html = render_to_string(f"{template}.html", context)
    return subject, text, html


def brand_email_send(*, brand: ResellerBrand, to: list[str], template: str, context: dict,
                     subject_template: str,
                     attachments: list[tuple[str, bytes, str]] | None = None) -> None:
    """Render and send one email in the brand (see the module's docstring), with the files
    of `attachments` ((file name, bytes, content type) each) attached."""
    subject, text, html = brand_email_render(brand=brand, template=template, context=context,
                                             subject_template=subject_template)
    brand_email(brand=brand, subject=subject, to=to, text=text, html=html,
                attachments=attachments).send()


class BrandPasswordResetForm(PasswordResetForm):
    """Django's password-reset form, its email sent in the brand given as `brand` in the
    email's context. With `members_of` set (a reseller's own address), it mails only that
    reseller's members: the link leads to an address where nobody else may sign in."""

    members_of: int | None = None

    def get_users(self, email):
        users = super().get_users(email)
        if self.members_of is None:
            yield from users
            return
        members = set(Membership.unscoped.filter(reseller_id=self.members_of)
                      .values_list("user_id", flat=True))
        yield from (user for user in users if user.pk in members)

    def send_mail(self, subject_template_name, email_template_name, context, from_email,
                  to_email, html_email_template_name=None):
        brand = context.get("brand") or DEFAULT_BRAND
        context = {**context, "brand": brand,
                   "logo_cid": LOGO_CONTENT_ID if brand.has_logo else ""}
        subject = render_to_string(subject_template_name, context)
        text = render_to_string(email_template_name, context)
        html = (render_to_string(html_email_template_name, context)
                if html_email_template_name else "")
        brand_email(brand=brand, subject=subject, to=[to_email], text=text, html=html).send()

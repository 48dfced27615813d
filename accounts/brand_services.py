"""Writes of a reseller's brand: its details, its logo. Each is checked here (the settings page
and the API say the same thing), leaves an audit event, and forgets what was cached of the
addresses concerned."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from accounts.brand import brand_cache_forget
from accounts.brand_logo import logo_check
from accounts.brand_rules import colour_normalise, colour_problem, host_normalise, host_problem
from accounts.models import BrandLogo, Reseller, User
from accounts.services import audit_record

# The brand's fields by the names the pages and the API use; each is `brand_<name>` on the
# reseller.
BRAND_FIELDS = ("product_name", "primary_colour", "accent_colour", "support_email",
                "sender_name", "sender_email", "host")
LOGO_FIELDS = ("brand_logo_hash", "brand_logo_content_type", "brand_logo_width",
               "brand_logo_height")
LENGTHS = {"product_name": 40, "sender_name": 100, "support_email": 254, "sender_email": 254,
           "host": 253}
HOST_TAKEN = "Another agency already uses this address. Each address leads to one agency."


def _printable(value: str) -> bool:
    # A line break in a sender name would start a new header line of every email sent.
    return all(ch.isprintable() for ch in value)


def _normalise(name: str, value: str | None) -> str:
    text = (value or "").strip()
    if name in ("primary_colour", "accent_colour"):
        return colour_normalise(text)
    if name == "host":
        return host_normalise(text)
    if name in ("support_email", "sender_email"):
        return text.lower()
    return " ".join(text.split()) if _printable(text) else text


def _problem(name: str, value: str, *, tenant: Reseller, request_host: str,
             current_host: str | None) -> str | None:
    if name in LENGTHS and len(value) > LENGTHS[name]:
        return f"At most {LENGTHS[name]} characters."
    if name in ("product_name", "sender_name") and not _printable(value):
        return "Letters, digits, spaces and punctuation only: no line breaks or control codes."
    if name in ("primary_colour", "accent_colour"):
        return colour_problem(name, value)
    if name in ("support_email", "sender_email") and value:
        try:
            validate_email(value)
        except ValidationError:
            return f"{value} is not an email address."
    if name == "host":
        problem = host_problem(value, request_host=request_host, current=current_host)
        if problem is None and value and Reseller.objects.filter(brand_host=value).exclude(
                pk=tenant.pk).exists():
            return HOST_TAKEN
        return problem
    return None


def _forget(*hosts: str | None) -> None:
    brand_cache_forget(*hosts)
    # Again once committed: a page read between the save and the commit cached the old one.
    transaction.on_commit(lambda: brand_cache_forget(*hosts))


def _locked(tenant: Reseller) -> Reseller:
    """The reseller's row, locked: two changes of one brand run one after the other."""
    return Reseller.objects.select_for_update().get(pk=tenant.pk)


def _keep_in_step(tenant: Reseller, reseller: Reseller, fields) -> None:
    # The caller's instance (the request's tenant) shows what was saved.
    for name in (*fields, "updated_at"):
        setattr(tenant, name, getattr(reseller, name))


@transaction.atomic
def brand_update(*, tenant: Reseller, actor: User | None, request_host: str = "",
                 **changes: str) -> list[str]:
    """Set the brand's details named in `changes` (any of BRAND_FIELDS; an empty value goes
    back to the portal's own), all or none: a ValidationError names every field at fault.

    `request_host` is the address the change is made from (the portal's main address may not
    become a reseller's own). Returns the names of the fields that changed.
    """
    unknown = sorted(set(changes) - set(BRAND_FIELDS))
    if unknown:
        raise TypeError(f"brand_update() takes no {', '.join(unknown)}")
    reseller = _locked(tenant)
    values = {name: _normalise(name, value) for name, value in changes.items()}
    errors = {}
    for name, value in values.items():
        problem = _problem(name, value, tenant=reseller, request_host=request_host,
                           current_host=reseller.brand_host)
        if problem:
            errors[name] = ValidationError(problem, code="invalid")
    if errors:
        raise ValidationError(errors)
    old_host = reseller.brand_host
    changed = []
    for name, value in values.items():
        stored = (value or None) if name == "host" else value
        if getattr(reseller, f"brand_{name}") != stored:
            setattr(reseller, f"brand_{name}", stored)
            changed.append(name)
    if not changed:
        return []
    fields = [f"brand_{name}" for name in changed]
    try:
        with transaction.atomic():
            reseller.save(update_fields=[*fields, "updated_at"])
    except IntegrityError as exc:  # another reseller took the host name meanwhile
        raise ValidationError({"host": ValidationError(HOST_TAKEN, code="taken")}) from exc
    audit_record(tenant=reseller, actor=actor, action="brand.updated", obj=reseller,
                 summary={"fields": changed, **{name: values[name] for name in changed}})
    _forget(old_host, reseller.brand_host)
    _keep_in_step(tenant, reseller, fields)
    return changed


@transaction.atomic
def brand_logo_set(*, tenant: Reseller, actor: User | None, data: bytes, file_name: str = "",
                   size: int | None = None) -> Reseller:
    """Check the uploaded logo (type, size, dimensions; SVG refused), draw it again and store
    it; ValidationError on "logo" otherwise."""
    checked = logo_check(data, file_name=file_name, size=size)
    reseller = _locked(tenant)
    BrandLogo.unscoped.update_or_create(
        reseller=reseller, defaults={"data": checked.data, "content_type": checked.content_type,
                                     "hash": checked.hash})
    reseller.brand_logo_hash = checked.hash
    reseller.brand_logo_content_type = checked.content_type
    reseller.brand_logo_width, reseller.brand_logo_height = checked.width, checked.height
    reseller.save(update_fields=[*LOGO_FIELDS, "updated_at"])
    audit_record(tenant=reseller, actor=actor, action="brand.logo_set", obj=reseller,
                 summary={"file": file_name[:200], "type": checked.content_type,
                          "width": checked.width, "height": checked.height,
                          "bytes": len(checked.data)})
    _forget(reseller.brand_host)
    _keep_in_step(tenant, reseller, LOGO_FIELDS)
    return reseller


@transaction.atomic
def brand_logo_remove(*, tenant: Reseller, actor: User | None) -> bool:
    """Remove the logo (the header then shows the product name alone); False when there was
    none."""
    reseller = _locked(tenant)
    removed, _ = BrandLogo.unscoped.filter(reseller=reseller).delete()
    if not removed and not reseller.brand_logo_hash:
        return False
    content_type = reseller.brand_logo_content_type
    reseller.brand_logo_hash = reseller.brand_logo_content_type = ""
    reseller.brand_logo_width = reseller.brand_logo_height = None
    reseller.save(update_fields=[*LOGO_FIELDS, "updated_at"])
    audit_record(tenant=reseller, actor=actor, action="brand.logo_removed", obj=reseller,
                 summary={"type": content_type})
    _forget(reseller.brand_host)
    _keep_in_step(tenant, reseller, LOGO_FIELDS)
    return True

"""Writes of bulk changes: a bulk change and its dry run, per chosen location what the change
does to its listing against the last accepted version (the diff the listing review shows),
"unchanged", or the rules it breaks. Nothing is sent here: `bulk.sending` sends in waves.

The listing editor's own functions do the work (`listings.editor`): `merge` (the provider's
merge), `listing_diff` and `listing_payload` (what a change shows and sends), `listing_errors`
(the forms' checks and the provider's rules) and `check_listing` (the provider's rules).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.models import Business, Membership, Reseller, User
from accounts.selectors import business_filterset, business_list
from accounts.services import audit_record
from bulk.models import BulkChange, BulkChangeItem
from bulk.sending import bulk_change_apply
from listings.editor.diff import listing_diff, listing_payload, merge
from listings.editor.document import listing_unknown_fields
from listings.editor.editor import MALFORMED, listing_errors, listing_labels
from listings.editor.rules import check_listing
from listings.editor.selectors import (
    listing_document_from_business,
    listing_versions_last_accepted,
)

# A dry run runs inside the request that asks for it; past this many locations it would keep
# the request (and a worker) for too long.
MAX_LOCATIONS = 10_000
MAX_WAVES = 100
# Rows per INSERT of the items: 8 values each stays under PostgreSQL's 65,535 parameters.
ITEM_BATCH = 5_000

SELECTION_HELP = ('Choose the locations with one of {"numbers": [business numbers]}, '
                  '{"filter": {the businesses list\'s filters}} or {"node": business number}.')
# Filters of the businesses list that make no sense for a change.
REFUSED_FILTERS = {"removed": "Removed businesses cannot be changed: leave this filter out."}
# Business fields a first listing is built from (listing_document_from_business), and the
# selection's own: the wide rows' raw provider payloads are never read.
LOCATION_FIELDS = ("pk", "remote_id", "name", "phone", "address1", "address2", "sub_locality",
                   "city", "state", "zip", "country_code")


# -- the request ---------------------------------------------------------------------------------

def _clean_set(value: Any) -> dict:
    if not isinstance(value, Mapping) or not value:
        raise ValidationError({"set": ["Give the part of the listing to set, in the "
                                       "create-listing shape: {\"additionalInfo\": "
                                       "{\"hoursOfOperations\": [...]}}."]})
    # What the provider's listing does not have, at any depth (the check of every listing).
    errors = listing_unknown_fields(value, prefix="set")
    for section, fields in value.items():
        if f"set.{section}" not in errors and (not isinstance(fields, Mapping) or not fields):
            errors[f"set.{section}"] = ["Give an object holding the fields to set."]
    if errors:
        raise ValidationError(errors)
    return {section: dict(fields) for section, fields in value.items()}


def _clean_waves(value: Any) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError({"waves": ["Give a list of wave sizes, such as [5, 50]."]})
    if len(value) > MAX_WAVES:
        raise ValidationError({"waves": [f"At most {MAX_WAVES} wave sizes."]})
    errors = {}
    for index, size in enumerate(value):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            errors[f"waves[{index}]"] = [f"A wave size is a whole number of locations, 1 or "
                                         f"more; {size!r} is not."]
    if errors:
        raise ValidationError(errors)
    return value


def _clean_numbers(value: Any) -> list[int]:
    if not isinstance(value, list) or not value:
        raise ValidationError({"businesses.numbers": ["Give at least one business number."]})
    wrong = [n for n in value if isinstance(n, bool) or not isinstance(n, int) or n < 1]
    if wrong:
        raise ValidationError({"businesses.numbers": [
            f"Business numbers are whole numbers; {', '.join(map(repr, wrong[:5]))} are not."]})
    if len(value) > MAX_LOCATIONS:
        raise ValidationError({"businesses.numbers": [
            f"At most {MAX_LOCATIONS:,} locations in one bulk change; there are {len(value):,}."
        ]})
    return list(dict.fromkeys(value))


def _filter_params(value: Any) -> dict[str, str]:
    """The filters as the businesses list takes them from its query string."""
    if not isinstance(value, Mapping):
        raise ValidationError({"businesses.filter": [
            "Give the businesses list's filters as an object, such as {\"city\": \"Austin\"}."]})
    params: dict[str, str] = {}
    for name, item in value.items():
        if isinstance(item, bool):
            params[name] = "true" if item else "false"
        elif isinstance(item, int | float | str):
            params[name] = str(item)
        else:
            raise ValidationError({f"businesses.filter.{name}": ["Give one value."]})
    return params


# -- the selection -------------------------------------------------------------------------------

def _locations_by_numbers(*, tenant: Reseller, membership: Membership | None,
                          numbers: list[int]) -> list[Business]:
    visible = business_list(tenant=tenant, membership=membership)
    found = {business.remote_id: business for business in
             visible.filter(remote_id__in=numbers).only(*LOCATION_FIELDS, "type")}
    missing = [n for n in numbers if n not in found]
    containers = [n for n in numbers if n in found and not found[n].is_location]
    errors = []
    if missing:
        shown = ", ".join(str(n) for n in missing[:20])
        more = f" and {len(missing) - 20} more" if len(missing) > 20 else ""
        errors.append(f"No business in your part of the account has these numbers: "
                      f"{shown}{more}.")
    for number in containers[:20]:
        errors.append(f"{number} ({found[number].name}) is not a location: choose its "
                      f"locations with {{\"node\": {number}}}.")
    if errors:
        raise ValidationError({"businesses.numbers": errors})
    return [found[n] for n in numbers]


def _locations_by_filter(*, tenant: Reseller, membership: Membership | None,
                         params: dict[str, str]) -> list[Business]:
    filterset = business_filterset(tenant=tenant, membership=membership, params=params,
                                   with_choices=False)
    errors = {f"businesses.filter.{name}": ["Not a filter of the businesses list."]
              for name in params if name not in filterset.filters}
    errors.update({f"businesses.filter.{name}": [message] for name, message
                   in REFUSED_FILTERS.items() if name in params})
    if not errors and not filterset.is_valid():
        errors = {f"businesses.filter.{name}": [str(m) for m in messages]
                  for name, messages in filterset.errors.items()}
    if errors:
        raise ValidationError(errors)
    locations = list(filterset.qs.filter(type=Business.Type.BUSINESS).select_related(None)
                     .only(*LOCATION_FIELDS)[:MAX_LOCATIONS + 1])
    if not locations:
        raise ValidationError({"businesses.filter": [
            "No location in your part of the account matches these filters."]})
    return locations


def _locations_by_node(*, tenant: Reseller, membership: Membership | None,
                       node: Any) -> list[Business]:
    if isinstance(node, bool) or not isinstance(node, int):
        raise ValidationError({"businesses.node": ["Give a business number."]})
    visible = business_list(tenant=tenant, membership=membership)
    found = visible.filter(remote_id=node).only("tree_path").first()
    if found is None:
        raise ValidationError({"businesses.node": [
            f"No business in your part of the account has the number {node}."]})
    locations = list(visible.filter(tree_path__startswith=found.tree_path,
                                    type=Business.Type.BUSINESS)
                     .order_by("name", "pk").only(*LOCATION_FIELDS)[:MAX_LOCATIONS + 1])
    if not locations:
        raise ValidationError({"businesses.node": [f"There is no location under {node}."]})
    return locations


def bulk_change_locations(*, tenant: Reseller, membership: Membership | None,
                          businesses: Any) -> list[Business]:
    """The locations a selection chooses, in its order, among those the member may see;
    ValidationError naming `businesses.<kind>` when it is wrong or chooses none."""
    if not isinstance(businesses, Mapping) or len(businesses) != 1:
        raise ValidationError({"businesses": [SELECTION_HELP]})
    (kind, value), = businesses.items()
    if kind == "numbers":
        locations = _locations_by_numbers(tenant=tenant, membership=membership,
                                          numbers=_clean_numbers(value))
    elif kind == "filter":
        locations = _locations_by_filter(tenant=tenant, membership=membership,
                                         params=_filter_params(value))
    elif kind == "node":
        locations = _locations_by_node(tenant=tenant, membership=membership, node=value)
    else:
        raise ValidationError({f"businesses.{kind}": [SELECTION_HELP]})
    if len(locations) > MAX_LOCATIONS:
        raise ValidationError({f"businesses.{kind}": [
            f"This chooses more than {MAX_LOCATIONS:,} locations: at most {MAX_LOCATIONS:,} "
            "in one bulk change. Narrow the selection."]})
    return locations


# -- the dry run ---------------------------------------------------------------------------------

def with_lists(base: dict, set_: dict, lists: str) -> dict:
    """The part of the listing to merge into `base`: `set_` itself when lists are replaced;
    when appended, each list holds `base`'s items followed by the new ones it lacks (and a
    mapping of lists, such as attributes by group, does so group by group)."""
    if lists == BulkChange.Lists.REPLACE:
        return set_

    def append(old: Any, new: Any) -> Any:
        if isinstance(new, list) and isinstance(old, list):
            return [*old, *(item for item in new if item not in old)]
        if isinstance(new, dict) and isinstance(old, dict):
            return {**old, **{key: append(old.get(key), item) for key, item in new.items()}}
        return new

    return {section: {name: append((base.get(section) or {}).get(name), value)
                      for name, value in fields.items()}
            for section, fields in set_.items()}


def _under(path: str, field: str) -> bool:
    return path == field or path.startswith((f"{field}.", f"{field}["))


class _Checker:
    """The editor's verdict on each location's listing after the change, fast enough for
    thousands of locations.

    `listing_errors` builds the whole editor (some 40 forms, about 10 ms) for one listing. The
    provider's rules, which read across fields, are checked on every whole listing
    (`check_listing`, cheap). The forms check each field's own value; only the fields the
    change sets have new values, so the forms see those fields alone (with the country, which
    addresses depend on), and their verdict is kept per distinct value: a value replaced on
    every location is checked once. The other fields hold what the provider already accepted.
    """

    def __init__(self, *, touched: list[tuple[str, str]], today: datetime.date):
        self.touched = touched
        self.today = today
        self.forms_verdicts: dict[str, dict[str, list[str]]] = {}

    def _projection(self, document: dict | None) -> dict | None:
        if document is None:
            return None
        info = document.get("businessInfo")
        location = info.get("location") if isinstance(info, dict) else None
        country = location.get("countryCode") if isinstance(location, dict) else None
        # A stand-in name: the form requires one, and the real names would make every
        # location's key distinct.
        projected: dict[str, dict] = {"businessInfo": {"name": "-", "location": {
            "countryCode": country if isinstance(country, str) else ""}}}
        for section, name in self.touched:
            fields = document.get(section)
            if isinstance(fields, dict) and name in fields:
                projected.setdefault(section, {})[name] = fields[name]
        return projected

    def _forms_verdict(self, document: dict, accepted: dict | None) -> dict[str, list[str]]:
        projected, projected_accepted = self._projection(document), self._projection(accepted)
        key = json.dumps([projected, projected_accepted], sort_keys=True, default=str)
        if key not in self.forms_verdicts:
            found = listing_errors(projected, accepted=projected_accepted, today=self.today)
            try:
                # The rules on a part of the listing say nothing: they are checked on the
                # whole one.
                partial_rules = {(e.path, e.message) for e in check_listing(
                    projected, accepted=projected_accepted, fixed=accepted is not None,
                    today=self.today)}
            except (AttributeError, KeyError, TypeError, ValueError):
                partial_rules = set()
            kept: dict[str, list[str]] = {}
            for path, messages in found.items():
                if path != "non_field_errors" and not any(
                        _under(path, f"{section}.{name}") for section, name in self.touched):
                    continue  # a field the stand-in left empty, not one the change sets
                messages = [m for m in messages if (path, m) not in partial_rules]
                if messages:
                    kept[path] = messages
            self.forms_verdicts[key] = kept
        return self.forms_verdicts[key]

    def errors(self, document: dict, accepted: dict | None) -> list[dict[str, str]]:
        found = {path: list(messages)
                 for path, messages in self._forms_verdict(document, accepted).items()}
        try:
            for error in check_listing(document, accepted=accepted, fixed=accepted is not None,
                                       today=self.today):
                known = found.setdefault(error.path, [])
                if error.message not in known:
                    known.append(error.message)
        except (AttributeError, KeyError, TypeError, ValueError):
            found.setdefault("non_field_errors", []).append(MALFORMED)
        return [{"field": path, "message": message}
                for path, messages in found.items() for message in messages]


def _dry_run_items(*, tenant: Reseller, change: BulkChange, locations: list[Business],
                   own_sets: list[dict] | None = None) -> list[BulkChangeItem]:
    """The dry run of each location: `change.set` on every one, or `own_sets[i]` on the i-th
    (the rows of an imported file)."""
    accepted_versions = listing_versions_last_accepted(
        tenant=tenant, business_ids=[location.pk for location in locations])
    labels = listing_labels()
    touched = list(dict.fromkeys(
        (section, name) for set_ in (own_sets if own_sets is not None else [change.set])
        for section, fields in set_.items() for name in fields))
    checker = _Checker(touched=touched, today=timezone.localdate())
    items = []
    for position, location in enumerate(locations):
        own_set = own_sets[position] if own_sets is not None else {}
        accepted = accepted_versions.get(location.pk)
        accepted_document = accepted.document if accepted else None
        # Before the first acceptance, the listing is what the provider's child list told (as
        # the editor starts it); the diff is measured against the same.
        baseline = accepted_document or listing_document_from_business(location)
        document = merge(baseline, with_lists(baseline, own_set or change.set, change.lists))
        changes = listing_diff(baseline, document, labels)
        item = BulkChangeItem(reseller=tenant, change=change, business=location,
                              business_number=location.remote_id, position=position,
                              base_number=accepted.number if accepted else 0, own_set=own_set)
        if not changes:
            item.state = BulkChangeItem.State.UNCHANGED
        else:
            item.diff = [{"path": c.path, "label": c.label, "old": c.old, "new": c.new}
                         for c in changes]
            item.errors = checker.errors(document, accepted_document)
            item.state = (BulkChangeItem.State.INVALID if item.errors
                          else BulkChangeItem.State.WILL_CHANGE)
            if not item.errors:
                item.payload = listing_payload(accepted_document, document)
        items.append(item)
    return items


def _clean_health(wait_for_statuses: Any, action_required_threshold: Any) -> dict[str, list]:
    errors: dict[str, list[str]] = {}
    if not isinstance(wait_for_statuses, bool):
        errors["wait_for_statuses"] = ["Give true or false."]
    if isinstance(action_required_threshold, bool) or not isinstance(
            action_required_threshold, int) or action_required_threshold < 0:
        errors["action_required_threshold"] = [
            "Give a whole number of sites, 0 or more: a wave that makes more of its sites "
            "need action than this pauses the change."]
    return errors


def bulk_change_create(*, tenant: Reseller, actor: User | None,
                       membership: Membership | None = None, businesses: Any, set: Any,
                       lists: Any = BulkChange.Lists.REPLACE, waves: Any = None,
                       wait_for_statuses: Any = False, action_required_threshold: Any = 0,
                       dry_run: Any = True) -> BulkChange:
    """Store a bulk change of the chosen locations' listings and its dry run; with
    `dry_run=False`, start sending it at once (`bulk.sending.bulk_change_apply`).

    `businesses` chooses the locations (`bulk_change_locations`), among those `membership`
    may see; `set` is the part of the listing to set, in the create-listing shape; `lists`
    says whether a list given replaces the listing's or is appended to it; `waves` are the
    sizes of the waves it will be sent in (the last size repeats); a wave is healthy when none
    of its changes is refused and, with `wait_for_statuses`, no more than
    `action_required_threshold` of its sites newly need action. Raises ValidationError naming
    each field at fault.
    """
    errors = _clean_health(wait_for_statuses, action_required_threshold)
    if not isinstance(dry_run, bool):
        errors["dry_run"] = ["Give true (check only) or false (check, then send)."]
    if not isinstance(businesses, Mapping) or len(businesses) != 1:
        errors["businesses"] = [SELECTION_HELP]
    cleaned: dict[str, Any] = {}
    for name, clean, value in (("set", _clean_set, set), ("waves", _clean_waves, waves)):
        try:
            cleaned[name] = clean(value)
        except ValidationError as error:
            errors.update(error.message_dict)
    if lists not in BulkChange.Lists.values:
        errors["lists"] = ['Give "replace" or "append".']
    if errors:
        raise ValidationError(errors)
    locations = bulk_change_locations(tenant=tenant, membership=membership,
                                      businesses=businesses)
    change = bulk_change_store(
        tenant=tenant, actor=actor, membership=membership, selection=dict(businesses),
        set_=cleaned["set"], lists=lists, waves=cleaned["waves"], locations=locations,
        wait_for_statuses=wait_for_statuses,
        action_required_threshold=action_required_threshold)
    if dry_run is False:
        change = bulk_change_apply(tenant=tenant, actor=actor, membership=membership,
                                   change=change)
    return change


def bulk_change_store(*, tenant: Reseller, actor: User | None, membership: Membership | None,
                      selection: dict, set_: dict, lists: str, waves: list[int],
                      locations: list[Business], own_sets: list[dict] | None = None,
                      source: str = BulkChange.Source.CHOICE, wait_for_statuses: bool = False,
                      action_required_threshold: int = 0) -> BulkChange:
    """Store a checked bulk change and its dry run: `set_` on every location, or `own_sets[i]`
    on `locations[i]` (an imported file's rows; `set_` then holds every field they set)."""
    limited_to = membership.limited_to if membership is not None \
        and membership.limited_to_id is not None else None
    with transaction.atomic():
        change = BulkChange.objects.create(
            reseller=tenant, created_by=actor if actor is not None and actor.pk else None,
            scope=limited_to, selection=selection, set=set_, lists=lists, waves=waves,
            source=source, wait_for_statuses=wait_for_statuses,
            action_required_threshold=action_required_threshold)
        items = _dry_run_items(tenant=tenant, change=change, locations=locations,
                               own_sets=own_sets)
        BulkChangeItem.objects.bulk_create(items, batch_size=ITEM_BATCH)
        counts = {state: 0 for state in ("will_change", "unchanged", "invalid")}
        for item in items:
            counts[item.state] += 1
        change.counts = {"selected": len(items), **counts}
        change.state = BulkChange.State.DRY_RUN_DONE
        change.save(update_fields=["counts", "state"])
        audit_record(tenant=tenant, actor=actor, action="bulk_change.dry_run", obj=change,
                     summary={"fields": [f"{s}.{n}" for s, fields in change.set.items()
                                         for n in fields],
                              "lists": lists, "source": source,
                              "selection": next(iter(selection), ""), **change.counts})
    return change

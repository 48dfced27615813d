"""The access policy: who may read and change each page, API operation and sync resource.

One table, keyed by URL name, answers for the UI views (`portal.views.TenantViewMixin`), the
API views (`portal.api.base.TenantAPIMixin`), the menu and the buttons (the `allowed` template
tag) and task starts (`sync_resources_allowed`). Nothing else decides access; a URL name missing
from the table is refused (fail-closed), and the suite fails until it is added.

A rule has three parts:
- `read`: the lowest role that may open the page or call the operation with a safe method;
- `write`: the lowest role that may send anything else (POST, PUT, PATCH, DELETE);
- `scope`: ACCOUNT (about the whole account: refused to a member limited to a subtree),
  SUBTREE (what the member sees is cut to their subtree by the selectors), or PERSONAL
  (the member's own things, such as their API tokens: any role, any limit).

A limit can never be widened from inside it: the member pages are SUBTREE pages, and the
member services (`accounts.settings_services`) let a limited owner manage only members limited
inside their own subtree, never an unlimited one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accounts.models import ROLE_RANK, Membership, Role
from portal.exceptions import AccessRefused

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Scope(StrEnum):
    ACCOUNT = "account"
    SUBTREE = "subtree"
    PERSONAL = "personal"


@dataclass(frozen=True)
class Rule:
    read: Role
    write: Role
    scope: Scope


VIEWER, MANAGER, OWNER = Role.VIEWER, Role.MANAGER, Role.OWNER
ACCOUNT, SUBTREE, PERSONAL = Scope.ACCOUNT, Scope.SUBTREE, Scope.PERSONAL

POLICY: dict[str, Rule] = {
    # -- pages --------------------------------------------------------------------------------
    "tenant_home": Rule(VIEWER, MANAGER, SUBTREE),
    # A change in doubt: anyone who sees it reads why; a manager decides whether it arrived.
    "change_resolve": Rule(VIEWER, MANAGER, SUBTREE),
    "business_list": Rule(VIEWER, MANAGER, SUBTREE),
    "business_export": Rule(VIEWER, MANAGER, SUBTREE),
    # Listings out and in as files: viewers export and read previews; managers import.
    "listing_export": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_import_list": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_import_columns": Rule(MANAGER, MANAGER, SUBTREE),
    "listing_import_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_import_apply": Rule(VIEWER, MANAGER, SUBTREE),
    "business_tree": Rule(VIEWER, MANAGER, SUBTREE),
    "business_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "business_reviews_summary": Rule(VIEWER, MANAGER, SUBTREE),
    "business_hierarchy": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_edit": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_version_state": Rule(VIEWER, MANAGER, SUBTREE),
    "listing_version_retry": Rule(VIEWER, MANAGER, SUBTREE),
    "business_qna": Rule(VIEWER, MANAGER, SUBTREE),
    "qna_delete_confirm": Rule(MANAGER, MANAGER, SUBTREE),
    "business_media": Rule(VIEWER, MANAGER, SUBTREE),
    "business_reviews": Rule(VIEWER, MANAGER, SUBTREE),
    "sync_run_list": Rule(VIEWER, MANAGER, SUBTREE),
    "sync_run_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "sync_run_progress": Rule(VIEWER, MANAGER, SUBTREE),
    "provider_event_list": Rule(VIEWER, MANAGER, SUBTREE),
    "provider_event_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_tokens": Rule(VIEWER, VIEWER, PERSONAL),
    "api_token_revoke": Rule(VIEWER, VIEWER, PERSONAL),
    "settings_members": Rule(OWNER, OWNER, SUBTREE),
    "settings_member_edit": Rule(OWNER, OWNER, SUBTREE),
    "settings_member_remove": Rule(OWNER, OWNER, SUBTREE),
    "settings_connection": Rule(OWNER, OWNER, ACCOUNT),
    "settings_test_connection": Rule(OWNER, OWNER, ACCOUNT),
    "settings_audit": Rule(OWNER, OWNER, ACCOUNT),
    # The agency's brand is the whole account's look: an owner without a limit sets it.
    "settings_brand": Rule(OWNER, OWNER, ACCOUNT),
    "settings_brand_logo": Rule(OWNER, OWNER, ACCOUNT),
    "settings_brand_logo_remove": Rule(OWNER, OWNER, ACCOUNT),
    # Every member's pages show it, a client's limited login included.
    "brand_logo": Rule(VIEWER, MANAGER, SUBTREE),
    "brand_stylesheet": Rule(VIEWER, MANAGER, SUBTREE),
    "custom_field_list": Rule(VIEWER, MANAGER, ACCOUNT),
    "ai_search": Rule(VIEWER, MANAGER, ACCOUNT),
    "subscription_list": Rule(VIEWER, MANAGER, ACCOUNT),
    "subscription_delete_confirm": Rule(MANAGER, MANAGER, ACCOUNT),
    "event_receiver_enable": Rule(VIEWER, MANAGER, ACCOUNT),
    "event_receiver_disable": Rule(MANAGER, MANAGER, ACCOUNT),
    "competitor_metrics": Rule(VIEWER, MANAGER, ACCOUNT),
    "competitive_ranking": Rule(VIEWER, MANAGER, ACCOUNT),
    "survey_responses": Rule(VIEWER, MANAGER, ACCOUNT),
    "survey_response_detail": Rule(VIEWER, MANAGER, ACCOUNT),
    "survey_unfollow_confirm": Rule(MANAGER, MANAGER, ACCOUNT),
    # The trends of what the member sees: a limited member's are their subtree's.
    "account_trends": Rule(VIEWER, MANAGER, SUBTREE),
    "business_trends": Rule(VIEWER, MANAGER, SUBTREE),
    # A member's own notifications (a limited member's, of their subtree) and channels.
    "notification_list": Rule(VIEWER, VIEWER, PERSONAL),
    "notification_open": Rule(VIEWER, VIEWER, PERSONAL),
    "notification_preferences": Rule(VIEWER, VIEWER, PERSONAL),
    # The account's alert rules: managers read them, owners without a limit set them.
    "alert_rules": Rule(MANAGER, OWNER, ACCOUNT),
    # The late sites of what the member sees; the directories' delays are the whole account's
    # (learned from all its sites): every unlimited member reads them, an owner changes them.
    "late_sites": Rule(VIEWER, MANAGER, SUBTREE),
    "settings_directory_delays": Rule(VIEWER, OWNER, ACCOUNT),
    # -- reports: the report (page, PDF) ------------------------------------------------------
    # A client's report of what the member sees: a limited member's is of their subtree.
    "report": Rule(VIEWER, MANAGER, SUBTREE),
    "report_pdf": Rule(VIEWER, MANAGER, SUBTREE),
    # -- reports: schedules -------------------------------------------------------------------
    # Viewers read the schedules and the reports sent (and download them); managers make,
    # change, preview, send and delete them, a limited one within their subtree only (the
    # whole account's report is for members without a limit: the selectors and services).
    "report_schedule_list": Rule(VIEWER, MANAGER, SUBTREE),
    "report_schedule_new": Rule(MANAGER, MANAGER, SUBTREE),
    "report_schedule_preview": Rule(MANAGER, MANAGER, SUBTREE),
    "report_schedule_edit": Rule(VIEWER, MANAGER, SUBTREE),
    "report_schedule_delete": Rule(MANAGER, MANAGER, SUBTREE),
    "report_schedule_send_now": Rule(MANAGER, MANAGER, SUBTREE),
    "sent_report_list": Rule(VIEWER, MANAGER, SUBTREE),
    "sent_report_pdf": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_list": Rule(VIEWER, MANAGER, SUBTREE),
    # Making a bulk change is its only use: a viewer has nothing to do there.
    "bulk_change_new": Rule(MANAGER, MANAGER, SUBTREE),
    "bulk_change_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_progress": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_apply": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_pause": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_resume": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_cancel": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_rollback": Rule(VIEWER, MANAGER, SUBTREE),
    "bulk_change_cancel_confirm": Rule(MANAGER, MANAGER, SUBTREE),
    "bulk_change_rollback_confirm": Rule(MANAGER, MANAGER, SUBTREE),
    # -- API operations -----------------------------------------------------------------------
    "api_business_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_business_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_business_children": Rule(VIEWER, MANAGER, SUBTREE),
    "api_business_hierarchy": Rule(VIEWER, MANAGER, SUBTREE),
    "api_sync_run_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_sync_run_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_change_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_change_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_change_retry": Rule(VIEWER, MANAGER, SUBTREE),
    "api_change_arrived": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_submission_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_submission_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_status": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_status_refresh": Rule(VIEWER, MANAGER, SUBTREE),
    "api_category_fetch": Rule(VIEWER, MANAGER, SUBTREE),
    # The provider's category lists: reference data the listing editor needs, no tenant rows.
    "api_category_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_question_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_business_media": Rule(VIEWER, MANAGER, SUBTREE),
    "api_review_counts": Rule(VIEWER, MANAGER, SUBTREE),
    "api_provider_event_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_provider_event_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_items": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_apply": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_pause": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_resume": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_cancel": Rule(VIEWER, MANAGER, SUBTREE),
    "api_bulk_change_rollback": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_export": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_import_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_import_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_listing_import_apply": Rule(VIEWER, MANAGER, SUBTREE),
    "api_audit_event_list": Rule(OWNER, OWNER, ACCOUNT),
    "api_connection": Rule(OWNER, OWNER, ACCOUNT),
    "api_brand": Rule(OWNER, OWNER, ACCOUNT),
    "api_brand_logo": Rule(OWNER, OWNER, ACCOUNT),
    "api_custom_field_list": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_ai_search": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_ai_search_refresh": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_subscription_list": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_subscription_detail": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_event_receiver": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_competitor_metrics": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_competitive_ranking": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_surveys": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_survey_detail": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_survey_responses": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_survey_response_detail": Rule(VIEWER, MANAGER, ACCOUNT),
    "api_history": Rule(VIEWER, MANAGER, SUBTREE),
    "api_business_history": Rule(VIEWER, MANAGER, SUBTREE),
    "api_notification_list": Rule(VIEWER, VIEWER, PERSONAL),
    "api_notification_read": Rule(VIEWER, VIEWER, PERSONAL),
    "api_notification_read_all": Rule(VIEWER, VIEWER, PERSONAL),
    "api_notification_preferences": Rule(VIEWER, VIEWER, PERSONAL),
    "api_alert_rules": Rule(MANAGER, OWNER, ACCOUNT),
    "api_late_sites": Rule(VIEWER, MANAGER, SUBTREE),
    "api_directory_delays": Rule(VIEWER, OWNER, ACCOUNT),
    # -- reports API: the report --------------------------------------------------------------
    "api_report_render": Rule(VIEWER, MANAGER, SUBTREE),
    "api_report_summary": Rule(VIEWER, MANAGER, SUBTREE),
    # -- reports API: schedules ---------------------------------------------------------------
    "api_report_schedule_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_report_schedule_detail": Rule(VIEWER, MANAGER, SUBTREE),
    "api_sent_report_list": Rule(VIEWER, MANAGER, SUBTREE),
    "api_sent_report_pdf": Rule(VIEWER, MANAGER, SUBTREE),
}

# What a sync may fetch for a member: the tree walk, the locations' own data and the review
# counts of the subtree's root follow the member's subtree; the rest is about the whole account.
SYNC_RESOURCE_SCOPE: dict[str, Scope] = {
    "businesses": SUBTREE,
    "listing_status": SUBTREE,
    "media": SUBTREE,
    "qna": SUBTREE,
    "review_counts": SUBTREE,
    "ai_search": ACCOUNT,
    "competitor_metrics": ACCOUNT,
    "competitive_ranking": ACCOUNT,
    "survey_responses": ACCOUNT,
}

ROLE_MESSAGE = "Your role does not allow this: it needs {role} or above."
ACCOUNT_WIDE_MESSAGE = ("This covers the whole account, and your access is limited to part of "
                        "it. Ask an owner of the agency without a limit.")
UNLISTED_MESSAGE = "This page is not open to members."


def _rank(role: str) -> int:
    return ROLE_RANK[Role(role)]


def refusal(*, name: str, method: str, role: str, limited: bool) -> str | None:
    """Why a member with `role` (limited to a subtree or not) may not use `name` with
    `method`, or None when they may."""
    rule = POLICY.get(name)
    if rule is None:
        return UNLISTED_MESSAGE
    if rule.scope is Scope.ACCOUNT and limited:
        return ACCOUNT_WIDE_MESSAGE
    needed = rule.read if method.upper() in SAFE_METHODS else rule.write
    if _rank(role) < _rank(needed):
        return ROLE_MESSAGE.format(role=Role(needed).label.lower())
    return None


def check(*, name: str, method: str, role: str, limited: bool) -> None:
    """Raise PermissionDenied (a 403 with the reason) unless the policy allows the call."""
    reason = refusal(name=name, method=method, role=role, limited=limited)
    if reason is not None:
        raise AccessRefused(reason)


def allows(membership: Membership | None, name: str, *, write: bool = False) -> bool:
    """For menus and buttons: may this member open `name` (or change through it)?"""
    if membership is None:
        return False
    return refusal(name=name, method="POST" if write else "GET", role=membership.role,
                   limited=membership.limited_to_id is not None) is None


def sync_resources_allowed(membership: Membership | None) -> list[str]:
    """The sync resources this member may start, in the table's order (None: support staff
    or a script, who may start all)."""
    if membership is None or membership.limited_to_id is None:
        return list(SYNC_RESOURCE_SCOPE)
    return [r for r, scope in SYNC_RESOURCE_SCOPE.items() if scope is Scope.SUBTREE]

"""The businesses search: every word of it matches somewhere (name, alias, city, state, postal
code or the business number), in any order, whatever the punctuation; the UI list, the API list
and the selector share it (one FilterSet)."""

import pytest
from django.urls import reverse

from accounts.filtersets import SEARCH_MAX_WORDS, search_words
from accounts.models import Business, Role
from accounts.selectors import business_list_filtered
from portal.tenancy import tenant_scope
from tests.accounts.ui_factories import make_tree
from tests.factories import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree(member_client):
    client, membership = member_client(Role.VIEWER)
    tree = make_tree(membership.reseller)
    Business.unscoped.filter(pk=tree.a.pk).update(state="TX", zip="78781")
    Business.unscoped.filter(pk=tree.b.pk).update(state="MA", zip="02108")
    Business.unscoped.filter(pk=tree.c.pk).update(state="ON", zip="M5V 2T6")
    return client, membership, tree


def ui_names(client, membership, q):
    response = client.get(reverse("business_list", args=[membership.reseller.slug]), {"q": q})
    assert response.status_code == 200
    return {business.name for business in response.context["businesses"]}


def selector_names(membership, q):
    with tenant_scope(membership.reseller):
        return set(business_list_filtered(tenant=membership.reseller, membership=membership,
                                          params={"q": q}).values_list("name", flat=True))


def api_names(membership, q):
    client = token_client(membership, role=Role.VIEWER)
    response = client.get(reverse("api_business_list", args=[membership.reseller.slug]),
                          {"q": q})
    assert response.status_code == 200
    return {row["name"] for row in response.json()["results"]}


AUSTIN = {"Burger Brand - Austin"}


@pytest.mark.parametrize(("q", "expected"), [
    ("Burger Austin", AUSTIN),                 # two words of the name, not side by side
    ("austin burger", AUSTIN),                 # in any order
    ("Austin, TX", AUSTIN),                    # city and state, with the comma typed
    ("TX Austin", AUSTIN),
    ("78781", AUSTIN),                         # the postal code
    ("burger 78781", AUSTIN),
    ("M5V 2T6", {"Corner Bakery"}),            # a postal code with a space: two words
    ("bakery, ON", {"Corner Bakery"}),
    ("loc-b ma", {"Burger Brand - Boston"}),   # the alias and the state
    ("Burger 302", {"Burger Brand - Boston"}),  # a word of the name and the business number
    ("#302", {"Burger Brand - Boston"}),
    ("Austin.", AUSTIN),                       # punctuation at a word's end never has to match
    ("burger paris", set()),                   # each word must match: Paris is not a burger
    ("Austin, CA", set()),
])
def test_every_word_matches_somewhere_in_the_ui_the_api_and_the_selector(tree, q, expected):
    client, membership, _ = tree
    assert ui_names(client, membership, q) == expected
    assert api_names(membership, q) == expected
    assert selector_names(membership, q) == expected


def test_punctuation_alone_filters_nothing(tree):
    client, membership, _ = tree
    everything = selector_names(membership, "")
    assert everything and selector_names(membership, ", - #") == everything
    assert ui_names(client, membership, " , ") == everything


def test_a_word_never_matches_across_two_fields(tree):
    _, membership, _ = tree
    # The city "Austin" ends where the state "TX" starts: they are separate lines of the text.
    assert selector_names(membership, "austintx") == set()
    assert selector_names(membership, "tx78781") == set()


def test_the_search_text_follows_a_changed_state_and_postal_code(tree):
    _, membership, tree_ = tree
    Business.unscoped.filter(pk=tree_.a.pk).update(state="NM", zip="87501")
    assert selector_names(membership, "Austin TX") == set()
    assert selector_names(membership, "Austin NM 87501") == AUSTIN


def test_the_form_says_what_the_search_looks_at(tree):
    client, membership, _ = tree
    page = client.get(reverse("business_list", args=[membership.reseller.slug])).content.decode()
    assert "postal code" in page and "in any order" in page


@pytest.mark.parametrize(("typed", "words"), [
    ("Brightsmile Austin", ["Brightsmile", "Austin"]),
    ("Austin, TX", ["Austin", "TX"]),
    ("  Pizza / Austin ; #1042 ", ["Pizza", "Austin", "1042"]),
    ("O'Brien's Bar-B-Q", ["O'Brien's", "Bar-B-Q"]),
    ("austin AUSTIN Austin", ["austin"]),
    ("- , .", []),
    ("", []),
])
def test_search_words(typed, words):
    assert search_words(typed) == words


def test_a_search_has_a_bounded_number_of_words():
    assert len(search_words(" ".join(f"w{n}" for n in range(50)))) == SEARCH_MAX_WORDS

"""Every error reply the provider documents for the 16 operations, as the client reads it.

The table is copied by hand from the provider's published description (spec/provider-wire.md,
sections 2 to 4): operation, HTTP status, body code and message, word for word. The sandbox
answers most of them (tests/sandbox/test_provider_replies.py checks each over HTTP); a few it
cannot judge (2180 needs the image, 2515, 2520 and 5024 have no stated condition, the Q&A text
codes concern texts the delete body does not carry), so this is where they are met. Whatever
the status the provider files a code under, the code decides: a 401 that carries 1011 or a Q&A
code is not a rejected key, a 400 that carries 1167 is.
"""

from __future__ import annotations

import pytest

from provider.errors import AuthError, NotFound, RateLimited, Rejected, error_from_reply

LISTING = [
    (2296, "Invalid Food Delivery link"),
    (2297, "Invalid Food Takeout link"),
    (2290, "Food Takeout/Food Delivery not supported for gmb primary category"),
    (2503, "Primary category can not be included in additional category."),
    (2276, "Please add upto 9 GBP additional categories only."),
    (2277, "Duplicate GBP categories are not allowed."),
    (2278, "Primary GBP category is not allowed in additional GBP categories."),
    (2162, "Reopen date should not be less than current date."),
    (2511, "Cannot update business status when listing is already fixed."),
    (2512, "Cannot update opening soon date when listing is already fixed."),
    (2513, "Opened On date can not be in future."),
    (2514, "Opening Soon date is mandatory when business is marked as Opening soon."),
    (2515, "Reopen date is not supported for this date."),
    (2516, "Opening Soon Date can not be more than 1 year from now."),
    (2517, "Opening Soon date should not be less than current date."),
    (2518, "Business Status is mandatory to pass with reopen, opened on and opening soon date."),
    (2519, "Third party categories change for opening soon business is not allowed."),
    (2520, "Open Date is not supported for this date"),
    (2285, "Invalid text message number"),
    (2286, "Invalid whatsapp business link"),
    (6000, "The 'sub_locality' field is mandatory for addresses in New Zealand."),
    (6001, "The 'sub_locality' field cannot exceed 80 characters."),
]
CUSTOM_FIELD = [
    (5022, "Another custom field with same name already present."),
    (5023, "Custom field request dto cannot be null."),
    (5024, "Custom field creation failed."),
    (5031, "Method not implemented for unknown custom field type."),
    (5039, "Custom field name cannot be a reserved keyword."),
    (5040, "Max limit reached for custom fields."),
]
MEDIA = [
    (2174, "Unsupported media format"),
    (2180, "The recommended Image size for Google media image is 250 pixels wide and 250 pixels "
           "tall."),
    (2181, "Supported video format is MP4."),
    (2171, "URL is invalid"),
    (2175, "Provided media category is not supported"),
]
DELETE_QNA = [
    (2478, "Question is required"),
    (2479, "Answer is required"),
    (2481, "Q&A cannot be more than 4096 characters"),
    (2485, "Questions should be 10 characters minimum"),
    (2483, "Question should have minimum 3 words"),
    (2461, "No question found with provided request"),
    (2480, "Cannot modify non owner Q&A"),
    (2482, "Question Id is Invalid"),
]
CATEGORY_LIST = ["Source name not found", "Country code not found", "Invalid country code",
                 "Invalid Source Name"]

# (operation, HTTP status, body code, message, the client's error)
REPLIES = [
    *[("create_listing", 400, code, message, Rejected) for code, message in LISTING],
    *[("create_custom_field", 400, code, message, Rejected) for code, message in CUSTOM_FIELD],
    *[("add_media", 400, code, message, Rejected) for code, message in MEDIA],
    *[("delete_all_qna", 401, code, message, Rejected) for code, message in DELETE_QNA],
    *[("category_list", 400, 400, message, Rejected) for message in CATEGORY_LIST],
    ("get_qna", 401, 2466, "Invalid input request", Rejected),
    ("survey_responses", 400, 1315, "Invalid survey.", Rejected),
    ("location_status", 400, 1043, "Business should be either SMB or Enterprise sub account",
     Rejected),
    ("location_status", 404, 1175, "No business found with the given id", NotFound),
    ("unsubscribe", 500, 1005, "Subscription Not found for Particular Id", NotFound),
    # 1011: under 401 on add media, get media and update hierarchy, under 404 elsewhere.
    *[(name, 401, 1011, "Business id is invalid", NotFound)
      for name in ("add_media", "get_media", "update_hierarchy")],
    *[(name, 404, 1011, "Business id is invalid", NotFound)
      for name in ("competitor_review_metrics", "survey_responses", "review_count_by_rating",
                   "competitive_ranking", "get_qna", "delete_all_qna", "unsubscribe")],
    # 1167: under 400 on review count by rating, under 401 elsewhere.
    ("review_count_by_rating", 400, 1167, "API key is missing", AuthError),
    ("competitive_ranking", 401, 1167, "API key is missing", AuthError),
    ("create_listing", 401, 1161, "Invalid API key", AuthError),
    ("create_listing", 429, 89, "Rate limit exceeded", RateLimited),
    # Defined by the provider, attached to no operation.
    ("competitor_review_metrics", 400, 1163, "Invalid start index value", Rejected),
    ("competitor_review_metrics", 400, 1164, "Invalid result count value", Rejected),
]


@pytest.mark.parametrize(("operation", "status", "code", "message", "kind"), REPLIES,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in REPLIES])
def test_the_client_reads_each_documented_reply_by_its_code(operation, status, code, message,
                                                            kind):
    error = error_from_reply(status, {"code": code, "message": message}, operation=operation)

    assert type(error) is kind
    assert (error.code, error.message, error.http_status) == (code, message, status)
    assert error.retryable is (kind is RateLimited)


def test_the_table_has_every_code_the_provider_documents_for_the_16_operations():
    codes = {code for _, _, code, _, _ in REPLIES}
    assert codes >= {89, 400, 1005, 1011, 1043, 1161, 1163, 1164, 1167, 1175, 1315, 2466,
                     *range(2511, 2521), 2285, 2286, 6000, 6001}
    assert len([r for r in REPLIES if r[0] == "create_listing" and r[1] == 400]) == 22

"""Paging a list of ids whose page query must read every match anyway."""

from __future__ import annotations

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Count, Window


class CountInPagePaginator(Paginator):
    """Pages of the ids of `object_list` (a queryset) that are counted in the same query as
    the page, with `COUNT(*) OVER ()`.

    For a list whose filter cannot be answered from an index in the list's order (a search
    term matched inside names), finding the first page already checks every row; a separate
    count would check them all a second time. Only when the page asked for lies past the end
    is there a second query (the plain count), to find the last page.
    """

    def page(self, number):
        number = self._page_number(number)
        bottom = (number - 1) * self.per_page
        rows = list(self.object_list.annotate(matches=Window(Count("pk")))
                    .values_list("pk", "matches")[bottom:bottom + self.per_page])
        if rows:
            self.__dict__["count"] = rows[0][1]
        elif number == 1:
            self.__dict__["count"] = 0
        else:
            # Past the end: the plain count tells get_page which page is the last.
            self.validate_number(number)
        return self._get_page([pk for pk, _ in rows], number, self)

    def _page_number(self, number) -> int:
        try:
            if isinstance(number, float) and not number.is_integer():
                raise ValueError
            number = int(number)
        except (TypeError, ValueError) as error:
            raise PageNotAnInteger(self.error_messages["invalid_page"]) from error
        if number < 1:
            raise EmptyPage(self.error_messages["min_page"])
        return number


def paginate(request, queryset, per_page: int):
    """The page of `queryset` the request's `page` parameter asks for (the last one when it is
    past the end, the first when it is not a number)."""
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))

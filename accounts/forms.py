from django import forms
from django.contrib.auth.forms import AuthenticationForm


class EmailAuthenticationForm(AuthenticationForm):
    username = forms.EmailField(
        label="Email", widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"})
    )


LEVEL_NAME_MAX = 200  # the provider's limit on a level name
LEVEL_VALUE_MAX = 1000


class HierarchyLevelForm(forms.Form):
    """One level of a location's hierarchy: its name and its value."""

    level_name = forms.CharField(label="Level", max_length=LEVEL_NAME_MAX, required=False,
                                 strip=True)
    level_value = forms.CharField(label="Value", max_length=LEVEL_VALUE_MAX, required=False,
                                  strip=True)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("DELETE"):
            return cleaned
        name, value = cleaned.get("level_name", ""), cleaned.get("level_value", "")
        if "level_name" in self.errors or "level_value" in self.errors:
            return cleaned
        if self.initial and not name and not value:
            self.add_error("level_value", "Give this level a value, or tick Remove to drop it.")
        elif name and not value:
            self.add_error("level_value",
                           "Give a value: the provider replaces the whole mapping, so a level "
                           "sent without its value would be lost.")
        elif value and not name:
            self.add_error("level_name", "Name the level this value belongs to.")
        return cleaned


class BaseHierarchyFormSet(forms.BaseFormSet):
    """Every level of a location at once: the provider overwrites the whole mapping."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        number = (index + 1) if index is not None else "new"
        form.fields["level_name"].label = f"Level {number} name"
        form.fields["level_value"].label = f"Level {number} value"
        if "DELETE" in form.fields:
            form.fields["DELETE"].label = f"Remove level {number}"

    def clean(self):
        if any(self.errors):
            return
        seen: dict[str, int] = {}
        for form in self.forms:
            if self._should_delete_form(form):
                continue
            name = (form.cleaned_data.get("level_name") or "").strip()
            if not name:
                continue
            key = name.casefold()
            if key in seen:
                form.add_error("level_name", f"“{name}” is already given above; each level "
                                             "appears once.")
            seen[key] = 1
        if any(self.errors):
            raise forms.ValidationError("Correct the levels marked below.")
        if not self.levels():
            raise forms.ValidationError("Give at least one level with its value.")

    def levels(self) -> dict[str, str]:
        """The mapping to send: level name -> value, in the order shown."""
        levels = {}
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or self._should_delete_form(form):
                continue
            name = (form.cleaned_data.get("level_name") or "").strip()
            value = (form.cleaned_data.get("level_value") or "").strip()
            if name and value:
                levels[name] = value
        return levels


HierarchyFormSet = forms.formset_factory(HierarchyLevelForm, formset=BaseHierarchyFormSet,
                                         extra=2, can_delete=True, can_delete_extra=False,
                                         max_num=200,
                                         validate_max=True)

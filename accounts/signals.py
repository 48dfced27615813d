"""Sign-ins and failed sign-ins go to the audit log."""

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver

from accounts.lockout import client_address
from accounts.models import User
from accounts.services import audit_record


def _client_address(request) -> str:
    # The address sign-in lockout counts against: behind the TLS proxy, the client's, not the
    # proxy's.
    return client_address(request) if request is not None else ""


@receiver(user_logged_in)
def record_sign_in(sender, request, user, **kwargs):
    audit_record(tenant=None, actor=user, action="auth.signed_in", obj=user,
                 summary={"ip": _client_address(request)})


@receiver(user_login_failed)
def record_failed_sign_in(sender, credentials, request=None, **kwargs):
    # Only the attempted user name is kept; the password never reaches the log.
    email = str(credentials.get("username", ""))[:254]
    user = User.objects.filter(email=email.lower()).first() if email else None
    audit_record(tenant=None, actor=None, action="auth.sign_in_failed",
                 object_type="accounts.user", object_id=str(user.pk) if user else "",
                 summary={"email": email, "ip": _client_address(request)})

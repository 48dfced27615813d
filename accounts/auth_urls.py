from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.brand_views import BrandLoginView, BrandPasswordResetView
from accounts.forms import EmailAuthenticationForm
from accounts.profile_views import ProfileView

urlpatterns = [
    path("login/", BrandLoginView.as_view(authentication_form=EmailAuthenticationForm,
                                          redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", ProfileView.as_view(), name="profile"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(),
         name="password_change_done"),
    path("password_reset/", BrandPasswordResetView.as_view(), name="password_reset"),
    path("password_reset/done/", auth_views.PasswordResetDoneView.as_view(),
         name="password_reset_done"),
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(),
         name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(),
         name="password_reset_complete"),
]

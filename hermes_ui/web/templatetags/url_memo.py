"""``{% url %}`` with each reversal worked out once per process.

The same name with the same plain values (text, numbers) under the same
URLconf, script prefix and namespace always gives the same URL; any other value
is reversed as Django does. Kept by measure (docs/development/benchmarks.md).
"""

from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import defaulttags
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()


@lru_cache(maxsize=4096)
def _reverse(view_name, args, kwargs, current_app, _prefix, _urlconf) -> str:
    return reverse(view_name, args=args, kwargs=dict(kwargs), current_app=current_app)


def _plain(value) -> bool:
    # Text (a template's literals are SafeStrings) and numbers, not booleans.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class URLNode(defaulttags.URLNode):
    def render(self, context):
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple((k, v.resolve(context)) for k, v in self.kwargs.items())
        view_name = self.view_name.resolve(context)
        if not (
            isinstance(view_name, str)
            and all(_plain(a) for a in args)
            and all(_plain(v) for _, v in kwargs)
        ):
            return super().render(context)
        request = getattr(context, "request", None)
        current_app = getattr(request, "current_app", None)
        if current_app is None:
            current_app = getattr(getattr(request, "resolver_match", None), "namespace", None)
        url = ""
        try:
            url = _reverse(
                str(view_name),
                tuple(str(a) if isinstance(a, str) else a for a in args),
                tuple((k, str(v) if isinstance(v, str) else v) for k, v in kwargs),
                current_app,
                get_script_prefix(),
                get_urlconf(),
            )
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    """``{% url "name" arg key=value [as var] %}``, as Django's."""
    node = defaulttags.url(parser, token)
    return URLNode(node.view_name, node.args, node.kwargs, node.asvar)


@receiver(setting_changed)
def _forget(*, setting, **kwargs):
    if setting == "ROOT_URLCONF":  # as Django clears its own URL caches then
        _reverse.cache_clear()

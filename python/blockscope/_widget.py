"""A widget to show: its tag, attributes and check= text, rendered as a self-contained HTML fragment or page."""

import html
import json
import uuid

from . import _assets, _spec
from ._session import SESSION

#: Shipped models by gpt-explorer's model= value ('' is the default, brown).
_MODELS = {"": "models/brown", "brown": "models/brown", "brown-bpe": "models/brown-bpe", "sort": "models/sort"}

_WAITING = ("Waiting for Blockscope's files. The first blockscope.show() output of this notebook carries them: if that "
            "output was cleared or deleted, run blockscope.reset() and then this cell again. In front ends that keep "
            "outputs apart (Colab), call blockscope.configure(assets='every') first.")


def needed_groups(tag, attrs):
    """The file groups (_files.GROUPS) widget ``tag`` with ``attrs`` needs besides the runtime."""
    out = []
    if tag == "gpt-explorer" and attrs.get("weights") != "random":
        group = _MODELS.get(attrs.get("model", ""))
        if group:
            out.append(group)
    if tag == "training-lab":
        out.append("data/brown")
    if tag in ("gpt-explorer", "block-explorer") and attrs.get("tokenizer") == "gpt2":
        out.append("tokenizers/gpt2")
    return out


def _script_json(value):
    """JSON that is safe inside a <script> element."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c").replace(
        "\u2028", "\\u2028").replace("\u2029", "\\u2029")


class Widget:
    """One Blockscope widget for a notebook output (``_repr_html_``) or an HTML page (``page()``, ``save()``)."""

    def __init__(self, tag, attrs, check=None):
        self.tag = tag
        self.attrs = dict(attrs)
        self.check = check

    def __repr__(self):
        shown = " ".join(f"{k}" if v == "" else f"{k}={v[:40] + '…' if len(v) > 40 else v!r}" for k, v in self.attrs.items())
        return f"<blockscope {self.tag}{' ' + shown if shown else ''}{' check=…' if self.check is not None else ''}>"

    @property
    def needs(self):
        """The file groups this widget needs: the runtime, and a model, corpus or tokenizer if it uses one."""
        return ["runtime"] + [g for g in needed_groups(self.tag, self.attrs) if _assets.has_group(g)]

    def element_html(self):
        """The widget's own tag with its attributes, e.g. ``<gelu-explorer x="0.5"></gelu-explorer>``."""
        parts = [self.tag] + [k if v == "" else f'{k}="{html.escape(v, quote=True)}"' for k, v in self.attrs.items()]
        return f"<{' '.join(parts)}></{self.tag}>"

    def html(self, assets=True):
        """The output's HTML: the widget, a note shown until it starts, and the script that starts it. With
        ``assets=True`` it carries every file the widget needs (and works alone); with False, only what the page does
        not have yet is expected from another output; a list of group names carries those."""
        needs = self.needs
        carry = needs if assets is True else [] if assets is False else [g for g in needs if g in assets]
        root = "blockscope-" + uuid.uuid4().hex[:12]
        item = {"need": needs, "check": self.check, "groups": {g: _assets.group_files(g) for g in carry}}
        loader = _assets.loader_js() if "runtime" in carry else ""
        note = (f"&lt;{self.tag}&gt;: a Blockscope widget, which needs JavaScript (in Jupyter: a trusted notebook — "
                "run the cell, or trust the notebook).")
        script = (
            "(function(){var n=window.__blockscopeNotebook||(window.__blockscopeNotebook={});"
            "var q=n.queue||(n.queue=[]);var s=document.currentScript;"
            f"var r=s&&s.parentNode&&s.parentNode.id==={json.dumps(root)}?s.parentNode:document.getElementById({json.dumps(root)});"
            f"var it={_script_json(item)};it.root=r;q.push(it);if(n.run)n.run();"
            "setTimeout(function(){var m=!it.done&&r&&r.querySelector('.blockscope-note');"
            f"if(m)m.textContent={_script_json(_WAITING)}}},5000)}})();")
        return (
            f'<div class="blockscope-output" id="{root}">'
            f'<template class="blockscope-widget">{self.element_html()}</template>'
            f'<p class="blockscope-note" style="font:0.9em system-ui,sans-serif;opacity:0.7;margin:0.4em 0">{note}</p>'
            f"<script>{loader}\n{script}</script></div>")

    def _repr_html_(self):
        return self.html(assets=SESSION.groups_to_carry(self.needs))

    def page(self, title=None):
        """A whole HTML document showing the widget, with every file it needs inlined (works offline, alone)."""
        title = html.escape(title or f"Blockscope: {self.tag}")
        return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{title}</title>\n<link rel=\"icon\" href=\"data:,\">\n</head>\n<body>\n"
                f"{self.html(assets=True)}\n</body>\n</html>\n")

    def save(self, path, title=None):
        """Writes page() to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.page(title))
        return path

    def display(self):
        """Displays the widget with IPython's display() (what a cell's last expression does by itself)."""
        from IPython.display import display  # noqa: PLC0415 (only inside IPython)

        display(self)


def show(widget, /, **attrs):
    """A Blockscope widget for a notebook: ``blockscope.show('layernorm-explorer', values=x, gamma=1.5)``.

    ``widget`` is a tag (``blockscope.widgets()`` lists them). Keyword arguments are the widget's attributes with
    ``_`` for ``-`` (``check_form='erf'`` sets ``check-form``): booleans switch an attribute on or off, numbers must
    lie in the attribute's range, and tensors, NumPy arrays or nested lists become the text the attribute takes
    (``values`` of <layernorm-explorer>: a (tokens, features) matrix). ``check=`` pastes your own output (a tensor,
    array, list or its printed text) into the check-your-implementation box, which then checks it.
    Raises UnknownWidgetError, UnknownAttributeError or AttributeValueError naming what is wrong.
    """
    tag = _spec.widget_tag(widget)
    text = _spec.attributes_for(tag, attrs)
    check = _spec.check_text(tag, attrs["check"], text) if attrs.get("check") is not None else None
    return Widget(tag, text, check)

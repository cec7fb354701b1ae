"""Blockscope's lesson widgets in a Jupyter notebook, offline.

    import blockscope
    blockscope.show('layernorm-explorer', values=x[0], gamma=1.5, lang='de', controls='none')
    blockscope.show('gelu-explorer', check=my_gelu(torch.tensor(blockscope.check_inputs('gelu-explorer'))))

show() returns a Widget, which a notebook cell displays. Its HTML holds everything the widget needs — the widgets
bundle, the Web Worker, the WebAssembly core, the presets — inlined once per notebook (the first output carries
them; later outputs use them), so it works without a network, in JupyterLab, Notebook, VS Code and in the HTML
nbconvert exports. Widget.save(path) writes a page that works alone. Standard library only.
"""

from ._assets import AssetsMissingError
from ._session import SESSION as _SESSION
from ._spec import (AttributeValueError, BlockscopeError, UnknownAttributeError, UnknownWidgetError, attribute_specs,
                    specs as _specs, widget_tag, widget_tags)
from ._widget import Widget, show

__version__ = _specs()["version"]

__all__ = ["show", "Widget", "widgets", "attributes", "check_inputs", "configure", "reset", "BlockscopeError", "UnknownWidgetError",
           "UnknownAttributeError", "AttributeValueError", "AssetsMissingError", "__version__"]


def widgets():
    """The widgets' tags: 'layernorm-explorer', 'gelu-explorer', …"""
    return widget_tags()


def attributes(widget):
    """Widget ``widget``'s attributes: {name: {type, default, min, max, options, doc, …}} (the widget's own metadata)."""
    return attribute_specs(widget)


def check_inputs(widget):
    """The fixed inputs the widget's check box wants your code's output for, as floats (<gelu-explorer>: the lesson's
    eight x values), or None where the inputs are what you pass (<layernorm-explorer>: values=)."""
    check = _specs()["widgets"][widget_tag(widget)]["check"]
    inputs = (check or {}).get("inputs")
    return None if inputs is None else [float(v) for v in inputs]


def configure(assets="once"):
    """``assets='once'`` (default): in a notebook, the first output carries Blockscope's files and later outputs use
    them. ``'every'``: every output carries what it needs (larger notebooks, but each output works alone, as in
    front ends that isolate outputs from each other)."""
    _SESSION.configure(assets)


def reset():
    """Forgets which output carries the files: the next widget shown carries them again (after clearing outputs)."""
    _SESSION.reset()

"""Keyword arguments of ``blockscope.show()`` -> a widget's HTML attributes, checked against the widgets' own metadata.

attributes.json is generated from the widget classes' ``static attrs`` (scripts/gen-python-attrs.mjs), so the names,
types, ranges and options checked here are the widgets' own. Values:

* ``None`` leaves the attribute out (the widget's default).
* booleans: ``True`` -> present, ``False`` -> absent (or ``"false"`` where the default is on).
* numbers (also a 0-d tensor or NumPy scalar) -> text, within the attribute's range.
* tensors, arrays and nested lists -> the text the attribute takes: ``"1, 3, 5, 7; 10, 20, 30, 40"`` for the
  attributes that take rows of numbers (``values`` of <layernorm-explorer>, ``demo`` of <ffn-explorer>); a vector
  of equal values for a one-number attribute (nn.LayerNorm's weight for ``gamma``).
* ``check=`` (not an attribute): what the learner's own code printed, for the check-your-implementation box.

Tensors are recognised by duck typing (``.tolist()``): torch, NumPy, JAX or anything else with that method; neither
torch nor NumPy is imported.
"""

import difflib
import json
import math
import os
import struct

_HERE = os.path.dirname(os.path.abspath(__file__))
_SPECS = None

#: Keyword arguments of show() that are not attributes.
RESERVED = ("check",)


class BlockscopeError(ValueError):
    """A widget, attribute or value Blockscope cannot show."""


class UnknownWidgetError(BlockscopeError):
    """No Blockscope widget has this name."""


class UnknownAttributeError(BlockscopeError, TypeError):
    """The widget has no attribute of this name (a keyword argument show() does not take)."""


class AttributeValueError(BlockscopeError):
    """The value cannot be an attribute of the widget (wrong type, out of range, not one of the options)."""


def specs():
    """The parsed attributes.json: {version, common: {name: spec}, widgets: {tag: {attrs, rows, check}}}."""
    global _SPECS
    if _SPECS is None:
        with open(os.path.join(_HERE, "attributes.json"), encoding="utf-8") as f:
            _SPECS = json.load(f)
    return _SPECS


def widget_tags():
    return list(specs()["widgets"])


def widget_tag(name):
    """The tag for ``name`` ("layernorm-explorer"; underscores and case are forgiven), or UnknownWidgetError."""
    if not isinstance(name, str):
        raise UnknownWidgetError(f"the widget must be named by its tag, a string such as 'gelu-explorer'; got {name!r}")
    tag = name.strip().lower().replace("_", "-")
    tags = widget_tags()
    if tag in tags:
        return tag
    guesses = [t for t in tags if t.startswith(tag + "-") or t.split("-")[0] == tag.split("-")[0]]
    guesses += [t for t in difflib.get_close_matches(tag, tags, n=2, cutoff=0.6) if t not in guesses]
    hint = f" Did you mean {' or '.join(repr(g) for g in guesses[:2])}?" if guesses else ""
    raise UnknownWidgetError(f"Blockscope has no widget {name!r}.{hint} The widgets: {', '.join(tags)}.")


def attribute_specs(tag):
    """Every attribute of widget ``tag``: its own, then the ones every widget takes, by name."""
    tag = widget_tag(tag)
    out = dict(specs()["widgets"][tag]["attrs"])
    for name, spec in specs()["common"].items():
        out.setdefault(name, spec)
    out.setdefault("id", {"type": "string", "default": "", "doc": "names the widget in deep links"})
    return out


def _unknown_attribute(tag, keyword, name):
    own = specs()["widgets"][tag]["attrs"]
    every = attribute_specs(tag)
    guesses = difflib.get_close_matches(name, list(every), n=2, cutoff=0.7)
    # An attribute whose description names what was asked for ("tokens" -> values: 'tokens split by ";"').
    stem = name.rstrip("s")
    guesses += [n for n, s in own.items() if n not in guesses and len(stem) > 2 and stem in str(s.get("doc", "")).lower()]
    hint = ""
    if guesses:
        hint = " Did you mean " + " or ".join(
            f"{g.replace('-', '_')}= ({g}{': ' + every[g]['doc'] if every[g].get('doc') else ''})" for g in guesses[:3]) + "?"
    check = " and check= (the check-your-implementation box)" if specs()["widgets"][tag]["check"] else ""
    shown = keyword if keyword == name else f"{keyword} (attribute {name})"
    return UnknownAttributeError(
        f"<{tag}> has no attribute {shown}.{hint} Its attributes: {', '.join(own)}; every widget also takes "
        f"{', '.join(n for n in every if n not in own)}{check}. Write attribute names with _ for - (check_form for check-form).")


# --- values -----------------------------------------------------------------------------------------------------------


def _is_float32(value):
    """Whether ``value`` is a tensor or array of 32-bit (or narrower) floats: its values print shortest as float32."""
    dtype = str(getattr(value, "dtype", ""))
    return dtype.endswith(("float32", "float16", "bfloat16"))


def _plain(value):
    """``value`` with every tensor or array replaced by its .tolist() (tuples become lists)."""
    if isinstance(value, (str, bytes)):
        return value
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (list, tuple, dict)):
        detach = getattr(value, "detach", None)  # torch: .tolist() also works with requires_grad, but be explicit
        if callable(detach):
            value = detach()
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _any_float32(value):
    if _is_float32(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_any_float32(v) for v in value)
    return False


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _f32_text(v):
    """The shortest decimal text that reads back as the same float32 as ``v``."""
    target = struct.unpack("<f", struct.pack("<f", v))[0]
    for digits in range(1, 10):
        text = f"{target:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == target:
            return text
    return repr(target)


def number_text(v, float32=False):
    """A finite number as attribute text: whole numbers without ".0", others shortest (as float32 when asked)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    v = float(v)
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return _f32_text(v) if float32 else repr(v)


def _shape(value, where="the value"):
    """The shape of a nested list of numbers; AttributeValueError when it is ragged or holds something else."""
    if isinstance(value, list):
        if not value:
            return (0,)
        inner = [_shape(v, where) for v in value]
        if any(s != inner[0] for s in inner):
            raise AttributeValueError(f"{where} is ragged: its rows have shapes {sorted(set(inner))}")
        return (len(value),) + inner[0]
    if _is_number(value):
        return ()
    raise AttributeValueError(f"{where} holds {value!r}, which is not a number")


def _check_finite(values, where):
    for v in values:
        if not math.isfinite(v):
            raise AttributeValueError(f"{where} holds {v!r}: every value must be a finite number")


def _flat(value):
    if isinstance(value, list):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _rows_text(tag, name, value, limits):
    row = limits["row"]
    where = f"<{tag}> {name}"
    float32 = _any_float32(value)
    data = _plain(value)
    if isinstance(data, str):
        return data
    shape = _shape(data, where)
    if len(shape) == 1:
        data = [data]
    elif len(shape) == 3 and shape[0] == 1:
        data = data[0]
    elif len(shape) != 2:
        extra = ": pass one sequence, e.g. x[0]" if len(shape) == 3 else ""
        raise AttributeValueError(
            f"{where} takes a matrix of {row}s × features ({row}s as rows) or one {row}'s vector; got shape "
            f"{tuple(shape)}{extra}")
    rows, cols = len(data), len(data[0]) if data else 0
    if rows == 0 or cols == 0:
        raise AttributeValueError(f"{where} needs at least one {row} of at least one feature; got shape ({rows}, {cols})")
    if limits.get("maxRows") and rows > limits["maxRows"]:
        raise AttributeValueError(
            f"{where} takes at most {limits['maxRows']} {row}s; got {rows} (shape ({rows}, {cols})): pass "
            f"x[:{limits['maxRows']}]")
    if limits.get("maxColumns") and cols > limits["maxColumns"]:
        raise AttributeValueError(
            f"{where} takes at most {limits['maxColumns']} features per {row}; got {cols} (shape ({rows}, {cols}))")
    _check_finite(_flat(data), where)
    return "; ".join(", ".join(number_text(v, float32) for v in r) for r in data)


def _one_number(tag, name, value):
    """A number, from a Python number, a one-element tensor or a tensor/list of equal values (nn.LayerNorm's γ)."""
    where = f"<{tag}> {name}"
    float32 = _any_float32(value)
    data = _plain(value)
    if isinstance(data, bool):
        raise AttributeValueError(f"{where} takes a number, not {data!r}")
    if isinstance(data, str):
        try:
            number = float(data.replace("\u2212", "-"))
        except ValueError:
            raise AttributeValueError(f"{where} takes a number; got {data!r}") from None
        return number, data.strip() if math.isfinite(number) else None, False
    if isinstance(data, list):
        _shape(data, where)
        values = list(_flat(data))
        if not values:
            raise AttributeValueError(f"{where} takes a number; got an empty {type(value).__name__}")
        if any(v != values[0] for v in values):
            shown = ", ".join(number_text(v, float32) for v in values[:6]) + (", …" if len(values) > 6 else "")
            raise AttributeValueError(
                f"{where} is one number for every feature; got {len(values)} different values [{shown}]")
        data = values[0]
    if not _is_number(data):
        raise AttributeValueError(f"{where} takes a number; got {value!r}")
    return data, None, float32


def attribute_text(tag, name, spec, value):
    """The attribute text for ``value`` (None: leave the attribute out). Raises AttributeValueError."""
    where = f"<{tag}> {name}"
    if value is None:
        return None
    kind = spec.get("type")
    options = spec.get("options")
    rows = specs()["widgets"][tag]["rows"].get(name)

    if kind == "boolean":
        data = _plain(value)
        if isinstance(data, bool):
            if data:
                return ""
            return "false" if spec.get("default") else None
        if isinstance(data, str) and data in ("", "true", "false"):
            return data
        raise AttributeValueError(f"{where} is on or off: pass True or False, not {value!r}")

    if kind == "number":
        number, text, float32 = _one_number(tag, name, value)
        if text is None and not math.isfinite(number):
            raise AttributeValueError(f"{where} must be a finite number; got {number!r}")
        if spec.get("int") and not float(number).is_integer():
            raise AttributeValueError(f"{where} takes a whole number; got {number!r}")
        low, high = spec.get("min"), spec.get("max")
        if (low is not None and number < low) or (high is not None and number > high):
            raise AttributeValueError(f"{where} goes from {low} to {high}; got {number!r}")
        text = text if text is not None else number_text(number, float32)
        if options is not None and text not in [str(o) for o in options]:
            raise AttributeValueError(f"{where} is one of {', '.join(str(o) for o in options)}; got {text}")
        return text

    # Text attributes.
    if rows is not None:
        return _rows_text(tag, name, value, rows)
    data = _plain(value)
    if isinstance(data, (list, tuple)) and all(isinstance(v, str) for v in data):
        data = ", ".join(data)  # predict=['mean', 'variance'], controls=['tokens', 'gamma']
    if _is_number(data):
        data = number_text(data, _any_float32(value))
    if not isinstance(data, str):
        raise AttributeValueError(f"{where} takes text; got {type(value).__name__} {value!r}")
    if options is not None and data not in [str(o) for o in options]:
        shown = ", ".join(repr(str(o)) for o in options)
        raise AttributeValueError(f"{where} is one of {shown}; got {data!r}")
    if "list" in spec:
        names = [n for n in data.replace(",", " ").lower().split() if n]
        known = spec["list"]
        unknown = [n for n in names if n not in known]
        if unknown:
            choices = ", ".join(known) if known else "nothing: this widget has none"
            raise AttributeValueError(f"{where} names {', '.join(unknown)}, which it does not know (it takes {choices})")
    return data


def check_text(tag, value, attrs):
    """The learner's output as the text their notebook would print, for the widget's check box."""
    check = specs()["widgets"][tag]["check"]
    if check is None:
        with_check = [t for t, w in specs()["widgets"].items() if w["check"]]
        raise UnknownAttributeError(
            f"<{tag}> has no check-your-implementation box, so it takes no check=. The widgets with one: "
            f"{', '.join(with_check)}.")
    for name, wanted in (check.get("when") or {}).items():
        if attrs.get(name) != wanted:
            raise AttributeValueError(
                f"<{tag}> shows its check box only with {name.replace('-', '_')}={wanted!r}: pass that too")
    if isinstance(value, str):
        if not value.strip():
            raise AttributeValueError(f"<{tag}> check= is empty: pass your output (a tensor, array or list) or its print")
        return value
    if isinstance(value, dict):
        if "dict" not in check.get("paste", ""):
            raise AttributeValueError(f"<{tag}> checks one tensor ({check['what']}), not a dict")
        parts = []
        for key, v in value.items():
            data = _plain(v)
            _shape(data, f"<{tag}> check[{key!r}]")
            parts.append(f"{str(key)!r}: {data!r}")
        return "{" + ", ".join(parts) + "}"
    data = _plain(value)
    if not isinstance(data, list) and not _is_number(data):
        raise AttributeValueError(f"<{tag}> check= takes your output as a tensor, array, list or printed text; got "
                                  f"{type(value).__name__}")
    _shape(data, f"<{tag}> check=")
    return repr(data)


def attributes_for(tag, kwargs):
    """{attribute name: text} for show(tag, **kwargs) (check= excluded), in the order given."""
    tag = widget_tag(tag)
    every = attribute_specs(tag)
    out = {}
    for keyword, value in kwargs.items():
        if keyword in RESERVED:
            continue
        name = keyword.replace("_", "-").lower()
        spec = every.get(name)
        if spec is None:
            raise _unknown_attribute(tag, keyword, name)
        if name in out:
            raise UnknownAttributeError(f"<{tag}> {name} is given twice")
        text = attribute_text(tag, name, spec, value)
        if text is not None:
            out[name] = text
    return out
